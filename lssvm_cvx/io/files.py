"""The benchmark-results reader for :mod:`lssvm_cvx.io` (its atomic write is the package's one,
:func:`lssvm_cvx.harness.files.atomic_write`).  Private: use
:mod:`lssvm_cvx.io`."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from ..exceptions import InputError, SavedFileError

#: benchmark result files: an optional ``"schema"`` key ``"lssvm_cvx-results/<version>"``
RESULTS_SCHEMA = "lssvm_cvx-results/1"


def package_version() -> str:
    """Return the installed version of lssvm_cvx."""
    from .. import __version__

    return __version__


def as_path(path: Any, what: str = "path") -> Path:
    """Return ``path`` as a `Path`, raising `InputError` unless it is a non-empty file name."""
    if not isinstance(path, (str, os.PathLike)) or (isinstance(path, str) and not path):
        raise InputError(f"{what} must be a file name (str or os.PathLike), got {path!r}")
    return Path(path)


# ------------------------------------------------------------------------- benchmark results
_RESULT_KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str, "title": str, "command": (str, type(None)), "date": str,
    "mode": str, "elapsed_s": (int, float), "machine": dict, "checks": dict,
    "meta": dict, "notes": (str, type(None)), "figures": dict, "tables": list}
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _reject_constant(c: str) -> Any:
    raise ValueError(f"non-standard JSON number {c}")


def validate_results(payload: Any, *, source: str | os.PathLike = "<results>") -> dict[str, Any]:
    """Check a benchmark-results document (what ``bench.write_result`` writes) and return it.

    Raises :class:`~lssvm_cvx.exceptions.SavedFileError` naming ``source`` and the field.  The
    bench writer can call this on its payload before writing; a document may carry
    ``"schema": "lssvm_cvx-results/1"`` (documents without it are version 1).
    """
    p = Path(source)

    def fail(field: str, message: str) -> SavedFileError:
        return SavedFileError(message, path=p, field=field)

    if not isinstance(payload, dict):
        raise fail("file", "a results file must hold one JSON object")
    schema = payload.get("schema", RESULTS_SCHEMA)
    m = re.match(r"^lssvm_cvx-results/([0-9]+)$", schema) if isinstance(schema, str) else None
    if m is None:
        raise fail("schema", f"not an lssvm_cvx results schema: {schema!r}")
    current = int(RESULTS_SCHEMA.rpartition("/")[2])
    if int(m.group(1)) > current:
        raise fail("schema", f"results schema {m.group(1)} is newer than lssvm_cvx {package_version()} "
                   f"reads (up to {current}): upgrade lssvm_cvx")
    for key, types in _RESULT_KEYS.items():
        if key not in payload:
            raise fail(key, "missing")
        if isinstance(payload[key], bool) or not isinstance(payload[key], types):
            raise fail(key, f"has type {type(payload[key]).__name__}")
    extra = sorted(set(payload) - set(_RESULT_KEYS) - {"schema"})
    if extra:
        raise fail(extra[0], "unexpected entry")
    if not _NAME.match(payload["name"]):
        raise fail("name", f"invalid benchmark name {payload['name']!r}")
    if p.suffix == ".json" and p.stem != payload["name"]:
        raise fail("name", f"the file is named {p.name} but holds results of {payload['name']!r}")
    if payload["mode"] not in ("quick", "full"):
        raise fail("mode", f"must be 'quick' or 'full', got {payload['mode']!r}")
    if not math.isfinite(payload["elapsed_s"]) or payload["elapsed_s"] < 0:
        raise fail("elapsed_s", f"must be a finite number >= 0, got {payload['elapsed_s']!r}")
    for claim, c in payload["checks"].items():
        f = f"checks[{claim!r}]"
        if not (isinstance(c, dict) and set(c) == {"value", "target", "relation", "unit", "ok"}):
            raise fail(f, "must have value, target, relation, unit and ok")
        for k in ("value", "target"):
            if isinstance(c[k], bool) or not isinstance(c[k], (int, float)) or not math.isfinite(c[k]):
                raise fail(f"{f}.{k}", f"must be a finite number, got {c[k]!r}")
        if (c["relation"] not in ("<=", ">=") or not isinstance(c["unit"], str)
                or not isinstance(c["ok"], bool)):
            raise fail(f, "relation must be '<=' or '>=', unit a string and ok a boolean")
        met = c["value"] <= c["target"] if c["relation"] == "<=" else c["value"] >= c["target"]
        if met != c["ok"]:
            raise fail(f"{f}.ok", f"says {c['ok']} but {c['value']} {c['relation']} {c['target']} "
                       f"is {met} (tampered)")
    for k, v in payload["figures"].items():
        if not (isinstance(v, str) and _NAME.match(v) and v.endswith(".png") and ".." not in v):
            raise fail(f"figures[{k!r}]", f"must be a .png file name in the same folder, got {v!r}")
    for i, t in enumerate(payload["tables"]):
        f = f"tables[{i}]"
        if not (isinstance(t, dict) and set(t) == {"name", "caption", "rows", "paper"}):
            raise fail(f, "must have name, caption, rows and paper")
        if not isinstance(t["name"], str) or not isinstance(t["caption"], (str, type(None))):
            raise fail(f"{f}.name", "name must be a string and caption a string or null")
        for part in ("rows", "paper"):
            rows = t[part]
            if rows is None and part == "paper":
                continue
            if not (isinstance(rows, list) and all(isinstance(r, dict) for r in rows)):
                raise fail(f"{f}.{part}", "must be a list of row objects")
    return payload


def read_results(path: str | os.PathLike, *, max_bytes: int = 256 << 20) -> dict[str, Any]:
    """Read and validate one benchmark results file (``benchmarks/results/NAME.json``).

    Raises :class:`~lssvm_cvx.exceptions.SavedFileError` naming the file and the field for a
    missing, empty, truncated, non-JSON, tampered or future-schema file.
    """
    p = as_path(path)

    def fail(field: str, message: str) -> SavedFileError:
        return SavedFileError(message, path=p, field=field)

    try:
        size = p.stat().st_size
        if p.is_dir():
            raise fail("file", "is a directory, not a results file")
        if size == 0:
            raise fail("file", "empty file (0 bytes)")
        if size > max_bytes:
            raise fail("file", f"{size} bytes, more than the {max_bytes} allowed")
        text = p.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise fail("file", "no such file") from None
    except UnicodeDecodeError as exc:
        raise fail("file", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise fail("file", f"cannot read: {exc.strerror or exc}") from None
    try:
        payload = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError, RecursionError) as exc:
        raise fail("file", f"not valid JSON (truncated or corrupt): {exc}") from None
    return validate_results(payload, source=p)
