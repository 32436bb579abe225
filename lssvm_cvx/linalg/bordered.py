"""The bordered (bias) system ``[[0, a'], [a, H]] [b; α] = [0; r]`` from one Cholesky factor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cholesky import Cholesky

__all__ = ["BorderedSystem", "lssvm_system", "bordered_solve"]

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


def lssvm_system(Omega: np.ndarray, gamma: float | np.ndarray, border: np.ndarray | None, *,
                 name: str = "Omega + I/gamma", copy: bool = True) -> BorderedSystem:
    """Factorised bordered system of eq. (2)/(57)/(75): ``H = Ω + diag(1/γ)``, border ``a``.

    ``gamma`` is a scalar or one positive weight per row (weighted LS-SVM, eq. 75).  ``Ω`` is
    copied once (``copy=False`` adds the diagonal in place: for a Gram the caller owns).
    """
    H = np.array(Omega, dtype=np.float64, copy=copy)
    H[np.diag_indices_from(H)] += 1.0 / np.asarray(gamma, dtype=np.float64)
    return BorderedSystem.from_matrix(H, border, name=name, overwrite=True)


def bordered_solve(sys: BorderedSystem, r: np.ndarray, t: float | np.ndarray = 0.0
                   ) -> tuple[np.ndarray, Any]:
    """Solve ``[[0, a'], [a, H]] [β; μ] = [t; r]`` (non-zero top right-hand side allowed).

    :meth:`BorderedSystem.solve` covers ``t = 0``; dual variables of the fused problems need
    the general case.  With ``v = H^{-1} r``: ``β = (a'v - t)/(a'H^{-1}a)``, ``μ = v - H^{-1}a β``.
    Returns ``(μ, β)``.
    """
    v = sys.chol.solve(r)
    beta = (sys.a @ v - t) / sys.s
    mu = v - (np.multiply.outer(sys.u, beta) if np.ndim(beta) else sys.u * beta)
    return mu, beta
