"""Scoring held-out predictions as :class:`sklearn.model_selection.GridSearchCV` does.

``scoring=`` on the estimators that select takes

* ``None`` — the default matched to the estimator and its loss: a classifier scores accuracy
  (what ``GridSearchCV`` scores for a classifier; ``1 -`` the misclassification rate); a
  regressor with the squared loss scores ``neg_mean_squared_error``; a regressor with any
  other loss scores ``"loss"``;
* ``"loss"`` — minus the mean held-out loss per point, the estimator's own loss with unit
  weights (a pinball loss at its τ, a Huber loss at its threshold, the squared hinge...);
* any scikit-learn scorer name (``"r2"``, ``"neg_mean_absolute_error"``, ``"roc_auc"``,
  ``"balanced_accuracy"``, ...) or a callable ``scorer(estimator, X, y)``.

A score is computed per split on that split's held-out points and averaged over splits
(unweighted), exactly as ``GridSearchCV`` does; higher is better.  Named scorers and callables
see a stand-in estimator whose ``predict`` / ``decision_function`` return the held-out
predictions of the points it is asked about, so anything that works with ``GridSearchCV``
works here.  :func:`cv_results` lays the scores out under ``GridSearchCV.cv_results_``'s keys.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from ..exceptions import HyperparameterError, SolverError
from .search_results import param_columns, rank_scores

__all__ = ["Scoring", "resolve_scoring", "selection_scoring", "cv_results", "best_of",
           "preset_results"]


class _HeldOutRegressor(RegressorMixin, BaseEstimator):
    """Stands in for a fitted regressor: ``predict`` returns held-out predictions of the
    points whose indices form the one column of ``X``."""

    def __init__(self, values: Any = None):
        self.values = values

    def fit(self, X: Any, y: Any = None) -> _HeldOutRegressor:  # pragma: no cover - never fitted
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.values)[np.asarray(X, dtype=np.intp)[:, 0]]


class _HeldOutClassifier(ClassifierMixin, BaseEstimator):
    """Stands in for a fitted classifier (``decision_function`` and ``predict`` of the
    held-out decision values; ``classes_``)."""

    def __init__(self, values: Any = None, classes: Any = None):
        self.values = values
        self.classes = classes

    def fit(self, X: Any, y: Any = None) -> _HeldOutClassifier:  # pragma: no cover
        return self

    @property
    def classes_(self) -> np.ndarray:
        return np.asarray(self.classes)

    def decision_function(self, X: Any) -> np.ndarray:
        return np.asarray(self.values)[np.asarray(X, dtype=np.intp)[:, 0]]

    def predict(self, X: Any) -> np.ndarray:
        F = self.decision_function(X)
        idx = (F > 0).astype(int) if F.ndim == 1 else F.argmax(axis=1)
        return self.classes_[idx]


@dataclass
class Scoring:
    """A resolved ``scoring=``: its ``name`` and :meth:`split_score`."""

    name: str
    kind: str  # "mse", "mae", "accuracy", "loss" or "scorer"
    classifier: bool
    loss: Any = None
    scorer: Callable[..., float] | None = None

    def split_score(self, y_true: np.ndarray, decision: np.ndarray, *,
                    classes: np.ndarray | None = None, targets: np.ndarray | None = None
                    ) -> float:
        """The score of one split's held-out points.

        Parameters
        ----------
        y_true : numpy.ndarray
            True targets (regression) or labels (classification) of the split's test points.
        decision : numpy.ndarray
            Held-out decision values there (``(m,)`` or ``(m, C)``); NaN when the fit failed.
        classes : numpy.ndarray or None, default=None
            The classifier's classes (binary: ``classes[1]`` is ``decision > 0``).
        targets : numpy.ndarray or None, default=None
            The fitted targets (``±1`` columns of a classifier), for ``"loss"``.

        Returns
        -------
        float
            Higher is better; NaN when a prediction is missing.
        """
        decision = np.asarray(decision, dtype=np.float64)
        if not np.all(np.isfinite(decision)):
            return float("nan")
        if self.kind in ("mse", "mae"):  # on the fitted targets (a classifier's ±1 columns)
            r = np.asarray(targets if targets is not None else y_true, float) - decision
            return -float(np.mean(r * r if self.kind == "mse" else np.abs(r)))
        if self.kind == "accuracy":
            assert classes is not None
            idx = (decision > 0).astype(int) if decision.ndim == 1 else decision.argmax(axis=1)
            return float(np.mean(classes[idx] == np.asarray(y_true)))
        if self.kind == "loss":
            t = np.asarray(targets if targets is not None else y_true, dtype=np.float64)
            per = self.loss
            cols = [(t, decision)] if t.ndim == 1 else [(t[:, j], decision[:, j])
                                                         for j in range(t.shape[1])]
            return -float(np.mean([per.value(a, b) / len(a) for a, b in cols]))
        assert self.scorer is not None
        ids = np.arange(len(decision))[:, None]
        stub: BaseEstimator = (_HeldOutClassifier(decision, classes) if self.classifier
                               else _HeldOutRegressor(decision))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. R² of one point: sklearn warns, returns NaN
            return float(self.scorer(stub, ids, y_true))

    def split_scores(self, y_true: np.ndarray, decision: Any, tests: Sequence[np.ndarray], *,
                     classes: np.ndarray | None = None, targets: np.ndarray | None = None
                     ) -> np.ndarray:
        """The score of every split: :meth:`split_score` of each test set ``te`` in ``tests``
        (``y_true[te]``, ``decision[te]``, ``targets[te]``), in one vectorised pass when every
        test set is one point (leave-one-out) and the score is a mean of per-point scores
        (``"mse"``, ``"mae"``, ``"accuracy"``: the same numbers).

        Parameters
        ----------
        y_true : numpy.ndarray of shape (N,) or (N, C)
            True targets or labels of every point.
        decision : numpy.ndarray of shape (N,) or (N, C), or list of numpy.ndarray
            Every point's held-out decision value (each test set's rows), or one array per
            test set.
        tests : sequence of numpy.ndarray
            The splits' test indices.
        classes, targets :
            As in :meth:`split_score` (``targets`` of every point).

        Returns
        -------
        numpy.ndarray of shape (len(tests),)
        """
        per_split = isinstance(decision, (list, tuple))
        if self.kind in ("mse", "mae", "accuracy") and tests and all(
                np.size(te) == 1 for te in tests):
            idx = np.concatenate([np.ravel(te) for te in tests])
            d = (np.concatenate([np.asarray(p, dtype=np.float64) for p in decision]) if per_split
                 else np.asarray(decision, dtype=np.float64)[idx])
            if self.kind == "accuracy":
                assert classes is not None
                out = (classes[(d > 0).astype(int) if d.ndim == 1 else d.argmax(axis=1)]
                       == np.asarray(y_true)[idx]).astype(np.float64)
            else:
                r = np.asarray(targets if targets is not None else y_true, float)[idx] - d
                per = r * r if self.kind == "mse" else np.abs(r)
                out = -(per if per.ndim == 1 else np.mean(per, axis=1))
            out[~np.isfinite(d.reshape(d.shape[0], -1)).all(axis=1)] = np.nan
            return out
        return np.array([self.split_score(
            y_true[te], decision[k] if per_split else np.asarray(decision)[te], classes=classes,
            targets=None if targets is None else targets[te]) for k, te in enumerate(tests)],
            dtype=np.float64)


def resolve_scoring(scoring: Any, *, classifier: bool, loss: Any) -> Scoring:
    """The :class:`Scoring` of a ``scoring=`` argument (module docstring).

    Parameters
    ----------
    scoring : None, str or callable
        What to score.
    classifier : bool
        Whether the estimator is a classifier.
    loss : Loss
        The estimator's loss (for the default and for ``"loss"``).

    Returns
    -------
    Scoring
        The resolved scoring.

    Raises
    ------
    HyperparameterError
        An unknown scorer name, or something that is neither a name nor a callable (the
        message names ``scoring``).
    """
    import copy

    if isinstance(scoring, Scoring):   # already resolved (a preset's own scoring)
        return scoring
    if scoring is None:
        if classifier:
            return Scoring("accuracy", "accuracy", True)
        if getattr(loss, "squared", False):
            return Scoring("neg_mean_squared_error", "mse", False)
        scoring = "loss"
    if isinstance(scoring, str):
        if scoring == "loss":
            unit = copy.copy(loss)
            unit.sample_weight = None  # every held-out point counts once
            return Scoring(f"loss ({type(loss).__name__})", "loss", classifier, loss=unit)
        fast = {"neg_mean_squared_error": "mse", "neg_mean_absolute_error": "mae"}
        if scoring in fast and not classifier:
            return Scoring(scoring, fast[scoring], False)
        if scoring == "accuracy" and classifier:
            return Scoring(scoring, "accuracy", True)
        from sklearn.metrics import get_scorer, get_scorer_names

        if scoring not in get_scorer_names():
            import difflib

            close = difflib.get_close_matches(scoring, [*get_scorer_names(), "loss"], n=1)
            raise HyperparameterError(
                f"scoring={scoring!r} is not a scikit-learn scorer name nor 'loss'"
                + (f" (did you mean {close[0]!r}?)" if close else "")
                + "; see sklearn.metrics.get_scorer_names()")
        return Scoring(scoring, "scorer", classifier, scorer=get_scorer(scoring))
    if callable(scoring):
        return Scoring(getattr(scoring, "__name__", type(scoring).__name__), "scorer",
                       classifier, scorer=scoring)
    raise HyperparameterError(f"scoring must be None, 'loss', a scikit-learn scorer name or a "
                              f"callable scorer(estimator, X, y), got {scoring!r}")



def selection_scoring(est: Any, classification: bool) -> Scoring:
    """The scoring of an LS-SVM estimator's search (on the CPU and the device): ``est.scoring``
    resolved; None: the legacy ``selection_score`` of the classifier (``"mse"`` on the ±1
    targets, or ``"misclassification"``: accuracy), ``-MSE`` for the regressor."""
    if est.scoring is None and classification:
        legacy = getattr(est, "selection_score", "mse")
        if legacy == "mse":       # else "misclassification" / "error" (the constraints)
            return Scoring("neg_mean_squared_error on the ±1 targets", "mse", True)
        return Scoring("accuracy", "accuracy", True)
    from ..losses import Squared

    return resolve_scoring(est.scoring, classifier=classification, loss=Squared())

def cv_results(params: Sequence[Mapping[str, Any]], split_scores: np.ndarray, *,
               status: Sequence[str] | None = None, reasons: Sequence[str] | None = None,
               fit_times: Sequence[float] | None = None, **extra: Any) -> dict[str, Any]:
    """``cv_results_`` with :class:`~sklearn.model_selection.GridSearchCV`'s keys.

    Parameters
    ----------
    params : sequence of dict
        One dict of parameter values per candidate.
    split_scores : numpy.ndarray of shape (n_candidates, n_splits)
        Score of every candidate on every split (higher is better; NaN: no score).
    status : sequence of str or None, default=None
        Per candidate: ``"ok"``, ``"inaccurate"`` (a solve stopped inaccurate and was scored)
        or ``"failed"`` (a solve failed: score NaN, ranked last).
    reasons : sequence of str or None, default=None
        Per candidate, what happened when it is not ``"ok"``.
    fit_times : sequence of float or None, default=None
        Seconds spent on each candidate (all its splits).
    **extra : dict
        Further keys (the estimand, the scoring's name, ...).

    Returns
    -------
    dict
        ``params``, ``param_<name>``, ``split<k>_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score`` (1 = best; a candidate without a score ranks
        last), ``mean_fit_time`` and the extras.
    """
    params = [dict(p) for p in params]
    S = np.asarray(split_scores, dtype=np.float64).reshape(len(params), -1)
    out: dict[str, Any] = {"params": params, **param_columns(params)}
    for j in range(S.shape[1]):
        out[f"split{j}_test_score"] = S[:, j].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: a failed candidate
        mean = np.mean(S, axis=1)
        std = np.std(S, axis=1)
    out["mean_test_score"] = mean
    out["std_test_score"] = std
    out["rank_test_score"] = rank_scores(mean)
    if fit_times is not None:
        out["mean_fit_time"] = np.asarray(fit_times, dtype=np.float64) / max(S.shape[1], 1)
    if status is not None:
        out["status"] = np.asarray(list(status), dtype=object)
        out["reason"] = np.asarray(list(reasons or [""] * len(params)), dtype=object)
    out.update(extra)
    return out


def best_of(results: Mapping[str, Any]) -> tuple[int, dict[str, Any], float]:
    """``(best_index_, best_params_, best_score_)`` of a ``cv_results_`` dict: the first
    candidate of rank 1, as ``GridSearchCV`` picks.

    Parameters
    ----------
    results : mapping
        A ``cv_results_`` dict with ``rank_test_score``, ``mean_test_score`` and ``params``.

    Returns
    -------
    tuple
        The index, the parameters and the mean test score of the best candidate.

    Raises
    ------
    SolverError
        When no candidate has a score (every fit failed).
    """
    score = np.asarray(results["mean_test_score"], dtype=np.float64)
    if not np.isfinite(score).any():
        reasons = results.get("reason")
        why = f" (first reason: {reasons[0]})" if reasons is not None and len(reasons) else ""
        raise SolverError("no candidate of the search could be scored: every fit failed"
                          + why)
    idx = int(np.flatnonzero(np.asarray(results["rank_test_score"]) == 1)[0])
    return idx, dict(results["params"][idx]), float(score[idx])


def preset_results(results: dict[str, Any], gammas: np.ndarray, kind: str, sigma2: float,
                   selection: str) -> tuple[float, dict[str, Any]]:
    """The composition's ``cv_results_`` in the LS-SVM's words, and the chosen γ.

    The search ran over the RKHS term's weights ``1/γ`` of ``gammas`` (in that order, inside
    each σ²); each candidate's ``terms__rkhs`` becomes the ``gamma`` of the grid it came from
    (the grid's own number, not ``1/(1/γ)``).  Beside scikit-learn's keys, the grid view the
    LS-SVM estimators offer: ``gammas``, ``sigma2s``, ``scores`` (the criterion the search
    minimised, one row per σ²: minus ``mean_test_score``, or one minus it for accuracy; NaN
    where a screen left a candidate unscored), ``best_gamma``, ``best_sigma2``,
    ``best_score``, ``criterion``; after a screen, ``screen_scores`` (the screen of the whole
    grid, the same orientation) and ``n_exact``.

    Parameters
    ----------
    results : dict
        The composed estimator's ``cv_results_``.
    gammas : numpy.ndarray
        The γ grid.
    kind : str
        The scoring's kind (``"accuracy"``: the criterion is the error rate).
    sigma2 : float
        The width, when σ² was not searched.
    selection : str
        ``"loo"`` or ``"kfold"`` (the ``criterion`` key).

    Returns
    -------
    tuple
        ``(γ chosen, cv_results_)``.
    """
    n_g = gammas.size
    params = [({"sigma2": p["sigma2"]} if "sigma2" in p else {}) | {"gamma": float(gammas[k % n_g])}
              for k, p in enumerate(results["params"])]
    out: dict[str, Any] = {"params": params, **param_columns(params)}
    out.update({k: v for k, v in results.items() if k != "params" and not k.startswith("param_")})

    def criterion(score: Any) -> np.ndarray:
        score = np.asarray(score, dtype=np.float64).reshape(-1, n_g)
        return 1.0 - score if kind == "accuracy" else -score

    scores = criterion(results["mean_test_score"])
    best, _, _ = best_of(out)
    sigma2s = [p.get("sigma2", sigma2) for p in params[::n_g]]
    out.update(gammas=gammas.tolist(), sigma2s=sigma2s, scores=scores.tolist(),
               criterion=selection,
               best_gamma=float(gammas[best % n_g]), best_sigma2=sigma2s[best // n_g],
               best_score=float(scores.flat[best]))
    if "screen_scores" in results:
        out["screen_scores"] = criterion(results["screen_scores"]).tolist()
    return out["best_gamma"], out
