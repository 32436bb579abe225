"""Warm starts: DPP re-solves along a parameter path, measured per solver.

A formulation's hyperparameters are cvxpy ``Parameter`` s (DPP), so changing one and solving
again skips most of cvxpy's conversion and lets a solver that supports it warm-start from the
previous point.  :func:`warm_path` measures exactly that: the first solve at ``values[0]`` and
a re-solve at each following value, in one worker process (bounded by the time limit), each
step with cvxpy's compile time, the solver's own time and the wall time of the call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["warm_path", "warm_summary"]


def _path_in_process(formulation: Any, solver: str, param: str, values: Sequence[float],
                     setting: str, time_limit: float | None) -> list[dict[str, Any]]:
    from .report import ranking_time

    steps = []
    for k, v in enumerate(values):
        setattr(formulation, param, v)
        try:
            sol = formulation.solve(solver, raise_on_failure=False, setting=setting,
                                    time_limit=time_limit)
            ex = sol.extras
            steps.append({"step": k, "param": param, "value": float(v), "status": sol.status,
                          "compile_s": sol.compile_time, "solver_s": ex.get("solver_time"),
                          "solve_call_s": ex.get("solve_call_time"),
                          "time_s": ranking_time(ex.get("solver_time"), ex.get("solve_call_time")),
                          "iterations": ex.get("iterations"), "objective": sol.objective})
        except Exception as exc:  # a step that raises is a row, never a crash
            steps.append({"step": k, "param": param, "value": float(v), "status": "error",
                          "error": f"{type(exc).__name__}: {exc}"})
    return steps


def warm_path(formulation: Any, solver: str, param: str, values: Sequence[float], *,
              setting: str = "high", time_limit: float = 60.0) -> list[dict[str, Any]]:
    """Solve ``formulation`` with ``solver`` at each value of its hyperparameter ``param``,
    reusing one cvxpy problem (step 0 is the cold first solve).

    Parameters
    ----------
    formulation : Formulation
        The instance; ``param`` must be one of its DPP parameters (``parameter_values()``).
    solver : str
        A cvxpy solver name.
    param : str
        The hyperparameter to move along the path.
    values : sequence of float
        The path.
    setting : str, default="high"
        Tolerance profile.
    time_limit : float, default=60.0
        Seconds per step; the whole path runs in one worker killed after
        ``time_limit * len(values)``.

    Returns
    -------
    list of dict
        One dict per step: ``step``, ``param``, ``value``, ``status``, ``compile_s``,
        ``solver_s``, ``solve_call_s``, ``time_s``, ``iterations``, ``objective`` (``error``
        when a step raised); a single ``status="time_limit"`` step when the worker was killed.
    """
    from ..checks import check_option
    from ..exceptions import InputError
    from .worker import run_task

    check_option(param, formulation.parameter_values(), f"{type(formulation).__name__}'s DPP parameter",
                 error=InputError)
    if len(values) < 2:
        raise InputError(f"a warm-start path needs at least 2 values of {param}, got {values!r}")
    try:
        return run_task(_path_in_process, formulation, solver, param, list(values), setting,
                        0.9 * time_limit, time_limit=time_limit * len(values))
    except TimeoutError as exc:
        return [{"step": 0, "param": param, "value": float(values[0]), "status": "time_limit",
                 "error": str(exc)}]
    except RuntimeError as exc:
        return [{"step": 0, "param": param, "value": float(values[0]), "status": "error",
                 "error": str(exc)}]


def warm_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per solver: median time of the first solve and of the re-solves (the time it is ranked
    by, and cvxpy's compile time), and their ratio."""
    def med(v: list[float]) -> float:
        v = sorted(x for x in v if math.isfinite(x))
        return v[len(v) // 2] if v else math.nan

    def f(x: Any) -> float:
        try:
            return float(x)
        except (TypeError, ValueError):
            return math.nan

    by: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if r.get("status") not in ("optimal", "optimal_inaccurate"):
            continue
        d = by.setdefault(str(r["solver"]), {"t0": [], "t": [], "c0": [], "c": []})
        first = int(f(r.get("step"))) == 0
        d["t0" if first else "t"].append(f(r.get("time_s")))
        d["c0" if first else "c"].append(f(r.get("compile_s")))
    out = []
    for s in sorted(by):
        d = by[s]
        t0, t = med(d["t0"]), med(d["t"])
        out.append({"solver": s, "first solve [s]": t0, "re-solve [s]": t,
                    "re-solve / first": t / t0 if t0 > 0 else math.nan,
                    "first compile [s]": med(d["c0"]), "re-solve compile [s]": med(d["c"]),
                    "re-solves": len(d["t"])})
    return out
