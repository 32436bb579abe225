"""The independent check behind benchmarks/harness_verdicts (no false NO): it passes a right
point, fails a wrong one, and agrees with the harness on a solver stopped early."""

from __future__ import annotations

from lssvm_cvx.benchmarks.harness_verdicts import independent_check

from lssvm_cvx.formulations import get_formulation
from lssvm_cvx.solvers import profile
from lssvm_cvx.validate import compare


def test_a_right_point_passes_and_a_solver_stopped_early_fails_in_both():
    f = get_formulation("regularized_lssvm_l1").random_instance(40)
    ok, detail = independent_check(f, "ECOS", profile("ECOS").tol)
    assert ok, detail
    opts = {"SCS": {"max_iters": 5}}
    rep = compare(f, ["CLARABEL", "SCS"], options=opts)
    row = rep["SCS"]
    assert row.verdict == "NO"
    ok, detail = independent_check(f, "SCS", row.tolerance, options=opts["SCS"])
    assert not ok and "objective gap" in detail


def test_the_closed_form_is_checked_too():
    f = get_formulation("lssvm").random_instance(40)
    ok, detail = independent_check(f, "closed_form", profile("closed_form").tol)
    assert ok, detail
