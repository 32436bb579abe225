"""The smoothly thresholding term on the composition core and its graduated non-convexity
driver (lssvm_cvx.terms.SmoothlyThresholding, lssvm_cvx.selection.gnc_terms)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import RegularizedLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, TermError
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF, Componentwise
from lssvm_cvx.losses import Squared
from lssvm_cvx.selection.gnc_terms import gnc_fit, gnc_kfold_residuals
from lssvm_cvx.terms import RKHSNorm, SmoothlyThresholding


def additive(seed: int = 0, n: int = 60, d: int = 5):
    """y = sin(πx₁) + x₂ + noise: components 0 and 1 are relevant, the others are not."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(np.pi * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y


def composition(X, y, lam=1.0, penalty="stp", **kw):
    return RegularizedLSSVM(X, y, kernel=Componentwise(RBF(1.0)),
                            terms={"rkhs": (RKHSNorm(), 1e-2),
                                   "stp": (SmoothlyThresholding(penalty), lam)}, **kw)


@pytest.mark.parametrize("penalty", ["stp", "scad", "hard", "l1"])
def test_majorizer_lies_above_and_touches(penalty):
    X, y = additive()
    form = composition(X, y, penalty=penalty)
    term, ctx = form.terms_["stp"][0], form.context
    rng = np.random.default_rng(1)
    for _ in range(5):
        a0 = rng.standard_normal(X.shape[0]) * 10 ** rng.uniform(-3, 0)
        P, c = term.majorizer(a0, ctx)
        assert np.linalg.eigvalsh(P)[0] >= -1e-9 * np.abs(P).max()
        assert term.value(a0, ctx) == pytest.approx(0.5 * a0 @ P @ a0 + c, rel=1e-10, abs=1e-12)
        for _ in range(20):
            a = a0 + rng.standard_normal(a0.size) * 10 ** rng.uniform(-4, 0)
            assert term.value(a, ctx) <= 0.5 * a @ P @ a + c + 1e-10 * (1 + abs(c))


def test_majorizer_is_tangent_finite_differences():
    X, y = additive()
    form = composition(X, y)
    term, ctx = form.terms_["stp"][0], form.context
    rng = np.random.default_rng(2)
    a0 = rng.standard_normal(X.shape[0]) * 0.1
    P, _ = term.majorizer(a0, ctx)
    for _ in range(5):
        d = rng.standard_normal(a0.size)
        h = 1e-6
        fd = (term.value(a0 + h * d, ctx) - term.value(a0 - h * d, ctx)) / (2 * h)
        assert fd == pytest.approx(d @ P @ a0, rel=1e-5, abs=1e-9)


def test_value_is_the_penalty_of_component_rkhs_norms():
    X, y = additive()
    form = composition(X, y)
    term, ctx = form.terms_["stp"][0], form.context
    a = np.random.default_rng(3).standard_normal(X.shape[0])
    Ks = Componentwise(RBF(1.0)).components(X)
    s = np.array([np.sqrt(a @ Kp @ a) for Kp in Ks])
    st = np.sqrt(s**2 + term.eps**2) - term.eps
    assert term.value(a, ctx) == pytest.approx(np.sum(3.7 * st / (1 + 3.7 * st)), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gnc_fit_descends_converges_and_selects_the_structure(seed):
    X, y = additive(seed)
    res = gnc_fit(composition(X, y, lam=1.0))
    assert res.converged
    for stage, js in res.stage_histories().items():
        assert all(b <= a * (1 + 1e-8) for a, b in zip(js, js[1:])), stage
    assert res.selected["stp"].tolist() == [0, 1]
    # the reported objective is the composition's J_0 at the returned point
    form = composition(X, y, lam=1.0)
    ctx, a, b = form.context, res.solution["alpha"], res.solution.scalar("b")
    j0 = (0.5 * np.sum((y - ctx.K @ a - b) ** 2) + 1e-2 * 0.5 * a @ ctx.K @ a
          + form.terms_["stp"][0].value(a, ctx))
    assert res.solution.objective == pytest.approx(j0, rel=1e-12)


def test_gnc_fixed_point_is_stationary_for_the_nonconvex_objective():
    """The gradient of J_0 vanishes at the returned point.  The penalty's gradient is the
    majorizer's (tangency, checked by finite differences above); finite differences of J_0
    itself are useless here: the smoothed kink of a dead component has curvature ~1/ε."""
    X, y = additive(0)
    form = composition(X, y, lam=1.0)
    res = gnc_fit(form)
    assert res.converged
    ctx, a, b = form.context, res.solution["alpha"], res.solution.scalar("b")
    P, _ = form.terms_["stp"][0].majorizer(a, ctx)
    r = y - ctx.K @ a - b
    grad = -ctx.K @ r + 1e-2 * ctx.K @ a + P @ a
    assert np.linalg.norm(grad) <= 1e-6 * np.linalg.norm(ctx.K @ y)
    assert abs(r.sum()) <= 1e-8 * np.abs(y).sum()


def test_cvxpy_steps_reach_the_closed_form_point():
    X, y = additive(1, n=40, d=3)
    closed = gnc_fit(composition(X, y, lam=1.0))
    conic = gnc_fit(composition(X, y, lam=1.0), solver="CLARABEL", tol=1e-7, max_final=200)
    assert conic.selected["stp"].tolist() == closed.selected["stp"].tolist() == [0, 1]
    # the interior-point steps are less accurate on the stiff majorizer of a dead component
    # (weight ℓ'(0)/2ε): the same structure, a point within 1e-3, an objective no better
    f1, f2 = closed.solution["f"], conic.solution["f"]
    assert np.linalg.norm(f1 - f2) <= 1e-3 * np.linalg.norm(f1)
    assert closed.solution.objective <= conic.solution.objective * (1 + 1e-8)
    assert conic.solution.objective <= closed.solution.objective * (1 + 1e-3)


def test_kfold_residuals_are_refits():
    X, y = additive(0, n=40, d=3)
    form = composition(X, y, lam=1.0)
    folds = [np.arange(0, 10), np.arange(10, 25), np.arange(25, 40)]
    r = gnc_kfold_residuals(form, folds)
    for V in folds:
        T = np.setdiff1d(np.arange(40), V)
        sol = gnc_fit(composition(X[T], y[T], lam=1.0)).solution
        Kvt = Componentwise(RBF(1.0))(X[V], X[T])
        assert np.allclose(r[V], y[V] - Kvt @ sol["alpha"] - sol.scalar("b"), atol=1e-8)


def test_estimator_fits_by_gnc_and_tunes_the_weight():
    X, y = additive(2)
    terms = {"rkhs": (RKHSNorm(), 1e-2), "stp": (SmoothlyThresholding(), 1.0)}
    est = RegularizedLSSVMRegressor(kernel=Componentwise(RBF(1.0)), terms=terms).fit(X, y)
    ref = gnc_fit(composition(X, y, lam=1.0)).solution
    assert np.allclose(est.dual_coef_, ref["alpha"], atol=1e-10)
    assert np.allclose(est.predict(X), ref["f"], atol=1e-8)
    est.set_params(terms__stp=3.0)
    assert est.get_params()["terms__stp"] == 3.0
    cv = RegularizedLSSVMRegressor(kernel=Componentwise(RBF(1.0)), terms=terms, selection="kfold",
                                   cv=3, weight_grid={"stp": [0.1, 1.0, 10.0]}, random_state=0)
    cv.fit(X, y)
    assert len(cv.cv_results_["params"]) == 3
    best = int(np.argmin(cv.cv_results_["rank_test_score"]))
    assert cv.terms_["stp"][1] == cv.cv_results_["params"][best]["terms__stp"]


def test_bad_input_names_the_term():
    X, y = additive()
    form = composition(X, y)
    with pytest.raises(TermError, match="'stp'.*not convex"):
        form.build()
    with pytest.raises(TermError, match="not convex"):
        form.closed_form()
    with pytest.raises(TermError, match="non-convex"):
        gnc_fit(RegularizedLSSVM(X, y, terms={"rkhs": (RKHSNorm(), 1.0)}))
    with pytest.raises(HyperparameterError, match="schedule"):
        gnc_fit(form, schedule=[1.0, 0.5])
    with pytest.raises(TermError, match="Componentwise"):
        gnc_fit(RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={"stp": (SmoothlyThresholding(), 1.0)}))
    with pytest.raises(TermError, match="penalty"):
        gnc_fit(composition(X, y, penalty="mcp"))
    with pytest.raises(TermError, match="eps"):
        bad = RegularizedLSSVM(X, y, kernel=Componentwise(RBF(1.0)),
                               terms={"stp": (SmoothlyThresholding(eps=0.0), 1.0)})
        gnc_fit(bad)
    with pytest.raises(HyperparameterError, match="max_final"):
        gnc_fit(form, max_final=0)
    # weighted loss: zero-weight rows are allowed in the SVD step
    w = np.ones(X.shape[0])
    res = gnc_fit(RegularizedLSSVM(X, y, kernel=Componentwise(RBF(1.0)), loss=Squared(w),
                                   terms=form.terms_))
    assert res.converged
