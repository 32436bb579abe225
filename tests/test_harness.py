"""The harness itself: bounded runs (time limit, captured output), truthful verdicts (reference
choice, identifiable quantities, non-smooth atoms, measured agreement for inaccurate points),
the long format, and the solver profiles."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping

import cvxpy as cp
import numpy as np
import pytest

from lssvm_cvx.certificates import Certificate
from lssvm_cvx.exceptions import Interrupted
from lssvm_cvx.formulations import LSSVM, get_formulation
from lssvm_cvx.formulations.base import BuiltProblem, Formulation, Reference
from lssvm_cvx.harness.compare import _judge, _pick_reference
from lssvm_cvx.harness.report import COLUMNS, Row
from lssvm_cvx.harness.worker import Outcome
from lssvm_cvx.solution import Solution
from lssvm_cvx.solvers import PROFILE_NAMES, SOLVERS, available_solvers, profile
from lssvm_cvx.validate import compare


class SleepyLSSVM(LSSVM):
    """An LS-SVM whose CLARABEL "solver" never returns in time (it ignores every option).
    (No ``name`` of its own: test classes stay out of the formulation registry.)"""

    def solve(self, solver="closed_form", **kw):
        if solver.upper() == "CLARABEL":
            time.sleep(60)
        return super().solve(solver, **kw)


class ChattyLSSVM(LSSVM):
    """An LS-SVM whose solves print on stdout, stderr and straight to file descriptor 1, as
    C solvers do (HiGHS prints its banner there)."""

    def solve(self, solver="closed_form", **kw):
        print("python-level chatter")
        os.write(1, b"Running FakeSolver 1.0 banner on fd 1\n")
        os.write(2, b"fd 2 chatter\n")
        return super().solve(solver, **kw)


def test_solver_past_the_time_limit_is_killed_and_reported():
    f = SleepyLSSVM.random_instance(30)
    t0 = time.perf_counter()
    rep = compare(f, ["CLARABEL", "OSQP"], time_limit=2.0)
    wall = time.perf_counter() - t0
    assert wall < 20, wall  # not 60 s: the worker was killed
    row = rep["CLARABEL"]
    assert row.status == "time_limit" and row.agrees is False
    assert "time limit" in row.error
    assert rep["OSQP"].agrees and rep["closed_form"].agrees  # the others still ran
    assert "time_limit" in rep.to_markdown() and "time limit of 2 s" in rep.to_markdown()


def test_solver_output_is_captured_not_printed(capfd):
    f = ChattyLSSVM.random_instance(30)
    rep = compare(f, ["CLARABEL"], time_limit=30)
    out, err = capfd.readouterr()
    assert "banner" not in out and "chatter" not in out and "chatter" not in err
    assert "banner on fd 1" in rep["CLARABEL"].log and "python-level chatter" in rep["CLARABEL"].log
    # in-process runs (no time limit) capture too
    rep = compare(f, ["CLARABEL"], time_limit=None)
    out, _ = capfd.readouterr()
    assert "banner" not in out and "banner on fd 1" in rep["CLARABEL"].log


def test_cli_json_is_one_document_despite_chatty_solver(capfd, monkeypatch):
    from lssvm_cvx import cli
    from lssvm_cvx.formulations import FORMULATIONS

    monkeypatch.setitem(FORMULATIONS, "_test_chatty", ChattyLSSVM)
    code = cli.main(["compare", "_test_chatty", "--n", "30", "--solvers", "CLARABEL,OSQP",
                     "--json"])
    out, _ = capfd.readouterr()
    doc = json.loads(out)  # exactly one JSON document
    assert code == 0 and doc["formulation"] == "lssvm" and doc["all_agree"]


@pytest.mark.skipif("HIGHS" not in available_solvers(), reason="HiGHS not installed")
def test_highs_banner_does_not_reach_stdout(capfd):
    from lssvm_cvx import cli

    code = cli.main(["compare", "lssvm", "--n", "30", "--solvers", "HIGHS", "--json"])
    out, _ = capfd.readouterr()
    doc = json.loads(out)
    assert "HiGHS" not in out.split('"log"')[0] and code in (0, 1)
    assert doc["rows"][1]["backend"] == "HIGHS"


class _Named:
    name = "_test_singular_krr"  # inherited, so the registry (own ``name`` only) skips it


class SingularKRR(_Named, Formulation):
    """Kernel ridge with bias and a rank-2 linear Gram: ``α`` is not identifiable (any null(K)
    component can be added), ``Kα + b`` is.  The closed form deliberately returns a non-minimal
    ``α`` (plus a null-space vector) so it differs from every solver's."""

    reference = Reference("test", "test", {})
    has_closed_form = True
    compare = ("alpha", "b")

    def __init__(self, X, y, lam=0.5):
        self.X, self.y, self.lam = X, y, lam
        self.K = X @ X.T
        self.n = len(y)
        self._built = None

    def _build(self):
        n = self.n
        alpha, b, e = cp.Variable(n, name="alpha"), cp.Variable(name="b"), cp.Variable(n, name="e")
        L = self.X  # K = X X'
        obj = cp.Minimize(0.5 * cp.sum_squares(e) + 0.5 * self.lam * cp.sum_squares(L.T @ alpha))
        return BuiltProblem(obj, {"fit": e == self.y - self.K @ alpha - b},
                            vars={"alpha": alpha, "b": b, "e": e})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        a = values["alpha"]
        e = self.y - self.K @ a - float(values["b"])
        return float(0.5 * e @ e + 0.5 * self.lam * a @ self.K @ a)

    def fitted(self, values):
        return self.K @ values["alpha"] + float(values["b"])

    def closed_form(self):
        n, X, y = self.n, self.X, self.y
        A = np.c_[X, np.ones(n)]
        P = np.diag([self.lam] * X.shape[1] + [0.0])
        wb = np.linalg.solve(A.T @ A + P, A.T @ y)
        w, b = wb[:-1], wb[-1]
        alpha = X @ np.linalg.solve(X.T @ X, w)  # min-norm α with X'α = w
        null = np.linalg.svd(X.T)[2][-1]  # a unit vector with X'v = 0
        alpha = alpha + 3.0 * null * np.abs(alpha).max()
        e = y - self.K @ alpha - b
        return Solution(values={"alpha": alpha, "b": np.asarray(b), "e": e},
                        duals={"fit": -e})


def test_non_identifiable_alpha_agrees_on_fitted_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = X @ [1.0, -2.0] + 0.1 * rng.normal(size=20)
    f = SingularKRR(X, y)
    rep = compare(f, ["CLARABEL", "ECOS"], time_limit=None)
    cf_alpha = rep["closed_form"]
    assert cf_alpha.agrees
    for s in ("CLARABEL", "ECOS"):
        row = rep[s]
        assert row.deviation["alpha"]["rel"] > 0.1  # α really differs ...
        assert row.deviation["fitted"]["rel"] < 1e-5  # ... the fitted function does not
        assert "alpha" in row.non_identifiable and row.agrees, rep.to_markdown()
        assert "not identifiable" in row.reason
    md = rep.to_markdown()
    assert "(n.i.)" in md and "optimal set is not a point" in md


def _cert(score, form="conic form"):
    return Certificate(score, score, score, form)


def _out(name, status, score=1e-12):
    sol = Solution(values={"alpha": np.zeros(2)}, status=status, backend=name)
    return Outcome(name, status, sol, {"primal": 0.0, "stationarity": math.nan},
                   certificate=_cert(score))


def test_reference_is_the_best_certificate_whatever_the_status_word():
    outs = {"CLARABEL": _out("CLARABEL", "optimal_inaccurate", 1e-11),
            "SCS": _out("SCS", "optimal", 1e-6),
            "ECOS": _out("ECOS", "optimal", 1e-9)}
    ref, why = _pick_reference(outs, "high")
    assert ref == "CLARABEL" and "best certificate" in why  # the measured point decides
    # the closed form wins ties at round-off, not a worse certificate
    outs = {"closed_form": _out("closed_form", "optimal", 1e-7), **outs}
    assert _pick_reference(outs, "high")[0] == "CLARABEL"
    outs["closed_form"] = _out("closed_form", "optimal", 1e-15)
    outs["CLARABEL"] = _out("CLARABEL", "optimal", 1e-14)
    ref, why = _pick_reference(outs, "high")
    assert ref == "closed_form" and "tied at round-off with CLARABEL" in why
    # an uncertified best point is named as such
    ref, why = _pick_reference({"SCS": _out("SCS", "optimal", 1e-2)}, "high")
    assert ref == "SCS" and "NOT certified" in why


def test_inaccurate_point_is_never_the_reference_end_to_end():
    f = get_formulation("l2svm_radius").random_instance(30)
    # SCS stopped after 3 iterations: inaccurate (or worse), never chosen over CLARABEL
    rep = compare(f, ["SCS", "CLARABEL"], options={"SCS": {"max_iters": 3}}, time_limit=None)
    assert rep["SCS"].status != "optimal"
    assert rep.reference == "CLARABEL"


@pytest.mark.parametrize("status", ["optimal", "optimal_inaccurate"])
def test_verdict_is_by_measurement_not_status_word(status):
    """The fresh-machine failure: ECOS stopped "optimal_inaccurate" (exit 10) at a point 1.6e-5
    from the closed form; its profile holds it to 1e-4, so it agrees whatever the word."""
    tol = profile("ECOS").tol
    ref = Row("closed_form", "optimal", 0.0, 0.0, -51.654, None, {}, {"primal": 0.0},
              profile("closed_form").tol, True, certificate=_cert(1e-14))
    row = Row("ECOS", status, 0.0, 0.0, -51.654, 1.4e-8,
              {"alpha": {"abs": 2.8e-4, "rel": 1.6e-5}, "b": {"abs": 1.6e-6, "rel": 7.3e-5}},
              {"primal": 4e-13, "stationarity": 5.3e-5}, tol, None, certificate=_cert(1e-3))
    _judge(row, ref, False, tol, None, None)
    assert row.agrees and row.verdict == "yes", row.reason
    assert "multipliers are inaccurate" in row.reason  # its own certificate fails, said so
    bad = Row("ECOS", status, 0.0, 0.0, -51.6, 1e-2, {"alpha": {"abs": 1.0, "rel": 1e-2}},
              {"primal": 4e-13, "stationarity": 5e-5}, tol, None, certificate=_cert(1e-3))
    _judge(bad, ref, False, tol, None, None)
    assert bad.agrees is False and bad.verdict == "NO" and "objective gap" in bad.reason


def test_two_certified_points_that_differ_are_a_disagreement_not_a_no():
    tol = profile("CLARABEL").tol
    ref = Row("closed_form", "optimal", 0.0, 0.0, 1.0, None, {}, {"primal": 0.0},
              profile("closed_form").tol, True, certificate=_cert(1e-14))
    row = Row("CLARABEL", "optimal", 0.0, 0.0, 1.01, 1e-2, {"f": {"abs": 1e-2, "rel": 1e-2}},
              {"primal": 0.0}, tol, None, certificate=_cert(1e-11))
    _judge(row, ref, False, tol, None, None)
    assert row.verdict == "disagreement" and row.agrees is False
    assert "charged to neither" in row.reason


def test_nonsmooth_atom_gives_nan_stationarity_with_a_reason_not_an_error():
    f = get_formulation("areg_stability").random_instance(30)
    sol = f.solve("ECOS")
    kkt, note = f.kkt_report(sol)
    assert math.isnan(kkt["stationarity"]) and kkt["primal"] < 1e-8
    assert "norm_inf" in note and "non-smooth" in note
    assert math.isnan(f.kkt_residuals(sol)["stationarity"])  # no exception
    rep = compare(f, ["ECOS", "SCS", "OSQP"], time_limit=None)
    assert rep["OSQP"].agrees is None and "SOCP" in rep["OSQP"].reason  # not applicable
    assert rep["SCS"].agrees, rep.to_markdown()
    assert "norm_inf" in rep.to_markdown()


def test_errors_and_statuses_reach_the_markdown():
    f = LSSVM.random_instance(30)
    rep = compare(f, ["OSQP"], options={"OSQP": {"no_such_option": 1}}, time_limit=None)
    row = rep["OSQP"]
    assert row.agrees is False and row.error
    md = rep.to_markdown()
    assert row.status in md and "no_such_option" in md


def test_long_format_columns():
    rep = compare(LSSVM.random_instance(30), ["CLARABEL", "OSQP"], time_limit=None)
    df = rep.to_frame()
    assert list(df.columns) == list(COLUMNS)
    assert len(df) == 3 and df["max_rel_dev"].notna().sum() == 2
    assert set(df["solver"]) == {"closed_form", "CLARABEL", "OSQP"}
    d = rep.to_dict()
    json.dumps(d)
    assert d["rows"][0]["backend"] == "closed_form"


def test_every_known_solver_has_three_profiles():
    for spec in SOLVERS.values():
        assert set(spec.profiles) == set(PROFILE_NAMES)
        hi, de, lo = (spec.profiles[p].tol for p in PROFILE_NAMES)
        assert hi.rel <= de.rel <= lo.rel


class InterruptingLSSVM(LSSVM):
    """CLARABEL presses Ctrl-C on the caller (deterministically, mid-run) and hangs."""

    def solve(self, solver="closed_form", **kw):
        if solver.upper() == "CLARABEL":
            import signal

            os.kill(self.caller, signal.SIGINT)
            time.sleep(60)
        return super().solve(solver, **kw)


def test_ctrl_c_keeps_the_rows_that_finished():
    f = InterruptingLSSVM.random_instance(30)
    f.caller = os.getpid()
    t0 = time.perf_counter()
    with pytest.raises(Interrupted, match="2 of 4 backends finished") as info:
        compare(f, ["OSQP", "CLARABEL", "SCS"], time_limit=30)  # stops whoever runs it
    assert time.perf_counter() - t0 < 25  # the hanging worker was killed, not waited for
    assert isinstance(info.value, KeyboardInterrupt)
    rep = info.value.partial  # what finished travels with the interrupt
    assert rep.interrupted
    assert rep["OSQP"].agrees and rep["closed_form"].agrees
    assert rep["CLARABEL"].status == "interrupted" and rep["SCS"].status == "interrupted"
    assert "interrupted" in rep.to_markdown()


def test_known_limit_reason_is_in_the_report():
    f = get_formulation("pareto_krr_sum").random_instance()
    rep = compare(f, ["CLARABEL"], time_limit=None)
    if not rep.all_agree:
        assert "known limit of pareto_krr_sum" in rep.to_markdown()
