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

Two passes over the rows (:func:`~lssvm_cvx.device.streamed.ridge_loo_path`, the CPU engine's
streamed form, with the CPU path's shift: none, the features' mean being ≈ 0): the normal
equations, one ``m × m`` eigendecomposition, then every γ's leverages and residuals.

The CPU path scores the LOO error on a seeded subsample of ``n_loo`` rows when ``N > n_loo``;
this path scores every row (the two agree for ``N <= n_loo``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..kernels.features import RandomFourierMap
from ..linalg.arrays import float_dtype, namespace_of
from .streamed import DeviceFeatures, StreamedPath, check_rows, ridge_loo_path

__all__ = ["FourierFeatures", "RFFPath", "rff_loo_path"]


@dataclass
class FourierFeatures(DeviceFeatures):
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
class RFFPath(StreamedPath):
    """What :func:`rff_loo_path` returns (arrays in the inputs' namespace and device): the
    fields of :class:`~lssvm_cvx.device.streamed.StreamedPath`, with ``coef`` the ``θ`` of
    ``f(x) = φ(x)ᵀθ + b`` (shape ``(m,)``) in the inputs' float dtype."""

    def predict(self, X: Any, features: FourierFeatures, *, block_rows: int = 65536) -> Any:
        """``φ(X)ᵀθ + b`` for the rows of ``X`` (same namespace and device)."""
        return features.decision(X, self.coef, self.intercept, block_rows=block_rows)


def rff_loo_path(X: Any, y: Any, features: FourierFeatures, *, gammas: Any,
                 block_rows: int = 65536, criterion: str = "mse") -> RFFPath:
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
    criterion : {"mse", "gcv"}, default="mse"
        The score of the γ path: the mean squared exact LOO residual, or generalised
        cross-validation (:func:`~lssvm_cvx.device.streamed.ridge_loo_path`).

    Returns
    -------
    RFFPath

    Raises
    ------
    InputError, HyperparameterError
        As :func:`~lssvm_cvx.device.streamed.check_rows`; ``X`` of other columns than ``W``.
    """
    xp, device = namespace_of(X, y, features.W)
    dt = float_dtype(xp, X, y)
    if X.ndim != 2 or X.shape[1] != features.W.shape[0]:
        raise InputError(f"X must be a matrix with {features.W.shape[0]} columns (the feature "
                         f"map's), got shape {tuple(X.shape)}")
    gs = check_rows(xp, device, X, y, gammas, block_rows=block_rows, cols=features.n_features)
    path = ridge_loo_path(X, y, features, gs,
                          xp.zeros((features.n_features,), dtype=xp.float64, device=device),
                          block_rows=block_rows, criterion=criterion)
    return RFFPath(gammas=gs, scores=path.scores, gamma=path.gamma,
                   coef=xp.astype(path.coef, dt), intercept=xp.astype(path.intercept, dt))
