"""The bordered system for ``H = Ω + λ I`` at many ``λ`` from one eigendecomposition."""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError, NotPSDError

__all__ = ["SpectralBordered", "EIGH_BREAK_EVEN", "use_eigh"]

#: number of regularization values from which one ``eigh`` beats one Cholesky (+ ``dtrtri``)
#: per value (measured ≈ 5-6× the cost of a Cholesky + ``dtrtri`` at N = 1000-2000 with
#: two-thread OpenBLAS; ``benchmarks/results/lssvm_loo.md``): the one eigh-vs-Cholesky rule
EIGH_BREAK_EVEN = 6


def use_eigh(n_values: int) -> bool:
    """The eigh-vs-Cholesky rule: sweep ``n_values`` regularization values from one
    eigendecomposition (True) or by one Cholesky factorization per value (False)."""
    return int(n_values) >= EIGH_BREAK_EVEN


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

