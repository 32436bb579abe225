"""The gradient-norm Gram of the Auto LS-SVM note (eq. 40-44) against numerical integration
(adaptive quadrature in 1-D and 2-D, importance-sampled Monte Carlo with a stated error bar in
4-D and 6-D), finite differences for the gradient (eq. 7), PSD-ness, and the paper slip in the
normalised forms (eq. 43/44 are indefinite from three input dimensions on)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.terms.gradient_norm import (
    affine_dim,
    exact_diagonal,
    gradient_norm_gram,
    gradient_norm_integrand,
    model_kernel,
    n_informative_columns,
    numerical_rank,
    rbf_model_gradient,
)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense eigenproblems: one BLAS thread is much faster on a shared machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _centres(rng, n, d):
    return rng.uniform(-1.0, 1.0, (n, d))


def test_gradient_matches_finite_differences(rng):
    X = _centres(rng, 6, 3)
    alpha = rng.normal(size=6)
    x = rng.normal(size=(4, 3))
    g = 1.7

    def f(pts):
        return np.exp(-g * ((pts[:, None, :] - X[None]) ** 2).sum(-1)) @ alpha

    h = 1e-6
    fd = np.column_stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(rbf_model_gradient(x, X, alpha, g), fd, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("gamma", [0.3, 2.0])
def test_exact_gram_1d_quadrature(rng, gamma):
    X = _centres(rng, 5, 1)
    alpha = rng.normal(size=5)
    G = gradient_norm_gram(X, gamma=gamma, form="exact")
    # the quadratic form (eq. 40-41) and every entry, by adaptive quadrature on R
    val, err = integrate.quad(lambda t: gradient_norm_integrand(np.array([[t]]), X, alpha, gamma)[0],
                              -np.inf, np.inf, epsabs=0, epsrel=1e-12, limit=400)
    assert abs(alpha @ G @ alpha - val) <= 1e-6 * abs(val)
    for i, j in [(0, 0), (0, 1), (2, 4), (3, 3)]:
        def entry(t, i=i, j=j):
            gi = rbf_model_gradient(np.array([[t]]), X[i:i + 1], [1.0], gamma)[0]
            gj = rbf_model_gradient(np.array([[t]]), X[j:j + 1], [1.0], gamma)[0]
            return float(gi @ gj)

        v, _ = integrate.quad(entry, -np.inf, np.inf, epsabs=0, epsrel=1e-12, limit=400)
        assert abs(G[i, j] - v) <= 1e-6 * max(abs(v), abs(G[i, i]))


def test_exact_gram_2d_quadrature(rng):
    gamma = 1.3
    X = _centres(rng, 4, 2)
    alpha = rng.normal(size=4)
    G = gradient_norm_gram(X, gamma=gamma, form="exact")
    pad = 7.0 / np.sqrt(gamma)  # the integrand is below exp(-2γ pad²) ≈ 1e-43 outside the box
    lo, hi = X.min(0) - pad, X.max(0) + pad
    # a scalar integrand written out from eq. (7) (dblquad calls it ~10^5 times)
    def integrand(t2, t1):
        dx = np.array([t1, t2]) - X
        grad = -2 * gamma * (alpha * np.exp(-gamma * (dx * dx).sum(1))) @ dx
        return grad @ grad

    val, err = integrate.dblquad(integrand, lo[0], hi[0], lo[1], hi[1], epsabs=0, epsrel=1e-10)
    assert abs(gradient_norm_integrand(np.array([[0.3, -0.2]]), X, alpha, gamma)[0]
               - integrand(-0.2, 0.3)) < 1e-12 * (1 + abs(integrand(-0.2, 0.3)))
    assert abs(alpha @ G @ alpha - val) <= 1e-6 * abs(val)


@pytest.mark.parametrize("d", [4, 6])
def test_exact_gram_monte_carlo_high_dim(d):
    """Importance sampling from a Gaussian covering the centres; the check is 5 standard errors,
    and the standard error itself is below 0.5 % of the value (stated error bar)."""
    rng = np.random.default_rng(d)
    gamma = 0.8
    X = _centres(rng, 5, d)
    alpha = rng.normal(size=5)
    G = gradient_norm_gram(X, gamma=gamma, form="exact")
    exact = alpha @ G @ alpha
    n = 400_000
    s = 0.75 / np.sqrt(gamma)  # proposal std, wider than the integrand's 1/sqrt(4γ)
    mu = X.mean(0)
    Z = mu + s * rng.standard_normal((n, d))
    q = np.exp(-((Z - mu) ** 2).sum(1) / (2 * s * s)) / (2 * np.pi * s * s) ** (d / 2)
    w = np.concatenate([gradient_norm_integrand(Z[k:k + 50_000], X, alpha, gamma)
                        for k in range(0, n, 50_000)]) / q
    est, se = w.mean(), w.std(ddof=1) / np.sqrt(n)
    assert se < 5e-3 * abs(exact), f"MC error bar too wide: {se / exact:.2%}"
    assert abs(est - exact) <= 5 * se, (est, exact, se)


def test_eq42_is_eq41_without_constant(rng):
    X = _centres(rng, 7, 3)
    g = 0.9
    np.testing.assert_allclose(gradient_norm_gram(X, gamma=g, form="exact"),
                               (np.pi / 2) ** 1.5 * gradient_norm_gram(X, gamma=g, form="eq42"),
                               rtol=1e-12)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 8])
def test_exact_and_normalized_are_psd(d):
    rng = np.random.default_rng(d)
    X = rng.standard_normal((200, d))
    for form in ("exact", "normalized"):
        G = gradient_norm_gram(X, gamma=1.0, form=form)
        np.testing.assert_allclose(G, G.T, atol=1e-14)
        lmin, lmax = np.linalg.eigvalsh(G)[[0, -1]]
        assert lmin >= -1e-10 * lmax, (form, d, lmin)


@pytest.mark.parametrize("d,expected_below", [(3, -0.1), (5, -5.0)])
def test_paper_eq43_eq44_indefinite_from_three_dimensions(d, expected_below):
    """Paper slip: eq. (43)/(44) fix the Laplacian trace to 2; with inputs spanning >= 3
    dimensions the matrix has clearly negative eigenvalues, the normalised form we use does
    not (this test fails on the printed forms)."""
    X = np.random.default_rng(0).standard_normal((400, d))
    for form in ("eq43", "eq44"):
        assert np.linalg.eigvalsh(gradient_norm_gram(X, gamma=1.0, form=form))[0] < expected_below
    G = gradient_norm_gram(X, gamma=1.0, form="normalized")
    assert np.linalg.eigvalsh(G)[0] > -1e-10


def test_eq43_psd_in_one_and_two_dimensions():
    for d in (1, 2):
        X = np.random.default_rng(d).standard_normal((300, d))
        for form in ("eq43", "eq44"):
            assert np.linalg.eigvalsh(gradient_norm_gram(X, gamma=1.0, form=form))[0] > -1e-10


def test_normalized_is_exact_on_affine_hull_over_diagonal(rng):
    """Data spanning c = 2 dimensions embedded in R^5: the normalised Gram is the exact (eq. 41)
    Gram in the 2-D coordinates with γ' = γ/p, divided by its diagonal."""
    c, p, g = 2, 5, 3.0
    low = rng.normal(size=(40, c))
    Q, _ = np.linalg.qr(rng.normal(size=(p, c)))
    high = low @ Q.T + rng.normal(size=p)
    assert affine_dim(high) == c and n_informative_columns(high) == p
    Gn = gradient_norm_gram(high, gamma=g, form="normalized")
    Ge = gradient_norm_gram(low, gamma=g / p, form="exact")
    np.testing.assert_allclose(Gn, Ge / exact_diagonal(g / p, c), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(np.diag(Gn), 1.0)
    assert np.linalg.eigvalsh(Gn)[0] > -1e-12


def test_normalized_invariances(rng):
    X = rng.normal(size=(30, 1))
    G1 = gradient_norm_gram(X, gamma=2.0)
    K1 = model_kernel(X, gamma=2.0)
    # the note's example: one feature copied (d = 1 -> 2) gives an identical model
    X2 = np.hstack([X, X])
    np.testing.assert_allclose(gradient_norm_gram(X2, gamma=2.0), G1, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model_kernel(X2, gamma=2.0), K1, rtol=1e-12, atol=1e-14)
    # a constant (all-zero) column, the note's counterargument, changes nothing either
    X3 = np.hstack([X, np.zeros((30, 1))])
    np.testing.assert_allclose(gradient_norm_gram(X3, gamma=2.0), G1, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model_kernel(X3, gamma=2.0), K1, rtol=1e-12, atol=1e-14)
    # eq. (44) for c = 2 is twice the normalised form
    Y = rng.normal(size=(20, 2))
    np.testing.assert_allclose(gradient_norm_gram(Y, gamma=1.0, form="eq44"),
                               2 * gradient_norm_gram(Y, gamma=1.0, form="normalized"), rtol=1e-12)


def test_cross_gram_and_errors(rng):
    X, Z = rng.normal(size=(8, 3)), rng.normal(size=(5, 3))
    full = gradient_norm_gram(np.vstack([X, Z]), gamma=1.0, form="exact")
    np.testing.assert_allclose(gradient_norm_gram(X, Z, gamma=1.0, form="exact"), full[:8, 8:])
    with pytest.raises(HyperparameterError, match="form"):
        gradient_norm_gram(X, form="eq45")
    with pytest.raises(HyperparameterError, match="gamma"):
        gradient_norm_gram(X, gamma=0.0)
    with pytest.raises(HyperparameterError, match="gamma"):
        gradient_norm_gram(X, gamma="wide")
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        gradient_norm_gram(bad)
    with pytest.raises(InputError, match="features"):
        gradient_norm_gram(X, Z[:, :2])
    with pytest.raises(InputError, match=r"0 sample\(s\)"):
        gradient_norm_gram(X[:0])


def test_numerical_rank_is_affine_dims_rule():
    """``numerical_rank``: singular values above ``rtol`` times the largest, at least 1 (the
    rule ``affine_dim`` applies to the centred inputs' singular values, and ``input_stats`` to a
    dask covariance's)."""
    s = np.array([4.0, 1.0, 4e-8 * 1.0001, 4e-8 * 0.9999, 0.0])
    assert numerical_rank(s) == 3
    assert numerical_rank(s, rtol=1e-7) == 2
    assert numerical_rank(np.zeros(3)) == numerical_rank(np.empty(0)) == 1
    X = np.random.default_rng(0).normal(size=(50, 4))
    X[:, 3] = X[:, 0] - 2 * X[:, 1]
    Xc = X - X.mean(axis=0)
    assert affine_dim(X) == numerical_rank(np.linalg.svd(Xc, compute_uv=False)) == 3
