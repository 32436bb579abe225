"""Graduated non-convexity (componentwise LS-SVM chapter, Algorithm 1): the one stage driver
:func:`run_stages` (a ζ schedule from 1 to 0, majorize-minimize steps per stage, the step
records and the stopping rules), and its use for the chapter's eq. (25) with the weighted
least-squares step of eq. (41)-(43), :func:`gnc` over
:class:`~lssvm_cvx.formulations.componentwise_gnc.ComponentwiseSTP` (the penalty, the
deformation ``J_ζ`` and the majorize-minimize argument are derived in
:mod:`lssvm_cvx.formulations.componentwise_gnc`).  The composition core's non-convex terms use
the same driver (:func:`lssvm_cvx.selection.gnc_terms.gnc_fit`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import check_grid, check_option, check_positive
from ..exceptions import HyperparameterError
from ..formulations.componentwise_gnc import STARTS, ComponentwiseSTP
from ..formulations.componentwise_sparse import selected_components
from ..solution import Solution
from ..solvers import check_backend
from ..linalg.threads import small_system_blas

__all__ = ["GNCResult", "gnc", "prune_overlaps", "check_schedule", "stage_histories",
           "run_stages", "DEFAULT_SCHEDULE", "STARTS"]

#: default ζ schedule of Algorithm 1 ("a strictly decreasing series 1, ζ(1), ζ(2), …, 0")
DEFAULT_SCHEDULE: tuple[float, ...] = (1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.0)


def check_schedule(schedule: Sequence[float] | None,
                   default: Sequence[float] = DEFAULT_SCHEDULE) -> tuple[float, ...]:
    """The ζ schedule as a tuple, checked to decrease strictly from 1 to 0.

    Its values are read by :func:`~lssvm_cvx.checks.check_grid` (twenty-third session: a list
    of strings crashed in ``float()`` with a ``ValueError``).

    Parameters
    ----------
    schedule : sequence of float or None
        The ζ values (None: ``default``).
    default : sequence of float, default=DEFAULT_SCHEDULE
        The schedule used when ``schedule`` is None.

    Returns
    -------
    tuple of float
        The schedule.
    """
    sched = tuple(float(v) for v in check_grid(default if schedule is None else schedule,
                                               "schedule", allow_zero=True))
    if len(sched) < 2 or sched[0] != 1.0 or sched[-1] != 0.0 or np.any(np.diff(sched) >= 0):
        raise HyperparameterError(f"schedule must decrease strictly from 1 to 0, got {sched}")
    return sched


def stage_histories(history: Sequence[dict[str, float]]) -> dict[int, list[float]]:
    """``J_ζ`` after every step (``history[i]["relaxed"]``), grouped by ``"stage"``.

    Parameters
    ----------
    history : sequence of dict
        A GNC driver's step records.

    Returns
    -------
    dict of int to list of float
        Stage index to its ``J_ζ`` values (each list must be non-increasing).
    """
    out: dict[int, list[float]] = {}
    for h in history:
        out.setdefault(int(h["stage"]), []).append(h["relaxed"])
    return out


def run_stages(schedule: Sequence[float], step: Callable[[float], dict[str, float]], *,
               stage_start: Callable[[float], float], max_steps: Callable[[float, bool], int],
               stage_done: Callable[[float, float], bool],
               final_done: Callable[[float, dict[str, float]], bool]
               ) -> tuple[list[dict[str, float]], bool]:
    """The graduated non-convexity loop shared by every GNC fit of the package.

    For every ``ζ`` of ``schedule`` (a stage), majorize-minimize steps are taken until the
    stage's rule holds or its step budget is spent; the last stage (``ζ = 0``, the
    non-convex problem itself) ends when ``final_done`` holds, which is the fit's
    convergence.

    Parameters
    ----------
    schedule : sequence of float
        The ζ values, strictly decreasing from 1 to 0 (:func:`check_schedule`).
    step : callable
        ``step(ζ) -> record``: one majorize-minimize step from the caller's current point (the
        caller keeps the point); the record holds at least ``"relaxed"`` (``J_ζ`` after the
        step) and whatever else the history should show (``"objective"``, ``"change"``...).
    stage_start : callable
        ``stage_start(ζ) -> J``: the reference value of ``J_ζ`` the first step of a stage is
        compared with (``J_ζ`` at the current point, or ``inf`` for no reference).
    max_steps : callable
        ``max_steps(ζ, last) -> int``: the step budget of a stage.
    stage_done : callable
        ``stage_done(J_before, J_after) -> bool``: the end of a stage before the last.
    final_done : callable
        ``final_done(J_before, record) -> bool``: the end (convergence) of the last stage.

    Returns
    -------
    (list of dict, bool)
        The history, one record per step with ``stage``, ``zeta`` and ``step`` (1-based within
        the stage) before the step's own entries, and whether the last stage met
        ``final_done``.
    """
    history: list[dict[str, float]] = []
    converged = False
    for stage, zeta in enumerate(schedule):
        last = stage == len(schedule) - 1
        J = stage_start(zeta)
        for it in range(1, max_steps(zeta, last) + 1):
            rec = step(zeta)
            history.append({"stage": stage, "zeta": zeta, "step": it, **rec})
            J_new = rec["relaxed"]
            if last:
                if final_done(J, rec):
                    converged = True
                    break
            elif stage_done(J, J_new):
                break
            J = J_new
    return history, converged


@dataclass
class GNCResult:
    """Output of :func:`gnc`.

    Attributes
    ----------
    solution :
        Final point as a :class:`~lssvm_cvx.solution.Solution` (``z``, ``yhat``, ``b``, ``e``,
        ``alpha``); its ``objective`` is the objective of eq. (25) (smoothed).
    history :
        One record per weighted least-squares step: ``stage``, ``zeta``, ``step`` (within the
        stage), ``relaxed`` (``J_ζ`` after the step), ``objective`` (``J_0``), ``stationarity``
        (relative projected gradient of ``J_ζ``), ``change`` (``||Δz||/||z||``).
    schedule :
        The ζ values used.
    converged :
        Whether the last stage met ``tol_stationarity``.
    selected :
        ``S_D`` (eq. 22) of the final point.
    """

    solution: Solution
    history: list[dict[str, float]]
    schedule: tuple[float, ...]
    converged: bool
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def stationarity(self) -> float:
        return self.history[-1]["stationarity"]

    def stage_histories(self) -> dict[int, list[float]]:
        """``J_ζ`` after every step, grouped by stage (each list must be non-increasing)."""
        return stage_histories(self.history)


def gnc(problem: ComponentwiseSTP, *, schedule: Sequence[float] | None = None,
        start: str = "l2", rho: float = 1.0, max_inner: int = 50, tol_inner: float = 1e-9,
        max_final: int = 2000, tol_stationarity: float = 1e-8, step: str = "closed_form",
        options: dict[str, Any] | None = None, z0: np.ndarray | None = None,
        selection_tol: float = 1e-4) -> GNCResult:
    """Weighted graduated non-convexity, Algorithm 1 with eq. (41)-(43), for eq. (25).

    Parameters
    ----------
    problem :
        The :class:`ComponentwiseSTP` instance (data, kernel, penalty, ε).
    schedule :
        Strictly decreasing ζ values from 1 to 0 (default :data:`DEFAULT_SCHEDULE`).
    start :
        The convex cost the deformation starts from (``J_ζ`` at ζ = 1):

        * ``"l2"`` (default) — Algorithm 1 as printed: least squares, ``ρ Σ_d ||Ŷ^d||²₂``
          (``J_ζ = ½Σ_d[(1-ζ)ℓ(s_d) + ζρ||Ŷ^d||²] + ½||e||²``).
        * ``"l1"`` — the penalty's tangent at 0, ``ℓ'(0) s_d`` (``λa||Ŷ^d||_1`` for STP, i.e.
          eq. 20 with ``ξ = 1/(λa)``; ``J_ζ = ½Σ_d[(1-ζ)ℓ(s_d) + ζℓ'(0)s_d] + ½||e||²``), the
          classical GNC start for a concave penalty (Blake & Zisserman; Nikolova 1999).

        Both are majorize-minimize paths to a *local* minimum of the non-convex eq. (25) and
        they end in different ones.  Measured on the additive example (N = 100, RBF
        components): the ``"l2"`` path reaches lower values of eq. (25) but keeps (almost) all
        components — with the printed scale ``s_d = ||Ŷ^d||_1`` the STP saturates at
        ``s ≈ 1/a``, far below the size of any component of the least-squares start, so no
        component enters the thresholding region; the ``"l1"`` path starts sparse and keeps
        zeros at zero (``ℓ'(0) = λa`` is the L1 slope), selecting few components but at a
        higher objective.  The Table 1 benchmark reports both.
    rho :
        Weight of the least-squares term for ``start="l2"`` (Algorithm 1: ρ = 1).
    max_inner, tol_inner :
        Reweighting steps per stage before the last: at most ``max_inner``, stopping when the
        relative decrease of ``J_ζ`` falls below ``tol_inner``.  ``max_inner=1`` is the
        paper's literal loop (one weighted solve per ζ).
    max_final, tol_stationarity :
        The last stage (ζ = 0) iterates until the relative projected gradient
        (:meth:`ComponentwiseSTP.stationarity`) is below ``tol_stationarity`` (or
        ``max_final`` steps).
    step :
        ``"closed_form"`` (Cholesky of the step's system) or a cvxpy solver name (the step's
        builder re-solved with the new ``nu``: DPP, no recompilation).
    z0 :
        Start point (default: the unit-weight least-squares solution, Algorithm 1 steps 1-2
        with ``ν = 1``).

    Returns
    -------
    GNCResult
        Stage 0 is ζ = 1; every later stage is one ζ of the schedule.
    """
    sched = check_schedule(schedule)
    check_option(start, STARTS, "start")
    check_backend(step)                      # before the first stage, naming what was given
    rho = check_positive(rho, "rho")
    problem.validate()
    B = problem.basis

    def solve(nu2: np.ndarray) -> tuple[np.ndarray, float]:
        if step == "closed_form":
            return problem.solve_step(nu2)
        problem.nu = np.sqrt(nu2)
        sol = problem.solve(step, options=options)
        return B.project(sol["z"]), sol.scalar("b")

    # small dense solves: BLAS threads only add contention (measured 30x slower at R = 200 on
    # a loaded 2-core machine): the package-wide policy linalg.threads.small_system_blas
    limit = small_system_blas(B.R)
    with limit:
        return _gnc_loop(problem, B, sched, start, rho, max_inner, tol_inner, max_final,
                         tol_stationarity, solve, z0, selection_tol, step)


def _gnc_loop(problem, B, sched, start, rho, max_inner, tol_inner, max_final, tol_stationarity,
              solve, z0, selection_tol, step) -> GNCResult:
    y = problem.targets()
    if z0 is None:
        z, b = solve(np.ones((problem.n, problem.n_components)))          # steps 1-2: ν = 1
    else:
        z = B.project(np.asarray(z0, dtype=np.float64))
        b = float(np.mean(y - B.outputs(z).sum(axis=1)))

    def one_step(zeta: float) -> dict[str, float]:
        nonlocal z, b
        nu2 = problem.weights(z, zeta, rho, start)                        # step 5, eq. (43)
        z_new, b = solve(nu2)                                            # step 4
        change = float(np.linalg.norm(z_new - z) / max(np.linalg.norm(z_new), 1e-300))
        z = z_new
        return {"relaxed": problem.relaxed_objective(z, b, zeta, rho, start),
                "objective": problem.relaxed_objective(z, b, 0.0, rho, start),
                "stationarity": problem.stationarity(z, zeta, rho, start), "change": change}

    history, converged = run_stages(
        sched, one_step, stage_start=lambda zeta: problem.relaxed_objective(z, b, zeta, rho, start),
        max_steps=lambda zeta, last: max_final if last else max_inner,
        stage_done=lambda J, J_new: (J - J_new) / max(abs(J), 1e-300) < tol_inner,
        final_done=lambda J, rec: rec["stationarity"] <= tol_stationarity)
    Yh = B.outputs(z)
    e = y - Yh.sum(axis=1) - b
    sol = Solution(values={"z": z, "yhat": Yh, "b": b, "e": e, "alpha": B.alpha(z)},
                   backend=f"gnc/{step}", objective=problem.relaxed_objective(z, b, 0.0, rho, start),
                   extras={"history": history})
    scale = float(np.linalg.norm(y - y.mean()))
    return GNCResult(sol, history, sched, converged, selected_components(Yh, selection_tol, scale=scale))


def prune_overlaps(problem: ComponentwiseSTP, result: GNCResult, groups: Sequence[Sequence[int]],
                   *, max_final: int = 2000, tol_stationarity: float = 1e-8,
                   selection_tol: float = 1e-4) -> tuple[GNCResult, list[dict[str, Any]]]:
    """Leave the plateau where one effect is split over overlapping candidate components.

    Why.  With several candidate kernels per input (the chapter's "STP with RBF and lin",
    §5.2) the spans of the candidates of one input overlap (a wide 1-D RBF span contains the
    linear function up to rounding).  GNC's least-squares start splits an effect over them,
    and once both pieces are large the STP (24) is flat (saturated) in both: moving the shared
    part from one to the other changes eq. (25) by ~0, so the reweighted steps (a
    majorize-minimize descent) stay at a point where both are kept although one alone costs
    less.  This is a local search on the support that only ever lowers eq. (25): for each group
    (the candidate components of one input) with more than one selected member, each selected
    member in turn is set to zero and the last GNC stage (ζ = 0) is run to stationarity from
    there; the trial with the lowest objective of eq. (25) replaces the current point when it
    is lower.  Repeated until no group improves.

    Parameters
    ----------
    problem : ComponentwiseSTP
        The problem ``result`` was computed on.
    result : GNCResult
        Output of :func:`gnc`.
    groups : sequence of sequences of int
        Component indices that overlap (e.g. all candidates of one input column).
    max_final, tol_stationarity, selection_tol :
        As in :func:`gnc` (the last stage of every trial).

    Returns
    -------
    (GNCResult, list of dict)
        The final result (``result`` itself when nothing improved) and one record per trial
        (``group``, ``dropped``, ``objective`` before / after, ``accepted``).
    """
    B = problem.basis
    log: list[dict[str, Any]] = []
    best = result
    improved = True
    while improved:
        improved = False
        sel = set(best.selected.tolist())
        for g in groups:
            members = [d for d in g if d in sel]
            if len(members) < 2:
                continue
            trials = []
            for d in members:
                z0 = np.array(best.solution["z"], dtype=np.float64)
                o = B.offsets
                z0[o[d]:o[d + 1]] = 0.0
                with small_system_blas(B.R):
                    r = _gnc_loop(problem, B, (0.0,), "l2", 1.0, 1, 0.0, max_final,
                                  tol_stationarity, problem.solve_step, z0, selection_tol,
                                  "closed_form")
                trials.append((_objective(r), d, r))
            obj, d, r = min(trials, key=lambda t: t[0])
            before = _objective(best)
            ok = obj < before - 1e-9 * abs(before)
            log.append({"group": list(g), "dropped": int(d), "before": before,
                        "after": float(obj), "accepted": bool(ok)})
            if ok:
                r.history[:0] = best.history
                best = r
                improved = True
                break
    return best, log


def _objective(r: GNCResult) -> float:
    obj = r.solution.objective
    return float("inf") if obj is None else float(obj)
