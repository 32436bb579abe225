"""Ctrl-C stops cleanly (issue 27): ``lssvm-cvx sweep``, ``compare`` and ``bench`` get SIGINT
at several moments — sent to the whole process group, as a terminal's Ctrl-C is — and must exit
130 with one line and no traceback from any process, write no partial row, and ``--resume``
then runs exactly what is missing.  ``compare()`` also runs inside a daemonic
``multiprocessing.Pool`` worker (in-process backends)."""

from __future__ import annotations

import csv
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

# 32 cells: about 14 s on a 2-core AMD EPYC, so that the last signal (7 s) lands while cells run
# (with 2 repeats, 8 s in all there, it landed after the last cell)
SWEEP = ["sweep", "--only", "lssvm,regularized_lssvm_l1", "--sizes", "30,60,200,300", "--repeats", "4",
         "--solvers", "CLARABEL,OSQP,SCS", "--time-limit", "20"]
SOLVERS_PER_CELL = {"lssvm": 4, "regularized_lssvm_l1": 3}  # with the closed form where it exists
CELLS = 32  # enough that the sweep still runs at the last interrupt (workers are reused)


def _interrupt(args: list[str], after: float, cwd: Path, *,
               wait_for: Path | None = None) -> tuple[int, str, str]:
    """Run the command, send Ctrl-C ``after`` seconds (after ``wait_for`` exists, if given: a
    file the run writes, so the signal lands at a known stage on a fast or a slow machine)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}
    proc = subprocess.Popen([sys.executable, "-m", "lssvm_cvx", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=env,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while wait_for is not None and not wait_for.exists() and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(after)
    try:
        os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C: the whole process group
    except ProcessLookupError:
        pass
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _cells(path: Path) -> Counter:
    with path.open(newline="") as fh:
        return Counter((r["formulation"], r["n"], r["repeat"]) for r in csv.DictReader(fh))


def _assert_clean(code: int, out: str, err: str) -> None:
    assert code == 130, (code, out[-2000:], err[-2000:])
    assert "Traceback" not in out + err, err[-3000:]
    last = [ln for ln in err.strip().splitlines() if ln.strip()][-1]
    assert "interrupted" in last, err[-2000:]


@pytest.mark.parametrize("after", [0.3, 1.0, 4.0, 7.0])
def test_sweep_stops_on_ctrl_c_and_resume_runs_exactly_the_rest(tmp_path, after):
    out = tmp_path / "sweep"
    code, stdout, stderr = _interrupt([*SWEEP, "--out", str(out)], after, tmp_path)
    _assert_clean(code, stdout, stderr)
    csv_path = out / "sweep.csv"
    before = _cells(csv_path) if csv_path.exists() else Counter()
    for (name, _, _), rows in before.items():  # only whole cells were written
        assert rows == SOLVERS_PER_CELL[name], before
    if csv_path.exists() and len(before) < CELLS:  # the signal landed while cells ran
        assert "**interrupted** (Ctrl-C)" in (out / "summary.md").read_text()
    # (on a fast machine the last moments land after every cell, while the outputs are written:
    # the rows are all there and --resume writes the outputs again)
    if not before:
        return  # interrupted before the first cell finished: nothing to resume
    done = subprocess.run([sys.executable, "-m", "lssvm_cvx", *SWEEP, "--out", str(out),
                           "--resume", "--quiet"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    after_cells = _cells(csv_path)
    assert len(after_cells) == CELLS
    assert all(rows == SOLVERS_PER_CELL[name] for (name, _, _), rows in after_cells.items())
    assert "**interrupted** (Ctrl-C)" not in (out / "summary.md").read_text()


@pytest.mark.parametrize("after", [0.5, 2.5])
def test_compare_stops_on_ctrl_c_with_one_line(tmp_path, after):
    # n = 600: about 11 s on a 2-core AMD EPYC (n = 200 finished within 2.6 s there, before the
    # later signal)
    args = ["compare", "regularized_lssvm_l1", "--n", "600", "--solvers",
            "CLARABEL,ECOS,SCS,OSQP", "--time-limit", "60"]
    code, out, err = _interrupt(args, after, tmp_path)
    _assert_clean(code, out, err)
    assert out.strip() == ""  # no partial report on stdout


def test_bench_stops_on_ctrl_c_writes_only_finished_benchmarks_and_resumes(tmp_path):
    out = tmp_path / "res"
    args = ["bench", "--quick", "--only", "harness_verdicts,selection_semantics", "--out",
            str(out), "--no-progress"]
    # Ctrl-C 2 s into the second benchmark (quick selection_semantics runs for 20 s or more)
    code, stdout, stderr = _interrupt(args, 2.0, tmp_path, wait_for=out / "harness_verdicts.md")
    _assert_clean(code, stdout, stderr)
    assert not (out / "selection_semantics.md").exists()  # cut short: nothing of it written
    assert (out / "harness_verdicts.md").exists()
    done = subprocess.run([sys.executable, "-m", "lssvm_cvx", *args, "--resume"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "skipped (--resume)" in done.stdout and (out / "selection_semantics.md").exists()
    # the sweep harness_verdicts runs writes under --out, never into the package's results
    assert (out / "sweep" / "sweep.csv").exists()


def _compare_in_pool(_):
    from lssvm_cvx.formulations import LSSVM
    from lssvm_cvx.validate import compare

    rep = compare(LSSVM.random_instance(30), ["CLARABEL", "OSQP"], time_limit=30)
    return rep.all_agree, rep["CLARABEL"].log


def test_compare_inside_a_daemonic_pool_worker():
    with mp.get_context("spawn").Pool(1) as pool:
        agree, log = pool.map(_compare_in_pool, [0])[0]
    assert agree and "in-process" in log
