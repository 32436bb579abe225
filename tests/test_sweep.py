"""``lssvm-cvx sweep``: long-format CSV, summary with rates and shifted geometric means, the
Dolan–Moré profile, resume, and parallel cells."""

from __future__ import annotations

import csv

import pytest

from lssvm_cvx.cli import main
from lssvm_cvx.harness.sweep import SWEEP_COLUMNS, shifted_geometric_mean, summarize, sweep


def test_shifted_geometric_mean():
    assert shifted_geometric_mean([1.0, 1.0], shift=1.0) == pytest.approx(1.0)
    assert shifted_geometric_mean([0.0, 3.0], shift=1.0) == pytest.approx(1.0)
    assert shifted_geometric_mean([4.0, 16.0], shift=0.0) == pytest.approx(8.0)


def test_sweep_writes_csv_summary_profile_and_resumes(tmp_path, capsys):
    out = tmp_path / "sw"
    code = main(["sweep", "--only", "lssvm,l2svm_radius", "--solvers", "CLARABEL,OSQP",
                 "--sizes", "20", "--repeats", "2", "--time-limit", "30", "--out", str(out),
                 "--jobs", "2", "--quiet"])
    assert code == 0
    rows = list(csv.DictReader((out / "sweep.csv").open()))
    assert list(rows[0]) == list(SWEEP_COLUMNS)
    # lssvm: closed form + 2 solvers; l2svm_radius: 2 solvers (no closed form); 2 repeats
    assert len(rows) == 2 * 3 + 2 * 2, [r["error"] for r in rows]
    assert {r["solver"] for r in rows} == {"closed_form", "CLARABEL", "OSQP"}
    md = (out / "summary.md").read_text()
    assert "| high | CLARABEL |" in md and "shm time" in md and "correct" in md
    assert (out / "performance_profile.png").stat().st_size > 1000
    # resume: nothing left to run, same rows
    res = sweep(["lssvm", "l2svm_radius"], ["CLARABEL", "OSQP"], sizes=[20], repeats=2,
                out=out, resume=True, progress=False)
    assert len(res.rows) == len(rows) and res.wall < 15


def test_summary_names_failures_and_why():
    rows = [
        {"formulation": "f", "n": 10, "solver": "A", "repeat": 0, "profile": "high",
         "status": "optimal", "setup_s": 0.1, "solve_s": 0.1, "agrees": True},
        {"formulation": "f", "n": 10, "solver": "B", "repeat": 0, "profile": "high",
         "status": "time_limit", "setup_s": None, "solve_s": None, "agrees": False,
         "reason": "no point: status time_limit", "error": "stopped after 5 s"},
    ]
    md = summarize(rows, time_limit=5.0, solvers=["A", "B"], sizes=[10], repeats=1)
    assert ("| f | B | 1/1 | time_limit | time_limit | no point: status time_limit; error: stopped "
            "after 5 s |") in md
    assert "| high | A | 1 | 1 | 100% (1/1)" in md and "| high | B | 1 | 1 | 0% (0/1)" in md


@pytest.mark.parametrize("first", ["lssvm_cvx.harness.sweep", "lssvm_cvx.harness.compare"])
def test_the_public_names_are_the_functions_whatever_was_imported_first(first):
    """``from lssvm_cvx.harness import sweep`` once gave the submodule when a test had imported
    ``lssvm_cvx.harness.sweep`` before (the README's code failed in CI, not alone)."""
    import subprocess
    import sys

    code = (f"import importlib; importlib.import_module({first!r})\n"
            "from lssvm_cvx.harness import compare, sweep\n"
            "assert callable(sweep) and callable(compare), (sweep, compare)\n"
            "import lssvm_cvx.harness.sweep as m; assert callable(m)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
