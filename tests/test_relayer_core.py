"""Regression checks of the merged closed-form pieces (issue 12, item 5): each merged routine
against the implementations it replaced (copied here verbatim as the reference), where their
thresholds or conventions differed."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.kernels import RBF, Linear
from lssvm_cvx.kernels.psd import PSD_FACTOR_RTOL, psd_factor
from lssvm_cvx.linalg.folds import check_folds, heldout_folds, make_folds
from lssvm_cvx.linalg.threads import SMALL_SYSTEM, small_system_blas


def _old_eig_factor(Omega, rtol=1e-12):  # formulations/lssvm.py before the merge
    s, V = np.linalg.eigh(Omega)
    keep = np.flatnonzero(s > rtol * max(s[-1], 0.0))[::-1]
    return V[:, keep] * np.sqrt(s[keep]) if keep.size else np.zeros((len(s), 1))


def _old_exact_factor(K):  # formulations/l2svm.py before the merge (numerical-rank threshold)
    s, V = np.linalg.eigh((K + K.T) / 2)
    tol = K.shape[0] * np.finfo(np.float64).eps * max(s[-1], 0.0)
    keep = np.flatnonzero(s > tol)[::-1]
    return V[:, keep] * np.sqrt(s[keep]) if keep.size else np.zeros((K.shape[0], 1))


@pytest.mark.parametrize("kernel", [RBF(0.5), RBF(5.0), Linear()])
@pytest.mark.parametrize("n", [30, 200])
def test_psd_factor_agrees_with_the_factors_it_replaced(kernel, n, rng):
    """Same ``F F'`` to 1e-10 relative as both previous factors (the dropped eigenvalues are
    below 1e-12 λ_max), and the same rank as the previous 1e-12 factor of the kernels and the
    LS-SVM (single columns of near-degenerate tiny eigenvalues are not unique)."""
    X = rng.normal(size=(n, 3))
    K = kernel(X)
    F = psd_factor(K)
    scale = np.abs(K).max()
    for old in (_old_eig_factor(K), _old_exact_factor(K)):
        assert np.abs(F @ F.T - old @ old.T).max() <= 1e-10 * scale
    old = _old_eig_factor(K)
    assert F.shape == old.shape
    np.testing.assert_allclose(kernel.factor(X) @ kernel.factor(X).T, F @ F.T, atol=1e-12 * scale)


def test_psd_factor_threshold_and_zero_matrix():
    s = np.array([1.0, 1e-11, 1e-13, -1e-14])
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(4, 4)))
    F = psd_factor((Q * s) @ Q.T)
    assert F.shape == (4, 2) and PSD_FACTOR_RTOL == 1e-12
    assert psd_factor(np.zeros((3, 3))).shape == (3, 1)


def test_make_folds_is_kfold_sorted_and_validated():
    from sklearn.model_selection import KFold

    ref = [np.sort(te) for _, te in KFold(4, shuffle=True, random_state=3).split(np.zeros(23))]
    got = make_folds(23, 4, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(got, ref))
    assert [f.tolist() for f in make_folds(4, None)] == [[0], [1], [2], [3]]
    with pytest.raises(ValueError):
        check_folds([[0, 1], [1, 2, 3]], 4)


def test_heldout_folds_matches_scikit_learn_splitters():
    from sklearn.model_selection import KFold, StratifiedKFold

    y = np.array([0, 1] * 10)
    for strat, cls in ((False, KFold), (True, StratifiedKFold)):
        ref = [te for _, te in cls(5, shuffle=True, random_state=1).split(np.zeros((20, 1)), y)]
        got = heldout_folds(5, 20, y=y, stratified=strat, random_state=1)
        assert all(np.array_equal(a, b) for a, b in zip(got, ref))


def test_blas_policy_limits_small_systems_only():
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    with small_system_blas(SMALL_SYSTEM - 1):
        assert all(t == 1 for t in blas_threads())
    before = blas_threads()
    with small_system_blas(SMALL_SYSTEM):
        assert blas_threads() == before
