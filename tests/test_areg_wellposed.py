"""The well-posed variants of the AReg cross-validation fusion (§5.2 of Pelckmans, Suykens &
De Moor 2006): Tikhonov regularization on ``c`` (weight by GCV) and early-stopped LSQR, each
checked against its definition computed independently."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import AdditiveRegularizationClassifier, AdditiveRegularizationRegressor, problems
from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations.areg import AReg
from lssvm_cvx.formulations.areg_cv import ARegCV
from lssvm_cvx.kernels import RBF
from lssvm_cvx.linalg.lstsq import gcv_curve, tikhonov_lstsq


@pytest.fixture
def data():
    ds = problems.get_problem("lssvm_regression", n=26, d=2, seed=7)
    return ds.X, ds.y


def _ill_conditioned(rng, m=40, n=15):
    U, _ = np.linalg.qr(rng.normal(size=(m, n)))
    V, _ = np.linalg.qr(rng.normal(size=(n, n)))
    s = np.logspace(0, -9, n)
    return (U * s) @ V.T, rng.normal(size=m)


@pytest.mark.parametrize("mu", [1e-6, 0.1, 3.0])
def test_tikhonov_lstsq_equals_normal_equations(mu, rng):
    """x_μ solves (A'A + μI)x = A'g (the definition), also where A'A is near singular."""
    A, g = _ill_conditioned(rng)
    x, info = tikhonov_lstsq(A, g, mu)
    ref = np.linalg.solve(A.T @ A + mu * np.eye(A.shape[1]), A.T @ g)
    np.testing.assert_allclose(x, ref, rtol=1e-7, atol=1e-9)
    assert info["mu"] == mu


def test_gcv_choice_is_the_bruteforce_argmin(rng):
    """GCV(μ) = m ||(I - H_μ)g||² / (m - tr H_μ)² (Golub, Heath & Wahba's V, the package's
    one GCV) with the explicit hat matrix H_μ = A(A'A + μI)^{-1}A'; the chosen μ is its
    minimiser over the grid."""
    A, g = _ill_conditioned(rng)
    m, n = A.shape
    grid = np.logspace(-12, 0, 25)
    x, info = tikhonov_lstsq(A, g, "gcv", grid=grid)
    smax2 = np.linalg.norm(A, 2) ** 2
    brute = []
    for mu in smax2 * grid:
        H = A @ np.linalg.solve(A.T @ A + mu * np.eye(n), A.T)
        brute.append(m * np.sum((g - H @ g) ** 2) / (m - np.trace(H)) ** 2)
    brute = np.array(brute)
    np.testing.assert_allclose(info["gcv"], brute, rtol=1e-6)
    k = int(np.argmin(brute))
    assert info["mu"] == pytest.approx(smax2 * grid[k], rel=1e-10)
    np.testing.assert_allclose(x, tikhonov_lstsq(A, g, smax2 * grid[k])[0], rtol=1e-12)
    # the curve helper on its own
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    beta = U.T @ g
    np.testing.assert_allclose(gcv_curve(s, beta, g @ g - beta @ beta, m, smax2 * grid), brute,
                               rtol=1e-6)


def _criterion(f: ARegCV, c: np.ndarray) -> float:
    """Σ_l ||α^(l) + c[T_l]||² + ||e^v||² by refitting AReg (eq. 9) in every fold."""
    total = 0.0
    y, O = f.y, f.Omega
    for v, t in zip(f.fold_sets, f.train_sets()):
        s = AReg.from_gram(O[np.ix_(t, t)], y[t], c=c[t]).solve()
        al, b = s["alpha"], s.scalar("b")
        e_v = y[v] - O[np.ix_(v, t)] @ al - b
        total += float(np.sum((al + c[t]) ** 2) + e_v @ e_v)
    return total


@pytest.mark.parametrize("sigma2", [0.3, 5.0])
def test_cv_tikhonov_is_stationary_for_the_refitted_criterion(data, sigma2):
    """solve_tikhonov(μ) minimises J(c) + μ||c||² with J the CV criterion evaluated by per-fold
    AReg refits (independent of the G, h of the closed form): central differences of the
    quadratic J give ∇J(c*) + 2μc* = 0."""
    X, y = data
    f = ARegCV(X, y, folds=4, seed=3, kernel=RBF(sigma2))
    mu = 0.05
    c = f.solve_tikhonov(mu)["c"]
    h = 1e-3
    grad = np.empty(f.n)
    for i in range(f.n):
        e = np.zeros(f.n)
        e[i] = h
        grad[i] = (_criterion(f, c + e) - _criterion(f, c - e)) / (2 * h)
    scale = np.abs(grad).max() + np.abs(2 * mu * c).max()
    assert np.abs(grad + 2 * mu * c).max() <= 1e-6 * scale
    # and the exact criterion value matches ||Gc - h||²
    G, hh = f.cv_lstsq()
    assert _criterion(f, c) == pytest.approx(float(np.sum((G @ c - hh) ** 2)), rel=1e-10)


@pytest.mark.parametrize("sigma2", [0.5, 20.0])
def test_final_gcv_equals_bruteforce_smoother(data, sigma2):
    """final_gcv(μ) = N ||y - S_μ y||² / (N - tr S_μ)² with the smoother S_μ built column by
    column: fitted values of the final model (AReg (9) on all points with c_μ = the Tikhonov
    CV solution for targets e_k).  The chosen μ of solve_tikhonov("gcv") is its argmin."""
    X, y = data
    O = RBF(sigma2)(X)
    N = y.size
    f = ARegCV(None, y, folds=4, seed=5, Omega=O)
    G, _ = f.cv_lstsq()
    smax2 = np.linalg.norm(G, 2) ** 2
    mus = smax2 * np.array([1e-10, 1e-4, 1e-2, 1.0])
    curve, _ = f.final_gcv(mus)
    for mu, value in zip(mus, curve):
        S = np.empty((N, N))
        for k in range(N):
            fk = ARegCV(None, np.eye(N)[k], folds=f.fold_sets, Omega=O)
            al, b = fk.final_model(fk.solve_tikhonov(mu))
            S[:, k] = O @ al + b
        brute = N * np.sum((y - S @ y) ** 2) / (N - np.trace(S)) ** 2
        assert value == pytest.approx(brute, rel=1e-6)
    sol = f.solve_tikhonov("gcv")
    info = sol.extras["lstsq"]
    assert info["mu"] == info["grid"][int(np.argmin(info["gcv"]))]
    np.testing.assert_allclose(sol["c"], f.solve_tikhonov(info["mu"])["c"], rtol=1e-9, atol=1e-12)
    lst = f.solve_tikhonov("gcv_lstsq").extras["lstsq"]
    assert lst["mu"] == pytest.approx(tikhonov_lstsq(*f.cv_lstsq(), "gcv")[1]["mu"], rel=1e-12)


def _krylov_solution(G: np.ndarray, h: np.ndarray, k: int) -> np.ndarray:
    """argmin ||Gc - h|| over span{G'h, (G'G)G'h, ..., (G'G)^{k-1}G'h} (Arnoldi, full
    re-orthogonalisation)."""
    B = G.T @ G
    q = G.T @ h
    Q = np.zeros((G.shape[1], k))
    Q[:, 0] = q / np.linalg.norm(q)
    for j in range(1, k):
        w = B @ Q[:, j - 1]
        for _ in range(2):
            w -= Q[:, :j] @ (Q[:, :j].T @ w)
        Q[:, j] = w / np.linalg.norm(w)
    y = np.linalg.lstsq(G @ Q, h, rcond=None)[0]
    return Q @ y


@pytest.mark.parametrize("k", [3, 6])
def test_cv_lsqr_is_krylov_solution(data, k):
    """k LSQR steps from c = 0 give the minimiser of the CV criterion over the k-dimensional
    Krylov space K_k(G'G, G'h) (computed independently); k and k + 1 steps differ."""
    X, y = data
    f = ARegCV(X, y, folds=5, seed=1, kernel=RBF(1.0))
    sol = f.solve_lsqr(k)
    assert sol.extras["lstsq"]["iterations"] == k
    G, h = f.cv_lstsq()
    ref = _krylov_solution(G, h, k)
    np.testing.assert_allclose(sol["c"], ref, rtol=1e-6, atol=1e-8 * np.abs(ref).max())
    assert np.abs(f.solve_lsqr(k + 1)["c"] - ref).max() > 1e-4 * np.abs(ref).max()


def test_estimator_tikhonov_option(data):
    """method="cv", solver="tikhonov" wraps ARegCV.solve_tikhonov; mu_ is recorded; μ → 0
    approaches the exact optimum (on a well-conditioned instance)."""
    X, y = data
    R = AdditiveRegularizationRegressor
    est = R(method="cv", sigma2=0.3, cv=4, solver="tikhonov", mu=0.2, random_state=0).fit(X, y)
    f = ARegCV(X, y, folds=est.folds_, kernel=RBF(0.3))
    s = f.solve_tikhonov(0.2)
    np.testing.assert_allclose(est.c_, s["c"], atol=1e-10)
    np.testing.assert_allclose(est.dual_coef_, f.final_model(s)[0], atol=1e-10)
    assert est.mu_ == 0.2
    g = R(method="cv", sigma2=0.3, cv=4, solver="tikhonov", random_state=0).fit(X, y)
    assert g.mu_ == f.solve_tikhonov("gcv").extras["lstsq"]["mu"]
    tiny = f.solve_tikhonov(1e-12)["c"]
    np.testing.assert_allclose(tiny, f.closed_form()["c"], rtol=1e-5, atol=1e-8)
    ylab = np.where(y > np.median(y), 1, -1)
    clf = AdditiveRegularizationClassifier(method="cv", sigma2=0.3, cv=4, solver="tikhonov",
                                           random_state=0).fit(X, ylab)
    assert clf.mu_ > 0 and clf.score(X, ylab) > 0.5


@pytest.mark.parametrize("kw, match", [
    (dict(method="fusion", solver="tikhonov"), "method='cv' only"),
    (dict(method="fast_cv", solver="tikhonov"), "method='cv' only"),
    (dict(method="cv", solver="tikhonov", mu=0.0), "'mu' parameter"),
    (dict(method="cv", solver="tikhonov", mu="aic"), "'mu' parameter"),
    (dict(method="cv", solver="tikhonov", mu=True), "'mu' parameter|mu must be"),
    (dict(method="cv", solver="tikhonov", mu=np.inf), "'mu' parameter"),
    (dict(method="cv", solver="ridge"), "'solver' parameter"),
])
def test_bad_options(data, kw, match):
    X, y = data
    with pytest.raises(HyperparameterError, match=match):
        AdditiveRegularizationRegressor(**kw).fit(X, y)
