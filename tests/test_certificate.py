"""An ``optimal_inaccurate`` cvxpy point is accepted only when something measurable certifies it.

``Formulation.solve`` accepts such a point when its KKT residuals meet the solver's profile, or
(when stationarity cannot be evaluated, e.g. a non-smooth objective, or the duals are poor) when
it is primal feasible and its objective is no worse than that of an optimal reference solve (the
closed form, the same solver with its default profile, or another interior-point solver).
A point that is worse than the reference must still raise ``SolverError``.
"""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import SolverError
from lssvm_cvx.formulations.areg_fast_cv import ARegStability
from lssvm_cvx.formulations.lssvm import LSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.solution import Solution


def _inaccurate(values, backend="CLARABEL"):
    return Solution(values={k: np.array(v, dtype=float) for k, v in values.items()},
                    status="optimal_inaccurate", backend=backend)


def test_non_smooth_point_is_certified_by_a_reference_solve():
    f = ARegStability.random_instance(12, seed=0)
    good = f.solve("ECOS", accept_inaccurate=True)
    sol = _inaccurate(good.values)
    f._raise_unless_usable(sol, "high", accept_inaccurate=False)   # does not raise
    assert sol.extras["certified"] is True
    assert "optimal" in sol.extras["certified_by"]


def test_a_worse_point_of_a_non_smooth_objective_is_not_certified():
    f = ARegStability.random_instance(12, seed=0)
    good = f.solve("ECOS", accept_inaccurate=True)
    worse = dict(good.values)
    worse["alpha"] = good.values["alpha"] + 0.05        # feasible is not enough: objective rises
    assert f.objective(worse) > f.objective(good.values) + 1e-3
    sol = _inaccurate(worse)
    with pytest.raises(SolverError, match="does not certify"):
        f._raise_unless_usable(sol, "high", accept_inaccurate=False)


def test_closed_form_is_the_reference_when_there_is_one():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(20)
    f = LSSVM(X, y, kernel=RBF(1.0), gamma=10.0)
    cf = f.solve()
    ok = _inaccurate({k: cf.values[k] for k in f.problem.vars if k in cf.values})
    assert f._certify_by_looser_solve(ok, "high")
    assert "closed form" in ok.extras["certified_by"]
    bad_values = {k: cf.values[k] for k in f.problem.vars if k in cf.values}
    bad_values["alpha"] = bad_values["alpha"] * 1.5
    bad = _inaccurate(bad_values)
    assert f.objective(bad.values) > cf.objective * (1 + 1e-3)
    # the closed form rejects it, and no optimal cvxpy reference can accept a worse objective
    assert not f._certify_by_looser_solve(bad, "high")
