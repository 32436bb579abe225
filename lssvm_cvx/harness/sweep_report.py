"""The sweep's report: qpbenchmark's metrics and more, from the long-format rows alone.

Every number is computed from the rows (:data:`~lssvm_cvx.harness.report.COLUMNS`) and the run
manifest, so a ``sweep.csv`` read back gives the same report.  Per tolerance profile and solver:

* **success rate** — runs whose verdict is ``yes`` over the runs *charged* to the solver (those
  whose failure is not ``compile``, ``not_applicable`` or ``interrupted``: not its fault);
* **correct rate** (status honesty, qpbenchmark's "percentage of problems where 'solved' return
  codes are correct") — charged runs where the status claims success (``optimal``) exactly when
  the measured verdict is ``yes``; ``optimal_inaccurate`` is a claim of *not* reaching the
  tolerances;
* **shifted geometric means** of the time the solver is ranked by (its own reported solve
  time, else the wall time of the call into it; never cvxpy's conversion) and of the three
  scaled certificate residuals (primal, dual, gap), each divided by the best solver's (1.0 =
  best).  qpbenchmark's convention: ``shm = exp(mean(log(v + sh))) - sh``, a failed run charged
  the time limit (and, for residuals, the worst scaled residual, 1).  qpbenchmark uses
  ``sh = 10`` for runs of up to its 1000 s limit and unscaled residuals; our runs take
  milliseconds and our residuals are scaled, so the shifts are :data:`TIME_SHIFT` (1 ms) and
  :data:`RESIDUAL_SHIFT` (1e-10, below every profile's tolerance);
* **failures by cause** (:data:`~lssvm_cvx.harness.report.FAILURES`), the timing split (cvxpy
  compile, the solver's own time, the call) and Dolan–Moré performance profiles of time and of
  accuracy (the worst certificate residual), each as PNG and SVG.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .report import NOT_CHARGED, VERDICTS, ranking_time

__all__ = ["shifted_geometric_mean", "summarize", "performance_profile", "accuracy_profile",
           "reference_rows", "solver_table", "failure_table", "TIME_SHIFT", "RESIDUAL_SHIFT",
           "row_key"]

#: shift (seconds) of the shifted geometric mean of times
TIME_SHIFT = 1e-3
#: shift of the shifted geometric mean of scaled residuals
RESIDUAL_SHIFT = 1e-10
#: the scaled residual charged to a run without a certified point (the worst scale)
FAILED_RESIDUAL = 1.0


def shifted_geometric_mean(values: Sequence[float], shift: float = TIME_SHIFT) -> float:
    """``exp(mean(log(v + shift))) - shift`` (qpbenchmark's ``shgeom``): a mean of ratios or
    times that neither one huge value nor a few tiny ones dominate."""
    vals = [float(v) for v in values]
    if not vals:
        return math.nan
    return math.exp(sum(math.log(v + shift) for v in vals) / len(vals)) - shift


# --- reading rows ----------------------------------------------------------------------------
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


def row_key(r: dict[str, Any]) -> tuple:
    """(formulation, n, params, repeat, profile): one problem at one profile."""
    return (str(r["formulation"]), int(float(r["n"])), str(r.get("params") or ""),
            int(float(r["repeat"])), str(r["profile"]))


def _verdict(r: dict[str, Any]) -> str:
    v = str(r.get("verdict") or "")
    if v:
        return v
    ag = _b(r.get("agrees"))  # a row of an older sweep.csv
    return "n/a" if ag is None else ("yes" if ag else "NO")


def _failure(r: dict[str, Any]) -> str:
    f = r.get("failure")
    if isinstance(f, str) and f and f != "nan":
        return f
    if _verdict(r) == "n/a" or r.get("status") == "unsupported":
        return "not_applicable"
    if r.get("status") in ("interrupted", "time_limit"):  # a row of an older sweep.csv
        return str(r["status"])
    return "" if _verdict(r) in ("yes", "disagreement") else "solver"


def _time(r: dict[str, Any]) -> float:
    """The time a run is ranked by (:func:`~lssvm_cvx.harness.report.ranking_time`), from the
    row's raw times; ``time_s`` only when they are missing.  A reported solver time of zero or
    less is no report (PIQP's and ProxQP's read 0.0 through cvxpy: ranked by it they won every
    problem of the full sweep), so the call's wall time ranks such a run."""
    own = _f(r.get("solver_s"))
    t = ranking_time(own if own > 0 else None, _f(r.get("solve_call_s")))
    if math.isfinite(t):
        return t
    t = _f(r.get("time_s"))
    return t if math.isfinite(t) else _f(r.get("setup_s")) + _f(r.get("solve_s"))  # older csv


def _charged(r: dict[str, Any]) -> bool:
    return _failure(r) not in NOT_CHARGED


def _solver_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["solver"] not in ("instance",)]


def _by_profile(rows: list[dict[str, Any]]) -> dict[str, dict[tuple, dict[str, dict[str, Any]]]]:
    """Profile -> problem key -> solver -> row (cvxpy solvers only)."""
    out: dict[str, dict[tuple, dict[str, dict[str, Any]]]] = {}
    for r in rows:
        if r["solver"] in ("closed_form", "instance"):
            continue
        k = row_key(r)
        out.setdefault(k[4], {}).setdefault(k, {})[str(r["solver"])] = r
    return out


# --- metrics ---------------------------------------------------------------------------------
def _normalized(values: dict[str, float]) -> dict[str, float]:
    finite = [v for v in values.values() if math.isfinite(v)]
    best = min(finite) if finite else math.nan
    return {s: (v / best if best > 0 else (1.0 if v == best else math.inf))
            for s, v in values.items()}


def solver_table(rows: list[dict[str, Any]], time_limit: float) -> list[dict[str, Any]]:
    """Per profile and solver: runs, charged runs, success rate, correct rate and the
    normalized shifted geometric means of time and of the certificate residuals (module
    docstring).

    Parameters
    ----------
    rows : list of dict
        Rows in the long format.
    time_limit : float
        Seconds charged to a failed run's time when its row records no limit.

    Returns
    -------
    list of dict
        One dict per (profile, solver).
    """
    out = []
    for prof, probs in sorted(_by_profile(rows).items()):
        solvers = sorted({s for p in probs.values() for s in p})
        stats: dict[str, dict[str, Any]] = {}
        sh: dict[str, dict[str, float]] = {m: {} for m in ("time", "primal", "dual", "gap")}
        for s in solvers:
            mine = [p[s] for p in probs.values() if s in p]
            charged = [r for r in mine if _charged(r)]
            ok = [r for r in charged if _verdict(r) == "yes"]
            honest = [r for r in charged if (r.get("status") == "optimal") == (_verdict(r) == "yes")]
            stats[s] = {"profile": prof, "solver": s, "runs": len(mine), "charged": len(charged),
                        "success": len(ok), "correct": len(honest)}
            times: list[float] = []
            res: dict[str, list[float]] = {"primal": [], "dual": [], "gap": []}
            for r in charged:
                good = _verdict(r) == "yes"
                limit = _f(r.get("time_limit"))
                limit = limit if math.isfinite(limit) else time_limit
                t = _time(r)
                times.append(t if good and math.isfinite(t) else limit)
                for part in res:
                    v = _f(r.get(f"cert_{part}"))
                    res[part].append(v if good and math.isfinite(v) else FAILED_RESIDUAL)
            sh["time"][s] = shifted_geometric_mean(times, TIME_SHIFT) if times else math.nan
            for part, vals in res.items():
                sh[part][s] = (shifted_geometric_mean(vals, RESIDUAL_SHIFT) if vals else math.nan)
        norm = {m: _normalized(v) for m, v in sh.items()}
        for s in solvers:
            st = stats[s]
            for m in sh:
                st[f"shm {m}"] = norm[m][s]
            st["shm time [s]"] = sh["time"][s]
            out.append(st)
    return out


def failure_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per solver (over every profile): how many runs failed for each cause, and the share of
    its failures that were not its own fault or a profile stricter than it reaches
    (``compile``, ``settings``, ``time_limit``, ``not_applicable``)."""
    from .report import FAILURES

    by: dict[str, dict[str, int]] = {}
    for r in _solver_rows(rows):
        if r["solver"] == "closed_form":
            continue
        f = _failure(r)
        d = by.setdefault(str(r["solver"]), {k: 0 for k in ("runs", *FAILURES)})
        d["runs"] += 1
        if f:
            d[f] = d.get(f, 0) + 1
    out = []
    for s in sorted(by):
        d = by[s]
        failed = sum(d[k] for k in FAILURES)
        attributed = sum(d[k] for k in ("compile", "settings", "time_limit", "not_applicable"))
        out.append({"backend": s, "runs": d["runs"], **{f"{k} (own)" if k == "solver" else k:
                                                         d[k] for k in FAILURES},
                    "failed": failed,
                    "attributed share": (attributed / failed) if failed else math.nan})
    return out


def _verdict_table(rows: list[dict[str, Any]]) -> list[str]:
    """Per backend: how many runs got each verdict (yes, NO, disagreement, n/a)."""
    by: dict[str, dict[str, int]] = {}
    for r in _solver_rows(rows):
        v = _verdict(r)
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
    for r in _solver_rows(rows):
        c = cells.setdefault(row_key(r), {"has_cf": False})
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


def _md_table(dicts: list[dict[str, Any]], fmt: dict[str, str] | None = None) -> list[str]:
    if not dicts:
        return []
    fmt = fmt or {}
    cols = list(dicts[0])

    def cell(k: str, v: Any) -> str:
        if isinstance(v, float):
            if not math.isfinite(v):
                return "–"
            return format(v, fmt.get(k, ".3g"))
        return str(v).replace("|", "\\|").replace("\n", " ")[:300]

    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(cell(k, d[k]) for k in cols) + " |" for d in dicts]
    return out


def _reference_table(rows: list[dict[str, Any]]) -> list[str]:
    """:func:`reference_rows` as the markdown section of ``summary.md``."""
    ref = reference_rows(rows)
    if not ref:
        return []
    return (["## Reference: the closed form, or why not", "",
             "Formulations with a closed form; the reference is the point with the best "
             "certificate (round-off ties go to the closed form).", ""]
            + _md_table(ref) + [""])


def _timing_split(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by: dict[str, dict[str, list[float]]] = {}
    for r in _solver_rows(rows):
        if r["solver"] == "closed_form":
            continue
        d = by.setdefault(str(r["solver"]), {"compile": [], "solver": [], "call": []})
        for key, col in (("compile", "compile_s"), ("solver", "solver_s"), ("call", "solve_call_s")):
            v = _f(r.get(col))
            if math.isfinite(v):
                d[key].append(v)

    def med(v: list[float]) -> float:
        return sorted(v)[len(v) // 2] if v else math.nan

    out = []
    for s in sorted(by):
        d = by[s]
        c, call = med(d["compile"]), med(d["call"])
        out.append({"solver": s, "median cvxpy compile [s]": c,
                    "median solver's own time [s]": med(d["solver"]),
                    "median call into the solver [s]": call,
                    "solver's own time reported": f"{len(d['solver'])}/{len(d['call'])}",
                    "compile / (compile + call)": c / (c + call) if c + call > 0 else math.nan})
    return out


# --- figures ---------------------------------------------------------------------------------
def _profile_plot(ratios: dict[str, list[float]], path: str | os.PathLike, xlabel: str,
                  title: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np

    from .files import atomic_write

    tau = np.logspace(0, 4, 500, base=10)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s, rs in sorted(ratios.items()):
        r = np.asarray(rs, dtype=float)
        if r.size == 0:
            continue
        ax.step(tau, [(r <= x).mean() for x in tau], where="post", label=f"{s} ({r.size})")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of problems solved within τ")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    base = Path(path)
    written = []
    for ext in ("png", "svg"):
        p = base.with_suffix(f".{ext}")

        def save(tmp: str, ext: str = ext) -> None:
            # an SVG without its date: the same run writes the same file
            fig.savefig(tmp, dpi=110, bbox_inches="tight", format=ext,
                        metadata={"Date": None} if ext == "svg" else None)

        atomic_write(p, save)
        written.append(p)
    plt.close(fig)
    return written


def _ratios(rows: list[dict[str, Any]], value: Any) -> dict[str, list[float]]:
    """Per solver, over the problems it is charged on: ``value(row)`` / the best solver's on
    that problem, a failure counted as never solved (inf)."""
    ratios: dict[str, list[float]] = {}
    for probs in _by_profile(rows).values():
        for per in probs.values():
            vals = {}
            for s, r in per.items():
                if not _charged(r):
                    continue
                v = value(r) if _verdict(r) == "yes" else math.inf
                vals[s] = v if math.isfinite(v) else math.inf
            finite = [v for v in vals.values() if math.isfinite(v)]
            best = min(finite) if finite else math.nan
            for s, v in vals.items():
                ratios.setdefault(s, []).append(
                    v / best if finite and best > 0 else (1.0 if finite and v == best else math.inf))
    return ratios


def performance_profile(rows: list[dict[str, Any]], path: str | os.PathLike, *,
                        time_limit: float = 60.0) -> list[Path]:
    """Dolan–Moré performance profile of the time each solver is ranked by (its own reported
    solve time, else its call's wall time) over the problems it is charged on; writes
    ``path`` as PNG and SVG and returns the files (none when there is nothing to plot)."""
    ratios = _ratios(rows, lambda r: max(_time(r), 1e-9))
    if not any(ratios.values()):
        return []
    return _profile_plot(ratios, path, "τ (time / best time on the problem; the solver's own "
                         "time, cvxpy's conversion excluded)",
                         "Dolan–Moré performance profile: time (verdict yes = solved)")


def accuracy_profile(rows: list[dict[str, Any]], path: str | os.PathLike) -> list[Path]:
    """Dolan–Moré profile of accuracy: the worst scaled certificate residual (primal, dual,
    gap) of each solver's point relative to the best point's on the problem."""
    def worst(r: dict[str, Any]) -> float:
        vals = [_f(r.get(f"cert_{p}")) for p in ("primal", "dual", "gap")]
        vals = [v for v in vals if math.isfinite(v)]
        return max(max(vals), RESIDUAL_SHIFT) if vals else math.nan

    ratios = _ratios(rows, worst)
    if not any(ratios.values()):
        return []
    return _profile_plot(ratios, path, "τ (worst certificate residual / the best point's)",
                         "Dolan–Moré performance profile: accuracy (verdict yes = solved)")


# --- the summary -----------------------------------------------------------------------------
def _provenance(manifest: dict[str, Any] | None) -> list[str]:
    if not manifest or not manifest.get("runs"):
        return []
    lines = ["## Provenance", "", "| run | command | date | commit | time limit [s] | solvers | "
             "profiles | sizes | seeds | params | rows |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for run in manifest["runs"]:
        lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in (
            run.get("run"), f"`{run.get('command')}`", run.get("date"), run.get("commit"),
            run.get("time_limit"), ", ".join(run.get("solvers") or []),
            ", ".join(run.get("profiles") or []), run.get("sizes"), run.get("seeds"),
            run.get("params") or "–", run.get("rows"))) + " |")
    last = manifest["runs"][-1]
    vers = last.get("versions") or {}
    lines += ["", f"Machine: {last.get('machine')}.", "",
              "Versions (last run): " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".", ""]
    opts = last.get("options") or {}
    if opts:
        lines += ["Solver options by profile (last run; the harness's profile merged with any "
                  "given):", "", "| solver | profile | options |", "|---|---|---|"]
        for s in sorted(opts):
            for prof, o in opts[s].items():
                text = ", ".join(f"{k}={v}" for k, v in sorted(o.items())) or "(solver defaults)"
                lines.append(f"| {s} | {prof} | {text} |")
        lines.append("")
    return lines


def summarize(rows: list[dict[str, Any]], *, time_limit: float = 60.0, wall: float | None = None,
              solvers: Sequence[str] | None = None, sizes: Sequence[int] | None = None,
              repeats: int | None = None, interrupted: bool = False,
              profile_png: str | None = None, missing: int = 0,
              manifest: dict[str, Any] | None = None, accuracy_png: str | None = None,
              warm: list[dict[str, Any]] | None = None) -> str:
    """The ``summary.md`` text: provenance, per-profile solver table (success, correct rate,
    shifted geometric means), failures by cause, the timing split, verdicts, references,
    failures per formulation, warm starts when measured, and the performance profiles."""
    from .files import current_commit, machine_summary

    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    forms = sorted({str(r["formulation"]) for r in rows})
    runs = (manifest or {}).get("runs") or []
    lines = ["# Solver sweep", ""]
    if runs:
        lines.append(f"- runs merged: {len(runs)} (the provenance table lists each command); "
                     f"last: `{runs[-1].get('command')}`")
        lines.append(f"- date: {when}; commit {runs[-1].get('commit')}"
                     + (f"; wall time {wall:.0f} s ({wall / 60:.1f} min)" if wall is not None else ""))
    else:
        lines.append(f"- date: {when}; commit {current_commit()}"
                     + (f"; wall time {wall:.0f} s ({wall / 60:.1f} min)" if wall is not None else ""))
    lines.append(f"- machine: {machine_summary()}")
    limits = sorted({_f(r.get("time_limit")) for r in rows if math.isfinite(_f(r.get("time_limit")))})
    lines.append(f"- {len(forms)} formulations × {len(solvers or [])} solvers "
                 f"({', '.join(solvers or [])}) × sizes {list(sizes or [])} × {repeats} repeats "
                 f"(repeat r = random instance with seed r); time limit "
                 + (", ".join(f"{t:g} s" for t in limits) + " per solver (as recorded per row)"
                    if limits else f"{time_limit:g} s per solver"))
    if interrupted:
        lines.append(f"- **interrupted** (Ctrl-C): the tables cover the cells that finished; "
                     f"{missing} cell(s) were not run (a cell cut short writes no row) — "
                     "`--resume` runs them")
    lines += ["", "A run *succeeds* when the solver's point agrees with the reference within its "
              "tolerance profile (feasibility, objective gap, deviation of the identifiable "
              "quantities), whatever its status word; the reference is the point with the best "
              "certificate (scaled primal, dual and gap residuals), and a point that differs "
              "from it while both are certified is a *disagreement*, charged to neither. A "
              "failure is charged to the solver only when it is its own (`solver`), its "
              "profile's (`settings`: a point at the next looser profile) or the clock's "
              "(`time_limit`); `compile` (cvxpy's conversion), `not_applicable` and "
              "`interrupted` runs are left out of its rates.", ""]
    table = solver_table(rows, time_limit)
    if table:
        lines += ["## Per solver and profile", "",
                  "*success*: verdict yes over charged runs; *correct*: charged runs whose status "
                  "claims success (`optimal`) exactly when the verdict is yes; *shm*: shifted "
                  "geometric mean divided by the best solver's (1.0 = best; qpbenchmark's "
                  f"convention with shifts {TIME_SHIFT:g} s and {RESIDUAL_SHIFT:g}, a failure "
                  "charged the time limit and a residual of 1; see "
                  "`lssvm_cvx.harness.sweep_report`).", ""]
        pretty = [{"profile": d["profile"], "solver": d["solver"], "runs": d["runs"],
                   "charged": d["charged"],
                   "success": f"{100 * d['success'] / d['charged']:.0f}% ({d['success']}/{d['charged']})"
                   if d["charged"] else "–",
                   "correct": f"{100 * d['correct'] / d['charged']:.0f}%" if d["charged"] else "–",
                   "shm time": d["shm time"], "shm time [s]": d["shm time [s]"],
                   "shm primal": d["shm primal"], "shm dual": d["shm dual"],
                   "shm gap": d["shm gap"]} for d in table]
        lines += _md_table(pretty, {"shm time": ".2f", "shm primal": ".2f", "shm dual": ".2f",
                                    "shm gap": ".2f"}) + [""]
    fails = failure_table(rows)
    if fails:
        lines += ["## Failures by cause", "",
                  "Runs per cause over every profile; *attributed share*: the part of the "
                  "solver's failures that were `compile`, `settings`, `time_limit` or "
                  "`not_applicable` rather than the solver failing outright.", ""]
        lines += _md_table(fails, {"attributed share": ".0%"}) + [""]
    split = _timing_split(rows)
    if split:
        lines += ["## Where the time goes", "",
                  "Medians per solver: cvxpy's conversion for the solver, the solver's own "
                  "reported solve time, and the wall time of the call into it (cvxpy's solver "
                  "interface included). Ranking uses the solver's own time where it reports one.",
                  ""] + _md_table(split, {"compile / (compile + call)": ".0%"}) + [""]
    cf = [_f(r.get("solve_s")) for r in rows if r["solver"] == "closed_form"
          and math.isfinite(_f(r.get("solve_s")))]
    if cf:
        cf.sort()
        cf_ok = sum(1 for r in rows if r["solver"] == "closed_form" and _verdict(r) == "yes")
        cf_n = sum(1 for r in rows if r["solver"] == "closed_form")
        lines += [f"Closed form (where the formulation has one): median {cf[len(cf) // 2]:.3g} s, "
                  f"its own certificate passed in {cf_ok}/{cf_n} runs.", ""]
    lines += _verdict_table(rows) + _reference_table(rows)
    if warm:
        lines += ["## Warm starts (DPP re-solves along a parameter path)", "",
                  "Per solver: the first solve and the re-solves after a parameter change "
                  "(compile = cvxpy applying the new parameter values; the solver warm-started "
                  "where it supports it).", ""] + _md_table(warm) + [""]
    lines += ["## Per formulation: failures and why", ""]
    lines.append("| formulation | solver | failed runs | cause | status | why (first) |")
    lines.append("|---|---|---|---|---|---|")
    any_fail = False
    for fname in forms:
        fr = [r for r in rows if r["formulation"] == fname]
        by: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in fr:
            f = _failure(r)
            if f:
                by.setdefault((str(r["solver"]), f), []).append(r)
        for (s, f), bad in sorted(by.items()):
            any_fail = True
            total = sum(1 for r in fr if r["solver"] == s)
            statuses = ", ".join(sorted({str(r["status"]) for r in bad}))
            why = str(bad[0].get("reason") or "")
            if bad[0].get("error") and str(bad[0].get("error")) != "nan":
                why += f"; error: {bad[0]['error']}"
            why = why.replace("|", "\\|").replace("\n", " ")[:300]
            lines.append(f"| {fname} | {s} | {len(bad)}/{total} | {f} | {statuses} | {why} |")
    if not any_fail:
        lines.append("| (none) | | | | | |")
    lines += [""] + _provenance(manifest)
    if profile_png or accuracy_png:
        lines += ["## Performance profiles", ""]
        if profile_png:
            lines += [f"![performance profile: time]({profile_png})", ""]
        if accuracy_png:
            lines += [f"![performance profile: accuracy]({accuracy_png})", ""]
    return "\n".join(lines).rstrip() + "\n"
