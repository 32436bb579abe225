r"""The random-Fourier-feature LS-SVM streamed over row blocks on any array namespace and device,
with the exact leave-one-out error of the approximate model over a whole γ grid (issue 31).

The model is the one of ``LSSVMRegressor(approximation="rff")``
(:mod:`lssvm_cvx.estimators.lssvm_approx`): the features of
:class:`~lssvm_cvx.kernels.features.RandomFourierMap`,
``φ(x) = √(2/m) cos(xᵀW + u)`` with ``W ~ N(0, 2/σ²)`` and ``u ~ U(0, 2π)`` (the same draws for
the same ``random_state``, made by NumPy and moved to the device), which approximate the RBF
kernel ``exp(-||x - z||²/σ²)`` (Rahimi & Recht, 2007), and the primal ridge with an
unpenalised bias

.. math::

   \min_{\theta, b}\ \tfrac12\|\theta\|^2 + \tfrac{\gamma}{2}\sum_i (y_i - \phi(x_i)^\top\theta - b)^2
   \iff (\tilde\Phi^\top\tilde\Phi + I/\gamma)\,\theta = \tilde\Phi^\top\tilde y,
   \quad b = \bar y - \bar\phi^\top\theta,

with ``Φ̃``, ``ỹ`` centred.  Its exact LOO residual is ``(y_i - ŷ_i) / (1 - h_i)`` with
``h_i = 1/N + φ̃_iᵀ(Φ̃ᵀΦ̃ + I/γ)⁻¹φ̃_i`` (the hat matrix of a ridge with an unpenalised
intercept is ``11ᵀ/N + Φ̃(Φ̃ᵀΦ̃ + I/γ)⁻¹Φ̃ᵀ``).

Two passes over the rows, as :func:`~lssvm_cvx.device.nystroem_loo_path` makes them:

1. the normal equations about a shift ``φ₀`` (the first block's feature means), accumulated in
   float64 whatever the features' dtype: ``G = Σ D_Bᵀ D_B``, ``Σ D_Bᵀ(y - y₀)``, ``Σ D_Bᵀ 1``
   with ``D_B = Φ_B - φ₀ᵀ``, so that ``Φ̃ᵀΦ̃ = G - N d̄ d̄ᵀ``; then one ``m × m``
   eigendecomposition ``Φ̃ᵀΦ̃ = Q S Qᵀ``;
2. ``Ψ_B = (Φ_B - φ̄ᵀ) Q``, from which every γ's predictions ``Ψ_B (c ⊙ w_γ)`` and leverages
   ``1/N + Ψ_B² w_γ`` come from two ``B × m × n_γ`` products (``c = QᵀΦ̃ᵀỹ``,
   ``w_γ = 1/(S + 1/γ)``).

The CPU path scores the LOO error on a seeded subsample of ``n_loo`` rows when ``N > n_loo``;
this path scores every row (the two agree for ``N <= n_loo``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError, InputError
from ..kernels.features import RandomFourierMap
from .arrays import check_memory, float_dtype, namespace_of, positive

__all__ = ["FourierFeatures", "RFFPath", "rff_loo_path"]


@dataclass
class FourierFeatures:
    """The random Fourier feature map on a device: ``φ(X) = scale · cos(X W + offset)``.

    Attributes
    ----------
    W : array of shape (d, m)
    offset : array of shape (m,)
    scale : float
        ``√(2/m)``.
    """

    W: Any
    offset: Any
    scale: float

    @classmethod
    def like(cls, fmap: RandomFourierMap, X: Any) -> FourierFeatures:
        """The NumPy map ``fmap`` moved to ``X``'s namespace, device and float dtype."""
        xp, device = namespace_of(X)
        dt = float_dtype(xp, X)
        return cls(xp.asarray(np.ascontiguousarray(fmap.W), dtype=dt, device=device),
                   xp.asarray(np.ascontiguousarray(fmap.offset), dtype=dt, device=device),
                   float(fmap.scale))

    @property
    def n_features(self) -> int:
        """Number of features ``m``."""
        return int(self.W.shape[1])

    def __call__(self, X: Any) -> Any:
        """``φ(X)`` of shape (rows, m), in ``X``'s namespace."""
        xp, _ = namespace_of(X, self.W)
        return self.scale * xp.cos(X @ self.W + self.offset[None, :])


@dataclass
class RFFPath:
    """What :func:`rff_loo_path` returns (arrays in the inputs' namespace and device).

    Attributes
    ----------
    gammas : list of float
        The γ grid.
    scores : array of shape (n_gammas,)
        Mean squared exact LOO residual of the approximate model at every γ (all N rows).
    gamma : float
        The γ of the smallest score.
    coef : array of shape (m,)
        ``θ`` at ``gamma``: ``f(x) = φ(x)ᵀθ + b``.
    intercept : 0-d array
        ``b`` at ``gamma``.
    """

    gammas: list[float]
    scores: Any
    gamma: float
    coef: Any
    intercept: Any

    def predict(self, X: Any, features: FourierFeatures, *, block_rows: int = 65536) -> Any:
        """``φ(X)ᵀθ + b`` for the rows of ``X`` (same namespace and device)."""
        xp, _ = namespace_of(X, self.coef)
        n = int(X.shape[0])
        parts = [features(X[s:min(s + block_rows, n), ...]) @ self.coef
                 for s in range(0, n, block_rows)]
        return xp.concat(parts) + self.intercept


def _blocks(n: int, block_rows: int) -> list[tuple[int, int]]:
    return [(s, min(s + block_rows, n)) for s in range(0, n, block_rows)]


def rff_loo_path(X: Any, y: Any, features: FourierFeatures, *, gammas: Any,
                 block_rows: int = 65536) -> RFFPath:
    """Fit the random-Fourier-feature LS-SVM at the γ of the smallest exact LOO error over
    ``gammas``, in two streamed passes over the rows (module docstring).

    Parameters
    ----------
    X : array of shape (n, d)
        Rows, float32 or float64 (the features are computed in this dtype; the normal
        equations and everything after them in float64).
    y : array of shape (n,)
    features : FourierFeatures
        The feature map on the inputs' device (:meth:`FourierFeatures.like`).
    gammas : sequence of float
        The γ grid.
    block_rows : int, default=65536
        Rows per block (temporary memory ≈ 3 ``block_rows × m`` arrays).

    Returns
    -------
    RFFPath

    Raises
    ------
    InputError
        Shapes that do not match, non-finite values, a block that does not fit in memory.
    HyperparameterError
        An empty or non-positive γ grid.
    """
    xp, device = namespace_of(X, y, features.W)
    dt = float_dtype(xp, X, y)
    gs = [positive(g) for g in gammas]
    if not gs:
        raise HyperparameterError("gammas must hold at least one value")
    if X.ndim != 2 or X.shape[1] != features.W.shape[0]:
        raise InputError(f"X must be a matrix with {features.W.shape[0]} columns (the feature "
                         f"map's), got shape {tuple(X.shape)}")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y must be a vector of length {X.shape[0]} (the rows of X), got shape "
                         f"{tuple(y.shape)}")
    if not (bool(xp.all(xp.isfinite(X))) and bool(xp.all(xp.isfinite(y)))):
        raise InputError("X and y must be finite (NaN or inf found)")
    n, m = int(X.shape[0]), features.n_features
    check_memory(min(block_rows, n), 8, 3.0, xp, device, cols=m)
    f64 = xp.float64

    # pass 1: the normal equations (float64 accumulation) about the first block's means
    G = xp.zeros((m, m), dtype=f64, device=device)
    fy = xp.zeros((m,), dtype=f64, device=device)
    f1 = xp.zeros((m,), dtype=f64, device=device)
    ysum = 0.0
    phi0: Any = None
    y0 = 0.0
    for a, b in _blocks(n, block_rows):
        FB = features(X[a:b, ...])
        if a == 0:
            phi0, y0 = xp.mean(FB, axis=0), float(xp.mean(xp.astype(y[a:b], f64)))
        DB, eB = FB - phi0[None, :], y[a:b] - y0
        G = G + xp.astype(xp.matrix_transpose(DB) @ DB, f64)
        fy = fy + xp.astype(xp.matrix_transpose(DB) @ eB, f64)
        f1 = f1 + xp.astype(xp.sum(DB, axis=0), f64)
        ysum += float(xp.sum(xp.astype(eB, f64)))
    dbar, ebar = f1 / n, ysum / n
    phibar, ybar = xp.astype(phi0, f64) + dbar, y0 + ebar
    A = G - n * dbar[:, None] * dbar[None, :]
    S, Q = xp.linalg.eigh((A + xp.matrix_transpose(A)) / 2)
    S = xp.clip(S, 0.0, None)
    c = xp.matrix_transpose(Q) @ (fy - n * ebar * dbar)         # Qᵀ Φ̃ᵀ ỹ
    W = 1.0 / (S[:, None] + 1.0 / xp.asarray(gs, dtype=f64, device=device)[None, :])   # m × n_γ
    CW = c[:, None] * W

    # pass 2: every γ's predictions and leverages
    Q_, CW_, W_, pb = (xp.astype(a, dt) for a in (Q, CW, W, phibar))
    sse = xp.zeros((len(gs),), dtype=f64, device=device)
    for a, b in _blocks(n, block_rows):
        Psi = (features(X[a:b, ...]) - pb[None, :]) @ Q_
        fit = xp.astype(Psi @ CW_, f64) + ybar
        lev = xp.astype((Psi * Psi) @ W_, f64) + 1.0 / n
        r = (xp.astype(y[a:b], f64)[:, None] - fit) / (1.0 - lev)
        sse = sse + xp.sum(r * r, axis=0)
    scores = sse / n
    j = int(xp.argmin(scores))
    coef = Q @ CW[:, j]
    return RFFPath(gammas=gs, scores=scores, gamma=gs[j], coef=xp.astype(coef, dt),
                   intercept=xp.astype(ybar - xp.sum(phibar * coef), dt))
