r"""The composition core's closed form (squared loss, quadratic terms, free bias) and its exact
leave-one-out residuals on any array namespace and device (issue 31, item 2): the device twin of
:class:`lssvm_cvx.linalg.quadratic.AugmentedSystem`.

The problem, with ``S = diag(s)`` the loss weights and ``P = Σ_k w_k P_k`` the terms' matrices::

    min_{α, b}  ½ (y - Kα - b1)' S (y - Kα - b1) + ½ α'Pα.

With ``μ = S^{½}(Kα + b1 - y)`` its optimality conditions are the symmetric indefinite system
of order ``2N + 1`` (the NumPy module's eq. (A); it does not square the condition number of
``K`` as the normal equations would)::

    [ P      0       K S^½ ] [α]   [   0    ]
    [ 0      0      1'S^½  ] [b] = [   0    ]
    [ S^½K  S^½1     -I    ] [μ]   [ S^½ y  ]

solved here by one LU factorisation (``linalg.solve`` of the namespace).  The leave-one-out
residual (observation ``i`` leaves the loss; basis and terms stay) is ``r_i = μ_i / (√s_i
Z_ii)`` with ``Z`` the ``μμ`` block of the inverse, whose diagonal comes from the same solve
with the ``N`` unit columns of the ``μ`` block appended to the right-hand side.  Held out by
folds (a set ``V`` leaves the loss together), ``r_V = S_V^{-½} Z_VV⁻¹ μ_V``: the same ``Z``, one
small solve per fold (the NumPy twin: ``AugmentedSystem.kfold``).  For the RKHS norm alone
(``P = cK``) :func:`lssvm_kfold_residuals` does the same from one Cholesky factor of order N
(``K + cI`` is positive definite where the augmented system of a near-singular RBF Gram and a
small ``c`` is not identifiable in α: at c = 1e-5 its folds' scores were 6 % off the refits').

Conditioning, as on the CPU: the system is singular exactly when α is not identifiable (some
``α ≠ 0`` with ``Pα = 0`` and ``Kα + b1 = 0``).  Its reciprocal condition is estimated from the
LU factors (Hager's 1-norm estimator of ``||A⁻¹||₁``, a few solves, as LAPACK's ``dgecon``);
below :data:`lssvm_cvx.linalg.cholesky.COND_WARN` a ridge
``δ = JITTER · max|A|`` is added to the α block, which picks the small-norm α among the
equivalent ones, and the solution is refined against the exact system (at most
:data:`lssvm_cvx.linalg.quadratic.REFINE_STEPS` steps, while the residual halves) — the NumPy
path's policy and its constants, imported from there.  A final relative residual above
:data:`RESIDUAL_TOL` is a one-line :class:`~lssvm_cvx.exceptions.NumericalError` naming the CPU
path.  When every term is the RKHS
norm and all weights are one, the system is the LS-SVM's (``P = cK``, γ = 1/c) and the estimators
use :func:`lssvm_cvx.device.lssvm_fit` / :func:`lssvm_cvx.device.lssvm_loo_residuals` (one
Cholesky of order N) instead.
"""

from __future__ import annotations

from typing import Any

from array_api_compat import device as device_of

from ..exceptions import InputError, NumericalError
from ..linalg.cholesky import COND_WARN
from ..linalg.quadratic import JITTER, REFINE_STEPS
from ..linalg.scores import block_residuals, diagonal_residuals
from .arrays import check_memory, float_dtype, namespace_of, solve_triangular
from .lssvm import lssvm_factor

__all__ = ["augmented_fit", "augmented_loo_residuals", "augmented_kfold_residuals",
           "lssvm_kfold_residuals", "RESIDUAL_TOL"]

#: largest relative residual ``||A x - r|| / ||r||`` of the device solve accepted
RESIDUAL_TOL = 1e-8


class _LU:
    """LU factors of ``A`` in its namespace (PyTorch, CuPy, NumPy through their ``lu_factor``;
    any other array-API namespace solves with ``linalg.solve`` each time)."""

    def __init__(self, xp: Any, A: Any) -> None:
        import array_api_compat as aac

        self.xp, self.A = xp, A
        if aac.is_torch_namespace(xp):
            import torch

            lu, piv = torch.linalg.lu_factor(A)
            self._solve = lambda B: torch.linalg.lu_solve(lu, piv, B)
        elif aac.is_cupy_namespace(xp):
            from cupyx.scipy.linalg import lu_factor, lu_solve

            f = lu_factor(A)
            self._solve = lambda B: lu_solve(f, B)
        elif aac.is_numpy_namespace(xp):
            from scipy.linalg import lu_factor, lu_solve

            f = lu_factor(A, check_finite=False)
            self._solve = lambda B: lu_solve(f, B, check_finite=False)
        else:
            self._solve = lambda B: xp.linalg.solve(A, B)

    def solve(self, B: Any) -> Any:
        return self._solve(B)

    def rcond(self) -> float:
        """``1 / (||A||₁ ||A⁻¹||₁)`` with Hager's estimator of ``||A⁻¹||₁`` (``A`` symmetric, so
        ``A⁻ᵀ = A⁻¹``): at most five pairs of solves."""
        xp, A = self.xp, self.A
        m = int(A.shape[0])
        x = xp.full((m, 1), 1.0 / m, dtype=A.dtype, device=device_of(A))
        est = 0.0
        for _ in range(5):
            y = self.solve(x)
            if not bool(xp.all(xp.isfinite(y))):
                return 0.0
            est = float(xp.sum(xp.abs(y)))
            z = self.solve(xp.sign(y))
            j = int(xp.argmax(xp.abs(z[:, 0])))
            if float(xp.abs(z[j, 0])) <= float(xp.sum(z * x)):
                break
            x = xp.zeros_like(x)
            x[j, 0] = 1.0
        anorm = float(xp.max(xp.sum(xp.abs(A), axis=0)))
        return 1.0 / (anorm * est) if anorm * est > 0 else 0.0


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


def _system(xp: Any, device: Any, K: Any, s: Any, P: Any) -> Any:
    """The matrix of the augmented system (module docstring), order ``2N + 1``."""
    n = int(K.shape[0])
    r = xp.sqrt(s)
    SK = r[:, None] * K                                   # S^½ K
    z1 = xp.zeros((n, 1), dtype=K.dtype, device=device)
    top = xp.concat([P, z1, xp.matrix_transpose(SK)], axis=1)
    mid = xp.concat([xp.zeros((1, n + 1), dtype=K.dtype, device=device), r[None, :]], axis=1)
    bot = xp.concat([SK, r[:, None], -xp.eye(n, dtype=K.dtype, device=device)], axis=1)
    return xp.concat([top, mid, bot], axis=0)


def _solve(xp: Any, device: Any, K: Any, s: Any, P: Any, y: Any, *, unit_mu: bool) -> Any:
    """The solution of the augmented system for ``y`` (first column) and, with ``unit_mu``, the
    ``N`` columns of the μμ block of the inverse (from the same factors; with the ridge, refined
    together with the solution, as :meth:`lssvm_cvx.linalg.quadratic.AugmentedSystem.Z` does:
    from the ridged factors alone the LOO residuals are the ridged model's, 2 % off the exact
    system's on an ill-conditioned GraphLaplacian case in ``tests/test_device_regularized.py``)."""
    n = int(K.shape[0])
    A = _system(xp, device, K, s, P)
    rhs = xp.concat([xp.zeros((n + 1,), dtype=K.dtype, device=device), xp.sqrt(s) * y])[:, None]
    lu = _LU(xp, A)
    jitter = 0.0
    if lu.rcond() < COND_WARN:      # α not identifiable: ridge on α, then refinement
        jitter = JITTER * max(float(xp.max(xp.abs(A))), 1.0)
        ridge = xp.concat([xp.full((n,), jitter, dtype=K.dtype, device=device),
                           xp.zeros((n + 1,), dtype=K.dtype, device=device)])
        lu = _LU(xp, A + _diag(xp, ridge))
    if unit_mu:       # the μ block's unit columns: the μμ block of A⁻¹ for the LOO diagonal
        rhs = xp.concat([rhs, xp.concat([xp.zeros((n + 1, n), dtype=K.dtype, device=device),
                                         xp.eye(n, dtype=K.dtype, device=device)], axis=0)],
                        axis=1)
    x = lu.solve(rhs)

    def residual(v: Any) -> float:
        den = float(xp.max(xp.abs(rhs))) + float(xp.max(xp.sum(xp.abs(A), axis=0))) * float(
            xp.max(xp.abs(v)))
        return float(xp.max(xp.abs(rhs - A @ v))) / max(den, 1e-300)

    res = residual(x)
    if jitter:
        # iterated Tikhonov against the exact system, every column (the fitted values, hence μ
        # and the μμ block, are identifiable even when α is not: refining the unit columns too
        # gives the exact system's LOO, which the ridged factors alone do not)
        for _ in range(REFINE_STEPS):
            x_new = x + lu.solve(rhs - A @ x)
            res_new = residual(x_new)
            if not res_new < 0.5 * res:
                break
            x, res = x_new, res_new
    if not (bool(xp.all(xp.isfinite(x))) and res <= RESIDUAL_TOL):
        raise NumericalError(
            f"the augmented system of the quadratic terms is singular on the device (relative "
            f"residual {res:.2g} > {RESIDUAL_TOL:g} with a ridge {jitter:.1e} on α); fit on the "
            "CPU (convert the inputs to NumPy), which falls back to the pseudo-inverse")
    return x


def _diag(xp: Any, v: Any) -> Any:
    """The diagonal matrix of the vector ``v`` (the array API has no ``diag``)."""
    n = int(v.shape[0])
    return xp.eye(n, dtype=v.dtype, device=device_of(v)) * v[None, :]


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
    xp, device, n = _checked(K, s, P, y, 16.0)
    X = _solve(xp, device, K, s, P, y, unit_mu=False)
    return X[:n, 0], X[n, 0]


def augmented_loo_residuals(K: Any, s: Any, P: Any, y: Any) -> Any:
    """Exact leave-one-out residuals ``μ_i / (√s_i Z_ii)`` (observation ``i`` leaves the loss;
    the basis and the terms keep it) of :func:`augmented_fit`'s model, on the inputs' device;
    the NumPy twin is :meth:`lssvm_cvx.linalg.quadratic.AugmentedSystem.loo`."""
    xp, device, n = _checked(K, s, P, y, 20.0)
    X = _solve(xp, device, K, s, P, y, unit_mu=True)
    mu = X[n + 1:, 0]
    Z = X[n + 1:, 1:]
    return diagonal_residuals(mu, xp.sqrt(s) * xp.linalg.diagonal(Z))


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
    xp, device, n = _checked(K, s, P, y, 20.0)
    X = _solve(xp, device, K, s, P, y, unit_mu=True)
    mu, Z = X[n + 1:, 0], X[n + 1:, 1:]
    return block_residuals(mu, folds, lambda V: xp.take(xp.take(Z, V, axis=0), V, axis=1),
                           xp.sqrt(s), cover=True)


def lssvm_kfold_residuals(K: Any, y: Any, gamma: float, folds: Any) -> Any:
    """Exact held-out residuals of the LS-SVM (the RKHS norm alone, ``P = K/γ``) for the folds:
    with ``H = K + I/γ = LLᵀ``, ``h = H⁻¹1`` and ``C = H⁻¹ - hhᵀ / 1ᵀh`` (the α block of the
    bordered system's inverse), ``r_V = C_VV⁻¹ α_V`` — leave-one-out's ``α_i / C_ii`` for
    folds of one point.  One Cholesky factor and ``L⁻¹``, on the inputs' device.

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
    xp, device = namespace_of(K, y)
    f = lssvm_factor(K, y, gamma, matrices=4.0)                # I, H, L and L⁻¹
    n = int(K.shape[0])
    Li = solve_triangular(xp, f.L, xp.eye(n, dtype=K.dtype, device=device))   # H⁻¹ = L⁻ᵀL⁻¹

    def block(V: Any) -> Any:                                  # C_VV
        W, hV = xp.take(Li, V, axis=1), xp.take(f.h, V)
        return xp.matrix_transpose(W) @ W - (hV[:, None] * hV[None, :]) / f.s

    return block_residuals(f.alpha, folds, block, cover=True)
