"""Verification that holds for anything a user composes (issue 25).

User terms and losses written *only* with ``expr``/``value`` (no epigraph, no subgradient) go
through ``compare`` and ``check_formulation`` with every solver agreeing: the verdict rests on
each point's conic certificate, not on a "gradient" cvxpy hands back for ``norm1`` at a kink.
A wrong NumPy twin is flagged naming the piece; user code that breaks fails with a
``TermError`` naming the term or loss and the method.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from lssvm_cvx import RegularizedLSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.exceptions import TermError
from lssvm_cvx.formulations import LSSVM, RegularizedLSSVM
from lssvm_cvx.harness.conformance import check_formulation
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import Absolute, Hinge, Loss
from lssvm_cvx.terms import RKHSNorm, Term
from lssvm_cvx.validate import compare

SOLVERS = ["CLARABEL", "ECOS", "SCS", "OSQP"]


# --- user terms and losses, written as a user would (expr/value only) -------------------------
class ChainTV(Term):
    """Total variation of the fitted values along the (sorted) chain of inputs."""

    def expr(self, alpha, ctx):
        D = np.diff(np.eye(ctx.n), axis=0)
        return cp.norm1(D @ ctx.K @ alpha)

    def value(self, alpha, ctx):
        return float(np.abs(np.diff(ctx.K @ alpha)).sum())


class ElasticNet(Term):
    def expr(self, alpha, ctx):
        return cp.norm1(alpha) + 0.5 * cp.sum_squares(alpha)

    def value(self, alpha, ctx):
        return float(np.abs(alpha).sum() + 0.5 * alpha @ alpha)


class GroupNorm(Term):
    """Σ_g ||α_g||₂ over user-chosen blocks."""

    def __init__(self, n_groups=6):
        self.n_groups = n_groups

    def _blocks(self, n):
        return np.array_split(np.arange(n), self.n_groups)

    def expr(self, alpha, ctx):
        return sum(cp.norm(alpha[g], 2) for g in self._blocks(ctx.n))

    def value(self, alpha, ctx):
        return float(sum(np.linalg.norm(alpha[g]) for g in self._blocks(ctx.n)))


class MaxAffine(Term):
    """max_j (a_j'α + c_j) over a few linear functionals and their negatives (bounded below)."""

    def _data(self, n):
        rng = np.random.default_rng(1)
        A = rng.standard_normal((4, n)) / np.sqrt(n)
        return np.vstack([A, -A]), np.array([0.0, 0.1, -0.1, 0.05, 0.0, 0.1, -0.1, 0.05])

    def expr(self, alpha, ctx):
        A, c = self._data(ctx.n)
        return cp.max(A @ alpha + c)

    def value(self, alpha, ctx):
        A, c = self._data(ctx.n)
        return float(np.max(A @ alpha + c))


class Pinball(Loss):
    """Σ s_i ρ_τ(y_i - f_i), the quantile loss."""

    task = "regression"

    def __init__(self, tau=0.9, sample_weight=None):
        self.tau = tau
        self.sample_weight = sample_weight

    def epigraph(self, y, f, s):
        r = y - f
        return cp.sum(cp.multiply(s, self.tau * cp.pos(r) + (1 - self.tau) * cp.pos(-r))), {}, {}

    def value(self, y, f):
        r = np.asarray(y) - np.asarray(f)
        rho = np.where(r > 0, self.tau * r, (self.tau - 1) * r)
        return float(np.sum(self.weights(r.size) * rho))


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(-3, 3, (n, 1)), axis=0)
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


CASES = {
    "tv": lambda: ({"rkhs": (RKHSNorm(), 0.1), "tv": (ChainTV(), 0.01)}, None),
    "elastic_net": lambda: ({"rkhs": (RKHSNorm(), 0.1), "enet": (ElasticNet(), 0.05)}, None),
    "group_norm": lambda: ({"rkhs": (RKHSNorm(), 0.1), "group": (GroupNorm(), 0.05)}, None),
    "max_affine": lambda: ({"rkhs": (RKHSNorm(), 0.1), "max": (MaxAffine(), 0.5)}, None),
    "pinball": lambda: ({"rkhs": (RKHSNorm(), 0.1)}, Pinball(0.9)),
}


#: solvers that stop without a point on a case (a failure of the solver, reported as such with
#: its status, not a wrong verdict): ECOS reaches a "NaN dead end" on the pinball loss at
#: N = 300 with one BLAS thread (the test suite's setting) and cvxpy reports solver_error
NO_POINT = {("pinball", 300): {"ECOS"}}


@pytest.mark.parametrize("n", [60, 300])
@pytest.mark.parametrize("case", sorted(CASES))
def test_user_composition_every_solver_agrees(case, n):
    terms, loss = CASES[case]()
    X, y = _data(n)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms, loss=loss)
    rep = check_formulation(f, solvers=SOLVERS, time_limit=120)
    cmp = rep.report
    no_point = {r.backend for r in cmp.rows if r.reason.startswith("no point")}
    assert no_point <= NO_POINT.get((case, n), set()), cmp.to_markdown()
    if not no_point:
        assert rep.ok and cmp.all_agree, str(rep)
    assert not cmp.formulation_failures, cmp.to_markdown()
    ran = [r for r in cmp.rows if r.verdict != "n/a" and r.backend not in no_point]
    assert {r.backend for r in ran} >= {"CLARABEL", "SCS"} | ({"ECOS"} - no_point)
    assert all(r.verdict == "yes" for r in ran), cmp.to_markdown()
    if case in ("tv", "elastic_net", "max_affine", "pinball"):  # LP-representable: OSQP too
        assert cmp["OSQP"].verdict == "yes"
    # the verdict rests on certificates, never on a smooth stationarity of a non-smooth atom
    for r in ran:
        assert np.isnan(r.kkt["stationarity"]) and "non-smooth" in (r.kkt_note or "")
        assert r.certificate is not None and np.isfinite(r.certificate.score)


def test_false_no_of_the_issue_is_gone():
    """The issue's reproduction: ``cp.norm1(α) + ½||α||²`` gave NO on all four solvers with
    "stationarity 0.011-0.10 > tol" (cvxpy's sign(α) "gradient" at α_i ≈ 0)."""
    X, y = _data(60)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5),
                         terms={"rkhs": (RKHSNorm(), 0.1), "enet": (ElasticNet(), 0.05)})
    rep = compare(f, SOLVERS)
    assert rep.all_agree, rep.to_markdown()
    assert "stationarity" not in " ".join(r.reason for r in rep.rows)


# --- the twin is part of the verdict ----------------------------------------------------------
class TenfoldTwin(ElasticNet):
    def value(self, alpha, ctx):
        return 10 * super().value(alpha, ctx)


class DroppedTwin(ElasticNet):
    def value(self, alpha, ctx):
        return 0.0


@pytest.mark.parametrize("cls", [TenfoldTwin, DroppedTwin])
def test_a_wrong_term_twin_is_flagged_naming_the_term_not_the_solvers(cls):
    X, y = _data(60)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5),
                         terms={"rkhs": (RKHSNorm(), 0.1), "enet": (cls(), 0.05)})
    rep = compare(f, ["CLARABEL", "SCS"])
    assert not rep.all_agree
    assert [r.verdict for r in rep.rows] == ["yes", "yes"]  # the solvers are not charged
    assert len(rep.formulation_failures) == 1
    assert f"term 'enet' ({cls.__name__})" in rep.formulation_failures[0]
    assert "term 'rkhs'" not in " ".join(rep.formulation_failures)
    conf = check_formulation(f, solvers=["CLARABEL"])
    assert [c.name for c in conf.failed()] == ["objective twin"]
    assert "enet" in conf.failed()[0].detail


def test_a_wrong_loss_twin_is_flagged_naming_the_loss():
    class HalfSquared(Pinball):  # its twin is another loss than its epigraph
        def value(self, y, f):
            return 0.5 * super().value(y, f)

    X, y = _data(40)
    with pytest.raises(TermError, match="loss HalfSquared: value\\(\\) and epigraph\\(\\) disagree"):
        RegularizedLSSVM(X, y, kernel=RBF(0.5), loss=HalfSquared(0.7)).build()


def test_a_formulation_twin_that_drops_a_term_is_flagged():
    class NoRegularizer(LSSVM):  # the primal of eq. (1) without ½||w||²
        def objective(self, values):
            e = values["e"]
            return float(0.5 * self.gamma * e @ e)

    f = NoRegularizer.random_instance(30)
    rep = compare(f, ["CLARABEL"])
    assert not rep.all_agree and "NumPy twin of objective" in rep.formulation_failures[0]
    assert all(r.verdict == "yes" for r in rep.rows)


# --- user code fails clearly ------------------------------------------------------------------
def test_a_non_convex_user_loss_is_named():
    class Concave(Loss):
        def epigraph(self, y, f, s):
            return cp.sum(cp.multiply(s, cp.sqrt(cp.abs(y - f) + 1))), {}, {}

        def value(self, y, f):
            return float(np.sum(np.sqrt(np.abs(y - f) + 1)))

    X, y = _data(20)
    with pytest.raises(TermError, match="loss Concave: .*not convex"):
        RegularizedLSSVM(X, y, loss=Concave()).build()


class Raises(Term):
    def __init__(self, where="quadratic"):
        self.where = where

    def quadratic(self, ctx):
        if self.where == "quadratic":
            return np.eye(ctx.n)[:, [ctx.n]]  # IndexError inside user code
        return np.eye(ctx.n)

    def expr(self, alpha, ctx):
        raise IndexError("index 99 is out of bounds")

    def value(self, alpha, ctx):
        raise IndexError("index 99 is out of bounds")


@pytest.mark.parametrize("where", ["quadratic", "expr", "value"])
def test_an_exception_in_user_term_code_is_a_term_error_naming_term_and_method(where):
    X, y = _data(20)
    term = Raises(where)
    if where != "quadratic":  # a general term: remove quadratic so expr/value are used
        term = type("RaisesGeneral", (Term,), {"expr": Raises.expr, "value": Raises.value})()
    f = RegularizedLSSVM(X, y, terms={"bad": (term, 0.1)})
    with pytest.raises(TermError) as info:
        if where == "quadratic":
            f.closed_form()
        elif where == "expr":
            f.build()
        else:
            f.objective({"alpha": np.zeros(20), "b": 0.0})
    assert "term 'bad'" in str(info.value) and f"{where}()" in str(info.value)
    assert isinstance(info.value.__cause__, IndexError)


def test_an_exception_in_user_loss_code_is_a_term_error_naming_the_loss():
    class Broken(Pinball):
        def value(self, y, f):
            raise ZeroDivisionError("oops")

    X, y = _data(20)
    f = RegularizedLSSVM(X, y, loss=Broken())
    with pytest.raises(TermError, match="loss Broken: value\\(\\) raised ZeroDivisionError") as info:
        f.objective({"alpha": np.zeros(20), "b": 0.0})
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_estimators_refuse_a_loss_of_the_other_task():
    X, y = _data(20)
    with pytest.raises(TermError, match="Absolute is a regression loss"):
        RegularizedLSSVMClassifier(loss=Absolute()).fit(X, (y > 0).astype(int))
    with pytest.raises(TermError, match="Hinge is a classification loss"):
        RegularizedLSSVMRegressor(loss=Hinge()).fit(X, y)


def test_a_loss_whose_epigraph_ignores_the_weights_is_refused():
    class NoWeights(Pinball):
        def epigraph(self, y, f, s):
            r = y - f
            return cp.sum(self.tau * cp.pos(r) + (1 - self.tau) * cp.pos(-r)), {}, {}

    X, y = _data(20)
    with pytest.raises(TermError, match="loss NoWeights: epigraph\\(\\) ignores its weights s"):
        RegularizedLSSVM(X, y, loss=NoWeights()).build()


def test_a_loss_whose_twin_ignores_the_weights_is_refused():
    class TwinIgnoresWeights(Pinball):
        def value(self, y, f):
            r = np.asarray(y) - np.asarray(f)
            return float(np.sum(np.where(r > 0, self.tau * r, (self.tau - 1) * r)))

    X, y = _data(20)
    with pytest.raises(TermError, match="value\\(\\) ignores sample_weight"):
        RegularizedLSSVM(X, y, loss=TwinIgnoresWeights()).build()


def test_user_loss_leave_one_out_refits_really_leave_the_point_out():
    """The silent failure the weight checks prevent: LOO residuals equal to the training
    residuals.  With a loss that uses s, the refit residuals differ from the fit's."""
    X, y = _data(25)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), loss=Pinball(0.5),
                         terms={"rkhs": (RKHSNorm(), 0.1)})
    fit = f.solve("CLARABEL")
    loo = f.kfold_residuals([np.array([i]) for i in range(5)])
    train = y[:5] - fit["f"][:5]
    assert np.max(np.abs(loo[:5] - train)) > 1e-3


# --- the closed form's accuracy is measured, and recovered ------------------------------------
def test_ridge_on_a_singular_system_is_refined_away_and_reported():
    """An RBF Gram that is numerically singular under a graph term: the augmented system needs
    the stabilising ridge, which alone left the objective up to 3e-7 (relative) above a tight
    CLARABEL solve; iterative refinement against the exact system brings it within 1e-8, and
    the closed form's certificate says what was done.  (Without refinement, on this seed the
    objective is 3.2e-7 above the tight CLARABEL solve's; refined, 6e-8 below it.)  Since the
    thirteenth session the graph term, declared on the fitted values, is solved in the range
    of K (no ridge); the augmented system is checked here with the same matrix ``K L K`` given
    as a plain quadratic term, and the range's objective is held to the same bound."""
    from lssvm_cvx.terms import GraphLaplacian, Quadratic

    rng = np.random.default_rng(3)
    X = np.sort(rng.uniform(-3, 3, (300, 1)), axis=0)
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(300)
    graph = GraphLaplacian(n_neighbors=5)
    f = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={
        "rkhs": (RKHSNorm(), 1e-3), "graph": (Quadratic(graph.quadratic), 1e-3)})
    on_f = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={
        "rkhs": (RKHSNorm(), 1e-3), "graph": (graph, 1e-3)})
    assert on_f.decomposition().representation() == "range"
    cf = f.solve()
    diag = cf.extras["system"]
    assert diag["jitter"] > 0 and diag["refinement_steps"] >= 1 and diag["system_residual"] < 1e-12
    tight = f.solve("CLARABEL", options={"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12,
                                         "tol_feas": 1e-12}, accept_inaccurate=True)
    f_cf, f_cl = f.objective(cf.values), f.objective(tight.values)
    assert f_cf <= f_cl + 1e-8 * abs(f_cl), (f_cf, f_cl)
    cert = f.certificate(cf)
    assert cert.extras["jitter"] == diag["jitter"] and "ridge" in cert.describe()
    rng_cf = on_f.solve()
    assert rng_cf.extras["system"]["jitter"] == 0.0
    assert on_f.objective(rng_cf.values) <= f_cl + 1e-8 * abs(f_cl)


def test_pareto_krr_sum_closed_form_solves_the_builders_problem():
    """The twin check found it: the closed form used the full T'M₊T while the builder wrote the
    PSD part psd_eigh keeps; the closed form sat 1.7e-6 (in c) from three solvers that agreed
    with each other to 3.5e-9.  Both now use the builder's matrix."""
    from lssvm_cvx.formulations import get_formulation

    f = get_formulation("pareto_krr_sum").random_instance(60)
    cf = f.solve()
    cl = f.solve("CLARABEL")
    assert np.max(np.abs(cf["c"] - cl["c"])) / np.max(np.abs(cl["c"])) < 1e-8
    rep = compare(f, ["CLARABEL", "SCS"])
    assert rep.all_agree and rep.reference in ("closed_form", "CLARABEL", "SCS")
    assert rep["closed_form"].verdict == "yes" and not rep["closed_form"].non_identifiable


def test_an_ill_conditioned_problem_is_a_disagreement_not_a_no():
    """A Gram with eigenvalues at round-off and a gradient-norm term of weight 1e-3: the optimum
    (α of size 1e8 in 40-digit arithmetic) is out of reach in double precision; every
    backend's point is certified at 1e-8 yet their objectives differ by 1e-3.  The verdict is
    'disagreement' for each of them and for the reference, with the lowest objective named."""
    from lssvm_cvx.terms import GradientNorm

    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(-3, 3, (100, 1)), axis=0)
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(100)
    f = RegularizedLSSVM(X, y, kernel=RBF(10.0), terms={"rkhs": (RKHSNorm(), 1e-4),
                                                        "grad": (GradientNorm(), 1e-3)})
    rep = compare(f, ["CLARABEL", "SCS"])
    assert not rep.all_agree
    assert {r.verdict for r in rep.rows} == {"disagreement"}, rep.to_markdown()
    assert any("lowest objective" in n for n in rep.notes)
