"""``lssvm-cvx sweep``: formulations × solvers × sizes × repeats through :func:`compare`.

Writes into ``out``:

* ``sweep.csv`` — the long format of :data:`~lssvm_cvx.harness.report.COLUMNS`, one row per
  (formulation, n, solver, repeat); appended cell by cell, so an interrupted sweep keeps what
  finished and ``resume=True`` skips it;
* ``summary.md`` — per solver: success rate (agreement within the tolerance profile, over the
  runs where the solver applies), shifted geometric mean of the time ratios and fastest-on
  counts; per formulation: which solvers fail and why;
* ``performance_profile.png`` — Dolan–Moré profiles of total time (setup + solve), a failure
  counting as never solved.

Repeat ``r`` is the formulation's random instance with ``seed = r``; each cell (formulation,
n, repeat) runs every solver on the same instance, each in a killable worker bounded by
``time_limit``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .report import COLUMNS

__all__ = ["sweep", "SweepResult", "summarize", "performance_profile", "verdict_table",
           "reference_rows", "reference_table", "shifted_geometric_mean", "run_cell"]

#: shift (seconds) of the shifted geometric mean of times, as qpbenchmark's ``shgeom``
TIME_SHIFT = 1e-3


def shifted_geometric_mean(values: Sequence[float], shift: float = TIME_SHIFT) -> float:
    """``exp(mean(log(v + shift))) - shift`` (qpbenchmark's ``shgeom``): a mean of ratios or
    times that neither one huge value nor a few tiny ones dominate."""
    vals = [float(v) for v in values]
    if not vals:
        return math.nan
    return math.exp(sum(math.log(v + shift) for v in vals) / len(vals)) - shift


@dataclass
class SweepResult:
    """Where the sweep wrote, how long it took, and its rows."""

    out: Path
    rows: list[dict[str, Any]]
    paths: list[Path] = field(default_factory=list)
    summary_path: Path | None = None
    wall: float = 0.0
    interrupted: bool = False


def _default_solvers() -> list[str]:
    from ..solvers import DEFAULT_SOLVERS, EXTRA_SOLVERS, available_solvers

    inst = set(available_solvers())
    return [s for s in (*DEFAULT_SOLVERS, *EXTRA_SOLVERS) if s in inst]


def run_cell(name: str, n: int, repeat: int, solvers: Sequence[str], setting: str,
             time_limit: float) -> list[dict[str, Any]]:
    """One (formulation, n, repeat) cell: the long-format rows of :func:`compare`."""
    from ..formulations import get_formulation
    from .compare import compare

    try:
        f = get_formulation(name).random_instance(n, seed=repeat)
        rep = compare(f, list(solvers), setting=setting, time_limit=time_limit)
    except KeyboardInterrupt:  # compare's Interrupted too: a partial cell is never a row
        raise
    except Exception as exc:  # an instance that cannot be built is a row, not a crash
        return [{"formulation": name, "n": n, "solver": "instance", "repeat": repeat,
                 "profile": setting, "status": "error", "agrees": False,
                 "reason": "random instance failed", "error": f"{type(exc).__name__}: {exc}"}]
    rep.repeat = repeat
    rows = rep.records()
    for r in rows:
        r["n"] = n  # the requested size (some formulations report none)
    return rows


def _key(r: dict[str, Any]) -> tuple:
    return (str(r["formulation"]), int(float(r["n"])), int(float(r["repeat"])), str(r["profile"]))


def _read_csv(path: Path) -> list[dict[str, Any]]:
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
            _key(r)
            if not r.get("solver"):
                raise ValueError("no solver")
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"resume: {path} line {k} is not a sweep row ({exc}); remove the "
                             "file or run without resume") from None
    return rows


def _write_rows(fh: Any, rows: list[dict[str, Any]]) -> None:
    w = csv.DictWriter(fh, fieldnames=list(COLUMNS), extrasaction="ignore")
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in COLUMNS})
    fh.flush()


def _atomic_text(path: Path, text: str) -> None:
    from .files import atomic_write

    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def sweep(formulations: Sequence[str] | None = None, solvers: Sequence[str] | None = None, *,
          sizes: Sequence[int] = (50, 200), repeats: int = 3, time_limit: float = 60.0,
          setting: str = "high", jobs: int = 1, scheduler: str | None = None,
          out: str | os.PathLike = "benchmarks/results/sweep", resume: bool = False,
          progress: bool = True) -> SweepResult:
    """Run the sweep and write ``sweep.csv``, ``summary.md`` and ``performance_profile.png``.

    ``jobs > 1`` runs cells in parallel processes; ``scheduler`` (a Dask address) runs them on
    that cluster.  Ctrl-C stops at once: the cells that finished are written (a cell cut short
    writes no row), the summary says how many were not run, and
    :class:`~lssvm_cvx.exceptions.Interrupted` is raised with the :class:`SweepResult` as
    ``partial``; ``resume=True`` then runs exactly the missing cells.
    """
    from ..exceptions import InputError
    from ..formulations import FORMULATIONS
    from ..solvers import check_solver
    from .compare import check_time_limit

    t_start = time.perf_counter()
    if formulations is not None and (isinstance(formulations, str)
                                     or not isinstance(formulations, Sequence)):
        raise InputError(f"formulations must be a list of names, got {formulations!r}")
    known = sorted(n for n in FORMULATIONS if not n.startswith("_"))
    names = list(formulations) if formulations else known
    unknown = [n for n in names if n not in FORMULATIONS]
    if unknown:
        raise InputError(f"unknown formulation(s) {unknown}; known: {', '.join(known)}")
    if (isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not sizes
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 4 for v in sizes)):
        raise InputError(f"sizes must be a non-empty list of integers >= 4, got {sizes!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InputError(f"repeats must be a positive integer, got {repeats!r}")
    check_time_limit(time_limit)
    if time_limit is None:
        raise InputError("time_limit must be a positive number of seconds for a sweep")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"out must be a directory; {out} is a file")
    solvers = [check_solver(s) for s in solvers] if solvers else _default_solvers()
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "sweep.csv"
    rows = _read_csv(csv_path) if resume else []
    have: dict[Any, set[str]] = {}
    for r in rows:
        have.setdefault(_key(r), set()).add(r["solver"])
    cells = [(f, n, k) for f in names for n in sizes for k in range(repeats)
             if not set(solvers) <= have.get((f, n, k, setting), set())]
    if resume:  # drop partial cells that will be rerun
        rerun = {(f, n, k, setting) for f, n, k in cells}
        rows = [r for r in rows if _key(r) not in rerun]
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        csv.DictWriter(fh, fieldnames=list(COLUMNS)).writeheader()
        _write_rows(fh, rows)
        interrupted = False
        done = 0

        def report(cell, cell_rows):
            nonlocal done
            done += 1
            rows.extend(cell_rows)
            _write_rows(fh, cell_rows)
            if progress:
                ok = sum(1 for r in cell_rows if r.get("agrees") is True)
                bad = [f"{r['solver']}:{r['status']}" for r in cell_rows if r.get("agrees") is False]
                el = time.perf_counter() - t_start
                print(f"[{done}/{len(cells)} {el:.0f} s] {cell[0]} n={cell[1]} repeat={cell[2]}: "
                      f"{ok}/{len(cell_rows)} agree" + (f"; NO: {', '.join(bad)}" if bad else ""),
                      file=sys.stderr, flush=True)

        try:
            if scheduler:
                from dask.distributed import Client
                from dask.distributed import as_completed as dask_as_completed

                with Client(scheduler, set_as_default=False) as client:
                    futs = {client.submit(run_cell, f, n, k, solvers, setting, time_limit,
                                          pure=False): (f, n, k) for f, n, k in cells}
                    for fut in dask_as_completed(futs):
                        report(futs[fut], fut.result())
            elif jobs > 1:
                from concurrent.futures import ProcessPoolExecutor, as_completed

                from .worker import ensure_forkserver, worker_context

                # forkserver, not fork: a forked copy of a caller that has solved in-process
                # inherits held solver-thread locks (see lssvm_cvx.harness.worker); launched
                # ignoring SIGINT so that Ctrl-C reaches only this process
                ensure_forkserver()
                with ProcessPoolExecutor(jobs, mp_context=worker_context()) as ex:
                    futs = {ex.submit(run_cell, f, n, k, solvers, setting, time_limit): (f, n, k)
                            for f, n, k in cells}
                    try:
                        for fut in as_completed(futs):
                            report(futs[fut], fut.result())
                    except KeyboardInterrupt:
                        # stop now: queued cells cancelled, running ones killed (their
                        # workers ignore SIGINT), no partial cell written
                        ex.shutdown(wait=False, cancel_futures=True)
                        for proc in list(getattr(ex, "_processes", {}).values()):
                            proc.kill()
                        raise
            else:
                for cell in cells:
                    report(cell, run_cell(*cell, solvers, setting, time_limit))
        except KeyboardInterrupt:
            interrupted = True
    wall = time.perf_counter() - t_start
    # rewrite sorted, atomically (same content)
    buf = io.StringIO()
    csv.DictWriter(buf, fieldnames=list(COLUMNS)).writeheader()
    rows.sort(key=lambda r: (_key(r), str(r["solver"])))
    _write_rows(buf, rows)
    _atomic_text(csv_path, buf.getvalue())
    res = SweepResult(out, rows, [csv_path], wall=wall, interrupted=interrupted)
    png = out / "performance_profile.png"
    if performance_profile(rows, png, time_limit=time_limit):
        res.paths.append(png)
    md = summarize(rows, time_limit=time_limit, wall=wall, solvers=solvers, sizes=sizes,
                   repeats=repeats, interrupted=interrupted,
                   profile_png=png.name if png in res.paths else None,
                   missing=len(cells) - done if interrupted else 0)
    res.summary_path = out / "summary.md"
    _atomic_text(res.summary_path, md)
    res.paths.append(res.summary_path)
    if interrupted:
        from ..exceptions import Interrupted

        raise Interrupted(f"sweep interrupted: {done} of {len(cells)} cells finished and "
                          f"written to {out}; rerun with resume=True (--resume) for the rest",
                          partial=res)
    return res


# --- analysis --------------------------------------------------------------------------------
def _f(v: Any) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return math.nan
    return x


def _b(v: Any) -> bool | None:
    if v in (True, "True", "true", "1"):
        return True
    if v in (False, "False", "false", "0"):
        return False
    return None


def _problems(rows: list[dict[str, Any]]) -> dict[tuple, dict[str, dict[str, Any]]]:
    """(formulation, n, repeat, profile) -> solver -> row, cvxpy solvers only."""
    out: dict[tuple, dict[str, dict[str, Any]]] = {}
    for r in rows:
        if r["solver"] in ("closed_form", "instance"):
            continue
        out.setdefault(_key(r), {})[str(r["solver"])] = r
    return out


def _total(r: dict[str, Any]) -> float:
    return _f(r.get("setup_s")) + _f(r.get("solve_s"))


def _times(rows: list[dict[str, Any]], time_limit: float) -> tuple[list[str], list[tuple],
                                                                  dict[tuple, dict[str, float]]]:
    """Per problem and solver: total time if it agreed, else inf; solvers that do not apply
    (agrees empty) are left out of that problem."""
    probs = _problems(rows)
    solvers = sorted({s for p in probs.values() for s in p})
    times: dict[tuple, dict[str, float]] = {}
    for key, per in probs.items():
        t = {}
        for s, r in per.items():
            ag = _b(r.get("agrees"))
            if ag is None and r.get("status") in ("unsupported", "interrupted"):
                continue
            t[s] = _total(r) if ag else math.inf
        times[key] = t
    return solvers, list(probs), times


def performance_profile(rows: list[dict[str, Any]], path: str | os.PathLike, *,
                        time_limit: float = 60.0) -> bool:
    """Dolan–Moré performance profile of total time over the problems each solver applies to;
    writes a PNG, returns False when there is nothing to plot."""
    solvers, _, times = _times(rows, time_limit)
    if not solvers or not times:
        return False
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np

    ratios: dict[str, list[float]] = {s: [] for s in solvers}
    for t in times.values():
        finite = [v for v in t.values() if math.isfinite(v)]
        best = min(finite) if finite else math.nan
        for s in solvers:
            if s in t:
                ratios[s].append(t[s] / best if finite else math.inf)
    tau = np.logspace(0, 3, 400, base=10)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s in solvers:
        r = np.asarray(ratios[s])
        if r.size == 0:
            continue
        rho = [(r <= x).mean() for x in tau]
        ax.step(tau, rho, where="post", label=f"{s} ({r.size})")
    ax.set_xscale("log")
    ax.set_xlabel("τ (time / best time on the problem; total = setup + solve)")
    ax.set_ylabel("fraction of problems solved within τ")
    ax.set_ylim(0, 1.02)
    ax.set_title("Dolan–Moré performance profile (agreement within tolerance = solved)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    from .files import atomic_write

    atomic_write(Path(path), lambda tmp: fig.savefig(tmp, dpi=110, bbox_inches="tight",
                                                     format="png"))
    plt.close(fig)
    return True


def verdict_table(rows: list[dict[str, Any]]) -> list[str]:
    """Per solver: how many runs got each verdict (yes, NO, disagreement, n/a)."""
    from .report import VERDICTS

    by: dict[str, dict[str, int]] = {}
    for r in rows:
        if r["solver"] == "instance":
            continue
        v = str(r.get("verdict") or "")
        if not v:  # a row of an older sweep.csv
            ag = _b(r.get("agrees"))
            v = "n/a" if ag is None else ("yes" if ag else "NO")
        by.setdefault(str(r["solver"]), {}).setdefault(v, 0)
        by[str(r["solver"])][v] += 1
    if not by:
        return []
    out = ["## Verdicts", "", "| backend | " + " | ".join(VERDICTS) + " |",
           "|---|" + "---|" * len(VERDICTS)]
    for s in sorted(by):
        out.append(f"| {s} | " + " | ".join(str(by[s].get(v, 0)) for v in VERDICTS) + " |")
    return out + [""]


def reference_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per formulation with a closed form: the runs, how many chose the closed form as the
    reference (the best certificate), the other references and the first reason given.

    Parameters
    ----------
    rows : list of dict
        Rows in the long format (:data:`~lssvm_cvx.harness.report.COLUMNS`).

    Returns
    -------
    list of dict
        One dict per formulation: ``formulation``, ``runs``, ``closed form chosen``,
        ``otherwise: reference (runs)``, ``why (first)``.
    """
    cells: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        if r["solver"] == "instance":
            continue
        c = cells.setdefault(_key(r), {"has_cf": False})
        c["has_cf"] = c["has_cf"] or r["solver"] == "closed_form"
        c["reference"] = r.get("reference") or "none"
        c["why"] = str(r.get("reference_reason") or "")
    by: dict[str, list[dict[str, Any]]] = {}
    for key, c in cells.items():
        if c["has_cf"]:
            by.setdefault(key[0], []).append(c)
    out = []
    for name in sorted(by):
        cs = by[name]
        cf = sum(1 for c in cs if c["reference"] == "closed_form")
        others: dict[str, int] = {}
        for c in cs:
            if c["reference"] != "closed_form":
                others[c["reference"]] = others.get(c["reference"], 0) + 1
        why = next((c["why"] for c in cs if c["reference"] != "closed_form"), "")
        out.append({"formulation": name, "runs": len(cs), "closed form chosen": cf,
                    "otherwise: reference (runs)": ", ".join(
                        f"{k} ({v})" for k, v in sorted(others.items())) or "–",
                    "why (first)": why or "–"})
    return out


def reference_table(rows: list[dict[str, Any]]) -> list[str]:
    """:func:`reference_rows` as the markdown section of ``summary.md``."""
    ref = reference_rows(rows)
    if not ref:
        return []
    out = ["## Reference: the closed form, or why not", "",
           "Formulations with a closed form; the reference is the point with the best "
           "certificate (round-off ties go to the closed form).", "",
           "| " + " | ".join(ref[0]) + " |", "|" + "---|" * len(ref[0])]
    for r in ref:
        cells = [str(v).replace("|", "\\|").replace("\n", " ")[:300] for v in r.values()]
        out.append("| " + " | ".join(cells) + " |")
    return out + [""]


def summarize(rows: list[dict[str, Any]], *, time_limit: float = 60.0, wall: float | None = None,
              solvers: Sequence[str] | None = None, sizes: Sequence[int] | None = None,
              repeats: int | None = None, interrupted: bool = False,
              profile_png: str | None = None, missing: int = 0) -> str:
    """The ``summary.md`` text."""
    from .files import current_commit, machine_summary

    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    forms = sorted({str(r["formulation"]) for r in rows})
    lines = ["# Solver sweep", ""]
    lines.append(f"- command: `lssvm-cvx {' '.join(sys.argv[1:]) if sys.argv[1:] else 'sweep'}`")
    lines.append(f"- date: {when}; commit {current_commit()}"
                 + (f"; wall time {wall:.0f} s ({wall / 60:.1f} min)" if wall is not None else ""))
    lines.append(f"- machine: {machine_summary()}")
    lines.append(f"- {len(forms)} formulations × {len(solvers or [])} solvers "
                 f"({', '.join(solvers or [])}) × sizes {list(sizes or [])} × {repeats} repeats "
                 f"(repeat r = random instance with seed r); time limit {time_limit:g} s per solver")
    if interrupted:
        lines.append(f"- **interrupted** (Ctrl-C): the tables cover the cells that finished; "
                     f"{missing} cell(s) were not run (a cell cut short writes no row) — "
                     "`--resume` runs them")
    lines += ["", "A run *succeeds* when the solver's point agrees with the reference within its "
              "tolerance profile (feasibility, objective gap, deviation of the identifiable "
              "quantities), whatever its status word; the reference is the point with the best "
              "certificate (scaled primal, dual and gap residuals), and a point that differs "
              "from it while both are certified is a *disagreement*, charged to neither. Runs "
              "where the solver does not apply (a QP solver on a second-order-cone problem) are "
              "left out of its rate.", ""]
    solvers_all, keys, times = _times(rows, time_limit)
    profiles = sorted({k[3] for k in keys})
    lines += ["## Per solver", ""]
    lines.append("| solver | profile | runs | applicable | success rate | shgeom time ratio "
                 "| fastest on | median total [s] |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for prof in profiles:
        pkeys = [k for k in keys if k[3] == prof]
        sg = {}
        for s in solvers_all:
            rs = []
            for k in pkeys:
                t = times[k]
                if s not in t:
                    continue
                finite = [v for v in t.values() if math.isfinite(v)]
                if not finite:
                    continue
                best = min(finite)
                rs.append((t[s] if math.isfinite(t[s]) else time_limit) / max(best, 1e-12))
            sg[s] = shifted_geometric_mean(rs, shift=1.0) if rs else math.nan
        fastest = {s: 0 for s in solvers_all}
        for k in pkeys:
            finite_t = {s: v for s, v in times[k].items() if math.isfinite(v)}
            if finite_t:
                fastest[min(finite_t, key=finite_t.__getitem__)] += 1
        for s in solvers_all:
            runs = sum(1 for r in rows if r["solver"] == s and str(r["profile"]) == prof)
            app = [times[k][s] for k in pkeys if s in times[k]]
            succ = sum(1 for v in app if math.isfinite(v))
            tot = sorted(_total(r) for r in rows if r["solver"] == s and str(r["profile"]) == prof
                         and math.isfinite(_total(r)))
            med = tot[len(tot) // 2] if tot else math.nan
            rate = f"{100 * succ / len(app):.0f}% ({succ}/{len(app)})" if app else "–"
            lines.append(f"| {s} | {prof} | {runs} | {len(app)} | {rate} | {sg[s]:.2f} | "
                         f"{fastest[s]} | {med:.3g} |")
    lines += ["", "*shgeom time ratio*: shifted geometric mean (shift 1) over the problems the "
              "solver applies to of its total time divided by the best solver's on that problem, a "
              "failure counted at the time limit (1.00 = always the fastest).", ""]
    cf = [_total(r) for r in rows if r["solver"] == "closed_form" and math.isfinite(_total(r))]
    if cf:
        cf.sort()
        cf_ok = sum(1 for r in rows if r["solver"] == "closed_form" and _b(r.get("agrees")))
        cf_n = sum(1 for r in rows if r["solver"] == "closed_form")
        lines += [f"Closed form (where the formulation has one): median {cf[len(cf) // 2]:.3g} s, "
                  f"its own certificate passed in {cf_ok}/{cf_n} runs.", ""]
    lines += verdict_table(rows) + reference_table(rows)
    lines += ["## Per formulation: failures and why", ""]
    lines.append("| formulation | solver | failed runs | status | why (first) |")
    lines.append("|---|---|---|---|---|")
    any_fail = False
    for fname in forms:
        fr = [r for r in rows if r["formulation"] == fname]
        by: dict[str, list[dict[str, Any]]] = {}
        for r in fr:
            if _b(r.get("agrees")) is False:
                by.setdefault(str(r["solver"]), []).append(r)
        for s, bad in sorted(by.items()):
            any_fail = True
            total = sum(1 for r in fr if r["solver"] == s)
            statuses = ", ".join(sorted({str(r["status"]) for r in bad}))
            why = str(bad[0].get("reason") or "")
            if bad[0].get("error"):
                why += f"; error: {bad[0]['error']}"
            why = why.replace("|", "\\|").replace("\n", " ")[:300]
            lines.append(f"| {fname} | {s} | {len(bad)}/{total} | {statuses} | {why} |")
        na = sorted({str(r["solver"]) for r in fr if r.get("status") == "unsupported"})
        if na:
            any_fail = True
            lines.append(f"| {fname} | {', '.join(na)} | not applicable | unsupported | "
                         "QP-only solver on a second-order-cone problem |")
    if not any_fail:
        lines.append("| (none) | | | | |")
    if profile_png:
        lines += ["", "## Performance profile", "", f"![performance profile]({profile_png})"]
    return "\n".join(lines) + "\n"
