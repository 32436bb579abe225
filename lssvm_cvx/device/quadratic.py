r"""The composition core's closed form (squared loss, quadratic terms, free bias) and its exact
held-out residuals on any array namespace and device (issue 31, item 2), as functions with the
device checks: the augmented system of order ``2N + 1`` is
:class:`lssvm_cvx.linalg.quadratic.AugmentedSystem` itself, which takes its namespace from its
inputs (its device twin here was merged into it: issue 30, step 5); the derivation, the
leave-one-out residual ``r_i = μ_i / (√s_i Z_ii)``, the k-fold form ``r_V = S_V^{-½} Z_VV⁻¹ μ_V``
and the conditioning policy (a ridge on α below ``COND_WARN``, refinement against the exact
system; off NumPy a final relative residual above ``RESIDUAL_TOL`` is a one-line
:class:`~lssvm_cvx.exceptions.NumericalError`) are documented there.

What these functions add: the checks of a device computation (one namespace and device, float
dtypes, shapes, finite values, positive loss weights — a weight-0 point is supported by the CPU
path — and the memory the system needs against what the device has free), and for k-fold a
partition of the points.  For the RKHS norm alone (``P = cK``) :func:`lssvm_kfold_residuals`
computes the k-fold residuals from one Cholesky factor of order N (``K + cI`` is positive
definite where the augmented system of a near-singular RBF Gram and a small ``c`` is not
identifiable in α: at c = 1e-5 its folds' scores were 6 % off the refits'); the estimators use
:func:`lssvm_cvx.device.lssvm_fit` / :func:`lssvm_cvx.device.lssvm_loo_residuals` (one
Cholesky of order N) for it.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import InputError
from ..linalg.arrays import check_memory, float_dtype, namespace_of
from ..linalg.quadratic import AugmentedSystem
from .lssvm import device_lssvm_system

__all__ = ["augmented_fit", "augmented_loo_residuals", "augmented_kfold_residuals",
           "lssvm_kfold_residuals"]


def _checked(K: Any, s: Any, P: Any, y: Any, matrices: float) -> tuple[Any, Any, int]:
    xp, device = namespace_of(K, s, P, y)
    float_dtype(xp, K, s, P, y)
    n = int(K.shape[0])
    if K.ndim != 2 or tuple(K.shape) != (n, n) or tuple(P.shape) != (n, n):
        raise InputError(f"K and P must be square of the same order, got shapes "
                         f"{tuple(K.shape)} and {tuple(P.shape)}")
    if tuple(s.shape) != (n,) or tuple(y.shape) != (n,):
        raise InputError(f"s and y must be vectors of length {n}, got shapes {tuple(s.shape)} "
                         f"and {tuple(y.shape)}")
    if not all(bool(xp.all(xp.isfinite(a))) for a in (K, s, P, y)):
        raise InputError("K, s, P and y must be finite (NaN or inf found)")
    if not bool(xp.all(s > 0)):
        raise InputError("the loss weights s must be positive on a device (a weight-0 point "
                         "is supported by the CPU path)")
    # A (4 N × N), its LU factors (4), the ridged copy and its factors when needed (8), and for
    # the LOO diagonal the unit block and its solution (4): ``matrices`` N × N arrays
    check_memory(n, 8 if K.dtype == xp.float64 else 4, matrices, xp, device)
    return xp, device, n


def augmented_fit(K: Any, s: Any, P: Any, y: Any) -> tuple[Any, Any]:
    """``(α, b)`` of the squared loss with loss weights ``s`` and the quadratic penalty
    ``½ α'Pα`` on the Gram matrix ``K`` (module docstring), on the inputs' device.

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix.
    s : array of shape (n,)
        Positive loss weights.
    P : array of shape (n, n)
        The terms' weighted sum ``Σ_k w_k P_k`` (symmetric positive semidefinite).
    y : array of shape (n,)
        Targets.

    Returns
    -------
    alpha : array of shape (n,)
    b : 0-d array
    """
    _checked(K, s, P, y, 16.0)
    alpha, b = AugmentedSystem(K, s, P).solve(y)
    return alpha, b


def augmented_loo_residuals(K: Any, s: Any, P: Any, y: Any) -> Any:
    """Exact leave-one-out residuals ``μ_i / (√s_i Z_ii)`` (observation ``i`` leaves the loss;
    the basis and the terms keep it) of :func:`augmented_fit`'s model, on the inputs' device;
    the NumPy twin is :meth:`lssvm_cvx.linalg.quadratic.AugmentedSystem.loo`."""
    _checked(K, s, P, y, 20.0)
    return AugmentedSystem(K, s, P).loo(y)


def augmented_kfold_residuals(K: Any, s: Any, P: Any, y: Any, folds: Any) -> Any:
    """Exact held-out residuals ``r_V = S_V^{-½} Z_VV⁻¹ μ_V`` of :func:`augmented_fit`'s model
    for the folds ``V`` (each fold leaves the loss together; the basis and the terms keep its
    points), on the inputs' device; the NumPy twin is
    :meth:`lssvm_cvx.linalg.quadratic.AugmentedSystem.kfold`.

    Parameters
    ----------
    K, s, P, y : arrays
        As in :func:`augmented_fit`.
    folds : sequence of integer arrays
        Index sets (NumPy or the inputs' namespace) that partition ``0 .. n - 1``.

    Returns
    -------
    array of shape (n,)
        Entry ``i`` is the residual of point ``i`` with its fold held out.
    """
    _checked(K, s, P, y, 20.0)
    # a partition on every namespace (NumPy's AugmentedSystem.kfold allows points in no fold)
    return AugmentedSystem(K, s, P).kfold(y, folds, cover=True)


def lssvm_kfold_residuals(K: Any, y: Any, gamma: float, folds: Any) -> Any:
    """Exact held-out residuals of the LS-SVM (the RKHS norm alone, ``P = K/γ``) for the folds:
    with ``H = K + I/γ = LLᵀ``, ``h = H⁻¹1`` and ``C = H⁻¹ - hhᵀ / 1ᵀh`` (the α block of the
    bordered system's inverse), ``r_V = C_VV⁻¹ α_V`` — leave-one-out's ``α_i / C_ii`` for
    folds of one point.  One Cholesky factor and the columns of ``L⁻¹`` of each fold
    (:meth:`~lssvm_cvx.linalg.quadratic.RKHSSystem.kfold`), on the inputs' device.

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix.
    y : array of shape (n,)
        Targets.
    gamma : float
        The LS-SVM's γ (the RKHS norm's weight is ``1/γ``).
    folds : sequence of integer arrays
        Index sets (NumPy or the inputs' namespace) that partition ``0 .. n - 1``.

    Returns
    -------
    array of shape (n,)
    """
    # I, H, L and the columns of L⁻¹
    return device_lssvm_system(K, y, gamma, matrices=4.0).kfold(y, folds, cover=True)
