r"""Convex multiobjective scalarisations (You, Benitez-Quiroz & Martinez 2014, §III): weighted sum,
ε-constraint (eq. 24) and modified ε-constraint (eq. 25-26) over cvxpy expressions, with a DPP ε
parameter.  Tracing a front and the ideal-point choice of ε* (eq. 27-28) are model selection:
:mod:`lssvm_cvx.selection.pareto`; the non-convex (NLP) versions are
:mod:`lssvm_cvx.selection.pareto_nlp`.

Convex objectives given as cvxpy expressions
--------------------------------------------
:func:`weighted_sum`, :func:`epsilon_constraint` and :func:`modified_epsilon_constraint` take
scalar cvxpy expressions and return an *unsolved* :class:`ParetoProblem` (a
:class:`cvxpy.Problem`); solving it sets the expressions' variables.  ε is a
:class:`cvxpy.Parameter` (``problem.eps``), so :func:`~lssvm_cvx.selection.pareto.trace_front`
re-solves for many ε values from one DPP compilation::

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

    \min_{θ, h}\; u_l(θ) + s\sum_{j≠l} h_j \quad\text{s.t.}\quad
    u_j(θ) ≤ h_j ε_j,\; 0 ≤ h_j ≤ s,\; θ ∈ S,   \qquad (R)

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cvxpy as cp
import numpy as np

from ..checks import check_grid, check_positive
from ..exceptions import HyperparameterError, InputError
from ..solvers import solve_problem
from .base import BuiltProblem

__all__ = [
    "ParetoProblem",
    "weighted_sum",
    "epsilon_constraint",
    "modified_epsilon_constraint",
    "ideal_point",
    "check_eps_values",
    "check_s",
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


def check_eps_values(values: Any, k: int) -> np.ndarray:
    """Return the ε bounds as a float array of length ``k`` (a scalar is repeated)."""
    v = check_grid(values, "eps", flat=True)
    if v.size == 1 and k > 1:
        v = np.full(k, float(v[0]))
    if v.size != k:
        raise HyperparameterError(f"eps must have {k} entries (one per constrained objective), got {v.size}")
    return v


def _eps_parameter(eps: Any, k: int) -> cp.Parameter:
    shape = () if k == 1 else (k,)
    if isinstance(eps, cp.Parameter):
        if eps.size != k:
            raise HyperparameterError(f"the eps parameter must have {k} entries, got shape {eps.shape}")
        if eps.value is not None:
            check_eps_values(eps.value, k)
        return eps
    v = check_eps_values(eps, k)
    return cp.Parameter(shape, pos=True, name="eps", value=v[0] if k == 1 else v)


def check_s(s: Any) -> float:
    """Return ``s`` as a float after checking it is finite and > 0."""
    return check_positive(s, "s")


def _vars_of(exprs: Sequence[cp.Expression]) -> dict[str, cp.Variable]:
    out: dict[str, cp.Variable] = {}
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
        wv = check_grid(weights, "weights", allow_zero=True, flat=True)
        if wv.size != len(objs):
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
    s = check_s(s)
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
