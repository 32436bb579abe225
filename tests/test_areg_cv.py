"""Cross-validation fusion of AReg (§5): the re-derived stacked system (eq. 37), its
closed form against a dense KKT solve, and the slips of Lemma 5.2 / Algorithm 5.1 (each test
fails on the printed formula)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from lssvm_cvx import problems
from lssvm_cvx.formulations.areg import AReg
from lssvm_cvx.formulations.areg_cv import ARegClassifierCV, ARegCV, fast_cv_matrices, make_folds, omega_cv
from lssvm_cvx.formulations.areg_fast_cv import ARegFastCV
from lssvm_cvx.kernels import RBF, Linear


@pytest.fixture
def data():
    ds = problems.get_problem("lssvm_regression", n=23, d=2, seed=4)
    return ds.X, ds.y


@pytest.mark.parametrize("L", [2, 3, 5])
def test_cv_stacked_system_with_fixed_c(data, L, rng):
    """Eq. (37) as derived: (N+1)L equations in (N+1)L+N unknowns; with c fixed, the per-fold
    AReg solutions (eq. 9 on T_l with c[T_l], validation residuals by eq. 31) satisfy it, and
    the remaining square system determines them uniquely."""
    X, y = data
    f = ARegCV(X, y, folds=L, seed=1, kernel=RBF(0.5))
    A, r = f.stacked_system()
    N = f.n
    assert A.shape == ((N + 1) * L, (N + 1) * L + N)
    c = rng.normal(size=N)
    e_v, bs, alphas = np.empty(N), [], []
    for v, t in zip(f.fold_sets, f.train_sets()):
        s = AReg.from_gram(f.Omega[np.ix_(t, t)], y[t], c=c[t]).solve()
        alphas.append(s["alpha"])
        bs.append(s.scalar("b"))
        e_v[v] = y[v] - f.Omega[np.ix_(v, t)] @ s["alpha"] - s.scalar("b")
    z = np.concatenate([c, e_v, bs, np.concatenate(alphas)])
    assert np.abs(A @ z - r).max() <= 1e-10
    rest = np.linalg.solve(A[:, N:], r - A[:, :N] @ c)  # square, invertible
    np.testing.assert_allclose(rest, z[N:], atol=1e-9)


def test_cv_closed_form_equals_dense_kkt_of_eq37(data):
    """The closed form (least squares in c) equals the dense KKT solve of
    min ½Σ||α^(l) + c_T||² + ½||e^v||² subject to eq. (37)."""
    X, y = data
    for L in (3, 4):
        f = ARegCV(X, y, folds=L, seed=2, kernel=RBF(0.3))
        A, r = f.stacked_system()
        N, nz = f.n, A.shape[1]
        blk = f._blocks()
        M = blk["offs"][-1]
        # S z = (α + S c, e^v)
        Sel = np.zeros((M + N, nz))
        Sel[:M, :N] = blk["S"].toarray()
        Sel[:M, 2 * N + L:] = np.eye(M)
        Sel[M:, N:2 * N] = np.eye(N)
        K = np.block([[Sel.T @ Sel, A.T], [A, np.zeros((A.shape[0], A.shape[0]))]])
        sol = np.linalg.lstsq(K, np.concatenate([np.zeros(nz), r]), rcond=None)[0][:nz]
        cf = f.solve("closed_form")
        np.testing.assert_allclose(cf["c"], sol[:N], atol=1e-8)
        np.testing.assert_allclose(cf["e_v"], sol[N:2 * N], atol=1e-8)
        np.testing.assert_allclose(cf["alpha"], sol[2 * N + L:], atol=1e-8)


def test_cv_final_model_and_classifier(data):
    """The final model is AReg (9) on all points with the cross-validated c; the classifier
    version is the regression one on ±1 targets with α̃ = y∘α."""
    X, y = data
    f = ARegCV(X, y, folds=4, seed=0, kernel=RBF(0.5))
    sol = f.solve()
    alpha, b = f.final_model(sol)
    ref = AReg(X, y, kernel=RBF(0.5), c=sol["c"]).solve()
    np.testing.assert_allclose(alpha, ref["alpha"], atol=1e-12)
    ylab = np.where(y > np.median(y), 1.0, -1.0)
    fc = ARegClassifierCV(X, ylab, folds=f.fold_sets, kernel=RBF(0.5)).solve()
    fr = ARegCV(X, ylab, folds=f.fold_sets, kernel=RBF(0.5)).solve()
    np.testing.assert_allclose(fc["c"], ylab * fr["c"], atol=1e-9)


def _per_fold_sum(Omega, folds, alpha):
    """Brute force of eq. (51): (1/(L-1)) Σ_{l: k∈T_l} Σ_{i∈T_l} α_i K(x_i, x_k)."""
    N, L = Omega.shape[0], len(folds)
    out = np.zeros(N)
    for v in folds:
        t = np.setdiff1d(np.arange(N), v)
        out[t] += Omega[np.ix_(t, t)] @ alpha[t]
    return out / (L - 1)


@pytest.mark.parametrize("L", [3, 5, 10])
def test_fast_cv_omega_cv_weight(L, rng):
    """Eq. (46) vs (52): the averaged training map is ((L-2)/(L-1))Ω + (1/(L-1))Ω_CV (eq. 46);
    the 1/L Ω_CV printed in eq. (52) and (67) does not reproduce the per-fold sums (eq. 51)."""
    X = rng.normal(size=(30, 2))
    O = RBF(1.0)(X)
    folds = make_folds(30, L, seed=L)
    alpha = rng.normal(size=30)
    brute = _per_fold_sum(O, folds, alpha)
    A, _ = fast_cv_matrices(O, folds)
    np.testing.assert_allclose(A @ alpha, brute, atol=1e-12)
    printed = (L - 2) / (L - 1) * O + omega_cv(O, folds) / L
    assert np.abs(printed @ alpha - brute).max() > 1e-3


def test_fast_cv_third_row(rng):
    """ē - e^v from the fold models (eq. 47, 50b) equals -Dα with D = (LΩ_CV - Ω)/(L-1); the
    printed third row of eq. (52), (L/(L-1))Ω - (1/(L-1))Ω_CV, does not."""
    X = rng.normal(size=(25, 2))
    O = RBF(0.8)(X)
    L = 5
    folds = make_folds(25, L, seed=3)
    alpha, b, y = rng.normal(size=25), 0.3, rng.normal(size=25)
    e_bar = y - _per_fold_sum(O, folds, alpha) - b
    e_v = np.empty(25)
    for v in folds:
        t = np.setdiff1d(np.arange(25), v)
        e_v[v] = y[v] - O[np.ix_(v, t)] @ alpha[t] - b
    _, D = fast_cv_matrices(O, folds)
    np.testing.assert_allclose(D @ alpha + (e_bar - e_v), 0, atol=1e-12)
    Ocv = omega_cv(O, folds)
    printed = -Ocv / (L - 1) + L / (L - 1) * O
    assert np.abs(printed @ alpha + (e_bar - e_v)).max() > 1e-2


@pytest.mark.parametrize("weight, matches", [(0.5, True), ("printed", False)])
def test_fast_cv_primal_weight(weight, matches, rng):
    """The primal (44) with explicit per-fold weights w^(l) (linear kernel) has the dual (46)
    (ē = c + α, the +I of eq. 46) when the fitting term has weight ½; with the printed
    1/(2(L-1)) the optimum is different (ē = c + (L-1)α)."""
    N, d, L = 24, 3, 4
    X, y, c = rng.normal(size=(N, d)), rng.normal(size=N), rng.normal(scale=0.3, size=N)
    folds = make_folds(N, L, seed=0)
    W = cp.Variable((d, L))
    b, e = cp.Variable(), cp.Variable(N)
    mask = np.ones((N, L))
    for l, v in enumerate(folds):
        mask[v, l] = 0.0
    fit_w = 0.5 if weight == 0.5 else 1.0 / (2 * (L - 1))
    avg = cp.sum(cp.multiply(mask, X @ W), axis=1) / (L - 1)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(W) / (2 * (L - 1)) + fit_w * cp.sum_squares(e - c)),
                      [avg + b + e == y])
    prob.solve(solver="CLARABEL")
    f = ARegFastCV(X, y, folds=folds, kernel=Linear())
    A, _ = f.matrices()
    # (46): [[0, 1'], [1, A + I]] [b; α] = [0; y - c]
    K = np.block([[np.zeros((1, 1)), np.ones((1, N))], [np.ones((N, 1)), A + np.eye(N)]])
    sol = np.linalg.solve(K, np.concatenate([[0.0], y - c]))
    b46, alpha46 = sol[0], sol[1:]
    close = abs(b.value - b46) < 1e-5 and np.abs(e.value - (c + alpha46)).max() < 1e-5
    assert close == matches
    if matches:  # w^(l) = Σ_{i∈T_l} α_i x_i (eq. 50b)
        np.testing.assert_allclose(W.value, X.T @ (mask * alpha46[:, None]), atol=1e-5)


def test_fast_cv_model_eq41(data):
    """Eq. (41) vs (48): the CV model is the average of the L fold models
    f^(l)(x) = Σ_{i∈T_l} α_i K(x_i, x) + b (50b), i.e. ((L-1)/L)Σ_i α_i K(x_i, x) + b; the printed
    (48), Σ_i α_i K(x_i, x) + b, is not that average.  c = ē - α satisfies eq. (46)."""
    X, y = data
    L = 4
    f = ARegFastCV(X, y, folds=L, seed=0, kernel=RBF(0.5), xi=2.0)
    sol = f.solve()
    alpha, b = sol["alpha"], sol.scalar("b")
    coef, b41 = f.model(sol)
    Xn = np.random.default_rng(0).normal(size=(7, 2))
    Kn = RBF(0.5)(Xn, X)
    fold_avg = np.mean([Kn[:, t] @ alpha[t] + b for t in f.train_sets()], axis=0)
    np.testing.assert_allclose(Kn @ coef + b41, fold_avg, atol=1e-12)
    assert np.abs(Kn @ alpha + b - fold_avg).max() > 1e-3  # the printed (48)
    A, _ = f.matrices()
    c = sol.extras["c"]
    np.testing.assert_allclose((A + np.eye(f.n)) @ alpha + b, y - c, atol=1e-10)
