"""Multiobjective scalarisations for smooth non-convex objectives (You, Benitez-Quiroz & Martinez
2014, §III, θ-space model selection).

:func:`epsilon_constraint_nlp` and :func:`modified_epsilon_constraint_nlp` solve the same two
scalarisations for smooth callables ``u(θ) -> (value, gradient)`` with scipy's SLSQP
(a constrained NLP method).  The modified one keeps ``h`` as a variable, scaled as
``h = s η`` with ``η ∈ [0, 1]`` so that the NLP is well conditioned for small ``s``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize

from ..exceptions import HyperparameterError, InputError
from ..formulations.scalarize import check_eps_values, check_s
from .pareto import select_ideal_point

__all__ = [
    "NLPResult",
    "epsilon_constraint_nlp",
    "modified_epsilon_constraint_nlp",
    "NLPFront",
    "trace_front_nlp",
]


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
    e = check_eps_values(eps, len(cons))
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
    s = check_s(s)
    cons = [_cached(c) for c in _nlp_objs(constrained)]
    k = len(cons)
    e = check_eps_values(eps, k)
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
    s = check_s(s)
    k = len(_nlp_objs(constrained))
    vals = [check_eps_values(v, k) for v in (eps_values if k > 1 else np.reshape(eps_values, -1))]
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
