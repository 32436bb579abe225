"""Multiobjective scalarisations for smooth non-convex objectives (You, Benitez-Quiroz & Martinez
2014, §III, θ-space model selection).

:func:`epsilon_constraint_nlp` and :func:`modified_epsilon_constraint_nlp` solve the same two
scalarisations for smooth callables ``u(θ) -> (value, gradient)`` with scipy's SLSQP
(a constrained NLP method).  The modified one keeps ``h`` as a variable, scaled as
``h = s η`` with ``η ∈ [0, 1]`` so that the NLP is well conditioned for small ``s``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import minimize, minimize_scalar, nnls

from ..checks import as_float64, check_option
from ..exceptions import InputError
from ..formulations.scalarize import check_eps_values, check_s
from .pareto import select_ideal_point

__all__ = [
    "NLPResult",
    "kkt_residuals",
    "epsilon_constraint_nlp",
    "modified_epsilon_constraint_nlp",
    "NLPFront",
    "trace_front_nlp",
    "trace_fronts_nlp",
    "KKT_TOL",
]


@dataclass
class NLPResult:
    """Result of an NLP scalarisation: the decision vector, the objective values, the slack,
    and how the solve ended (SLSQP's status and iteration count, the first-order KKT
    residuals of :func:`kkt_residuals` and the multipliers ``mu`` of the ε-constraints)."""

    x: np.ndarray
    F: np.ndarray
    h: np.ndarray | None
    success: bool
    message: str
    nfev: int
    nit: int = 0
    status: int = 0
    kkt: dict[str, float] = field(default_factory=dict)
    mu: np.ndarray | None = None

    @property
    def converged(self) -> bool:
        """The first-order KKT conditions hold to ``KKT_TOL`` (relative) at the returned point,
        whatever SLSQP's own status (its status 8, "positive directional derivative in the
        line search", often comes at a point that is already optimal to rounding)."""
        return bool(self.kkt.get("stationarity", np.inf) <= KKT_TOL
                    and self.kkt.get("feasibility", np.inf) <= KKT_TOL
                    and self.kkt.get("complementarity", np.inf) <= KKT_TOL)


#: relative tolerance on the KKT residuals for :attr:`NLPResult.converged`
KKT_TOL = 1e-5


def _at_bounds(z: np.ndarray, bounds: Any, tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray]:
    lo_b = np.zeros(z.size, bool)
    hi_b = np.zeros(z.size, bool)
    if bounds is None:
        return lo_b, hi_b
    for i, (lo, hi) in enumerate(bounds):
        if lo is not None and z[i] <= lo + tol * (1 + abs(lo)):
            lo_b[i] = True
        if hi is not None and z[i] >= hi - tol * (1 + abs(hi)):
            hi_b[i] = True
    return lo_b, hi_b


def kkt_residuals(z: Any, grad_obj: Any, g: Any, G: Any, bounds: Any = None, *,
                  scale: float | None = None, f_value: float = 0.0,
                  g_scale: Any = None) -> tuple[dict[str, float], np.ndarray]:
    """First-order KKT residuals of ``min f(z)`` s.t. ``g_j(z) ≤ 0``, ``lo ≤ z ≤ hi``.

    The multipliers ``μ ≥ 0`` of the constraints are fitted by non-negative least squares on
    the stationarity of the Lagrangian ``∇f + Σ μ_j ∇g_j`` over the coordinates not at a bound
    (``μ_j = 0`` for an inactive ``g_j``); coordinates at a bound only need the Lagrangian
    gradient to point out of the box.  Returns ``({"stationarity", "feasibility",
    "complementarity"}, μ)``, each residual relative: stationarity over
    ``scale`` (default ``max(||∇f||∞, Σ μ_j||∇g_j||∞, |f_value|)``: for log-scaled variables
    ``|f|`` is the natural unit, and it keeps a vanishing gradient from counting as a
    relative residual of 1); feasibility ``max(g_j, 0)`` and
    complementarity (the slack ``|g_j|`` of a constraint whose multiplier carries weight,
    ``μ_j||∇g_j||∞ > 10⁻⁸ scale``) over ``g_scale`` (the constraint levels, e.g. the bounds
    ``b``; default ``1 + |g_j|``).
    """
    z = as_float64(z, "z").reshape(-1)        # NaN in z or g: NaN residuals (a failed point)
    gf = as_float64(grad_obj, "grad_obj", finite=True).reshape(-1)
    g = np.atleast_1d(as_float64(g, "g"))
    G = np.atleast_2d(as_float64(G, "G", finite=True))
    lo_b, hi_b = _at_bounds(z, bounds)
    free = ~(lo_b | hi_b)
    gnorm = max(float(np.max(np.abs(gf))) if gf.size else 0.0, 1e-300)
    act_tol = 1e-7 * (1.0 + np.abs(g))
    gs = (1.0 + np.abs(g)) if g_scale is None else np.maximum(np.abs(np.atleast_1d(
        np.asarray(g_scale, float))), 1e-300)
    active = g >= -1e-6 * gs - act_tol

    def proj_res(mu_v: np.ndarray) -> np.ndarray:
        L = gf + G.T @ mu_v
        r = np.where(free, np.abs(L), 0.0)
        r = np.where(lo_b, np.maximum(-L, 0.0), r)
        return np.where(hi_b, np.maximum(L, 0.0), r)

    mu = np.zeros(g.size)
    if active.any():
        if g.size == 1:  # one constraint: μ minimising the (convex) projected residual
            nz = np.abs(G[0]) > 0
            top = float(np.max(np.abs(gf[nz]) / np.abs(G[0][nz]))) if nz.any() else 0.0
            r = minimize_scalar(lambda m: float(np.max(proj_res(np.array([m])), initial=0.0)),
                                bounds=(0.0, 10 * top + 1e-300), method="bounded",
                                options={"xatol": 1e-14 * max(top, 1e-300)})
            cand = [0.0, float(r.x)]
            if free.any() and nz[free].any():
                cand.append(max(0.0, float(nnls(G[:, free].T, -gf[free])[0][0])))
            mu[0] = min(cand, key=lambda m: float(np.max(proj_res(np.array([m])), initial=0.0)))
        elif free.any():
            mu[active] = nnls(G[active][:, free].T, -gf[free])[0]
    res = proj_res(mu)
    sc = scale if scale is not None else max(gnorm, float(np.sum(mu * np.max(np.abs(G), axis=1))),
                                             abs(float(f_value)))
    sc = max(sc, 1e-300)
    weight = mu * np.max(np.abs(G), axis=1) > 1e-8 * sc
    return ({"stationarity": float(np.max(res)) / sc if res.size else 0.0,
             "feasibility": float(np.max(np.maximum(g, 0.0) / gs)) if g.size else 0.0,
             "complementarity": float(np.max(np.where(weight, np.abs(g) / gs, 0.0)))
             if g.size else 0.0},
            mu)


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
    x0 = as_float64(x0, "x0", finite=True).reshape(-1)
    nl = [{"type": "ineq", "fun": (lambda x, c=c, ej=ej: ej - c(x)[0]),
           "jac": (lambda x, c=c: -c(x)[1])} for c, ej in zip(cons, e)]
    opts = {"ftol": 1e-12, "maxiter": 300, **(options or {})}
    res = minimize(lambda x: prim(x)[0], x0, jac=lambda x: prim(x)[1], method="SLSQP",
                   bounds=bounds, constraints=nl, options=opts)
    x = res.x
    F = np.array([prim(x)[0]] + [c(x)[0] for c in cons])
    kkt, mu = kkt_residuals(x, prim(x)[1], F[1:] - e, [c(x)[1] for c in cons], bounds,
                            f_value=F[0], g_scale=e)
    return NLPResult(x, F, None, bool(res.success), str(res.message), int(res.nfev),
                     int(getattr(res, "nit", 0)), int(res.status), kkt, mu)


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
    # KKT of the modified problem itself (variables θ and η = h/s): objective E_f + s² Σ η_j,
    # constraints u_j(θ) - s ε_j η_j ≤ 0; its multipliers are those of the ε-constraints
    G = np.zeros((k, d + k))
    for j, c in enumerate(cons):
        G[j, :d] = c(x)[1]
        G[j, d + j] = -s * e[j]
    gz = np.concatenate([prim(x)[1], np.full(k, s * s)])
    kkt, mu = kkt_residuals(res.x, gz, F[1:] - s * e * res.x[d:], G, bnds, f_value=F[0],
                            g_scale=s * e)
    return NLPResult(x, F, s * res.x[d:], bool(res.success), str(res.message),
                     int(res.nfev) + nfev0, int(getattr(res, "nit", 0)), int(res.status), kkt, mu)


@dataclass
class NLPFront:
    """A front traced by NLP scalarisations (θ-space): one row per ε."""

    eps: np.ndarray
    X: np.ndarray  # decision vectors (n_eps, d)
    F: np.ndarray  # objective values (n_eps, k)
    success: np.ndarray
    nfev: int
    ideal: np.ndarray | None = None
    #: per ε: SLSQP status and iterations, ``converged``, the KKT residuals, the multiplier
    #: ``mu`` of the ε-constraint and (modified method) the slack ``h``
    info: list[dict[str, Any]] = field(default_factory=list)

    def ideal_point_index(self, *, eps0_index: int | None = None, weights: Any = "paper") -> int:
        """ε* of eq. (27)-(28) over this front."""
        return select_ideal_point(self.F, self.ideal, eps0_index=eps0_index, weights=weights)

    def to_dict(self) -> dict[str, Any]:
        return {"eps": self.eps.tolist(), "X": self.X.tolist(), "F": self.F.tolist(),
                "success": self.success.tolist(), "nfev": self.nfev, "info": self.info}


def _info(r: NLPResult, feasible: bool) -> dict[str, Any]:
    return {"status": r.status, "nit": r.nit, "success": bool(r.success),
            "converged": bool(r.converged and feasible), **r.kkt,
            "mu": [float(v) for v in (r.mu if r.mu is not None else [])],
            "h": None if r.h is None else [float(v) for v in r.h]}


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
    check_option(method, ("modified_eps", "eps"), "method")
    return trace_fronts_nlp(primary, constrained, eps_values, x0, methods=(method,), s=s,
                            bounds=bounds, continuation=continuation, options=options,
                            ideal=ideal)[method]


def trace_fronts_nlp(primary: Callable, constrained: Any, eps_values: Any, x0: Any, *,
                     methods: tuple[str, ...] = ("eps", "modified_eps"), s: float = 1e-3,
                     bounds: Any = None, continuation: bool = True,
                     options: dict[str, Any] | None = None,
                     ideal: Any = None) -> dict[str, NLPFront]:
    """Trace the ε-constraint and/or the modified ε-constraint fronts in one sweep.

    With both methods, every bound ``b`` is first solved by the plain ε-constraint (eq. 24);
    the modified problem (eq. 25-26, ``ε = b/s``) then starts from that solution (``η = h/s``
    at its largest feasible value), which is exactly the warm start of
    :func:`modified_epsilon_constraint_nlp`, without solving the ε-constraint twice.  Returns
    ``{method: NLPFront}``; each front's ``info`` records every solve's convergence.
    """
    for m in methods:
        check_option(m, ("modified_eps", "eps"), "methods")
    s = check_s(s)
    k = len(_nlp_objs(constrained))
    vals = [check_eps_values(v, k) for v in (eps_values if k > 1 else np.reshape(eps_values, -1))]
    x = np.asarray(x0, dtype=np.float64).reshape(-1)
    acc: dict[str, dict[str, list]] = {m: {"X": [], "F": [], "ok": [], "info": []} for m in methods}
    nfev = dict.fromkeys(methods, 0)
    for b in vals:
        x_next = x
        if "eps" in methods or "modified_eps" in methods:
            r = epsilon_constraint_nlp(primary, constrained, b, x, bounds=bounds, options=options)
            runs = {"eps": r}
            start = r.x if bool(np.all(r.F[1:] <= b * (1 + 1e-8) + 1e-12)) else x
            if "modified_eps" in methods:
                runs["modified_eps"] = modified_epsilon_constraint_nlp(
                    primary, constrained, b / s, start, s=s, bounds=bounds, warm_start=False,
                    options=options)
                runs["modified_eps"].nfev += r.nfev if "eps" not in methods else 0
        for m in methods:
            rm = runs[m]
            feasible = bool(np.all(rm.F[1:] <= b * (1 + 1e-6) + 1e-9))
            a = acc[m]
            a["X"].append(rm.x)
            a["F"].append(rm.F if feasible else np.full(rm.F.shape, np.nan))
            a["ok"].append(bool(rm.success and feasible))
            a["info"].append(_info(rm, feasible))
            nfev[m] += rm.nfev
            if continuation and feasible and m == methods[0]:
                x_next = rm.x
        x = x_next
    eps_arr = np.array([float(v[0]) for v in vals]) if k == 1 else np.vstack(vals)
    z = None if ideal is None else np.asarray(ideal, float)
    return {m: NLPFront(eps_arr, np.vstack(a["X"]), np.vstack(a["F"]), np.array(a["ok"]),
                        nfev[m], z, a["info"]) for m, a in acc.items()}
