"""Arrays of any namespace and device for the estimators (issue 31): the switch that lets the
LS-SVM estimators fit array-API inputs in their own namespace, the tests of what an input is,
and the check of a positive hyperparameter.  The namespace, dtype and memory checks and the
linear algebra the array-API standard lacks live below the engines, in
:mod:`lssvm_cvx.linalg.arrays` (``lssvm_cvx.device`` exports them).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from ..checks import check_positive

__all__ = ["array_api_dispatch", "dispatching", "foreign_array", "on_accelerator", "positive"]


_DISPATCH: contextvars.ContextVar[bool] = contextvars.ContextVar("lssvm_cvx_array_api_dispatch",
                                                                  default=False)


@contextlib.contextmanager
def array_api_dispatch(enabled: bool = True) -> Iterator[None]:
    """Within the block, ``LSSVMRegressor`` and ``LSSVMClassifier`` fit array-API inputs (a
    PyTorch CPU tensor, an ``array-api-strict`` array) in their own namespace instead of
    converting them to NumPy; arrays off the CPU always take that path.

    Parameters
    ----------
    enabled : bool, default=True
        Whether to dispatch inside the block (False: convert, as outside any block).

    Examples
    --------
    >>> import torch                                                    # doctest: +SKIP
    >>> with lssvm_cvx.array_api_dispatch():                            # doctest: +SKIP
    ...     est = LSSVMRegressor(selection="loo").fit(torch.asarray(X), torch.asarray(y))
    """
    token = _DISPATCH.set(bool(enabled))
    try:
        yield
    finally:
        _DISPATCH.reset(token)


def dispatching() -> bool:
    """Whether :func:`array_api_dispatch` is on here."""
    return _DISPATCH.get()


def foreign_array(X: Any) -> bool:
    """Whether ``X`` is an array of an array-API library other than NumPy and dask (PyTorch,
    CuPy, ``array-api-strict``)."""
    import array_api_compat as aac

    return aac.is_array_api_obj(X) and not aac.is_numpy_array(X) and not aac.is_dask_array(X)


def on_accelerator(X: Any) -> bool:
    """Whether ``X`` is an array off the CPU (a CUDA tensor, a CuPy array): NumPy cannot take it."""
    import array_api_compat as aac

    return foreign_array(X) and "cpu" not in str(aac.device(X)).lower()


def positive(value: Any, name: str = "gamma") -> float:
    """``value`` as a positive finite float; anything else is a one-line
    :class:`HyperparameterError` naming ``name``."""
    return check_positive(value, name)
