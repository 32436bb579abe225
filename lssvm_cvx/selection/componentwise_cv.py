"""k-fold cross-validation of the componentwise structure-detection penalties (componentwise
LS-SVM chapter, §5: "hyper-parameters as the kernel parameter (taken to be constants over the
components) and the regularization trade-off parameter γ or ξ were tuned using 10-fold
cross-validation").

* :func:`cv_path` scores a one-dimensional grid of a regularization constant (λ of the STP
  eq. 24-25, ξ of eq. 20 / 30) by k-fold CV with any ``fit_predict`` callable and picks a value
  by the minimum-CV rule or the **one-standard-error rule** (Breiman et al. 1984; Hastie,
  Tibshirani & Friedman 2001, §7.10): the most regularized grid value whose mean CV error is
  within one standard error (of the fold errors at the minimum) of the minimum.  The paper
  prints plain 10-fold CV; the one-SE rule is the usual guard against the over-selection of a
  CV-tuned sparsity penalty, which the Table 1 benchmark measures.
* :func:`default_lam_grid`, :func:`default_xi_grid`, :func:`default_sigma2_grid` are
  scale-aware default grids.  λ of eq. (24) is the cost ``≈ λ/2`` of keeping one saturated
  component against ``½||e||²``, so its grid is relative to ``||y - ȳ||²``; ξ of eq. (20)
  weighs ``ξ/2 ||e||²`` against ``½ Σ ||Ŷ^d||_1``, so it is relative to ``1/std(y)``; σ² of a
  one-dimensional RBF component is relative to the median column variance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..checks import as_matrix, as_targets, check_grid, check_integer, check_option
from ..exceptions import HyperparameterError, InputError
from ..linalg.folds import make_folds
from ..linalg.scores import SEARCH_SCORES

__all__ = ["CVPath", "cv_path", "RULES", "default_lam_grid", "default_xi_grid",
           "default_sigma2_grid", "one_se_index"]

#: selection rules of :func:`cv_path`
RULES = ("one_se", "min")


@dataclass
class CVPath:
    """k-fold CV scores along a grid ordered from the most to the least regularized value.

    Attributes
    ----------
    grid :
        The values, most regularized first.
    fold_errors :
        ``(n_grid, k)`` mean squared (or misclassification) error of every fold.
    mean, se :
        Mean over folds and its standard error ``std(ddof=1)/sqrt(k)``.
    index_min, index :
        Index of the minimum mean and of the chosen value (``rule``).
    rule :
        ``"one_se"`` or ``"min"``.
    extras :
        Per grid value, whatever ``fit_predict`` reported besides predictions (e.g. the
        number of selected components and GNC convergence per fold).
    """

    grid: np.ndarray
    fold_errors: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    index_min: int
    index: int
    rule: str
    extras: list[list[dict]]

    @property
    def best(self) -> float:
        return float(self.grid[self.index])

    def to_dict(self) -> dict[str, Any]:
        return {"grid": self.grid.tolist(), "mean": self.mean.tolist(), "se": self.se.tolist(),
                "index_min": self.index_min, "index": self.index, "rule": self.rule,
                "best": self.best}


def one_se_index(mean: np.ndarray, se: np.ndarray) -> int:
    """First index (most regularized first) whose mean is ≤ min + se at the minimum (a value
    that failed has a mean of NaN or inf)."""
    try:
        mean, se = np.asarray(mean, dtype=np.float64), np.asarray(se, dtype=np.float64)
    except (TypeError, ValueError):
        mean = se = np.zeros((0, 0))
    if mean.ndim != 1 or mean.shape != se.shape:
        raise InputError("mean and se must be two vectors of numbers of one length")
    finite = np.isfinite(mean)
    if not finite.any():
        raise HyperparameterError("every grid value failed in cross-validation")
    i0 = int(np.nanargmin(np.where(finite, mean, np.nan)))
    bound = mean[i0] + (se[i0] if np.isfinite(se[i0]) else 0.0)
    return int(np.flatnonzero(finite & (mean <= bound))[0])


def cv_path(X: np.ndarray, y: np.ndarray, grid: Sequence[float],
            fit_predict: Callable[[np.ndarray, np.ndarray, float, np.ndarray], Any], *,
            folds: int | Sequence[Sequence[int]] = 10, rule: str = "one_se", seed: int | None = 0,
            score: str = "mse") -> CVPath:
    """k-fold CV of ``fit_predict(X_train, y_train, value, X_heldout)`` along ``grid``.

    ``grid`` must be ordered from the most to the least regularized value (the one-SE rule
    walks it in that order).  ``fit_predict`` returns the held-out predictions, or a pair
    ``(predictions, info_dict)``; a raised exception scores the value as +inf for that fold.
    ``score`` is ``"mse"`` or ``"misclassification"`` (sign of the prediction against ±1
    targets).
    """
    check_option(rule, RULES, "rule")
    check_option(score, SEARCH_SCORES, "score")
    grid_arr = check_grid(grid, "the CV grid", allow_zero=True, flat=True)
    X = as_matrix(X, min_samples=2)
    y = as_targets(y, X.shape[0])
    fl = make_folds(len(y), folds, seed)
    errs = np.full((grid_arr.size, len(fl)), np.inf)
    extras: list[list[dict]] = [[] for _ in grid_arr]
    for j, te in enumerate(fl):
        tr = np.setdiff1d(np.arange(len(y)), te)
        for i, v in enumerate(grid_arr):
            try:
                out = fit_predict(X[tr], y[tr], float(v), X[te])
            except (ArithmeticError, ValueError, RuntimeError, np.linalg.LinAlgError) as exc:
                extras[i].append({"error": str(exc)})
                continue
            pred, info = (out if isinstance(out, tuple) else (out, {}))
            pred = np.asarray(pred, dtype=np.float64)
            if score == "mse":
                errs[i, j] = float(np.mean((pred - y[te]) ** 2))
            else:
                errs[i, j] = float(np.mean(np.where(pred >= 0, 1.0, -1.0) != y[te]))
            extras[i].append(dict(info))
    mean = errs.mean(axis=1)
    with np.errstate(invalid="ignore"):
        se = errs.std(axis=1, ddof=1) / np.sqrt(errs.shape[1])
    finite = np.isfinite(mean)
    if not finite.any():
        raise HyperparameterError("every grid value failed in cross-validation")
    i_min = int(np.nanargmin(np.where(finite, mean, np.nan)))
    idx = one_se_index(mean, se) if rule == "one_se" else i_min
    return CVPath(grid_arr, errs, mean, se, i_min, idx, rule, extras)


def default_lam_grid(y: np.ndarray, n: int = 7) -> np.ndarray:
    """λ of the STP, most regularized first: ``||y - ȳ||² × logspace(0, -2, n)``."""
    y = as_targets(y, None)
    ss = float(np.sum((y - y.mean()) ** 2)) or 1.0
    return ss * np.logspace(0.0, -2.0, check_integer(n, "n"))


def default_xi_grid(y: np.ndarray, n: int = 7) -> np.ndarray:
    """ξ of eq. (20) / (30), most regularized (smallest) first: ``logspace(-0.5, 2.5, n) /
    std(y)``."""
    sd = float(np.std(as_targets(y, None))) or 1.0
    return np.logspace(-0.5, 2.5, check_integer(n, "n")) / sd


def default_sigma2_grid(X: np.ndarray) -> np.ndarray:
    """σ² of the one-dimensional RBF components: the median column variance times
    ``(1, 3, 10, 30, 100)``."""
    v = float(np.median(np.var(as_matrix(X), axis=0)))
    return (v if v > 0 else 1.0) * np.array([1.0, 3.0, 10.0, 30.0, 100.0])
