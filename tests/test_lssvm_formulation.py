"""The classical LS-SVM formulations (AReg paper eq. 1-2, 57, 74-75): closed form against an
independent dense solve, against every cvxpy solver (harness), DPP re-solves, KKT residuals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lssvm_cvx.formulations import FORMULATIONS, LSSVM, LSSVMClassification, WeightedLSSVM, get_formulation
from lssvm_cvx.kernels import RBF, Linear, Polynomial
from lssvm_cvx.validate import compare, deviation


def dense_bordered(Omega, a, rhs, inv_gamma):
    """Independent reference: the full (N+1)x(N+1) bordered system by numpy.linalg.solve."""
    n = len(rhs)
    A = np.zeros((n + 1, n + 1))
    A[0, 1:] = a
    A[1:, 0] = a
    A[1:, 1:] = Omega + np.diag(np.broadcast_to(inv_gamma, n))
    z = np.linalg.solve(A, np.r_[0.0, rhs])
    return z[1:], z[0]


@pytest.mark.parametrize("kernel", [RBF(0.8), Linear(), Polynomial(2, 1.0)])
def test_regression_closed_form_solves_eq2(kernel, rng):
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    f = LSSVM(X, y, kernel=kernel, gamma=7.0)
    sol = f.solve()
    a, b = dense_bordered(kernel(X), np.ones(40), y, 1 / 7.0)
    np.testing.assert_allclose(sol["alpha"], a, rtol=1e-9, atol=1e-12)
    assert sol.scalar("b") == pytest.approx(b, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(sol["e"], sol["alpha"] / 7.0)  # e_i gamma = alpha_i (§2.1)
    assert abs(sol["alpha"].sum()) < 1e-10


def test_weighted_closed_form_solves_eq75(rng):
    X = rng.normal(size=(30, 2))
    y = X[:, 0] ** 2 + 0.1 * rng.normal(size=30)
    g = rng.uniform(0.5, 50, size=30)
    sol = WeightedLSSVM(X, y, kernel=RBF(1.0), gamma=g).solve()
    a, b = dense_bordered(RBF(1.0)(X), np.ones(30), y, 1 / g)
    np.testing.assert_allclose(sol["alpha"], a, rtol=1e-9, atol=1e-12)
    assert sol.scalar("b") == pytest.approx(b, rel=1e-9, abs=1e-12)


def test_classifier_solves_eq57_with_any_two_labels(rng):
    X = rng.normal(size=(36, 2))
    labels = np.where(X[:, 0] + 0.3 * rng.normal(size=36) > 0, "spam", "ham")
    f = LSSVMClassification(X, labels, kernel=RBF(1.0), gamma=5.0)
    sol = f.solve()
    ypm = np.where(labels == "spam", 1.0, -1.0)  # sorted labels: "ham" -> -1, "spam" -> +1
    np.testing.assert_array_equal(f.classes, ["ham", "spam"])
    K = RBF(1.0)(X)
    a, b = dense_bordered(K * np.outer(ypm, ypm), ypm, np.ones(36), 1 / 5.0)
    np.testing.assert_allclose(sol["alpha"], a, rtol=1e-9, atol=1e-12)
    assert sol.scalar("b") == pytest.approx(b, rel=1e-9, abs=1e-12)
    # the classifier is the regression LS-SVM on the +-1 targets with alpha~ = y * alpha
    reg = LSSVM.from_gram(K, ypm, gamma=5.0).solve()
    np.testing.assert_allclose(reg["alpha"], ypm * sol["alpha"], rtol=1e-9, atol=1e-12)
    acc = np.mean(np.sign(f.decision_function(sol, X)) == ypm)
    assert acc > 0.8


def test_builder_names_dpp_and_no_recompile():
    f = LSSVM.random_instance(40, seed=3)
    prob = f.build()
    assert {v.name() for v in prob.variables()} == {"alpha", "b", "e", "w"}
    assert set(prob.cons) == {"fit", "kkt"} and set(prob.params) == {"gamma"}
    assert prob.is_dpp()
    f.solve("CLARABEL")
    program = f.problem._cache.param_prog  # cvxpy's compiled parametric program
    f.gamma = 123.0
    sol = f.solve("CLARABEL")
    assert f.problem._cache.param_prog is program, "changing gamma recompiled the problem"
    cf = f.solve("closed_form")
    assert deviation(sol["alpha"], cf["alpha"])[1] < 1e-6


def test_harness_report_is_json_and_agrees():
    report = compare(LSSVM.random_instance(60, seed=1))
    json.dumps(report.to_dict(), allow_nan=False)
    assert report.reference == "closed_form"
    assert [r.backend for r in report.rows][:1] == ["closed_form"]
    assert "| backend |" in report.to_markdown()
    report.assert_agree()


@pytest.mark.parametrize("name", ["lssvm", "weighted_lssvm", "lssvm_classifier"])
def test_each_solver_agrees_within_its_profile(name, solver, tol):
    f = get_formulation(name).random_instance(50, seed=7)
    cf = f.solve()
    sol = f.solve(solver, raise_on_failure=False)
    assert sol.ok, sol.status
    for v in ("alpha", "b", "e"):
        ab, rel = deviation(sol[v], cf[v])
        assert min(ab, rel) <= tol.rel, (v, ab, rel)
    assert abs(sol.objective - cf.objective) <= tol.rel * abs(cf.objective)
    kkt = f.kkt_residuals(sol)
    assert kkt["primal"] <= tol.feas and kkt["stationarity"] <= tol.kkt, kkt


def test_closed_form_kkt_residuals_are_tiny():
    f = LSSVMClassification.random_instance(50, seed=2)
    kkt = f.kkt_residuals(f.solve())
    assert kkt["primal"] < 1e-10 and kkt["stationarity"] < 1e-10


def test_objective_twin_is_minimised_by_the_closed_form(rng):
    f = LSSVM.random_instance(30, seed=4)
    cf = f.solve()
    for _ in range(5):
        a = cf["alpha"] + 1e-3 * rng.normal(size=cf["alpha"].shape)
        assert f.objective({"alpha": a, "b": cf["b"] + 1e-3}) > cf.objective


def test_registry():
    assert {"lssvm", "weighted_lssvm", "lssvm_classifier"} <= set(FORMULATIONS)


def test_reset_problem_drops_the_cached_compiled_problem():
    f = LSSVM.random_instance(20, seed=3)
    first = f.problem
    assert f.problem is first                     # cached: DPP re-solves reuse it
    f.reset_problem()
    again = f.problem
    assert again is not first and set(again.vars) == set(first.vars)


def test_every_view_of_the_registry_is_filled_in_a_fresh_interpreter():
    """``FORMULATIONS.values()`` / ``.get()`` / ``len`` as the first use see every formulation
    (a ``dict`` subclass filled on ``__getitem__`` showed an empty ``values()`` before a
    first lookup)."""
    import subprocess
    import sys

    code = ("from lssvm_cvx.formulations import FORMULATIONS as F\n"
            "import sys\n"
            "vals = list(F.values())\n"
            "sys.exit(0 if len(vals) >= 30 and F.get('lssvm') is not None and "
            "dict(F.items()) == {c.name: c for c in vals} and len(F) == len(vals) else 1)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(5, 40), d=st.integers(1, 4), log_gamma=st.floats(-2, 3),
       log_sigma2=st.floats(-1, 1.5), seed=st.integers(0, 2**31 - 1),
       classify=st.booleans())
def test_closed_form_equals_clarabel_on_random_problems(n, d, log_gamma, log_sigma2, seed, classify):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.normal(size=n)
    if classify:
        y = np.where(y > np.median(y), 1, -1)
        y[:2] = [1, -1]
        f = LSSVMClassification(X, y, kernel=RBF(10**log_sigma2), gamma=10**log_gamma)
    else:
        f = LSSVM(X, y, kernel=RBF(10**log_sigma2), gamma=10**log_gamma)
    cf = f.solve()
    sol = f.solve("CLARABEL")
    scale = max(np.abs(cf["alpha"]).max(), 1e-300)
    assert np.abs(sol["alpha"] - cf["alpha"]).max() <= 1e-6 * scale
    assert abs(sol.scalar("b") - cf.scalar("b")) <= 1e-6 * max(abs(cf.scalar("b")), scale)
    assert abs(sol.objective - cf.objective) <= 1e-6 * abs(cf.objective)


def test_kkt_residuals_with_scalar_variables_and_inequalities():
    import cvxpy as cp

    from lssvm_cvx.formulations.base import BuiltProblem, kkt_residuals

    x, y = cp.Variable(name="x"), cp.Variable(2, name="y")
    cons = {"sum": x + cp.sum(y) == 1, "lower": x >= 0.5}
    p = BuiltProblem(cp.Minimize(cp.square(x) + cp.sum_squares(y)), cons, vars={"x": x, "y": y})
    p.solve("CLARABEL")
    duals = {k: c.dual_value for k, c in cons.items()}
    res = kkt_residuals(p, {"x": x.value, "y": y.value}, duals)
    assert res["stationarity"] < 1e-7 and res["complementarity"] < 1e-7
    bad = kkt_residuals(p, {"x": 0.6, "y": y.value}, duals)  # not optimal: detected
    assert bad["stationarity"] > 1e-3 or bad["primal"] > 1e-3
