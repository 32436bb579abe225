"""The composition core: terms × losses in RegularizedLSSVM (issue 12).

References are independent of the code under test: brute-force refits (the point removed
from the loss and the whole optimality system solved again), CLARABEL solves, the existing
LS-SVM closed form.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, NotSupportedError, TermError
from lssvm_cvx.formulations import LSSVM, RegularizedLSSVM, WeightedLSSVM
from lssvm_cvx.kernels import RBF, Linear
from lssvm_cvx.linalg.quadratic import AugmentedSystem
from lssvm_cvx.losses import Absolute, Hinge, Huber, Squared, SquaredHinge, make_loss
from lssvm_cvx.solvers import available_solvers
from lssvm_cvx.terms import (
    L1,
    GradientNorm,
    GraphLaplacian,
    GroupL1,
    Quadratic,
    Ridge,
    RKHSNorm,
    Roughness,
    Term,
    TotalVariation,
)


def _data(n=40, seed=0, d=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, d))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


QUADRATIC_TERMS = {
    "rkhs": {"rkhs": (RKHSNorm(), 0.1)},
    "rkhs+graph": {"rkhs": (RKHSNorm(), 0.1), "graph": (GraphLaplacian(5), 0.01)},
    "ridge+graph": {"ridge": (Ridge(), 0.05), "graph": (GraphLaplacian(5, sigma2=1.0), 0.1)},
    "rkhs+gradnorm": {"rkhs": (RKHSNorm(), 0.1), "grad": (GradientNorm(), 0.01)},
    "rkhs+roughness": {"rkhs": (RKHSNorm(), 0.1), "rough": (Roughness(), 0.01)},
}


def _brute_force_loo(f: RegularizedLSSVM, folds):
    """Refit with each fold's weights set to 0: the whole optimality system solved again."""
    ctx, y = f.context, f.targets()
    s = f.loss_.weights(f.n)
    P = sum(w * t.matrix(ctx) for t, w in f.terms_.values())
    out = np.empty(f.n)
    for V in folds:
        s0 = s.copy()
        s0[V] = 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alpha, b = AugmentedSystem(ctx.K, s0, P).solve(y)
        out[V] = y[V] - (ctx.K[V] @ alpha + b)
    return out


def test_lssvm_is_squared_plus_rkhs_with_weight_one_over_gamma():
    X, y = _data()
    for gamma in (0.1, 10.0, 1e4):
        f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms={"rkhs": (RKHSNorm(), 1 / gamma)})
        ref = LSSVM(X, y, kernel=RBF(0.5), gamma=gamma).solve()
        sol = f.solve()
        np.testing.assert_allclose(sol["f"], f.fitted(ref.values), atol=1e-10)


def test_weighted_lssvm_is_squared_with_sample_weight():
    X, y = _data()
    v = np.random.default_rng(3).uniform(0.5, 3.0, X.shape[0])
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), loss=Squared(sample_weight=v),
                         terms={"rkhs": (RKHSNorm(), 0.1)})
    ref = WeightedLSSVM(X, y, kernel=RBF(0.5), gamma=10.0 * v).solve()
    np.testing.assert_allclose(f.solve()["alpha"], ref["alpha"], atol=1e-10)


@pytest.mark.parametrize("name", list(QUADRATIC_TERMS))
def test_closed_form_agrees_with_clarabel(name):
    X, y = _data(d=2)
    f = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms=QUADRATIC_TERMS[name])
    assert f.has_closed_form and f.is_quadratic
    prob = f.build()
    assert prob.is_dpp()
    sol, ref = f.solve(), f.solve("CLARABEL")
    np.testing.assert_allclose(sol["f"], ref["f"], atol=1e-6)
    assert abs(sol.objective - ref.objective) <= 1e-7 * max(1.0, abs(ref.objective))
    assert f.kkt_residuals(sol)["stationarity"] < 1e-6


@pytest.mark.parametrize("name", list(QUADRATIC_TERMS))
@pytest.mark.parametrize("weighted", [False, True])
def test_exact_loo_and_kfold_match_brute_force_refits(name, weighted):
    X, y = _data(n=30, d=2, seed=1)
    s = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0]) if weighted else None
    f = RegularizedLSSVM(X, y, kernel=RBF(1.0), loss=Squared(sample_weight=s),
                         terms=QUADRATIC_TERMS[name])
    loo = f.loo_residuals()
    np.testing.assert_allclose(loo, _brute_force_loo(f, [[i] for i in range(f.n)]), atol=1e-8)
    folds = np.array_split(np.random.default_rng(0).permutation(f.n), 4)
    np.testing.assert_allclose(f.kfold_residuals(folds), _brute_force_loo(f, folds), atol=1e-8)


def test_loo_with_rkhs_matches_removing_the_point_entirely():
    """For the RKHS norm, leaving the loss = leaving the data set (representer theorem)."""
    X, y = _data(n=25)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms={"rkhs": (RKHSNorm(), 0.1)})
    loo = f.loo_residuals()
    for i in (0, 7, 24):
        m = np.arange(f.n) != i
        g = LSSVM(X[m], y[m], kernel=RBF(0.5), gamma=10.0).solve()
        pred = RBF(0.5)(X[i:i + 1], X[m]) @ g["alpha"] + g.scalar("b")
        assert abs(y[i] - pred[0] - loo[i]) < 1e-10


@pytest.mark.parametrize("name", ["rkhs", "rkhs+graph"])
def test_path_matches_pointwise_solves(name):
    X, y = _data(n=30)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=QUADRATIC_TERMS[name])
    ws = [1e-3, 0.1, 10.0]
    path = f.path("rkhs", ws)
    for k, w in enumerate(ws):
        terms = dict(f.terms_)
        terms["rkhs"] = (terms["rkhs"][0], w)
        g = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms)
        np.testing.assert_allclose(f.fitted({"alpha": path.alpha[k], "b": path.b[k]}),
                                   g.solve()["f"], atol=1e-8)
        np.testing.assert_allclose(path.residuals[k], g.loo_residuals(), atol=1e-8)


def test_non_smooth_terms_run_through_every_solver():
    from lssvm_cvx.validate import compare

    X, y = _data(n=40)
    for terms in ({"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.05)},
                  {"rkhs": (RKHSNorm(), 0.1), "tv": (TotalVariation(4), 0.02)}):
        f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms)
        assert not f.has_closed_form
        with pytest.raises(NotSupportedError, match="not quadratic"):
            f.closed_form()
        solvers = [s for s in ("CLARABEL", "OSQP", "ECOS", "SCS") if s in available_solvers()]
        report = compare(f, solvers=solvers)
        assert report.all_agree, report


def test_group_l1_needs_componentwise_kernel_and_solves():
    from lssvm_cvx.kernels import Componentwise

    X, y = _data(n=30, d=3)
    f = RegularizedLSSVM(X, y, kernel=Componentwise(RBF(1.0)),
                         terms={"rkhs": (RKHSNorm(), 0.1), "group": (GroupL1(), 0.1)})
    # CLARABEL often stops "optimal_inaccurate" on these second-order cones (objective right to
    # ~1e-12); ECOS and SCS reach "optimal"
    a, b = f.solve("ECOS"), f.solve("SCS")
    assert abs(a.objective - b.objective) < 1e-6 * a.objective
    g = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={"group": (GroupL1(), 0.1)})
    with pytest.raises(TermError, match="Componentwise"):
        g.build()


@pytest.mark.parametrize("loss", [Hinge(), SquaredHinge()])
def test_classification_losses_agree_across_solvers(loss):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(40) > 0, 1.0, -1.0)
    f = RegularizedLSSVM(X, y, kernel=RBF(2.0), loss=loss, terms={"rkhs": (RKHSNorm(), 0.5)})
    a, b = f.solve("CLARABEL"), f.solve("ECOS")
    np.testing.assert_allclose(a["f"], b["f"], atol=1e-5)
    assert abs(a.objective - b.objective) < 1e-6 * max(1, a.objective)


@pytest.mark.parametrize("loss, solver", [(Huber(0.2), "CLARABEL"), (Absolute(), "ECOS")])
def test_robust_losses_value_twin_matches_cvxpy(loss, solver):
    X, y = _data(n=30)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), loss=loss, terms={"rkhs": (RKHSNorm(), 0.1)})
    sol = f.solve(solver)  # CLARABEL may stop "optimal_inaccurate" on the degenerate LP
    assert abs(sol.objective - sol.solver_objective) < 1e-6 * max(1.0, abs(sol.objective))


def test_refit_residuals_of_non_quadratic_problem_match_separate_solves():
    X, y = _data(n=20)
    terms = {"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.05)}
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms)
    r = f.kfold_residuals([[3], [11]])
    for i in (3, 11):
        s = np.ones(20)
        s[i] = 0.0
        g = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms, loss=Squared(sample_weight=s))
        assert abs(r[i] - (y[i] - g.solve("CLARABEL")["f"][i])) < 1e-6
    assert np.isnan(r[0])


# --- bad input ------------------------------------------------------------------------------
class NotPSD(Term):
    def quadratic(self, ctx):
        return -np.eye(ctx.n)


class NotSymmetric(Term):
    def quadratic(self, ctx):
        return np.triu(np.ones((ctx.n, ctx.n)))


class Concave(Term):
    def expr(self, alpha, ctx):
        return -cp.sum_squares(alpha)

    def value(self, alpha, ctx):
        return -float(np.sum(alpha**2))


def test_bad_terms_and_losses_get_project_errors_naming_the_term():
    X, y = _data(n=20)
    for term, match in ((NotPSD(), "bad.*positive semi-definite"),
                        (NotSymmetric(), "bad.*not symmetric")):
        f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms={"rkhs": (RKHSNorm(), 1.0), "bad": (term, 1.0)})
        with pytest.raises(TermError, match=match):
            f.solve()
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms={"bad": (Concave(), 1.0)})
    with pytest.raises(TermError, match="bad.*convex"):
        f.build()
    with pytest.raises(HyperparameterError, match="weight of term 'rkhs'"):
        RegularizedLSSVM(X, y, terms={"rkhs": (RKHSNorm(), -1.0)}).solve()
    with pytest.raises(HyperparameterError, match="unknown loss 'bogus'"):
        RegularizedLSSVM(X, y, loss="bogus").solve()
    with pytest.raises(TermError, match="not a lssvm_cvx.terms.Term"):
        RegularizedLSSVM(X, y, terms={"x": (np.eye(20), 1.0)}).solve()
    with pytest.raises(HyperparameterError, match="key"):
        RegularizedLSSVM(X, y, terms={"alpha": (RKHSNorm(), 1.0)}).solve()


def test_classification_loss_requires_pm1_targets_and_quadratic_requires_matrix():
    X, y = _data(n=20)
    with pytest.raises(Exception, match="-1/\\+1"):
        RegularizedLSSVM(X, y, loss=Hinge()).solve("CLARABEL")
    with pytest.raises(TermError, match="needs a matrix"):
        RegularizedLSSVM(X, y, terms={"q": (Quadratic(), 1.0)}).solve()
    assert isinstance(make_loss("huber"), Huber)


def test_singular_gram_alpha_not_identifiable_but_fitted_values_are():
    X, y = _data(n=30)
    X = np.vstack([X, X[:5]])  # duplicate points: K is singular
    y = np.r_[y, y[:5]]
    f = RegularizedLSSVM(X, y, kernel=Linear(), terms={"ridge": (Ridge(), 1e-3),
                                                        "graph": (GraphLaplacian(3), 0.1)})
    sol, ref = f.solve(), f.solve("CLARABEL")
    np.testing.assert_allclose(sol["f"], ref["f"], atol=1e-6)


@pytest.mark.parametrize("key", ["graph", "ridge"])
@pytest.mark.parametrize("kfold", [False, True])
def test_generalized_eigen_path_matches_exact_solves(key, kfold):
    """A well-conditioned problem (ridge term: the pencil is definite) takes the one-
    decomposition path; it must agree with the exact system at every weight."""
    from lssvm_cvx.linalg import quadratic as rs

    X, y = _data(n=30, d=2)
    terms = {"ridge": (Ridge(), 0.05), "graph": (GraphLaplacian(5), 0.1)}
    f = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms=terms)
    ctx = f.context
    other = "ridge" if key == "graph" else "graph"
    P_fixed = terms[other][1] * terms[other][0].matrix(ctx)
    ws = [1e-3, 0.1, 1.0, 10.0]
    folds = np.array_split(np.arange(30), 5) if kfold else None
    gen = rs.generalized_path(ctx.K, np.ones(30), P_fixed, terms[key][0].matrix(ctx), y, ws,
                              folds=folds)
    assert gen is not None
    path = f.path(key, ws, folds=folds)
    for k, w in enumerate(ws):
        t = dict(terms)
        t[key] = (terms[key][0], w)
        g = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms=t)
        np.testing.assert_allclose(g.fitted({"alpha": path.alpha[k], "b": path.b[k]}), g.solve()["f"],
                                   atol=1e-7)
        ref = g.loo_residuals() if folds is None else g.kfold_residuals(folds)
        np.testing.assert_allclose(path.residuals[k], ref, atol=1e-7)


def test_cli_show_prints_the_equation_in_unicode():
    """``lssvm-cvx formulations --show`` prints the paper's equation as text (issue 13)."""
    from lssvm_cvx.formulations.equations import to_unicode

    text = to_unicode(r"\min_{w,b,e}\ \tfrac12 w^\top w + \tfrac\gamma2\sum_i e_i^2 \tag{1}")
    assert text.startswith("min") and "½" in text and "γ/2" in text and text.endswith("(1)")
    assert "\\" not in text
