"""Fresh memory on the leave-one-out path (twenty-seventh session, 2026-12-06): a factor asked its
last question spends its memory on the answer, a path of weights reuses one copy of the Gram,
the LOO splits are made when read and a condition estimate's 1-norm is read in place.  Each
answer is checked against an independent one (``np.linalg.inv``, a dense solve, brute-force
refits, the eager definition of the splits), and each saving by ``tracemalloc``: every bound
below fails on the code before this session (numbers in each test's docstring)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from lssvm_cvx.exceptions import NotSupportedError
from lssvm_cvx.linalg.cholesky import Cholesky, one_norm
from lssvm_cvx.linalg.engine import RKHS, decompose
from lssvm_cvx.linalg.folds import LeaveOneOutSplits, cv_splits


def _problem(n: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 2, n))
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    Y = np.column_stack([np.sin(2 * x), np.cos(x)]) + 0.1 * rng.standard_normal((n, 2))
    s = rng.uniform(0.5, 2.0, n)
    D = np.diff(np.eye(n), 2, axis=0)
    return K, Y, s, D.T @ D


def _dense(K, s, P, Y):
    """``(α, b)`` of ½Σ s_i (y_i - (Kα)_i - b)² + ½α'Pα from its stationarity conditions."""
    n = len(K)
    S, one = np.diag(s), np.ones(n)
    A = np.block([[K @ S @ K + P, (K @ S @ one)[:, None]],
                  [(one @ S @ K)[None, :], np.array([[one @ S @ one]])]])
    sol = np.linalg.lstsq(A, np.vstack([K @ S @ Y, one @ S @ Y]), rcond=None)[0]
    return sol[:n], sol[n]


def _loo_refits(K, s, P, Y):
    """Brute force: each point leaves the loss (weight 0); the basis and the terms keep it."""
    R = np.empty_like(Y)
    for i in range(len(K)):
        si = s.copy()
        si[i] = 0.0
        a, b = _dense(K, si, P, Y)
        R[i] = Y[i] - (K[i] @ a + b)
    return R


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape, order", [((7, 7), "C"), ((7, 7), "F"), ((5, 9), "C"),
                                          ((9, 5), "F"), ((1, 1), "C")])
def test_one_norm_is_the_largest_column_sum(shape, order, dtype):
    """Either precision (LAPACK ``slange`` or ``dlange``), against the float64 column sums."""
    A = np.asarray(np.random.default_rng(3).standard_normal(shape), dtype=dtype, order=order)
    rel = 1e-6 if dtype == np.float32 else 1e-14
    B = A[::2, 1::2] if min(shape) > 1 else A      # a strided view (copied for LAPACK)
    for M in (A, B):
        assert one_norm(M) == pytest.approx(float(np.abs(M.astype(np.float64)).sum(axis=0).max()),
                                            rel=rel)


@pytest.mark.parametrize("order", ["C", "F"])
def test_one_norm_reads_the_matrix_in_place(order, peak_memory):
    """A tenth of one n × n array at most (``np.abs(A).sum(axis=0).max()``, the code until this
    session, makes the whole temporary: a peak of 1.0)."""
    n = 400
    A = np.asarray(np.random.default_rng(0).standard_normal((n, n)), order=order)
    value, peak = peak_memory(lambda: one_norm(A))
    assert value == pytest.approx(np.linalg.norm(A, 1))
    assert peak < 0.1 * 8 * n * n


@pytest.mark.parametrize("overwrite_H", [False, True])
def test_a_last_inverse_diagonal_spends_the_factor(overwrite_H, peak_memory):
    """``inv_diag(overwrite=True)`` against ``np.linalg.inv`` (both LAPACK triangles), computed
    in the factor's memory (``dtrtri`` before this session made a new n × n array: a peak of
    1.0 array); the factor is then spent and every question that needs it is refused in the
    package's words, while the kept diagonal is still answered."""
    K, _, _, _ = _problem(300)
    H = np.ascontiguousarray(K + 0.1 * np.eye(len(K)))
    Hinv = np.linalg.inv(H)
    chol = Cholesky.factor(H.copy(), overwrite=overwrite_H)
    d, peak = peak_memory(lambda: chol.inv_diag(overwrite=True))
    np.testing.assert_allclose(d, np.diag(Hinv), rtol=1e-10)
    assert peak < 0.2 * 8 * H.size
    assert chol.spent
    for ask in (lambda: chol.solve(np.ones(len(H))), lambda: chol.L, lambda: chol.Linv,
                lambda: chol.inv_block(np.array([0, 3]))):
        with pytest.raises(NotSupportedError, match="overwritten by its inverse"):
            ask()
    np.testing.assert_allclose(chol.inv_diag(), np.diag(Hinv), rtol=1e-10)


def test_a_factor_whose_inverse_is_kept_is_not_spent():
    """Where ``L⁻¹`` was already built (k-fold's blocks), the diagonal reads it and the factor
    stays whole: ``overwrite`` is a permission, not an order."""
    K, _, _, _ = _problem(30)
    H = K + 0.1 * np.eye(len(K))
    chol = Cholesky.factor(H)
    chol.inv_block(np.array([1, 2]))
    chol.inv_diag(overwrite=True)
    assert not chol.spent
    np.testing.assert_allclose(chol.solve(np.ones(len(H))), np.linalg.solve(H, np.ones(len(H))),
                               rtol=1e-10)


TERMS = {
    "rkhs only (bordered)": lambda R: {"rkhs": (RKHS, 0.3)},
    "rkhs + roughness (augmented)": lambda R: {"rkhs": (RKHS, 0.3), "rough": (R, 0.05)},
}


@pytest.mark.parametrize("name", TERMS)
def test_a_path_one_factorisation_per_weight_is_the_brute_force(name):
    """``path(..., one_decomposition=False)``: for each weight, the dense solution and the
    leave-one-out residuals of brute-force refits; the Gram the decomposition holds is not
    touched (the reused buffer is a copy of it), and a system the path did not spend still
    answers."""
    K, Y, s, R = _problem()
    terms = TERMS[name](R)
    dec = decompose(K, s, terms)
    K0 = K.copy()
    ws = [0.05, 0.3, 2.0]
    alphas, bs, res = dec.path("rkhs", ws, Y, one_decomposition=False)
    for w, a, b, r in zip(ws, alphas, bs, res):
        P = w * K + sum(wk * M for k, (M, wk) in terms.items() if k != "rkhs")
        a0, b0 = _dense(K, s, P, Y)
        np.testing.assert_allclose(K @ a + b, K @ a0 + b0, atol=1e-8)
        np.testing.assert_allclose(r, _loo_refits(K, s, P, Y), atol=1e-8)
    np.testing.assert_array_equal(dec.K, K0)
    np.testing.assert_allclose(dec.system({"rkhs": 0.3}).loo(Y), res[1], atol=1e-10)
    folds = [np.arange(0, 40, 4), np.arange(1, 40, 4)]
    kf = dec.path("rkhs", ws, Y, folds=folds, one_decomposition=False)[2]
    for w, r in zip(ws, kf):
        np.testing.assert_allclose(r, dec.kfold(Y, folds, {"rkhs": w}), atol=1e-10)


def test_a_bordered_path_allocates_one_copy_of_the_gram(peak_memory):
    """Three weights of the RKHS-only path at N = 400: one N × N array at the peak (the
    reused copy of ``K``; the final ``L⁻¹`` overwrites each factor).  Before this session each
    weight copied ``K`` and built ``L⁻¹`` apart: a peak of two arrays, and six made."""
    K, _, s, _ = _problem(400)
    y = np.sin(np.arange(400) / 40.0)
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3)})
    dec.path("rkhs", [0.1, 1.0], y, one_decomposition=False)      # warm-up
    (_, _, res), peak = peak_memory(lambda: dec.path("rkhs", [0.1, 1.0, 10.0], y,
                                               one_decomposition=False))
    assert peak < 1.3 * 8 * K.size, peak / (8 * K.size)
    np.testing.assert_allclose(res[2], dec.loo(y, {"rkhs": 10.0}), atol=1e-10)


def test_a_spent_bordered_system_says_so():
    K, Y, s, _ = _problem()
    system = decompose(K, s, {"rkhs": (RKHS, 0.3)}).system()
    alpha, b, r = system.fit(Y, last=True)
    np.testing.assert_allclose(r, _loo_refits(K, s, 0.3 * K, Y), atol=1e-8)
    with pytest.raises(NotSupportedError, match="factorise again"):
        system.solve(Y)


@pytest.mark.parametrize("n, held", [(7, None), (9, [0, 2, 3, 8])])
def test_leave_one_out_splits_read_as_the_list_they_were(n, held):
    """:class:`LeaveOneOutSplits` against the eager list it replaced: iteration (twice),
    indexing from either end, slices, the end of the sequence and a pickle round trip."""
    mask = None
    if held is not None:
        mask = np.zeros(n, dtype=bool)
        mask[held] = True
    held = np.arange(n) if held is None else np.array(held)
    eager = [(np.array([j for j in range(n) if j != i]), np.array([i])) for i in held]
    pairs = cv_splits("loo", n, labeled=mask)
    assert isinstance(pairs, LeaveOneOutSplits) and len(pairs) == len(eager)
    for got in (list(pairs), list(pairs), [pairs[k] for k in range(len(pairs))],
                [pairs[k - len(pairs)] for k in range(len(pairs))], pairs[:],
                pickle.loads(pickle.dumps(pairs))):
        assert len(got) == len(eager)
        for (tr, te), (tr0, te0) in zip(got, eager):
            np.testing.assert_array_equal(tr, tr0)
            np.testing.assert_array_equal(te, te0)
    assert [te[0] for _, te in pairs[1::2]] == list(held[1::2])
    with pytest.raises(IndexError):
        pairs[len(pairs)]


def test_leave_one_out_splits_hold_n_numbers_not_n_squared(peak_memory):
    """N = 2000: the eager pairs held N(N - 1) indices (32 MB); the sequence holds N."""
    _, peak = peak_memory(lambda: cv_splits("loo", 2000))
    assert peak < 0.01 * 8 * 2000 * 2000
