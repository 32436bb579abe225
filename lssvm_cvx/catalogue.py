"""A static catalogue of the registered formulations, so ``lssvm-cvx formulations`` answers
without importing cvxpy or any formulation module (< 0.5 s).

The catalogue is a JSON file keyed by a hash of the formulation sources
(``lssvm_cvx/formulations/*.py``).  The shipped copy (``catalogue.json`` beside this module)
is used when its hash matches; otherwise a copy in the user's cache directory; otherwise the
registry is imported once (slow) and the result cached there.  ``refresh(write_shipped=True)``
rewrites the shipped copy (``lssvm-cvx formulations --refresh``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["catalogue", "refresh", "source_hash"]

_HERE = Path(__file__).resolve().parent
_SHIPPED = _HERE / "catalogue.json"


def source_hash() -> str:
    """Short SHA-256 of the formulation modules' sources (names and bytes)."""
    h = hashlib.sha256()
    for p in sorted((_HERE / "formulations").glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lssvm_cvx" / "catalogue.json"


def _equation(doc: str) -> str:
    """The class docstring up to its numpydoc sections (the paper's equation lives there)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    out = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if nxt.strip() and set(nxt.strip()) == {"-"} and line.strip():
            break
        out.append(line)
    return "\n".join(out).strip()


def _unicode(cls: Any) -> dict[str, str]:
    """The paper's display equations as Unicode text (empty when the formulation has none)."""
    try:
        from .formulations.equations import unicode_of

        return unicode_of(cls)
    except Exception:  # pylatexenc missing or an equation it cannot parse: the docstring stays
        return {}


def _entry(cls: Any) -> dict[str, Any]:
    ref = cls.reference
    entry: dict[str, Any] = {
        "name": cls.name, "class": f"{cls.__module__}.{cls.__qualname__}",
        "paper": getattr(ref, "paper", ""), "citation": getattr(ref, "citation", str(ref)),
        "equations": dict(getattr(ref, "equations", {}) or {}), "reference": str(ref),
        "has_closed_form": bool(cls.has_closed_form), "compare": list(cls.compare),
        "equation": _equation(cls.__doc__ or ""), "unicode": _unicode(cls),
        "variables": [], "parameters": [],
        "problem_class": None,
    }
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inst = cls.random_instance(12)
            prob = inst.build()
        entry["variables"] = [f"{k} {tuple(v.shape)}" for k, v in prob.vars.items()]
        entry["parameters"] = [f"{k} {tuple(p.shape)}" for k, p in prob.params.items()]
        entry["problem_class"] = "QP" if prob.is_qp() else "SOCP"
        entry["dpp"] = bool(prob.is_dpp())
    except Exception as exc:  # a formulation without a small random instance
        entry["note"] = f"not built at n = 12: {type(exc).__name__}: {exc}"
    return entry


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def refresh(write_shipped: bool = False) -> dict[str, Any]:
    """Import the registry, build the catalogue, cache it (and optionally ship it)."""
    from .formulations import FORMULATIONS

    data = {"hash": source_hash(),
            "formulations": {n: _entry(c) for n, c in sorted(FORMULATIONS.items())
                             if not n.startswith("_")}}
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    targets = [_SHIPPED] if write_shipped else []
    targets.append(_cache_file())
    for t in targets:
        try:
            _atomic_write(t, text)
        except OSError:
            pass
    return data


def catalogue() -> dict[str, dict[str, Any]]:
    """``name -> entry`` for every registered formulation (fast when the sources are
    unchanged since the catalogue was written)."""
    h = source_hash()
    for path in (_SHIPPED, _cache_file()):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("hash") == h:
            return data["formulations"]
    return refresh()["formulations"]
