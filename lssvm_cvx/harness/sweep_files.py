"""Reading and writing a sweep folder (:mod:`lssvm_cvx.harness.sweep`): ``sweep.csv`` (read
back for ``resume``, a malformed file one clear error), ``sweep.json`` (manifest and rows),
``sweep.parquet``, ``warm.csv``, the summary and the performance profiles."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .report import COLUMNS, json_safe
from .sweep_report import accuracy_profile, performance_profile, row_key, summarize

__all__ = ["SWEEP_COLUMNS", "MANIFEST_FORMAT", "read_rows", "read_manifest", "write_rows",
           "rewrite_report", "write_outputs"]

#: the columns of ``sweep.csv``: the long format plus the problem's params and the run
SWEEP_COLUMNS: tuple[str, ...] = (*COLUMNS, "params", "run")
#: the format tag of ``sweep.json``'s manifest
MANIFEST_FORMAT = "lssvm_cvx-sweep/2"


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of an earlier ``sweep.csv`` for ``resume``; a malformed file is an
    :class:`~lssvm_cvx.exceptions.InputError` naming it and the row (never a traceback)."""
    from ..exceptions import InputError

    if not path.exists():
        return []
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"resume: cannot read {path} ({exc}); remove it or run without "
                         "resume") from None
    for k, r in enumerate(rows, 2):
        try:
            row_key(r)
            if not r.get("solver"):
                raise ValueError("no solver")
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"resume: {path} line {k} is not a sweep row ({exc}); remove the "
                             "file or run without resume") from None
    return [_typed_row(r) for r in rows]


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of ``sweep.json`` (an empty one when there is none); a malformed file is an
    :class:`~lssvm_cvx.exceptions.InputError` naming it."""
    from ..exceptions import InputError

    if not path.exists():
        return {"format": MANIFEST_FORMAT, "runs": []}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        man = doc["manifest"]
        if not isinstance(man.get("runs"), list):
            raise ValueError("no list of runs")
        return man
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"resume: {path} is not a sweep manifest ({exc}); remove it or run "
                         "without resume") from None


def write_rows(fh: Any, rows: list[dict[str, Any]]) -> None:
    """Append ``rows`` to an open ``sweep.csv`` (missing columns empty) and flush."""
    w = csv.DictWriter(fh, fieldnames=list(SWEEP_COLUMNS), extrasaction="ignore")
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in SWEEP_COLUMNS})
    fh.flush()


def _atomic_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    from .files import atomic_write

    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def write_outputs(res: Any, solvers: list[str], sizes: Sequence[int], repeats: int,
                   time_limit: float, missing: int, warm_rows: list[dict[str, Any]]) -> None:
    """Write every file of the sweep folder from ``res`` (a ``SweepResult``): the sorted
    ``sweep.csv``, ``sweep.json``, ``sweep.parquet``, ``warm.csv``, the profiles and
    ``summary.md``; their paths are appended to ``res.paths``."""
    from .warm import warm_summary

    out, rows = res.out, res.rows
    buf = io.StringIO()
    csv.DictWriter(buf, fieldnames=list(SWEEP_COLUMNS)).writeheader()
    rows.sort(key=lambda r: (row_key(r), str(r["solver"])))
    write_rows(buf, rows)
    _atomic_text(out / "sweep.csv", buf.getvalue())
    res.paths.append(out / "sweep.csv")
    clean = [json_safe({k: r.get(k) for k in SWEEP_COLUMNS}) for r in rows]
    _atomic_text(out / "sweep.json", json.dumps({"manifest": res.manifest, "rows": clean},
                                                indent=1, default=str) + "\n")
    res.paths.append(out / "sweep.json")
    pq = _write_parquet(out / "sweep.parquet", clean, res.manifest)
    if pq is not None:
        res.paths.append(pq)
    if warm_rows:
        wbuf = io.StringIO()
        cols = list(dict.fromkeys(k for r in warm_rows for k in r))
        w = csv.DictWriter(wbuf, fieldnames=cols)
        w.writeheader()
        w.writerows(warm_rows)
        _atomic_text(out / "warm.csv", wbuf.getvalue())
        res.paths.append(out / "warm.csv")
    pngs, md = _report(out, rows, time_limit, wall=res.wall, solvers=solvers, sizes=sizes,
                       repeats=repeats, interrupted=res.interrupted, missing=missing,
                       manifest=res.manifest,
                       warm=warm_summary(warm_rows) if warm_rows else None)
    res.paths += pngs
    res.summary_path = out / "summary.md"
    _atomic_text(res.summary_path, md)
    res.paths.append(res.summary_path)


def _report(out: Path, rows: list[dict[str, Any]], time_limit: float,
            **summary: Any) -> tuple[list[Path], str]:
    """Draw the time and accuracy profiles into ``out`` and return their paths with the
    ``summary.md`` text that links them (``summary``: the rest of :func:`summarize`'s
    arguments)."""
    time_png = performance_profile(rows, out / "performance_profile.png", time_limit=time_limit)
    acc_png = accuracy_profile(rows, out / "accuracy_profile.png")
    md = summarize(rows, time_limit=time_limit,
                   profile_png="performance_profile.png" if time_png else None,
                   accuracy_png="accuracy_profile.png" if acc_png else None, **summary)
    return time_png + acc_png, md


#: columns that hold numbers (the rest hold text; ``agrees`` a bool)
_INTS = frozenset({"n", "repeat", "iterations", "n_variables", "n_constraints", "run"})
_FLOATS = frozenset({"setup_s", "solve_s", "objective", "rel_obj_gap", "max_rel_dev",
                     "primal_res", "dual_res", "stationarity", "cert_primal", "cert_dual",
                     "cert_gap", "twin_gap", "compile_s", "solver_s", "solve_call_s", "time_s",
                     "time_limit", "retry_obj_gap"})


def rewrite_report(out: Path) -> Path:
    """Rewrite a sweep folder's report (``summary.md``, the time and accuracy profiles) from its
    rows and manifest with the current report code, running nothing: the report is derived from
    the rows' raw columns (a ranking rule that changed after the runs applies to them).  The
    summary says that it was rewritten, at which commit.  Returns the summary's path."""
    from .files import current_commit

    out = Path(out)
    rows = read_rows(out / "sweep.csv")
    manifest = read_manifest(out / "sweep.json")
    last = (manifest.get("runs") or [{}])[-1]
    solvers = list(last.get("solvers") or dict.fromkeys(
        str(r["solver"]) for r in rows if r["solver"] not in ("closed_form", "instance")))
    sizes = list(last.get("sizes") or sorted({int(r["n"]) for r in rows}))
    limit = float(last.get("time_limit") or 60.0)
    _, md = _report(out, rows, limit, solvers=solvers, sizes=sizes,
                    repeats=int(last.get("repeats") or 1), manifest=manifest)
    title, bullets, rest = md.split("\n\n", 2)
    md = "\n\n".join([title, bullets + f"\n- report rewritten from these rows at commit "
                        f"{current_commit()} (sweep_files.rewrite_report; no run repeated)", rest])
    _atomic_text(out / "summary.md", md)
    return out / "summary.md"


def _typed_row(r: dict[str, Any]) -> dict[str, Any]:
    """A row read back from ``sweep.csv`` (all text) with its numbers, bools and missing
    values (None) restored, column by column."""
    out: dict[str, Any] = {}
    for k, v in r.items():
        if not isinstance(v, str):
            out[k] = v
        elif v == "":
            out[k] = None
        elif k == "agrees":
            out[k] = {"True": True, "False": False}.get(v)
        elif k in _INTS or k in _FLOATS:
            try:
                x = float(v)
            except ValueError:
                out[k] = v
                continue
            out[k] = (int(x) if k in _INTS and x.is_integer() else x) if math.isfinite(x) \
                else (None if k in _INTS else x)
        else:
            out[k] = v
    return out


def _write_parquet(path: Path, rows: list[dict[str, Any]], manifest: dict[str, Any]) -> Path | None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # optional: CSV and JSON are always written
        return None
    from .files import atomic_write

    cols = {k: [r.get(k) for r in rows] for k in SWEEP_COLUMNS}
    arrays = {}
    for k, v in cols.items():
        try:
            arrays[k] = pa.array(v)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types: as text
            arrays[k] = pa.array([None if x is None else str(x) for x in v], type=pa.string())
    table = pa.table(arrays).replace_schema_metadata(
        {"lssvm_cvx.manifest": json.dumps(manifest, default=str)})
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return path
