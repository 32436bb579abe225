"""The package's structure (issue 12, item 6): imports flow one way through the layers of
``[tool.importlinter]`` in pyproject.toml (function-level imports count), no module is longer
than 600 lines, no private name crosses a module boundary, and the catalogue and benchmarks
are served as ``lssvm_cvx.problems`` / ``lssvm_cvx.benchmarks`` only."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "lssvm_cvx"
#: source folders installed as part of the package (pyproject package-dir)
SOURCES = {"lssvm_cvx": PKG, "lssvm_cvx.problems": ROOT / "problems",
           "lssvm_cvx.benchmarks": ROOT / "benchmarks"}
MAX_LINES = 600

tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")


def _pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def _modules() -> dict[str, Path]:
    """Dotted name -> file of every module the package installs."""
    out = {}
    for base, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if base == "lssvm_cvx.problems" and "data" in parts:  # the data builder script
                continue
            out[".".join([base, *parts])] = path
    return out


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def test_import_layers_contract_is_kept():
    """import-linter's layers contract (the layer order of COORD.md / DESIGN.md)."""
    cli = pytest.importorskip("importlinter.cli")
    code = cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                            no_logo=True)
    assert code == 0, "an import breaks the layer order: run `lint-imports` for the chain"


def test_every_module_belongs_to_a_layer():
    """A new top-level module or subpackage must be placed in the contract, or the check would
    silently ignore it."""
    layers = _pyproject()["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {n.strip().strip("()") for layer in layers for n in re.split(r"[:|]", layer)}
    top = {f"lssvm_cvx.{p.stem if p.suffix == '.py' else p.name}" for p in PKG.iterdir()
           if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()}
    assert top - named == set()


def test_no_module_is_longer_than_600_lines():
    long = {m: n for m, p in _modules().items()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_private_name_is_imported_across_modules():
    """``from .x import _y`` (or ``import lssvm_cvx._x``) anywhere in the package, at any
    level of a function, is a private name crossing a module boundary."""
    bad = []
    for module, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(node, module, is_pkg)
                if not target.startswith("lssvm_cvx"):
                    continue
                names = [a.name for a in node.names]
                mods = target.split(".")
            elif isinstance(node, ast.Import):
                names, mods = [], [p for a in node.names if a.name.startswith("lssvm_cvx")
                                   for p in a.name.split(".")]
            else:
                continue
            for n in names + mods:
                if n.startswith("_") and not (n.startswith("__") and n.endswith("__")):
                    bad.append(f"{module}:{node.lineno} imports {n}")
    assert bad == []


#: private attributes of other libraries the package must reach, each with its reason
FOREIGN_PRIVATE = {
    ("lssvm_cvx.cli", "_exit"): "os._exit: end a worker without running the parent's handlers",
    ("lssvm_cvx.harness.worker", "_exit"): "os._exit, as above",
    ("lssvm_cvx.harness.sweep", "_processes"): "a ProcessPoolExecutor's workers, killed at the "
                                               "time limit (concurrent.futures has no API)",
    ("lssvm_cvx.selection.pareto", "_cache"): "cvxpy's compiled parametric program of a Problem "
                                              "(reused along a Pareto path)",
}




def _members(tree: ast.AST) -> set[str]:
    """Names a module defines for its own objects: classes, functions, class-level names,
    ``self.x`` / ``cls.x`` assignments and module-level names."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        if isinstance(n, ast.ClassDef):
            for b in n.body:
                if isinstance(b, ast.Assign):
                    out.update(t.id for t in b.targets if isinstance(t, ast.Name))
                elif isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
                    out.add(b.target.id)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) \
                and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"):
            out.add(n.attr)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
    return out


def _private_reach(tree: ast.AST):
    """``(line, name)`` of every private attribute read or written on an object other than
    ``self``, ``cls`` or ``super()``, as ``obj._x`` or ``getattr/hasattr/setattr(obj, "_x")``."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute):
            obj, name = n.value, n.attr
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id in ("getattr", "hasattr", "setattr") and len(n.args) >= 2 \
                and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            obj, name = n.args[0], n.args[1].value
        else:
            continue
        if not name.startswith("_") or name.startswith("__"):
            continue
        if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            continue
        if isinstance(obj, ast.Call) and isinstance(obj.func, ast.Name) and obj.func.id == "super":
            continue
        yield n.lineno, name


def test_no_private_attribute_is_reached_across_modules():
    """Issue 30, item 5: a module uses only its own private attributes (``f._omega()``,
    ``est._make_kernel``, ``hess._ball = ...`` from another module are defects: the owner
    offers a public method, or hands the callable over).  A private name the module defines
    itself (a marker it sets and reads, defined by no other module) is its own; the
    foreign-library reaches are listed with their reasons in :data:`FOREIGN_PRIVATE`."""
    trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in _modules().items()
             if m.startswith("lssvm_cvx.") and not m.startswith(("lssvm_cvx.benchmarks",
                                                                 "lssvm_cvx.problems"))}
    members = {m: _members(t) for m, t in trees.items()}
    bad = []
    for module, tree in trees.items():
        others = set().union(*(v for k, v in members.items() if k != module))
        # a marker the module sets on objects (a function's flag) is its own unless another
        # module defines that name for its objects
        marks = {n.attr for n in ast.walk(tree)
                 if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)} - others
        for line, name in _private_reach(tree):
            if name in members[module] | marks or (module, name) in FOREIGN_PRIVATE:
                continue
            bad.append(f"{module}:{line} reaches {name}")
    assert bad == []


def test_the_private_reach_check_can_fail():
    tree = ast.parse("def f(form, est):\n    form._omega()\n    getattr(est, '_gamma')\n"
                     "    self._mine = 1\n")
    assert sorted(name for _, name in _private_reach(tree)) == ["_gamma", "_omega"]
    assert "_mine" in _members(tree) and "_omega" not in _members(tree)


def test_no_top_level_problems_or_benchmarks_imports():
    """The catalogue and the benchmarks are ``lssvm_cvx.problems`` / ``lssvm_cvx.benchmarks``;
    nothing (package, tests, benchmarks) imports the folders as top-level packages."""
    bad = []
    files = list(_modules().values()) + sorted((ROOT / "tests").rglob("*.py"))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [])
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names
                    if n.split(".")[0] in ("problems", "benchmarks")]
    assert bad == []


def test_pyproject_lists_every_package():
    """``[tool.setuptools] packages`` is explicit (package-dir maps problems/ and benchmarks/
    into the namespace); it must name every package of the source tree."""
    cfg = _pyproject()["tool"]["setuptools"]
    found = {m for m, p in _modules().items() if p.name == "__init__.py"}
    assert set(cfg["packages"]) == found
    assert cfg["package-dir"] == {"lssvm_cvx.problems": "problems",
                                  "lssvm_cvx.benchmarks": "benchmarks"}


def test_catalogue_is_served_inside_the_package():
    import lssvm_cvx.benchmarks
    import lssvm_cvx.problems

    assert Path(lssvm_cvx.problems.__file__).resolve().parent == ROOT / "problems"
    assert Path(lssvm_cvx.benchmarks.__file__).resolve().parent == ROOT / "benchmarks"
