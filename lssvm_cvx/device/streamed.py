r"""The streamed γ path behind the approximate LS-SVMs on a device (issue 31): the primal
ridge with an unpenalised bias on features ``φ(x)`` formed block by block (the Nyström
features ``k(x, Z) P`` of :mod:`.nystroem`; the random Fourier features of :mod:`.rff`), and
its exact leave-one-out error over a whole γ grid.

.. math::

   \min_{\theta, c}\ \tfrac12\|\theta\|^2 + \tfrac{\gamma}{2}\sum_i (y_i - \phi(x_i)^\top\theta - c)^2
   \iff (\tilde\Phi^\top\tilde\Phi + I/\gamma)\,\theta = \tilde\Phi^\top\tilde y,
   \quad c = \bar y - \bar\phi^\top\theta,

with ``Φ̃``, ``ỹ`` centred; the exact LOO residual is ``(y_i - ŷ_i) / (1 - h_i)`` with
``h_i = 1/N + φ̃_iᵀ(Φ̃ᵀΦ̃ + I/γ)⁻¹φ̃_i`` (the hat matrix of a ridge with an unpenalised
intercept is ``11ᵀ/N + Φ̃(Φ̃ᵀΦ̃ + I/γ)⁻¹Φ̃ᵀ``).

This is problem (N1) of :mod:`lssvm_cvx.linalg.penalized` with one identity penalty named
``ridge``, ``ν ρ = 1/(γN)`` — the CPU approximations' model
(:mod:`lssvm_cvx.estimators.lssvm_approx`) — so the path runs on the CPU engine's streamed
form, :class:`~lssvm_cvx.linalg.streaming.StreamingPenalizedLS` over an
:class:`~lssvm_cvx.linalg.streaming.ArraySource` of the device arrays (issue 30, step 5: the
two-pass solver that lived here was a third copy of its normal equations and of
:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.path`): one pass over the row blocks for the
normal equations about a shift (in float64 whatever the features' dtype), one ``m × m``
eigendecomposition, one pass for every γ's leverages and residuals, and one Cholesky solve at
the chosen γ.  Without the shift, ``Σ φ_Bᵀφ_B - N φ̄ φ̄ᵀ`` cancels most digits when the kernel
values sit close to their means (wide RBF widths): 2.8e-6 relative between two correct float64
runs (PyTorch and NumPy) of the device benchmark's N = 2000 Nyström problem, against 1e-10
with it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError, InputError
from ..linalg.arrays import check_finite, check_memory, namespace_of, to_numpy
from ..linalg.engine import RKHS, decompose
from ..linalg.streaming import ArraySource
from .arrays import positive

__all__ = ["DeviceFeatures", "StreamedPath", "check_rows", "ridge_loo_path"]


class DeviceFeatures:
    """A feature map on a device (``n_features`` and ``__call__(X_block)``, the random Fourier
    and Nyström maps): the model ``f(x) = φ(x)ᵀθ + b`` of the approximate LS-SVMs, which fit
    through :func:`lssvm_cvx.estimators.lssvm_approx.fit_approximate` as on the CPU."""

    def decision(self, X: Any, coef: Any, intercept: Any, *, block_rows: int = 65536) -> Any:
        """``φ(X)ᵀθ + b`` for the rows of ``X`` (``θ = coef``, ``b = intercept``), the features
        formed ``block_rows`` rows at a time, in ``X``'s namespace and on its device (in
        ``coef``'s dtype)."""
        xp, _ = namespace_of(X, coef)
        n = int(X.shape[0])
        parts = []
        for s in range(0, n, block_rows):
            F = self(X[s:min(s + block_rows, n), ...])      # type: ignore[operator]
            parts.append((F if F.dtype == coef.dtype else xp.astype(F, coef.dtype)) @ coef)
        return xp.concat(parts) + intercept

    def to_numpy(self) -> DeviceFeatures:
        """The same map with NumPy arrays (a fitted model's CPU copy)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        return dataclasses.replace(self, **{k: to_numpy(v) for k, v in values.items()  # type: ignore[type-var]
                                            if not isinstance(v, (int, float))})


def check_rows(xp: Any, device: Any, X: Any, y: Any, gammas: Any, *, block_rows: int,
               cols: int) -> list[float]:
    """The checks both approximate paths make of their rows and γ grid, before any pass: a
    non-empty positive γ grid, ``y`` of one value per row of ``X``, finite values, and a block
    of ``block_rows × cols`` features that fits in the device's memory (three such arrays).

    Returns
    -------
    list of float
        The γ grid.

    Raises
    ------
    HyperparameterError
        An empty or non-positive γ grid.
    InputError
        Shapes that do not match, non-finite values, a block that does not fit in memory.
    """
    gs = [positive(g) for g in gammas]
    if not gs:
        raise HyperparameterError("gammas must hold at least one value")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y must be a vector of length {X.shape[0]} (the rows of X), got shape "
                         f"{tuple(y.shape)}")
    check_finite(xp, "X and y", X, y)
    check_memory(min(block_rows, int(X.shape[0])), 8, 3.0, xp, device, cols=cols)
    return gs


@dataclass
class StreamedPath:
    """What the approximate LS-SVMs' LOO paths return (arrays in the inputs' namespace and
    device).

    Attributes
    ----------
    gammas : list of float
        The γ grid.
    scores : array of shape (n_gammas,)
        Mean squared exact LOO residual of the approximate model at every γ (all N rows), or
        its generalised cross-validation.
    gamma : float
        The γ of the smallest score.
    coef : array
        The coefficients at ``gamma``.
    intercept : 0-d array
        The bias at ``gamma``.
    """

    gammas: list[float]
    scores: Any
    gamma: float
    coef: Any
    intercept: Any


def ridge_loo_path(X: Any, y: Any, features: Callable[[Any], Any], gammas: list[float],
                   shift: Any, *, block_rows: int, criterion: str = "mse") -> StreamedPath:
    """Fit at the γ of the smallest exact LOO error over ``gammas`` (``criterion="gcv"``: the
    smallest generalised cross-validation), the features streamed ``block_rows`` rows at a
    time (module docstring).

    Parameters
    ----------
    X : array of shape (n, d)
        Rows (checked by the caller).
    y : array of shape (n,)
    features : callable
        ``features(X_B)``: the ``(rows, m)`` features of a block of rows, in the rows' dtype.
    gammas : list of float
        The γ grid (positive, checked by the caller).
    shift : array of shape (m,)
        A provisional feature mean (module docstring).
    block_rows : int
        Rows per block.
    criterion : {"mse", "gcv"}, default="mse"
        The mean squared exact LOO residual, or generalised cross-validation (every row, from
        the same eigendecomposition).

    Returns
    -------
    StreamedPath
        ``coef`` the float64 ``θ`` of ``f(x) = φ(x)ᵀθ + c``; ``scores`` float64.
    """
    xp, device = namespace_of(X, y)
    f64 = xp.float64

    def features64(XB: Any) -> Any:   # the Nyström map's are float64 already: no copy of them
        F = features(XB)
        return F if F.dtype == f64 else xp.astype(F, f64)

    dec = decompose(ArraySource(X, xp.astype(y, f64)[:, None], block_rows=block_rows), 1.0,
                    {"ridge": (RKHS, 0.0)}, design=True, features=features64,
                    shift=xp.astype(shift, f64))
    scores = dec.score_path("ridge", 1.0 / np.asarray(gammas, dtype=np.float64),
                            criterion=criterion)
    j = int(np.argmin(scores))
    theta, b = dec.system({"ridge": 1.0 / gammas[j]}).solve(None)
    return StreamedPath(gammas=gammas, scores=xp.asarray(scores, dtype=f64, device=device),
                        gamma=gammas[j], coef=theta[:, 0], intercept=b[0])
