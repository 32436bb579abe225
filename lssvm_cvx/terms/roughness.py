r"""Roughness complexity ``E_c`` of a kernel expansion (You, Benitez-Quiroz & Martinez 2014,
eq. 13, 16, 17) and the L2 (RKHS) norm complexity (eq. 22).

For a fitted function ``f(x) = b + Σ_m α_m k(x_m, x)`` on training data ``(x_i, y_i)``,
``i = 1..n``, ``x_i ∈ R^p``, the noise-injection argument of §II-A gives (eq. 9-11)
``E = E_f + ν E_c`` with

.. math::

    E_f = \frac{1}{2n}\sum_i (y_i - f(x_i))^2 \quad (12), \qquad
    E_c = \frac{1}{2n}\sum_i \operatorname{tr} \nabla^2_z L(z_i)
        = \frac{1}{2n}\sum_i \Big(\|\nabla f(x_i)\|^2 + (f(x_i) - y_i)\,\Delta f(x_i)\Big)
          + \frac{q}{2},

where ``L(z) = ½||y - f(x)||²`` and ``z = (x, y)``; ``q`` is the number of outputs (here
``q = 1`` per target column; several columns add up).  The derivatives are those of the
*fitted function* with the centres ``x_m`` held fixed (the noise perturbs the input at which
``f`` is evaluated, not the trained model).  Writing ``∇f(x_i)_j = (A_j α)_i`` and
``Δf(x_i) = (P α)_i`` with the kernel-derivative matrices

* RBF, ``k(x_m, x) = exp(-||x - x_m||²/σ²)`` (package convention, ``σ² = sigma2 = 2σ_paper²``):
  ``(A_j)_{im} = (2/σ²) K_{im} (x_{mj} - x_{ij})`` and
  ``P_{im} = K_{im} ((4/σ⁴) ||x_m - x_i||² - 2p/σ²)`` (the paper's ``p_i'`` are the rows of P);
* polynomial, ``k(x_m, x) = (x_m'x + t)^d``: ``(A_j)_{im} = d G_{im}^{d-1} x_{mj}`` and
  ``P_{im} = d(d-1) G_{im}^{d-2} ||x_m||²`` with ``G = X X' + t`` (the paper's ``g_i'``),

the roughness is the quadratic of eq. (16)/(17)

.. math::

    E_c(α) = α' M α - \mathbf{q}'α + \tfrac12, \qquad
    M = \frac{1}{2n}\Big(\sum_i R_i + K P\Big),\quad R_i = \sum_j A_j[i]' A_j[i],\quad
    \mathbf{q} = \frac{1}{2n} P'(y - b).

``R = Σ_i R_i = Σ_j A_j'A_j`` is PSD (it has the factor ``F = [A_1; …; A_p]``); ``KP`` is not
symmetric and its symmetric part is indefinite in general, so ``E_c`` is a non-convex
quadratic of α.  :meth:`Roughness.convex_majorant` keeps ``R`` and the PSD part of
``sym(KP)``: an upper bound of ``E_c`` that is convex in α (used by the α-space Pareto front).

Paper slips (each has a test in ``tests/test_roughness.py`` that fails on the printed version)
----------------------------------------------------------------------------------------------
1. eq. (13) puts ``+q`` inside ``Σ_k Σ_j``; eq. (10) and Appendix A add it once per sample.
   The constant of ``E_c`` is therefore ``q/2``, not ``p q²/2`` — and not the ``+n`` per output
   printed in eq. (16)/(17).  We use ``+½`` per output, checked against the trace of the
   Hessian of the loss in ``z = (x, y)`` computed by finite differences (the definition, eq. 9).
2. The ``m = i`` entries.  The paper differentiates ``k(x_i, x_i)`` as if the centre ``x_i``
   moved with the evaluation point: it sets the ``i``-th entry of ``p_ij`` to 0 (RBF), doubles
   the ``i``-th row of ``C_i`` and prints ``d(x_i'x_i+1)^{d-2}(3(d-1)x_ij² + 2(x_i'x_i+1))``
   for the ``i``-th entry of ``g_ij`` (polynomial).  For the fitted function the ``m = i``
   entries follow the same formula as every other ``m`` (for the RBF:
   ``-(2/σ²)`` per input, i.e. ``-1/σ_paper²``, not 0).
3. ``B_i = d C_i C_i'`` should be ``d² C_i C_i'`` (the first derivative carries a factor ``d``,
   squared).  We use ``A_j`` with the factor ``d`` inside.
4. The printed ``m``-th entry of ``g_ij``, ``d(d-1)(x_m'x_i+1)(d-2)x_mj²``, lost its exponent:
   it is ``d(d-1)(x_m'x_i+1)^{d-2} x_mj²``.
5. eq. (19): ``∫_{-π}^{π} f² = 2π a_0² + π Σ (a_k² + b_k²)`` (the paper prints ``2π a_0``);
   see :func:`fourier_l2_norm` (checked by numerical integration).

The L2 complexity of eq. (22) is ``α'Kα`` (:func:`l2_complexity`); the RKHS norm of ``f``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import as_gram, as_matrix, as_targets, check_integer, check_number, check_positive
from ..exceptions import HyperparameterError, InputError
from ..kernels.base import RBF, Kernel, Polynomial, sq_dists

__all__ = [
    "Roughness",
    "RBFRoughness",
    "PolynomialRoughness",
    "rbf_roughness",
    "poly_roughness",
    "roughness",
    "l2_complexity",
    "fit_error",
    "fourier_l2_norm",
    "fourier_roughness",
]


def _X(X: Any) -> np.ndarray:
    X = as_targets(X, None, name="X", columns=True)        # finite numbers, 1-D or 2-D
    return X[:, None] if X.ndim == 1 else X


def _alpha(alpha: Any, n: int) -> np.ndarray:
    return as_targets(alpha, n, name="alpha (one row per centre)", columns=True)


def _cols(a: np.ndarray) -> np.ndarray:
    return a[:, None] if a.ndim == 1 else a


@dataclass
class Roughness:
    """Kernel-derivative matrices of ``f(x) = b + Σ_m α_m k(x_m, x)`` at the training points.

    Subclasses fill ``K`` (``K_im = k(x_m, x_i)``), ``P`` (Laplacian matrix, rows = the
    paper's ``p_i'`` / ``g_i'``) and implement the matrix-free gradient maps
    :meth:`grad_f` (``α ↦ [∇f(x_i)]_i``, shape ``(n, p)``) and :meth:`grad_adjoint`.  Nothing of
    size ``p n²`` is formed unless :meth:`factor`, :meth:`R` or :meth:`R_i` is called.
    """

    X: np.ndarray
    K: np.ndarray = field(repr=False)
    P: np.ndarray = field(repr=False)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def p(self) -> int:
        return self.X.shape[1]

    # ---- to implement ----------------------------------------------------------------------
    def grad_f(self, alpha: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """Gradients ``∇f(x_i)`` (rows) for one coefficient vector."""
        raise NotImplementedError

    def grad_adjoint(self, V: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """``Σ_j A_j' V[:, j]`` (adjoint of :meth:`grad_f`)."""
        raise NotImplementedError

    def A(self) -> np.ndarray:  # pragma: no cover - abstract
        """The tensor ``A[j] = A_j`` of shape ``(p, n, n)`` (``∇f(x_i)_j = (A_j α)_i``)."""
        raise NotImplementedError

    # ---- the paper's matrices -----------------------------------------------------------------
    def R_i(self, i: int) -> np.ndarray:
        """``R_i`` (RBF, eq. 16) / ``B_i`` (polynomial, eq. 17): ``α'R_iα = ||∇f(x_i)||²``."""
        Ai = self.A()[:, i, :]  # (p, n): row j is the i-th row of A_j
        return Ai.T @ Ai

    def p_i(self, i: int) -> np.ndarray:
        """``p_i`` (RBF) / ``g_i`` (polynomial): ``p_i'α = Δf(x_i)``."""
        return self.P[i].copy()

    def factor(self) -> np.ndarray:
        """``F = [A_1; …; A_p]`` (``(p n, n)``) with ``Σ_i R_i = F'F``."""
        return self.A().reshape(self.p * self.n, self.n)

    def R(self) -> np.ndarray:
        """``Σ_i R_i = Σ_j A_j'A_j`` (PSD)."""
        A = self.A()
        return np.einsum("jim,jik->mk", A, A)

    def M(self) -> np.ndarray:
        """``M`` of eq. (16) / ``N`` of eq. (17): ``(Σ_i R_i + K P) / 2n`` (not symmetric)."""
        return (self.R() + self.K @ self.P) / (2 * self.n)

    def q(self, y: Any, b: float = 0.0) -> np.ndarray:
        """``q`` of eq. (16) / ``u`` of eq. (17), ``P'(y - b)/2n`` (one column per target)."""
        y = np.asarray(y, dtype=np.float64)
        return self.P.T @ (y - b) / (2 * self.n)

    def convex_majorant(self) -> np.ndarray:
        """``M₊ = (R + [sym(KP)]₊)/2n``: PSD, and ``α'M₊α ≥ α'Mα`` for every α.

        ``[S]₊`` keeps the non-negative eigenvalues of the symmetric part of ``KP``.  Replacing
        ``M`` by ``M₊`` in eq. (16) gives a convex upper bound of ``E_c`` (exact wherever the
        curvature term is non-negative), used for the α-space Pareto front.
        """
        S = self.K @ self.P
        S = (S + S.T) / 2
        w, V = np.linalg.eigh(S)
        Sp = (V * np.maximum(w, 0.0)) @ V.T
        return (self.R() + Sp) / (2 * self.n)

    # ---- evaluation -------------------------------------------------------------------------
    def fitted(self, alpha: Any, b: Any = 0.0) -> np.ndarray:
        """``f(x_i) = b + (Kα)_i``."""
        return self.K @ _alpha(alpha, self.n) + b

    def laplacian(self, alpha: Any) -> np.ndarray:
        """``Δf(x_i) = (Pα)_i``."""
        return self.P @ _alpha(alpha, self.n)

    def E_c(self, alpha: Any, y: Any, b: Any = 0.0) -> float:
        """Roughness ``E_c`` (eq. 13 with the constant of eq. 10), summed over target columns."""
        a = _cols(_alpha(alpha, self.n))
        Y = _cols(np.asarray(y, dtype=np.float64))
        B = np.broadcast_to(np.asarray(b, dtype=np.float64), (a.shape[1],))
        total = 0.0
        for l in range(a.shape[1]):
            G = self.grad_f(a[:, l])
            r = self.K @ a[:, l] + B[l] - Y[:, l]
            total += (np.sum(G * G) + r @ (self.P @ a[:, l])) / (2 * self.n) + 0.5
        return float(total)

    def grad_alpha(self, alpha: Any, y: Any, b: float = 0.0) -> np.ndarray:
        """``∂E_c/∂α = (M + M')α - q`` for one target column (matrix-free, O(p n²))."""
        a = _alpha(alpha, self.n)
        if a.ndim != 1:
            raise InputError("grad_alpha takes one coefficient vector")
        G = self.grad_f(a)
        r = self.K @ a + b - np.asarray(y, dtype=np.float64)
        return (2 * self.grad_adjoint(G) + self.K.T @ (self.P @ a) + self.P.T @ r) / (2 * self.n)

    def grad_b(self, alpha: Any) -> float:
        """``∂E_c/∂b = 1'Pα / 2n``."""
        return float(np.sum(self.P @ _alpha(alpha, self.n)) / (2 * self.n))


class RBFRoughness(Roughness):
    """Roughness matrices of the RBF kernel ``exp(-||x - z||²/sigma2)`` (eq. 16).

    ``sigma2`` is the package's width (``sigma2 = 2σ²`` with the paper's σ of
    ``exp(-||x - z||²/2σ²)``).  :meth:`dE_c_dsigma2` gives the explicit derivative at fixed α
    needed by the θ-space gradients of §IV-A.
    """

    sigma2: float
    D: np.ndarray

    def __init__(self, X: Any, sigma2: float):
        X = _X(X)
        self.sigma2 = check_positive(sigma2, "sigma2")
        self.D = sq_dists(X)
        K = np.exp(-self.D / self.sigma2)
        s = self.sigma2
        P = K * ((4.0 / s**2) * self.D - 2.0 * X.shape[1] / s)
        super().__init__(X, K, P)

    def grad_f(self, alpha):
        X, K = self.X, self.K
        return (2.0 / self.sigma2) * (K @ (alpha[:, None] * X) - (K @ alpha)[:, None] * X)

    def grad_adjoint(self, V):
        X, K = self.X, self.K
        return (2.0 / self.sigma2) * (np.sum(X * (K.T @ V), axis=1) - K.T @ np.sum(V * X, axis=1))

    def A(self):
        X = self.X
        diff = X.T[:, None, :] - X.T[:, :, None]  # diff[j, i, m] = x_mj - x_ij
        return (2.0 / self.sigma2) * self.K[None, :, :] * diff

    # ---- derivatives in sigma2 (fixed alpha) ------------------------------------------------------
    def dK(self) -> np.ndarray:
        """``∂K/∂σ² = K ∘ D / σ⁴``."""
        return self.K * self.D / self.sigma2**2

    def dP(self) -> np.ndarray:
        """``∂P/∂σ²``."""
        s, p = self.sigma2, self.p
        return self.dK() * ((4.0 / s**2) * self.D - 2.0 * p / s) + self.K * (
            -8.0 * self.D / s**3 + 2.0 * p / s**2)

    def dE_c_dsigma2(self, alpha: Any, y: Any, b: float = 0.0) -> float:
        """``∂E_c/∂σ²`` with α and b held fixed (one target column)."""
        a = _alpha(alpha, self.n)
        X, s = self.X, self.sigma2
        dK = self.dK()
        G = self.grad_f(a)
        dG = -G / s + (2.0 / s) * (dK @ (a[:, None] * X) - (dK @ a)[:, None] * X)
        r = self.K @ a + b - np.asarray(y, dtype=np.float64)
        val = 2 * np.sum(G * dG) + (dK @ a) @ (self.P @ a) + r @ (self.dP() @ a)
        return float(val / (2 * self.n))


class PolynomialRoughness(Roughness):
    """Roughness matrices of the polynomial kernel ``(x'z + t)^degree`` (eq. 17)."""

    def __init__(self, X: Any, degree: int, t: float = 1.0):
        X = _X(X)
        check_integer(degree, "degree")
        check_positive(t, "t", allow_zero=True)
        self.degree, self.t = int(degree), float(t)
        d = self.degree
        self.G = X @ X.T + self.t
        K = self.G**d
        self.Gd1 = d * self.G ** (d - 1)  # ∂k/∂(x'z)
        if d >= 2:
            P = d * (d - 1) * self.G ** (d - 2) * np.sum(X * X, axis=1)[None, :]
        else:
            P = np.zeros_like(K)
        super().__init__(X, K, P)

    def grad_f(self, alpha):
        return self.Gd1 @ (alpha[:, None] * self.X)

    def grad_adjoint(self, V):
        return np.sum(self.X * (self.Gd1.T @ V), axis=1)

    def A(self):
        return self.Gd1[None, :, :] * self.X.T[:, None, :]


def rbf_roughness(X: Any, sigma2: float) -> RBFRoughness:
    """Roughness matrices (eq. 16) of the RBF kernel ``exp(-||x - z||²/sigma2)`` on ``X``."""
    return RBFRoughness(X, sigma2)


def poly_roughness(X: Any, degree: int, t: float = 1.0) -> PolynomialRoughness:
    """Roughness matrices (eq. 17) of the polynomial kernel ``(x'z + t)^degree`` on ``X``."""
    return PolynomialRoughness(X, degree, t)


def roughness(kernel: Kernel, X: Any) -> Roughness:
    """Roughness matrices for a :class:`~lssvm_cvx.kernels.RBF` or
    :class:`~lssvm_cvx.kernels.Polynomial` kernel object."""
    if isinstance(kernel, RBF):
        kernel.validate()
        return RBFRoughness(X, float(kernel.sigma2))
    if isinstance(kernel, Polynomial):
        kernel.validate()
        return PolynomialRoughness(X, int(kernel.degree), float(kernel.t))
    raise HyperparameterError(
        f"the roughness of eq. (16)-(17) is derived for RBF and polynomial kernels, got {kernel!r}")


def l2_complexity(K: Any, alpha: Any) -> float:
    """L2 (RKHS) norm complexity ``Σ_l α_l'Kα_l`` of eq. (22)."""
    K = as_gram(K, name="K")
    a = _cols(_alpha(alpha, K.shape[0]))
    return float(np.sum(a * (K @ a)))


def fit_error(K: Any, alpha: Any, y: Any, b: Any = 0.0) -> float:
    """Model fit ``E_f = (1/2n) Σ_i ||y_i - f(x_i)||²`` (eq. 12).

    eq. (15) prints ``Σ_l (y_l - Kα_l)'(y_l - Kα_l)`` without the ``1/2n`` of eq. (12); we keep
    eq. (12) so that ``E = E_f + νE_c`` (eq. 11) holds with both terms on the same scale.
    """
    K = as_matrix(K, name="K")
    f = K @ _alpha(alpha, K.shape[1])
    try:
        r = as_targets(y, K.shape[0], columns=True) - (f + np.asarray(b, dtype=np.float64))
    except (TypeError, ValueError):
        r = np.full(0, np.nan)
    if r.shape != f.shape or not np.all(np.isfinite(r)):
        raise InputError(f"y and b must be finite and match K @ alpha of shape {f.shape}")
    return float(np.sum(r * r) / (2 * K.shape[0]))


def _fourier(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = as_targets(a, None, name="a"), as_targets(b, None, name="b")
    if a.shape != b.shape:
        raise InputError(f"a and b must have one entry per frequency each, got {a.size} and {b.size}")
    return a, b


def fourier_l2_norm(a0: float, a: Any, b: Any) -> float:
    """``∫_{-π}^{π} f(x)² dx`` for ``f = a0 + Σ_k a_k sin kx + b_k cos kx`` (eq. 19, corrected:
    the constant term contributes ``2π a0²``; the paper prints ``2π a0``)."""
    a, b = _fourier(a, b)
    a0 = check_number(a0, "a0", error=InputError)
    return float(2 * np.pi * a0**2 + np.pi * np.sum(a**2 + b**2))


def fourier_roughness(a: Any, b: Any) -> float:
    """``∫_{-π}^{π} f'(x)² dx = π Σ_k k² (a_k² + b_k²)`` (eq. 21)."""
    a, b = _fourier(a, b)
    k = np.arange(1, a.size + 1)
    return float(np.pi * np.sum(k**2 * (a**2 + b**2)))
