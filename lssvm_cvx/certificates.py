"""Optimality certificates: how far a candidate point is from optimal, for any convex program.

A verdict of the harness rests on three scaled residuals of a primal-dual point, in the style
of Clarabel and OSQP (and qpbenchmark's "primal residual / dual residual / duality gap"):

* ``primal`` — infeasibility of the primal point;
* ``dual`` — infeasibility of the dual point (stationarity of the Lagrangian and membership of
  the multipliers in the dual cone);
* ``gap`` — the duality gap.

Each is divided by ``max(1, the size of the quantities it compares)``, so the three are
dimensionless and comparable between backends; a point whose three residuals are within a
solver profile's :class:`~lssvm_cvx.solvers.Tolerance` (``feas``, ``kkt``, ``rel``) is
*certified*.  Two forms are evaluated:

**Conic form** (:func:`conic_certificate`), for every cvxpy solver.  cvxpy reduces any DCP
problem, smooth or not, to the cone program it hands to the solver (``Problem.get_problem_data``,
a ``ParamConeProg``)::

    minimise  ½ x'Px + q'x + d   subject to   A x + b ∈ K,     K = {0}^z × R_+^l × SOC × ...

with Lagrangian ``L = ½x'Px + q'x + d - y'(Ax + b)``, ``y ∈ K*``.  At the solver's own ``(x, y)``
(read from the solver before cvxpy maps it back, :func:`lssvm_cvx.solvers.solve_problem`)::

    primal = dist(Ax + b, K) / max(1, ‖Ax‖∞, ‖b‖∞)
    dual   = max( ‖Px + q - A'y‖∞ / max(1, ‖Px‖∞, ‖q‖∞, ‖A'y‖∞),  dist(y, K*) / max(1, ‖y‖∞) )
    gap    = |x'Px + q'x + b'y| / max(1, |½x'Px + q'x + d|)

(``x'Px + q'x + b'y`` is the primal minus the dual objective; at a stationary point it equals
``y'(Ax + b) ≥ 0``).  This is valid whatever atoms a user writes (``norm1``, ``max``, ``pos``, a
group norm...): the non-smooth pieces became cones and epigraph variables before the solver
saw them, so no gradient of a non-smooth function is ever taken.

**Lagrangian form** (:func:`lagrangian_certificate`), for the closed form, whose problems are
smooth: the KKT conditions of the cvxpy problem itself, ``f(x) + Σ λ_j' g_j(x)`` with the
closed form's multipliers (``primal`` = constraint violation, ``dual`` = stationarity and the
sign of inequality multipliers, ``gap`` = complementarity ``Σ |λ_j' g_j|``, which is the duality
gap at a stationary point), scaled the same way.

Only the zero, nonnegative and second-order cones are evaluated (those of every problem in
this package); another cone gives NaN residuals with the reason in ``note``, never a wrong
number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Certificate", "conic_certificate", "lagrangian_certificate", "SCORE_FLOOR"]

#: certificates whose worst residual is below this are equally good (round-off): the reference
#: among them is chosen by order (closed form first), not by the last bits
SCORE_FLOOR = 1e-12


def _fmt(v: float) -> str:
    return "NaN" if not math.isfinite(v) else f"{v:.1e}"


@dataclass(frozen=True)
class Certificate:
    """Scaled primal infeasibility, dual infeasibility and duality gap of a point.

    Attributes
    ----------
    primal, dual, gap : float
        The scaled residuals (module docstring); NaN when not evaluated (``note`` says why).
    form : str
        Which problem they were evaluated on (``"conic form passed to CLARABEL"``, ``"Lagrangian
        of the cvxpy problem"``).
    note : str or None
        Why a residual is NaN, or what else the reader should know.
    extras : mapping of str to float
        Backend diagnostics that are not residuals, e.g. the closed form's
        ``system_residual`` (relative residual of its linear system) and ``jitter`` (a ridge
        it added to factorise a singular system).
    """

    primal: float
    dual: float
    gap: float
    form: str
    note: str | None = None
    extras: Mapping[str, float] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The worst of the three residuals (``inf`` when any is NaN): smaller is better."""
        vals = (self.primal, self.dual, self.gap)
        return max(vals) if all(math.isfinite(v) for v in vals) else math.inf

    def failures(self, tol: Any) -> list[str]:
        """What misses ``tol`` (a :class:`~lssvm_cvx.solvers.Tolerance`): ``primal`` against
        ``feas``, ``dual`` against ``kkt``, ``gap`` against ``rel``.

        Parameters
        ----------
        tol : Tolerance
            The tolerance of the backend's profile.

        Returns
        -------
        list of str
            One phrase per residual that is above its bound or not evaluated; empty when the
            point is certified.
        """
        out = []
        for name, v, bound in (("primal", self.primal, tol.feas), ("dual", self.dual, tol.kkt),
                               ("gap", self.gap, tol.rel)):
            if not math.isfinite(v):
                out.append(f"{name} residual not evaluated")
            elif v > bound:
                out.append(f"{name} {v:.1e} > {bound:g}")
        return out

    def passes(self, tol: Any) -> bool:
        """Whether every residual is within ``tol`` (see :meth:`failures`).

        Parameters
        ----------
        tol : Tolerance
            The tolerance of the backend's profile.

        Returns
        -------
        bool
            True when the point is certified at that tolerance.
        """
        return not self.failures(tol)

    def describe(self) -> str:
        """One line: the three residuals, the form, the extras."""
        text = (f"primal {_fmt(self.primal)}, dual {_fmt(self.dual)}, gap {_fmt(self.gap)} "
                f"({self.form})")
        if self.extras.get("jitter"):
            text += f"; ridge {self.extras['jitter']:.1e} added to factorise"
        if "system_residual" in self.extras:
            text += f"; system residual {self.extras['system_residual']:.1e}"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN becomes ``None``)."""
        def clean(v: float) -> float | None:
            return float(v) if math.isfinite(v) else None

        return {"primal": clean(self.primal), "dual": clean(self.dual), "gap": clean(self.gap),
                "form": self.form, "note": self.note,
                "extras": {k: clean(float(v)) for k, v in self.extras.items()}}


def _inf_norm(v: Any) -> float:
    v = np.asarray(v, dtype=np.float64).reshape(-1)
    return float(np.abs(v).max()) if v.size else 0.0


def _soc_project(v: np.ndarray) -> np.ndarray:
    t, x = v[0], v[1:]
    nx = float(np.linalg.norm(x))
    if nx <= t:
        return v
    if nx <= -t:
        return np.zeros_like(v)
    a = (t + nx) / 2.0
    return np.concatenate([[a], a * x / nx])


def _project(v: np.ndarray, zero: int, nonneg: int, soc: Sequence[int], *, dual: bool
             ) -> np.ndarray:
    """Projection onto ``K`` (``dual=False``) or ``K*`` (``dual=True``; the zero cone's dual is
    the whole space, the other cones are self-dual)."""
    out = np.array(v, dtype=np.float64, copy=True)
    if not dual:
        out[:zero] = 0.0
    i = zero
    out[i:i + nonneg] = np.maximum(out[i:i + nonneg], 0.0)
    i += nonneg
    for k in soc:
        out[i:i + k] = _soc_project(out[i:i + k])
        i += k
    return out


def conic_certificate(P: Any, q: Any, d: float, A: Any, b: Any, *, zero: int, nonneg: int,
                      soc: Sequence[int] = (), x: Any, y: Any, lower: Any = None,
                      upper: Any = None, form: str = "conic form", note: str | None = None
                      ) -> Certificate:
    """The certificate of ``(x, y)`` for ``min ½x'Px + q'x + d  s.t.  Ax + b ∈ K``.

    Parameters
    ----------
    P : sparse or dense matrix of shape (n, n) or None
        Quadratic objective (``None``: linear objective).
    q : array-like of shape (n,)
        Linear objective.
    d : float
        Constant of the objective.
    A : sparse or dense matrix of shape (m, n)
        Constraint matrix; rows ordered zero cone, nonnegative cone, second-order cones.
    b : array-like of shape (m,)
        Constraint offset.
    zero, nonneg : int
        Sizes of the zero and nonnegative cones.
    soc : sequence of int, default=()
        Sizes of the second-order cones ``{(t, u): ‖u‖ ≤ t}``, in row order.
    x : array-like of shape (n,)
        Primal point.
    y : array-like of shape (m,)
        Dual point, Lagrangian ``L = ½x'Px + q'x + d - y'(Ax + b)`` with ``y ∈ K*``.
    lower, upper : array-like of shape (n,) or None, default=None
        Bounds on ``x`` (cvxpy passes them to solvers that take bounds); their multipliers are
        recovered from the stationarity residual (the part of it with the sign a bound
        multiplier can absorb).
    form : str, default="conic form"
        Name of the form, for the report.
    note : str or None, default=None
        Passed through to the certificate.

    Returns
    -------
    Certificate
        The scaled residuals (module docstring).
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    q = np.asarray(q, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    m = zero + nonneg + int(sum(soc))
    if A.shape != (m, x.size) or b.size != m or y.size != m or q.size != x.size:
        return Certificate(math.nan, math.nan, math.nan, form,
                           f"shapes do not match the cones (A {A.shape}, {m} cone rows, x "
                           f"{x.size}, y {y.size})")
    Ax = np.asarray(A @ x).reshape(-1)
    s = Ax + b
    Px = np.zeros_like(x) if P is None else np.asarray(P @ x).reshape(-1)
    Aty = np.asarray(A.T @ y).reshape(-1)
    primal_abs = _inf_norm(s - _project(s, zero, nonneg, soc, dual=False))
    r = Px + q - Aty
    gap_abs = float(x @ Px + q @ x + b @ y)
    if lower is not None or upper is not None:
        lo = np.full(x.size, -np.inf) if lower is None else np.asarray(lower, float).reshape(-1)
        hi = np.full(x.size, np.inf) if upper is None else np.asarray(upper, float).reshape(-1)
        primal_abs = max(primal_abs, _inf_norm(np.maximum(lo - x, 0.0)),
                         _inf_norm(np.maximum(x - hi, 0.0)))
        # L gains -ν_lo'(x - lo) - ν_hi'(hi - x), ν ≥ 0: stationarity r = ν_lo - ν_hi; the
        # multipliers take the part of r they can
        nu_lo = np.where(np.isfinite(lo), np.maximum(r, 0.0), 0.0)
        nu_hi = np.where(np.isfinite(hi), np.maximum(-r, 0.0), 0.0)
        r = r - nu_lo + nu_hi
        # the dual objective gains ν_lo'lo - ν_hi'hi
        gap_abs += float(nu_hi @ np.where(np.isfinite(hi), hi, 0.0)) \
            - float(nu_lo @ np.where(np.isfinite(lo), lo, 0.0))
    primal = primal_abs / max(1.0, _inf_norm(Ax), _inf_norm(b))
    dual_res = _inf_norm(r) / max(1.0, _inf_norm(Px), _inf_norm(q), _inf_norm(Aty))
    dual_cone = _inf_norm(y - _project(y, zero, nonneg, soc, dual=True)) / max(1.0, _inf_norm(y))
    pcost = 0.5 * float(x @ Px) + float(q @ x) + float(d)
    gap = abs(gap_abs) / max(1.0, abs(pcost))
    return Certificate(primal, max(dual_res, dual_cone), gap, form, note)


def lagrangian_certificate(*, violation: float, violation_scale: float, stationarity: float,
                           stationarity_scale: float, dual_sign: float, multiplier_scale: float,
                           complementarity: float, objective: float,
                           form: str = "Lagrangian of the cvxpy problem",
                           note: str | None = None,
                           extras: Mapping[str, float] | None = None) -> Certificate:
    """The certificate of a point of a smooth problem from its KKT residuals.

    Parameters
    ----------
    violation : float
        Largest constraint violation ``max_j ‖g_j(x)‖∞`` (equalities) / ``max(g_j, 0)``.
    violation_scale : float
        Size of the quantities the constraints compare (``max ‖lhs‖∞, ‖rhs‖∞``).
    stationarity : float
        ``‖∇f + Σ_j J_j'λ_j‖∞`` (NaN when not defined: ``note`` says why).
    stationarity_scale : float
        ``max(‖∇f‖∞, max_j ‖J_j'λ_j‖∞)``.
    dual_sign : float
        ``max(-λ_j, 0)`` over inequality multipliers.
    multiplier_scale : float
        ``max ‖λ_j‖∞``.
    complementarity : float
        ``Σ_j |λ_j' g_j(x)|``.
    objective : float
        ``f(x)``.
    form : str, default="Lagrangian of the cvxpy problem"
        Name of the form.
    note : str or None, default=None
        Why stationarity is NaN, if it is.
    extras : mapping of str to float or None, default=None
        Backend diagnostics (closed form: ``system_residual``, ``jitter``).

    Returns
    -------
    Certificate
        The scaled residuals.
    """
    primal = violation / max(1.0, violation_scale)
    dual = max(stationarity / max(1.0, stationarity_scale),
               dual_sign / max(1.0, multiplier_scale)) if math.isfinite(stationarity) \
        else math.nan
    gap = complementarity / max(1.0, abs(objective)) if math.isfinite(stationarity) else math.nan
    return Certificate(primal, dual, gap, form, note, dict(extras or {}))
