"""Multiobjective model selection (formulations/multiobjective.py): θ-space objectives of KRR
(eq. 33) and KPCR (eq. 35) with gradients against finite differences, KPCR against
scikit-learn's KernelPCA + least squares, the α-space convex formulations against the closed
form / KRR path and every solver, and the selection driver."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LinearRegression

from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations import FORMULATIONS, get_formulation
from lssvm_cvx.formulations.alpha_krr import EpsAlphaKRR, ParetoAlphaKRR, WeightedSumAlphaKRR
from lssvm_cvx.formulations.multiobjective import KPCRObjectives, KRRObjectives, kpcr_components
from lssvm_cvx.kernels import RBF, Polynomial
from lssvm_cvx.selection.multiobjective import alpha_front, select_model
from lssvm_cvx.validate import compare


def data(n=30, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y - y.mean()


def fd(f, th, h=1e-5):
    th = np.asarray(th, float)
    out = []
    for j in range(th.size):
        e = np.zeros_like(th)
        e[j] = h
        out.append((f(th + e) - f(th - e)) / (2 * h))
    return np.array(out)


def rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300))


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize("complexity", ["roughness", "l2"])
def test_krr_gradients(kernel, complexity):
    X, y = data()
    o = KRRObjectives(X, y, kernel, degree=3, complexity=complexity)
    th = np.log([2.0, 0.1]) if kernel == "rbf" else np.log([0.3])
    ev = o.evaluate(th)
    fresh = KRRObjectives(X, y, kernel, degree=3, complexity=complexity)
    assert rel(ev["grad_f"], fd(lambda t: fresh.evaluate(t)["E_f"], th)) < 1e-6
    assert rel(ev["grad_c"], fd(lambda t: fresh.evaluate(t)["E_c"], th)) < 1e-6
    # KRR α of eq. (33) = scikit-learn's KernelRidge dual coefficients
    kern = RBF(2.0) if kernel == "rbf" else Polynomial(3, 1.0)
    ref = KernelRidge(alpha=ev["lam"], kernel="precomputed").fit(kern(X), y)
    assert rel(ev["alpha"], ref.dual_coef_) < 1e-8


@pytest.mark.parametrize("complexity", ["roughness", "l2"])
def test_kpcr_sigma_gradient_and_central_difference_in_r(complexity):
    X, y = data()
    o = KPCRObjectives(X, y, "rbf", complexity=complexity, delta_r=0.02)
    th = np.array([np.log(2.0), 0.9])
    ev = o.evaluate(th)
    fresh = KPCRObjectives(X, y, "rbf", complexity=complexity, delta_r=0.02)
    for key, gkey in (("E_f", "grad_f"), ("E_c", "grad_c")):
        g = fd(lambda t, key=key: fresh.evaluate(np.array([t[0], 0.9]))[key], th[:1])
        assert abs(ev[gkey][0] - g[0]) <= 1e-6 * abs(g[0])
    # ∂E/∂r is g_α'(α(r+Δr) - α(r-Δr))/2Δr (§IV-B)
    hi = fresh.evaluate(np.array([th[0], 0.92]))
    lo = fresh.evaluate(np.array([th[0], 0.88]))
    dalpha = (hi["alpha"] - lo["alpha"]) / 0.04
    # α-gradient of E_f at fixed kernel: -(K̃ res)/n
    K = RBF(2.0)(X)
    C = np.eye(len(y)) - 1 / len(y)
    Kc = C @ K @ C
    res = y - Kc @ ev["alpha"]
    assert abs(ev["grad_f"][1] - (-(Kc @ res) / len(y)) @ dalpha) < 1e-10


def test_kpcr_matches_kernel_pca_regression_and_paper_eigen_derivatives():
    X, y = data(40)
    o = KPCRObjectives(X, y + 3.0, "rbf")
    ev = o.evaluate(np.array([np.log(1.5), 0.85]))
    m = ev["m"]
    K = RBF(1.5)(X)
    kpca = KernelPCA(n_components=m, kernel="precomputed").fit(K)
    Z = kpca.transform(K)
    lr = LinearRegression().fit(Z, y + 3.0)
    Xt = np.random.default_rng(5).normal(size=(7, 3))
    Kt = RBF(1.5)(Xt, X)
    pred_ref = lr.predict(kpca.transform(Kt))
    pred = Kt @ ev["beta"] + ev["b"] + (y + 3.0).mean()
    assert rel(pred, pred_ref) < 1e-8
    # the paper's eigenpair derivatives (§IV-B) summed term by term equal our closed form
    n = len(y)
    C = np.eye(n) - 1 / n
    Kc = C @ K @ C
    dKc = C @ (K * np.square(X[:, None, :] - X[None, :, :]).sum(-1) / 1.5**2) @ C
    w, V = np.linalg.eigh(Kc)
    w, V = w[::-1], V[:, ::-1]
    yc = y - y.mean()
    dalpha = np.zeros(n)
    for j in range(m):
        v = V[:, j]
        dlam = v @ dKc @ v
        dv = -np.linalg.pinv(Kc - w[j] * np.eye(n), rcond=1e-10) @ dKc @ v
        dalpha += (-dlam / w[j] ** 2 * np.outer(v, v) + (np.outer(dv, v) + np.outer(v, dv)) / w[j]) @ yc
    res = yc - Kc @ ev["alpha"]
    g = -(Kc @ res) / n
    exp_f = -(res @ (dKc @ ev["alpha"])) / n
    assert abs(1.5 * (exp_f + g @ dalpha) - ev["grad_f"][0]) <= 1e-6 * abs(ev["grad_f"][0])


def test_kpcr_components():
    w = np.array([4.0, 3.0, 2.0, 1.0, 0.0])
    assert kpcr_components(w, 1.0) == 4
    assert kpcr_components(w, 0.7) == 2  # shares 0.4, 0.7, 0.9, 1.0
    assert kpcr_components(w, 0.1) == 1
    for bad in (0.0, 1.5, -0.2):
        with pytest.raises(HyperparameterError, match="r must be"):
            kpcr_components(w, bad)


def test_alpha_space_l2_front_is_the_krr_path():
    """With the L2 complexity, the weighted sum with ν is KRR with λ = 2nν, and the modified
    ε-constraint with the bound α_λ'Kα_λ returns α_λ."""
    X, y = data(25)
    n, lam = len(y), 0.3
    kern = RBF(2.0)
    K = kern(X)
    a_krr = np.linalg.solve(K + lam * np.eye(n), y)
    ws = WeightedSumAlphaKRR(X, y, kernel=kern, complexity="l2", nu=lam / (2 * n))
    assert rel(ws.solve()["alpha"], a_krr) < 1e-8
    bound = float(a_krr @ K @ a_krr)
    pm = ParetoAlphaKRR(X, y, kernel=kern, complexity="l2", eps=bound / 1e-3, s=1e-3)
    assert pm.problem.is_dpp()
    sol = pm.solve("CLARABEL", accept_inaccurate=True)
    assert rel(K @ sol["alpha"], K @ a_krr) < 1e-5
    pe = EpsAlphaKRR(X, y, kernel=kern, complexity="l2", eps=bound)
    sol = pe.solve("CLARABEL", accept_inaccurate=True)
    assert rel(K @ sol["alpha"], K @ a_krr) < 1e-5


@pytest.mark.parametrize("complexity", ["roughness", "l2"])
def test_weighted_sum_harness(complexity):
    X, y = data(20)
    f = WeightedSumAlphaKRR(X, y, kernel=RBF(1.5), complexity=complexity, nu=0.05)
    assert f.problem.is_dpp()
    rep = compare(f, solvers=["CLARABEL", "ECOS"])
    rep.assert_agree()
    # KKT of the closed form on the cvxpy problem
    kkt = f.kkt_residuals(f.solve())
    assert kkt["primal"] < 1e-10 and kkt["stationarity"] < 1e-8


def test_pareto_alpha_formulation_solvers():
    f = ParetoAlphaKRR.random_instance(25)
    rep = compare(f, solvers=["CLARABEL", "ECOS", "SCS"])
    ok = {r.backend for r in rep.rows if r.agrees}
    assert {"closed_form", "CLARABEL"} <= ok  # the spectral-path closed form is the reference
    g = EpsAlphaKRR.random_instance(25)
    rep = compare(g, solvers=["ECOS", "SCS"])
    assert {"closed_form", "ECOS", "SCS"} <= {r.backend for r in rep.rows if r.agrees}
    kkt = g.kkt_residuals(g.solve())
    assert kkt["primal"] < 1e-6 and kkt["stationarity"] < 1e-6
    sol = f.solve("CLARABEL")
    Ec = float(f.problem.objectives[1].value)  # E_c⁺ evaluated in the solver's coordinates
    # equality u = h ε at the optimum (eq. 25)
    assert abs(Ec - 1e-3 * float(sol["eta"]) * f.eps) <= 1e-6 * max(1.0, Ec)
    # the convex majorant bounds the roughness of eq. (16) (moderate α, where NumPy is exact)
    a = np.random.default_rng(0).normal(size=f.prepared()["K"].shape[0])
    assert f.E_c(a) >= f.E_c_exact(a) - 1e-9
    assert {"pareto_krr_alpha", "pareto_krr_alpha_eps", "pareto_krr_sum"} <= set(FORMULATIONS)
    assert get_formulation("pareto_krr_sum") is WeightedSumAlphaKRR


def test_alpha_front_sweep_does_not_recompile():
    X, y = data(20)
    out = alpha_front(X, y, RBF(1.5), n_eps=12)
    fr = out["front"]
    assert not fr.recompiled
    ok = np.isfinite(fr.F).all(axis=1)
    assert ok.sum() >= 9  # CLARABEL may report solver_error on the worst-conditioned bounds
    ref = alpha_front(X, y, RBF(1.5), n_eps=12, solver="closed_form")
    Fr = ref["front"].F
    assert np.isfinite(Fr).all() and ref["front"].non_dominated(tol=1e-9).all()
    assert np.allclose(fr.F[ok, 0], Fr[ok, 0], rtol=1e-3, atol=1e-6)
    assert 0 <= out["index"] < 12 and 0 <= ref["index"] < 12


@pytest.mark.parametrize("model", ["krr", "kpcr"])
@pytest.mark.parametrize("method", ["sum", "product"])
def test_sum_and_product_criteria(model, method):
    X, y = data(30)
    sel = select_model(X, y, model=model, method=method, weights_grid=[0.01, 1.0], nlp_maxiter=10)
    assert sel.scores["weight"] in (0.01, 1.0)
    assert np.isfinite(sel.E_f) and np.isfinite(sel.E_c)
    assert np.isfinite(sel.predict(X)).all()


def test_select_model_bad_input():
    X, y = data(20)
    with pytest.raises(HyperparameterError, match="degree"):
        select_model(X, y, kernel="poly", degrees=(0, 2))
    with pytest.raises(HyperparameterError, match="s must be"):
        select_model(X, y, s=0.0)
    with pytest.raises(HyperparameterError, match="method"):
        select_model(X, y, method="aic")
    with pytest.raises(HyperparameterError, match="r must be"):
        KPCRObjectives(X, y).theta(r=1.5, sigma2=1.0)
    with pytest.raises(HyperparameterError):
        ParetoAlphaKRR(X, y, kernel=RBF(1.0), eps=0.0).validate()
    with pytest.raises(HyperparameterError):
        ParetoAlphaKRR(X, y, kernel=RBF(1.0), eps=1.0, s=-1.0).validate()
