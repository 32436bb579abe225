"""cvxpy solvers: per-solver settings and tolerance profiles (the one place they live), and
one function that solves a cvxpy problem and reports status and times.

Profiles follow qpbenchmark: a solver runs with tight settings, and comparisons against the
closed form are judged with a tolerance that matches what that solver can deliver.  Tests and
the harness read tolerances from :data:`PROFILES`; nothing else hard-codes them.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp

from .exceptions import SolverError, SolverNotAvailableError
from .solution import OPTIMAL, OPTIMAL_INACCURATE

__all__ = [
    "Tolerance",
    "SolverProfile",
    "PROFILES",
    "DEFAULT_SOLVERS",
    "available_solvers",
    "profile",
    "check_solver",
    "solve_problem",
]


@dataclass(frozen=True)
class Tolerance:
    """How close a backend must come to the reference to "agree".

    A variable agrees when ``max|x - x_ref|`` or ``max|x - x_ref| / max|x_ref|`` is at most
    ``rel`` (absolute agreement covers variables that are zero at the optimum); ``rel`` also
    bounds the objective's relative gap.  ``feas`` bounds the primal feasibility residual and
    ``kkt`` the stationarity residual (both absolute, on the formulation's own scaling).
    """

    rel: float
    feas: float
    kkt: float


@dataclass(frozen=True)
class SolverProfile:
    """Solver options used by the harness, and the tolerance its results are held to."""

    options: dict[str, Any] = field(default_factory=dict)
    tol: Tolerance = Tolerance(rel=1e-4, feas=1e-5, kkt=1e-3)


def _osqp_polish_key() -> str:
    """OSQP 1.x renamed ``polish`` to ``polishing``."""
    try:
        from importlib.metadata import version

        return "polishing" if int(version("osqp").split(".")[0]) >= 1 else "polish"
    except Exception:  # pragma: no cover - OSQP missing
        return "polish"


_OSQP_POLISH = _osqp_polish_key()

#: settings and tolerances per backend. Interior-point solvers are held to 1e-6 relative;
#: first-order solvers (OSQP, SCS) to what they reach with tight eps in bounded iterations.
PROFILES: dict[str, SolverProfile] = {
    "closed_form": SolverProfile({}, Tolerance(rel=1e-9, feas=1e-8, kkt=1e-7)),
    "CLARABEL": SolverProfile(
        {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "max_iter": 500},
        Tolerance(rel=1e-6, feas=1e-7, kkt=1e-5),
    ),
    "ECOS": SolverProfile(
        {"abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9, "max_iters": 500},
        Tolerance(rel=1e-4, feas=1e-6, kkt=1e-3),
    ),
    "OSQP": SolverProfile(
        {"eps_abs": 1e-8, "eps_rel": 1e-8, "max_iter": 20000, _OSQP_POLISH: True},
        Tolerance(rel=1e-4, feas=1e-5, kkt=1e-3),
    ),
    "SCS": SolverProfile(
        {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 20000},
        Tolerance(rel=1e-4, feas=1e-5, kkt=1e-3),
    ),
}

#: the solvers the harness runs when none are named
DEFAULT_SOLVERS: tuple[str, ...] = ("CLARABEL", "OSQP", "ECOS", "SCS")

_FALLBACK = SolverProfile({}, Tolerance(rel=1e-4, feas=1e-5, kkt=1e-3))


def available_solvers() -> list[str]:
    """cvxpy's installed solvers (upper-case names)."""
    return list(cp.installed_solvers())


def profile(solver: str) -> SolverProfile:
    """The profile of ``solver`` (a loose default for solvers without one)."""
    return PROFILES.get(solver.upper() if solver != "closed_form" else solver, _FALLBACK)


def check_solver(solver: str) -> str:
    """Normalise a solver name and raise :class:`SolverNotAvailableError` if not installed."""
    name = solver.upper()
    if name not in available_solvers():
        raise SolverNotAvailableError(
            f"solver {solver!r} is not installed; installed: {', '.join(available_solvers())}"
        )
    return name


def solve_problem(problem: cp.Problem, solver: str, *, options: dict[str, Any] | None = None,
                  raise_on_failure: bool = True, accept_inaccurate: bool = False) -> dict[str, Any]:
    """Solve ``problem`` with ``solver`` using the profile's options (overridden by ``options``).

    Returns a dict with ``status``, ``compile_time`` (cvxpy canonicalization, which is the
    application of parameter values after the first DPP compile), ``solve_time`` (the rest of
    the wall time: solver plus unpacking), ``solver_time`` (the solver's own report where
    available), ``iterations`` and ``value``.  A failed solve raises :class:`SolverError` with
    the solver's status unless ``raise_on_failure`` is False; so does an inaccurate one
    (``optimal_inaccurate``) unless ``accept_inaccurate`` is True.
    """
    name = check_solver(solver)
    opts = {**profile(name).options, **(options or {})}
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # cvxpy's "solution may be inaccurate"
            problem.solve(solver=name, **opts)
        status = problem.status
    except cp.error.SolverError as exc:
        status = "solver_error"
        if raise_on_failure:
            raise SolverError(f"{name} failed: {exc}", solver=name, status=status) from exc
    wall = time.perf_counter() - t0
    compile_time = float(getattr(problem, "compilation_time", None) or 0.0)
    stats = problem.solver_stats if status != "solver_error" else None
    if raise_on_failure and status not in (OPTIMAL, OPTIMAL_INACCURATE):
        raise SolverError(f"{name} did not find an optimal point", solver=name, status=status)
    if raise_on_failure and status == OPTIMAL_INACCURATE and not accept_inaccurate:
        raise SolverError(f"{name} stopped at an inaccurate point (raise its iteration limit or "
                          "pass accept_inaccurate=True)", solver=name, status=status)
    return {
        "status": status,
        "compile_time": compile_time,
        "solve_time": max(wall - compile_time, 0.0),
        "solver_time": getattr(stats, "solve_time", None),
        "iterations": getattr(stats, "num_iters", None),
        "value": problem.value if status in (OPTIMAL, OPTIMAL_INACCURATE) else None,
    }
