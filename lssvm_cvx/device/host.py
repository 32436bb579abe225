"""Device arrays copied to the host: one conversion for every device module and estimator."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["to_numpy"]


def to_numpy(a: Any) -> np.ndarray:
    """A (small) array of any namespace copied to a NumPy array (PyTorch: ``.cpu()``, CuPy:
    ``.get()``, any other namespace through DLPack; a NumPy array is returned as is).

    Parameters
    ----------
    a : array
        A PyTorch tensor on any device, a CuPy array, an ``array-api-strict`` array or NumPy.

    Returns
    -------
    numpy.ndarray
    """
    import array_api_compat as aac

    if isinstance(a, np.ndarray):
        return a
    if aac.is_torch_array(a):
        return a.detach().cpu().numpy()
    if aac.is_cupy_array(a):
        return a.get()
    return np.from_dlpack(a)
