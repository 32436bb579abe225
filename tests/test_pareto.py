"""Multiobjective scalarisations (lssvm_cvx.pareto): the two toy examples of §III-C (Fig. 3),
DPP sweeps without recompilation, the convex reformulation of the modified ε-constraint, the
ideal-point rule (eq. 27-28), and the bad-input battery."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from lssvm_cvx import pareto as P
from lssvm_cvx.exceptions import HyperparameterError, InputError


# ---------------------------------------------------------------------------- toy examples
def ex1_numpy(x):
    x = np.asarray(x, float)
    return np.column_stack([np.where(x <= 1, 1.0, x**2), (x - 5) ** 2])


def ex2_numpy(x):
    x = np.asarray(x, float)
    u1 = 1 - np.exp(-((x + 1) ** 2))
    u2 = np.where(x <= 0.5, 1 - np.exp(-((x - 2) ** 2)), 1 - np.exp(-2.25))
    return np.column_stack([u2, u1])  # (primary, constrained) as solved below


def U1(t):
    x = t[0]
    return (1.0, np.zeros(1)) if x <= 1 else (x * x, np.array([2 * x]))


def U2(t):
    x = t[0]
    return ((x - 5) ** 2, np.array([2 * (x - 5)]))


def V1(t):
    x = t[0]
    v = np.exp(-((x + 1) ** 2))
    return 1 - v, np.array([2 * (x + 1) * v])


def V2(t):
    x = t[0]
    if x <= 0.5:
        v = np.exp(-((x - 2) ** 2))
        return 1 - v, np.array([2 * (x - 2) * v])
    return 1 - np.exp(-2.25), np.zeros(1)


def dominated_by_set(points, reference, tol=1e-4):
    """True for each point that some reference point beats by > tol (relative, for values
    above 1) in one objective while being no worse (within 1e-7) in all."""
    points, reference = np.atleast_2d(points), np.atleast_2d(reference)
    le = np.all(reference[None, :, :] <= points[:, None, :] + 1e-7, axis=2)
    lt = np.any(reference[None, :, :] < points[:, None, :] - tol * np.maximum(1, np.abs(points[:, None, :])), axis=2)
    return np.any(le & lt, axis=1)


GRID1 = np.linspace(-1, 7, 16001)
GRID2 = np.linspace(-3, 4, 14001)


def ex1_problems(eps_e=30.0, s=1e-3):
    x = cp.Variable(name="x")
    u1 = cp.maximum(1, cp.square(x))  # = u_1 of §III-C on S = [-1, 7]
    u2 = cp.square(x - 5)
    S = [x >= -1, x <= 7]
    return (x, P.epsilon_constraint(u1, u2, eps_e, constraints=S),
            P.modified_epsilon_constraint(u1, u2, eps_e / s, s=s, constraints=S))


def test_example1_cvxpy_plain_is_weak_modified_is_pareto():
    x, pe, pm = ex1_problems()
    bounds = np.linspace(1, 40, 20)
    fe = P.trace_front(pe, bounds, keep=["x"])
    fm = P.trace_front(pm, bounds / 1e-3, keep=["x"])
    xe = np.array([float(p["x"]) for p in fe.points])
    xm = np.array([float(p["x"]) for p in fm.points])
    ref = ex1_numpy(GRID1)
    dom_e = dominated_by_set(ex1_numpy(xe), ref)
    dom_m = dominated_by_set(ex1_numpy(xm), ref)
    assert dom_e.any(), "the plain ε-constraint should return a weakly Pareto-optimal point"
    assert not dom_m.any(), f"modified returned dominated points at x = {xm[dom_m]}"
    # every plain solution is still weakly Pareto-optimal: nothing improves both objectives
    strict = np.all(ref[None, :, :] < ex1_numpy(xe)[:, None, :] - 1e-4, axis=2).any(axis=1)
    assert not strict.any()
    # the objective values reported by the problem are those of the expressions
    assert np.allclose(fe.F, ex1_numpy(xe), atol=1e-6)


@pytest.mark.parametrize("example", [1, 2])
def test_toy_examples_nlp(example):
    if example == 1:
        prim, con, bounds, x0, box, fn, grid = U1, U2, np.linspace(0.5, 36, 15), [5.0], [(-1, 7)], ex1_numpy, GRID1
    else:
        prim, con, bounds, x0, box, fn, grid = V2, V1, np.linspace(0.05, 0.999, 15), [-1.0], [(-3, 4)], ex2_numpy, GRID2
    fe = P.trace_front_nlp(prim, con, bounds, x0, method="eps", bounds=box)
    fm = P.trace_front_nlp(prim, con, bounds, x0, method="modified_eps", bounds=box)
    ref = fn(grid)
    dom_e = dominated_by_set(fn(fe.X[:, 0]), ref)
    dom_m = dominated_by_set(fn(fm.X[:, 0]), ref)
    assert dom_e.any()
    assert not dom_m.any()
    assert np.all(np.isfinite(fm.F))
    # modified: E_c bound respected, and equality u = h ε at the solution (eq. 25)
    assert np.all(fm.F[:, 1] <= bounds * (1 + 1e-6) + 1e-9)


def test_equality_holds_at_optimum_of_convex_relaxation():
    x = cp.Variable(2, name="x")
    f1 = cp.sum_squares(x - np.array([1.0, 0.0]))
    f2 = cp.sum_squares(x - np.array([0.0, 1.0]))
    s = 1e-2
    prob = P.modified_epsilon_constraint(f1, f2, eps=0.5 / s, s=s)
    prob.solve(solver="CLARABEL")
    assert abs(float(f2.value) - float(prob.h.value) * float(prob.eps.value)) < 1e-6
    # the convex front: f2 = (sqrt(2) - sqrt(f1))², check the point is on it
    assert abs(np.sqrt(f1.value) + np.sqrt(f2.value) - np.sqrt(2)) < 1e-5


def test_sweep_is_dpp_and_does_not_recompile():
    x, pe, pm = ex1_problems()
    for prob in (pe, pm):
        assert prob.is_dpp()
        fr = P.trace_front(prob, np.linspace(1, 40, 50) / (1e-3 if prob is pm else 1.0))
        assert not fr.recompiled
        assert len(fr.status) == 50 and all(s in ("optimal", "optimal_inaccurate") for s in fr.status)
        assert np.all(np.isfinite(fr.F))
    # a problem whose ε is not a parameter is rejected by trace_front
    with pytest.raises(InputError):
        P.trace_front(cp.Problem(cp.Minimize(x)), [1.0])


def test_cache_reused_between_parameter_updates():
    x, _, pm = ex1_problems()
    pm.solve(solver="CLARABEL")
    prog = pm._cache.param_prog
    pm.eps.value = 25.0 / 1e-3
    pm.solve(solver="CLARABEL")
    assert pm._cache.param_prog is prog


def test_three_objectives_and_weighted_sum():
    x = cp.Variable(2, name="x")
    a, b, c = np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0])
    fs = [cp.sum_squares(x - v) for v in (a, b, c)]
    prob = P.modified_epsilon_constraint(fs[0], fs[1:], eps=[0.6 / 1e-3, 0.6 / 1e-3])
    prob.solve(solver="CLARABEL")
    vals = prob.objective_values()
    assert vals.shape == (3,) and np.all(vals[1:] <= 0.6 + 1e-6)
    ws = P.weighted_sum(fs, [1.0, 1.0, 1.0])
    assert ws.is_dpp()
    ws.solve(solver="CLARABEL")
    assert np.allclose(x.value, (a + b + c) / 3, atol=1e-6)


def test_ideal_point_weights_eq28():
    F = np.array([[0.0, 4.0], [1.0, 1.0], [3.0, 0.0]])
    z = np.array([0.0, 0.0])
    w = P.ideal_point_weights(F, z, 1)
    assert np.allclose(w, [1.0, 1.0])
    assert P.select_ideal_point(F, z, eps0_index=1) == 1
    # ε0 at the first row: w = (0, 16) -> the point with the smallest second objective
    assert P.select_ideal_point(F, z, eps0_index=0) == 2
    wn = P.ideal_point_weights(F, z, 0, "normalized")
    assert np.allclose(wn, [1 / 9, 1 / 16])
    assert P.dominated(np.array([[1, 1], [2, 2], [0, 3]])).tolist() == [False, True, False]


def test_ideal_point_of_expressions():
    x = cp.Variable(name="x")
    z = P.ideal_point([cp.square(x - 1), cp.square(x + 2)], constraints=[x >= 0])
    assert np.allclose(z, [0.0, 4.0], atol=1e-7)


@pytest.mark.parametrize("eps", [0.0, -1.0, np.nan])
def test_bad_eps(eps):
    x = cp.Variable()
    with pytest.raises(HyperparameterError, match="eps"):
        P.epsilon_constraint(cp.square(x), cp.square(x - 1), eps)
    with pytest.raises(HyperparameterError, match="eps"):
        P.modified_epsilon_constraint(cp.square(x), cp.square(x - 1), eps)
    with pytest.raises(HyperparameterError, match="eps"):
        P.epsilon_constraint_nlp(U1, U2, eps, [0.0])
    _, pe, _ = ex1_problems()
    with pytest.raises(HyperparameterError, match="eps"):
        P.trace_front(pe, [1.0, eps])


@pytest.mark.parametrize("s", [0.0, -1e-3, np.inf, "a"])
def test_bad_s(s):
    x = cp.Variable()
    with pytest.raises(HyperparameterError, match="s must be"):
        P.modified_epsilon_constraint(cp.square(x), cp.square(x - 1), 1.0, s=s)
    with pytest.raises(HyperparameterError, match="s must be"):
        P.modified_epsilon_constraint_nlp(U1, U2, 1.0, [0.0], s=s)


def test_bad_expressions():
    x = cp.Variable()
    with pytest.raises(InputError, match="not convex"):
        P.epsilon_constraint(cp.square(x), -cp.square(x), 1.0)
    with pytest.raises(InputError, match="scalar"):
        P.epsilon_constraint(cp.square(x), cp.Variable(2), 1.0)
    with pytest.raises(InputError, match="cvxpy expression"):
        P.epsilon_constraint(cp.square(x), 3.0, 1.0)
    with pytest.raises(HyperparameterError, match="entries"):
        P.epsilon_constraint(cp.square(x), [cp.square(x - 1), cp.square(x - 2)], [1.0, 2.0, 3.0])


def test_figure_of_fig3(tmp_path):
    from lssvm_cvx.benchmarks.pareto_toy import figure_fig3

    fig, summary = figure_fig3(n_eps=8)
    out = tmp_path / "fig3.png"
    fig.savefig(out)
    assert out.stat().st_size > 1000
    assert summary["ex1"]["eps_dominated"] > 0 or summary["ex2"]["eps_dominated"] > 0
    assert summary["ex1"]["modified_dominated"] == 0 and summary["ex2"]["modified_dominated"] == 0
