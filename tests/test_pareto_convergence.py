"""Convergence records, KKT residuals, the shared ε / mod-ε sweep, the spectral polynomial KRR
path and the exact KPCR grid fronts of the multiobjective selection (You et al. 2014)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations.multiobjective import KPCRObjectives, KRRObjectives
from lssvm_cvx.selection.multiobjective import VARIANTS, select_pareto
from lssvm_cvx.selection.pareto_nlp import (
    epsilon_constraint_nlp,
    kkt_residuals,
    trace_front_nlp,
    trace_fronts_nlp,
)


def quad(c):
    def u(x):
        return float(np.sum((x - c) ** 2)), 2 * (x - c)
    return u


F1, F2 = quad(np.array([1.0, 0.0])), quad(np.array([0.0, 1.0]))


def test_kkt_residuals_known_multiplier():
    # min (x-1)² + y²  s.t. x² + (y-1)² ≤ b: the KKT multiplier in closed form at the solution
    b = 0.5
    r = epsilon_constraint_nlp(F1, F2, b, [0.0, 1.0])
    assert r.converged and r.kkt["stationarity"] < 1e-6
    x = r.x
    # ∇f + μ∇g = 0 → μ = -(x-c1)_0 / (x-c2)_0
    mu = -(x[0] - 1.0) / x[0]
    assert r.mu[0] == pytest.approx(mu, rel=1e-5)
    # a wrong point gives a large residual
    kkt, _ = kkt_residuals(np.array([0.2, 0.2]), F1(np.array([0.2, 0.2]))[1],
                           np.array([F2(np.array([0.2, 0.2]))[0] - b]),
                           [F2(np.array([0.2, 0.2]))[1]])
    assert kkt["stationarity"] > 1e-2


def test_kkt_bound_coordinates_and_inactive_constraint():
    # min (x-2)² on [0, 1], constraint inactive: stationary at the upper bound
    f = quad(np.array([2.0]))
    kkt, mu = kkt_residuals(np.array([1.0]), f(np.array([1.0]))[1], np.array([-5.0]),
                            [np.array([1.0])], [(0.0, 1.0)])
    assert kkt["stationarity"] == 0.0 and mu[0] == 0.0
    kkt, _ = kkt_residuals(np.array([0.0]), f(np.array([0.0]))[1], np.array([-5.0]),
                           [np.array([1.0])], [(0.0, 1.0)])
    assert kkt["stationarity"] > 0.5  # at the lower bound the gradient points inwards


def test_shared_sweep_matches_separate_sweeps_and_mod_equals_eps_when_mu_b_exceeds_s2():
    bounds = np.linspace(0.1, 1.5, 6)
    both = trace_fronts_nlp(F1, F2, bounds, [0.0, 1.0], s=1e-3)
    sep_e = trace_front_nlp(F1, F2, bounds, [0.0, 1.0], method="eps")
    sep_m = trace_front_nlp(F1, F2, bounds, [0.0, 1.0], method="modified_eps")
    assert np.allclose(both["eps"].F, sep_e.F, atol=1e-7)
    assert np.allclose(both["modified_eps"].F, sep_m.F, atol=1e-6)
    for ie, im, b in zip(both["eps"].info, both["modified_eps"].info, bounds):
        assert ie["converged"] and im["converged"]
        assert ie["mu"][0] * b > 1e-6  # μb > s²: the modified slack stays at h = s
        assert im["h"][0] == pytest.approx(1e-3, rel=1e-6)
    assert np.allclose(both["eps"].X, both["modified_eps"].X, atol=1e-5)


def test_mod_differs_from_eps_on_a_flat_front():
    # u1 flat (= 1) for x ≤ 1 (the paper's first example): at loose bounds μ = 0 < s²/b and
    # the modified method moves to a smaller u2 at the same u1
    def u1(x):
        return (1.0, np.zeros(1)) if x[0] <= 1 else (float(x[0] ** 2), 2 * x)

    def u2(x):
        return float((x[0] - 5) ** 2), 2 * (x - 5)

    fr = trace_fronts_nlp(u1, u2, np.array([20.0, 30.0]), [-0.5], s=1e-3, bounds=[(-1.0, 7.0)])
    mu_b = np.array([i["mu"][0] for i in fr["eps"].info]) * np.array([20.0, 30.0])
    assert np.all(mu_b < 1e-6)
    assert np.all(fr["modified_eps"].F[:, 1] < fr["eps"].F[:, 1] - 1e-3)


def test_poly_krr_spectral_path_matches_direct_solve_and_finite_differences():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 3)) / 2
    y = rng.standard_normal(40)
    y -= y.mean()
    for cx in ("roughness", "l2"):
        o = KRRObjectives(X, y, "poly", degree=3, complexity=cx)
        th = np.array([np.log(0.2)])
        ev = o.evaluate(th)
        K = o._rough(None).K
        a = np.linalg.solve(K + 0.2 * np.eye(40), y)
        assert np.allclose(ev["alpha"], a, atol=1e-10)
        h = 1e-6
        fp, fm = o.evaluate(th + h), o.evaluate(th - h)
        assert ev["grad_f"][0] == pytest.approx((fp["E_f"] - fm["E_f"]) / (2 * h), rel=1e-5)
        assert ev["grad_c"][0] == pytest.approx((fp["E_c"] - fm["E_c"]) / (2 * h), rel=1e-5)


def test_kpcr_values_match_evaluate():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(30)
    o = KPCRObjectives(X, y - y.mean(), "rbf")
    th = o.theta(r=0.9, sigma2=2.0)
    ef, ec, m = o.values(th)
    ev = o.evaluate(th)
    assert ef == pytest.approx(ev["E_f"], rel=1e-12) and ec == pytest.approx(ev["E_c"], rel=1e-12)
    assert m == ev["m"]


def test_kpcr_grid_front_is_the_exact_grid_minimum():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((35, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(35)
    out = select_pareto(X, y, model="kpcr", kernel="rbf", n_eps=5)
    fr = out["eps/paper"].front
    # brute force over the same grid, recomputed independently from obj.values
    o = KPCRObjectives(X, y - y.mean(), "rbf")
    from lssvm_cvx.formulations.multiobjective import R_BOUNDS, sigma2_range
    lo, hi = sigma2_range(X)
    s2 = 2 * np.linspace(np.sqrt(lo / 2), np.sqrt(hi / 2), 10) ** 2
    vals = np.array([o.values(o.theta(r=float(r), sigma2=float(s)))[:2] for s in s2
                     for r in np.linspace(*R_BOUNDS, 41)])
    for b, ef, ec in zip(fr["eps"], fr["E_f"], fr["E_c"]):
        feas = vals[:, 1] <= b * (1 + 1e-12)
        assert ec <= b * (1 + 1e-12)
        assert ef == pytest.approx(vals[feas, 0].min(), rel=1e-12)


def test_select_pareto_variants_and_convergence_record():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((40, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(40)
    out = select_pareto(X, y, model="krr", kernel="rbf", n_eps=5)
    assert set(out) == {f"{m}/{w}" for m, w in VARIANTS}
    conv = out["eps/paper"].front["convergence"]["2"]
    assert conv["solves"] == 5 and len(conv["nit"]) == 5
    assert conv["converged"] >= 4
    cmp = out["eps/paper"].front["compare"]
    assert len(cmp["mu_b_over_s2"]) == 5
    with pytest.raises(HyperparameterError):
        select_pareto(X, y, kpcr_search="newton")
