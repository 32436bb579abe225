"""The RBF widths a search covers: around the median squared distance (``"auto"``), the
widths given, or ``sigma2`` as given (an explicit width is never replaced by a grid); and the
kernel of one width, for a kernel object with RBF widths inside it (:func:`set_width`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import HyperparameterError
from ..kernels.base import Kernel, sq_dists
from .params import POSITIVE_GRID, Grid

__all__ = ["DEFAULT_GAMMA_GRID", "SIGMA2_GRID", "gamma_candidates", "default_sigma2_grid",
           "sigma2_candidates", "set_width", "has_width"]

#: γ candidates used when ``selection`` is set and ``gamma_grid`` is None
DEFAULT_GAMMA_GRID = np.logspace(-3, 5, 17)
#: the rule of ``sigma2_grid`` (widths > 0, an array of any shape flattened)
SIGMA2_GRID = Grid(flat=True)


def gamma_candidates(est: Any) -> np.ndarray:
    """The γ an LS-SVM estimator's search covers: ``gamma_grid``, else
    :data:`DEFAULT_GAMMA_GRID`; a grid that is not a non-empty vector of finite values > 0 is
    refused in the user's words (until 2026-11-30 the composed search's check named its
    ``weight_grid['rkhs']`` of ``1/γ``, a parameter the user never set)."""
    return DEFAULT_GAMMA_GRID if est.gamma_grid is None else POSITIVE_GRID.values(
        est.gamma_grid, "gamma_grid")


def default_sigma2_grid(X: np.ndarray, n_max: int = 1000, seed: int = 0) -> np.ndarray:
    """σ² candidates around the median squared pairwise distance (× 10^-2 … 10^2, 9 values)."""
    if X.shape[0] > n_max:
        X = X[np.random.default_rng(seed).choice(X.shape[0], n_max, replace=False)]
    D = sq_dists(X)
    med = float(np.median(D[np.triu_indices_from(D, 1)]))
    return (med if med > 0 else 1.0) * np.logspace(-2, 2, 9)


def _kernels_in(value: Any) -> bool:
    return isinstance(value, Kernel) or (isinstance(value, (list, tuple)) and any(
        isinstance(v, Kernel) for v in value))


def set_width(kernel: Kernel, sigma2: float) -> Kernel:
    """``kernel`` with every width inside it set to ``sigma2``: a kernel with a ``sigma2``
    parameter (:class:`~lssvm_cvx.kernels.RBF`, or one of your own) gets the new value, and a
    kernel made of kernels (a sum, a product, a scaling, a
    :class:`~lssvm_cvx.kernels.Componentwise` kernel and its list of kernels) is rebuilt
    around its parts with their widths set.  The kernel given is not changed.

    Parameters
    ----------
    kernel : Kernel
        The kernel (its ``get_params(deep=False)`` rebuild it, as for any scikit-learn
        estimator).
    sigma2 : float
        The width.

    Returns
    -------
    Kernel
        A new kernel, or ``kernel`` itself when it holds no width.
    """
    params = kernel.get_params(deep=False)
    new: dict[str, Any] = {}
    for name, value in params.items():
        if name == "sigma2":
            new[name] = float(sigma2)
        elif isinstance(value, Kernel):
            part = set_width(value, sigma2)
            if part is not value:
                new[name] = part
        elif _kernels_in(value):
            parts = [set_width(v, sigma2) if isinstance(v, Kernel) else v for v in value]
            if any(p is not v for p, v in zip(parts, value)):
                new[name] = type(value)(parts)
    return type(kernel)(**{**params, **new}) if new else kernel


def has_width(kernel: Kernel) -> bool:
    """Whether ``kernel`` holds a width that :func:`set_width` sets (a ``sigma2`` parameter,
    in it or in a kernel it is made of)."""
    return set_width(kernel, 1.0) is not kernel


def sigma2_candidates(est: Any, X: np.ndarray, *, objects: bool = False
                      ) -> tuple[np.ndarray, bool]:
    """The RBF widths a search covers and whether σ² is searched: ``sigma2`` as given unless
    ``sigma2_grid`` asks for a grid (``"auto"``: 9 values around the median squared distance,
    or the given values).

    Parameters
    ----------
    est : estimator
        With ``kernel``, ``sigma2`` and ``sigma2_grid``.
    X : numpy.ndarray
        Training inputs.
    objects : bool, default=False
        Whether the caller searches the widths inside a kernel object (:func:`set_width`; the
        exact CPU search does): then ``kernel`` may be an object with a width, not only
        ``"rbf"``.

    Returns
    -------
    tuple
        ``(widths, searched)``.
    """
    grid = est.sigma2_grid
    if grid is None:
        return np.array([est.sigma2], dtype=np.float64), False
    rbf = isinstance(est.kernel, str) and est.kernel.lower() == "rbf"
    if objects and isinstance(est.kernel, Kernel):
        rbf = has_width(est.kernel)
    if not rbf:
        inside = "a kernel object with a sigma2 inside" if objects else "kernel='rbf' only"
        raise HyperparameterError(f"sigma2_grid searches the RBF width ({inside}); "
                                  f"kernel={est.kernel!r} has none (set sigma2_grid=None)")
    if isinstance(grid, str):
        if grid != "auto":
            raise HyperparameterError(f"sigma2_grid must be None, 'auto' or widths, got {grid!r}")
        return default_sigma2_grid(X), True
    return SIGMA2_GRID.values(grid, "sigma2_grid"), True
