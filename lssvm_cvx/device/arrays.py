"""Arrays of any namespace and device (issue 31, first step): the namespace and device of the
inputs (``array-api-compat``), the checks that turn a mixed or unusable input into one line of
the project's errors, the memory a dense N × N system needs against what the device has free,
and the triangular solve the array-API standard lacks.

NumPy, PyTorch (CPU or CUDA), CuPy and ``array-api-strict`` arrays are accepted; results stay
in the inputs' namespace and on their device.  The standard has ``linalg.cholesky`` and
``linalg.eigh`` but no triangular solve: PyTorch, CuPy and NumPy use their own
(``torch.linalg.solve_triangular``, ``cupyx.scipy.linalg.solve_triangular``,
``scipy.linalg.solve_triangular``), any other namespace the general ``linalg.solve`` (correct,
not faster).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Any

from ..exceptions import HyperparameterError, InputError, InputTypeError

__all__ = ["array_api_dispatch", "dispatching", "foreign_array", "on_accelerator", "namespace_of",
           "float_dtype", "positive", "solve_triangular", "free_bytes", "check_memory"]


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


def namespace_of(*arrays: Any) -> tuple[Any, Any]:
    """The array namespace and the device shared by ``arrays``.

    Raises
    ------
    InputTypeError
        When the arrays come from different libraries (NumPy and PyTorch, say) or are not
        arrays of a namespace ``array-api-compat`` knows.
    InputError
        When they live on different devices.
    """
    import array_api_compat as aac

    try:
        xp = aac.array_namespace(*arrays)
    except TypeError as exc:
        kinds = sorted({f"{type(a).__module__}.{type(a).__name__}" for a in arrays})
        raise InputTypeError(
            f"the inputs must be arrays of one library, got {', '.join(kinds)} ({exc}); convert "
            "them to one (for example all torch tensors on one device)") from None
    devices = [aac.device(a) for a in arrays]
    if any(d != devices[0] for d in devices[1:]):
        raise InputError(f"the inputs live on different devices ({', '.join(map(str, devices))}); "
                         "move them to one device")
    return xp, devices[0]


def float_dtype(xp: Any, *arrays: Any) -> Any:
    """The common floating dtype of ``arrays``: float32 or float64 (the dtypes a Cholesky
    factorisation supports everywhere); anything else is a one-line :class:`InputTypeError`."""
    ok = (xp.float32, xp.float64)
    for a in arrays:
        if a.dtype not in ok:
            raise InputTypeError(f"arrays of dtype {a.dtype} cannot be factorised here; use "
                                 "float32 or float64 (convert with astype)")
    return xp.float64 if any(a.dtype == xp.float64 for a in arrays) else xp.float32


def positive(value: Any, name: str = "gamma") -> float:
    """``value`` as a positive finite float; anything else is a one-line
    :class:`HyperparameterError` naming ``name``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise HyperparameterError(f"{name} must be a positive number, got {value!r}") from None
    if not v > 0 or v == float("inf"):
        raise HyperparameterError(f"{name} must be a positive finite number, got {value!r}")
    return v


def solve_triangular(xp: Any, L: Any, B: Any, *, trans: bool = False) -> Any:
    """``L⁻¹ B`` (``trans=False``) or ``L⁻ᵀ B`` (``trans=True``) for a lower-triangular ``L``,
    in ``L``'s namespace and on its device."""
    import array_api_compat as aac

    if aac.is_torch_namespace(xp):
        import torch

        return torch.linalg.solve_triangular(L.mT if trans else L, B, upper=trans)
    if aac.is_cupy_namespace(xp):
        from cupyx.scipy.linalg import solve_triangular as cupy_solve

        return cupy_solve(L, B, lower=True, trans=1 if trans else 0)
    if aac.is_numpy_namespace(xp):
        from scipy.linalg import solve_triangular as scipy_solve

        return scipy_solve(L, B, lower=True, trans=1 if trans else 0, check_finite=False)
    return xp.linalg.solve(xp.matrix_transpose(L) if trans else L, B)


def free_bytes(xp: Any, device: Any) -> int | None:
    """Free memory on ``device`` in bytes (CUDA: the driver's count plus the blocks PyTorch's
    allocator keeps cached; the CPU: available physical memory), or None when it cannot be
    asked."""
    import array_api_compat as aac

    if aac.is_torch_namespace(xp) and str(device).startswith("cuda"):
        import torch

        # the driver's free memory plus what PyTorch's caching allocator holds unused
        cached = torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
        return int(torch.cuda.mem_get_info(device)[0]) + int(cached)
    if aac.is_cupy_namespace(xp):
        import cupy

        return int(cupy.cuda.Device().mem_info[0])
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(n: int, itemsize: int, matrices: float, xp: Any, device: Any, *,
                 free: int | None = None, cols: int | None = None) -> None:
    """Refuse, in one line naming the largest N that fits, a dense computation that needs
    ``matrices`` N × N arrays (N × ``cols`` when ``cols`` is given: a tall block of kernel
    columns) of ``itemsize`` bytes when the device has less free memory.

    ``free`` overrides the device's own count (tests)."""
    free = free_bytes(xp, device) if free is None else free
    need = matrices * n * (n if cols is None else cols) * itemsize
    if free is None or need <= free:
        return
    if cols is None:
        fits = int((free / (matrices * itemsize)) ** 0.5)
        shape = "N × N"
    else:
        fits = int(free / (matrices * itemsize * cols))
        shape = f"N × {cols}"
    raise InputError(f"N = {n} needs {need / 2**30:.1f} GiB ({matrices:g} {shape} arrays of "
                     f"{itemsize} bytes) but {device} has {free / 2**30:.1f} GiB free: at most "
                     f"N ≈ {fits} fits (use approximation='nystroem' for more)")
