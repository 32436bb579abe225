"""Automatic tuning of the Auto LS-SVM (Sorber 2017, §1.1 item 3): a joint leave-one-out search
over the kernel width γ, the gradient-norm weight μ and the ridge / margin weight ν on the
penalised least-squares engine :class:`lssvm_cvx.linalg.penalized.PenalizedLS` (the normalised
problem (N1), its exact LOO and its μ / ν paths are derived there).

Where the gradient-norm term helps (μ > 0 selected and better than μ = 0 on the same search:
varying smoothness, jumps, data gaps) and where LOO rightly switches it off (globally smooth
targets such as Friedman #1) is measured in ``benchmarks/results/auto_gradient.md`` and
``benchmarks/results/auto_large.md``; the sinc gap to a test-set oracle is LOO selection
variance, not the grids (``benchmarks/results/auto_sinc.md``).

Why μ and ν are normalised so
-----------------------------
The normaliser rule of (N1) (``ρ = tr C/(W tr P)``, :mod:`lssvm_cvx.linalg.penalized`).
Width and data scale: the traces make μ and ν relative to the curvature of the fit term at the current width (a narrow kernel has a small ``tr C``), and the estimators
standardise inputs and targets, so rescaling either changes nothing.  Rows (goal 2c): for a
fixed function the centre weights are ``θ = a/m``; then ``θ'Gθ`` (the gradient energy in units
of one kernel bump) and ``θ'Kθ = ||f||²`` do not depend on N, so those terms act like a fixed
prior whose weight relative to the summed fit decays like 1/N (the Bayesian reading), while
``||α||²`` keeps the raw scaling of eq. (9) (``ν_9`` constant for the dual).  We compared
scalings by fitting a half and a quarter of a data set with the hyperparameters selected on all
of it: this one degraded the LOO error less than the per-observation scaling ``(1/N)||r||²``
with fixed penalties (measured in ``tests/test_auto_invariance.py``).  The optimal amount of
regularisation does change with N, so no scaling makes the selected values exactly
row-invariant; the search re-selects them on every fit.

Search strategy (:func:`auto_search`) and cost
----------------------------------------------
1. **Width stage**: for each γ on a logarithmic grid (default 9 values, half a decade apart,
   then the two quarter-decade neighbours of the best), one generalised eigendecomposition and
   the μ path at ``ν = nu0``; the width's score is its best LOO over μ.  For more than
   ``n_subsample`` rows this stage runs on a seeded subsample (the width is the hyperparameter
   that depends least on N; §1.3 normalisation keeps μ, ν comparable).
2. **(μ, ν) stage** on all rows at the chosen width: μ path at ``nu0``, then the ν path at the
   best μ, then the μ path again at the best ν (coordinate search, three decompositions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import check_grid, check_option
from ..linalg.penalized import PenalizedLS
from ..linalg.scores import SCORES

__all__ = [
    "DEFAULT_GAMMA_GRID",
    "DEFAULT_MU_GRID",
    "DEFAULT_NU_GRID",
    "NU0",
    "CRITERIA",
    "SearchResult",
    "auto_search",
]

#: widths γ of the eq. (44) kernel ``exp(-(γ/p)||x - z||²)`` on standardised inputs
DEFAULT_GAMMA_GRID = np.logspace(-1.5, 2.5, 9)
#: normalised gradient-norm weights μ (0 = no gradient term)
DEFAULT_MU_GRID = np.r_[0.0, np.logspace(-4, 5, 37)]
#: normalised ridge (margin) weights ν
DEFAULT_NU_GRID = np.logspace(-4, 6, 21)
#: ν used while μ and γ are searched
NU0 = 0.1
#: selection criteria: LOO mean squared error, mean absolute error, squared hinge of the LOO
#: decision values (classification), LOO misclassification rate
CRITERIA = SCORES


@dataclass
class SearchResult:
    """Outcome of :func:`auto_search`: the chosen (γ, μ, ν), their LOO score, and the record of
    every path evaluated (``history``: list of dicts)."""

    gamma: float
    mu: float
    nu: float
    score: float
    criterion: str
    history: list[dict[str, Any]] = field(default_factory=list)
    n_decompositions: int = 0
    #: the :class:`PenalizedLS` on all rows at the chosen width (reused for the final fit)
    problem: PenalizedLS | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"gamma": self.gamma, "mu": self.mu, "nu": self.nu, "score": self.score,
                "criterion": self.criterion, "n_decompositions": self.n_decompositions,
                "history": self.history}


def _grid(values: Any, default: np.ndarray, name: str, *, allow_zero: bool = False) -> np.ndarray:
    """The sorted, distinct values of a grid (the estimators check theirs first, by their
    parameters' names: :mod:`lssvm_cvx.estimators.params`); a scalar is one value."""
    return np.unique(default if values is None else check_grid(
        values, f"the {name} grid", allow_zero=allow_zero, flat=np.isscalar(values)))


def auto_search(make_problem: Callable[[float, np.ndarray | None], PenalizedLS], n_rows: int, *,
                gamma: float | None = None, mu: float | None = None, nu: float | None = None,
                gamma_grid: Any = None, mu_grid: Any = None, nu_grid: Any = None,
                criterion: str = "mse", n_subsample: int = 1000, nu0: float = NU0,
                width_nu_path: bool = False, random_state: Any = 0) -> SearchResult:
    """Joint LOO search over (γ, μ, ν); see the module docstring for the strategy and cost.

    Parameters
    ----------
    make_problem :
        ``make_problem(gamma, rows)`` returns the :class:`PenalizedLS` of the basis at width
        ``gamma`` on the given row indices (``None``: all rows).
    n_rows :
        Number of training rows.
    gamma, mu, nu :
        Fixed values (not searched) or None (searched over the grids).
    criterion :
        One of :data:`CRITERIA`.
    n_subsample :
        Rows used by the width stage when there are more.
    """
    check_option(criterion, CRITERIA, "criterion")
    gammas = _grid(gamma_grid, DEFAULT_GAMMA_GRID, "gamma") if gamma is None else np.array([float(gamma)])
    mus = _grid(mu_grid, DEFAULT_MU_GRID, "mu", allow_zero=True) if mu is None else np.array([float(mu)])
    nus = _grid(nu_grid, DEFAULT_NU_GRID, "nu") if nu is None else np.array([float(nu)])
    nu_start = float(nu) if nu is not None else float(nu0)
    history: list[dict[str, Any]] = []
    ndec = 0
    rows = None
    if n_rows > n_subsample and gammas.size > 1:
        rng = np.random.default_rng(random_state if isinstance(random_state, (int, np.integer)) else 0)
        rows = np.sort(rng.choice(n_rows, n_subsample, replace=False))
    cache: dict[float, PenalizedLS] = {}

    def problem(g: float, full: bool) -> PenalizedLS:
        if full or rows is None:
            if g not in cache:
                cache.clear()
                cache[g] = make_problem(g, None)
            return cache[g]
        return make_problem(g, rows)

    def widthloo_score(g: float) -> float:
        nonlocal ndec
        pr = problem(g, full=False)
        best_mu, s, best_nu = float(mus[0]), np.inf, nu_start
        if mus.size > 1 or nus.size == 1:
            path = pr.mu_path(mus, nu_start, criterion)
            ndec += 1
            best_mu, s = path.best
        if nus.size > 1 and (width_nu_path or mus.size == 1):
            path = pr.nu_path(nus, best_mu, criterion)
            ndec += 1
            v, s2 = path.best
            if s2 < s:
                best_nu, s = v, s2
        history.append({"stage": "width", "gamma": g, "rows": pr.N, "nu": best_nu,
                        "mu": best_mu, "score": s})
        return s

    # 1. width stage
    if gammas.size > 1:
        lg = np.log10(gammas)
        scores = {float(g): widthloo_score(float(g)) for g in gammas}
        k = int(np.argmin([scores[float(g)] for g in gammas]))
        step = (lg[1] - lg[0]) / 2 if lg.size > 1 else 0.25
        for nb in (lg[k] - step, lg[k] + step):
            g = float(10 ** nb)
            scores[g] = widthloo_score(g)
        g_best = min(scores, key=scores.__getitem__)
    else:
        g_best = float(gammas[0])
    # 2. (μ, ν) stage on all rows
    pr = problem(g_best, full=True)
    mu_best, nu_best = (float(mus[0]), nu_start)
    score = np.inf
    if mus.size > 1:
        path = pr.mu_path(mus, nu_best, criterion)
        ndec += 1
        mu_best, score = path.best
        history.append({"stage": "mu", "gamma": g_best, "rows": pr.N, "nu": nu_best,
                        "mu": mu_best, "score": score})
    if nus.size > 1:
        path = pr.nu_path(nus, mu_best, criterion)
        ndec += 1
        nu_new, s = path.best
        history.append({"stage": "nu", "gamma": g_best, "rows": pr.N, "mu": mu_best,
                        "nu": nu_new, "score": s})
        if s < score or not np.isfinite(score):
            nu_best, score = nu_new, s
        if mus.size > 1 and nu_best != nu_start:
            path = pr.mu_path(mus, nu_best, criterion)
            ndec += 1
            m2, s2 = path.best
            history.append({"stage": "mu", "gamma": g_best, "rows": pr.N, "nu": nu_best,
                            "mu": m2, "score": s2})
            if s2 <= score:
                mu_best, score = m2, s2
    if not np.isfinite(score):
        score = pr.fit_score(pr.fit(mu_best, nu_best), criterion)
    return SearchResult(float(g_best), float(mu_best), float(nu_best), float(score), criterion,
                        history, ndec, pr)
