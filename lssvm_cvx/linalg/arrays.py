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
from typing import Any

import array_api_compat as aac
import numpy as np
import scipy.linalg as sla

from ..checks import check_integer
from ..exceptions import InputError, InputTypeError, NotPSDError
from ..kernels.base import sq_dists as numpy_sq_dists
from .cholesky import Cholesky, one_norm

__all__ = ["namespace_of", "namespace_or_numpy", "float_dtype", "solve_triangular", "free_bytes",
           "check_memory", "to_numpy", "geneig", "ArrayCholesky", "factor_spd",
           "inverse_diagonal", "take_rows", "ArrayLU", "diag_matrix", "check_zero_top",
           "borderless_bias", "check_finite", "pairwise_blocks", "sq_dists"]


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


def check_memory(n: int, itemsize: Any, matrices: float, xp: Any, device: Any, *,
                 free: int | None = None, cols: int | None = None) -> None:
    """Refuse, in one line naming the largest N that fits, a dense computation that needs
    ``matrices`` N × N arrays (N × ``cols`` when ``cols`` is given: a tall block of kernel
    columns) of ``itemsize`` bytes (an int, or a floating dtype of ``xp``) when the device has
    less free memory.

    ``free`` overrides the device's own count (tests)."""
    if not isinstance(itemsize, int):
        itemsize = xp.finfo(itemsize).bits // 8
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


def check_finite(xp: Any, names: str, *arrays: Any) -> None:
    """Refuse arrays of ``xp`` that hold NaN or inf, in one :class:`InputError` naming them
    (``names``, e.g. ``"X and y"``); one host synchronisation per array, stopping at the
    first that fails."""
    if not all(bool(xp.all(xp.isfinite(a))) for a in arrays):
        raise InputError(f"{names} must be finite (NaN or inf found)")


def pairwise_blocks(X: Any, Z: Any, fn: Any, *, block_rows: int = 4096) -> Any:
    """``fn(D)`` of the squared distances ``D_ij = ||x_i - z_j||²`` (clipped at 0) for the rows
    of ``X`` and ``Z``, formed ``block_rows`` rows at a time on the inputs' device (the
    temporary memory is one ``block_rows × m`` block besides the result; the memory of the
    result is checked first).

    Parameters
    ----------
    X, Z : array of shape (n, d) and (m, d)
        Inputs of one namespace, float32 or float64.
    fn : callable
        Elementwise map of a block of squared distances (in their namespace).
    block_rows : int, default=4096

    Returns
    -------
    array of shape (n, m)
    """
    xp, device = namespace_of(X, Z)
    dtype = float_dtype(xp, X, Z)
    check_memory(int(X.shape[0]), dtype, 1.0, xp, device,
                 cols=int(Z.shape[0]))
    zz = xp.sum(Z * Z, axis=1)
    out = xp.empty((X.shape[0], Z.shape[0]), dtype=dtype, device=device)
    n = int(X.shape[0])
    for start in range(0, n, block_rows):
        stop = min(start + block_rows, n)               # the standard has no out-of-range stops
        B = X[start:stop, ...]
        d2 = xp.sum(B * B, axis=1)[:, None] + zz[None, :] - 2.0 * (B @ xp.matrix_transpose(Z))
        out[start:stop, ...] = fn(xp.clip(d2, 0.0, None))
    return out


def sq_dists(X: Any, Z: Any = None, *, block_rows: int = 4096) -> Any:
    """``||x_i - z_j||²`` (clipped at 0) for the rows of ``X`` and ``Z`` (``X`` when None) in
    the inputs' namespace: for NumPy arrays the package's one routine
    (:func:`lssvm_cvx.kernels.base.sq_dists`, an exact zero diagonal), elsewhere in blocks on
    the inputs' device (:func:`pairwise_blocks`)."""
    if isinstance(X, np.ndarray) and (Z is None or isinstance(Z, np.ndarray)):
        return numpy_sq_dists(X, Z)
    return pairwise_blocks(X, X if Z is None else Z, lambda d2: d2, block_rows=block_rows)


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


class ArrayCholesky:
    """``H = L L'`` in any array namespace, with the interface of
    :class:`~lssvm_cvx.linalg.cholesky.Cholesky` that the engines use (``L``, ``rcond``,
    ``solve``, ``inv_diag``, ``inv_block``).  ``rcond`` is the exact reciprocal 1-norm
    condition number ``1/(||H||₁ ||H⁻¹||₁)`` (from ``L⁻¹``: a triangular inverse and one more
    n × n product, formed when it is first asked for), where NumPy has LAPACK's estimate
    ``dpocon`` of it (which can only be larger).

    Parameters
    ----------
    xp : namespace
    L : array of shape (n, n)
        The lower Cholesky factor.
    anorm : float
        ``||H||₁`` (for ``rcond``).
    """

    def __init__(self, xp: Any, L: Any, anorm: float) -> None:
        self.xp, self.L, self.anorm = xp, L, float(anorm)
        self._rcond: float | None = None

    @property
    def n(self) -> int:
        return int(self.L.shape[0])

    @property
    def rcond(self) -> float:
        """The exact reciprocal condition number (class docstring)."""
        if self._rcond is None:
            xp, L = self.xp, self.L
            Linv = solve_triangular(xp, L, xp.eye(self.n, dtype=L.dtype, device=aac.device(L)))
            ninv = one_norm(xp.matrix_transpose(Linv) @ Linv)
            self._rcond = 1.0 / (self.anorm * ninv) if self.anorm * ninv > 0 else 0.0
        return self._rcond

    def solve(self, B: Any) -> Any:
        """``H⁻¹ B`` by two triangular solves (``B`` a vector or a matrix)."""
        B2 = B[:, None] if B.ndim == 1 else B
        X = solve_triangular(self.xp, self.L, solve_triangular(self.xp, self.L, B2), trans=True)
        return X[:, 0] if B.ndim == 1 else X

    def inv_diag(self, *, overwrite: bool = False) -> Any:
        """``diag(H⁻¹)``: the squared column norms of ``L⁻¹`` (:func:`inverse_diagonal`;
        ``overwrite``, :class:`~lssvm_cvx.linalg.cholesky.Cholesky`'s, is ignored)."""
        return inverse_diagonal(self.xp, aac.device(self.L), self.L)

    def inv_block(self, idx: Any) -> Any:
        """The principal block ``(H⁻¹)[idx, idx] = X'X``, ``X`` the columns ``idx`` of ``L⁻¹``
        (one triangular solve against those unit columns, formed as ``N × |idx|``)."""
        xp, L = self.xp, self.L
        dev = aac.device(L)
        E = xp.astype(xp.arange(self.n, device=dev)[:, None]
                      == xp.asarray(idx, device=dev)[None, :], L.dtype)
        X = solve_triangular(xp, L, E)
        return xp.matrix_transpose(X) @ X


def inverse_diagonal(xp: Any, device: Any, L: Any, *, block: int = 1024) -> Any:
    """``diag(H⁻¹)`` from the Cholesky factor ``H = L Lᵀ``: the squared column norms of ``L⁻¹``.

    Column ``j`` of ``L⁻¹`` is zero above row ``j``, so the columns ``[j₀, j₁)`` come from the
    trailing block alone, ``L[j₀:, j₀:] X = I[j₀:, j₀:j₁]``, solved by block forward
    substitution in matrix products: with ``D_i = L_ii⁻¹`` the inverses of the diagonal blocks
    (formed once), ``X_i = -D_i (L[i, j₀:i] X[j₀:i])`` row block after row block (the
    formulation of GPU triangular solves with inverted diagonal blocks, in general matrix
    products, the fastest kernel of a GPU).  With ``k`` blocks the products cost about
    ``N³ (k + 1)(2k + 1) / (6k²)`` multiply-adds (0.36 N³ for ``k = 20``, N = 20 000) against
    ``N³`` for ``solve_triangular(L, I)``, and the temporary is ``N × block``, not ``N × N``.

    Parameters
    ----------
    xp, device
        The namespace and device of ``L``.
    L : array of shape (n, n)
        Lower-triangular Cholesky factor.
    block : int, default=1024
        Rows and columns of a block.  On an H100 at N = 20 000 (``.devrun`` probe of the run at
        3f1bd22) 1024 took 0.073 s, as long as the Cholesky factor itself, 2560 0.084 s,
        4096 0.098 s and ``⌈N / 12⌉ = 1667`` 0.094 s (sizes off the tensor cores' tiles are
        slow); 512 is a little faster on a CPU.

    Returns
    -------
    array of shape (n,)
    """
    r = check_integer(block, "block")
    n = int(L.shape[0])
    edges = [(s0, min(s0 + r, n)) for s0 in range(0, n, r)]
    D = [solve_triangular(xp, L[s0:s1, s0:s1], xp.eye(s1 - s0, dtype=L.dtype, device=device))
         for s0, s1 in edges]
    parts = []
    for j, (j0, j1) in enumerate(edges):
        X = xp.empty((n - j0, j1 - j0), dtype=L.dtype, device=device)
        X[: j1 - j0, ...] = D[j]
        for i in range(j + 1, len(edges)):
            i0, i1 = edges[i]
            X[i0 - j0:i1 - j0, ...] = -(D[i] @ (L[i0:i1, j0:i0] @ X[: i0 - j0, ...]))
        parts.append(xp.sum(X * X, axis=0))
    return xp.concat(parts)


def take_rows(xp: Any, A: Any, rows: np.ndarray | None) -> Any:
    """The rows ``rows`` (NumPy indices; None: all) of the array ``A`` of namespace ``xp``."""
    if rows is None:
        return A
    return xp.take(A, xp.asarray(rows, device=aac.device(A)), axis=0)


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
    return ArrayCholesky(xp, L, one_norm(H))


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
        anorm = one_norm(A)
        return 1.0 / (anorm * est) if anorm * est > 0 else 0.0


def namespace_or_numpy(*arrays: Any) -> tuple[Any, Any, bool]:
    """``(xp, device, numpy)``: the namespace and device of ``arrays`` when one of them is an
    array of a library other than NumPy (:func:`namespace_of` checks that the arrays among them
    share them; Python scalars and None are left out), else NumPy's (lists, scalars and NumPy
    arrays: the engines convert them to float64)."""
    if any(aac.is_array_api_obj(a) and not isinstance(a, np.ndarray)
           for a in arrays if a is not None):
        xp, device = namespace_of(*(a for a in arrays if aac.is_array_api_obj(a)))
        return xp, device, aac.is_numpy_namespace(xp)
    return aac.array_namespace(np.empty(0)), "cpu", True


def diag_matrix(xp: Any, v: Any) -> Any:
    """The diagonal matrix of the vector ``v`` (the array API has no ``diag``)."""
    n = int(v.shape[0])
    return xp.eye(n, dtype=v.dtype, device=aac.device(v)) * v[None, :]


def check_zero_top(top: Any, needs: str = "a border vector a",
                   error: type[Exception] = InputError) -> None:
    """Refuse a nonzero top right-hand side ``top`` of a bordered solve that has no border
    (``needs``: what a nonzero one needs; ``error``: the exception raised)."""
    if not isinstance(top, (int, float)) or top != 0:
        raise error(f"a nonzero top right-hand side needs {needs}")


def borderless_bias(xp: Any, r: Any, like: Any, numpy: bool) -> Any:
    """The bias of a system without a border: ``0.0`` for one NumPy right-hand side ``r``, else
    zeros of ``r``'s trailing shape in ``like``'s namespace, dtype and device."""
    if r.ndim == 1 and numpy:
        return 0.0
    return xp.zeros(r.shape[1:], dtype=like.dtype, device=aac.device(like))
