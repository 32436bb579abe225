"""Arrays of any namespace and device below the engines (issue 30, step 5; issue 31): the
namespace, device and dtype of the inputs (``array-api-compat``), the memory a dense system
needs against what the device has free, the copy to NumPy, and the linear algebra the
array-API standard lacks or spells differently — the triangular solve, a Cholesky factor that
reports failure, the generalised symmetric eigenproblem, and the SPD factorisation
:func:`factor_spd` that is :class:`~lssvm_cvx.linalg.cholesky.Cholesky` on NumPy.

NumPy, PyTorch (CPU or CUDA), CuPy and ``array-api-strict`` arrays are accepted; results stay
in the inputs' namespace and on their device.  The standard has ``linalg.cholesky`` and
``linalg.eigh`` but no triangular solve: PyTorch, CuPy and NumPy use their own
(``torch.linalg.solve_triangular``, ``cupyx.scipy.linalg.solve_triangular``,
``scipy.linalg.solve_triangular``), any other namespace the general ``linalg.solve`` (correct,
not faster).  The generalised eigenproblem ``A V = B V Θ`` is LAPACK's ``sygvd`` on NumPy and,
elsewhere, the same reduction to a standard one through ``B = L L'``:
``(L⁻¹ A L⁻ᵀ) W = W Θ``, ``V = L⁻ᵀ W`` (so ``V'BV = I``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import array_api_compat as aac
import numpy as np
import scipy.linalg as sla

from ..exceptions import InputError, InputTypeError, NotPSDError
from .cholesky import Cholesky

__all__ = ["namespace_of", "namespace_or_numpy", "float_dtype", "solve_triangular", "free_bytes",
           "check_memory", "to_numpy", "geneig", "ArrayCholesky", "factor_spd",
           "ArrayLU", "diag_matrix"]


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


def solve_triangular(xp: Any, L: Any, B: Any, *, trans: bool = False) -> Any:
    """``L⁻¹ B`` (``trans=False``) or ``L⁻ᵀ B`` (``trans=True``) for a lower-triangular ``L``,
    in ``L``'s namespace and on its device."""
    if aac.is_torch_namespace(xp):
        import torch

        return torch.linalg.solve_triangular(L.mT if trans else L, B, upper=trans)
    if aac.is_cupy_namespace(xp):
        from cupyx.scipy.linalg import solve_triangular as cupy_solve

        return cupy_solve(L, B, lower=True, trans=1 if trans else 0)
    if aac.is_numpy_namespace(xp):
        return sla.solve_triangular(L, B, lower=True, trans=1 if trans else 0, check_finite=False)
    return xp.linalg.solve(xp.matrix_transpose(L) if trans else L, B)


def free_bytes(xp: Any, device: Any) -> int | None:
    """Free memory on ``device`` in bytes (CUDA: the driver's count plus the blocks PyTorch's
    allocator keeps cached; the CPU: available physical memory), or None when it cannot be
    asked."""
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
    if isinstance(a, np.ndarray):
        return a
    if aac.is_torch_array(a):
        return a.detach().cpu().numpy()
    if aac.is_cupy_array(a):
        return a.get()
    return np.from_dlpack(a)


def _cholesky_or_none(xp: Any, A: Any) -> Any | None:
    """The lower Cholesky factor of ``A`` in its namespace, or None when ``A`` is not
    numerically positive definite (the libraries raise different errors, or return a
    non-finite factor)."""
    try:
        L = xp.linalg.cholesky(A)
    except (np.linalg.LinAlgError, RuntimeError, ValueError):
        return None
    return L if bool(xp.all(xp.isfinite(L))) else None


def geneig(xp: Any, A: Any, B: Any | None) -> tuple[Any, Any] | None:
    """``A V = B V Θ`` with ``V'BV = I`` (``B`` symmetric positive definite; None: the identity),
    eigenvalues ascending; None when ``B`` is not numerically positive definite.

    On NumPy it is SciPy's ``eigh(A, B)`` (LAPACK ``sygvd``); on any other namespace the
    reduction of the module docstring."""
    if aac.is_numpy_namespace(xp):
        try:
            return sla.eigh(A, B, check_finite=False)
        except np.linalg.LinAlgError:
            return None
    if B is None:
        return xp.linalg.eigh(0.5 * (A + xp.matrix_transpose(A)))
    L = _cholesky_or_none(xp, B)
    if L is None:
        return None
    M = solve_triangular(xp, L, xp.matrix_transpose(solve_triangular(xp, L, A)))
    lam, W = xp.linalg.eigh(0.5 * (M + xp.matrix_transpose(M)))
    return lam, solve_triangular(xp, L, W, trans=True)


@dataclass
class ArrayCholesky:
    """``H = L L'`` in any array namespace, with the interface of
    :class:`~lssvm_cvx.linalg.cholesky.Cholesky` that the engines use (``L``, ``rcond``,
    ``solve``).  ``rcond`` is the exact reciprocal 1-norm condition number
    ``1/(||H||₁ ||H⁻¹||₁)`` (from ``L⁻¹``: two more n × n products), where NumPy has LAPACK's
    estimate ``dpocon`` of it (which can only be larger)."""

    xp: Any
    L: Any
    rcond: float

    def solve(self, B: Any) -> Any:
        """``H⁻¹ B`` by two triangular solves."""
        return solve_triangular(self.xp, self.L, solve_triangular(self.xp, self.L, B), trans=True)


def factor_spd(xp: Any, H: Any, name: str = "H") -> Cholesky | ArrayCholesky:
    """The Cholesky factorisation of the SPD matrix ``H`` in its namespace: the package's
    :class:`~lssvm_cvx.linalg.cholesky.Cholesky` (LAPACK, a condition estimate and its warning)
    on NumPy, an :class:`ArrayCholesky` elsewhere.

    Raises
    ------
    NotPSDError
        When ``H`` is not numerically positive definite (in its dtype), naming ``name``.
    """
    if aac.is_numpy_namespace(xp):
        return Cholesky.factor(H, name=name)
    L = _cholesky_or_none(xp, H)
    if L is None:
        raise NotPSDError(f"{name} is not positive definite in {H.dtype}")
    n = int(H.shape[0])
    Linv = solve_triangular(xp, L, xp.eye(n, dtype=H.dtype, device=aac.device(H)))
    rcond = 1.0 / float(xp.max(xp.sum(xp.abs(H), axis=0))
                        * xp.max(xp.sum(xp.abs(xp.matrix_transpose(Linv) @ Linv), axis=0)))
    return ArrayCholesky(xp, L, rcond)


class ArrayLU:
    """LU factors of ``A`` in its namespace (PyTorch, CuPy, NumPy through their ``lu_factor``;
    any other array-API namespace solves with ``linalg.solve`` each time), with Hager's
    estimate of the reciprocal condition number (LAPACK's ``dgecon`` on the CPU)."""

    def __init__(self, xp: Any, A: Any) -> None:
        self.xp, self.A = xp, A
        if aac.is_torch_namespace(xp):
            import torch

            lu, piv = torch.linalg.lu_factor(A)
            self._solve = lambda B: torch.linalg.lu_solve(lu, piv, B)
        elif aac.is_cupy_namespace(xp):
            from cupyx.scipy.linalg import lu_factor, lu_solve

            f = lu_factor(A)
            self._solve = lambda B: lu_solve(f, B)
        elif aac.is_numpy_namespace(xp):
            from scipy.linalg import lu_factor, lu_solve

            f = lu_factor(A, check_finite=False)
            self._solve = lambda B: lu_solve(f, B, check_finite=False)
        else:
            self._solve = lambda B: xp.linalg.solve(A, B)

    def solve(self, B: Any) -> Any:
        return self._solve(B)

    def rcond(self) -> float:
        """``1 / (||A||₁ ||A⁻¹||₁)`` with Hager's estimator of ``||A⁻¹||₁`` (``A`` symmetric, so
        ``A⁻ᵀ = A⁻¹``): at most five pairs of solves."""
        xp, A = self.xp, self.A
        m = int(A.shape[0])
        x = xp.full((m, 1), 1.0 / m, dtype=A.dtype, device=aac.device(A))
        est = 0.0
        for _ in range(5):
            y = self.solve(x)
            if not bool(xp.all(xp.isfinite(y))):
                return 0.0
            est = float(xp.sum(xp.abs(y)))
            z = self.solve(xp.sign(y))
            j = int(xp.argmax(xp.abs(z[:, 0])))
            if float(xp.abs(z[j, 0])) <= float(xp.sum(z * x)):
                break
            x = xp.zeros_like(x)
            x[j, 0] = 1.0
        anorm = float(xp.max(xp.sum(xp.abs(A), axis=0)))
        return 1.0 / (anorm * est) if anorm * est > 0 else 0.0


def namespace_or_numpy(*arrays: Any) -> tuple[Any, Any, bool]:
    """``(xp, device, numpy)``: the namespace and device of ``arrays`` when one of them is an
    array of a library other than NumPy (:func:`namespace_of` checks that they share them),
    else NumPy's (lists, scalars and NumPy arrays: the engines convert them to float64)."""
    if any(aac.is_array_api_obj(a) and not isinstance(a, np.ndarray)
           for a in arrays if a is not None):
        xp, device = namespace_of(*(a for a in arrays if a is not None))
        return xp, device, aac.is_numpy_namespace(xp)
    return aac.array_namespace(np.empty(0)), "cpu", True


def diag_matrix(xp: Any, v: Any) -> Any:
    """The diagonal matrix of the vector ``v`` (the array API has no ``diag``)."""
    n = int(v.shape[0])
    return xp.eye(n, dtype=v.dtype, device=aac.device(v)) * v[None, :]
