"""The three leave-one-out forms of :mod:`lssvm_cvx.linalg.scores` (issue 30, item 2) against
brute-force refits without the held-out row: the leverage form ``r_i/(1 - h_ii)`` on a ridge
regression with a free intercept, the diagonal form ``α_i/(C⁻¹)_ii`` on the LS-SVM bordered
system (AReg paper eq. 1-2), and the spectral path on a whole ridge path."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.linalg.scores import diagonal_residuals, leverage_residuals, path_residuals


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
