"""Scores of leave-one-out (or k-fold) residuals: one vocabulary for every LOO engine."""

from __future__ import annotations

import numpy as np

from ..exceptions import HyperparameterError

__all__ = ["SCORES", "loo_score"]

#: LOO mean squared error, mean absolute error, squared hinge of the LOO decision values
#: (classification), LOO misclassification rate
SCORES = ("mse", "mae", "hinge2", "error")


def loo_score(R: np.ndarray, Y: np.ndarray, criterion: str) -> np.ndarray:
    """Criterion per path value; ``R`` (N, T, V) LOO residuals, ``Y`` (N, T) targets."""
    if criterion == "mse":
        return np.mean(R * R, axis=(0, 1))
    if criterion == "mae":
        return np.mean(np.abs(R), axis=(0, 1))
    F = Y[:, :, None] - R  # LOO decision values (targets ±1)
    if criterion == "hinge2":
        return np.mean(np.maximum(0.0, 1.0 - Y[:, :, None] * F) ** 2, axis=(0, 1))
    if criterion == "error":
        if Y.shape[1] == 1:
            return np.mean((Y[:, :, None] * F) <= 0, axis=(0, 1))
        return np.mean(np.argmax(F, axis=1) != np.argmax(Y, axis=1)[:, None], axis=0)
    raise HyperparameterError(f"criterion must be one of {SCORES}, got {criterion!r}")
