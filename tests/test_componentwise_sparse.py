"""L1 component regularization (eq. 20-22), its L2 variant and fusion (eq. 30)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Lasso

from lssvm_cvx import problems
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations import get_formulation
from lssvm_cvx.formulations.componentwise_sparse import (
    ComponentwiseFusion,
    ComponentwiseL1,
    ComponentwiseL2,
    selected_components,
)
from lssvm_cvx.kernels import RBF, Componentwise, Linear
from lssvm_cvx.validate import compare

QP_SOLVERS = ["CLARABEL", "ECOS", "SCS", "OSQP"]


@pytest.fixture(scope="module")
def additive():
    ds = problems.get_problem("additive10", n_train=60, n_test=50, seed=5)
    return ds.X, ds.y, ds.X_test, ds.y_test


def _agreeing(report) -> list[str]:
    return [r.backend for r in report.rows if r.agrees]


def test_l1_qp_agrees_across_solvers(additive):
    X, y, _, _ = additive
    f = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=1.0)
    rep = compare(f, solvers=QP_SOLVERS)
    ok = _agreeing(rep)
    assert len(ok) >= 3, rep.to_markdown()
    assert {"CLARABEL", "ECOS", "SCS"} <= set(ok), rep.to_markdown()
    assert f.problem.is_dpp()
    # the harness scores KKT residuals (epigraph QP form): complementarity and stationarity
    for r in rep.rows:
        if r.backend in ok:
            assert r.kkt["stationarity"] <= r.tolerance.kkt


def test_l1_dpp_resolve_and_sparsity_path(additive):
    X, y, _, _ = additive
    f = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=0.05)
    s_small = f.solve("CLARABEL")
    assert s_small.ok  # optimal, or inaccurate but certified by its KKT residuals
    f.xi = 100.0                                   # parameter update, no recompilation
    s_big = f.solve("CLARABEL")
    assert len(f.selected(s_small)) < len(f.selected(s_big))
    fresh = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=100.0).solve("CLARABEL")
    np.testing.assert_allclose(s_big["yhat"], fresh["yhat"], atol=1e-6 * np.abs(fresh["yhat"]).max())


def test_components_add_up_to_the_fit_sign_of_eq21(additive):
    """Ŷ^d = +Ω^dα (eq. 9, 20): Σ_d Ŷ^d + b + e = Y.  Eq. (21) as printed,
    [0 1'; 1 Ω; 0 Ω^d][b; α] + [0; e; Ŷ^d] = [0; Y; 0], would make Ŷ^d = -Ω^dα and this
    identity fail (the L1 norm cannot tell, the component plots and eq. 22 can)."""
    X, y, _, _ = additive
    f = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=1.0)
    sol = f.solve("CLARABEL")
    Yh = sol["yhat"]
    np.testing.assert_allclose(Yh.sum(1) + sol.scalar("b") + sol["e"], y, atol=1e-7)
    printed = -Yh
    assert np.abs(printed.sum(1) + sol.scalar("b") + sol["e"] - y).max() > 1.0
    # and the components are the kernel expansions of eq. (9) / (22) on training points
    grams = f.component_grams()
    A = f.coef(sol)
    for d in range(f.n_components):
        np.testing.assert_allclose(grams[d] @ A[:, d], Yh[:, d], atol=1e-6 * np.abs(Yh).max())


def test_linear_components_give_a_weighted_lasso():
    """Independent check: with linear components Ŷ^d = x_d β_d and ||Ŷ^d||_1 = |β_d| ||x_d||_1,
    so eq. (20) is the Lasso on x_d/||x_d||_1 with alpha = 1/(2Nξ) (scikit-learn)."""
    rng = np.random.default_rng(0)
    N, D = 40, 5
    X = rng.normal(size=(N, D))
    y = 3 * X[:, 0] - 2 * X[:, 1] + rng.normal(size=N)
    s = np.abs(X).sum(0)
    for xi in (0.05, 0.3, 2.0):
        sol = ComponentwiseL1(X, y, kernel=Componentwise(Linear()), xi=xi).solve("CLARABEL")
        las = Lasso(alpha=1 / (2 * N * xi), tol=1e-12, max_iter=200000).fit(X / s, y)
        np.testing.assert_allclose(sol["yhat"], (X / s) * las.coef_, atol=1e-6)
        assert sol.scalar("b") == pytest.approx(las.intercept_, abs=1e-6)


def test_reduced_form_solves_the_printed_problem():
    """On a well-conditioned instance (full-rank RBF Grams, R > N: fully coupled) the literal
    eq. (20)/(30) with dense Ω^d and the variable α gives the same solution as the reduced
    coordinates."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(12, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=12)
    cw = Componentwise(RBF(0.3))
    red = ComponentwiseL1(X, y, kernel=cw, xi=5.0)
    pri = ComponentwiseL1(X, y, kernel=cw, xi=5.0, form="printed")
    a, b = red.solve("CLARABEL"), pri.solve("ECOS")
    assert red.basis.Z.shape[1] > 0                    # the coupling is active here
    np.testing.assert_allclose(a["yhat"], b["yhat"], atol=1e-5)
    assert a.objective == pytest.approx(b.objective, rel=1e-8)
    fr = ComponentwiseFusion(X, y, X + 0.5, kernel=cw, xi=5.0)
    fp = ComponentwiseFusion(X, y, X + 0.5, kernel=cw, xi=5.0, form="printed")
    a, b = fr.solve("CLARABEL"), fp.solve("ECOS")
    np.testing.assert_allclose(a["yhat_val"], b["yhat_val"], atol=1e-5)
    assert a.objective == pytest.approx(b.objective, rel=1e-8)


def test_l2_variant_closed_form_matches_solvers(additive):
    X, y, _, _ = additive
    f = ComponentwiseL2(X, y, kernel=Componentwise([RBF(1.0), Linear()]), xi=2.0)
    rep = compare(f, solvers=["CLARABEL", "OSQP", "SCS"])
    rep.assert_agree()
    cf = rep["closed_form"]
    assert cf.kkt["stationarity"] <= 1e-7 and cf.kkt["primal"] <= 1e-8


def test_fusion_qp_agrees_across_solvers(additive):
    X, y, _, _ = additive
    f = ComponentwiseFusion(X[:40], y[:40], X[40:], kernel=Componentwise(RBF(1.0)), xi=2.0)
    rep = compare(f, solvers=QP_SOLVERS)
    ok = _agreeing(rep)
    assert len(ok) >= 3 and {"CLARABEL", "ECOS", "SCS"} <= set(ok), rep.to_markdown()
    sol = f.solve("CLARABEL")
    # validation outputs are the same component functions evaluated at X_val
    Yv = f.component_outputs(sol, X[40:])
    np.testing.assert_allclose(Yv, sol["yhat_val"], atol=1e-6 * max(1.0, np.abs(Yv).max()))


def test_selected_set_and_prediction_use_selected_components(additive):
    X, y, Xt, yt = additive
    f = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=0.3)
    sol = f.solve("CLARABEL")
    S = f.selected(sol)
    assert 0 < len(S) < f.n_components
    F = f.component_outputs(sol, Xt)
    np.testing.assert_allclose(f.predict(sol, Xt), F[:, S].sum(1) + sol.scalar("b"))
    # deselected components are (numerically) zero everywhere, not only on training points
    off = np.setdiff1d(np.arange(f.n_components), S)
    assert np.abs(F[:, off]).max() <= 1e-3 * np.abs(F[:, S]).max()
    assert selected_components(np.zeros((5, 3)), scale=1.0).size == 0


def test_registry_and_random_instances():
    for name in ("componentwise_l1", "componentwise_l2", "componentwise_fusion"):
        cls = get_formulation(name)
        f = cls.random_instance(20, seed=1)
        assert f.solve("CLARABEL").ok


def test_bad_inputs(additive):
    X, y, _, _ = additive
    with pytest.raises(HyperparameterError, match="xi"):
        ComponentwiseL1(X, y, xi=0.0).solve("CLARABEL")
    with pytest.raises(HyperparameterError, match="xi"):
        ComponentwiseL1(X, y, xi=-2.0).solve("CLARABEL")
    with pytest.raises(InputError, match="1 feature"):
        ComponentwiseL1(X[:, :1], y).solve("CLARABEL")
    Xc = X.copy()
    Xc[:, 2] = 0.5
    with pytest.raises(InputError, match="constant"):
        ComponentwiseL1(Xc, y).solve("CLARABEL")
    with pytest.raises(InputError, match="out of range"):
        ComponentwiseL1(X, y, kernel=Componentwise(RBF(), columns=[1, 10])).solve("CLARABEL")
    with pytest.raises(InputError, match="features"):
        ComponentwiseFusion(X, y, X[:, :3]).solve("CLARABEL")
    with pytest.raises(HyperparameterError, match="form"):
        ComponentwiseL1(X, y, form="dense").solve("CLARABEL")
