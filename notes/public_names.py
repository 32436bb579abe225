"""Why each public top-level name added to ``lssvm_cvx/`` since the issue's count is public
(issue 30: "the number of public top-level names (422) goes down or each addition is
justified").  Reads the files (git for the base, the work tree for HEAD); runs nothing.

A public top-level function or class of module M is classified by who names it, first match:

* ``cross-module``: another module of the package names it in code (an import, a name, an
  attribute); STYLE.md forbids a private name used across modules, so it cannot be private;
* ``documented``: the docs (``docs/``: pages and gallery), the README or ``../shared/DESIGN.md``
  name it: user-facing;
* ``benchmarks``: the benchmarks or the problem catalogue (``benchmarks/``, ``problems/``) name
  it in code;
* ``tests``: only the tests name it (a unit tested on its own);
* ``own module``: nothing outside M names it: a candidate to make private.

A name is matched as an identifier in code (Python files) and as a word in text (docs), so a
common word (``Table``) can be over-counted; the classification is an upper bound of the
outside use, and an ``own module`` name is certainly unused elsewhere.

    python notes/public_names.py [BASE]     # default b8630a7 (the issue's count)
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

BASE = sys.argv[1] if len(sys.argv) > 1 else "b8630a7"
ROOT = Path(__file__).resolve().parents[1]
REASONS = ("cross-module", "documented", "benchmarks", "tests", "own module")


def top_level(src: str) -> list[ast.FunctionDef | ast.ClassDef]:
    """The public top-level functions and classes of one module."""
    return [n for n in ast.parse(src).body
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]


def code_names(src: str) -> set[str]:
    """The identifiers a Python file uses in code: names, attributes and imported names."""
    out: set[str] = set()
    for n in ast.walk(ast.parse(src)):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.ImportFrom):
            out.update(a.name for a in n.names)
    return out


def base_names() -> tuple[set[str], int]:
    """The public top-level names of the package at ``BASE``, and their number counted per
    module (the issue's count: a name defined in two modules counts twice)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", BASE,
                            "lssvm_cvx"], capture_output=True, text=True, check=True).stdout
    names: set[str] = set()
    count = 0
    for f in files.split():
        if f.endswith(".py"):
            src = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASE}:{f}"],
                                 capture_output=True, text=True, check=True).stdout
            defs = [n.name for n in top_level(src)]
            names.update(defs)
            count += len(defs)
    return names, count


def main() -> None:
    """Print the counts by reason and the table of added names."""
    pkg = {str(p.relative_to(ROOT)): code_names(p.read_text(encoding="utf-8"))
           for p in sorted((ROOT / "lssvm_cvx").rglob("*.py"))}
    groups = {"benchmarks": [ROOT / "benchmarks", ROOT / "problems"], "tests": [ROOT / "tests"]}
    used = {k: set().union(*(code_names(p.read_text(encoding="utf-8"))
                             for d in dirs for p in d.rglob("*.py")))
            for k, dirs in groups.items()}
    text = [p for p in (ROOT / "docs").rglob("*") if p.is_file() and "_build" not in p.parts
            and p.suffix in (".py", ".rst", ".md", ".txt")]
    text += [ROOT / "README.md", ROOT.parent / "shared" / "DESIGN.md"]
    used["documented"] = set().union(*(re.findall(r"[A-Za-z_]\w*", p.read_text(encoding="utf-8"))
                                       for p in text if p.exists()))
    old, n_old = base_names()
    rows, total = [], 0
    for mod in pkg:
        src = (ROOT / mod).read_text(encoding="utf-8")
        for n in top_level(src):
            total += 1
            if n.name in old:
                continue
            others = [m for m, names in pkg.items() if m != mod and n.name in names]
            reason = ("cross-module" if others else "documented" if n.name in used["documented"]
                      else "benchmarks" if n.name in used["benchmarks"]
                      else "tests" if n.name in used["tests"] else "own module")
            doc = (ast.get_docstring(n) or "").strip().split("\n")[0]
            who = ", ".join(m.removeprefix("lssvm_cvx/") for m in others[:3])
            who += f" (+{len(others) - 3})" if len(others) > 3 else ""
            rows.append((mod.removeprefix("lssvm_cvx/"), n.name, reason, who, doc))
    counts = Counter(r[2] for r in rows)
    print(f"public top-level functions and classes: {n_old} at {BASE}, {total} now; "
          f"{len(rows)} of today's were not public at {BASE}\n")
    print("| why public | added names |\n|---|---|")
    for r in REASONS:
        print(f"| {r} | {counts[r]} |")
    print("\n| module | name | why public | named by (other modules) | what it is (first docstring line) |")
    print("|---|---|---|---|---|")
    for mod, name, reason, who, doc in sorted(rows, key=lambda r: (REASONS.index(r[2]), r[0])):
        print(f"| `{mod}` | `{name}` | {reason} | {who} | {doc.replace('|', '/')} |")


if __name__ == "__main__":
    main()
