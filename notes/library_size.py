"""Where the lines of ``lssvm_cvx/`` are, at two revisions (issue 30: "the library is
smaller"): per package, each split into code, docstrings, comments and blank lines, and the
public names (the modules' ``__all__``).  Reads the files from git; runs nothing.

    python notes/library_size.py [BASE [HEAD]]      # default b8630a7 (the issue's count) and HEAD
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter

BASE, HEAD = (sys.argv[1:] + ["b8630a7", "HEAD"][len(sys.argv) - 1:])[:2]


def _git(*args: str) -> str:
    """The output of one git command."""
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def files(rev: str) -> dict[str, str]:
    """The package's Python files at ``rev``: path -> text."""
    names = [p for p in _git("ls-tree", "-r", "--name-only", rev, "lssvm_cvx").split()
             if p.endswith(".py")]
    return {p: _git("show", f"{rev}:{p}") for p in names}


def split(src: str) -> Counter:
    """Lines of one file by kind: docstring, comment, blank, code."""
    lines = src.splitlines()
    tree = ast.parse(src)
    doc: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(getattr(n.body[0], "value", None), ast.Constant) \
                and isinstance(n.body[0].value.value, str):
            doc.update(range(n.body[0].lineno, n.body[0].end_lineno + 1))
    c: Counter = Counter(total=len(lines))
    for i, line in enumerate(lines, 1):
        s = line.strip()
        c["docstring" if i in doc else "blank" if not s else "comment" if s.startswith("#")
          else "code"] += 1
    return c


def public(src: str) -> list[str]:
    """The names of a module's ``__all__`` (empty where it has none or computes it)."""
    for n in ast.parse(src).body:
        if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets):
            try:
                return list(ast.literal_eval(n.value))
            except ValueError:
                return []
    return []


def top_level(src: str) -> int:
    """Public top-level functions and classes (the issue's "public top-level names")."""
    return sum(isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")
               for n in ast.parse(src).body)


def package(path: str) -> str:
    """The subpackage a file belongs to."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else "(top level)"


def summary(rev: str) -> tuple[dict[str, Counter], int, int]:
    """Per package the kinds of lines and public defs; the ``__all__`` entries; distinct names."""
    out: dict[str, Counter] = {}
    pairs, names = 0, set()
    for p, src in files(rev).items():
        c = out.setdefault(package(p), Counter())
        c.update(split(src))
        c["public defs"] += top_level(src)
        ns = public(src)
        pairs += len(ns)
        names.update(ns)
    return out, pairs, len(names)


def main() -> None:
    """Print the tables."""
    (a, ap, an), (b, bp, bn) = summary(BASE), summary(HEAD)
    kinds = ("total", "code", "docstring", "comment", "blank", "public defs")
    print(f"lines of lssvm_cvx/*.py at {BASE} and {HEAD} (per package: total, code, docstring, "
          f"comment, blank; and the public top-level functions and classes)\n")
    print("| package | " + " | ".join(f"{k} {BASE} → {HEAD}" for k in kinds) + " |")
    print("|---" * (len(kinds) + 1) + "|")
    for pkg in sorted(set(a) | set(b), key=lambda k: -b.get(k, Counter())["total"]):
        ca, cb = a.get(pkg, Counter()), b.get(pkg, Counter())
        print(f"| {pkg} | " + " | ".join(f"{ca[k]} → {cb[k]}" for k in kinds) + " |")
    ta, tb = sum(a.values(), Counter()), sum(b.values(), Counter())
    print("| all | " + " | ".join(f"{ta[k]} → {tb[k]}" for k in kinds) + " |")
    prose = sum(tb[k] - ta[k] for k in ("docstring", "comment", "blank"))
    print(f"\nthe total grew by {tb['total'] - ta['total']} lines, {tb['code'] - ta['code']} of them "
          f"code; deleting every docstring, comment and blank line added since {BASE} "
          f"({prose}) would leave {tb['total'] - prose} lines, against {ta['total']} "
          f"({'more' if tb['total'] - prose > ta['total'] else 'not more'}: the criterion "
          f"{'needs code removed' if tb['total'] - prose > ta['total'] else 'is in reach'})")
    fa, fb = files(BASE), files(HEAD)
    grown = sorted(set(fa) | set(fb), key=lambda f: len(fa.get(f, "").splitlines())
                   - len(fb.get(f, "").splitlines()))
    print(f"\nthe files that grew most ({BASE} → {HEAD} lines; 0: not there)\n")
    print("| file | lines | change |\n|---|---|---|")
    for f in grown[:20]:
        la, lb = len(fa.get(f, "").splitlines()), len(fb.get(f, "").splitlines())
        print(f"| `{f}` | {la} → {lb} | {lb - la:+d} |")
    print(f"\npublic names (entries of the modules' __all__): {ap} → {bp}; distinct: {an} → {bn}")


if __name__ == "__main__":
    main()
