"""The ``lssvm-cvx`` command: compare, formulations, bench (outputs, atomic files, Dask)."""

from __future__ import annotations

import json
import threading

import pytest

from lssvm_cvx.bench import Context
from lssvm_cvx.cli import main


def test_formulations_lists_the_registry(capsys):
    assert main(["formulations"]) == 0
    out = capsys.readouterr().out
    assert "lssvm " in out and "(2)" in out


def test_compare_prints_the_harness_report(capsys):
    assert main(["compare", "lssvm", "--n", "40", "--solvers", "CLARABEL,SCS"]) == 0
    out = capsys.readouterr().out
    assert "| closed_form |" in out and "| CLARABEL |" in out and "| SCS |" in out


def test_compare_json(capsys):
    assert main(["compare", "lssvm_classifier", "--n", "30", "--solvers", "CLARABEL", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["backend"] for r in report["rows"]] == ["closed_form", "CLARABEL"]


def test_unknown_names_are_clear_errors(capsys):
    assert main(["compare", "no_such_formulation"]) == 2
    assert "unknown formulation" in capsys.readouterr().err
    assert main(["bench", "--only", "no_such_bench", "--out", "/tmp/x"]) == 2


def test_bench_writes_markdown_json(tmp_path, capsys):
    assert main(["bench", "--quick", "--only", "lssvm_loo", "--out", str(tmp_path), "--no-progress"]) == 0
    md = (tmp_path / "lssvm_loo.md").read_text()
    assert "- command:" in md and "- machine:" in md and "## Claims checked" in md
    data = json.loads((tmp_path / "lssvm_loo.json").read_text())
    assert data["mode"] == "quick" and data["tables"] and all(c["ok"] for c in data["checks"].values())
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind
    assert main(["bench", "--list"]) == 0
    assert "lssvm_solvers" in capsys.readouterr().out


def _where(x):
    return threading.current_thread().name, x * x


def test_context_map_runs_on_a_local_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        ctx = Context(scheduler=cluster.scheduler_address, progress=False)
        out = ctx.map(_where, [1, 2, 3])
        assert [v for _, v in out] == [1, 4, 9]
        assert all("Dask" in name for name, _ in out), out  # ran on the cluster's worker threads
        assert main(["bench", "--quick", "--only", "lssvm_loo", "--out", str(tmp_path),
                     "--scheduler", cluster.scheduler_address, "--no-progress"]) == 0
        assert (tmp_path / "lssvm_loo.json").exists()


def test_context_map_with_joblib_processes():
    ctx = Context(jobs=2, progress=False)
    assert ctx.map(abs, [-1, -2, 3]) == [1, 2, 3]
