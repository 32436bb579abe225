"""Pareto fronts and the ideal-point choice of ε* (You, Benitez-Quiroz & Martinez 2014, eq. 27-28):
tracing a front of a scalarised problem (:mod:`lssvm_cvx.formulations.scalarize`) by re-solving
its DPP ε parameter, dominance tests and the selection of one point."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.utils import check_array

from ..checks import check_grid, check_option, check_positive, named_message
from ..exceptions import HyperparameterError, InputError, SolverError
from ..formulations.scalarize import check_eps_values
from ..solvers import solve_problem

__all__ = [
    "trace_front",
    "ParetoFront",
    "ideal_point_weights",
    "select_ideal_point",
    "dominated",
    "non_dominated_mask",
]


def _front(F: Any) -> np.ndarray:
    """``F`` as a float ``(n_points, k)`` array (a NaN row: a point not solved), else
    :class:`InputError` naming it.  Until the eighteenth session (2026-11-30) the functions
    below read ``F`` with ``np.asarray``: a string or a ragged list crashed in NumPy, a scalar
    or an empty list reached an ``IndexError`` (or was taken as a one-point front)."""
    try:
        return check_array(F, dtype=np.float64, ensure_all_finite="allow-nan", input_name="F")
    except (TypeError, ValueError) as exc:
        raise InputError(named_message("F", exc)) from None


def _ideal(ideal: Any, k: int) -> np.ndarray:
    """The ideal point ``z*``: ``k`` finite real numbers, else :class:`InputError`."""
    try:
        if np.asarray(ideal).dtype.kind == "b":
            raise ValueError("booleans are not objective values")
        z = check_array(ideal, dtype=np.float64, ensure_2d=False, input_name="ideal")
    except (TypeError, ValueError) as exc:
        raise InputError(named_message("ideal", exc)) from None
    if z.shape != (k,):
        raise InputError(f"ideal must have one value per objective ({k}), got shape {z.shape}")
    return z


def _tol(tol: Any) -> float:
    return 0.0 if isinstance(tol, (int, float, np.number)) and tol == 0 else check_positive(
        tol, "tol")


def dominated(F: Any, *, tol: float = 0.0) -> np.ndarray:
    """``out[i]`` is True when some row of ``F`` dominates row ``i`` (Definition 1): no worse
    in every objective (within ``tol``) and better by more than ``tol`` in at least one."""
    F, tol = _front(F), _tol(tol)
    le = np.all(F[None, :, :] <= F[:, None, :] + tol, axis=2)  # le[i, j]: j no worse than i
    lt = np.any(F[None, :, :] < F[:, None, :] - tol, axis=2)
    return np.any(le & lt, axis=1)


def non_dominated_mask(F: Any, *, tol: float = 0.0) -> np.ndarray:
    """Rows of ``F`` not dominated by another row."""
    return ~dominated(F, tol=tol)


# ------------------------------------------------------------------------------ ideal point
def ideal_point_weights(F: Any, ideal: Any, eps0_index: int, kind: str = "paper") -> np.ndarray:
    """Weights of eq. (28): ``w_i = |u_i(θ_ε0) - z_i*|²`` (``kind="paper"``).

    ``kind="normalized"`` uses ``1/(max_ε u_i - z_i*)²`` instead (a scale-free alternative:
    the printed weights make eq. 27 scale with the fourth power of each objective's units).
    """
    F = _front(F)
    z = _ideal(ideal, F.shape[1])
    if not (isinstance(eps0_index, (int, np.integer)) and not isinstance(eps0_index, bool)
            and 0 <= eps0_index < F.shape[0]):
        raise HyperparameterError(f"eps0_index must be a row of F (0..{F.shape[0] - 1}), got "
                                  f"{eps0_index!r}")
    check_option(kind, ("paper", "normalized"), "weights")
    if kind == "paper":
        return np.abs(F[eps0_index] - z) ** 2
    if kind == "normalized":
        span = np.nanmax(F, axis=0) - z
        return 1.0 / np.where(span > 0, span, 1.0) ** 2
    raise HyperparameterError(f"unknown weights {kind!r}; use 'paper' or 'normalized'")


def select_ideal_point(F: Any, ideal: Any | None = None, *, eps0_index: int | None = None,
                       weights: Any = "paper") -> int:
    """Index of ε* (eq. 27): ``argmin_ε Σ_i w_i (u_i(θ_ε) - z_i*)²``.

    Parameters
    ----------
    F :
        Objective vectors of the traced front, one row per ε (NaN rows are skipped).
    ideal :
        ``z*``; the column minima of ``F`` when None (exact when the sweep reaches both ends
        of the front).
    eps0_index :
        Row of the initial ε₀ for the weights of eq. (28) (default: the middle row).
    weights :
        ``"paper"`` (eq. 28), ``"normalized"`` or an explicit weight vector.
    """
    F = _front(F)
    ok = np.all(np.isfinite(F), axis=1)
    if not ok.any():
        raise SolverError("no point of the front was solved", solver=None, status="all failed")
    z = np.nanmin(F[ok], axis=0) if ideal is None else _ideal(ideal, F.shape[1])
    if eps0_index is None:
        idx = np.flatnonzero(ok)
        eps0_index = int(idx[idx.size // 2])
    if isinstance(weights, str):
        w = ideal_point_weights(F, z, eps0_index, weights)
        if not np.all(np.isfinite(w)) or np.all(w == 0):    # ε0 unsolved, or on the ideal
            w = ideal_point_weights(F[ok], z, 0, "normalized")
    else:
        w = check_grid(weights, "weights", allow_zero=True, flat=True)
        if w.size != F.shape[1] or np.all(w == 0):
            raise HyperparameterError(f"weights must be one value >= 0 per objective "
                                      f"({F.shape[1]}), not all 0; got {weights!r}")
    d = np.where(ok, np.sum(w * (F - z) ** 2, axis=1), np.inf)
    return int(np.argmin(d))


@dataclass
class ParetoFront:
    """A traced front: one row per ε value."""

    eps: np.ndarray
    F: np.ndarray  # objective values (n_eps, k)
    status: list[str]
    solve_times: np.ndarray
    first_solve_time: float
    sweep_time: float
    recompiled: bool
    points: list[dict[str, np.ndarray]] = field(default_factory=list)
    ideal: np.ndarray | None = None

    def ideal_point_index(self, *, eps0_index: int | None = None, weights: Any = "paper") -> int:
        """ε* of eq. (27)-(28) over this front."""
        return select_ideal_point(self.F, self.ideal, eps0_index=eps0_index, weights=weights)

    def non_dominated(self, tol: float = 0.0) -> np.ndarray:
        return non_dominated_mask(self.F, tol=tol)

    def to_dict(self) -> dict[str, Any]:
        return {"eps": self.eps.tolist(), "F": self.F.tolist(), "status": list(self.status),
                "solve_times": self.solve_times.tolist(), "first_solve_time": self.first_solve_time,
                "sweep_time": self.sweep_time, "recompiled": self.recompiled}


def trace_front(problem: Any, eps_values: Any, *, solver: str = "CLARABEL",
                keep: Sequence[str] = (), options: dict[str, Any] | None = None,
                ideal: Any = None) -> ParetoFront:
    """Solve ``problem`` for every ε in ``eps_values`` by updating the DPP parameter.

    The first solve compiles; the following ones reuse cvxpy's cached parametrised program
    (``recompiled`` reports whether the cache was ever rebuilt).  ``keep`` names variables
    whose values are stored for every ε.  Failed solves give a NaN row.
    """
    if getattr(problem, "eps", None) is None or not hasattr(problem, "objectives"):
        raise InputError("trace_front needs a problem from epsilon_constraint or "
                         "modified_epsilon_constraint (with .eps and .objectives)")
    if not problem.is_dpp():
        raise InputError("the problem is not DPP; a sweep would recompile at every ε")
    k = problem.eps.size
    vals = [np.asarray(v, dtype=np.float64) for v in (eps_values if k > 1 else np.reshape(eps_values, -1))]
    for v in vals:
        check_eps_values(v, k)
    F = np.full((len(vals), len(problem.objectives)), np.nan)
    status, times, points = [], [], []
    prog = None
    recompiled = False
    t_all = time.perf_counter()
    first = None
    for i, v in enumerate(vals):
        problem.eps.value = float(v) if k == 1 else v
        t0 = time.perf_counter()
        info = solve_problem(problem, solver, options=options, raise_on_failure=False,
                             accept_inaccurate=True)
        times.append(time.perf_counter() - t0)
        if i == 0:
            first = times[0]
            prog = problem._cache.param_prog
        elif problem._cache.param_prog is not prog:
            recompiled = True
            prog = problem._cache.param_prog
        status.append(info["status"])
        if info["status"] in ("optimal", "optimal_inaccurate"):
            F[i] = [float(o.value) for o in problem.objectives]
            points.append({n: np.array(problem.vars[n].value) for n in keep})
        else:
            points.append({})
    sweep = time.perf_counter() - t_all - (first or 0.0)
    eps_arr = np.array([float(v) for v in vals]) if k == 1 else np.vstack(vals)
    return ParetoFront(eps_arr, F, status, np.array(times), float(first or 0.0), float(sweep),
                       recompiled, points, None if ideal is None else np.asarray(ideal, float))


# ------------------------------------------------------------------------------ NLP versions
