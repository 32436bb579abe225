"""A results file older than the code it measures is flagged (issue 32, item 2): for every
committed full results file, the benchmark module that wrote it and every module of
``lssvm_cvx`` (and of the ``benchmarks`` and ``problems`` packages) it imports, transitively,
function-level imports included; if any of those files changed between the file's commit and
``HEAD``, the file is stale.

:data:`STALE` lists the stale files with the number of measured files changed since: a ratchet.
A file that becomes stale must be added (or regenerated, ``lssvm-cvx bench --only NAME``), a
file that was regenerated must leave the list.  The list is what the check computes, so a
change to library code shows, in this test's failure, which committed results it made stale.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
#: package name -> source folder (pyproject's package-dir)
SOURCES = {"lssvm_cvx.benchmarks": ROOT / "benchmarks", "lssvm_cvx.problems": ROOT / "problems",
           "lssvm_cvx": ROOT / "lssvm_cvx"}

#: results files whose measured code changed after their commit; see the module docstring.
#: Regenerate with ``lssvm-cvx bench --only NAME`` from a clean tree.
STALE: frozenset[str] = frozenset({
    "areg_table2",
    "areg_table2_claim",
    "areg_table3",
    "areg_table3_adult",
    "auto_real",
    "auto_sinc",
    "componentwise_defaults",
    "componentwise_kernel_choice",
    "componentwise_spam",
    "componentwise_table1",
    "device",
    # 2026-12-07 (thirtieth session): the sweep ran at af9d153 (the gated batch); c5ef0db then
    # renamed module-internal helpers of bench.py, harness/sweep_files.py and sweep_report.py
    # (private names, no behaviour: the sweep gate of tests/test_results_hygiene.py passes)
    "harness_verdicts",
    "l2svm_adult",
    "l2svm_mixture",
    "l2svm_raetsch",
    "l2svm_spam",
    "l2svm_speed",
    "l2svm_table3",
    "pareto_alternatives",
    "pareto_kpcr",
    "pareto_krr",
    "pareto_table3",
    "selection_semantics",
})


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          timeout=60)


def _module_file(name: str) -> Path | None:
    for pkg, folder in SOURCES.items():
        if name == pkg or name.startswith(pkg + "."):
            rel = name[len(pkg):].lstrip(".").replace(".", "/")
            base = folder / rel if rel else folder
            for cand in (base.with_suffix(".py"), base / "__init__.py"):
                if cand.is_file():
                    return cand
    return None


def _resolve(module: str, level: int, here: str, is_pkg: bool) -> str:
    if level == 0:
        return module
    parts = here.split(".")
    base = parts if is_pkg else parts[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([module] if module else []))


def _defining_module(package: str, name: str) -> str | None:
    """The module that defines ``package.name``: the submodule of that name, or the module of
    the class or function a package re-exports (``from lssvm_cvx import AutoLSSVMRegressor``
    measures ``lssvm_cvx/estimators/auto.py``, not every estimator the package exports)."""
    import importlib

    if _module_file(f"{package}.{name}") is not None:
        return f"{package}.{name}"
    try:
        obj = getattr(importlib.import_module(package), name)
    except (ImportError, AttributeError):
        return None
    mod = getattr(obj, "__module__", None)
    return mod if isinstance(mod, str) and _module_file(mod) is not None else None


@cache
def _imports(name: str) -> frozenset[str]:
    """The package modules ``name`` imports (any level, function bodies too), each name
    imported from a package resolved to the module that defines it."""
    path = _module_file(name)
    if path is None:
        return frozenset()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    out: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(node.module or "", node.level, name, is_pkg)
            target = _module_file(mod)
            if target is not None and target.name == "__init__.py":
                out.update(_defining_module(mod, a.name) for a in node.names if a.name != "*")
            else:
                out.add(mod)
    return frozenset(m for m in out if m is not None and _module_file(m) is not None)


def measured_files(module: str) -> set[Path]:
    """The files of ``module`` and of the package modules it imports, transitively (a package's
    ``__init__`` re-exports are followed to the defining modules, not taken whole)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo += list(_imports(m))
    return {f for m in seen if (f := _module_file(m)) is not None and f.name != "__init__.py"}


def stale_results(results: Path = RESULTS) -> dict[str, int]:
    """``{results name: number of measured files changed since its commit}`` for the stale
    full results files in ``results``."""
    from lssvm_cvx.bench import discover

    reg = discover()
    out = {}
    for js in sorted(results.glob("*.json")):
        doc = json.loads(js.read_text(encoding="utf-8"))
        bench = reg.get(doc.get("name"))
        commit = str((doc.get("meta") or {}).get("commit"))
        if bench is None or not re.fullmatch(r"[0-9a-f]{40}", commit):
            continue
        files = sorted(str(p.relative_to(ROOT)) for p in measured_files(bench.func.__module__))
        changed = _git("diff", "--name-only", commit, "HEAD", "--", *files).stdout.split()
        if changed:
            out[doc["name"]] = len(changed)
    return out


def _history() -> bool:
    """A git checkout with the results' commits (a shallow clone has not)."""
    if _git("rev-parse", "--git-dir").returncode != 0:
        return False
    sha = json.loads((RESULTS / "areg_fig2.json").read_text(encoding="utf-8"))["meta"]["commit"]
    return _git("cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


def test_the_measured_code_of_a_benchmark_is_found():
    files = {str(p.relative_to(ROOT)) for p in measured_files("lssvm_cvx.benchmarks.auto_sinc")}
    assert "benchmarks/auto_sinc.py" in files
    assert "lssvm_cvx/estimators/auto.py" in files                  # imported by the benchmark
    assert "lssvm_cvx/linalg/penalized.py" in files                 # a function-level import
    assert "lssvm_cvx/exceptions.py" in files                        # transitively


def test_stale_results_are_listed():
    if not _history():
        pytest.skip("no git history with the results' commits (a shallow clone)")
    now = stale_results()
    new = sorted(set(now) - set(STALE))
    gone = sorted(set(STALE) - set(now))
    assert not new and not gone, (
        f"stale and not listed: {new} (regenerate with lssvm-cvx bench --only NAME, or add them "
        f"to STALE); listed but no longer stale: {gone} (remove them). Now: {now}")


def test_the_check_flags_an_old_file_and_passes_a_current_one(tmp_path):
    """The same results file dated at HEAD is current, dated at the first commit is stale."""
    if not _history():
        pytest.skip("no git history with the results' commits (a shallow clone)")
    doc = json.loads((RESULTS / "auto_sinc.json").read_text(encoding="utf-8"))
    head = _git("rev-parse", "HEAD").stdout.strip()
    root = _git("rev-list", "--max-parents=0", "HEAD").stdout.split()[0]
    for commit, stale in ((head, False), (root, True)):
        doc["meta"]["commit"] = commit
        (tmp_path / "auto_sinc.json").write_text(json.dumps(doc), encoding="utf-8")
        assert ("auto_sinc" in stale_results(tmp_path)) is stale, commit
