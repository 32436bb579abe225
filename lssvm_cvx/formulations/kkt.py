"""KKT residuals of a candidate point on the cvxpy problem itself (the Lagrangian form).

The Lagrangian is ``f(x) + Σ_j λ_j' g_j(x)`` (cvxpy's sign convention; ``g_j == 0`` or
``g_j <= 0``).  :func:`kkt_report` evaluates, for any backend's point,

* ``primal`` — the largest constraint violation (cvxpy's ``violation()``, any DCP constraint);
* ``stationarity`` — ``max |∇f + Σ_j J_j'λ_j|``, **only for smooth problems**: when the
  objective or a constraint contains a non-smooth atom (:data:`NONSMOOTH_ATOMS`: ``norm1``,
  ``abs``, ``max``, ``pos``, a 2-norm, ...) it is NaN with the reason, *whatever* cvxpy's
  ``grad`` returns (cvxpy hands back ``sign(α)`` for ``norm1`` at a kink, a "gradient" that
  makes an optimal point look non-stationary);
* ``complementarity`` — ``max |λ_j ∘ g_j|`` over inequalities, and ``dual`` — ``max(-λ_j, 0)``.

:func:`lagrangian_kkt` also returns these as a scaled
:class:`~lssvm_cvx.certificates.Certificate` (the closed form's certificate: its problems are
smooth).  The verdicts of the harness for cvxpy solvers rest on the conic certificate
(:func:`lssvm_cvx.solvers.solver_certificate`), valid for non-smooth problems too; stationarity
is an extra column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np

from ..certificates import Certificate, lagrangian_certificate
from ..exceptions import InputError

__all__ = ["NONSMOOTH_ATOMS", "atom_names", "nonsmooth_atoms", "KKT", "lagrangian_kkt",
           "kkt_report", "kkt_residuals"]

#: cvxpy atoms that are not differentiable everywhere (a kink, where cvxpy's ``grad`` is
#: ``None``, raises, or returns one element of the subdifferential)
NONSMOOTH_ATOMS = frozenset({
    "abs", "norm1", "norm_inf", "Pnorm", "PnormApprox", "norm2", "max", "min", "maximum",
    "minimum", "pos", "neg", "sum_largest", "sum_smallest", "lambda_max", "lambda_sum_largest",
    "gen_lambda_max", "sigma_max", "normNuc", "tv", "mixed_norm", "cummax", "dotsort",
    "condition_number", "dist_ratio", "SuppFuncAtom"})


def atom_names(expr: Any) -> set[str]:
    """Class names of every node of a cvxpy expression tree.

    Parameters
    ----------
    expr : cvxpy.Expression or cvxpy.Constraint
        The tree's root.

    Returns
    -------
    set of str
        The names (``"norm1"``, ``"AddExpression"``, ``"Variable"``, ...).
    """
    names = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        names.add(type(e).__name__)
        stack.extend(getattr(e, "args", []))
    return names


def nonsmooth_atoms(problem: cp.Problem) -> list[str]:
    """The non-smooth atoms (:data:`NONSMOOTH_ATOMS`) in a problem's objective and constraints.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem.

    Returns
    -------
    list of str
        Sorted atom names; empty for a smooth problem.
    """
    names = atom_names(problem.objective.expr)
    for con in problem.constraints:
        names |= atom_names(con)
    return sorted(names & NONSMOOTH_ATOMS)


def _flat(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).reshape(-1, order="F")


def _dense(a: Any) -> np.ndarray:
    """A cvxpy gradient (sparse matrix, dense array or scalar) as a dense float array."""
    return np.asarray(a.toarray() if hasattr(a, "toarray") else a, dtype=np.float64)


def _grad_or_reason(expr: Any, what: str) -> tuple[Any, str | None]:
    """``expr.grad`` or ``(None, reason)`` when cvxpy cannot differentiate ``expr`` here."""
    try:
        grad = expr.grad
    except Exception as exc:  # value errors and the like
        return None, (f"cvxpy gives no gradient of the {what} at this point "
                      f"({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})")
    if grad is not None and all(g is not None for g in grad.values()):
        return grad, None
    return None, f"cvxpy gives no gradient of the {what} at this point"


def _inf(v: Any) -> float:
    v = _flat(v)
    return float(np.abs(v).max()) if v.size else 0.0


@dataclass
class KKT:
    """The residuals of :func:`lagrangian_kkt`: ``residuals`` (``primal``, ``stationarity``,
    ``complementarity``, ``dual``), ``note`` (why stationarity is NaN, else ``None``) and the
    scaled ``certificate``."""

    residuals: dict[str, float]
    note: str | None
    certificate: Certificate


def lagrangian_kkt(built: Any, values: Mapping[str, np.ndarray],
                   duals: Mapping[str, np.ndarray] | None, *,
                   extras: Mapping[str, float] | None = None) -> KKT:
    """KKT residuals and the Lagrangian certificate of a candidate primal-dual point.

    Parameters
    ----------
    built : BuiltProblem
        The problem, with named variables ``vars`` and constraints ``cons``.
    values : mapping of str to numpy.ndarray
        A value for every variable of ``built``.
    duals : mapping of str to numpy.ndarray or None
        A multiplier for every named constraint (cvxpy's sign convention), or None.
    extras : mapping of str to float or None, default=None
        Backend diagnostics copied into the certificate (closed form: ``system_residual``,
        ``jitter``).

    Returns
    -------
    KKT
        Residuals, the reason stationarity is NaN (if it is) and the certificate.
    """
    for name, var in built.vars.items():
        if name not in values:
            raise InputError(f"candidate point has no value for variable {name!r}")
        var.value = np.asarray(values[name], dtype=np.float64).reshape(var.shape)
    out = {"primal": 0.0, "stationarity": math.nan, "complementarity": 0.0, "dual": 0.0}
    scale = 0.0
    for con in built.cons.values():
        v = np.asarray(con.violation(), dtype=np.float64)
        out["primal"] = max(out["primal"], float(v.max()) if v.size else 0.0)
        for arg in con.args:
            if arg.value is not None:
                scale = max(scale, _inf(arg.value))
    f = built.objective.value
    f_val = float(f) if f is not None else math.nan

    def done(note: str | None, stat_scale: float = 0.0, mult: float = 0.0,
             comp_sum: float = 0.0) -> KKT:
        cert = lagrangian_certificate(
            violation=out["primal"], violation_scale=scale, stationarity=out["stationarity"],
            stationarity_scale=stat_scale, dual_sign=out["dual"], multiplier_scale=mult,
            complementarity=comp_sum, objective=f_val if math.isfinite(f_val) else 0.0,
            note=note, extras=extras)
        return KKT(out, note, cert)

    rough = nonsmooth_atoms(built)
    if rough:
        return done(f"the problem contains the non-smooth atom(s) {', '.join(rough)}: "
                    "stationarity (a subdifferential inclusion) is not evaluated; the conic "
                    "certificate judges the point")
    if duals is None and built.cons:
        return done("no dual values (the backend returned none)")
    duals = duals or {}
    missing = [n for n in built.cons if n not in duals]
    if missing:
        return done(f"no dual values for constraint(s) {', '.join(missing)}")
    grad_f, reason = _grad_or_reason(built.objective.expr, "objective")
    if grad_f is None:
        return done(reason)
    stat = {v: np.zeros(v.size) for v in built.vars.values()}
    stat_scale = 0.0
    for v, g in grad_f.items():
        if v in stat:
            stat[v] += _dense(g).reshape(-1)
            stat_scale = max(stat_scale, _inf(g.toarray() if hasattr(g, "toarray") else g))
    mult, comp_sum = 0.0, 0.0
    for name, con in built.cons.items():
        lam = _flat(duals[name])
        mult = max(mult, _inf(lam))
        expr = con.expr if hasattr(con, "expr") else None
        if expr is None:
            return done(f"constraint {name!r} ({type(con).__name__}) is a cone constraint: "
                        "stationarity needs its conic dual, not evaluated")
        grads, reason = _grad_or_reason(expr, f"constraint {name!r}")
        if grads is None:
            return done(reason)
        for v, J in grads.items():
            if v in stat:
                piece = _dense(J).reshape(v.size, lam.size) @ lam
                stat[v] += piece
                stat_scale = max(stat_scale, _inf(piece))
        g = _flat(expr.value)
        comp_sum += abs(float(lam @ g))
        if isinstance(con, cp.constraints.nonpos.Inequality):
            out["complementarity"] = max(out["complementarity"], float(np.abs(lam * g).max()))
            out["dual"] = max(out["dual"], float(np.maximum(-lam, 0).max()))
    out["stationarity"] = float(max(np.abs(s).max() if s.size else 0.0 for s in stat.values()))
    return done(None, stat_scale, mult, comp_sum)


def kkt_report(built: Any, values: Mapping[str, np.ndarray],
               duals: Mapping[str, np.ndarray] | None) -> tuple[dict[str, float], str | None]:
    """:func:`kkt_residuals` and, when stationarity is NaN, the reason (else ``None``).

    Parameters
    ----------
    built : BuiltProblem
        The problem.
    values : mapping of str to numpy.ndarray
        A value for every variable.
    duals : mapping of str to numpy.ndarray or None
        The multipliers by constraint name.

    Returns
    -------
    tuple
        ``(residuals, note)``.
    """
    kkt = lagrangian_kkt(built, values, duals)
    return kkt.residuals, kkt.note


def kkt_residuals(built: Any, values: Mapping[str, np.ndarray],
                  duals: Mapping[str, np.ndarray] | None) -> dict[str, float]:
    """KKT residuals of a candidate primal-dual point of ``built`` (module docstring).

    Returns ``primal`` (max constraint violation), ``stationarity`` (NaN for a non-smooth
    problem, a cone constraint or missing duals: :func:`kkt_report` gives the reason; never
    an exception), ``complementarity`` and ``dual``.

    Parameters
    ----------
    built : BuiltProblem
        The problem.
    values : mapping of str to numpy.ndarray
        A value for every variable.
    duals : mapping of str to numpy.ndarray or None
        The multipliers by constraint name.

    Returns
    -------
    dict of str to float
        The residuals.
    """
    return kkt_report(built, values, duals)[0]
