"""Held-out residuals and their scores: the leave-one-out formulas and one vocabulary of
criteria for every NumPy engine (issue 30, item 2).

The three exact leave-one-out forms of a linear smoother, each written once here:

- the **leverage form** ``r_i / (1 - h_ii)`` (:func:`leverage_residuals`): a fit's residual
  over one minus its hat-matrix diagonal (the primal engines, the kernel choice, the weighted
  ``P = cM`` path);
- the **diagonal form** ``α_i / (C⁻¹)_ii`` (:func:`diagonal_residuals`): a dual solution over
  the diagonal of the inverse system (AReg paper eq. 2; Cawley & Talbot 2004), the LS-SVM and
  the augmented systems;
- the **spectral path** (:func:`path_residuals`): the leverage form for every value of one
  weight at once, from an eigendecomposition ``A(w)⁻¹ = V diag(W[:, k]) V'``.

The array-API engines of :mod:`lssvm_cvx.device` write the same three forms on their
namespace (that layer does not import this one).
"""

from __future__ import annotations

import numpy as np

from ..exceptions import HyperparameterError

__all__ = ["SCORES", "ALIASES", "loo_score", "leverage_residuals", "diagonal_residuals",
           "path_residuals"]

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


def leverage_residuals(residuals: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Exact leave-one-out residuals ``r_i / (1 - h_ii)`` of a linear smoother.

    Parameters
    ----------
    residuals : numpy.ndarray of shape (N,) or (N, T)
        Residuals ``y - ŷ`` of the fit on all the data.
    h : numpy.ndarray of shape (N,)
        The hat-matrix diagonal (leverages) of the fit.

    Returns
    -------
    numpy.ndarray
        The held-out residuals ``y_i - f^{(-i)}(x_i)``, the shape of ``residuals``.
    """
    h = np.asarray(h)
    return residuals / (1.0 - (h[:, None] if np.ndim(residuals) > h.ndim else h))


def diagonal_residuals(alpha: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Exact leave-one-out residuals ``α_i / (C⁻¹)_ii`` of a dual linear system (AReg paper
    eq. 2; Cawley & Talbot 2004).

    Parameters
    ----------
    alpha : numpy.ndarray of shape (N,) or (N, T)
        The dual solution (support values) of the system on all the data.
    d : numpy.ndarray of shape (N,)
        The matching diagonal of the inverse of the (bordered) system matrix.

    Returns
    -------
    numpy.ndarray
        The held-out residuals, the shape of ``alpha``.
    """
    d = np.asarray(d)
    return alpha / (d[:, None] if np.ndim(alpha) > d.ndim else d)


def path_residuals(Yc: np.ndarray, P: np.ndarray, q: np.ndarray, W: np.ndarray,
                   h: np.ndarray) -> np.ndarray:
    """Exact leave-one-out residuals for every value of one weight, from one
    eigendecomposition ``A(w_k)⁻¹ = V diag(W[:, k]) V'`` of a centred penalised least-squares
    system (the leverage form of :func:`leverage_residuals` at every ``k``).

    Parameters
    ----------
    Yc : numpy.ndarray of shape (rows, T)
        Centred targets of the rows.
    P : numpy.ndarray of shape (rows, m)
        The rows' centred design in the eigenbasis, ``B V``.
    q : numpy.ndarray of shape (m, T)
        The right-hand side in the eigenbasis, ``V' B_all' y_c`` (scaled as the fitted values
        ``P (q ∘ W)`` need).
    W : numpy.ndarray of shape (m, V)
        The spectral weights, one column per weight value.
    h : numpy.ndarray of shape (rows, V)
        The leverages at every weight value.

    Returns
    -------
    numpy.ndarray of shape (rows, T, V)
        The held-out residuals per row, target column and weight value.
    """
    R = np.empty((P.shape[0], Yc.shape[1], W.shape[1]))
    for t in range(Yc.shape[1]):
        R[:, t] = (Yc[:, t:t + 1] - P @ (q[:, t:t + 1] * W)) / (1.0 - h)
    return R
