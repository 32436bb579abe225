"""Low-rank Hessian approximations (Bonidal et al. 2013 §2.4.2, §2.7.1-2.7.2): eigen, Nyström
(uniform and density-weighted), pivoted incomplete Cholesky, SMW solves (Proposition 3),
eq. (24) and the incremental ``R_E^T R_E``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla

from lssvm_cvx.exceptions import HyperparameterError, NotPSDError
from lssvm_cvx.kernels import RBF, Linear, Polynomial
from lssvm_cvx.kernels.factors import (
    eigen_factor,
    icf_factor,
    make_factor,
    numerical_rank_threshold,
    nystroem_factor,
    truncate,
)
from lssvm_cvx.linalg import BorderedSystem, Cholesky
from lssvm_cvx.linalg.smw import SMWSystem


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).standard_normal((120, 3))


def rel(A, B):
    return np.abs(A - B).max() / np.abs(B).max()


def test_eigen_factor_numerical_rank_is_exact(X):
    K = RBF(2.0)(X)
    f = eigen_factor(K, X=X, kernel=RBF(2.0))
    assert rel(f.gram(), K) < 1e-12
    s = np.linalg.eigvalsh(K)
    assert f.rank == int(np.sum(s > numerical_rank_threshold(s[-1], len(s))))
    np.testing.assert_allclose(f.transform(X), f.R, atol=1e-9)
    assert f.info["numerically_exact"]
    f5 = eigen_factor(K, rank=5)
    assert f5.rank == 5
    # best rank-5 approximation: spectral error = 6th eigenvalue
    assert np.linalg.norm(K - f5.gram(), 2) == pytest.approx(s[::-1][5], rel=1e-8)
    ft = eigen_factor(K, threshold=1e-3)
    assert ft.eigenvalues.min() > 1e-3 and np.linalg.norm(K - ft.gram(), 2) <= 1e-3


def test_linear_kernel_rank_is_dimension(X):
    f = eigen_factor(Linear()(X))
    assert f.rank == X.shape[1]


def test_nystrom_uniform_all_landmarks_is_exact_and_extends(X):
    k = RBF(3.0)
    f = nystroem_factor(X, k, X.shape[0], weighting="uniform", eps=0.0, random_state=0)
    assert rel(f.gram(), k(X)) < 1e-6
    Xn = np.random.default_rng(1).standard_normal((7, 3))
    # κ_r(x, z) = k(x, Z) A A^T k(Z, z) reproduces k when the landmarks span everything
    np.testing.assert_allclose(f.transform(Xn) @ f.R.T, k(Xn, X), atol=1e-5)
    np.testing.assert_allclose(f.transform(X), f.R, atol=1e-12)


def test_nystrom_uniform_is_standard_formula(X):
    """With S = I/l the weighted formula is the textbook C W^+ C^T."""
    k = RBF(1.0)
    f = nystroem_factor(X, k, 30, weighting="uniform", eps=0.0, random_state=3)
    idx = f.landmark_index
    C, W = k(X, X[idx]), k(X[idx])
    ref = C @ np.linalg.pinv(W, rcond=1e-12, hermitian=True) @ C.T
    assert rel(f.gram(), ref) < 1e-7
    # eigenvalue estimates m σ_k / l
    sig = np.sort(np.linalg.eigvalsh(W))[::-1]
    np.testing.assert_allclose(f.eigenvalues, X.shape[0] * sig[: f.rank] / 30, rtol=1e-8)


def test_nystrom_density_weighting(X):
    k = RBF(1.0)
    f = nystroem_factor(X, k, 25, weighting="density", random_state=0)
    assert f.method == "nystroem-density"
    np.testing.assert_allclose(f.transform(X), f.R, atol=1e-10)
    # untruncated, the weights cancel: the approximation is K_XZ K_ZZ^{-1} K_ZX
    Z = f.Z
    C, W = k(X, Z), k(Z) + 0.5e-8 * np.eye(len(Z))
    ref = C @ np.linalg.solve(W, C.T)
    assert rel(f.gram(), ref) < 1e-6
    # truncation acts on the weighted eigenvalues m μ_k (Zhang & Kwok 2009)
    ft = nystroem_factor(X, k, 25, weighting="density", threshold=1.0, random_state=0)
    assert ft.rank < f.rank and ft.eigenvalues.min() > 1.0
    def err(n):
        return np.linalg.norm(k(X) - nystroem_factor(X, k, n, weighting="density", random_state=0).gram(), 2)

    err_small, err_big = err(10), err(60)
    assert err_big < err_small


def test_icf_greedy_pivots_and_exactness(X):
    k = Polynomial(degree=2, t=1.0)
    K = k(X)
    f = icf_factor(X, k, tol=1e-12, eps=0.0)
    assert f.rank == 10  # dim of degree-2 polynomials in 3 variables
    assert rel(f.gram(), K) < 1e-9
    assert f.landmark_index[0] == int(np.argmax(np.diag(K)))
    np.testing.assert_allclose(f.transform(X), f.R, atol=1e-7 * np.abs(f.R).max())
    f4 = icf_factor(X, k, rank=4, eps=0.0)
    assert f4.rank == 4
    # the residual trace decreases with the rank
    assert np.trace(K - f4.gram()) > np.trace(K - f.gram())
    fpre = icf_factor(None, None, K=K, tol=1e-12, eps=0.0)
    assert rel(fpre.gram(), K) < 1e-9
    np.testing.assert_allclose(fpre.transform(K), fpre.R, atol=1e-6 * np.abs(fpre.R).max())


def test_truncate_spectral_error(X):
    R = np.random.default_rng(2).standard_normal((50, 8))
    Rk, Q, th = truncate(R, rank=3)
    s = np.sort(np.linalg.eigvalsh(R.T @ R))[::-1]
    np.testing.assert_allclose(th, s[:3])
    assert np.linalg.norm(R @ R.T - Rk @ Rk.T, 2) == pytest.approx(s[3], rel=1e-10)


def test_make_factor_dispatch(X):
    k = RBF(1.0)
    for method in (None, "eigen", "nystroem", "nystroem-density", "icf"):
        f = make_factor(method, X, k, rank=10, random_state=0, K=k(X) if method in (None, "eigen") else None)
        assert f.rank <= 10 and f.R.shape[0] == X.shape[0]
    with pytest.raises(HyperparameterError, match="low_rank"):
        make_factor("svd", X, k)


# -------------------------------------------------------------------------- SMW (Prop. 3)
@pytest.mark.parametrize("c", [1e-6, 1e-2, 3.0])
def test_smw_solve_and_inverse_diagonal(c):
    rng = np.random.default_rng(4)
    R = rng.standard_normal((60, 7))
    E = np.sort(rng.choice(60, 40, replace=False))
    sysm = SMWSystem(R, E)
    fac = sysm.factor(c)
    M = R[E] @ R[E].T + c * np.eye(40)
    Z = rng.standard_normal((40, 3))
    expected = np.linalg.solve(M, Z)
    np.testing.assert_allclose(fac.solve(Z), expected, rtol=1e-6, atol=1e-8 * np.abs(expected).max())
    np.testing.assert_allclose(fac.inv_diag(), np.diag(np.linalg.inv(M)), rtol=1e-6)
    # the bordered system on top of it (eq. 22-23): same as a dense bordered solve
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    b1 = BorderedSystem(fac, y)
    b2 = BorderedSystem(Cholesky.factor(M, check_cond=False), y)
    a1, s1 = b1.solve(np.ones(40))
    a2, s2 = b2.solve(np.ones(40))
    np.testing.assert_allclose(a1, a2, rtol=1e-6, atol=1e-8 * np.abs(a2).max())
    np.testing.assert_allclose(b1.alpha_inv_diag(), b2.alpha_inv_diag(), rtol=1e-6, atol=1e-12 / c)


def test_eq24_printed_factor_order_is_wrong():
    """Eq. (24) with T = L^T L as printed: (L^{-1} R^T)^T (L^{-1} R^T) = R (L L^T)^{-1} R^T is
    not R T^{-1} R^T.  With the lower Cholesky factor T = L L^T it is (what lowrank uses)."""
    rng = np.random.default_rng(5)
    R = rng.standard_normal((30, 6))
    c = 0.5
    T = np.eye(6) + R.T @ R / c
    true_diag = np.diag(np.linalg.inv(R @ R.T + c * np.eye(30)))
    L = np.linalg.cholesky(T)  # T = L L^T (lower)
    U = sla.solve_triangular(L, R.T, lower=True)
    ours = 1 / c - np.sum(U**2, axis=0) / c**2
    np.testing.assert_allclose(ours, true_diag, rtol=1e-10)
    Lp = np.linalg.cholesky(T).T  # "T = L_E^T L_E": the printed L is upper triangular
    Up = sla.solve_triangular(Lp, R.T, lower=False)
    printed = 1 / c - np.sum(Up**2, axis=0) / c**2
    assert np.abs(printed - true_diag).max() > 1e-3 * np.abs(true_diag).max()
    np.testing.assert_allclose(SMWSystem(R).factor(c).inv_diag(), true_diag, rtol=1e-10)


def test_incremental_gram_update_matches_recompute():
    rng = np.random.default_rng(6)
    R = rng.standard_normal((80, 5))
    s = SMWSystem(R, np.arange(40), refresh_every=10**6, refresh_fraction=1.0)
    E = np.arange(40)
    for _ in range(30):
        mask = np.zeros(80, bool)
        mask[E] = True
        flip = rng.choice(80, 3, replace=False)
        mask[flip] = ~mask[flip]
        E = np.flatnonzero(mask)
        s.set_active(E)
    assert s.n_refresh == 1 and s.n_updates == 90
    np.testing.assert_allclose(s.G, R[E].T @ R[E], atol=1e-12)


# --------------------------------------------------------------------------- bad input
def test_rank_larger_than_m(X):
    k = RBF(1.0)
    with pytest.raises(HyperparameterError, match="larger than the number of training points"):
        eigen_factor(k(X), rank=500)
    with pytest.raises(HyperparameterError, match="larger than"):
        nystroem_factor(X, k, 500)
    with pytest.raises(HyperparameterError, match="larger than"):
        icf_factor(X, k, rank=121)
    with pytest.raises(HyperparameterError, match="must be an integer >= 1"):
        eigen_factor(k(X), rank=0)


def test_not_psd(X):
    K = RBF(1.0)(X)
    K[0, 5] = K[5, 0] = 3.0
    with pytest.raises(NotPSDError, match="not positive semi-definite"):
        eigen_factor(K)

    def bad(A, B=None):
        B = A if B is None else B
        return -np.abs(A[:, :1] - B[:, :1].T) - 0.5  # not a PSD kernel

    from lssvm_cvx.kernels.base import CallableKernel

    with pytest.raises(NotPSDError):
        nystroem_factor(X, CallableKernel(bad), 20, random_state=0)
    with pytest.raises(NotPSDError):
        icf_factor(X, CallableKernel(bad))


@pytest.mark.parametrize("rule", ["max", "trace"])
@pytest.mark.parametrize("rtol", [1e-3, 1e-8])
def test_one_pivoted_cholesky_dense_loop_and_matrix_free_agree(X, rule, rtol):
    """The one pivoted Cholesky: LAPACK's dpstrf (dense, rule "max"), the greedy loop on a
    dense matrix (forced by ``rank``) and the matrix-free loop give the same factor and obey
    their stopping rule."""
    from lssvm_cvx.kernels.factors import pivoted_cholesky

    K = RBF(2.0)(X)
    m = K.shape[0]
    L_mf, p_mf = pivoted_cholesky(column=lambda i: K[:, i], diag=np.diag(K), rtol=rtol, rule=rule)
    L_loop, p_loop = pivoted_cholesky(K, rtol, rule=rule, rank=m)
    assert np.array_equal(p_mf, p_loop) and np.allclose(L_mf, L_loop, atol=1e-12)
    R = K - L_mf @ L_mf.T
    assert np.allclose(R[:, p_mf], 0.0, atol=1e-10)          # exact on the pivot columns
    left = np.diag(R)
    if rule == "max":
        assert left.max() <= rtol * np.diag(K).max() * (1 + 1e-8)
        L_lapack, p_lapack = pivoted_cholesky(K, rtol, rule="max")
        assert L_lapack.shape[1] == L_mf.shape[1]
        assert np.allclose(L_lapack @ L_lapack.T, L_mf @ L_mf.T, atol=1e-10)
    else:
        assert left.sum() <= rtol * np.trace(K) * (1 + 1e-8)
        # one step fewer would not have met the rule (greedy: stops at the first r that does)
        L1 = L_mf[:, :-1]
        assert np.trace(K - L1 @ L1.T) > rtol * np.trace(K)


def test_pivoted_cholesky_bad_input():
    from lssvm_cvx.exceptions import HyperparameterError, InputError, NotPSDError
    from lssvm_cvx.kernels.factors import pivoted_cholesky

    with pytest.raises(HyperparameterError, match="rule"):
        pivoted_cholesky(np.eye(3), rule="frobenius")
    with pytest.raises(HyperparameterError, match="column and diag"):
        pivoted_cholesky(column=lambda i: np.eye(3)[:, i])
    with pytest.raises(InputError, match="NaN"):
        pivoted_cholesky(np.full((3, 3), np.nan))
    with pytest.raises(NotPSDError):
        pivoted_cholesky(-np.eye(3))
    L, p = pivoted_cholesky(np.zeros((3, 3)))
    assert L.shape == (3, 0) and p.size == 0


def test_the_old_nystrom_spelling_warns_and_gives_the_same_factor():
    """One spelling of Nyström in the package (scikit-learn's ``Nystroem``, issue 30 item 4);
    the old one still works, with a FutureWarning, and builds the same factor."""
    from lssvm_cvx.kernels.factors import nystrom_factor

    X = np.random.default_rng(0).normal(size=(40, 2))
    k = RBF(1.0)
    with pytest.warns(FutureWarning, match="nystroem_factor"):
        old = nystrom_factor(X, k, 20, random_state=0)
    np.testing.assert_array_equal(old.R, nystroem_factor(X, k, 20, random_state=0).R)
    for spelling, method in (("nystrom", "nystroem"), ("nystrom-density", "nystroem-density")):
        with pytest.warns(FutureWarning, match=method):
            f = make_factor(spelling, X, k, n_landmarks=20, random_state=0)
        assert f.method == method
        np.testing.assert_array_equal(f.R, make_factor(method, X, k, n_landmarks=20,
                                                       random_state=0).R)
