"""The certificates behind the harness's verdicts (lssvm_cvx.certificates): the conic residuals
on hand-made cone programs with known optimal primal-dual points, the dual-sign convention of
every installed solver's interface, and the Lagrangian certificate of the closed form."""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from lssvm_cvx.certificates import Certificate, conic_certificate
from lssvm_cvx.formulations import get_formulation
from lssvm_cvx.solvers import SOLVERS, available_solvers, profile, solve_problem

INSTALLED = [s for s in SOLVERS if s in available_solvers()]


def _lp():
    """min x1 + x2  s.t.  x1 + x2 - 1 = 0 (zero cone), x ≥ 0 (nonnegative cone):
    optimum 1 with multiplier y0 = 1 and y = (0, 0) on the bounds."""
    A = sp.csr_array(np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]))
    b = np.array([-1.0, 0.0, 0.0])
    return None, np.array([1.0, 1.0]), 0.0, A, b


def test_lp_optimum_has_a_zero_certificate_and_perturbations_show():
    P, q, d, A, b = _lp()
    x, y = np.array([0.3, 0.7]), np.array([1.0, 0.0, 0.0])
    c = conic_certificate(P, q, d, A, b, zero=1, nonneg=2, x=x, y=y)
    assert max(c.primal, c.dual, c.gap) < 1e-15
    # infeasible primal
    c = conic_certificate(P, q, d, A, b, zero=1, nonneg=2, x=np.array([0.5, 0.7]), y=y)
    assert c.primal == pytest.approx(0.2 / 1.2)
    # a dual point outside the dual cone
    c = conic_certificate(P, q, d, A, b, zero=1, nonneg=2, x=x, y=np.array([1.0, -0.5, 0.5]))
    assert c.dual > 0.1
    # a stationary dual point whose complementarity fails: the gap shows it
    c = conic_certificate(P, q, d, A, b, zero=1, nonneg=2, x=x, y=np.array([0.9, 0.1, 0.1]))
    assert c.dual < 1e-15 and c.gap == pytest.approx(0.1)


def test_second_order_cone_projection_and_quadratic_objective():
    """min ½||x||² + q'x s.t. (t, x) ∈ SOC with t = 1 fixed: the unconstrained minimiser -q
    lies outside the ball when ||q|| > 1; the optimum is -q/||q|| with y = (||q|| - 1)(1, -x...)."""
    q = np.array([3.0, 4.0])  # ||q|| = 5
    # variables z = (x1, x2); cone row: (1, x) ∈ SOC  ->  A z + b with A = [[0, 0], [1, 0], [0, 1]]
    A = sp.csr_array(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    b = np.array([1.0, 0.0, 0.0])
    P = sp.identity(2, format="csr")
    x = -q / 5.0
    lam = 5.0 - 1.0  # stationarity x + q = A'y with y = lam * (1, -x)... in the cone's dual
    y = np.concatenate([[lam], -lam * x])
    c = conic_certificate(P, q, 0.0, A, b, zero=0, nonneg=0, soc=[3], x=x, y=y)
    assert max(c.primal, c.dual, c.gap) < 1e-14, c
    c = conic_certificate(P, q, 0.0, A, b, zero=0, nonneg=0, soc=[3], x=2 * x, y=y)
    assert c.primal > 0.1  # ||2x|| = 2 > t = 1


def test_bounds_take_their_multipliers_from_the_residual():
    # min x  s.t.  x ≥ 0 as a bound: x = 0, the bound's multiplier is 1
    A = sp.csr_array((0, 1))
    c = conic_certificate(None, np.array([1.0]), 0.0, A, np.zeros(0), zero=0, nonneg=0,
                          x=np.array([0.0]), y=np.zeros(0), lower=np.array([0.0]))
    assert max(c.primal, c.dual, c.gap) == 0.0
    c = conic_certificate(None, np.array([1.0]), 0.0, A, np.zeros(0), zero=0, nonneg=0,
                          x=np.array([0.5]), y=np.zeros(0), lower=np.array([0.0]))
    assert c.gap == pytest.approx(0.5 / 1.0)  # feasible, not optimal: the gap says so


def test_mismatched_shapes_give_nan_with_a_reason_not_an_error():
    P, q, d, A, b = _lp()
    c = conic_certificate(P, q, d, A, b, zero=2, nonneg=2, x=np.zeros(2), y=np.zeros(3))
    assert c.score == math.inf and "shapes" in c.note


def test_failures_and_passes_use_the_profile():
    tol = profile("CLARABEL").tol
    good = Certificate(1e-12, 1e-12, 1e-12, "x")
    assert good.passes(tol) and good.failures(tol) == []
    bad = Certificate(1e-3, math.nan, 1e-12, "x")
    assert bad.failures(tol) == [f"primal 1.0e-03 > {tol.feas:g}", "dual residual not evaluated"]


@pytest.mark.parametrize("solver", INSTALLED)
@pytest.mark.parametrize("name", ["regularized_lssvm_l1", "l2svm_dual", "areg_stability"])
def test_every_installed_solver_certifies_its_optimal_point(solver, name):
    """The sign of the multipliers differs between cvxpy's conic and QP interfaces (QP solvers
    get the zero-cone rows negated): an optimal point of every installed solver must have a
    small dual residual in the form it was given, for equalities, inequalities and cones."""
    f = get_formulation(name).random_instance(30)
    prob = f.problem
    f._set_parameters(prob)
    info = solve_problem(prob, solver, raise_on_failure=False, time_limit=30)
    if info["status"] != "optimal":
        pytest.skip(f"{solver} on {name}: {info['status']} ({info['error']})")
    c = info["certificate"]
    assert c is not None and f"passed to {solver}" in c.form
    assert c.primal < 1e-6 and c.dual < 1e-5 and c.gap < 1e-5, c.describe()


def test_closed_form_certificate_is_lagrangian_and_carries_the_system_diagnostics():
    f = get_formulation("regularized_lssvm").random_instance(40)
    sol = f.solve()
    cert = f.certificate(sol)
    assert cert.form == "Lagrangian of the cvxpy problem"
    assert cert.score < 1e-10
    assert "jitter" in cert.extras


def test_smooth_stationarity_is_never_evaluated_for_a_non_smooth_problem():
    """cvxpy returns sign(α) as the 'gradient' of norm1 at α_i = 0: a stationarity built on it
    made optimal points look wrong.  With a non-smooth atom anywhere, stationarity is NaN."""
    x = cp.Variable(3, name="x")
    from lssvm_cvx.formulations.base import BuiltProblem, kkt_report

    prob = BuiltProblem(cp.Minimize(cp.norm1(x) + cp.sum_squares(x - np.array([2.0, 0.5, 0]))),
                        {}, vars={"x": x})
    prob.solve(solver="CLARABEL")
    kkt, note = kkt_report(prob, {"x": np.array([1.5, 0.0, 0.0])}, {})
    assert math.isnan(kkt["stationarity"]) and "norm1" in note
