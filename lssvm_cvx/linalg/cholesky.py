"""Cholesky factorization with LAPACK's condition estimate (the SPD solve of every closed form)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import array_api_compat as aac
import numpy as np
import scipy.linalg as sla
from scipy.linalg import blas, lapack

from ..exceptions import ConditioningWarning, InputError, NotPSDError, NotSupportedError

__all__ = ["COND_WARN", "RIDGES", "Cholesky", "inverse_one_norm", "one_norm"]

#: reciprocal-condition threshold below which a solve warns (the solve still happens)
COND_WARN = 1e-12
#: order from which the condition estimate runs on ``dtrsv`` solves (:func:`inverse_one_norm`)
#: instead of ``dpocon``: below it the Python steps cost more than ``dlatrs``' slower solves
#: (one thread, ``notes/condition_estimate_cost.py scan``, 2026-12-07: about 1.2× ``dpocon``'s
#: time at n = 450, 0.6× from 500 to 800, 20× at n = 10)
_TRSV_ORDER = 500
#: relative ridges (× max |diag H|) that :meth:`Cholesky.factor_ridged` tries, in turn, when
#: ``H`` does not factorise: the SPD closed forms' "factorise, else regularise" policy
RIDGES = (1e-12, 1e-10, 1e-8)


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


def inverse_one_norm(solve: Any, n: int) -> float:
    """Estimate ``‖H⁻¹‖₁`` of a symmetric ``H`` from solves with it: LAPACK's estimator.

    The algorithm of LAPACK ``dlacn2``, which ``dpocon`` calls (Higham, "FORTRAN codes for
    estimating the one-norm of a real or complex matrix", ACM TOMS 14(4), 1988, Alg. 4.1;
    Hager's method with at most 5 iterations and the alternating-sign test vector), step for
    step; ``H`` symmetric makes its ``H⁻ᵀx`` a ``solve`` too.  The estimate is a lower bound
    of ``‖H⁻¹‖₁`` (exact arithmetic), usually within a factor of 3.

    Why not ``dpocon`` itself: it solves with LAPACK ``dlatrs`` (a triangular solve guarded
    against overflow), and its estimate cost about a quarter of the Cholesky factor at
    N = 4000 (``notes/cholesky_factor_cost.py``); on the same factor this one took 25.7 ms
    against ``dpocon``'s 37.0 ms (``notes/condition_estimate_cost.py 4000 9``, 2026-12-07).
    Here a solve that overflows (to ``inf``, or to ``NaN`` from ``inf - inf``; a NaN left in
    the iteration would make the estimate too small) ends it with ``inf``: the reciprocal
    condition is then 0, where ``dpocon`` scales its solves and reports 0 or a tiny positive
    number; otherwise the two agree to rounding (``tests/test_cholesky_condition.py``).

    Raises
    ------
    InputError
        When ``n < 1`` (an empty matrix has no inverse to estimate).
    """
    if int(n) < 1:
        raise InputError(f"inverse_one_norm needs an order n >= 1, got {n}")

    def apply(v: np.ndarray) -> np.ndarray:
        x = solve(v)
        if not np.all(np.isfinite(x)):
            raise OverflowError
        return x

    try:
        x = apply(np.full(n, 1.0 / n))
        if n == 1:
            return float(abs(x[0]))
        est = float(np.abs(x).sum())
        sign = np.where(x >= 0, 1.0, -1.0)
        x = apply(sign.copy())
        j = int(np.argmax(np.abs(x)))
        for it in range(2, 6):
            x = np.zeros(n)
            x[j] = 1.0
            x = apply(x)
            est_old, est = est, float(np.abs(x).sum())
            new = np.where(x >= 0, 1.0, -1.0)
            if np.array_equal(new, sign) or est <= est_old:  # converged, or cycling
                break
            sign = new
            x = apply(sign.copy())
            j_last, j = j, int(np.argmax(np.abs(x)))
            if x[j_last] == abs(x[j]) or it == 5:
                break
        alt = (1.0 + np.arange(n) / (n - 1)) * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        est = max(est, 2.0 * float(np.abs(apply(alt)).sum()) / (3 * n))
    except OverflowError:  # a solve overflowed (inf, or inf - inf = NaN): H⁻¹ is huge
        return np.inf
    return est if np.isfinite(est) else np.inf


@dataclass
class Cholesky:
    """Cholesky factor of an SPD matrix ``H = L L'`` with lazily computed extras.

    Raises :class:`NotPSDError` (naming the matrix) when the factorization fails, and warns
    with :class:`ConditioningWarning` when LAPACK's reciprocal condition estimate (``dpocon``;
    from order 500 its algorithm on faster solves, :func:`inverse_one_norm`; O(n²) after the
    factorization) is below :data:`COND_WARN`.

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
        chol = cls(c=c, lower=lower, rcond=1.0)
        if check_cond and chol.n:
            chol.rcond = rcond = ((1.0 / inverse_one_norm(chol.solve, chol.n)) / anorm
                                  if chol.n >= _TRSV_ORDER else
                                  float(lapack.dpocon(c, anorm, uplo="L" if lower else "U")[0]))
            if rcond < COND_WARN:
                warnings.warn(
                    f"{name} is nearly singular: reciprocal condition estimate {rcond:.2e} "
                    f"(condition ≈ {1 / max(rcond, 1e-300):.2e}); results may have lost accuracy",
                    ConditioningWarning,
                    stacklevel=3,
                )
        return chol

    @classmethod
    def factor_ridged(cls, H: np.ndarray, *, name: str = "H",
                      ridges: tuple[float, ...] = RIDGES) -> Cholesky:
        """The factor of ``H``, else of ``H + r·max|diag H|·I`` for the first relative ridge
        ``r`` of ``ridges`` that factorises: the one "factorise, else regularise" policy of
        the SPD systems (a system positive semi-definite by construction whose flat
        directions, e.g. a penalty of zero slope, leave it singular).  No condition estimate
        (the ridge is the answer to a bad condition).

        Raises
        ------
        NotPSDError
            When ``H`` does not factorise with the largest ridge either.
        """
        H = np.asarray(H, dtype=np.float64)
        try:
            return cls.factor(H, name=name, check_cond=False)
        except NotPSDError:
            if not ridges:
                raise
        scale = float(np.max(np.abs(np.diagonal(H)))) or 1.0
        for i, ridge in enumerate(ridges):
            Hr = H.copy()
            Hr.flat[::Hr.shape[0] + 1] += ridge * scale
            try:
                return cls.factor(Hr, name=name, overwrite=True, check_cond=False)
            except NotPSDError:
                if i == len(ridges) - 1:
                    raise NotPSDError(f"{name} is not positive definite, even with a ridge "
                                      f"{ridge:.0e} × max|diag| on its diagonal") from None
        raise AssertionError("unreachable")  # pragma: no cover

    @property
    def L(self) -> np.ndarray:
        """The lower factor ``L`` (``H = L L'``); a transposed view when LAPACK returned ``U``."""
        c = self._factor()
        return c if self.lower else c.T

    @property
    def n(self) -> int:
        return self.c.shape[0]

    def solve(self, B: np.ndarray) -> np.ndarray:
        """``H^{-1} B`` by two triangular solves.

        One right-hand side is solved by two BLAS ``dtrsv`` in a copy of ``B``: at N = 4000
        they took 5.0 ms against 9.2 ms for LAPACK's ``dpotrs`` (``cho_solve``), which the
        LS-SVM fit called twice (``notes/condition_estimate_cost.py 4000 9``, 2026-12-07).
        """
        c, B = self._factor(), np.asarray(B)
        if B.ndim != 1 or B.shape[0] != c.shape[0] or not c.flags.f_contiguous:
            return sla.cho_solve((c, self.lower), B, check_finite=False)
        trsv = blas.get_blas_funcs("trsv", (c,))
        x = np.array(B, dtype=np.float64, order="F", copy=True)
        lower = int(self.lower)
        x = trsv(c, x, lower=lower, trans=1 - lower, overwrite_x=1)
        return trsv(c, x, lower=lower, trans=lower, overwrite_x=1)

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


