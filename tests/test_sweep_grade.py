"""The sweep at benchmark grade (issue 28): timing that isolates the solver, failures
attributed to their cause, provenance, qpbenchmark's metrics, extension by user formulations
and parameters, warm starts, per-solver resume, and export that round-trips through other
tools."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lssvm_cvx.formulations import FORMULATIONS, LSSVM
from lssvm_cvx.harness import worker
from lssvm_cvx.harness.compare import compare
from lssvm_cvx.harness.export import export_problem, program_data
from lssvm_cvx.harness.sweep import problem_specs, sweep
from lssvm_cvx.harness.sweep_report import solver_table
from lssvm_cvx.harness.warm import warm_path
from lssvm_cvx.solvers import SOLVERS, SolverProfile, available_solvers

INSTALLED = set(available_solvers())


class SlowClosedForm(LSSVM):
    """An LS-SVM whose closed form never returns in time (a backend the harness must kill)."""

    def closed_form(self):
        import time

        time.sleep(30)
        return super().closed_form()


class BrokenBuild(LSSVM):
    """A formulation whose cvxpy problem cannot be built (the formulation's fault)."""

    def _build(self):
        raise ValueError("this build always fails")


def test_a_solver_that_says_optimal_at_a_bad_point_is_caught():
    """OSQP at loose settings with polishing off reports 'optimal'; the point is far from the
    certified reference at the high profile: verdict NO, charged to the solver, and the status
    counts against its correct rate."""
    f = FORMULATIONS["l2svm_dual"].random_instance(60, seed=0)
    loose = {"eps_abs": 1e-2, "eps_rel": 1e-2, "polishing": False}
    rep = compare(f, ["CLARABEL", "OSQP"], options={"OSQP": loose}, time_limit=60)
    row = rep["OSQP"]
    assert row.status == "optimal" and row.verdict == "NO" and row.failure == "solver", row.reason
    rows = rep.records()
    table = {d["solver"]: d for d in solver_table(rows, 60.0)}
    assert table["OSQP"]["correct"] == 0 and table["CLARABEL"]["correct"] == 1


def test_a_settings_failure_keeps_the_point_it_reaches(monkeypatch):
    """CLARABEL's high profile made unreachable (2 iterations): no point at high, a point at the
    default profile — the failure is 'settings', the row keeps what the looser run reached."""
    spec = SOLVERS["CLARABEL"]
    high = spec.profiles["high"]
    monkeypatch.setitem(spec.profiles, "high", SolverProfile({**high.options, "max_iter": 2},
                                                             high.tol))
    f = FORMULATIONS["l2svm_dual"].random_instance(40, seed=1)
    rep = compare(f, ["CLARABEL", "ECOS"], time_limit=None)  # in process: the patch holds
    row = rep["CLARABEL"]
    assert row.status == "user_limit" and row.verdict == "NO"
    assert row.failure == "settings", row.reason
    assert row.retry_profile == "default" and row.retry_status == "optimal"
    assert row.retry_certificate is not None and row.retry_certificate.passes(row.tolerance)
    assert row.retry_objective_gap < 1e-6
    rec = next(r for r in rep.records() if r["solver"] == "CLARABEL")
    assert rec["failure"] == "settings" and "primal" in rec["retry_cert"]
    assert "verbose re-run" in row.log  # the solver's own messages were captured


def test_failure_causes_time_limit_compile_not_applicable():
    slow = SlowClosedForm.random_instance(20, seed=0)
    rep = compare(slow, ["CLARABEL"], time_limit=3)
    assert rep["closed_form"].failure == "time_limit"
    assert rep["CLARABEL"].verdict == "yes"
    broken = BrokenBuild.random_instance(20, seed=0)
    rep = compare(broken, ["CLARABEL"], closed_form=False, time_limit=30)
    assert rep["CLARABEL"].failure == "compile", rep["CLARABEL"].reason
    if "PIQP" in INSTALLED:  # a QP solver on a second-order-cone program
        rep = compare(FORMULATIONS["areg_stability"].random_instance(20, seed=0),
                      ["CLARABEL", "PIQP"], time_limit=30)
        assert rep["PIQP"].failure == "not_applicable" and rep["PIQP"].verdict == "n/a"


def test_rows_time_the_solver_not_cvxpy():
    f = FORMULATIONS["lssvm"].random_instance(60, seed=0)
    rep = compare(f, ["CLARABEL", "OSQP"], time_limit=60)
    for name in ("CLARABEL", "OSQP"):
        r = rep[name]
        assert r.compile_time > 0 and r.solve_call_time > 0
        assert r.solver_time is not None and r.iterations is not None
        assert r.time <= r.solve_call_time  # the ranking time never includes cvxpy's conversion
        assert r.size["variables"] > 60 and r.solver_version


def test_workers_are_reused(monkeypatch):
    f = FORMULATIONS["lssvm"].random_instance(20, seed=0)
    compare(f, ["CLARABEL", "OSQP"], time_limit=30)  # at least one idle worker afterwards
    started = []
    real = worker._Worker.__init__

    def counting(self):
        started.append(1)
        real(self)

    monkeypatch.setattr(worker._Worker, "__init__", counting)
    compare(f, ["CLARABEL", "OSQP", "ECOS", "SCS"], time_limit=30)
    assert started == []  # five backends, no new process


def _user_module(tmp_path):
    mod = tmp_path / "my_formulations.py"
    mod.write_text(textwrap.dedent('''
        import numpy as np
        from lssvm_cvx.formulations import LSSVM


        class MyRidge(LSSVM):
            """A user's formulation: LS-SVM regression on a sine, width sigma2."""

            @classmethod
            def random_instance(cls, n=50, *, seed=0, sigma2=1.0, gamma=10.0):
                rng = np.random.default_rng(seed)
                X = rng.uniform(-3, 3, size=(n, 1))
                y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
                from lssvm_cvx.kernels import RBF
                return cls(X, y, gamma=gamma, kernel=RBF(sigma2))
    '''))
    return mod


def test_a_user_formulation_class_runs_through_sweep_and_the_cli(tmp_path):
    mod = _user_module(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        from my_formulations import MyRidge  # type: ignore[import-not-found]

        res = sweep([MyRidge], ["CLARABEL", "OSQP"], sizes=[20], repeats=1,
                    params={"sigma2": [0.5, 2.0], "not_a_param": [1]}, out=tmp_path / "py",
                    progress=False)
    finally:
        sys.path.remove(str(tmp_path))
    label = "my_formulations:MyRidge"
    assert {r["formulation"] for r in res.rows} == {label}
    assert sorted({r["params"] for r in res.rows}) == ['{"sigma2": 0.5}', '{"sigma2": 2.0}']
    assert all(r["verdict"] == "yes" for r in res.rows)
    out = tmp_path / "cli"
    done = subprocess.run([sys.executable, "-m", "lssvm_cvx", "sweep", "--formulation",
                           f"{mod}:MyRidge", "--solvers", "CLARABEL", "--sizes", "20",
                           "--repeats", "1", "--param", "gamma=1,100", "--out", str(out),
                           "--quiet"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads((out / "sweep.json").read_text())
    assert len(doc["rows"]) == 2 * 2  # two gammas x (closed form + CLARABEL)
    assert doc["manifest"]["runs"][0]["params"] == {"gamma": [1, 100]}


def test_resume_runs_only_the_added_solver_and_records_every_run(tmp_path):
    out = tmp_path / "sw"
    first = sweep(["lssvm"], ["CLARABEL"], sizes=[20], repeats=2, time_limit=30, out=out,
                  progress=False)
    before = {(r["repeat"], r["solver"]): r for r in first.rows}
    res = sweep(["lssvm"], ["CLARABEL", "OSQP"], sizes=[20], repeats=2, time_limit=20,
                out=out, resume=True, progress=False)
    rows = {(r["repeat"], r["solver"]): r for r in res.rows}
    assert set(rows) == set(before) | {(0, "OSQP"), (1, "OSQP")}
    for key in before:  # untouched, and measured by run 0
        assert str(rows[key]["run"]) == "0" and str(rows[key]["time_limit"]) in ("30", "30.0")
    assert {str(rows[(k, "OSQP")]["run"]) for k in (0, 1)} == {"1"}
    man = json.loads((out / "sweep.json").read_text())["manifest"]
    assert [r["run"] for r in man["runs"]] == [0, 1]
    assert [r["time_limit"] for r in man["runs"]] == [30, 20]
    for key in ("versions", "options", "commit", "machine", "sizes", "seeds", "solvers"):
        assert key in man["runs"][1]
    assert "osqp" in man["runs"][1]["versions"] and "OSQP" in man["runs"][1]["options"]
    md = (out / "summary.md").read_text()
    assert "time limit 20 s, 30 s per solver (as recorded per row)" in md
    assert md.count("| 0 | `sweep(") == 1 and md.count("| 1 | `sweep(") == 1


def test_rerun_failed_reruns_only_those(tmp_path):
    out = tmp_path / "sw"
    loose = {"OSQP": {"eps_abs": 1e-2, "eps_rel": 1e-2, "polishing": False}}
    sweep(["l2svm_dual"], ["CLARABEL", "OSQP"], sizes=[60], repeats=1, out=out, options=loose,
          progress=False)
    res = sweep(["l2svm_dual"], ["CLARABEL", "OSQP"], sizes=[60], repeats=1, out=out,
                rerun="failed", progress=False)
    by = {r["solver"]: r for r in res.rows}
    assert by["OSQP"]["verdict"] == "yes" and str(by["OSQP"]["run"]) == "1"
    assert str(by["CLARABEL"]["run"]) == "0"


def test_outputs_parquet_json_svg_and_profiles(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "sw"
    res = sweep(["lssvm", "regularized_lssvm_l1"], ["CLARABEL", "OSQP"], sizes=[20],
                repeats=1, profiles=["high", "low"], out=out, progress=False)
    names = {p.name for p in res.paths}
    assert {"sweep.csv", "sweep.json", "sweep.parquet", "summary.md", "performance_profile.png",
            "performance_profile.svg", "accuracy_profile.png", "accuracy_profile.svg"} <= names
    df = pd.read_parquet(out / "sweep.parquet")
    csv_df = pd.read_csv(out / "sweep.csv")
    assert len(df) == len(csv_df) == len(res.rows)
    assert set(df["profile"]) == {"high", "low"}
    np.testing.assert_allclose(df["objective"].to_numpy(float), csv_df["objective"].to_numpy(float))
    md = (out / "summary.md").read_text()
    for section in ("## Per solver and profile", "## Failures by cause", "## Where the time goes",
                    "## Provenance", "correct"):
        assert section in md


def test_warm_path_reuses_the_compiled_problem_and_matches_fresh_solves():
    f = FORMULATIONS["lssvm"].random_instance(60, seed=0)
    steps = warm_path(f, "CLARABEL", "gamma", [1.0, 10.0, 100.0], time_limit=60)
    assert [s["status"] for s in steps] == ["optimal"] * 3
    assert steps[1]["compile_s"] < steps[0]["compile_s"]  # DPP: parameters applied, not compiled
    for s in steps:
        fresh = FORMULATIONS["lssvm"].random_instance(60, seed=0)
        fresh.gamma = s["value"]
        ref = fresh.solve("closed_form").objective
        assert abs(s["objective"] - ref) <= 1e-6 * abs(ref)


@pytest.mark.parametrize("name", ["lssvm", "l2svm_dual", "regularized_lssvm_l1", "pareto_krr_sum"])
def test_export_round_trips_through_qpsolvers(tmp_path, name):
    qpsolvers = pytest.importorskip("qpsolvers")
    f = FORMULATIONS[name].random_instance(40, seed=0)
    ref = f.solve("CLARABEL").solver_objective
    path = export_problem(f, tmp_path / f"{name}.npz")
    problem = qpsolvers.Problem.load(str(path))
    offset = float(np.load(path)["offset"])
    solver = next(s for s in ("clarabel", "proxqp", "osqp") if s in qpsolvers.available_solvers)
    tight = {"clarabel": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10},
             "proxqp": {"eps_abs": 1e-10}, "osqp": {"eps_abs": 1e-10, "eps_rel": 1e-10}}[solver]
    x = qpsolvers.solve_problem(problem, solver=solver, **tight).x
    obj = 0.5 * x @ problem.P @ x + problem.q @ x + offset
    assert abs(obj - ref) <= 1e-6 * max(1.0, abs(ref))


def test_export_qps_read_by_highs(tmp_path):
    highspy = pytest.importorskip("highspy")
    f = FORMULATIONS["l2svm_dual"].random_instance(30, seed=0)
    ref = f.solve("CLARABEL").solver_objective
    path = export_problem(f, tmp_path / "l2svm.mps", "qps")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    # kWarning: HiGHS drops Hessian entries below 1e-9 (it says so); the value must still match
    assert h.readModel(str(path)) in (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning)
    h.run()
    assert abs(h.getInfo().objective_function_value - ref) <= 1e-6 * max(1.0, abs(ref))


def test_export_conic_data_solved_by_clarabel_directly(tmp_path):
    """A second-order-cone program: the npz's conic data, handed to Clarabel without cvxpy,
    give cvxpy's optimal value."""
    clarabel = pytest.importorskip("clarabel")
    import scipy.sparse as sp

    f = FORMULATIONS["areg_stability"].random_instance(20, seed=0)
    ref = f.solve("CLARABEL").solver_objective
    path = export_problem(f, tmp_path / "areg.npz")
    d = np.load(path)
    assert "P" not in d.files  # not a QP: the conic data only

    def csc(key):
        return sp.csc_matrix((d[f"cone_{key}_data"], d[f"cone_{key}_indices"],
                              d[f"cone_{key}_indptr"]), shape=tuple(d[f"cone_{key}_shape"]))

    n = d["cone_q"].size
    P = csc("P") if "cone_P_data" in d.files else sp.csc_matrix((n, n))
    # cvxpy's form A x + b in K is Clarabel's  -A x + s = b, s in K
    cones = ([clarabel.ZeroConeT(int(d["cone_zero"]))] if int(d["cone_zero"]) else []) + (
        [clarabel.NonnegativeConeT(int(d["cone_nonneg"]))] if int(d["cone_nonneg"]) else []) + [
        clarabel.SecondOrderConeT(int(k)) for k in d["cone_soc"]]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    sol = clarabel.DefaultSolver(P, d["cone_q"], -csc("A"), d["cone_b"], cones, settings).solve()
    assert abs(sol.obj_val + float(d["cone_d"]) - ref) <= 1e-6 * max(1.0, abs(ref))
    assert not program_data(f)["is_qp"]


def test_problem_specs_accept_names_classes_strings_and_factories():
    def family(n, seed=0, sigma2=1.0):
        return FORMULATIONS["lssvm"].random_instance(n, seed=seed, sigma2=sigma2)

    specs = problem_specs(["lssvm", LSSVM, "lssvm_cvx.formulations:LSSVM", family][:1]
                          + [family])
    assert [s.label for s in specs] == ["lssvm", "family"]
    assert "sigma2" in specs[1].accepts
    from lssvm_cvx.exceptions import InputError

    with pytest.raises(InputError, match="twice"):
        problem_specs(["lssvm", LSSVM])
    with pytest.raises(InputError, match="cannot import"):
        problem_specs(["no_such_module_xyz:Cls"])


def test_a_reported_time_of_zero_is_no_report():
    """PIQP and ProxQP read 0.0 through cvxpy: ranked by it they won every problem of the full
    sweep (a performance profile with every other solver at infinity); the report ranks such a
    run by the call's time."""
    from lssvm_cvx.harness.sweep_report import shifted_geometric_mean, solver_table

    base = {"formulation": "lssvm", "n": 60, "repeat": 0, "profile": "default",
            "status": "optimal", "verdict": "yes", "agrees": True, "time_limit": 60.0,
            "cert_primal": 1e-9, "cert_dual": 1e-9, "cert_gap": 1e-9, "failure": ""}
    rows = [dict(base, solver="ZERO", solver_s=0.0, solve_call_s=0.5, time_s=0.0),
            dict(base, solver="REAL", solver_s=0.01, solve_call_s=0.02, time_s=0.01)]
    table = {r["solver"]: r for r in solver_table(rows, 60.0)}
    assert table["REAL"]["shm time"] == 1.0 and table["ZERO"]["shm time"] > 1.0
    assert table["ZERO"]["shm time [s]"] == pytest.approx(shifted_geometric_mean([0.5]))


def test_rewrite_report_derives_the_report_from_the_rows(tmp_path):
    """A sweep folder's report rewritten from its rows (the committed quick sweep): nothing runs,
    the summary says it was rewritten and ranks by the current rule."""
    import shutil
    from pathlib import Path

    from lssvm_cvx.harness.sweep_files import read_rows, rewrite_report

    src = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "quick" / "sweep"
    out = tmp_path / "sweep"
    shutil.copytree(src, out)
    rows_before = (out / "sweep.csv").read_text(encoding="utf-8")
    md = rewrite_report(out).read_text(encoding="utf-8")
    assert "report rewritten from these rows at commit" in md and "## Per solver" in md
    assert (out / "sweep.csv").read_text(encoding="utf-8") == rows_before
    assert (out / "performance_profile.png").stat().st_size > 0 and len(read_rows(out / "sweep.csv"))
