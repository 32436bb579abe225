"""STP (eq. 24-25) by weighted graduated non-convexity (Algorithm 1, eq. 41-43)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import problems
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations.componentwise_gnc import ComponentwiseSTP
from lssvm_cvx.selection.gnc import gnc
from lssvm_cvx.formulations.componentwise_sparse import ComponentwiseL1
from lssvm_cvx.kernels import RBF, Componentwise, Linear
from lssvm_cvx.validate import compare

#: the stationarity tolerance (relative projected gradient of the smoothed eq. 25) the driver
#: is asked for and the tests hold it to.  For the convex L1 penalty reweighting converges only
#: sublinearly near the solution (measured: stalls at ~5e-6 after 3000 steps), so it is held
#: to 1e-5; the QP solves that case exactly.
TOL_STAT = 1e-8
TOL_STAT_L1 = 1e-5


@pytest.fixture(scope="module")
def data():
    ds = problems.get_problem("additive10", n_train=60, n_test=10, seed=3)
    return ds.X, ds.y


@pytest.mark.parametrize("penalty,lam,start", [("stp", 1.0, "l2"), ("stp", 1.0, "l1"),
                                               ("scad", 2.0, "l2"), ("hard", 3.0, "l2"),
                                               ("l1", 0.5, "l2")])
def test_gnc_monotone_per_stage_and_stationary(data, penalty, lam, start):
    X, y = data
    p = ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), penalty=penalty, lam=lam)
    tol = TOL_STAT_L1 if penalty == "l1" else TOL_STAT
    res = gnc(p, start=start, tol_stationarity=tol, max_final=3000)
    for stage, hist in res.stage_histories().items():
        h = np.asarray(hist)
        # majorize-minimize: J_ζ never increases within a stage (up to roundoff)
        assert np.all(np.diff(h) <= 1e-10 * np.abs(h[:-1]) + 1e-12), (stage, np.diff(h).max())
    assert res.converged and res.stationarity <= tol
    # the reported stationarity is the gradient of the final objective (checked independently
    # below); here: the final point is a fixed point of the reweighting
    z = res.solution["z"]
    z2, _ = p.solve_step(p.weights(z))
    assert np.linalg.norm(z2 - z) <= (1e-3 if penalty == "l1" else 1e-5) * np.linalg.norm(z)


def test_gradient_matches_finite_differences(data):
    X, y = data
    p = ComponentwiseSTP(X, y, kernel=Componentwise([RBF(1.0), Linear()]), lam=2.0)
    B = p.basis
    rng = np.random.default_rng(0)
    z = B.project(rng.normal(size=B.R) * 2)
    for zeta, start in [(0.0, "l2"), (0.3, "l2"), (0.3, "l1")]:
        g = p.gradient(z, zeta, 1.0, start)
        for _ in range(3):
            v = B.project(rng.normal(size=B.R))
            h = 1e-6

            def J(zz):
                Yh = B.outputs(zz)
                bb = float(np.mean(y - Yh.sum(1)))          # b at its optimum, as in gradient()
                return p.relaxed_objective(zz, bb, zeta, 1.0, start)

            fd = (J(z + h * v) - J(z - h * v)) / (2 * h)
            assert g @ v == pytest.approx(fd, rel=1e-5, abs=1e-6)


def test_gnc_with_l1_penalty_solves_the_l1_qp(data):
    """Convex case: GNC with ℓ(s) = λ s is eq. (20) with ξ = 1/λ (up to the ε smoothing)."""
    X, y = data
    xi = 1.0
    qp = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=xi).solve("CLARABEL")
    p = ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), penalty="l1", lam=1 / xi)
    res = gnc(p, tol_stationarity=TOL_STAT_L1, max_final=3000)
    assert res.solution.objective == pytest.approx(qp.objective / xi, rel=1e-5)
    scale = np.abs(qp["yhat"]).max()
    np.testing.assert_allclose(res.solution["yhat"], qp["yhat"], atol=2e-3 * scale)
    qp_sel = ComponentwiseL1(X, y, kernel=Componentwise(RBF(1.0)), xi=xi).selected(qp)
    np.testing.assert_array_equal(res.selected, qp_sel)


def test_weighted_step_closed_form_matches_solvers(data):
    X, y = data
    p = ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)))
    rng = np.random.default_rng(1)
    p.nu = rng.uniform(0.1, 3.0, (p.n, p.n_components))
    rep = compare(p, solvers=["CLARABEL", "OSQP", "SCS"])
    rep.assert_agree()
    assert p.problem.is_dpp()


def test_gnc_with_cvxpy_steps_matches_closed_form_steps(data):
    X, y = data
    sched = (1.0, 0.3, 0.0)
    kw = dict(schedule=sched, max_inner=3, max_final=3, tol_stationarity=0.0)
    a = gnc(ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), lam=2.0), **kw)
    b = gnc(ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), lam=2.0), step="CLARABEL", **kw)
    ha = [h["relaxed"] for h in a.history]
    hb = [h["relaxed"] for h in b.history]
    np.testing.assert_allclose(ha, hb, rtol=1e-6)


def test_paper_literal_loop_one_step_per_zeta(data):
    X, y = data
    p = ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), lam=1.0)
    res = gnc(p, schedule=np.linspace(1, 0, 11), max_inner=1, max_final=1)
    assert len(res.history) == 11
    assert [h["zeta"] for h in res.history] == pytest.approx(list(np.linspace(1, 0, 11)))


def test_two_starts_reach_different_local_minima(data):
    """The documented behaviour of the two GNC paths on the additive example: the literal
    Algorithm 1 (least-squares start) reaches a lower value of eq. (25) and keeps all
    components; the L1-tangent start keeps fewer."""
    X, y = data
    l2 = gnc(ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), lam=1.0), start="l2")
    l1 = gnc(ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)), lam=1.0), start="l1")
    assert l2.solution.objective < l1.solution.objective
    assert len(l1.selected) < len(l2.selected)
    assert set(range(4)) <= set(l1.selected.tolist())


def test_bad_inputs(data):
    X, y = data
    p = ComponentwiseSTP(X, y, lam=1.0)
    with pytest.raises(HyperparameterError, match="schedule"):
        gnc(p, schedule=[1.0, 0.5])
    with pytest.raises(HyperparameterError, match="schedule"):
        gnc(p, schedule=[1.0, 0.6, 0.7, 0.0])
    with pytest.raises(HyperparameterError, match="start"):
        gnc(p, start="l0")
    with pytest.raises(HyperparameterError, match="a must"):
        gnc(ComponentwiseSTP(X, y, a=0.0))
    with pytest.raises(HyperparameterError, match="a must"):
        gnc(ComponentwiseSTP(X, y, a=-3.7))
    with pytest.raises(HyperparameterError, match="lam"):
        gnc(ComponentwiseSTP(X, y, lam=0.0))
    with pytest.raises(InputError, match="1 feature"):
        gnc(ComponentwiseSTP(X[:, :1], y))
    with pytest.raises(HyperparameterError, match="nu"):
        ComponentwiseSTP(X, y, nu=-np.ones((len(y), 10))).closed_form()
