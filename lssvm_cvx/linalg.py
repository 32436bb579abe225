"""Dense linear algebra shared by every closed form: Cholesky with diagnostics, the bordered
(bias) system of the LS-SVM, and the spectral form used to sweep a regularization constant.

The LS-SVM-type dual systems of the papers all have the bordered form

.. math::

    A = \\begin{bmatrix} 0 & a^T \\\\ a & H \\end{bmatrix},\\qquad
    A \\begin{bmatrix} b \\\\ \\alpha \\end{bmatrix} = \\begin{bmatrix} 0 \\\\ r \\end{bmatrix},

with ``H`` symmetric positive definite: ``H = Ω + I/γ`` and ``a = 1`` for regression (AReg
paper eq. 2), ``H = Ω + diag(1/γ_i)`` for the weighted LS-SVM (eq. 75), ``H = Ω + I`` and
``r = y - c`` for additive regularization (eq. 9), ``H = Ω_y + I/γ`` and ``a = y`` for the
classifier (eq. 57).  With ``H = L L^T`` (Cholesky) the Schur complement of ``H`` eliminates the
bias:

.. math::

    b = \\frac{a^T H^{-1} r}{a^T H^{-1} a}, \\qquad \\alpha = H^{-1} (r - a b),

two triangular solve pairs sharing one factorization.  The α-block of ``A^{-1}`` is
``C = H^{-1} - u u^T / (a^T u)`` with ``u = H^{-1} a``; its diagonal and principal sub-blocks
give exact leave-one-out and k-fold residuals (:mod:`lssvm_cvx.model_selection`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from .exceptions import ConditioningWarning, InputError, NotPSDError

__all__ = [
    "COND_WARN",
    "lssvm_system",
    "Cholesky",
    "BorderedSystem",
    "SpectralBordered",
]

#: reciprocal-condition threshold below which a solve warns (the solve still happens)
COND_WARN = 1e-12


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

    @classmethod
    def factor(cls, H: np.ndarray, *, name: str = "H", overwrite: bool = False,
               check_cond: bool = True) -> "Cholesky":
        H = np.asarray(H, dtype=np.float64)
        if H.ndim != 2 or H.shape[0] != H.shape[1]:
            raise InputError(f"{name} must be a square matrix, got shape {H.shape}")
        anorm = np.abs(H).sum(axis=0).max() if check_cond else 0.0
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
        return self.c if self.lower else self.c.T

    @property
    def n(self) -> int:
        return self.c.shape[0]

    def solve(self, B: np.ndarray) -> np.ndarray:
        """``H^{-1} B`` by two triangular solves."""
        return sla.cho_solve((self.c, self.lower), B, check_finite=False)

    @property
    def Linv(self) -> np.ndarray:
        """``L^{-1}`` (lower triangular), computed once by LAPACK ``dtrtri`` (n³/3 flops)."""
        if self._Linv is None:
            inv, info = lapack.dtrtri(self.c, lower=int(self.lower))
            if info != 0:  # pragma: no cover - the factor has a positive diagonal
                raise NotPSDError("triangular inversion failed")
            self._Linv = inv if self.lower else inv.T  # (U^{-1})' = (U')^{-1} = L^{-1}
        return self._Linv

    def inv_diag(self) -> np.ndarray:
        """``diag(H^{-1})`` = column sums of squares of ``L^{-1}``."""
        Linv = self.Linv
        return np.einsum("ij,ij->j", Linv, Linv)

    def inv_block(self, idx: np.ndarray) -> np.ndarray:
        """Principal sub-block ``(H^{-1})[idx, idx]``."""
        B = self.Linv[:, idx]
        return B.T @ B


@dataclass
class BorderedSystem:
    """Solve ``[[0, a'], [a, H]] [b; α] = [0; r]`` from one Cholesky factor of ``H``.

    Parameters
    ----------
    chol :
        Cholesky factor of ``H``.
    a :
        Border vector (``1`` for regression, ``y`` for the classifier).  ``None`` means no bias:
        the system reduces to ``H α = r`` and ``b = 0``.
    """

    chol: Cholesky
    a: np.ndarray | None
    u: np.ndarray | None = field(init=False, repr=False)
    s: float = field(init=False)

    def __post_init__(self):
        if self.a is None:
            self.u, self.s = None, np.inf
        else:
            self.u = self.chol.solve(self.a)
            self.s = float(self.a @ self.u)

    @classmethod
    def from_matrix(cls, H: np.ndarray, a: np.ndarray | None, *, name: str = "H",
                    overwrite: bool = False) -> "BorderedSystem":
        return cls(Cholesky.factor(H, name=name, overwrite=overwrite), a)

    def solve(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray | float]:
        """Return ``(alpha, b)``; ``r`` may have several columns (one solve pair for all)."""
        v = self.chol.solve(r)
        if self.a is None:
            return v, (np.zeros(r.shape[1:]) if r.ndim > 1 else 0.0)
        b = (self.a @ v) / self.s
        alpha = v - np.multiply.outer(self.u, b) if r.ndim > 1 else v - self.u * b
        return alpha, (b if r.ndim > 1 else float(b))

    def alpha_inv_diag(self) -> np.ndarray:
        """Diagonal of the α-block ``C`` of the bordered inverse (leave-one-out denominators)."""
        d = self.chol.inv_diag()
        if self.a is None:
            return d
        return d - self.u**2 / self.s

    def alpha_inv_block(self, idx: np.ndarray) -> np.ndarray:
        """Principal block ``C[idx, idx]`` of the α-block of the bordered inverse."""
        B = self.chol.inv_block(idx)
        if self.a is None:
            return B
        return B - np.outer(self.u[idx], self.u[idx]) / self.s


class SpectralBordered:
    """The bordered system for ``H = Ω + λ I`` at many ``λ`` from one eigendecomposition.

    With ``Ω = V diag(s) V'``, ``H^{-1} = V diag(1/(s + λ)) V'`` so every quantity a
    regularization sweep needs costs O(n²) per ``λ`` after the O(n³) ``eigh``
    (AReg paper, Appendix B eq. 72-73 uses the same device).

    ``λ = 1/γ`` for the LS-SVM (eq. 2).  Negative eigenvalues of ``Ω`` below
    ``-rtol * max(s)`` raise :class:`NotPSDError`.
    """

    def __init__(self, Omega: np.ndarray, a: np.ndarray | None, *, rtol: float = 1e-8,
                 name: str = "kernel matrix"):
        s, V = np.linalg.eigh(Omega)
        if s[0] < -rtol * max(abs(s[-1]), 1.0) * len(s):
            raise NotPSDError(f"{name} is not PSD: smallest eigenvalue {s[0]:.3g}")
        self.s = np.maximum(s, 0.0)
        self.V = V
        self.a = a
        self.at = None if a is None else V.T @ a
        self._V2 = None

    @property
    def V2(self) -> np.ndarray:
        if self._V2 is None:
            self._V2 = self.V**2
        return self._V2

    def _check(self, lam: float) -> np.ndarray:
        if not lam > 0:
            raise InputError(f"the shift λ = 1/γ must be > 0, got {lam!r}")
        return 1.0 / (self.s + lam)

    def solve(self, r: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray | float]:
        """``(alpha, b)`` of the bordered system with ``H = Ω + λ I``."""
        w = self._check(lam)
        rt = self.V.T @ r
        if self.a is None:
            return self.V @ (w[:, None] * rt if r.ndim > 1 else w * rt), (
                np.zeros(r.shape[1:]) if r.ndim > 1 else 0.0)
        s_ = float(self.at @ (w * self.at))
        if r.ndim > 1:
            b = (self.at * w) @ rt / s_
            alpha = self.V @ (w[:, None] * (rt - np.multiply.outer(self.at, b)))
            return alpha, b
        b = float((self.at * w) @ rt / s_)
        return self.V @ (w * (rt - self.at * b)), b

    def alpha_inv_diag(self, lam: float) -> np.ndarray:
        """Diagonal of the α-block of the bordered inverse at ``λ``."""
        w = self._check(lam)
        d = self.V2 @ w
        if self.a is None:
            return d
        u = self.V @ (w * self.at)
        return d - u**2 / float(self.at @ (w * self.at))

    def alpha_inv_block(self, idx: np.ndarray, lam: float) -> np.ndarray:
        """Principal block ``C[idx, idx]`` of the α-block of the bordered inverse at ``λ``."""
        w = self._check(lam)
        Vi = self.V[idx]
        B = (Vi * w) @ Vi.T
        if self.a is None:
            return B
        ui = Vi @ (w * self.at)
        return B - np.outer(ui, ui) / float(self.at @ (w * self.at))


def lssvm_system(Omega: np.ndarray, gamma: float | np.ndarray, border: np.ndarray | None, *,
                 name: str = "Omega + I/gamma", copy: bool = True) -> BorderedSystem:
    """Factorised bordered system of eq. (2)/(57)/(75): ``H = Ω + diag(1/γ)``, border ``a``.

    ``gamma`` is a scalar or one positive weight per row (weighted LS-SVM, eq. 75).  ``Ω`` is
    copied once (``copy=False`` adds the diagonal in place: for a Gram the caller owns).
    """
    H = np.array(Omega, dtype=np.float64, copy=copy)
    H[np.diag_indices_from(H)] += 1.0 / np.asarray(gamma, dtype=np.float64)
    return BorderedSystem.from_matrix(H, border, name=name, overwrite=True)
