"""Multiobjective model selection for KRR and KPCR (You, Benitez-Quiroz & Martinez 2014):
Algorithm 1 in θ-space over the objectives of :mod:`lssvm_cvx.formulations.multiobjective`
(:func:`select_model`), the sum / product criteria and the CV / GCV grid baselines of §V, and
the α-space front of a fixed kernel (:func:`alpha_front`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import minimize

from ..checks import as_matrix, as_targets
from ..exceptions import HyperparameterError
from ..formulations.alpha_krr import EpsAlphaKRR, ParetoAlphaKRR
from ..formulations.scalarize import check_s
from ..formulations.multiobjective import (LAM_BOUNDS, METHODS, R_BOUNDS, check_complexity,
                                           check_degree, check_kernel_name, kpcr_components,
                                           make_objectives, sigma2_range)
from ..kernels.base import RBF, Polynomial
from ..linalg.folds import make_folds
from .lssvm import gamma_sweep
from .pareto import ParetoFront, select_ideal_point, trace_front
from .pareto_nlp import trace_front_nlp

__all__ = ["Selection", "select_model", "finish_selection", "alpha_front"]


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
        lo, hi = sigma2_range(X)
        bnds.append((np.log(lo), np.log(hi)))
    bnds.append(tuple(np.log(LAM_BOUNDS)) if model == "krr" else R_BOUNDS)
    return bnds


def _grid_points(bounds, k: int = 5) -> np.ndarray:
    axes = [np.linspace(lo, hi, k) for lo, hi in bounds]
    return np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(bounds), -1).T


def _minimise(fun, bounds, starts, maxiter: int = 50) -> np.ndarray:
    """Best of a few starts, polished by L-BFGS-B (``fun(θ) -> (value, gradient)``)."""
    vals = [fun(th)[0] for th in starts]
    x0 = starts[int(np.nanargmin(vals))]
    res = minimize(lambda th: fun(th)[0], x0, jac=lambda th: fun(th)[1], method="L-BFGS-B",
                   bounds=bounds, options={"maxiter": int(maxiter)})
    return res.x if res.fun <= np.nanmin(vals) else x0


def _front(obj, method: str, bounds, s: float, n_eps: int, weights: Any = "normalized",
           maxiter: int = 30) -> dict[str, Any]:
    """Algorithm 1: ideal point, an ε sweep (continuation), ε* by eq. (27)-(28).

    The sweep bounds ``b`` (``E_c ≤ b``; ``ε = b/s`` for the modified method) run
    geometrically in ``E_c - z_c*`` from ``10^-4`` to 1 times the span between the ideal
    ``z_c*`` and the complexity of the fit-optimal θ.  ε₀ of eq. (28) is the bound closest to
    ``E_c(θ₀)`` at the initial θ₀, the centre of the θ box (in log coordinates).
    """
    starts = _grid_points(bounds, 4)
    th_f = _minimise(obj.E_f, bounds, starts, maxiter)
    th_c = _minimise(obj.E_c, bounds, starts, maxiter)
    z = np.array([obj.E_f(th_f)[0], obj.E_c(th_c)[0]])
    hi = obj.E_c(th_f)[0]
    if not hi > z[1]:
        F = np.array([[obj.E_f(th_f)[0], hi]])
        return {"theta": th_f, "X": th_f[None, :], "F": F, "eps": np.array([hi]), "ideal": z,
                "index": 0, "success": np.array([True]), "eps0_index": 0}
    b = z[1] + (hi - z[1]) * np.logspace(-4, 0, n_eps)
    fr = trace_front_nlp(obj.E_f, obj.E_c, b, th_c, method=method, s=s, bounds=bounds,
                         options={"maxiter": int(maxiter)})
    F = fr.F.copy()
    theta0 = np.array([(lo + up) / 2 for lo, up in bounds])
    e0 = int(np.argmin(np.abs(b - obj.E_c(theta0)[0])))
    idx = select_ideal_point(F, z, eps0_index=e0, weights=weights) if np.isfinite(F).any() else 0
    return {"theta": fr.X[idx], "X": fr.X, "F": F, "eps": b, "ideal": z, "index": idx,
            "success": fr.success, "eps0_index": e0}


def _fit_theta(obj, theta) -> dict[str, Any]:
    return obj.evaluate(np.asarray(theta, float))


def finish_selection(model, kernel, method, complexity, X, y_mean, obj, ev, *, front=None, scores=None,
            degree=None, t=1.0, nfev=0) -> Selection:
    if model == "krr":
        coef, intercept = ev["alpha"], y_mean
    else:
        coef, intercept = ev["beta"], y_mean + ev["b"]
    return Selection(model, kernel, method, complexity, X, coef, float(intercept), ev["E_f"],
                     ev["E_c"], sigma2=ev.get("sigma2"), lam=ev.get("lam"), r=ev.get("r"),
                     degree=degree if kernel == "poly" else None, t=t, m=ev.get("m"),
                     front=front, scores=scores, nfev=nfev)


def _criterion_fit(obj, bounds, crit: str, w: float, start) -> np.ndarray:
    """Minimise the sum (eq. 29) or log-product (eq. 31) criterion over θ."""
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
    return _minimise(fun, bounds, start)


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
                 weights: Any = "normalized", nlp_maxiter: int = 30) -> Selection:
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
        Iteration cap of each SLSQP solve of the sweep (KPCR's r-derivative is the paper's
        central difference of a piecewise-constant map, on which SLSQP can cycle).
    n_sigma, n_lam, n_r :
        Grid sizes of the CV/GCV baselines (σ in ``[μ-2δ, μ+2δ]``, λ in ``10^-5..10^4``,
        r in ``[0.8, 1]``).
    """
    X = as_matrix(X, min_samples=3)
    y = as_targets(y, X.shape[0])
    if model not in ("krr", "kpcr"):
        raise HyperparameterError(f"model must be 'krr' or 'kpcr', got {model!r}")
    kernel = check_kernel_name(kernel)
    complexity = check_complexity(complexity)
    if method not in METHODS:
        raise HyperparameterError(f"method must be one of {METHODS}, got {method!r}")
    s = check_s(s)
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
        fronts = []
        for d in degs:
            obj = make_objectives(model, X, yc, kernel, d, t, complexity, delta_r)
            fr = _front(obj, method, bounds, s, n_eps, weights, nlp_maxiter)
            fronts.append((d, obj, fr))
        if len(fronts) == 1:
            d, obj, fr = fronts[0]
        else:
            # polynomial degree by enumeration (§IV-A): Algorithm 1 per degree, then the degree
            # whose selected point is closest to the pooled ideal point, each objective
            # normalised by its range over the selected points (the per-degree weights of
            # eq. 28 are not comparable across degrees).
            P = np.array([fr["F"][fr["index"]] for _, _, fr in fronts])
            z = np.min([fr["ideal"] for _, _, fr in fronts], axis=0)
            ok = np.all(np.isfinite(P), axis=1)
            span = np.nanmax(P, axis=0) - z
            span = np.where(span > 0, span, 1.0)
            dist = np.where(ok, np.sum(((P - z) / span) ** 2, axis=1), np.inf)
            d, obj, fr = fronts[int(np.argmin(dist))]
        ev = _fit_theta(obj, fr["theta"])
        front = {"eps": fr["eps"].tolist(), "E_f": fr["F"][:, 0].tolist(),
                 "E_c": fr["F"][:, 1].tolist(), "theta": fr["X"].tolist(),
                 "ideal": fr["ideal"].tolist(), "index": int(fr["index"]), "degree": d,
                 "success": np.asarray(fr["success"]).tolist()}
        nfev = sum(o.nfev for _, o, _ in fronts)
        return finish_selection(model, kernel, method, complexity, X, y_mean, obj, ev, front=front,
                       degree=d, t=t, nfev=nfev)

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
    a, c = np.unravel_index(int(np.argmin(scores)), scores.shape)
    d, w = degs[a], float(grid[c])
    obj = make_objectives(model, X, yc, kernel, d, t, complexity, delta_r)
    ev = _fit_theta(obj, _criterion_fit(obj, bounds, method, w, starts))
    return finish_selection(model, kernel, method, complexity, X, y_mean, obj, ev, degree=d, t=t,
                   scores={"weights": grid.tolist(), "degrees": degs, "cv_mse": scores.tolist(),
                           "weight": w}, nfev=nfev + obj.nfev)


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
                scores[a, c] = n * np.sum((y - pred) ** 2) / (n - dof) ** 2 if dof < n else np.inf
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
    cls = ParetoAlphaKRR if method == "modified_eps" else EpsAlphaKRR
    form = cls(X, y, kernel=kernel, complexity=complexity, eps=1.0, s=s)
    form.path = lambda: ParetoAlphaKRR.path(form)
    d = form._prep()
    n = d["K"].shape[0]
    # ideal point: E_f* (unconstrained least squares), E_c* (minimum of the convex complexity)
    a_f = np.linalg.lstsq(d["K"], d["y"], rcond=1e-10)[0]
    a_c = np.linalg.lstsq(2 * d["M"], d["q"], rcond=1e-10)[0]
    z = np.array([form.E_f(a_f), form.E_c(a_c)])
    hi = form.E_c(a_f)
    bounds = z[1] + (max(hi, z[1] * 1.001 + 1e-9) - z[1]) * np.logspace(-4, 0, n_eps)
    bounds = np.maximum(bounds, 1e-12)
    eps_vals = bounds / s if method == "modified_eps" else bounds
    if solver == "closed_form":  # the spectral path: one eigh, O(r) per ε
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
    alpha = form._whiten() @ np.asarray(fr.points[idx]["c"])
    return {"front": fr, "bounds": bounds, "index": idx, "alpha": alpha, "ideal": z,
            "E_f": form.E_f(alpha), "E_c": form.E_c(alpha), "E_c_exact": form.E_c_exact(alpha),
            "formulation": form, "n": n}
