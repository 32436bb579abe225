"""The RBF widths a search covers: around the median squared distance (``"auto"``), the
widths given, or ``sigma2`` as given (an explicit width is never replaced by a grid)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import HyperparameterError
from ..kernels.base import sq_dists

__all__ = ["default_sigma2_grid", "sigma2_candidates"]


def default_sigma2_grid(X: np.ndarray, n_max: int = 1000, seed: int = 0) -> np.ndarray:
    """σ² candidates around the median squared pairwise distance (× 10^-2 … 10^2, 9 values)."""
    if X.shape[0] > n_max:
        X = X[np.random.default_rng(seed).choice(X.shape[0], n_max, replace=False)]
    D = sq_dists(X)
    med = float(np.median(D[np.triu_indices_from(D, 1)]))
    return (med if med > 0 else 1.0) * np.logspace(-2, 2, 9)


def sigma2_candidates(est: Any, X: np.ndarray) -> tuple[np.ndarray, bool]:
    """The RBF widths a search covers and whether σ² is searched: ``sigma2`` as given unless
    ``sigma2_grid`` asks for a grid (``"auto"``: 9 values around the median squared distance,
    or the given values).

    Parameters
    ----------
    est : estimator
        With ``kernel``, ``sigma2`` and ``sigma2_grid``.
    X : numpy.ndarray
        Training inputs.

    Returns
    -------
    tuple
        ``(widths, searched)``.
    """
    grid = est.sigma2_grid
    if grid is None:
        return np.array([est.sigma2], dtype=np.float64), False
    rbf = isinstance(est.kernel, str) and est.kernel.lower() == "rbf"
    if not rbf:
        raise HyperparameterError(f"sigma2_grid searches the RBF width; kernel={est.kernel!r} has "
                                  "none (set sigma2_grid=None)")
    if isinstance(grid, str):
        if grid != "auto":
            raise HyperparameterError(f"sigma2_grid must be None, 'auto' or widths, got {grid!r}")
        return default_sigma2_grid(X), True
    s2 = np.asarray(grid, dtype=np.float64).reshape(-1)
    if s2.size == 0 or not np.all(np.isfinite(s2)) or np.any(s2 <= 0):
        raise HyperparameterError("sigma2_grid must hold finite widths > 0")
    return s2, True
