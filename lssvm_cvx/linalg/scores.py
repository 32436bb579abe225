"""Scores of leave-one-out (or k-fold) residuals: one vocabulary for every LOO engine."""

from __future__ import annotations

import numpy as np

from ..exceptions import HyperparameterError

__all__ = ["SCORES", "ALIASES", "loo_score"]

#: LOO mean squared error, mean absolute error, squared hinge of the LOO decision values
#: (classification), LOO misclassification rate
SCORES = ("mse", "mae", "hinge2", "error")
#: other spellings accepted (the LS-SVM estimators' ``selection_score="misclassification"``)
ALIASES = {"misclassification": "error"}


def loo_score(R: np.ndarray, Y: np.ndarray, criterion: str,
              weights: np.ndarray | None = None) -> np.ndarray:
    """Criterion per path value; ``R`` (N, T, V) LOO residuals, ``Y`` (N, T) targets, optional
    per-observation ``weights`` (N,) of the average over observations.

    Parameters
    ----------
    R : numpy.ndarray of shape (N, T, V)
        Held-out residuals ``y - f^{(-i)}`` for V path values.
    Y : numpy.ndarray of shape (N, T)
        Targets (±1 columns for classification).
    criterion : str
        One of :data:`SCORES` (or an alias in :data:`ALIASES`).
    weights : numpy.ndarray of shape (N,) or None, default=None
        Weights of the observations in the average (None: the plain mean).

    Returns
    -------
    numpy.ndarray of shape (V,)
        The criterion per path value (lower is better).
    """
    criterion = ALIASES.get(criterion, criterion)
    if criterion == "mse":
        per_row = np.mean(R * R, axis=1)
    elif criterion == "mae":
        per_row = np.mean(np.abs(R), axis=1)
    elif criterion == "hinge2":
        F = Y[:, :, None] - R  # LOO decision values (targets ±1)
        per_row = np.mean(np.maximum(0.0, 1.0 - Y[:, :, None] * F) ** 2, axis=1)
    elif criterion == "error":
        F = Y[:, :, None] - R
        if Y.shape[1] == 1:
            per_row = ((Y[:, :, None] * F) <= 0)[:, 0, :].astype(float)
        else:
            per_row = (np.argmax(F, axis=1) != np.argmax(Y, axis=1)[:, None]).astype(float)
    else:
        raise HyperparameterError(f"criterion must be one of {SCORES + tuple(ALIASES)}, "
                                  f"got {criterion!r}")
    return np.average(per_row, axis=0, weights=weights)
