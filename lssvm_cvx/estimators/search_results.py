"""``cv_results_`` in scikit-learn's layout for the estimators that search over candidates.

:class:`sklearn.model_selection.GridSearchCV` stores one entry per candidate: ``params`` (a list
of dicts), one ``param_<name>`` array per parameter, ``mean_test_score`` (higher is better) and
``rank_test_score`` (1 = best, ties share the lowest rank).  Our searches minimise a criterion
(an exact LOO mean squared error, a span bound, ...), so ``mean_test_score`` is *minus* the
criterion, as scikit-learn's ``neg_mean_squared_error`` is.  Estimators may add their own keys
next to these (e.g. the LS-SVM's ``scores`` grid) without breaking the layout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

__all__ = ["search_results"]


def search_results(params: Sequence[Mapping[str, Any]], values: Any, *,
                   lower_is_better: bool = True, **extra: Any) -> dict[str, Any]:
    """A ``cv_results_`` dict for candidates ``params`` scored by ``values``.

    Parameters
    ----------
    params : sequence of dict
        One dict of parameter values per candidate.
    values : array-like of shape (n_candidates,)
        The criterion value of each candidate (NaN: not evaluated; ranked last).
    lower_is_better : bool
        Whether the criterion is minimised (then ``mean_test_score = -criterion``).
    **extra
        Further per-candidate arrays or metadata stored under their own keys.

    Returns
    -------
    dict
        ``params``, ``param_<name>``, ``mean_test_score``, ``rank_test_score`` and ``extra``.
    """
    params = [dict(p) for p in params]
    crit = np.asarray(values, dtype=np.float64).reshape(-1)
    if crit.size != len(params):
        raise ValueError(f"{len(params)} candidates but {crit.size} criterion values")
    score = -crit if lower_is_better else crit.copy()
    out: dict[str, Any] = {"params": params, **param_columns(params)}
    out["mean_test_score"] = score
    out["rank_test_score"] = rank_scores(score)
    out.update(extra)
    return out


def param_columns(params: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """``GridSearchCV``'s ``param_<name>`` columns: one array per parameter name (in order of
    first appearance), float where every value is a number, else object; NaN where a candidate
    lacks the parameter."""
    names: list[str] = []
    for p in params:
        names += [k for k in p if k not in names]
    out: dict[str, np.ndarray] = {}
    for k in names:
        vals = [p.get(k, np.nan) for p in params]
        try:
            out[f"param_{k}"] = np.asarray(vals, dtype=np.float64)
        except (TypeError, ValueError):
            out[f"param_{k}"] = np.asarray([str(v) for v in vals], dtype=object)
    return out


def rank_scores(score: np.ndarray) -> np.ndarray:
    """``rank_test_score``: 1 for the best (highest) score, ties sharing the lowest rank; a
    candidate without a score (NaN) ranks last."""
    score = np.asarray(score, dtype=np.float64)
    finite = np.isfinite(score)
    rank = np.full(score.size, score.size, dtype=np.int32)
    if finite.any():
        rank[finite] = rankdata(-score[finite], method="min").astype(np.int32)
    return rank
