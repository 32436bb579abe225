"""``compare``: one formulation through its closed form and any cvxpy solvers, judged truthfully.

Rules (what a verdict means):

* **Reference** — the closed form when there is one and it returned a point; otherwise the
  solver that reached status ``optimal`` (never ``optimal_inaccurate``) with the smallest
  KKT residuals relative to its tolerance profile.  No such point: no reference, rows are
  judged on their own residuals.
* **Agreement by measurement** — a row agrees when its point is primal feasible, stationary
  (where stationarity is defined), has the reference's objective (the formulation's NumPy
  twin, never the solver's self-report) and the reference's values of the compared
  quantities, each within the solver's tolerance profile (:mod:`lssvm_cvx.solvers`).  The
  status word is reported, not judged: an ``optimal_inaccurate`` point that meets the
  tolerance agrees; an ``optimal`` one that misses it does not.
* **Identifiable quantities** — when a compared quantity differs from the reference at a
  point that is feasible and has the reference's objective (so both are optimal) and the
  fitted values agree, that quantity is not identifiable at this instance (its optimal set is
  not a point, e.g. ``alpha`` with a singular Gram): its deviation is shown, marked "n.i.",
  and the verdict rests on the fitted values and the objective, as the report says.
* **Non-smooth atoms** — stationarity is NaN with the reason (never a NO); the objective gap
  and feasibility still decide.
* **Bounded** — each backend runs in a worker process killed after ``time_limit`` seconds
  (status ``time_limit``); its output is captured in the row's ``log``; Ctrl-C keeps the
  rows that finished (``report.interrupted``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import InputError, SolverNotAvailableError
from ..solution import OPTIMAL, Solution
from ..solvers import DEFAULT_SOLVERS, PROFILE_NAMES, Tolerance, available_solvers, profile
from .report import Report, Row, deviation
from .worker import INTERRUPTED, UNSUPPORTED, Outcome, run_backend

__all__ = ["compare", "fitted_values", "check_time_limit", "DEFAULT_TIME_LIMIT"]

#: seconds per backend unless told otherwise
DEFAULT_TIME_LIMIT = 60.0


def check_time_limit(time_limit: Any) -> None:
    """``None`` or a positive finite number of seconds, else :class:`InputError`."""
    if time_limit is None:
        return
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not (
            math.isfinite(time_limit) and time_limit > 0):
        raise InputError(f"time_limit must be a positive number of seconds or None, got "
                         f"{time_limit!r}")


def fitted_values(formulation: Any, values: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """The model's fitted values on the training inputs at a candidate point, or ``None``.

    Uses the formulation's ``fitted(values)`` when it has one, else its
    ``decision_function(solution, X)`` / ``predict(solution, X)`` on its own ``X``.
    """
    hook = getattr(formulation, "fitted", None)
    if callable(hook):
        try:
            return np.asarray(hook(values), dtype=np.float64)
        except Exception:
            pass
    X = getattr(formulation, "X", None)
    if X is None:
        return None
    for name in ("decision_function", "predict"):
        m = getattr(formulation, name, None)
        if callable(m):
            try:
                return np.asarray(m(Solution(values=dict(values)), X), dtype=np.float64)
            except Exception:
                continue
    return None


def _usable(out: Outcome) -> bool:
    return out.solution is not None and out.solution.ok and bool(out.solution.values)


def _kkt_score(out: Outcome, tol: Tolerance) -> float:
    p = out.kkt.get("primal", math.nan)
    s = out.kkt.get("stationarity", math.nan)
    p = p / tol.feas if math.isfinite(p) else math.inf
    s = s / tol.kkt if math.isfinite(s) else 1.0  # undefined (non-smooth): neutral
    return max(p, s)


def _pick_reference(outs: dict[str, Outcome], setting: str) -> tuple[str | None, str]:
    cf = outs.get("closed_form")
    if cf is not None and _usable(cf):
        return "closed_form", "the closed form"
    cands = [(n, o) for n, o in outs.items()
             if n != "closed_form" and _usable(o) and o.status == OPTIMAL]
    if not cands:
        inacc = [n for n, o in outs.items() if _usable(o)]
        why = ("no backend reached status optimal"
               + (f" ({', '.join(inacc)} stopped inaccurate; an inaccurate point is never the "
                  "reference)" if inacc else ""))
        return None, why
    best = min(cands, key=lambda no: _kkt_score(no[1], profile(no[0], setting).tol))
    return best[0], "the optimal point with the smallest KKT residuals"


def _judge(row: Row, out: Outcome, ref: Outcome | None, is_ref: bool, tol: Tolerance,
           fitted: np.ndarray | None, fitted_ref: np.ndarray | None) -> None:
    """Fill ``row.agrees``, ``row.reason`` and ``row.non_identifiable``."""
    fails: list[str] = []
    p = row.kkt.get("primal", math.nan)
    s = row.kkt.get("stationarity", math.nan)
    if math.isfinite(p) and p > tol.feas:
        fails.append(f"primal res {p:.2g} > {tol.feas:g}")
    if math.isfinite(s) and s > tol.kkt:
        fails.append(f"stationarity {s:.2g} > {tol.kkt:g}")
    gap = row.objective_rel_gap
    gap_ok = gap is not None and gap <= tol.rel
    if gap is not None and not gap_ok:
        fails.append(f"objective gap {gap:.2g} > {tol.rel:g}")
    bad = {v: d for v, d in row.deviation.items() if d["rel"] > tol.rel and d["abs"] > tol.rel}
    fit_dev = None
    if fitted is not None and fitted_ref is not None and fitted.shape == fitted_ref.shape:
        fit_dev = deviation(fitted, fitted_ref)
        row.deviation.setdefault("fitted", {"abs": fit_dev[0], "rel": fit_dev[1]})
    fit_ok = fit_dev is not None and min(fit_dev) <= tol.rel
    feasible = not (math.isfinite(p) and p > tol.feas)
    stationary = not (math.isfinite(s) and s > tol.kkt)
    if bad and gap_ok and feasible and stationary and (fit_dev is None or fit_ok):
        # a feasible point with the optimal objective (and no stationarity violation) is an
        # optimal point: the quantities that still differ have a non-singleton optimal set
        # (singular Gram, flat non-smooth objective) or are too ill-conditioned to pin at
        # this tolerance
        basis = f"objective gap {gap:.2g} at a feasible point"
        if fit_dev is not None:
            basis += f", fitted values rel Δ {fit_dev[1]:.2g}"
        for v, d in bad.items():
            row.non_identifiable[v] = (
                f"{v} differs by rel {d['rel']:.2g} between optimal points ({basis}): its "
                "optimal set is not a point here (e.g. a singular Gram or a flat non-smooth "
                "objective) or it is too ill-conditioned to pin; judged on objective, "
                "feasibility and fitted values")
        bad = {}
    for v, d in bad.items():
        fails.append(f"rel Δ{v} {d['rel']:.2g} > {tol.rel:g}")
    if fit_dev is not None and not fit_ok:
        fails.append(f"fitted values rel Δ {fit_dev[1]:.2g} > {tol.rel:g}")
    row.agrees = not fails
    if ref is None and not is_ref and not fails and not math.isfinite(s):
        row.agrees = None  # nothing to compare with and no stationarity: cannot be judged
        fails.append("cannot be judged (no reference, stationarity undefined)")
    parts = []
    if row.status != OPTIMAL and not is_ref:
        parts.append(f"status {row.status}: judged on the measured point")
    if is_ref:
        parts.append("reference")
    if ref is None and not is_ref:
        parts.append("no reference: judged on its own residuals")
    parts += fails
    if row.non_identifiable:
        parts.append("not identifiable: " + ", ".join(row.non_identifiable)
                     + " (judged on fitted values and objective)")
    if row.agrees and not fails:
        parts.append(f"within the {row.setting} profile")
    row.reason = "; ".join(parts)


def compare(formulation: Any, solvers: Sequence[str] | None = None, *,
            closed_form: bool | None = None,
            options: Mapping[str, Mapping[str, Any]] | None = None, fresh: bool = True,
            setting: str = "high", time_limit: float | None = DEFAULT_TIME_LIMIT,
            isolate: bool | None = None, on_row: Any = None) -> Report:
    """Run ``formulation`` through its closed form and each named cvxpy solver.

    Parameters
    ----------
    formulation :
        Any :class:`~lssvm_cvx.formulations.base.Formulation` instance.
    solvers :
        cvxpy solver names; ``None`` runs :data:`~lssvm_cvx.solvers.DEFAULT_SOLVERS` (CLARABEL,
        OSQP, ECOS, SCS) that are installed.  Any other installed solver may be named.
    closed_form :
        Include the closed form (default: when the formulation has one).
    options :
        Per-solver option overrides, e.g. ``{"OSQP": {"max_iter": 1000}}``.
    fresh :
        Kept for compatibility: every solver gets a freshly built problem (first-compile
        times).
    setting :
        Tolerance profile, ``"high"`` (default), ``"default"`` or ``"low"``: the solver
        settings used and the tolerance each row is judged with.
    time_limit :
        Seconds per backend (default 60); a backend still running is killed and reported
        ``time_limit``.  ``None``: no limit (and no worker process).
    isolate :
        Run each backend in a killable worker process (default: when ``time_limit`` is set).
    on_row :
        Called with each finished :class:`Row` (progress reporting).

    Returns
    -------
    Report
        Per backend: status, setup and solve time, objective (NumPy twin), relative
        objective gap and deviations of the compared quantities against the reference,
        KKT residuals, whether it agrees within its tolerance profile and why, error text and
        captured solver log.  After Ctrl-C, the rows that finished (``interrupted=True``).
    """
    from ..formulations.base import Formulation

    if not isinstance(formulation, Formulation):
        raise InputError(f"compare() needs a Formulation, got {type(formulation).__name__}")
    if setting not in PROFILE_NAMES:
        raise InputError(f"unknown profile {setting!r}; choose one of {', '.join(PROFILE_NAMES)}")
    check_time_limit(time_limit)
    if solvers is not None and (isinstance(solvers, (str, bytes)) or not isinstance(solvers, Sequence)
                                or not all(isinstance(s, str) for s in solvers)):
        raise InputError(f"solvers must be a list of solver names (strings), got {solvers!r}")
    if options is not None and (not isinstance(options, Mapping) or not all(
            isinstance(v, Mapping) for v in options.values())):
        raise InputError("options must map a solver name to a mapping of its options, e.g. "
                         f"{{'OSQP': {{'max_iter': 1000}}}}; got {options!r}")
    formulation.validate()  # bad data is one error up front, not an error row per backend
    installed = set(available_solvers())
    if solvers is None:
        names = [s for s in DEFAULT_SOLVERS if s in installed]
    else:
        names = [s.upper() for s in solvers]
        missing = [s for s in names if s not in installed]
        if missing:
            import difflib

            hints = [f"{m} (did you mean {c[0]}?)" if (c := difflib.get_close_matches(
                m, sorted(installed), n=1)) else m for m in missing]
            raise SolverNotAvailableError(
                f"solver(s) {', '.join(hints)} not installed; installed: {', '.join(sorted(installed))}")
    use_cf = formulation.has_closed_form if closed_form is None else closed_form
    backends = (["closed_form"] if use_cf else []) + names
    if not backends:
        raise InputError("nothing to compare: no solver named (solvers is empty) and no closed "
                         "form")
    if isolate is None:
        isolate = time_limit is not None
    outs: dict[str, Outcome] = {}
    interrupted = False
    for name in backends:
        try:
            outs[name] = run_backend(formulation, name, options=dict((options or {}).get(name)
                                                                    or {}) or None,
                                     setting=setting, time_limit=time_limit, isolate=isolate)
        except KeyboardInterrupt:
            interrupted = True
            break
    ref_name, ref_reason = _pick_reference(outs, setting)
    ref = outs.get(ref_name) if ref_name else None
    ref_sol = ref.solution if ref is not None else None
    compared = tuple(v for v in formulation.compare if ref_sol is not None and v in ref_sol.values)
    fitted_ref = fitted_values(formulation, ref_sol.values) if ref_sol is not None else None
    try:
        n = int(formulation.n)  # type: ignore[attr-defined]
    except Exception:
        n = None
    report = Report(formulation.name, ref_name, n, compared=compared,
                    citation=str(formulation.reference), setting=setting,
                    time_limit=time_limit, reference_reason=ref_reason,
                    interrupted=interrupted)
    for name in backends:
        out = outs.get(name)
        tol = profile(name, setting).tol
        if out is None:
            row = Row(name, INTERRUPTED, math.nan, math.nan, None, None, {}, {}, tol, None,
                      reason="not run (interrupted)", setting=setting)
            report.rows.append(row)
            continue
        sol = out.solution
        row = Row(name, out.status, out.setup_time, out.solve_time,
                  sol.objective if sol is not None else None, None, {}, dict(out.kkt), tol,
                  None, error=out.error, kkt_note=out.kkt_note, log=out.log, setting=setting,
                  iterations=(sol.extras.get("iterations") if sol is not None else None))
        if not _usable(out):
            if out.status == UNSUPPORTED:
                row.agrees, row.reason = None, "not applicable: " + (out.error or "")
            else:
                row.agrees = False
                row.reason = f"no point: status {out.status}"
            report.rows.append(row)
            if on_row:
                on_row(row)
            continue
        assert sol is not None  # _usable(out) guarantees a solution
        if ref_sol is not None and name != ref_name:
            for v in compared:
                if v in sol.values:
                    ab, rel = deviation(sol.values[v], ref_sol.values[v])
                    row.deviation[v] = {"abs": ab, "rel": rel}
            if sol.objective is not None and ref_sol.objective is not None:
                row.objective_rel_gap = (abs(sol.objective - ref_sol.objective)
                                         / max(abs(ref_sol.objective), 1e-300))
        fitted = fitted_values(formulation, sol.values) if name != ref_name else None
        _judge(row, out, ref, name == ref_name, tol, fitted, fitted_ref)
        report.rows.append(row)
        if on_row:
            on_row(row)
    for r in report.rows:
        for why in r.non_identifiable.values():
            report.notes.append(f"{r.backend}: {why}")
    if ref is None:
        report.notes.append(f"no reference: {ref_reason}")
    from .conformance import KNOWN_LIMITS

    if formulation.name in KNOWN_LIMITS and not report.all_agree:
        report.notes.append(f"known limit of {formulation.name}: "
                            f"{KNOWN_LIMITS[formulation.name]['reason']}")
    return report
