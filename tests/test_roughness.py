"""Roughness complexity E_c (multiobjective paper eq. 13, 16, 17) and the L2 complexity (eq. 22).

Every matrix is checked against finite differences of the *fitted function*
``f(z) = b + Σ_m α_m k(x_m, z)`` (4th-order stencils), and E_c against its definition: the
trace of the Hessian of the loss ``L(z) = ½(y - f(x))²`` in ``z = (x, y)`` (eq. 9).  Tests named
``*_printed_*`` show that the formulas as printed in the paper disagree with the definition.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad

from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.kernels import RBF, Polynomial
from lssvm_cvx.terms.roughness import (fit_error, fourier_l2_norm, fourier_roughness,
                                       l2_complexity, poly_roughness, rbf_roughness, roughness)

H = 1e-3


def d1(fun, x, j, h=H):
    e = np.zeros_like(x)
    e[j] = h
    return (-fun(x + 2 * e) + 8 * fun(x + e) - 8 * fun(x - e) + fun(x - 2 * e)) / (12 * h)


def d2(fun, x, j, h=H):
    e = np.zeros_like(x)
    e[j] = h
    return (-fun(x + 2 * e) + 16 * fun(x + e) - 30 * fun(x) + 16 * fun(x - e) - fun(x - 2 * e)) / (12 * h * h)


def make(kind, n=12, p=3, seed=0, degree=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * 0.7
    y = np.sin(X.sum(1)) + 0.1 * rng.normal(size=n)
    alpha = rng.normal(size=n)
    if kind == "rbf":
        kern = RBF(sigma2=1.7)
        rough = rbf_roughness(X, 1.7)
    else:
        kern = Polynomial(degree=degree, t=1.0)
        rough = poly_roughness(X, degree, 1.0)
    return X, y, alpha, kern, rough


def fitted_fn(X, alpha, kern, b=0.0):
    return lambda z: float(kern(z[None, :], X)[0] @ alpha + b)


def fd_grad_lap(X, alpha, kern, b=0.0):
    f = fitted_fn(X, alpha, kern, b)
    G = np.array([[d1(f, X[i], j) for j in range(X.shape[1])] for i in range(X.shape[0])])
    L = np.array([sum(d2(f, X[i], j) for j in range(X.shape[1])) for i in range(X.shape[0])])
    return G, L


def E_c_definition(X, y, alpha, kern, b=0.0):
    """(1/2n) Σ_i tr ∇²_z L(z_i), L(x, y) = ½(y - f(x))², by finite differences in z = (x, y)."""
    n, p = X.shape

    def loss(z):
        return 0.5 * (z[p] - (kern(z[None, :p], X)[0] @ alpha + b)) ** 2

    total = 0.0
    for i in range(n):
        z = np.append(X[i], y[i])
        total += sum(d2(loss, z, j) for j in range(p + 1))
    return total / (2 * n)


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


@pytest.mark.parametrize("kind", ["rbf", "poly"])
def test_gradient_and_laplacian_match_finite_differences(kind):
    X, y, alpha, kern, rough = make(kind)
    G, L = fd_grad_lap(X, alpha, kern)
    assert rel(rough.grad_f(alpha), G) < 1e-6
    assert rel(rough.laplacian(alpha), L) < 1e-6
    assert rel(rough.fitted(alpha), kern(X) @ alpha) < 1e-12


@pytest.mark.parametrize("kind", ["rbf", "poly"])
def test_R_i_and_p_i_match_finite_differences(kind):
    X, y, alpha, kern, rough = make(kind)
    G, L = fd_grad_lap(X, alpha, kern)
    for i in range(X.shape[0]):
        assert abs(alpha @ rough.R_i(i) @ alpha - G[i] @ G[i]) <= 1e-6 * max(G[i] @ G[i], 1e-8)
        assert abs(rough.p_i(i) @ alpha - L[i]) <= 1e-6 * np.abs(L).max()
    # matrix-free and explicit forms agree
    assert rel(rough.R(), sum(rough.R_i(i) for i in range(X.shape[0]))) < 1e-12
    F = rough.factor()
    assert rel(F.T @ F, rough.R()) < 1e-12
    assert rel(rough.grad_adjoint(rough.grad_f(alpha)), rough.R() @ alpha) < 1e-12


def test_rbf_printed_p_i_zero_diagonal_entry_is_wrong():
    """Paper §II-C: 'i-th entry [of p_ij] is 0'.  The fitted function's Laplacian needs
    -2p/σ² there (-1/σ_paper² per input)."""
    X, y, alpha, kern, rough = make("rbf")
    _, L = fd_grad_lap(X, alpha, kern)
    printed = rough.P.copy()
    np.fill_diagonal(printed, 0.0)
    assert rel(printed @ alpha, L) > 1e-2
    assert np.allclose(np.diag(rough.P), -2 * X.shape[1] / 1.7)


def test_poly_printed_B_i_and_g_i_are_wrong():
    """Paper §II-D: B_i = d C_i C_i' with a doubled i-th row of C_i, and the i-th entry of g_ij
    d(x_i'x_i+1)^{d-2}(3(d-1)x_ij² + 2(x_i'x_i+1)); g_ij's m-th entry lost its exponent."""
    d = 4  # with d = 3 the lost exponent (d - 2 = 1) happens to coincide with the product
    X, y, alpha, kern, rough = make("poly", degree=d)
    G, L = fd_grad_lap(X, alpha, kern)
    n, p = X.shape
    Gm = X @ X.T + 1.0
    bad_B, bad_g, exponent_lost = [], [], []
    for i in range(n):
        C = (Gm[:, i] ** (d - 1))[:, None] * X  # n x p, row m = (x_m'x_i+1)^{d-1} x_m
        C_printed = C.copy()
        C_printed[i] *= 2
        B_printed = d * C_printed @ C_printed.T
        B_factor_d = d * C @ C.T
        B_ours = d * d * C @ C.T
        assert abs(alpha @ B_ours @ alpha - G[i] @ G[i]) <= 1e-6 * G[i] @ G[i]
        bad_B.append(abs(alpha @ B_printed @ alpha - G[i] @ G[i]) / (G[i] @ G[i]))
        bad_B.append(abs(alpha @ B_factor_d @ alpha - G[i] @ G[i]) / (G[i] @ G[i]))
        g = np.zeros(n)
        for j in range(p):
            gij = d * (d - 1) * Gm[:, i] ** (d - 2) * X[:, j] ** 2
            gij_printed = gij.copy()
            gij_printed[i] = d * Gm[i, i] ** (d - 2) * (3 * (d - 1) * X[i, j] ** 2 + 2 * Gm[i, i])
            g += gij_printed
        bad_g.append(abs(g @ alpha - L[i]) / np.abs(L).max())
        g_noexp = sum(d * (d - 1) * Gm[:, i] * (d - 2) * X[:, j] ** 2 for j in range(p))
        exponent_lost.append(abs(g_noexp @ alpha - L[i]) / np.abs(L).max())
    assert min(bad_B) > 1e-2
    assert max(bad_g) > 1e-2
    assert max(exponent_lost) > 1e-2


@pytest.mark.parametrize("kind", ["rbf", "poly"])
@pytest.mark.parametrize("b", [0.0, 0.37])
def test_E_c_matches_definition_and_eq16_17(kind, b):
    X, y, alpha, kern, rough = make(kind, n=9, p=2)
    ref = E_c_definition(X, y, alpha, kern, b)
    assert abs(rough.E_c(alpha, y, b) - ref) <= 1e-6 * abs(ref)
    # quadratic form of eq. (16)/(17) with the corrected constant +1/2
    quad_form = alpha @ rough.M() @ alpha - rough.q(y, b) @ alpha + 0.5
    assert abs(quad_form - ref) <= 1e-6 * abs(ref)


def test_printed_constants_are_wrong():
    """eq. (16)/(17) print '+n' per output and eq. (13) puts '+q' inside Σ_k Σ_j (p q²/2 in
    total); the definition (eq. 9-10) gives q/2."""
    X, y, alpha, kern, rough = make("rbf", n=9, p=2)
    ref = E_c_definition(X, y, alpha, kern)
    core = rough.E_c(alpha, y) - 0.5
    n, p, q = X.shape[0], X.shape[1], 1
    assert abs(core + n - ref) > 1.0  # eq. (16) '+n'
    assert abs(core + p * q * q / 2 - ref) > 0.1  # eq. (13) '+q' inside the double sum
    assert abs(core + q / 2 - ref) <= 1e-6 * abs(ref)


@pytest.mark.parametrize("kind", ["rbf", "poly"])
def test_grad_alpha_and_b(kind):
    X, y, alpha, kern, rough = make(kind)
    g = rough.grad_alpha(alpha, y, 0.2)
    fd = np.array([d1(lambda a: rough.E_c(a, y, 0.2), alpha, j) for j in range(alpha.size)])
    assert rel(g, fd) < 1e-6
    fdb = d1(lambda bb: rough.E_c(alpha, y, bb[0]), np.array([0.2]), 0)
    assert abs(rough.grad_b(alpha) - fdb) <= 1e-6 * abs(fdb)
    # (M + M')α - q, the printed matrix form of the gradient
    M = rough.M()
    assert rel((M + M.T) @ alpha - rough.q(y, 0.2), g) < 1e-10


def test_dE_c_dsigma2_fixed_alpha():
    X, y, alpha, _, rough = make("rbf")

    def ec(s2):
        return rbf_roughness(X, float(s2[0])).E_c(alpha, y, 0.1)

    fd = d1(ec, np.array([1.7]), 0, h=1e-3)
    assert abs(rough.dE_c_dsigma2(alpha, y, 0.1) - fd) <= 1e-6 * abs(fd)
    fdK = (rbf_roughness(X, 1.7 + 1e-6).K - rbf_roughness(X, 1.7 - 1e-6).K) / 2e-6
    assert rel(rough.dK(), fdK) < 1e-6


@pytest.mark.parametrize("kind", ["rbf", "poly"])
def test_convex_majorant(kind, rng):
    X, y, alpha, kern, rough = make(kind)
    Mp = rough.convex_majorant()
    assert np.linalg.eigvalsh(Mp).min() > -1e-10 * np.abs(Mp).max()
    M = rough.M()
    for _ in range(20):
        a = rng.normal(size=alpha.size)
        assert a @ Mp @ a >= a @ M @ a - 1e-10 * abs(a @ M @ a)


def test_l2_complexity_and_fit_error():
    X, y, alpha, kern, rough = make("rbf")
    K = kern(X)
    # eq. (22): ||f||²_H = Σ_jk α_j α_k k(x_j, x_k)
    ref = sum(alpha[j] * alpha[k] * K[j, k] for j in range(len(alpha)) for k in range(len(alpha)))
    assert abs(l2_complexity(K, alpha) - ref) < 1e-10 * abs(ref)
    assert abs(fit_error(K, alpha, y) - np.sum((y - K @ alpha) ** 2) / (2 * len(y))) < 1e-12


def test_fourier_identities_by_numerical_integration():
    a0, a, b = 0.7, np.array([0.3, -0.2, 0.1]), np.array([0.5, 0.05, -0.4])
    k = np.arange(1, 4)

    def f(x):
        return a0 + np.sum(a * np.sin(k * x) + b * np.cos(k * x))

    def fp(x):
        return np.sum(k * (a * np.cos(k * x) - b * np.sin(k * x)))

    l2 = quad(lambda x: f(x) ** 2, -np.pi, np.pi, epsabs=1e-13)[0]
    r = quad(lambda x: fp(x) ** 2, -np.pi, np.pi, epsabs=1e-13)[0]
    assert abs(fourier_l2_norm(a0, a, b) - l2) < 1e-9
    assert abs(fourier_roughness(a, b) - r) < 1e-9
    printed = 2 * np.pi * a0 + np.pi * np.sum(a**2 + b**2)  # eq. (19) as printed
    assert abs(printed - l2) > 0.1


def test_bad_input():
    X = np.ones((4, 2))
    with pytest.raises(HyperparameterError, match="degree"):
        poly_roughness(X, 0)
    with pytest.raises(HyperparameterError, match="degree"):
        roughness(Polynomial(degree=0), X)
    with pytest.raises(HyperparameterError, match="sigma2"):
        rbf_roughness(X, 0.0)
    with pytest.raises(HyperparameterError, match="sigma2"):
        rbf_roughness(X, -1.0)
