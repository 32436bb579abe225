"""Explicit finite-dimensional feature maps ``φ`` with ``φ(x)'φ(z) ≈ k(x, z)``, applied block by
block: the Nyström map of any kernel and random Fourier features of the RBF kernel.

An LS-SVM on ``φ`` (the primal ridge with an unpenalised bias) *is* the LS-SVM on the
approximate Gram ``Φ Φ'`` (AReg paper eq. 1-2 with ``Ω`` replaced), so the approximate model is
exact for its own kernel; :mod:`lssvm_cvx.estimators.lssvm_approx` streams ``φ`` over row blocks
and never holds the ``N × m`` design.

* :class:`NystroemMap` — ``φ(x) = k(x, Z) V s^{-1/2}`` from the eigenpairs ``(s, V)`` of the
  centres' Gram ``K_ZZ`` (:func:`~lssvm_cvx.kernels.psd.psd_eigh`, eigenvalues below
  ``PSD_FACTOR_RTOL · s_max`` dropped): ``Φ Φ' = K_XZ K_ZZ^+ K_ZX`` (Williams & Seeger 2001).
* :class:`RandomFourierMap` — ``φ(x) = sqrt(2/m) cos(W'x + u)`` with ``W ~ N(0, (2/σ²) I)`` and
  ``u ~ U[0, 2π)``: ``E[φ(x)'φ(z)] = exp(-||x - z||²/σ²)``, the package's RBF (Rahimi & Recht
  2007; the RBF ``exp(-||δ||²/(2ℓ²))`` has spectral density ``N(0, ℓ^{-2} I)`` and here
  ``2ℓ² = σ²``).

Both are small picklable objects (a Dask worker evaluates them on its own chunks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..checks import check_integer, check_positive
from ..exceptions import HyperparameterError, NotPSDError
from .base import RBF, Kernel
from .psd import psd_eigh

__all__ = ["NystroemMap", "RandomFourierMap"]


class NystroemMap:
    """Nyström feature map of ``kernel`` on the centres ``Z`` (module docstring).

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    centres : numpy.ndarray of shape (m, d)
        The landmark points ``Z`` (usually ``m`` training rows drawn at random).

    Attributes
    ----------
    projection : numpy.ndarray of shape (m, r)
        ``V s^{-1/2}`` over the ``r`` kept eigenpairs of ``K_ZZ``.
    """

    def __init__(self, kernel: Kernel, centres: np.ndarray):
        self.kernel = kernel
        self.centres = np.ascontiguousarray(centres, dtype=np.float64)
        s, V = psd_eigh(kernel(self.centres))
        if s.size == 0:
            raise NotPSDError("the Gram of the Nyström centres has no positive eigenvalue")
        self.projection = V / np.sqrt(s)

    @property
    def n_features(self) -> int:
        """Number of features ``r`` (kept eigenpairs)."""
        return int(self.projection.shape[1])

    def __call__(self, X: Any) -> np.ndarray:
        """``φ(X)`` of shape (rows, r)."""
        return self.kernel(np.asarray(X, dtype=np.float64), self.centres) @ self.projection


class RandomFourierMap:
    """Random Fourier features of the RBF kernel ``exp(-||x - z||²/σ²)`` (module docstring).

    Parameters
    ----------
    sigma2 : float
        The RBF width σ² > 0.
    n_features_in : int
        Input dimension ``d``.
    n_components : int
        Number of features ``m``.
    random_state : int, numpy.random.Generator, RandomState or None
        Seed of ``W`` and ``u``.
    """

    def __init__(self, sigma2: float, n_features_in: int, n_components: int, random_state: Any = None):
        from sklearn.utils import check_random_state

        sigma2 = check_positive(sigma2, "sigma2")
        rng = check_random_state(random_state)
        m = check_integer(n_components, "n_components")
        self.W = rng.normal(scale=np.sqrt(2.0 / sigma2),
                            size=(check_integer(n_features_in, "n_features_in"), m))
        self.offset = rng.uniform(0.0, 2.0 * np.pi, size=m)
        self.scale = np.sqrt(2.0 / m)

    @property
    def n_features(self) -> int:
        """Number of features ``m``."""
        return int(self.W.shape[1])

    def __call__(self, X: Any) -> np.ndarray:
        """``φ(X)`` of shape (rows, m)."""
        return self.scale * np.cos(np.asarray(X, dtype=np.float64) @ self.W + self.offset)

    @staticmethod
    def check_kernel(kernel: Kernel) -> float:
        """σ² of an RBF kernel; :class:`HyperparameterError` for any other kernel."""
        if not isinstance(kernel, RBF):
            raise HyperparameterError("approximation='rff' needs the RBF kernel "
                                      f"(got {type(kernel).__name__}); use 'nystroem'")
        return float(kernel.sigma2)
