r"""The Nyström LS-SVM streamed over row blocks on any array namespace and device, with the
exact leave-one-out error of the approximate model over a whole γ grid (issue 31).

The model is the one of ``LSSVMRegressor(approximation="nystroem")``
(:mod:`lssvm_cvx.estimators.lssvm_approx`): the features ``φ(x) = k(x, Z) P`` with
``P = V s^{-1/2}`` over the eigenpairs of ``K_ZZ`` kept by
:func:`~lssvm_cvx.kernels.psd.psd_eigh` (``s > 10⁻¹² s_max``), and the primal ridge with an
unpenalised bias

.. math::

   \min_{\theta, b}\ \tfrac12\|\theta\|^2 + \tfrac{\gamma}{2}\sum_i (y_i - \phi(x_i)^\top\theta - b)^2
   \iff (\tilde\Phi^\top\tilde\Phi + I/\gamma)\,\theta = \tilde\Phi^\top\tilde y,
   \quad b = \bar y - \bar\phi^\top\theta,

with ``Φ̃``, ``ỹ`` centred.  Its exact LOO residual is ``(y_i - ŷ_i) / (1 - h_i)`` with
``h_i = 1/N + φ̃_iᵀ(Φ̃ᵀΦ̃ + I/γ)⁻¹φ̃_i``.

Two passes over the rows, each one kernel block ``k(X_B, Z)`` projected on ``P``
(:func:`~lssvm_cvx.device.streamed.ridge_loo_path`, the CPU engine's streamed form, shifted by
the centres' mean feature as on the CPU): the normal equations, one ``r × r``
eigendecomposition, then every γ's leverages and residuals.

The coefficients are returned in the kernel basis: ``f(x) = k(x, Z) β + b`` with ``β = P θ``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..exceptions import InputError, NotPSDError
from ..kernels.psd import psd_eigh
from ..linalg.arrays import float_dtype, namespace_of
from .lssvm import rbf_gram
from .streamed import DeviceFeatures, StreamedPath, check_rows, ridge_loo_path

__all__ = ["NystroemFeatures", "NystroemPath", "nystroem_loo_path"]


@dataclass
class NystroemFeatures(DeviceFeatures):
    """The Nyström feature map of the RBF kernel on a device: ``φ(x) = k(x, Z) P`` in float64,
    ``P = V s^{-1/2}`` over the eigenpairs of ``K_ZZ`` that
    :func:`~lssvm_cvx.kernels.psd.psd_eigh` keeps (``s > PSD_FACTOR_RTOL · s_max``, in
    descending order) — :class:`~lssvm_cvx.kernels.features.NystroemMap`'s features, computed
    on the centres' device.

    Attributes
    ----------
    centres : array of shape (m, d)
        The landmarks ``Z``.
    projection : array of shape (m, r)
        ``P``, float64.
    sigma2 : float
        RBF width σ².
    """

    centres: Any
    projection: Any
    sigma2: float

    @classmethod
    def fit(cls, centres: Any, sigma2: float) -> NystroemFeatures:
        """The map of the centres ``Z`` (any namespace and device) at width ``sigma2``.

        Raises
        ------
        NotPSDError
            When ``K_ZZ`` has no positive eigenvalue.
        """
        xp, _ = namespace_of(centres)
        s, V = psd_eigh(rbf_gram(xp.astype(centres, xp.float64), sigma2=sigma2))
        if int(s.shape[0]) == 0:
            raise NotPSDError("the Gram of the Nyström centres has no positive eigenvalue")
        return cls(centres, V / xp.sqrt(s)[None, :], float(sigma2))

    @property
    def n_features(self) -> int:
        """Number of features ``r`` (kept eigenpairs)."""
        return int(self.projection.shape[1])

    def __call__(self, X: Any) -> Any:
        """``φ(X)`` of shape (rows, r), float64 (the kernel block in ``X``'s dtype)."""
        xp, _ = namespace_of(X, self.centres)
        return xp.astype(rbf_gram(X, self.centres, sigma2=self.sigma2, block_rows=X.shape[0]),
                         xp.float64) @ self.projection

@dataclass
class NystroemPath(StreamedPath):
    """What :func:`nystroem_loo_path` returns (arrays in the inputs' namespace and device).

    Attributes
    ----------
    gammas, scores, gamma, intercept :
        As :class:`~lssvm_cvx.device.streamed.StreamedPath`'s.
    coef : array of shape (m,)
        ``β`` at ``gamma``: ``f(x) = k(x, Z) β + b``, in the inputs' float dtype.
    rank : int
        Eigenpairs of ``K_ZZ`` kept (the number of features ``r``).
    """

    rank: int = 0

    def predict(self, X: Any, centres: Any, *, sigma2: float, block_rows: int = 65536) -> Any:
        """``k(X, Z) β + b`` for the rows of ``X`` (same namespace and device)."""
        xp, _ = namespace_of(X, centres, self.coef)
        n = int(X.shape[0])
        parts = [rbf_gram(X[s:min(s + block_rows, n), ...], centres, sigma2=sigma2) @ self.coef
                 for s in range(0, n, block_rows)]
        return xp.concat(parts) + self.intercept


def nystroem_loo_path(X: Any, y: Any, centres: Any, *, sigma2: float, gammas: Any,
                      block_rows: int = 65536, criterion: str = "mse") -> NystroemPath:
    """Fit the Nyström LS-SVM (RBF kernel, centres ``Z``) at the γ of the smallest exact LOO
    error over ``gammas``, in two streamed passes over the rows (module docstring).

    Parameters
    ----------
    X : array of shape (n, d)
        Rows, float32 or float64 (the kernel blocks are computed in this dtype; their
        projection, the normal equations and everything after them in float64).
    y : array of shape (n,)
    centres : array of shape (m, d)
        The landmarks ``Z`` (for example ``m`` rows of ``X`` drawn at random).
    sigma2 : float
        RBF width σ².
    gammas : sequence of float
        The γ grid.
    block_rows : int, default=65536
        Rows per block (temporary memory ≈ 3 ``block_rows × m`` arrays).
    criterion : {"mse", "gcv"}, default="mse"
        The score of the γ path: the mean squared exact LOO residual, or generalised
        cross-validation (:func:`~lssvm_cvx.device.streamed.ridge_loo_path`).

    Returns
    -------
    NystroemPath

    Raises
    ------
    InputError, HyperparameterError
        As :func:`~lssvm_cvx.device.streamed.check_rows`; centres of other columns than ``X``.
    NotPSDError
        When ``K_ZZ`` has no positive eigenvalue.
    """
    xp, device = namespace_of(X, y, centres)
    dt = float_dtype(xp, X, y, centres)
    if X.ndim != 2 or centres.ndim != 2 or X.shape[1] != centres.shape[1]:
        raise InputError(f"X and centres must be matrices with the same columns, got shapes "
                         f"{tuple(X.shape)} and {tuple(centres.shape)}")
    gs = check_rows(xp, device, X, y, gammas, block_rows=block_rows, cols=int(centres.shape[0]))
    fmap = NystroemFeatures.fit(centres, sigma2)
    path = ridge_loo_path(X, y, fmap, gs, xp.mean(fmap(centres), axis=0),
                          block_rows=block_rows, criterion=criterion)
    return NystroemPath(gammas=gs, scores=path.scores, gamma=path.gamma,
                        coef=xp.astype(fmap.projection @ path.coef, dt),
                        intercept=xp.astype(path.intercept, dt), rank=fmap.n_features)
