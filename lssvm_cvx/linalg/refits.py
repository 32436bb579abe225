"""The definitions that the closed-form held-out residuals of the penalised least-squares engine
(:class:`~lssvm_cvx.linalg.penalized.PenalizedLS`, problem (N1)) are checked against: one
refit per held-out set, the set removed from the fit term (``Σ_{j∉V} s_j r_j²``), the basis,
the penalty matrices and their normalisers ρ kept.  The tests hold
:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.loo_residuals` and
:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.kfold_residuals` to them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .folds import disjoint_folds
from .penalized import PenalizedLS

__all__ = ["refit_residuals", "brute_force_loo"]


def refit_residuals(problem: PenalizedLS, folds: Sequence[Any],
                    weights: Mapping[str, float]) -> np.ndarray:
    """Held-out residuals ``y_V - f^{(-V)}(x_V)`` of disjoint row sets by one dense refit each
    (NumPy problems; NaN for a row in no set).

    Parameters
    ----------
    problem : PenalizedLS
        The problem on all the rows (its normalisers are kept by every refit).
    folds : sequence of array-like of int
        Disjoint index sets.
    weights : mapping of str to float
        The penalties' weights, by name (:meth:`PenalizedLS.weights`).

    Returns
    -------
    numpy.ndarray of shape (N, T)
        The held-out residuals.
    """
    pr = problem
    w = np.ones(pr.N) if pr.w is None else np.asarray(pr.w)
    pen = pr.matrix(**weights) - pr.C
    Z = np.hstack([np.ones((pr.N, 1)), np.asarray(pr.Phi)])
    R = np.full(np.shape(pr.Y), np.nan)
    for V in disjoint_folds(folds, pr.N):
        keep = np.ones(pr.N, dtype=bool)
        keep[V] = False
        Zk = Z[keep]
        M = Zk.T @ (w[keep, None] * Zk)
        M[1:, 1:] += pr.W * pen  # (1/W)Σ_{j∉V} w_j r_j² + pen, times W
        beta = np.linalg.solve(M, Zk.T @ (w[keep, None] * pr.Y[keep]))
        R[V] = pr.Y[V] - Z[V] @ beta
    return R


def brute_force_loo(Phi: np.ndarray, Y: np.ndarray, G: np.ndarray, mu: float, nu: float,
                    R: np.ndarray | None = None, sample_weight: np.ndarray | None = None
                    ) -> np.ndarray:
    """The LOO residuals of the Auto note's (N1) (penalties ``μ G`` and ``ν R``) by ``N`` refits
    (:func:`refit_residuals` with sets of one row); the shape of ``Y``."""
    pr = PenalizedLS(Phi, Y, G, R, sample_weight=sample_weight)
    out = refit_residuals(pr, [np.array([i]) for i in range(pr.N)], pr.weights(mu, nu))
    return out[:, 0] if np.ndim(Y) == 1 else out
