"""The primal engine's k-fold residuals and GCV (issue 30, step 1: the decompose-once protocol
``solve / loo / kfold / gcv / path`` for the primal representation too):
:meth:`PenalizedLS.kfold_residuals` (the block form ``r_V = (I - S_VV)⁻¹(y_V - ŷ_V)``) against
refits with the set removed from the fit term, written here from the definition of (N1) and by
:func:`lssvm_cvx.linalg.refits.refit_residuals`; :meth:`PenalizedLS.gcv` against the dense hat
matrix; both on other array namespaces against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import InputError, NotSupportedError
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.linalg.refits import brute_force_loo, refit_residuals
from lssvm_cvx.linalg.streaming import ArraySource, StreamingPenalizedLS


def _data(n: int = 37, m: int = 5, T: int = 1, seed: int = 4):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(n, m))
    Y = Phi @ rng.normal(size=(m, T)) + 0.4 * rng.normal(size=(n, T)) + 2.0
    D = np.diff(np.eye(m), axis=0)
    return Phi, (Y[:, 0] if T == 1 else Y), D.T @ D + 0.05 * np.eye(m), rng.uniform(0.3, 3.0, n)


def _definition(Phi, Y, G, mu, nu, s=None):
    """``(X, M, XtSY, s)`` of (N1) times W written from the definition: ``X = [1, Φ]``,
    ``M = X'SX + W diag(0, μρ_G G + νρ_R I)``, ``ρ = tr C / (W tr P)``."""
    n, m = Phi.shape
    s = np.ones(n) if s is None else s
    W = s.sum()
    Pc = Phi - (s @ Phi) / W
    trC = np.sum(s[:, None] * Pc**2) / W
    pen = mu * trC / (W * np.trace(G)) * G + nu * trC / (W * m) * np.eye(m)
    X = np.hstack([np.ones((n, 1)), Phi])
    M = X.T @ (s[:, None] * X)
    M[1:, 1:] += W * pen
    Y2 = Y.reshape(n, -1)
    return X, M, X.T @ (s[:, None] * Y2), s, Y2


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("T", [1, 3])
def test_kfold_residuals_are_the_refits_without_the_set(weighted, T):
    Phi, Y, G, s = _data(T=T)
    s = s if weighted else None
    pr = PenalizedLS(Phi, Y, G, None, sample_weight=s)
    folds = [np.arange(0, 37, 4), np.array([1, 2, 3, 9]), np.array([30, 5, 17])]
    got = pr.kfold_residuals(folds, 0.7, 0.2)
    X, M, XtSY, sv, Y2 = _definition(Phi, Y, G, 0.7, 0.2, s)
    want = np.full(Y2.shape, np.nan)
    for V in folds:       # the set leaves the fit term: M and X'SY lose its rows
        beta = np.linalg.solve(M - X[V].T @ (sv[V, None] * X[V]),
                               XtSY - X[V].T @ (sv[V, None] * Y2[V]))
        want[V] = Y2[V] - X[V] @ beta
    want = want[:, 0] if T == 1 else want
    assert got.shape == np.shape(Y)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11, equal_nan=True)
    np.testing.assert_allclose(got.reshape(37, -1),
                               refit_residuals(pr, folds, pr.weights(0.7, 0.2)), rtol=1e-9,
                               atol=1e-11, equal_nan=True)
    assert np.isnan(got.reshape(37, -1)[[6, 7, 10]]).all()     # in no set


def test_kfold_of_single_rows_is_the_leverage_loo_and_the_refits():
    Phi, y, G, s = _data()
    for w in (None, s):
        pr = PenalizedLS(Phi, y, penalties={"rough": G, "ridge": None}, definite=["ridge"],
                         sample_weight=w)
        singles = [np.array([i]) for i in range(37)]
        np.testing.assert_allclose(pr.kfold_residuals(singles, rough=0.4, ridge=0.1),
                                   pr.loo_residuals(rough=0.4, ridge=0.1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(PenalizedLS(Phi, y, G).loo_residuals(0.5, 0.1),
                               brute_force_loo(Phi, y, G, 0.5, 0.1), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("T", [1, 2])
def test_gcv_is_the_dense_hat_matrix_score(weighted, T):
    Phi, Y, G, s = _data(T=T)
    s = s if weighted else None
    X, M, _, sv, Y2 = _definition(Phi, Y, G, 0.3, 0.05, s)
    H = X @ np.linalg.solve(M, X.T * sv[None, :])       # ŷ = H y
    n = Phi.shape[0]
    want = n * np.mean(np.sum(((np.eye(n) - H) @ Y2) ** 2, axis=0)) / (n - np.trace(H)) ** 2
    got = PenalizedLS(Phi, Y, G, None, sample_weight=s).gcv(0.3, 0.05)
    assert isinstance(got, float)
    assert got == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
def test_kfold_and_gcv_on_another_namespace_equal_numpy(ns, to_namespace, to_numpy):
    conv = to_namespace(ns)
    Phi, Y, G, s = _data(T=2)
    folds = [np.arange(k, 37, 5) for k in range(5)]
    ref = PenalizedLS(Phi, Y, G, None, sample_weight=s)
    dev = PenalizedLS(conv(Phi), conv(Y), conv(G), None, sample_weight=conv(s))
    got = dev.kfold_residuals(folds, 0.6, 0.2)
    assert type(got) is type(conv(Phi))
    np.testing.assert_allclose(to_numpy(got), ref.kfold_residuals(folds, 0.6, 0.2), rtol=1e-9,
                               atol=1e-11)
    assert dev.gcv(0.6, 0.2) == pytest.approx(ref.gcv(0.6, 0.2), rel=1e-10)
    with pytest.raises(InputError):      # off NumPy the sets must cover every row
        dev.kfold_residuals(folds[:3], 0.6, 0.2)


def test_the_streamed_engine_has_gcv_and_refuses_kfold():
    Phi, y, G, _ = _data()
    mem = PenalizedLS(Phi, y, G, None)
    for loo_rows in (None, np.arange(0, 37, 2)):
        st = StreamingPenalizedLS(ArraySource(Phi, y[:, None], block_rows=8), lambda xb: xb,
                                  G, None, loo_rows, np.zeros(5))
        with pytest.raises(NotSupportedError, match="in memory"):
            st.kfold_residuals([np.arange(10)], 0.5, 0.1)
        if loo_rows is None:
            assert st.gcv(0.5, 0.1) == pytest.approx(mem.gcv(0.5, 0.1), rel=1e-9)
        else:
            with pytest.raises(NotSupportedError, match="every row"):
                st.gcv(0.5, 0.1)


def test_overlapping_folds_are_refused():
    Phi, y, G, _ = _data()
    with pytest.raises(InputError):
        PenalizedLS(Phi, y, G).kfold_residuals([np.array([0, 1]), np.array([1, 2])], 0.5, 0.1)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("T", [1, 2])
def test_the_gcv_path_is_gcv_at_every_value(weighted, T):
    """``path(..., criterion="gcv")``: one decomposition, GCV at every value of the weight —
    equal to :meth:`PenalizedLS.gcv` (one Cholesky each), for the μ form and the ν form."""
    Phi, Y, G, s = _data(T=T)
    pr = PenalizedLS(Phi, Y, G, None, sample_weight=s if weighted else None)
    mus, nus = [0.0, 0.05, 0.7, 9.0], [0.01, 0.2, 3.0]
    np.testing.assert_allclose(pr.path("mu", mus, {"nu": 0.2}, criterion="gcv").scores,
                               [pr.gcv(m, 0.2) for m in mus], rtol=1e-9)
    np.testing.assert_allclose(pr.path("nu", nus, {"mu": 0.7}, criterion="gcv").scores,
                               [pr.gcv(0.7, n) for n in nus], rtol=1e-9)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
def test_the_gcv_path_streamed_and_on_another_namespace(ns, to_namespace):
    conv = to_namespace(ns)
    Phi, y, G, _ = _data()
    mem = PenalizedLS(Phi, y, G, None)
    want = mem.path("nu", [0.01, 0.3, 4.0], {"mu": 0.2}, criterion="gcv").scores
    dev = PenalizedLS(conv(Phi), conv(y), conv(G), None)
    np.testing.assert_allclose(dev.path("nu", [0.01, 0.3, 4.0], {"mu": 0.2},
                                        criterion="gcv").scores, want, rtol=1e-9)
    st = StreamingPenalizedLS(ArraySource(conv(Phi), conv(y)[:, None], block_rows=7),
                              lambda xb: xb, conv(G), None, None, conv(np.zeros(5)))
    np.testing.assert_allclose(st.path("nu", [0.01, 0.3, 4.0], {"mu": 0.2},
                                       criterion="gcv").scores, want, rtol=1e-9)
    sub = StreamingPenalizedLS(ArraySource(Phi, y[:, None], block_rows=7), lambda xb: xb, G,
                               None, np.arange(0, 37, 2), np.zeros(5))
    with pytest.raises(NotSupportedError, match="every row"):
        sub.path("nu", [0.1], {"mu": 0.2}, criterion="gcv")
