"""Cholesky factorization with LAPACK's condition estimate (the SPD solve of every closed form)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import array_api_compat as aac
import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from ..exceptions import ConditioningWarning, InputError, NotPSDError, NotSupportedError

__all__ = ["COND_WARN", "Cholesky", "one_norm"]

#: reciprocal-condition threshold below which a solve warns (the solve still happens)
COND_WARN = 1e-12


def one_norm(A: Any) -> float:
    """``max_j Σ_i |A_ij|``, the 1-norm that the condition estimates take, of a matrix of any
    array-API namespace; the one place the package computes it.

    A NumPy ``A`` is read in place by LAPACK ``?lange`` (a C-ordered ``A`` as its
    Fortran-ordered transpose, whose infinity-norm it is); until 2026-12-06 it was
    ``np.abs(A).sum(axis=0).max()``, which makes an n × n temporary (``notes/one_norm_cost.py``
    times both).  Any other namespace (PyTorch, CuPy, ``array-api-strict``) sums ``|A|`` in
    its own namespace and device.
    """
    if not isinstance(A, np.ndarray):
        xp = aac.array_namespace(A)
        return float(xp.max(xp.sum(xp.abs(A), axis=0)))
    lange = lapack.get_lapack_funcs("lange", (A,))
    if A.flags.c_contiguous and not A.flags.f_contiguous:
        return float(lange("I", A.T))
    return float(lange("1", A))


@dataclass
class Cholesky:
    """Cholesky factor of an SPD matrix ``H = L L'`` with lazily computed extras.

    Raises :class:`NotPSDError` (naming the matrix) when the factorization fails, and warns
    with :class:`ConditioningWarning` when LAPACK's reciprocal condition estimate (``dpocon``,
    O(n²) after the factorization) is below :data:`COND_WARN`.

    ``c`` is the triangle LAPACK returned (``lower`` says which).  A C-ordered symmetric ``H``
    factorised with ``overwrite=True`` is handed to LAPACK as its (Fortran-ordered) transpose,
    which is the same matrix, so no copy is made; the factor is then the upper triangle ``U``
    with ``U'U = H`` and :attr:`L` is its transpose (a view).
    """

    c: np.ndarray
    lower: bool
    rcond: float
    _Linv: np.ndarray | None = field(default=None, repr=False)
    _inv_diag: np.ndarray | None = field(default=None, repr=False)
    #: True once :meth:`inv_diag` has overwritten the factor with ``L^{-1}``
    spent: bool = field(default=False, repr=False)

    @classmethod
    def factor(cls, H: np.ndarray, *, name: str = "H", overwrite: bool = False,
               check_cond: bool = True) -> Cholesky:
        H = np.asarray(H, dtype=np.float64)
        if H.ndim != 2 or H.shape[0] != H.shape[1]:
            raise InputError(f"{name} must be a square matrix, got shape {H.shape}")
        anorm = one_norm(H) if check_cond else 0.0
        transpose = overwrite and H.flags.c_contiguous and not H.flags.f_contiguous
        work, lower = (H.T, False) if transpose else (H, True)
        c, info = lapack.dpotrf(work, lower=int(lower), clean=1, overwrite_a=int(overwrite))
        if info > 0:
            raise NotPSDError(
                f"{name} is not positive definite (Cholesky failed at pivot {info}); the kernel "
                "matrix is not PSD within the regularization, or a hyperparameter makes the "
                "system singular"
            )
        if info < 0:  # pragma: no cover - argument error inside LAPACK
            raise InputError(f"dpotrf rejected argument {-info} of {name}")
        if not np.all(np.isfinite(np.diagonal(c))):
            raise InputError(f"{name} contains NaN or inf")
        rcond = 1.0
        if check_cond:
            rcond, info = lapack.dpocon(c, anorm, uplo="L" if lower else "U")
            if rcond < COND_WARN:
                warnings.warn(
                    f"{name} is nearly singular: reciprocal condition estimate {rcond:.2e} "
                    f"(condition ≈ {1 / max(rcond, 1e-300):.2e}); results may have lost accuracy",
                    ConditioningWarning,
                    stacklevel=3,
                )
        return cls(c=c, lower=lower, rcond=float(rcond))

    @property
    def L(self) -> np.ndarray:
        """The lower factor ``L`` (``H = L L'``); a transposed view when LAPACK returned ``U``."""
        c = self._factor()
        return c if self.lower else c.T

    @property
    def n(self) -> int:
        return self.c.shape[0]

    def solve(self, B: np.ndarray) -> np.ndarray:
        """``H^{-1} B`` by two triangular solves."""
        return sla.cho_solve((self._factor(), self.lower), B, check_finite=False)

    def _factor(self) -> np.ndarray:
        """The triangle ``c``, unless :meth:`inv_diag` spent it."""
        if self.spent:
            raise NotSupportedError("this Cholesky factor was overwritten by its inverse "
                                    "(inv_diag(overwrite=True)): factorise again")
        return self.c

    @property
    def Linv(self) -> np.ndarray:
        """``L^{-1}`` (lower triangular), computed once by LAPACK ``dtrtri`` (n³/3 flops) and
        kept (:meth:`inv_block` reads it once per fold)."""
        if self._Linv is None:
            self._Linv = self._triangular_inverse()
        return self._Linv

    def _triangular_inverse(self, overwrite: bool = False) -> np.ndarray:
        """``L^{-1}``: a new n × n array, or (``overwrite``) in the factor's memory."""
        inv, info = lapack.dtrtri(self._factor(), lower=int(self.lower),
                                  overwrite_c=int(overwrite))
        if info != 0:  # pragma: no cover - the factor has a positive diagonal
            raise NotPSDError("triangular inversion failed")
        return inv if self.lower else inv.T  # (U^{-1})' = (U')^{-1} = L^{-1}

    def inv_diag(self, *, overwrite: bool = False) -> np.ndarray:
        """``diag(H^{-1})`` = column sums of squares of ``L^{-1}`` (a new vector each call).

        The diagonal is kept, not ``L^{-1}``: since 2026-12-06 a factor that answered a
        leave-one-out question holds n numbers more instead of n² (the screened search keeps
        its best system for the final fit, so its peak memory is one n × n array lower).
        ``L^{-1}`` is reused when :attr:`Linv` was already computed.

        ``overwrite=True`` (a caller's last question of this factor: a path that scores each
        weight once, :meth:`~lssvm_cvx.linalg.engine.Decomposition.path`) computes ``L^{-1}``
        in the factor's own memory, so no n × n array is allocated; the factor is then
        :attr:`spent` and :meth:`solve`, :attr:`L`, :attr:`Linv` and :meth:`inv_block` raise
        :class:`~lssvm_cvx.exceptions.NotSupportedError`.
        """
        if self._inv_diag is None:
            spend = overwrite and self._Linv is None
            Linv = self._triangular_inverse(spend) if self._Linv is None else self._Linv
            self._inv_diag = np.einsum("ij,ij->j", Linv, Linv)
            self.spent = spend
        return self._inv_diag.copy()

    def inv_block(self, idx: np.ndarray) -> np.ndarray:
        """Principal sub-block ``(H^{-1})[idx, idx]``."""
        B = self.Linv[:, idx]
        return B.T @ B


