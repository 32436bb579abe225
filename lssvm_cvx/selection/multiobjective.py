"""Multiobjective model selection for KRR and KPCR (You, Benitez-Quiroz & Martinez 2014):
Algorithm 1 in θ-space over the objectives of :mod:`lssvm_cvx.formulations.multiobjective`
(:func:`select_model`), the sum / product criteria and the CV / GCV grid baselines of §V, and
the α-space front of a fixed kernel (:func:`alpha_front`)."""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import minimize

from ..checks import as_matrix, as_targets, check_integer, check_option
from ..exceptions import HyperparameterError
from ..formulations.alpha_krr import EpsAlphaKRR, ParetoAlphaKRR
from ..formulations.multiobjective import (
    LAM_BOUNDS,
    METHODS,
    R_BOUNDS,
    check_complexity,
    check_degree,
    check_kernel_name,
    kpcr_components,
    make_objectives,
    sigma2_range,
)
from ..formulations.scalarize import check_s
from ..kernels.base import RBF, Polynomial
from ..linalg.folds import make_folds
from ..linalg.scores import gcv_score
from ..solvers import check_backend
from .lssvm import gamma_sweep
from .pareto import ParetoFront, select_ideal_point, trace_front
from .pareto_nlp import NLPFront, trace_fronts_nlp

__all__ = ["Selection", "select_model", "select_pareto", "finish_selection", "alpha_front",
           "VARIANTS"]


@dataclass
class Selection:
    """A selected KRR/KPCR model and how it was chosen.

    ``predict(X_new)`` evaluates ``f(x) = intercept + Σ_m coef_m k(x_m, x)`` with the kernel of
    the selected θ; ``front`` holds the traced Pareto front (θ-space methods) and ``scores``
    the grid/CV scores (grid and sum/product methods).
    """

    model: str
    kernel: str
    method: str
    complexity: str
    X: np.ndarray = field(repr=False)
    coef: np.ndarray = field(repr=False)
    intercept: float
    E_f: float
    E_c: float
    sigma2: float | None = None
    lam: float | None = None
    r: float | None = None
    degree: int | None = None
    t: float = 1.0
    m: int | None = None
    front: dict[str, Any] | None = None
    scores: dict[str, Any] | None = None
    nfev: int = 0

    def make_kernel(self):
        return RBF(self.sigma2) if self.kernel == "rbf" else Polynomial(int(self.degree), self.t)

    def predict(self, X_new: Any) -> np.ndarray:
        return self.make_kernel()(np.asarray(X_new, float), self.X) @ self.coef + self.intercept

    def params(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("sigma2", "lam", "r", "degree", "m")}


def _bounds(model: str, kernel: str, X: np.ndarray) -> list[tuple[float, float]]:
    bnds = []
    if kernel == "rbf":
        bnds.append(tuple(np.log(sigma2_range(X))))
    bnds.append(tuple(np.log(LAM_BOUNDS)) if model == "krr" else R_BOUNDS)
    return bnds


def _grid_points(bounds, k: int = 5) -> np.ndarray:
    axes = [np.linspace(lo, hi, k) for lo, hi in bounds]
    return np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(bounds), -1).T


def _minimise(fun, bounds, starts, maxiter: int = 200) -> tuple[np.ndarray, dict[str, Any]]:
    """Best of a few starts, polished by L-BFGS-B (``fun(θ) -> (value, gradient)``); returns the
    point and L-BFGS-B's convergence record (status, iterations, projected-gradient norm)."""
    vals = [fun(th)[0] for th in starts]
    x0 = starts[int(np.nanargmin(vals))]
    res = minimize(lambda th: fun(th)[0], x0, jac=lambda th: fun(th)[1], method="L-BFGS-B",
                   bounds=bounds, options={"maxiter": int(maxiter), "gtol": 1e-9, "ftol": 1e-14})
    x = res.x if res.fun <= np.nanmin(vals) else x0
    g = fun(x)[1]
    lo, hi = np.array(bounds, dtype=np.float64).T
    pg = np.where(x <= lo + 1e-10, np.minimum(g, 0), np.where(x >= hi - 1e-10, np.maximum(g, 0), g))
    return x, {"status": int(res.status), "nit": int(res.nit), "success": bool(res.success),
               "proj_grad": float(np.max(np.abs(pg)))}


#: the variants of Algorithm 1 traced from one sweep: (scalarisation, weights of eq. 27)
VARIANTS = (("modified_eps", "paper"), ("modified_eps", "normalized"),
            ("eps", "paper"), ("eps", "normalized"))


def _front(obj, methods, bounds, s: float, n_eps: int, maxiter: int | None = 300) -> dict[str, Any]:
    """Algorithm 1, steps 1 and 3 for every scalarisation in ``methods``: the ideal point and
    an ε sweep (continuation) traced once; ε* is picked afterwards by :func:`_pick`.

    The sweep bounds ``b`` (``E_c ≤ b``; ``ε = b/s`` for the modified method) run
    geometrically in ``E_c - z_c*`` from ``10^-4`` to 1 times the span between the ideal
    ``z_c*`` and the complexity of the fit-optimal θ.  ε₀ of eq. (28) is the bound closest to
    ``E_c(θ₀)`` at the initial θ₀, the centre of the θ box (in log coordinates).  SLSQP runs
    until its own stopping test (``ftol = 1e-12``) or ``maxiter`` (default 300); every solve's
    status, iterations and KKT residuals are kept in the fronts' ``info``.
    """
    starts = _grid_points(bounds, 4)
    th_f, conv_f = _minimise(obj.E_f, bounds, starts)
    th_c, conv_c = _minimise(obj.E_c, bounds, starts)
    z = np.array([obj.E_f(th_f)[0], obj.E_c(th_c)[0]])
    hi = obj.E_c(th_f)[0]
    theta0 = np.array([(lo + up) / 2 for lo, up in bounds])
    out: dict[str, Any] = {"ideal": z, "ideal_conv": [conv_f, conv_c]}
    if not hi > z[1]:
        F = np.array([[obj.E_f(th_f)[0], hi]])
        info = [{"status": 0, "nit": 0, "success": True, "converged": True, "stationarity": 0.0,
                 "feasibility": 0.0, "complementarity": 0.0, "mu": [0.0], "h": None}]
        fr = NLPFront(np.array([hi]), th_f[None, :], F, np.array([True]), 0, z, info)
        out.update(eps=np.array([hi]), eps0_index=0, fronts={m: fr for m in methods})
        return out
    b = z[1] + (hi - z[1]) * np.logspace(-4, 0, n_eps)
    opts = {"maxiter": int(maxiter)} if maxiter else None
    fronts = trace_fronts_nlp(obj.E_f, obj.E_c, b, th_c, methods=tuple(methods), s=s,
                              bounds=bounds, options=opts, ideal=z)
    e0 = int(np.argmin(np.abs(b - obj.E_c(theta0)[0])))
    out.update(eps=b, eps0_index=e0, fronts=fronts)
    return out


#: the last (σ², r) grid of each KPCR objective (weak keys: it goes with the objective)
_GRIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _kpcr_grid(obj, bounds, n_sigma: int = 10, n_r: int = 41):
    """``(θ points, E_f, E_c)`` of KPCR on the (σ², r) grid of :func:`_front_grid` (cached on
    ``obj``)."""
    key = (tuple(map(tuple, bounds)), n_sigma, n_r)
    cache = _GRIDS.get(obj)
    if cache is not None and cache[0] == key:
        return cache[1]
    axes = []
    if len(bounds) == 2:
        lo, hi = np.exp(bounds[0][0]), np.exp(bounds[0][1])
        axes.append(np.log(2 * np.linspace(np.sqrt(lo / 2), np.sqrt(hi / 2), n_sigma) ** 2))
    axes.append(np.linspace(R_BOUNDS[0], R_BOUNDS[1], n_r))
    pts = np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(axes), -1).T
    vals = np.array([obj.values(th)[:2] for th in pts])
    out = (pts, vals[:, 0], vals[:, 1])
    _GRIDS[obj] = (key, out)
    return out


def _front_grid(obj, methods, bounds, s: float, n_eps: int, n_sigma: int = 10,
                n_r: int = 41) -> dict[str, Any]:
    """Exact ε-constraint and modified ε-constraint over a (σ², r) grid (KPCR).

    ``E_f`` and ``E_c`` of KPCR depend on r only through the number of components ``m(r)``,
    a step function, so the paper's central-difference r-gradient (§IV-B) is zero or
    ``O(1/Δr)`` and an NLP method cannot satisfy KKT conditions in r.  Here both objectives
    are evaluated on ``n_sigma`` σ values (linear in the paper's σ over ``[μ-2δ, μ+2δ]``, as
    the CV grid) × ``n_r`` values of r in [0.8, 1]; for each bound ``b`` the ε-constraint
    point is the exact minimiser of ``E_f`` over the grid points with ``E_c ≤ b`` and the
    modified point the exact minimiser of ``E_f + s² E_c/b`` (eq. 25-26 with the optimal
    slack ``h = s E_c/b`` of each point).  Global on the grid; no convergence question.
    """
    pts, Ef, Ec = _kpcr_grid(obj, bounds, n_sigma, n_r)
    z = np.array([Ef.min(), Ec.min()])
    at_f = np.flatnonzero(Ef <= Ef.min() * (1 + 1e-12) + 1e-300)
    hi_c = float(Ec[at_f].min())
    theta0 = np.array([(lo_ + up) / 2 for lo_, up in bounds])
    b = z[1] + (max(hi_c, z[1]) - z[1]) * np.logspace(-4, 0, n_eps) if hi_c > z[1] else np.array([hi_c])
    fronts = {}
    for m in methods:
        X, F, info = [], [], []
        for bb in b:
            feas = Ec <= bb * (1 + 1e-12) + 1e-300
            crit = Ef if m == "eps" else Ef + s * s * Ec / max(bb, 1e-300)
            i = int(np.argmin(np.where(feas, crit, np.inf)))
            X.append(pts[i])
            F.append([Ef[i], Ec[i]])
            info.append({"status": 0, "nit": 0, "success": True, "converged": True,
                         "stationarity": 0.0, "feasibility": 0.0, "complementarity": 0.0,
                         "mu": [], "h": None if m == "eps" else [float(s * Ec[i] / bb)],
                         "search": f"exact over a {len(pts)}-point grid"})
        fronts[m] = NLPFront(b, np.array(X), np.array(F), np.ones(len(b), bool), len(pts), z, info)
    e0 = int(np.argmin(np.abs(b - obj.values(theta0)[1])))
    return {"ideal": z, "ideal_conv": [{"search": "grid"}, {"search": "grid"}], "eps": b,
            "eps0_index": e0, "fronts": fronts}


def _pick(fr: dict[str, Any], method: str, weights: Any) -> int:
    """ε* of eq. (27) with the weights ``weights`` over the ``method`` front."""
    F = fr["fronts"][method].F
    if not np.isfinite(F).any():
        return 0
    return select_ideal_point(F, fr["ideal"], eps0_index=fr["eps0_index"], weights=weights)


def _compare(fr: dict[str, Any], s: float) -> dict[str, Any]:
    """Per bound ``b``: why the modified and plain ε-constraint agree (or not).

    ``mu_b_over_s2`` is ``μ b / s²`` with ``μ`` the multiplier of ``E_c ≤ b`` in the plain
    problem: the modified objective ``E_f + s² η`` with ``E_c ≤ η b`` lowers ``η`` below 1
    only where lowering the bound is worth more than it costs in ``E_f``, i.e. where
    ``μ b < s²``; ``h_over_s`` is the slack the modified solve returned and ``dtheta``,
    ``dE_f`` the distances between the two solutions.
    """
    fe, fm = fr["fronts"].get("eps"), fr["fronts"].get("modified_eps")
    if fe is None or fm is None:
        return {}
    mu = np.array([i["mu"][0] if i["mu"] else np.nan for i in fe.info])
    hs = np.array([(i["h"][0] / s) if i["h"] else np.nan for i in fm.info])
    b = np.asarray(fe.eps, float)
    act = np.array([abs(f[1] - bb) <= 1e-6 * max(abs(bb), 1e-12) for f, bb in zip(fe.F, b)])
    return {"mu_b_over_s2": (mu * b / s**2).tolist(), "h_over_s": hs.tolist(),
            "active": act.tolist(),
            "dtheta": np.max(np.abs(fe.X - fm.X), axis=1).tolist(),
            "dE_f": np.abs(fe.F[:, 0] - fm.F[:, 0]).tolist()}


def finish_selection(model, kernel, method, complexity, X, y_mean, obj, ev, *, front=None, scores=None,
            degree=None, t=1.0, nfev=0) -> Selection:
    """Return the `Selection` for the chosen point ``ev`` of a multiobjective search."""
    if model == "krr":
        coef, intercept = ev["alpha"], y_mean
    else:
        coef, intercept = ev["beta"], y_mean + ev["b"]
    return Selection(model, kernel, method, complexity, X, coef, float(intercept), ev["E_f"],
                     ev["E_c"], sigma2=ev.get("sigma2"), lam=ev.get("lam"), r=ev.get("r"),
                     degree=degree if kernel == "poly" else None, t=t, m=ev.get("m"),
                     front=front, scores=scores, nfev=nfev)


def _criterion_fit(obj, bounds, crit: str, w: float, start) -> np.ndarray:
    """Minimise the sum (eq. 29) or log-product (eq. 31) criterion over θ (KPCR: exactly over
    the (σ², r) grid of :func:`_kpcr_grid`, as its fronts; r acts through a step function)."""
    if hasattr(obj, "values"):
        pts, Ef, Ec = _kpcr_grid(obj, bounds)
        with np.errstate(divide="ignore", invalid="ignore"):
            crit_v = (Ef + w * Ec if crit == "sum"
                      else np.where((Ef > 0) & (Ec > 0), np.log(Ef) + w * np.log(Ec), np.inf))
        return pts[int(np.nanargmin(crit_v))]
    if crit == "sum":
        def fun(th):
            f, gf = obj.E_f(th)
            c, gc = obj.E_c(th)
            return f + w * c, gf + w * gc
    else:
        def fun(th):
            f, gf = obj.E_f(th)
            c, gc = obj.E_c(th)
            if f <= 0 or c <= 0:
                return np.inf, np.zeros_like(th)
            return np.log(f) + w * np.log(c), gf / f + w * gc / c
    return _minimise(fun, bounds, start)[0]


def _predict_ev(model, kernel, degree, t, Xtr, ytr_mean, ev, Xte) -> np.ndarray:
    kern = RBF(ev["sigma2"]) if kernel == "rbf" else Polynomial(int(degree), t)
    Kte = kern(Xte, Xtr)
    if model == "krr":
        return Kte @ ev["alpha"] + ytr_mean
    return Kte @ ev["beta"] + ev["b"] + ytr_mean


def select_model(X: Any, y: Any, *, model: str = "krr", kernel: str = "rbf",
                 method: str = "modified_eps", complexity: str = "roughness",
                 degrees: Sequence[int] = (1, 2, 3, 4, 5, 6), t: float = 1.0, s: float = 1e-3,
                 n_eps: int = 10, weights_grid: Sequence[float] | None = None,
                 n_sigma: int = 10, n_lam: int = 10, n_r: int = 9, cv: int = 10,
                 criterion_cv: int = 5, delta_r: float = 0.01, seed: int = 0,
                 weights: Any = "normalized", nlp_maxiter: int | None = 300) -> Selection:
    """Select (σ², λ) for KRR or (σ², r) for KPCR (and the polynomial degree) by one method.

    Parameters
    ----------
    X, y :
        Training data (the paper standardises the inputs; ``y`` is centred internally).
    model :
        ``"krr"`` (eq. 33) or ``"kpcr"`` (eq. 35).
    kernel :
        ``"rbf"`` (``exp(-||x-z||²/σ²)``) or ``"poly"`` (``(x'z + t)^d``, d in ``degrees``).
    method :
        ``"modified_eps"`` (Algorithm 1, eq. 26-28), ``"eps"`` (eq. 24 with the same ε*
        rule), ``"sum"`` (eq. 29, ν by ``criterion_cv``-fold CV over ``weights_grid``),
        ``"product"`` (eq. 30-31, γ likewise), ``"cv"`` (``cv``-fold CV grid) or ``"gcv"``.
    complexity :
        ``"roughness"`` (eq. 16-17) or ``"l2"`` (eq. 22, Table VI).
    s, n_eps :
        The constant of eq. (25) and the number of ε values of the sweep.
    weights :
        Weights of the ideal-point rule (eq. 27): ``"normalized"`` (default: ``1/range²`` of
        each objective over the front, scale-free) or ``"paper"`` (eq. 28 as printed,
        ``w_i = |u_i(θ_ε0) - z_i*|²``).  With the printed weights eq. (27) grows with the fourth
        power of each objective's units, so the objective with the larger excursion at ε₀ — in
        practice the roughness, which spans decades — decides alone, and the rule returns the
        smoothest end of the front (R² ≈ 0 on scikit-learn's regression check; see
        ``benchmarks/results/pareto_krr.md`` for both variants).
    nlp_maxiter :
        Iteration limit of each SLSQP solve of the sweep (default 300; SLSQP normally stops
        earlier on its own ``ftol = 1e-12`` test).  Every solve's status, iterations and KKT
        residuals are in ``Selection.front["convergence"]``.  KPCR's r-derivative is the
        paper's central difference of a piecewise-constant map, on which SLSQP may stop
        without satisfying the KKT conditions (reported, not hidden).
    n_sigma, n_lam, n_r :
        Grid sizes of the CV/GCV baselines (σ in ``[μ-2δ, μ+2δ]``, λ in ``10^-5..10^4``,
        r in ``[0.8, 1]``).
    """
    X = as_matrix(X, min_samples=3)
    y = as_targets(y, X.shape[0])
    check_option(model, ("krr", "kpcr"), "model")
    kernel = check_kernel_name(kernel)
    complexity = check_complexity(complexity)
    check_option(method, METHODS, "method")
    s = check_s(s)
    _check_counts(n_eps=n_eps, n_sigma=n_sigma, n_lam=n_lam, n_r=n_r, cv=cv, criterion_cv=criterion_cv,
                  seed=seed, nlp_maxiter=nlp_maxiter)
    degs = [check_degree(d) for d in (degrees if kernel == "poly" else [2])]
    if not degs:
        raise HyperparameterError("degrees is empty")
    y_mean = float(y.mean())
    yc = y - y_mean
    bounds = _bounds(model, kernel, X)

    if method in ("cv", "gcv"):
        return _grid_select(X, y, model, kernel, method, complexity, degs, t, n_sigma, n_lam,
                            n_r, cv, seed)

    if method in ("modified_eps", "eps"):
        return select_pareto(X, y, model=model, kernel=kernel, complexity=complexity,
                             degrees=degs, t=t, s=s, n_eps=n_eps, delta_r=delta_r,
                             nlp_maxiter=nlp_maxiter, variants=((method, weights),),
                             methods=(method,))[f"{method}/{weights}"]

    # sum / product: weight by k-fold CV, then refit on all data
    grid = np.asarray(weights_grid if weights_grid is not None else
                      ([1e-4, 1e-3, 1e-2, 1e-1, 1.0] if method == "sum" else [0.1, 0.3, 1.0, 3.0]),
                      dtype=np.float64)
    if grid.size == 0 or np.any(grid <= 0) or not np.all(np.isfinite(grid)):
        raise HyperparameterError(f"weights_grid must hold finite numbers > 0, got {weights_grid!r}")
    folds = make_folds(X.shape[0], min(criterion_cv, X.shape[0]), seed)
    scores = np.zeros((len(degs), grid.size))
    nfev = 0
    starts = _grid_points(bounds, 3)
    for a, d in enumerate(degs):
        for f in folds:
            tr = np.setdiff1d(np.arange(X.shape[0]), f)
            ym = float(y[tr].mean())
            obj = make_objectives(model, X[tr], y[tr] - ym, kernel, d, t, complexity, delta_r)
            for c, w in enumerate(grid):
                th = _criterion_fit(obj, bounds, method, w, starts)
                pred = _predict_ev(model, kernel, d, t, X[tr], ym, obj.evaluate(th), X[f])
                scores[a, c] += np.sum((y[f] - pred) ** 2) / X.shape[0]
            nfev += obj.nfev
    a, c = (int(i) for i in np.unravel_index(int(np.argmin(scores)), scores.shape))
    d, w = degs[a], float(grid[c])
    obj = make_objectives(model, X, yc, kernel, d, t, complexity, delta_r)
    ev = obj.evaluate(np.asarray(_criterion_fit(obj, bounds, method, w, starts), float))
    return finish_selection(model, kernel, method, complexity, X, y_mean, obj, ev, degree=d, t=t,
                   scores={"weights": grid.tolist(), "degrees": degs, "cv_mse": scores.tolist(),
                           "weight": w}, nfev=nfev + obj.nfev)


def _summ_conv(fr: dict[str, Any], method: str) -> dict[str, Any]:
    info = fr["fronts"][method].info
    return {"solves": len(info), "converged": int(sum(i["converged"] for i in info)),
            "success": int(sum(i["success"] for i in info)),
            "nit": [int(i["nit"]) for i in info], "status": [int(i["status"]) for i in info],
            "stationarity": [float(i["stationarity"]) for i in info],
            "feasibility": [float(i["feasibility"]) for i in info],
            "complementarity": [float(i["complementarity"]) for i in info],
            "ideal_conv": fr["ideal_conv"]}


def select_pareto(X: Any, y: Any, *, model: str = "krr", kernel: str = "rbf",
                  complexity: str = "roughness", degrees: Sequence[int] = (1, 2, 3, 4, 5, 6),
                  t: float = 1.0, s: float = 1e-3, n_eps: int = 10, delta_r: float = 0.01,
                  nlp_maxiter: int | None = 300, variants: Sequence[tuple[str, Any]] = VARIANTS,
                  methods: Sequence[str] | None = None,
                  kpcr_search: str = "grid") -> dict[str, Selection]:
    """Algorithm 1 (You et al. 2014) for several variants from one ε sweep per degree.

    The plain ε-constraint (eq. 24) and the modified one (eq. 25-26) are traced together
    (:func:`~lssvm_cvx.selection.pareto_nlp.trace_fronts_nlp`: the modified solve of each bound
    starts from the plain solution); ε* (eq. 27) is then picked on each front with each
    weighting — ``"paper"`` (eq. 28 as printed) or ``"normalized"`` (this package's
    scale-free ``1/range²``) — so ``variants`` cost one sweep.  Returns
    ``{"method/weights": Selection}``; each selection's ``front`` holds the traced front, the
    convergence record of every SLSQP solve (``front["convergence"]``) and the per-bound
    comparison of the two scalarisations (``front["compare"]``, see :func:`_compare`).

    For the polynomial kernel the degree is enumerated (§IV-A): Algorithm 1 per degree, then
    the degree whose selected point is closest to the pooled ideal point, each objective
    normalised by its range over the selected points (the per-degree weights of eq. 28 are
    not comparable across degrees, so this rule is used for both weightings).

    KPCR (``model="kpcr"``): with ``kpcr_search="grid"`` (default) the fronts are exact over
    a (σ², r) grid (:func:`_front_grid`: r acts through a step function, on which SLSQP
    cannot converge); ``"slsqp"`` runs the paper's gradient method with its central
    difference in r.
    """
    check_option(model, ("krr", "kpcr"), "model")
    check_option(kpcr_search, ("grid", "slsqp"), "kpcr_search")
    X = as_matrix(X, min_samples=3)
    y = as_targets(y, X.shape[0])
    kernel = check_kernel_name(kernel)
    complexity = check_complexity(complexity)
    s = check_s(s)
    _check_counts(n_eps=n_eps, nlp_maxiter=nlp_maxiter)
    degs = [check_degree(d) for d in (degrees if kernel == "poly" else [2])]
    if not degs:
        raise HyperparameterError("degrees is empty")
    meths = tuple(check_option(m, ("eps", "modified_eps"), "a method")
                  for m in (methods if methods is not None else ("eps", "modified_eps")))
    for m, _ in variants:
        check_option(m, meths, "a variant's method")
    y_mean = float(y.mean())
    yc = y - y_mean
    bounds = _bounds(model, kernel, X)
    per_deg = []
    for d in degs:
        obj = make_objectives(model, X, yc, kernel, d, t, complexity, delta_r)
        if model == "kpcr" and kpcr_search == "grid":
            fr = _front_grid(obj, meths, bounds, s, n_eps)
        else:
            fr = _front(obj, meths, bounds, s, n_eps, nlp_maxiter)
        per_deg.append((d, obj, fr))
    nfev = sum(o.nfev for _, o, _ in per_deg)
    out: dict[str, Selection] = {}
    for method, weights in variants:
        picks = [(d, obj, fr, _pick(fr, method, weights)) for d, obj, fr in per_deg]
        if len(picks) == 1:
            d, obj, fr, idx = picks[0]
        else:
            P = np.array([fr["fronts"][method].F[i] for _, _, fr, i in picks])
            z = np.min([fr["ideal"] for _, _, fr, _ in picks], axis=0)
            ok = np.all(np.isfinite(P), axis=1)
            span = np.nanmax(P, axis=0) - z if ok.any() else np.ones(2)
            span = np.where(span > 0, span, 1.0)
            dist = np.where(ok, np.sum(((P - z) / span) ** 2, axis=1), np.inf)
            d, obj, fr, idx = picks[int(np.argmin(dist))]
        nf = fr["fronts"][method]
        ev = obj.evaluate(np.asarray(nf.X[idx], float))
        front = {"eps": np.asarray(fr["eps"]).tolist(), "E_f": nf.F[:, 0].tolist(),
                 "E_c": nf.F[:, 1].tolist(), "theta": nf.X.tolist(),
                 "ideal": fr["ideal"].tolist(), "index": int(idx), "degree": d,
                 "success": np.asarray(nf.success).tolist(), "weights": str(weights),
                 "convergence": {str(dd): _summ_conv(f2, method) for dd, _, f2 in per_deg},
                 "compare": _compare(fr, s)}
        out[f"{method}/{weights}"] = finish_selection(model, kernel, method, complexity, X, y_mean,
                                                      obj, ev, front=front, degree=d, t=t,
                                                      nfev=nfev)
    return out


def _sigma2_grid(X: np.ndarray, k: int) -> np.ndarray:
    lo, hi = sigma2_range(X)
    return 2 * np.linspace(np.sqrt(lo / 2), np.sqrt(hi / 2), k) ** 2  # linear in the paper's σ


def _kpcr_fit_eval(Ktr, ytr, Kte, w, V, r):
    """Predictions at test rows from a KPCR fit on (Ktr, ytr) with eigenpairs (w, V) of K̃tr."""
    m = kpcr_components(w, r)
    ym = ytr.mean()
    alpha = V[:, :m] @ ((V[:, :m].T @ (ytr - ym)) / w[:m])
    Kc = Kte - Ktr.mean(0)[None, :] - Kte.mean(1)[:, None] + Ktr.mean()
    return Kc @ alpha + ym, m


def _centred_eig(K):
    Kc = K - K.mean(0)[None, :] - K.mean(1)[:, None] + K.mean()
    w, V = np.linalg.eigh((Kc + Kc.T) / 2)
    return w[::-1], V[:, ::-1]


def _check_counts(**counts: Any) -> None:
    """The grid sizes, fold counts and seed as integers (``nlp_maxiter`` may be None): until
    2026-11-30 ``n_eps=1.5`` crashed in NumPy, ``n_eps=0`` in ``np.concatenate``."""
    for name, v in counts.items():
        if v is not None or name != "nlp_maxiter":
            check_integer(v, name, low={"cv": 2, "criterion_cv": 2, "seed": 0}.get(name, 1))


def _grid_select(X, y, model, kernel, method, complexity, degs, t, n_sigma, n_lam, n_r, cv, seed):
    """§V baselines: ``cv``-fold CV or GCV over (σ, λ) / (σ, r) / (degree, ·) grids."""
    n = X.shape[0]
    y_mean = float(y.mean())
    yc = y - y_mean
    kernels = ([("rbf", s2, None) for s2 in _sigma2_grid(X, n_sigma)] if kernel == "rbf"
               else [("poly", None, d) for d in degs])
    folds = make_folds(n, min(cv, n), seed)
    lams = np.logspace(np.log10(LAM_BOUNDS[0]), np.log10(LAM_BOUNDS[1]), n_lam)
    rs = np.linspace(R_BOUNDS[0], R_BOUNDS[1], n_r)
    scores = np.full((len(kernels), lams.size if model == "krr" else rs.size), np.inf)
    for a, (_, s2, d) in enumerate(kernels):
        kern = RBF(s2) if kernel == "rbf" else Polynomial(int(d), t)
        K = kern(X)
        if model == "krr":
            crit = "kfold" if method == "cv" else "gcv"
            sw = gamma_sweep(K, yc, 1.0 / lams, criterion=crit, folds=folds, bias=False,
                             method="eigh")
            scores[a] = sw.scores
        elif method == "gcv":
            w, V = _centred_eig(K)
            for c, r in enumerate(rs):
                pred, m = _kpcr_fit_eval(K, y, K, w, V, r)
                dof = m + 1
                scores[a, c] = gcv_score(np.sum((y - pred) ** 2), n, n - dof)
        else:
            acc = np.zeros(rs.size)
            for f in folds:
                tr = np.setdiff1d(np.arange(n), f)
                Ktr = K[np.ix_(tr, tr)]
                w, V = _centred_eig(Ktr)
                for c, r in enumerate(rs):
                    pred, _ = _kpcr_fit_eval(Ktr, y[tr], K[np.ix_(f, tr)], w, V, r)
                    acc[c] += np.sum((y[f] - pred) ** 2) / n
            scores[a] = acc
    a, c = np.unravel_index(int(np.nanargmin(scores)), scores.shape)
    _, s2, d = kernels[a]
    obj = make_objectives(model, X, yc, kernel, d or 2, t, complexity)
    if model == "krr":
        th = obj.theta(lam=float(lams[c]), sigma2=s2)
    else:
        th = obj.theta(r=float(rs[c]), sigma2=s2)
    ev = obj.evaluate(th)
    return finish_selection(model, kernel, method, complexity, X, y_mean, obj, ev, degree=d, t=t,
                   scores={"grid": [list(map(float, [s2 or 0.0, d or 0])) for _, s2, d in kernels],
                           "values": (lams if model == "krr" else rs).tolist(),
                           "scores": scores.tolist()})


def alpha_front(X: Any, y: Any, kernel: Any, *, complexity: str = "roughness",
                n_eps: int = 30, s: float = 1e-3, solver: str = "CLARABEL",
                method: str = "modified_eps", weights: Any = "normalized") -> dict[str, Any]:
    """Trace the α-space front for a fixed kernel and pick ε* by eq. (27)-(28).

    Bounds run geometrically from the minimum of the convex complexity to the complexity of
    the least-squares interpolant.  ``solver`` is a cvxpy solver (one DPP compilation serves
    the whole sweep) or ``"closed_form"`` (the spectral path of :class:`SpectralPath`).
    Returns the front, the chosen α and the sweep timings.
    """
    check_integer(n_eps, "n_eps", low=1)
    cls = ParetoAlphaKRR if check_option(method, ("modified_eps", "eps"), "method") == "modified_eps" \
        else EpsAlphaKRR
    form = cls(X, y, kernel=kernel, complexity=complexity, eps=1.0, s=s)
    form.path = lambda: ParetoAlphaKRR.path(form)  # type: ignore[method-assign]  # ε-form, α-path
    d = form.prepared()
    n = d["K"].shape[0]
    # ideal point: E_f* (unconstrained least squares), E_c* (minimum of the convex complexity)
    a_f = np.linalg.lstsq(d["K"], d["y"], rcond=1e-10)[0]
    a_c = np.linalg.lstsq(2 * d["M"], d["q"], rcond=1e-10)[0]
    z = np.array([form.E_f(a_f), form.E_c(a_c)])
    hi = form.E_c(a_f)
    bounds = z[1] + (max(hi, z[1] * 1.001 + 1e-9) - z[1]) * np.logspace(-4, 0, n_eps)
    bounds = np.maximum(bounds, 1e-12)
    eps_vals = bounds / s if method == "modified_eps" else bounds
    if check_backend(solver) == "closed_form":  # the spectral path: one eigh, O(r) per ε
        t0 = time.perf_counter()
        sp = form.path()
        F, C, times = [], [], []
        for e in eps_vals:
            t1 = time.perf_counter()
            nu = (max(s / e, sp.nu_for_bound(s * e)) if method == "modified_eps"
                  else sp.nu_for_bound(e))
            C.append(sp.c(nu))
            F.append([sp.E_f(nu), sp.E_c(nu)])
            times.append(time.perf_counter() - t1)
        total = time.perf_counter() - t0
        fr = ParetoFront(np.asarray(eps_vals, float), np.array(F), ["optimal"] * len(F),
                         np.array(times), total - sum(times[1:]), sum(times[1:]), False,
                         [{"c": c} for c in C], z)
    else:
        built = form.build()
        fr = trace_front(built, eps_vals, solver=solver, keep=["c"], ideal=z)
    idx = select_ideal_point(fr.F, z, weights=weights)
    alpha = form.whitening() @ np.asarray(fr.points[idx]["c"])
    return {"front": fr, "bounds": bounds, "index": idx, "alpha": alpha, "ideal": z,
            "E_f": form.E_f(alpha), "E_c": form.E_c(alpha), "E_c_exact": form.E_c_exact(alpha),
            "formulation": form, "n": n}
