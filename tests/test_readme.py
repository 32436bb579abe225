"""The README starts with the two commands CI and new users run, and its tour runs."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_begins_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert block == ['pip install -e ".[test]" && lssvm-cvx bench --quick',
                     'pip install -e ".[test]" && pytest']
    assert text.index("```bash") < 40  # right under the title


def test_ci_runs_the_readme_test_command():
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -e ".[test]" && pytest' in ci


def test_tour_runs(tmp_path, monkeypatch):
    text = README.read_text(encoding="utf-8")
    code = re.search(r"## A 20-line tour\n\n```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README-tour", "exec"), {"__name__": "__readme__"})
    assert (tmp_path / "model.npz").exists()


def test_estimator_screen_runs(tmp_path, monkeypatch):
    """The per-paper estimator example runs and selects what the README says it prints."""
    text = README.read_text(encoding="utf-8")
    code = re.search(r"## The paper estimators in one screen\n\n```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    ns = {"__name__": "__readme__"}
    exec(compile(code, "README-estimators", "exec"), ns)
    assert abs(ns["areg"].lambda_.sum() - 1) < 1e-8
    kept = {cols[0] for cols, _ in ns["cw"].selected_labels()}
    assert {0, 1, 2, 3} <= kept
    assert ns["svm"].score(ns["ban"].X[ns["te"]], ns["ban"].y[ns["te"]]) > 0.8
    assert (ns["lo"] < ns["hi"]).all()
