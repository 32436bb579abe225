"""``compare``: one formulation through its closed form and any cvxpy solvers, judged truthfully.

What a verdict is made of:

* **A certificate per point** — every backend's point gets three scaled residuals, primal
  infeasibility, dual infeasibility and duality gap (:mod:`lssvm_cvx.certificates`): for a
  cvxpy solver in the cone program cvxpy handed it, at the solver's own primal-dual point
  (valid for any DCP composition, smooth or not: ``norm1``, ``max``, ``pos`` became cones
  before the solver saw them); for the closed form on the Lagrangian of the cvxpy problem
  with the closed form's multipliers (its problems are smooth), plus the closed form's own
  diagnostics (system residual, any ridge it added).  A point is *certified* when its
  residuals are within its backend's tolerance profile (:mod:`lssvm_cvx.solvers`).  The smooth
  stationarity residual is an extra column; it is never evaluated for a non-smooth problem
  and never decides a verdict on its own.
* **The reference by evidence** — the point with the best (smallest worst-residual)
  certificate, the closed form included; certificates equal to round-off
  (:data:`~lssvm_cvx.certificates.SCORE_FLOOR`) go to the closed form, then to the order the
  solvers were named in.  The report says why it was chosen.  The status word never decides.
* **Agreement by measurement** — a row agrees when its point is primal feasible and has the
  reference's objective (the formulation's NumPy twin, never a solver's self-report) and
  values of the compared quantities, within the looser of the two backends' tolerances, and
  the reference is certified (or its own point is).  A row whose own duals are poor (a
  first-order solver) but whose point matches a certified reference agrees: the point is
  right.  A row that does not match is ``NO`` unless both its certificate and the
  reference's pass: then the verdict is **disagreement** (two certified points that
  contradict each other: one certificate, or the problem, is suspect), charged to neither.
* **Identifiable quantities** — when a compared quantity differs from the reference at a
  point that is feasible and has the reference's objective (so both are optimal) and the
  fitted values agree, that quantity is not identifiable at this instance (its optimal set is
  not a point, e.g. ``alpha`` with a singular Gram): its deviation is shown, marked "n.i.",
  and the verdict rests on the fitted values and the objective, as the report says.
* **The twin is part of the verdict** — at every point the NumPy twin of each piece of the
  objective (the composition: the loss and each term, separately) is compared with its cvxpy
  expression; a gap beyond the tolerance at a certified point marks the *formulation* as
  failing, naming the piece (``report.formulation_failures``), not the solvers.
* **Bounded** — each backend runs in a worker process killed after ``time_limit`` seconds
  (status ``time_limit``); its output is captured in the row's ``log``.  Ctrl-C stops the
  comparison at once (the running worker is killed; workers ignore the terminal's SIGINT, so
  none prints a traceback) and raises :class:`~lssvm_cvx.exceptions.Interrupted` — a
  ``KeyboardInterrupt`` — whose ``partial`` is the report of the rows that finished
  (``report.interrupted``).  In a process that may not start children (a daemonic
  ``multiprocessing.Pool`` or Dask worker) the backends run in-process, the time limit
  passed to the solvers that take one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..certificates import SCORE_FLOOR
from ..checks import check_option
from ..exceptions import InputError, Interrupted, SolverNotAvailableError
from ..solution import OPTIMAL, Solution
from ..solvers import (
    DEFAULT_SOLVERS,
    PROFILE_NAMES,
    Tolerance,
    available_solvers,
    check_solve_arguments,
    profile,
    solver_version,
)
from .report import Report, Row, deviation, twin_gaps
from .worker import INTERRUPTED, UNSUPPORTED, Outcome, run_backend

__all__ = ["compare", "fitted_values", "check_time_limit", "classify_failure", "DEFAULT_TIME_LIMIT"]

#: seconds per backend unless told otherwise
DEFAULT_TIME_LIMIT = 60.0


def check_time_limit(time_limit: Any) -> None:
    """``None`` or a positive finite number of seconds, else
    :class:`~lssvm_cvx.exceptions.HyperparameterError` (an :class:`InputError`): the rule of
    every solve (:func:`lssvm_cvx.solvers.check_solve_arguments`)."""
    check_solve_arguments(None, time_limit)


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


def _score(out: Outcome) -> float:
    c = out.certificate
    return max(c.score, SCORE_FLOOR) if c is not None else math.inf


def _pick_reference(outs: dict[str, Outcome], setting: str) -> tuple[str | None, str]:
    """The usable point with the best certificate (ties at round-off: the first in order,
    the closed form first), and why.  Without any evaluated certificate: the closed form,
    else the first point with status ``optimal``."""
    cands = [(n, o) for n, o in outs.items() if _usable(o)]
    if not cands:
        return None, "no backend returned a point"
    name, best = min(cands, key=lambda no: _score(no[1]))
    if math.isfinite(_score(best)):
        why = f"best certificate: {best.certificate.describe()}"
        ties = [n for n, o in cands if n != name and _score(o) == _score(best)]
        if ties:
            why += f" (tied at round-off with {', '.join(ties)}: first in order)"
        cf = outs.get("closed_form")
        if name != "closed_form" and cf is not None:
            why += ("; the closed form's is worse: " + cf.certificate.describe()
                    if _usable(cf) and cf.certificate is not None
                    else "; the closed form returned no point")
        cert = best.certificate
        tol = profile(name, setting).tol
        if not cert.passes(tol):
            why += ("; NOT certified at its profile (" + "; ".join(cert.failures(tol))
                    + "): no point is, so rows are judged on their own certificates")
        return name, why
    cf = outs.get("closed_form")
    if cf is not None and _usable(cf):
        return "closed_form", "no certificate could be evaluated; the closed form"
    opt = [n for n, o in cands if o.status == OPTIMAL]
    if opt:
        return opt[0], "no certificate could be evaluated; the first point with status optimal"
    return None, ("no certificate could be evaluated and no backend reached status optimal; "
                  "rows are judged on their own residuals")


def _record_retry(row: Row, out: Outcome, ref_sol: Solution | None) -> None:
    """A failed run's re-run at a looser profile: what it reached, on the row."""
    if out.retry is None:
        return
    prof, again = out.retry
    row.retry_profile, row.retry_status = prof, again.status
    if not _usable(again):
        row.reason += f"; at the {prof} profile: status {again.status}, no point either"
        return
    row.retry_certificate = again.certificate
    obj = again.solution.objective if again.solution is not None else None
    if obj is not None and ref_sol is not None and ref_sol.objective is not None:
        row.retry_objective_gap = abs(obj - ref_sol.objective) / max(abs(ref_sol.objective),
                                                                     1e-300)
    reached = again.certificate.describe() if again.certificate is not None else "a point"
    gap = (f", objective gap {row.retry_objective_gap:.2g} to the reference"
           if row.retry_objective_gap is not None else "")
    row.reason += (f"; at the looser {prof} profile it returns a point (status "
                   f"{again.status}: {reached}{gap}): this profile asks for more than it "
                   "reaches here")


#: fragments of cvxpy's messages when a solver cannot take the problem's class (found while
#: cvxpy builds the solving chain): not the solver's failure
_NOT_APPLICABLE = ("cannot solve this problem", "is not installed", "does not support",
                   "not support")


def classify_failure(row: Row, out: Outcome, time_limit: float | None) -> str:
    """Why ``row`` failed, one of :data:`~lssvm_cvx.harness.report.FAILURES` ("" when its
    verdict is yes, a disagreement, or the backend is the closed form's certified point).

    ``not_applicable``: the solver does not take this problem class (before any solve);
    ``compile``: building the problem or cvxpy's conversion for the solver failed (e.g. an
    ARPACK error in a PSD check), before the solver ran; ``interrupted``: Ctrl-C;
    ``time_limit``: killed at the harness's limit, or the solver stopped at its own time
    limit; ``settings``: no point at this profile but a point at the next looser one (the
    profile asks for more than the solver reaches on this problem); ``solver``: anything
    else — no point, a crash, or a point that fails its check.  Only ``solver``,
    ``settings`` and ``time_limit`` are charged to the solver
    (:data:`~lssvm_cvx.harness.report.NOT_CHARGED`).
    """
    from .worker import ERROR, TIME_LIMIT

    if row.verdict in ("yes", "disagreement"):
        return ""
    if row.verdict == "n/a" or out.status == UNSUPPORTED:
        return "not_applicable"
    if out.status == INTERRUPTED:
        return "interrupted"
    if out.status == TIME_LIMIT:
        return "time_limit"
    err = (out.error or "").lower()
    if out.stage in ("build", "compile") or (out.status == ERROR and out.stage != "solver"):
        return "not_applicable" if any(f in err for f in _NOT_APPLICABLE) else "compile"
    if out.status == "user_limit" and time_limit is not None and (
            out.solve_call_time or 0.0) >= 0.8 * 0.9 * time_limit:
        return "time_limit"
    if out.retry is not None and _usable(out.retry[1]):
        return "settings"
    return "solver"


def _looser(a: Tolerance, b: Tolerance) -> Tolerance:
    return Tolerance(rel=max(a.rel, b.rel), feas=max(a.feas, b.feas), kkt=max(a.kkt, b.kkt))


def _match(row: Row, tol: Tolerance, fitted: np.ndarray | None,
           fitted_ref: np.ndarray | None) -> list[str]:
    """What keeps ``row``'s point from being the reference's (objective gap, compared
    quantities, fitted values, at ``tol``); fills ``row.non_identifiable``.  Empty: a match."""
    fails: list[str] = []
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
    if bad and gap_ok and (fit_dev is None or fit_ok):
        # a feasible point with the optimal objective is an optimal point: the quantities that
        # still differ have a non-singleton optimal set (singular Gram, flat non-smooth
        # objective) or are too ill-conditioned to pin at this tolerance
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
    return fails


def _judge(row: Row, ref: Row | None, is_ref: bool, tol: Tolerance,
           fitted: np.ndarray | None, fitted_ref: np.ndarray | None) -> None:
    """Fill ``row.agrees``, ``row.verdict``, ``row.reason`` and ``row.non_identifiable``
    (module docstring).  ``ref`` is the reference's row (already carrying its certificate)."""
    cert = row.certificate
    own = cert.failures(tol) if cert is not None else ["no certificate"]
    own_ok = not own
    p = row.kkt.get("primal", math.nan)
    feasible = not (math.isfinite(p) and p > tol.feas)
    parts: list[str] = []
    if row.status != OPTIMAL and not is_ref:
        parts.append(f"status {row.status}: judged on the measured point")
    fails: list[str] = [] if feasible else [f"primal res {p:.2g} > {tol.feas:g}"]
    if is_ref:
        parts.append("reference")
        fails += [f"certificate: {f}" for f in own]
        row.agrees = not fails
        row.verdict = "yes" if row.agrees else "NO"
    elif ref is None:
        parts.append("no reference: judged on its own certificate")
        fails += [f"certificate: {f}" for f in own]
        row.agrees = not fails
        row.verdict = "yes" if row.agrees else "NO"
    else:
        ref_ok = ref.certificate is not None and ref.certificate.passes(ref.tolerance)
        mismatch = _match(row, _looser(tol, ref.tolerance), fitted, fitted_ref)
        if not mismatch and feasible and (ref_ok or own_ok):
            row.agrees, row.verdict = True, "yes"
            parts.append("matches the certified reference" if ref_ok
                         else "matches the reference; its own certificate passes")
            if own:
                parts.append("own certificate: " + "; ".join(own)
                             + " (its multipliers are inaccurate, its point is not)")
        elif not mismatch and feasible:
            row.agrees, row.verdict = False, "NO"
            fails.append("matches the reference, but neither point is certified ("
                         + "; ".join(own) + ")")
        elif own_ok and ref_ok and feasible:
            row.agrees, row.verdict = False, "disagreement"
            parts.append("disagreement: this point and the reference are both certified "
                         "yet differ (" + "; ".join(mismatch) + "): one certificate, or the "
                         "problem, is suspect; charged to neither")
        else:
            row.agrees, row.verdict = False, "NO"
            fails += mismatch + [f"certificate: {f}" for f in own]
    parts += fails
    if row.non_identifiable:
        parts.append("not identifiable: " + ", ".join(row.non_identifiable)
                     + " (judged on fitted values and objective)")
    if row.agrees:
        parts.append(f"within the {row.setting} profile")
    row.reason = "; ".join(parts)


def _mark_disagreement(report: Report, ref_row: Row | None) -> None:
    """A reference contradicted by another certified point is part of the disagreement:
    its verdict says so, and a note names the feasible point with the lowest objective (the
    best evidence of where the optimum is)."""
    others = [r for r in report.rows if r.verdict == "disagreement"]
    if ref_row is None or not others:
        return
    ref_row.agrees, ref_row.verdict = False, "disagreement"
    ref_row.reason += ("; disagreement: " + ", ".join(r.backend for r in others)
                       + " (certified) differ from this point")
    feasible = {r.backend: float(r.objective) for r in report.rows
                if r.objective is not None and r.verdict != "NO"}
    if feasible:
        low = min(feasible, key=feasible.__getitem__)
        report.notes.append(
            f"disagreement between certified points: the lowest objective is {low}'s "
            f"({feasible[low]:.10g}; reference {ref_row.objective}): the problem is too "
            "ill-conditioned for these tolerances, or a certificate is wrong")


def _judge_twin(report: Report) -> None:
    """The formulation's NumPy twin against its cvxpy expression, piece by piece, at every
    certified point: ``report.twin`` and, beyond the backend's tolerance,
    ``report.formulation_failures`` naming the piece."""
    certified = [r for r in report.rows if r.twin and r.certificate is not None
                 and r.certificate.passes(r.tolerance)]
    if not certified and any(r.twin for r in report.rows):
        report.notes.append("NumPy twin not judged: no point is certified (far from the "
                            "optimum a truncated factor in a term's expression may differ from "
                            "its twin without any bug)")
    worst: dict[str, dict[str, Any]] = {}
    for r in certified:
        # at a point that is feasible to tol.feas, epigraph variables are tight to about that:
        # the twin is held to the looser of the objective and feasibility tolerances
        bound = max(r.tolerance.rel, r.tolerance.feas)
        for piece, gap in twin_gaps(r.twin).items():
            npv, cvx = r.twin[piece]
            bad = gap > bound
            cur = worst.get(piece)
            if cur is None or (bad, gap) > (cur["beyond_tolerance"], cur["gap"]):
                worst[piece] = {"gap": gap, "backend": r.backend, "numpy": npv, "cvxpy": cvx,
                                "beyond_tolerance": bad, "tolerance": bound}
    report.twin = worst
    for piece, w in worst.items():
        if w["beyond_tolerance"]:
            report.formulation_failures.append(
                f"the NumPy twin of {piece} is {w['numpy']:.6g} but its cvxpy expression is "
                f"{w['cvxpy']:.6g} at {w['backend']}'s certified point (gap {w['gap']:.2g} of "
                f"the objective > {w['tolerance']:g}): fix its value() (or objective()), not "
                "the solvers")


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
    check_option(setting, PROFILE_NAMES, "setting", error=InputError)
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
    judged: list[tuple[Row, np.ndarray | None]] = []
    ref_row: Row | None = None
    for name in backends:
        out = outs.get(name)
        tol = profile(name, setting).tol
        if out is None:
            row = Row(name, INTERRUPTED, math.nan, math.nan, None, None, {}, {}, tol, None,
                      reason="not run (interrupted)", setting=setting, verdict="NO")
            report.rows.append(row)
            continue
        sol = out.solution
        row = Row(name, out.status, out.setup_time, out.solve_time,
                  sol.objective if sol is not None else None, None, {}, dict(out.kkt), tol,
                  None, error=out.error, kkt_note=out.kkt_note, log=out.log, setting=setting,
                  iterations=out.iterations, certificate=out.certificate, twin=dict(out.twin),
                  compile_time=out.compile_time, solver_time=out.solver_time,
                  solve_call_time=out.solve_call_time, solver_status=out.solver_status,
                  size=dict(out.size), options=dict(out.options),
                  solver_version=solver_version(name))
        report.rows.append(row)
        if not _usable(out):
            if out.status == UNSUPPORTED:
                row.agrees, row.verdict = None, "n/a"
                row.reason = "not applicable: " + (out.error or "")
            else:
                row.agrees, row.verdict = False, "NO"
                row.reason = f"no point: status {out.status}"
                _record_retry(row, out, ref_sol)
            if out.followup_note:
                row.reason += f"; {out.followup_note}"
            continue
        assert sol is not None  # _usable(out) guarantees a solution
        if out.twin_note:
            report.notes.append(f"{name}: NumPy twin not evaluated ({out.twin_note})")
        if ref_sol is not None and name != ref_name:
            for v in compared:
                if v in sol.values:
                    ab, rel = deviation(sol.values[v], ref_sol.values[v])
                    row.deviation[v] = {"abs": ab, "rel": rel}
            if sol.objective is not None and ref_sol.objective is not None:
                row.objective_rel_gap = (abs(sol.objective - ref_sol.objective)
                                         / max(abs(ref_sol.objective), 1e-300))
        if name == ref_name:
            ref_row = row
        judged.append((row, fitted_values(formulation, sol.values) if name != ref_name
                       else None))
    if ref_row is not None:
        _judge(ref_row, None, True, ref_row.tolerance, None, None)
    for row, fitted in judged:
        if row is not ref_row:
            _judge(row, ref_row, False, row.tolerance, fitted, fitted_ref)
    _mark_disagreement(report, ref_row)
    _judge_twin(report)
    for name in backends:
        if name in outs:
            row = report[name]
            row.failure = classify_failure(row, outs[name], time_limit)
    if on_row:
        for row in report.rows:
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
    if interrupted:  # stop whatever runs compare; what finished travels with the interrupt
        raise Interrupted(f"compare interrupted: {len(outs)} of {len(backends)} backends "
                          "finished", partial=report)
    return report
