"""The three leave-one-out forms of :mod:`lssvm_cvx.linalg.scores` (issue 30, item 2) against
brute-force refits without the held-out row: the leverage form ``r_i/(1 - h_ii)`` on a ridge
regression with a free intercept, the diagonal form ``α_i/(C⁻¹)_ii`` on the LS-SVM bordered
system (AReg paper eq. 1-2), and the spectral path on a whole ridge path."""

from __future__ import annotations

import numpy as np
import pytest
from array_api_compat import array_namespace

from lssvm_cvx.linalg.scores import (
    SCORES,
    block_residuals,
    diagonal_residuals,
    leverage_residuals,
    loo_score,
    path_residuals,
)


def _ridge_fit(X, Y, lam):
    """Ridge with a free (unpenalised) intercept, by a dense normal-equation solve."""
    n, m = X.shape
    A = np.hstack([np.ones((n, 1)), X])
    P = np.diag(np.r_[0.0, np.full(m, lam)])
    coef = np.linalg.solve(A.T @ A + P, A.T @ Y)
    return A, coef, np.linalg.solve(A.T @ A + P, A.T)


def _brute_ridge_loo(X, Y, lam):
    out = np.empty_like(Y)
    for i in range(X.shape[0]):
        keep = np.arange(X.shape[0]) != i
        _, coef, _ = _ridge_fit(X[keep], Y[keep], lam)
        out[i] = Y[i] - np.r_[1.0, X[i]] @ coef
    return out


@pytest.mark.parametrize("T", [None, 3])
def test_leverage_form_is_the_brute_force_refit(T):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 4))
    Y = rng.normal(size=25 if T is None else (25, T))
    A, coef, S = _ridge_fit(X, Y, 0.7)
    h = np.einsum("ij,ji->i", A, S)
    loo = leverage_residuals(Y - A @ coef, h)
    assert loo.shape == Y.shape
    np.testing.assert_allclose(loo, _brute_ridge_loo(X, Y, 0.7), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("T", [None, 2])
def test_diagonal_form_is_the_brute_force_lssvm_refit(T):
    rng = np.random.default_rng(1)
    n, gamma = 20, 5.0
    X = rng.normal(size=(n, 2))
    Y = rng.normal(size=n if T is None else (n, T))
    Omega = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))

    def bordered(O, rows):
        k = len(rows)
        M = np.zeros((k + 1, k + 1))
        M[0, 1:] = M[1:, 0] = 1.0
        M[1:, 1:] = O[np.ix_(rows, rows)] + np.eye(k) / gamma
        return M

    M = bordered(Omega, np.arange(n))
    sol = np.linalg.solve(M, np.concatenate([np.zeros((1,) + Y.shape[1:]), Y]))
    alpha = sol[1:]
    loo = diagonal_residuals(alpha, np.diag(np.linalg.inv(M))[1:])
    brute = np.empty_like(Y)
    for i in range(n):
        keep = np.flatnonzero(np.arange(n) != i)
        s = np.linalg.solve(bordered(Omega, keep),
                            np.concatenate([np.zeros((1,) + Y.shape[1:]), Y[keep]]))
        brute[i] = Y[i] - (Omega[i, keep] @ s[1:] + s[0])
    np.testing.assert_allclose(loo, brute, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu", "torch-cuda"])
@pytest.mark.parametrize("T", [None, 2])
def test_block_form_is_the_brute_force_kfold_refit(T, ns, to_namespace, to_numpy):
    """``r_V = (C⁻¹)_VV⁻¹ α_V`` on the LS-SVM bordered system (with a divisor ``d``: ``/ d_V``)
    against refits without each fold, in every namespace."""
    rng = np.random.default_rng(4)
    n, gamma = 21, 3.0
    X = rng.normal(size=(n, 2))
    Y = rng.normal(size=n if T is None else (n, T))
    Omega = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    M = np.zeros((n + 1, n + 1))
    M[0, 1:] = M[1:, 0] = 1.0
    M[1:, 1:] = Omega + np.eye(n) / gamma
    alpha = np.linalg.solve(M, np.concatenate([np.zeros((1,) + Y.shape[1:]), Y]))[1:]
    Cinv = np.linalg.inv(M)[1:, 1:]
    folds = [np.array([0, 5, 9, 20]), np.array([1, 2, 3]), np.setdiff1d(np.arange(n), [0, 5, 9, 20, 1, 2, 3])]
    brute = np.empty_like(Y)
    for V in folds:
        keep = np.setdiff1d(np.arange(n), V)
        Mk = np.zeros((keep.size + 1, keep.size + 1))
        Mk[0, 1:] = Mk[1:, 0] = 1.0
        Mk[1:, 1:] = Omega[np.ix_(keep, keep)] + np.eye(keep.size) / gamma
        sk = np.linalg.solve(Mk, np.concatenate([np.zeros((1,) + Y.shape[1:]), Y[keep]]))
        brute[V] = Y[V] - (Omega[np.ix_(V, keep)] @ sk[1:] + sk[0])
    conv = to_namespace(ns)
    C = conv(Cinv)
    d = rng.uniform(0.5, 2.0, size=n)
    xp = array_namespace(C)

    def xp_take(V):   # the principal block C_VV, V in the namespace (a NumPy array for NumPy)
        return xp.take(xp.take(C, V, axis=0), V, axis=1)

    got = block_residuals(conv(alpha), folds, xp_take)
    np.testing.assert_allclose(to_numpy(got), brute, rtol=1e-9, atol=1e-11)
    scaled = block_residuals(conv(alpha), folds, xp_take, conv(d))
    want = brute / (d[:, None] if brute.ndim > 1 else d)
    np.testing.assert_allclose(to_numpy(scaled), want, rtol=1e-9, atol=1e-11)


def test_spectral_path_is_the_brute_force_refit_at_every_weight():
    rng = np.random.default_rng(2)
    n, m = 30, 5
    X = rng.normal(size=(n, m))
    Y = rng.normal(size=(n, 2))
    lams = np.array([0.01, 0.3, 2.0, 40.0])
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    w, V = np.linalg.eigh(Xc.T @ Xc)
    W = 1.0 / (w[:, None] + lams[None, :])          # (Xc'Xc + λI)⁻¹ = V diag(W[:, k]) V'
    P, q = Xc @ V, V.T @ (Xc.T @ Yc)
    h = 1.0 / n + (P * P) @ W
    R = path_residuals(Yc, P, q, W, h)
    assert R.shape == (n, 2, lams.size)
    for k, lam in enumerate(lams):
        np.testing.assert_allclose(R[:, :, k], _brute_ridge_loo(X, Y, lam), rtol=1e-9,
                                   atol=1e-11)


# ------------------------------------------------------------------ one module for every namespace


def _case(T: int = 2):
    rng = np.random.default_rng(3)
    n, m, V = 20, 4, 3
    Yc, P = rng.normal(size=(n, T)), rng.normal(size=(n, m))
    q, W = rng.normal(size=(m, T)), rng.uniform(0.1, 1.0, size=(m, V))
    h = rng.uniform(0.05, 0.6, size=(n, V))
    return Yc, P, q, W, h


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
def test_the_formulas_run_in_the_inputs_namespace(ns, to_namespace, to_numpy):
    """The device engines call these functions (issue 30, item 2; issue 31): on PyTorch and
    array-api-strict inputs they return arrays of that namespace, equal to NumPy's to 1e-12."""
    conv = to_namespace(ns)
    Yc, P, q, W, h = _case()
    ref = path_residuals(Yc, P, q, W, h)
    got = path_residuals(*(conv(a) for a in (Yc, P, q, W, h)))
    assert type(got) is type(conv(Yc))
    np.testing.assert_allclose(to_numpy(got), ref, rtol=1e-12, atol=0)
    for f, (a, b) in ((leverage_residuals, (Yc, h[:, 0])), (leverage_residuals, (Yc[:, :1], h)),
                      (diagonal_residuals, (Yc, h[:, 0])), (diagonal_residuals, (Yc[:, 0], h[:, 0]))):
        np.testing.assert_allclose(to_numpy(f(conv(a), conv(b))), f(a, b), rtol=1e-12, atol=0)
    Y = np.sign(Yc)
    for Ycols in (Y[:, :1], Y):                     # binary (one ±1 column) and one-vs-rest
        for crit in SCORES + ("misclassification",):
            want = loo_score(ref[:, :Ycols.shape[1]], Ycols, crit)
            have = loo_score(conv(np.ascontiguousarray(ref[:, :Ycols.shape[1]])), conv(Ycols), crit)
            np.testing.assert_allclose(to_numpy(have), want, rtol=1e-12, atol=0)


def test_the_numpy_scores_are_the_former_numpy_only_arithmetic():
    """On NumPy inputs the namespace-generic forms are the NumPy-only code they replaced (the
    committed results and the sweep rest on it): equal bit for bit."""
    Yc, P, q, W, h = _case(3)
    old = np.empty((P.shape[0], Yc.shape[1], W.shape[1]))
    for t in range(Yc.shape[1]):
        old[:, t] = (Yc[:, t:t + 1] - P @ (q[:, t:t + 1] * W)) / (1.0 - h)
    np.testing.assert_array_equal(path_residuals(Yc, P, q, W, h), old)
    Y = np.sign(Yc)
    np.testing.assert_array_equal(loo_score(old, Y, "mse"),
                                  np.average(np.mean(old * old, axis=1), axis=0))
    margin = 1.0 - Y[:, :, None] * (Y[:, :, None] - old)
    hinge = np.average(np.mean(np.maximum(0.0, margin) ** 2, axis=1), axis=0)
    np.testing.assert_array_equal(loo_score(old, Y, "hinge2"), hinge)
    wts = np.arange(1.0, Yc.shape[0] + 1)
    np.testing.assert_array_equal(loo_score(old, Y, "mae", wts),
                                  np.average(np.mean(np.abs(old), axis=1), axis=0, weights=wts))


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu"])
def test_block_form_with_folds_that_leave_points_out(ns, to_namespace, to_numpy):
    """NumPy: a point in no fold gets NaN, never an uninitialised number; another namespace
    (whose arrays cannot be filled in place) refuses folds that are not a partition."""
    from lssvm_cvx.exceptions import InputError

    conv = to_namespace(ns)
    alpha, C = conv(np.arange(1.0, 7.0)), conv(2.0 * np.eye(6))
    xp = array_namespace(C)

    def block(V):
        return xp.take(xp.take(C, V, axis=0), V, axis=1)

    folds = [np.array([0, 1]), np.array([3, 4])]
    if ns == "numpy":
        got = block_residuals(alpha, folds, block)
        np.testing.assert_array_equal(got, [0.5, 1.0, np.nan, 2.0, 2.5, np.nan])
    else:
        with pytest.raises(InputError, match="partition the 6 points"):
            block_residuals(alpha, folds, block)
        got = block_residuals(alpha, folds + [np.array([2, 5])], block)
        np.testing.assert_array_equal(to_numpy(got), np.arange(1.0, 7.0) / 2)


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu"])
@pytest.mark.parametrize("folds, message", [
    ([[0, 1, 2], [3, 4, 9]], "fold 1 has indices outside 0..5"),   # was the library's IndexError
    ([[0, 1, 2], [2, 3, 4, 5]], "the folds overlap"),
    ([[0, 1, 2], []], "fold 1 is empty")])
def test_block_form_refuses_bad_folds_in_the_projects_words(ns, folds, message, to_namespace):
    """A direct call with an index out of range, overlapping or empty sets is the project's
    ``InputError`` on every namespace (the review of 2026-11-27 found the array library's
    ``IndexError`` for an out-of-range index off NumPy)."""
    from lssvm_cvx.exceptions import InputError

    conv = to_namespace(ns)
    alpha, C = conv(np.arange(1.0, 7.0)), conv(2.0 * np.eye(6))
    xp = array_namespace(C)
    with pytest.raises(InputError, match=message):
        block_residuals(alpha, [np.asarray(f) for f in folds],
                        lambda V: xp.take(xp.take(C, V, axis=0), V, axis=1))


def test_block_form_takes_folds_as_tensors(to_namespace, to_numpy):
    """Folds given as the inputs' own arrays (PyTorch tensors here) are copied to the host."""
    import torch

    conv = to_namespace("torch-cpu")
    alpha, C = conv(np.arange(1.0, 7.0)), conv(2.0 * np.eye(6))
    got = block_residuals(alpha, [torch.arange(3), torch.arange(3, 6)],
                          lambda V: C[V][:, V])
    np.testing.assert_array_equal(to_numpy(got), np.arange(1.0, 7.0) / 2)


def test_one_gcv_definition():
    """``gcv_score`` is Golub, Heath & Wahba's ``V = n RSS / tr(I - S)²`` for an explicit ridge
    smoother (scalar and vector forms), ``inf`` where ``tr(I - S) <= 0``; the LS-SVM's GCV,
    the Tikhonov curve of the AReg fusion and the §V baselines call it (they had three
    scalings: ``RSS / tr²`` in two of them)."""
    from lssvm_cvx.linalg.lstsq import gcv_curve
    from lssvm_cvx.linalg.scores import gcv_score

    rng = np.random.default_rng(3)
    A, g = rng.standard_normal((30, 6)), rng.standard_normal(30)
    mus = np.array([1e-3, 0.1, 10.0])
    want = []
    for mu in mus:
        S = A @ np.linalg.solve(A.T @ A + mu * np.eye(6), A.T)
        want.append(30 * np.sum((g - S @ g) ** 2) / np.trace(np.eye(30) - S) ** 2)
        assert gcv_score(np.sum((g - S @ g) ** 2), 30, 30 - np.trace(S)) == pytest.approx(
            want[-1], rel=1e-12)
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    beta = U.T @ g
    np.testing.assert_allclose(gcv_curve(s, beta, g @ g - beta @ beta, 30, mus), want, rtol=1e-9)
    assert gcv_score(1.0, 5, 0.0) == np.inf
    np.testing.assert_array_equal(gcv_score(np.ones(2), 5, np.array([-1.0, 2.0])),
                                  [np.inf, 5 / 4])
