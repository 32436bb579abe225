"""The one PSD eigen-factor of a Gram (or any symmetric PSD matrix): ``K ≈ L L'`` from one
symmetric eigendecomposition, keeping the eigenvalues above one documented relative threshold.

Every builder that writes ``α'Kα`` as ``||L'α||²`` (the kernel's :meth:`~lssvm_cvx.kernels.Kernel.factor`,
the LS-SVM and ℓ2-SVM feature maps, the RKHS term) uses :func:`psd_factor`; the Nyström maps
(:class:`~lssvm_cvx.kernels.features.NystroemMap` and its device twin
:class:`~lssvm_cvx.device.NystroemFeatures`) use :func:`psd_eigh`, which takes its array
namespace and device from its input.
"""

from __future__ import annotations

from typing import Any

import array_api_compat as aac
import numpy as np

from ..checks import as_gram
from ..exceptions import InputError

__all__ = ["PSD_FACTOR_RTOL", "psd_eigh", "psd_factor"]

#: relative eigenvalue threshold of :func:`psd_factor`: eigenvalues ``<= PSD_FACTOR_RTOL ·
#: λ_max`` are dropped.  1e-12 is the threshold the kernels' ``factor`` and the LS-SVM feature
#: map used before they were merged (the ℓ2-SVM feature map used the numerical-rank tolerance
#: ``m · ε_mach · λ_max``, 2e-13 at m = 1000): it keeps every direction a solver working to
#: 1e-8 can resolve while dropping the rounding noise of the Gram (a dropped eigenvalue changes
#: ``α'Kα`` by at most 1e-12 ``λ_max ||α||²``; tests/test_relayer_core.py checks the merged
#: factors against the previous ones).
PSD_FACTOR_RTOL = 1e-12


def psd_eigh(K: Any, *, rtol: float = PSD_FACTOR_RTOL, rank: int | None = None
             ) -> tuple[Any, Any]:
    """``(s, V)``: the eigenpairs of the symmetric part of ``K`` with ``s > rtol · max(λ_max, 0)``,
    in descending order, at most ``rank`` of them.

    Parameters
    ----------
    K : array of shape (n, n)
        A symmetric matrix: NumPy (or array-like, a Dask array: gathered, as NumPy's), or an
        array of another array-API namespace and device (PyTorch, CuPy, ``array-api-strict``),
        whose own ``eigh`` runs there and whose eigenpairs stay there.  Computed in float64
        on every namespace (the threshold is far below float32's rounding).
    rtol : float, default=PSD_FACTOR_RTOL
        Eigenvalues ``<= rtol · max(λ_max, 0)`` are dropped.
    rank : int or None, default=None
        Keep at most this many eigenpairs (the largest).

    Returns
    -------
    tuple of arrays
        ``s`` of shape (r,), descending, and ``V`` of shape (n, r).
    """
    if not aac.is_array_api_obj(K) or aac.is_numpy_array(K) or aac.is_dask_array(K):
        K = as_gram(np.asarray(K) if aac.is_dask_array(K) else K, name="K", min_samples=0)
        s, V = np.linalg.eigh((K + K.T) / 2)
        top = max(float(s[-1]), 0.0) if s.size else 0.0
        idx = np.flatnonzero(s > rtol * top)[::-1]
        if rank is not None:
            idx = idx[: int(rank)]
        return s[idx], V[:, idx]
    # another namespace: eigh's ascending order makes the kept eigenvalues a suffix
    xp = aac.array_namespace(K)
    K = xp.astype(K, xp.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise InputError(f"K must be a square matrix, got shape {tuple(K.shape)}")
    if not bool(xp.all(xp.isfinite(K))):
        raise InputError("K must be finite (NaN or inf found)")
    s, V = xp.linalg.eigh((K + K.T) / 2)
    n = int(s.shape[0])
    top = max(float(s[-1]), 0.0) if n else 0.0
    keep = int(xp.sum(xp.astype(s > rtol * top, xp.int64)))
    if rank is not None:
        keep = min(keep, int(rank))
    return xp.flip(s[n - keep:]), xp.flip(V[:, n - keep:], axis=1)


def psd_factor(K: np.ndarray, *, rtol: float = PSD_FACTOR_RTOL, rank: int | None = None
               ) -> np.ndarray:
    """``L = V sqrt(s)`` (``n × r``) with ``L L' ≈ K`` over the eigenpairs of :func:`psd_eigh`;
    one zero column when nothing is kept (a zero matrix).

    Parameters
    ----------
    K : numpy.ndarray of shape (n, n)
        A symmetric PSD matrix (within the tolerance).
    rtol : float, default=PSD_FACTOR_RTOL
        Eigenvalues below ``rtol · max(s)`` are dropped.
    rank : int or None, default=None
        Keep at most this many eigenpairs.

    Returns
    -------
    numpy.ndarray of shape (n, r)
        The factor.
    """
    s, V = psd_eigh(K, rtol=rtol, rank=rank)
    if s.size == 0:
        return np.zeros((np.shape(K)[0], 1))
    return V * np.sqrt(s)
