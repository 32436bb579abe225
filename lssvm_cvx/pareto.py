"""Multiobjective scalarisations (You, Benitez-Quiroz & Martinez 2014, §III): weighted sum,
ε-constraint (eq. 24), modified ε-constraint (eq. 25-26), Pareto-front tracing with a DPP ε
parameter, and the ideal-point choice of ε* (eq. 27-28).

Convex objectives given as cvxpy expressions
--------------------------------------------
:func:`weighted_sum`, :func:`epsilon_constraint` and :func:`modified_epsilon_constraint` take
scalar cvxpy expressions and return an *unsolved* :class:`ParetoProblem` (a
:class:`cvxpy.Problem`); solving it sets the expressions' variables.  ε is a
:class:`cvxpy.Parameter` (``problem.eps``), so :func:`trace_front` re-solves for many ε values
from one DPP compilation::

    x = cp.Variable(2)
    f1, f2 = cp.sum_squares(x - [1, 0]), cp.sum_squares(x - [0, 1])
    prob = modified_epsilon_constraint(f1, f2, eps=1.0, s=1e-3)
    front = trace_front(prob, np.linspace(0.05, 2, 50))      # one compilation, 50 solves
    best = front.ideal_point_index()                          # eq. (27)-(28)

The modified ε-constraint as a convex program
---------------------------------------------
eq. (25) asks for ``min u_l(θ) + s Σ_j h_j`` subject to ``u_j(θ) = h_j ε_j`` and
``0 ≤ h_j ≤ s``.  An equality with a convex non-affine ``u_j`` is not a convex constraint, so
:func:`modified_epsilon_constraint` solves the relaxation

.. math::

    \\min_{θ, h}\\; u_l(θ) + s\\sum_{j≠l} h_j \\quad\\text{s.t.}\\quad
    u_j(θ) ≤ h_j ε_j,\\; 0 ≤ h_j ≤ s,\\; θ ∈ S,   \\qquad (R)

which is convex (``h_j ε_j`` is affine in the variable ``h`` for a parameter ``ε_j > 0``).

*Equivalence at the optimum.*  Assume ``u_j ≥ 0`` on ``S`` (true for the losses, norms and
roughness bounds used here).  Let ``(θ*, h*)`` solve (R).  If ``u_j(θ*) < h*_j ε_j`` for some
``j``, then ``h_j = u_j(θ*)/ε_j < h*_j`` is feasible and lowers the objective by
``s (h*_j - h_j) > 0``: a contradiction.  Hence ``u_j(θ*) = h*_j ε_j`` for every ``j``: the
optimum of (R) is feasible for eq. (25), and since (25)'s feasible set is contained in (R)'s,
it is optimal for (25) and the optimal values agree.

*Pareto optimality (Theorem 4).*  Suppose ``θ'`` ∈ S dominates ``θ*``: ``u_i(θ') ≤ u_i(θ*)``
for all ``i`` with at least one strict inequality.  Put ``h'_j = u_j(θ')/ε_j ≤ h*_j ≤ s``;
``(θ', h')`` is feasible for (R) and its objective ``u_l(θ') + sΣh'_j`` is strictly smaller
than ``u_l(θ*) + sΣh*_j`` (either ``u_l`` decreases, or some ``h'_j < h*_j`` and ``s > 0``).
This contradicts optimality, so every solution of (R) is Pareto-optimal, for every ``s > 0``
and every ``ε > 0`` for which (R) is feasible.  (This is stronger than the paper's Theorem 4,
which assumes ``s Σ h*_j ≤ u_l(θ) - u_l(θ*)``; (R) is the "hybrid" weighted-sum/ε-constraint
scalarisation of the multiobjective literature.)  The plain ε-constraint (eq. 24) only
guarantees *weak* Pareto optimality: when ``u_l`` is flat over part of the feasible set, any
minimiser is returned, possibly a dominated one — see §III-C, Fig. 3, reproduced by
``tests/test_pareto.py`` and ``benchmarks/pareto_toy.py``.

Non-convex objectives (θ-space model selection)
-----------------------------------------------
:func:`epsilon_constraint_nlp` and :func:`modified_epsilon_constraint_nlp` solve the same two
scalarisations for smooth callables ``u(θ) -> (value, gradient)`` with scipy's SLSQP
(a constrained NLP method).  The modified one keeps ``h`` as a variable, scaled as
``h = s η`` with ``η ∈ [0, 1]`` so that the NLP is well conditioned for small ``s``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import cvxpy as cp
import numpy as np
from scipy.optimize import minimize

from .exceptions import HyperparameterError, InputError, SolverError
from .formulations.base import BuiltProblem
from .solvers import solve_problem

__all__ = [
    "ParetoProblem",
    "weighted_sum",
    "epsilon_constraint",
    "modified_epsilon_constraint",
    "ideal_point",
    "trace_front",
    "ParetoFront",
    "ideal_point_weights",
    "select_ideal_point",
    "dominated",
    "non_dominated_mask",
    "NLPResult",
    "epsilon_constraint_nlp",
    "modified_epsilon_constraint_nlp",
    "NLPFront",
    "trace_front_nlp",
]


class ParetoProblem(BuiltProblem):
    """A scalarised multiobjective :class:`cvxpy.Problem`.

    Attributes
    ----------
    objectives : list of cvxpy expressions
        ``[primary, *constrained]`` (or the weighted objectives of :func:`weighted_sum`).
    eps : cvxpy.Parameter or None
        The ε bounds (shape ``(k-1,)``; a scalar for two objectives).
    h : cvxpy expression or None
        The slack ``h = s η`` of the modified ε-constraint (``η`` is the variable ``eta``;
        the scaling keeps the constraint coefficients O(1) for small ``s``).
    s : float or None
        The constant ``s`` of eq. (25).
    kind : str
        ``"weighted_sum"``, ``"eps"`` or ``"modified_eps"``.
    """

    def __init__(self, objective, constraints, *, vars, params, objectives, kind, s=None):
        super().__init__(objective, constraints, vars=vars, params=params)
        self.objectives = list(objectives)
        self.kind = kind
        self.eps = self.params.get("eps")
        self.h = self.vars.get("h")
        self.s = s

    def objective_values(self) -> np.ndarray:
        """Values of ``objectives`` at the current (solved) point."""
        return np.array([float(o.value) for o in self.objectives])


def _scalar_exprs(exprs: Any, what: str) -> list[cp.Expression]:
    items = list(exprs) if isinstance(exprs, (list, tuple)) else [exprs]
    if not items:
        raise InputError(f"{what}: at least one objective is needed")
    out = []
    for k, e in enumerate(items):
        if not isinstance(e, cp.Expression):
            raise InputError(f"{what}[{k}] must be a cvxpy expression, got {type(e).__name__}")
        if e.size != 1:
            raise InputError(f"{what}[{k}] must be scalar, got shape {e.shape}")
        if not e.is_convex():
            raise InputError(f"{what}[{k}] is not convex (DCP); the convex scalarisations need "
                             "convex objectives — use the *_nlp functions for smooth non-convex ones")
        out.append(cp.reshape(e, ()) if e.shape != () else e)
    return out


def _check_eps_values(values: Any, k: int) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size == 1 and k > 1:
        v = np.full(k, float(v[0]))
    if v.size != k:
        raise HyperparameterError(f"eps must have {k} entries (one per constrained objective), got {v.size}")
    if not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise HyperparameterError(f"eps must be finite and > 0, got {values!r}")
    return v


def _eps_parameter(eps: Any, k: int) -> cp.Parameter:
    shape = () if k == 1 else (k,)
    if isinstance(eps, cp.Parameter):
        if eps.size != k:
            raise HyperparameterError(f"the eps parameter must have {k} entries, got shape {eps.shape}")
        if eps.value is not None:
            _check_eps_values(eps.value, k)
        return eps
    v = _check_eps_values(eps, k)
    return cp.Parameter(shape, pos=True, name="eps", value=v[0] if k == 1 else v)


def _check_s(s: Any) -> float:
    if not isinstance(s, Real) or isinstance(s, bool) or not np.isfinite(s) or s <= 0:
        raise HyperparameterError(f"s must be a finite number > 0, got {s!r}")
    return float(s)


def _vars_of(exprs: Sequence[cp.Expression]) -> dict[str, cp.Variable]:
    out = {}
    for e in exprs:
        for v in e.variables():
            out.setdefault(v.name(), v)
    return out


def _extra(constraints: Any) -> dict[str, cp.Constraint]:
    if constraints is None:
        return {}
    if isinstance(constraints, dict):
        return dict(constraints)
    return {f"S[{k}]": c for k, c in enumerate(constraints)}


def weighted_sum(objectives: Sequence[cp.Expression], weights: Any, *,
                 constraints: Any = None) -> ParetoProblem:
    """``min Σ_i w_i u_i`` (the sum criterion of eq. 29 with ``w = (1, ν)``).

    ``weights`` are non-negative numbers or a non-negative :class:`cvxpy.Parameter` (then the
    problem is DPP and a weight sweep does not recompile).
    """
    objs = _scalar_exprs(objectives, "objectives")
    if isinstance(weights, cp.Parameter):
        w = weights
        if w.size != len(objs):
            raise HyperparameterError(f"weights must have {len(objs)} entries, got shape {w.shape}")
    else:
        wv = np.asarray(weights, dtype=np.float64).reshape(-1)
        if wv.size != len(objs) or not np.all(np.isfinite(wv)) or np.any(wv < 0):
            raise HyperparameterError(f"weights must be {len(objs)} finite numbers >= 0, got {weights!r}")
        w = cp.Parameter(len(objs), nonneg=True, name="weights", value=wv)
    obj = cp.Minimize(sum(w[i] * o for i, o in enumerate(objs)))
    return ParetoProblem(obj, _extra(constraints), vars=_vars_of(objs), params={"weights": w},
                         objectives=objs, kind="weighted_sum")


def epsilon_constraint(primary: cp.Expression, constrained: Any, eps: Any, *,
                       constraints: Any = None) -> ParetoProblem:
    """ε-constraint method, eq. (24): ``min u_l(θ)`` s.t. ``u_j(θ) ≤ ε_j``.

    Parameters
    ----------
    primary :
        The objective ``u_l`` that is minimised (a scalar convex cvxpy expression).
    constrained :
        One expression or a list of them (the ``u_j, j ≠ l``).
    eps :
        Bounds ``ε_j > 0`` (a number, one per constrained objective, or a positive
        :class:`cvxpy.Parameter`); stored as the DPP parameter ``problem.eps``.
    constraints :
        Extra constraints (the set S), a list or a ``{name: constraint}`` dict.

    Returns
    -------
    ParetoProblem
        Unsolved; ``problem.solve()`` sets the expressions' variables.  Its solutions are
        weakly Pareto-optimal only (see the module docstring).
    """
    prim = _scalar_exprs(primary, "primary")
    if len(prim) != 1:
        raise InputError("primary must be a single expression")
    cons = _scalar_exprs(constrained, "constrained")
    e = _eps_parameter(eps, len(cons))
    U = cons[0] if len(cons) == 1 else cp.hstack(cons)
    named = {"eps-constraint": U <= e, **_extra(constraints)}
    objs = prim + cons
    return ParetoProblem(cp.Minimize(prim[0]), named, vars=_vars_of(objs), params={"eps": e},
                         objectives=objs, kind="eps")


def modified_epsilon_constraint(primary: cp.Expression, constrained: Any, eps: Any,
                                s: float = 1e-3, *, constraints: Any = None) -> ParetoProblem:
    """Modified ε-constraint method, eq. (25)-(26), as the exact convex relaxation (R).

    ``min u_l(θ) + s Σ_j h_j`` s.t. ``u_j(θ) ≤ h_j ε_j``, ``0 ≤ h_j ≤ s``.  At the optimum
    ``u_j = h_j ε_j`` (eq. 25's equalities) and the point is Pareto-optimal (Theorem 4); the
    proof is in the module docstring.  The effective bound on ``u_j`` is ``s ε_j``.

    Parameters
    ----------
    primary, constrained, eps, constraints :
        As in :func:`epsilon_constraint`.
    s :
        The positive constant of eq. (25) (the paper uses ``10^-3``).

    Returns
    -------
    ParetoProblem
        Unsolved, DPP in ``eps``; the slack is ``problem.h``.
    """
    s = _check_s(s)
    prim = _scalar_exprs(primary, "primary")
    if len(prim) != 1:
        raise InputError("primary must be a single expression")
    cons = _scalar_exprs(constrained, "constrained")
    k = len(cons)
    e = _eps_parameter(eps, k)
    # h = s η with η ∈ [0, 1]: the same problem, better scaled for the solvers (s ε is O(u_j))
    eta = cp.Variable(() if k == 1 else (k,), name="eta")
    h = s * eta
    U = cons[0] if k == 1 else cp.hstack(cons)
    named = {
        "u <= h eps": U <= cp.multiply(eta, s * e),
        "h >= 0": eta >= 0,
        "h <= s": eta <= 1,
        **_extra(constraints),
    }
    objs = prim + cons
    obj = cp.Minimize(prim[0] + s * cp.sum(h))
    prob = ParetoProblem(obj, named, vars={**_vars_of(objs), "eta": eta}, params={"eps": e},
                         objectives=objs, kind="modified_eps", s=s)
    prob.h = h
    return prob


def ideal_point(objectives: Sequence[cp.Expression], *, constraints: Any = None,
                solver: str = "CLARABEL") -> np.ndarray:
    """The ideal vector ``z*``: each objective minimised on its own over S (eq. 27)."""
    objs = _scalar_exprs(objectives, "objectives")
    cons = list(_extra(constraints).values())
    z = []
    for o in objs:
        p = cp.Problem(cp.Minimize(o), cons)
        solve_problem(p, solver, accept_inaccurate=True)
        z.append(float(p.value))
    return np.array(z)


# ------------------------------------------------------------------------------ dominance
def dominated(F: Any, *, tol: float = 0.0) -> np.ndarray:
    """``out[i]`` is True when some row of ``F`` dominates row ``i`` (Definition 1): no worse
    in every objective (within ``tol``) and better by more than ``tol`` in at least one."""
    F = np.asarray(F, dtype=np.float64)
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
    F = np.atleast_2d(np.asarray(F, dtype=np.float64))
    z = np.asarray(ideal, dtype=np.float64)
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
    F = np.atleast_2d(np.asarray(F, dtype=np.float64))
    ok = np.all(np.isfinite(F), axis=1)
    if not ok.any():
        raise SolverError("no point of the front was solved", solver=None, status="all failed")
    z = np.nanmin(F[ok], axis=0) if ideal is None else np.asarray(ideal, dtype=np.float64)
    if eps0_index is None:
        idx = np.flatnonzero(ok)
        eps0_index = int(idx[idx.size // 2])
    if isinstance(weights, str):
        w = ideal_point_weights(F, z, eps0_index, weights)
    else:
        w = np.asarray(weights, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.all(w == 0):
        w = ideal_point_weights(F[ok], z, 0, "normalized")
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


def trace_front(problem: cp.Problem, eps_values: Any, *, solver: str = "CLARABEL",
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
        _check_eps_values(v, k)
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
@dataclass
class NLPResult:
    """Result of an NLP scalarisation: the decision vector, the objective values, the slack."""

    x: np.ndarray
    F: np.ndarray
    h: np.ndarray | None
    success: bool
    message: str
    nfev: int


def _fun_jac(u: Callable, x: np.ndarray) -> tuple[float, np.ndarray]:
    val = u(x)
    if isinstance(val, tuple):
        f, g = val
        return float(f), np.asarray(g, dtype=np.float64).reshape(-1)
    raise InputError("objective callables must return (value, gradient)")


def _nlp_objs(constrained: Any) -> list[Callable]:
    items = list(constrained) if isinstance(constrained, (list, tuple)) else [constrained]
    for k, c in enumerate(items):
        if not callable(c):
            raise InputError(f"constrained[{k}] must be callable (theta -> (value, gradient))")
    return items


def _cached(u: Callable) -> Callable:
    """Memoise the last evaluation (SLSQP asks for value and gradient separately)."""
    last: dict[str, Any] = {}

    def f(x):
        key = x.tobytes()
        if last.get("key") != key:
            last["key"], last["val"] = key, _fun_jac(u, x)
        return last["val"]

    return f


def epsilon_constraint_nlp(primary: Callable, constrained: Any, eps: Any, x0: Any, *,
                           bounds: Any = None, options: dict[str, Any] | None = None) -> NLPResult:
    """ε-constraint (eq. 24) for smooth callables ``u(θ) -> (value, gradient)``, with SLSQP.

    ``min u_l(θ)`` s.t. ``u_j(θ) ≤ ε_j``; returns the point and ``[u_l, u_j...]`` there.
    """
    cons = [_cached(c) for c in _nlp_objs(constrained)]
    e = _check_eps_values(eps, len(cons))
    prim = _cached(primary)
    x0 = np.asarray(x0, dtype=np.float64).reshape(-1)
    nl = [{"type": "ineq", "fun": (lambda x, c=c, ej=ej: ej - c(x)[0]),
           "jac": (lambda x, c=c: -c(x)[1])} for c, ej in zip(cons, e)]
    opts = {"ftol": 1e-12, "maxiter": 300, **(options or {})}
    res = minimize(lambda x: prim(x)[0], x0, jac=lambda x: prim(x)[1], method="SLSQP",
                   bounds=bounds, constraints=nl, options=opts)
    x = res.x
    F = np.array([prim(x)[0]] + [c(x)[0] for c in cons])
    return NLPResult(x, F, None, bool(res.success), str(res.message), int(res.nfev))


def modified_epsilon_constraint_nlp(primary: Callable, constrained: Any, eps: Any, x0: Any, *,
                                    s: float = 1e-3, h0: Any = None, bounds: Any = None,
                                    warm_start: bool = True,
                                    options: dict[str, Any] | None = None) -> NLPResult:
    """Modified ε-constraint (eq. 25-26) for smooth callables, with SLSQP.

    Variables ``(θ, η)`` with ``h = s η``, ``η ∈ [0, 1]``::

        min u_l(θ) + s Σ_j h_j   s.t.   u_j(θ) ≤ h_j ε_j,   0 ≤ h_j ≤ s

    (the convex-form inequality of :func:`modified_epsilon_constraint`; it holds with equality
    at a solution whenever ``u_j ≥ 0``, see the module docstring).

    With ``warm_start`` (default) SLSQP starts from the solution of the plain ε-constraint with
    the bounds ``s ε_j`` (the largest the slack allows): a feasible point where only the
    tie-breaking term ``s Σ h_j`` remains to act.  SLSQP's step lengths scale with the
    gradient, and in a flat region of ``u_l`` that gradient is ``O(s²)``, so the objective is
    rescaled to a unit gradient at the start (a positive factor leaves the minimisers as
    they are).
    """
    s = _check_s(s)
    cons = [_cached(c) for c in _nlp_objs(constrained)]
    k = len(cons)
    e = _check_eps_values(eps, k)
    prim = _cached(primary)
    x0 = np.asarray(x0, dtype=np.float64).reshape(-1)
    d = x0.size
    nfev0 = 0
    if warm_start:
        first = epsilon_constraint_nlp(primary, constrained, s * e, x0, bounds=bounds, options=options)
        if np.all(first.F[1:] <= s * e * (1 + 1e-8) + 1e-12):
            x0 = first.x
        nfev0 = first.nfev
    if h0 is None:
        eta0 = np.array([min(max(c(x0)[0] / (s * ej), 0.0), 1.0) for c, ej in zip(cons, e)])
    else:
        eta0 = np.clip(np.asarray(h0, dtype=np.float64).reshape(-1) / s, 0.0, 1.0)
    z0 = np.concatenate([x0, eta0])
    bnds = (list(bounds) if bounds is not None else [(None, None)] * d) + [(0.0, 1.0)] * k

    # SLSQP starts from an identity Hessian, so its first steps scale with the gradient; in a
    # flat region of u_l the gradient is only s² — rescale the objective to a unit gradient at
    # the start (a positive factor does not change the minimisers).
    g0 = np.concatenate([prim(x0)[1], np.full(k, s * s)])
    scale = 1.0 / max(float(np.max(np.abs(g0))), s * s)

    def obj(z):
        return scale * (prim(z[:d])[0] + s * s * np.sum(z[d:]))

    def jac(z):
        return scale * np.concatenate([prim(z[:d])[1], np.full(k, s * s)])

    nl = []
    for j, (c, ej) in enumerate(zip(cons, e)):
        def fun(z, c=c, ej=ej, j=j):
            return s * ej * z[d + j] - c(z[:d])[0]

        def fjac(z, c=c, ej=ej, j=j):
            g = np.zeros(d + k)
            g[:d] = -c(z[:d])[1]
            g[d + j] = s * ej
            return g

        nl.append({"type": "ineq", "fun": fun, "jac": fjac})
    opts = {"ftol": 1e-12, "maxiter": 300, **(options or {})}
    res = minimize(obj, z0, jac=jac, method="SLSQP", bounds=bnds, constraints=nl, options=opts)
    x = res.x[:d]
    F = np.array([prim(x)[0]] + [c(x)[0] for c in cons])
    return NLPResult(x, F, s * res.x[d:], bool(res.success), str(res.message), int(res.nfev) + nfev0)


@dataclass
class NLPFront:
    """A front traced by NLP scalarisations (θ-space): one row per ε."""

    eps: np.ndarray
    X: np.ndarray  # decision vectors (n_eps, d)
    F: np.ndarray  # objective values (n_eps, k)
    success: np.ndarray
    nfev: int
    ideal: np.ndarray | None = None

    def ideal_point_index(self, *, eps0_index: int | None = None, weights: Any = "paper") -> int:
        """ε* of eq. (27)-(28) over this front."""
        return select_ideal_point(self.F, self.ideal, eps0_index=eps0_index, weights=weights)

    def to_dict(self) -> dict[str, Any]:
        return {"eps": self.eps.tolist(), "X": self.X.tolist(), "F": self.F.tolist(),
                "success": self.success.tolist(), "nfev": self.nfev}


def trace_front_nlp(primary: Callable, constrained: Any, eps_values: Any, x0: Any, *,
                    method: str = "modified_eps", s: float = 1e-3, bounds: Any = None,
                    continuation: bool = True, options: dict[str, Any] | None = None,
                    ideal: Any = None) -> NLPFront:
    """Sweep ε with :func:`modified_epsilon_constraint_nlp` (``method="modified_eps"``) or
    :func:`epsilon_constraint_nlp` (``"eps"``).

    ``eps_values`` are the bounds ``b`` on the constrained objectives, ``u_j ≤ b_j``, for both
    methods: the modified method is called with ``ε = b/s`` so that its largest admissible
    value ``h ε = s ε`` equals ``b`` and the two sweeps are comparable.  With ``continuation``
    every solve starts from the previous solution (the sweep should go from the tightest
    bound to the loosest, or the reverse).
    """
    if method not in ("modified_eps", "eps"):
        raise HyperparameterError(f"method must be 'modified_eps' or 'eps', got {method!r}")
    s = _check_s(s)
    k = len(_nlp_objs(constrained))
    vals = [_check_eps_values(v, k) for v in (eps_values if k > 1 else np.reshape(eps_values, -1))]
    x = np.asarray(x0, dtype=np.float64).reshape(-1)
    X, F, ok, nfev = [], [], [], 0
    for b in vals:
        if method == "modified_eps":
            r = modified_epsilon_constraint_nlp(primary, constrained, b / s, x, s=s, bounds=bounds,
                                                options=options)
        else:
            r = epsilon_constraint_nlp(primary, constrained, b, x, bounds=bounds, options=options)
        feasible = bool(np.all(r.F[1:] <= b * (1 + 1e-6) + 1e-9))
        X.append(r.x)
        F.append(r.F if feasible else np.full(r.F.shape, np.nan))
        ok.append(bool(r.success and feasible))
        nfev += r.nfev
        if continuation and feasible:
            x = r.x
    eps_arr = np.array([float(v[0]) for v in vals]) if k == 1 else np.vstack(vals)
    return NLPFront(eps_arr, np.vstack(X), np.vstack(F), np.array(ok), nfev,
                    None if ideal is None else np.asarray(ideal, float))
