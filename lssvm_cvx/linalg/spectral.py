"""The bordered system for ``H = Ω + λ I`` at many ``λ`` from one eigendecomposition."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import array_api_compat as aac

from ..exceptions import InputError, NotPSDError
from .arrays import borderless_bias, check_zero_top, namespace_or_numpy
from .quadratic import QuadraticSystem
from .scores import block_residuals, diagonal_residuals, dual_gcv

__all__ = ["SpectralBordered", "SpectralSystem", "EIGH_BREAK_EVEN", "use_eigh"]

#: number of regularization values from which one ``eigh`` beats one Cholesky (+ ``dtrtri``)
#: per value (measured ≈ 5-6× the cost of a Cholesky + ``dtrtri`` at N = 1000-2000 with
#: two-thread OpenBLAS; ``benchmarks/results/lssvm_loo.md``): the one eigh-vs-Cholesky rule
EIGH_BREAK_EVEN = 6


def use_eigh(n_values: int) -> bool:
    """The eigh-vs-Cholesky rule: sweep ``n_values`` regularization values from one
    eigendecomposition (True) or by one Cholesky factorization per value (False)."""
    return int(n_values) >= EIGH_BREAK_EVEN


class SpectralBordered:
    """The bordered system for ``H = Ω + λ I`` at many ``λ`` from one eigendecomposition, on
    NumPy or on any array-API namespace and device (the namespace's ``eigh``).

    With ``Ω = V diag(s) V'``, ``H^{-1} = V diag(1/(s + λ)) V'`` so every quantity a
    regularization sweep needs costs O(n²) per ``λ`` after the O(n³) ``eigh``
    (AReg paper, Appendix B eq. 72-73 uses the same device).

    ``λ = 1/γ`` for the LS-SVM (eq. 2).  Negative eigenvalues of ``Ω`` below
    ``-rtol * max(s)`` raise :class:`NotPSDError`.
    """

    def __init__(self, Omega: Any, a: Any, *, rtol: float = 1e-8, name: str = "kernel matrix"):
        xp, _, self.numpy = namespace_or_numpy(Omega, a)
        self.xp = xp
        s, V = xp.linalg.eigh(Omega)
        s0, s1 = float(s[0]), float(s[-1])
        if s0 < -rtol * max(abs(s1), 1.0) * int(s.shape[0]):
            raise NotPSDError(f"{name} is not PSD: smallest eigenvalue {s0:.3g}")
        self.s = xp.clip(s, 0.0, None)
        self.V = V
        self.Vt = xp.matrix_transpose(V)
        self.a = a
        self.at: Any = None if a is None else self.Vt @ a  # None exactly when a is
        self._V2: Any = None
        #: ``sqrt(s)`` of :meth:`weighted` (None: the system is not a weighted one)
        self.r: Any = None
        #: whether every loss weight is 1 (:meth:`weighted` then skips the scalings)
        self.unit = True

    @classmethod
    def weighted(cls, K: Any, s: Any, *, border: Any = None, bias: bool = True
                 ) -> SpectralBordered:
        """The system of the weighted LS-SVM ``(K + cS^{-1})α + ba = y``, ``a'α = 0`` for
        every ``c`` (``s_i > 0``; the border ``a`` is ``1`` for None; ``bias=False``: no
        border): with ``α = S^{½}β`` it is ``(S^{½}KS^{½} + cI)β + S^{½}a b = S^{½}y``,
        ``(S^{½}a)'β = 0``, whose α-block of the bordered inverse is ``S^{½} C_β S^{½}``.
        :meth:`scale` maps ``y ↦ S^{½}y`` and ``β ↦ α``.  With unit weights (every
        ``s_i = 1``) the scalings are skipped: the same numbers (a product by 1 is exact)
        without the two ``N × N`` temporaries of ``S^{½}KS^{½}``."""
        xp = namespace_or_numpy(K, s)[0]
        r = xp.sqrt(s)
        unit = bool(xp.all(r == 1.0))
        a = (r if border is None else r * border) if bias else None
        spec = cls(K if unit else r[:, None] * K * r[None, :], a, name="S^½ K S^½")
        spec.r, spec.unit = r, unit
        return spec

    def scale(self, Y: Any) -> Any:
        """``S^{½}Y`` of :meth:`weighted` (``Y`` itself with unit weights)."""
        if self.unit:
            return Y
        return self.r[:, None] * Y if Y.ndim > 1 else self.r * Y

    @property
    def V2(self) -> Any:
        if self._V2 is None:
            self._V2 = self.V**2
        return self._V2

    def _check(self, lam: float) -> Any:
        if not lam > 0:
            raise InputError(f"the shift λ = 1/γ must be > 0, got {lam!r}")
        return 1.0 / (self.s + lam)

    def _border(self, w: Any) -> Any:
        """``a'H⁻¹a`` at the weights ``w = 1/(s + λ)`` (a float on NumPy, a 0-d array elsewhere:
        no host synchronisation per λ on a GPU)."""
        v = self.xp.sum(self.at * (w * self.at))
        return float(v) if self.numpy else v

    def solve(self, r: Any, lam: float, top: Any = 0.0) -> tuple[Any, Any]:
        """``(alpha, b)`` of the bordered system ``[[0, a'], [a, H]] [b; α] = [top; r]`` with
        ``H = Ω + λ I`` (``b`` of one right-hand side a float on NumPy, a 0-d array
        elsewhere; a nonzero ``top`` needs the border)."""
        w = self._check(lam)
        rt = self.Vt @ r
        if self.at is None:
            check_zero_top(top)
            return self.V @ (w[:, None] * rt if r.ndim > 1 else w * rt), borderless_bias(
                self.xp, r, rt, self.numpy)
        s_ = self._border(w)
        if r.ndim > 1:
            b = ((self.at * w) @ rt - top) / s_
            alpha = self.V @ (w[:, None] * (rt - self.at[:, None] * b[None, :]))
            return alpha, b
        b = ((self.at * w) @ rt - top) / s_
        b = float(b) if self.numpy else b
        return self.V @ (w * (rt - self.at * b)), b

    def alpha_inv_diag(self, lam: float) -> Any:
        """Diagonal of the α-block of the bordered inverse at ``λ``."""
        w = self._check(lam)
        d = self.V2 @ w
        if self.at is None:
            return d
        u = self.V @ (w * self.at)
        return d - u**2 / self._border(w)

    def alpha_inv_block(self, idx: Any, lam: float) -> Any:
        """Principal block ``C[idx, idx]`` of the α-block of the bordered inverse at ``λ``."""
        xp = self.xp
        w = self._check(lam)
        Vi = xp.take(self.V, xp.asarray(idx, device=aac.device(self.V)), axis=0)
        B = (Vi * w) @ xp.matrix_transpose(Vi)
        if self.at is None:
            return B
        ui = Vi @ (w * self.at)
        return B - ui[:, None] * ui[None, :] / self._border(w)


class SpectralSystem(QuadraticSystem):
    """The RKHS-only system at the total weight ``c`` as a view of one shared
    eigendecomposition (:meth:`SpectralBordered.weighted
    <lssvm_cvx.linalg.SpectralBordered.weighted>`, ``α = S^½β``): every question in O(N²),
    with the answers of :class:`~lssvm_cvx.linalg.quadratic.RKHSSystem` to round-off
    (:meth:`~lssvm_cvx.linalg.engine.Decomposition.systems` makes them).

    Parameters
    ----------
    spec : SpectralBordered
        The weighted system's eigendecomposition.
    c : float
        The total weight (``λ`` of the spectral system).
    s : array of shape (N,)
        The loss weights.
    """

    def __init__(self, spec: SpectralBordered, c: float, s: Any):
        self.spec, self.c, self.s = spec, float(c), s
        self.n = int(spec.V.shape[0])

    def _beta(self, Y: Any, top: Any = 0.0) -> tuple[Any, Any]:
        return self.spec.solve(self.spec.scale(Y), self.c, top)

    def solve(self, Y, top=0.0):
        """``(α, b)``; ``top``: the border row's right-hand side (``a'α = top``)."""
        beta, b = self._beta(Y, top)
        return self.spec.scale(beta), b

    def fit(self, Y: Any, folds: Sequence[Any] | None = None, *, cover: bool = False,
            last: bool = False) -> tuple[Any, Any, Any]:
        """``(α, b, residuals)`` from one solve: leave-one-out ``r_i = β_i / (sqrt(s_i)
        C_β,ii)`` (``folds=None``) or held out per fold (``cover``: the folds must cover every
        point)."""
        beta, b = self._beta(Y)
        spec = self.spec
        if folds is None:
            res = diagonal_residuals(beta, spec.alpha_inv_diag(self.c) * spec.r)
        else:
            res = block_residuals(beta, folds, partial(spec.alpha_inv_block, lam=self.c), spec.r,
                                  cover=cover)
        return spec.scale(beta), b, res

    def loo(self, Y):
        return self.fit(Y)[2]

    def kfold(self, Y, folds, *, cover=False):
        return self.fit(Y, folds, cover=cover)[2]

    def gcv(self, Y):
        """``α = S^½β``, ``y - ŷ = cS⁻¹α`` and ``I - H = cS⁻¹ C`` with ``C = S^½C_βS^½``
        (:func:`~lssvm_cvx.linalg.scores.dual_gcv`)."""
        beta, _ = self._beta(Y)
        if self.spec.unit:
            return dual_gcv(beta, self.spec.alpha_inv_diag(self.c), self.c)
        return dual_gcv(self.spec.scale(beta), self.s * self.spec.alpha_inv_diag(self.c),
                        self.c / self.s)
