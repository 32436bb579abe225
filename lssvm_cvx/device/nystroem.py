r"""The Nyström LS-SVM streamed over row blocks on any array namespace and device, with the
exact leave-one-out error of the approximate model over a whole γ grid (issue 31).

The model is the one of ``LSSVMRegressor(approximation="nystroem")``
(:mod:`lssvm_cvx.estimators.lssvm_approx`): the features ``φ(x) = k(x, Z) P`` with
``P = V s^{-1/2}`` over the eigenpairs of ``K_ZZ`` kept by
:func:`~lssvm_cvx.kernels.psd.psd_eigh` (``s > 10⁻¹² s_max``), and the primal ridge with an
unpenalised bias

.. math::

   \min_{\theta, b}\ \tfrac12\|\theta\|^2 + \tfrac{\gamma}{2}\sum_i (y_i - \phi(x_i)^\top\theta - b)^2
   \iff (\tilde\Phi^\top\tilde\Phi + I/\gamma)\,\theta = \tilde\Phi^\top\tilde y,
   \quad b = \bar y - \bar\phi^\top\theta,

with ``Φ̃``, ``ỹ`` centred.  Its exact LOO residual is ``(y_i - ŷ_i) / (1 - h_i)`` with
``h_i = 1/N + φ̃_iᵀ(Φ̃ᵀΦ̃ + I/γ)⁻¹φ̃_i``.

Two passes over the rows, each one kernel block ``K_B = k(X_B, Z)`` and one ``B × m × m``
product:

1. the normal equations in the kernel basis about a shift ``k₀`` (the first block's column
   means): ``G = Σ D_Bᵀ D_B``, ``Σ D_Bᵀ(y - y₀)``, ``Σ D_Bᵀ 1`` with ``D_B = K_B - k₀ᵀ``
   (accumulated in float64 whatever the features' dtype), so that
   ``Φ̃ᵀΦ̃ = Pᵀ(G - N d̄ d̄ᵀ)P``; then one ``r × r`` eigendecomposition ``Φ̃ᵀΦ̃ = Q S Qᵀ``.
   Without the shift, ``Σ K_BᵀK_B - N k̄ k̄ᵀ`` cancels most digits when the kernel values sit
   close to their means (wide RBF widths): 2.8e-6 relative between two correct float64 runs
   (PyTorch and NumPy) of the benchmark's N = 2000 problem, against 1e-10 with it;
2. ``Ψ_B = (K_B - k̄ᵀ) P Q``, from which every γ's predictions ``Ψ_B (c ⊙ w_γ)`` and leverages
   ``1/N + Ψ_B² w_γ`` come from two ``B × r × n_γ`` products (``c = QᵀΦ̃ᵀỹ``,
   ``w_γ = 1/(S + 1/γ)``).

The coefficients are returned in the kernel basis: ``f(x) = k(x, Z) β + b`` with ``β = P θ``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..exceptions import HyperparameterError, InputError, NotPSDError
from ..kernels.psd import PSD_FACTOR_RTOL
from .arrays import check_memory, float_dtype, namespace_of, positive
from .lssvm import rbf_gram

__all__ = ["NystroemPath", "nystroem_loo_path"]

@dataclass
class NystroemPath:
    """What :func:`nystroem_loo_path` returns (arrays in the inputs' namespace and device).

    Attributes
    ----------
    gammas : list of float
        The γ grid.
    scores : array of shape (n_gammas,)
        Mean squared exact LOO residual of the approximate model at every γ (all N rows).
    gamma : float
        The γ of the smallest score.
    coef : array of shape (m,)
        ``β`` at ``gamma``: ``f(x) = k(x, Z) β + b``.
    intercept : 0-d array
        ``b`` at ``gamma``.
    rank : int
        Eigenpairs of ``K_ZZ`` kept (the number of features ``r``).
    """

    gammas: list[float]
    scores: Any
    gamma: float
    coef: Any
    intercept: Any
    rank: int

    def predict(self, X: Any, centres: Any, *, sigma2: float, block_rows: int = 65536) -> Any:
        """``k(X, Z) β + b`` for the rows of ``X`` (same namespace and device)."""
        xp, _ = namespace_of(X, centres, self.coef)
        n = int(X.shape[0])
        parts = [rbf_gram(X[s:min(s + block_rows, n), ...], centres, sigma2=sigma2) @ self.coef
                 for s in range(0, n, block_rows)]
        return xp.concat(parts) + self.intercept


def _blocks(n: int, block_rows: int) -> list[tuple[int, int]]:
    return [(s, min(s + block_rows, n)) for s in range(0, n, block_rows)]


def nystroem_loo_path(X: Any, y: Any, centres: Any, *, sigma2: float, gammas: Any,
                      block_rows: int = 65536) -> NystroemPath:
    """Fit the Nyström LS-SVM (RBF kernel, centres ``Z``) at the γ of the smallest exact LOO
    error over ``gammas``, in two streamed passes over the rows (module docstring).

    Parameters
    ----------
    X : array of shape (n, d)
        Rows, float32 or float64 (the features are computed in this dtype; the normal
        equations and everything after them in float64).
    y : array of shape (n,)
    centres : array of shape (m, d)
        The landmarks ``Z`` (for example ``m`` rows of ``X`` drawn at random).
    sigma2 : float
        RBF width σ².
    gammas : sequence of float
        The γ grid.
    block_rows : int, default=65536
        Rows per block (temporary memory ≈ 3 ``block_rows × m`` arrays).

    Returns
    -------
    NystroemPath

    Raises
    ------
    InputError
        Shapes that do not match, non-finite values, a block that does not fit in memory.
    NotPSDError
        When ``K_ZZ`` has no positive eigenvalue.
    """
    xp, device = namespace_of(X, y, centres)
    dt = float_dtype(xp, X, y, centres)
    gs = [positive(g) for g in gammas]
    if not gs:
        raise HyperparameterError("gammas must hold at least one value")
    if X.ndim != 2 or centres.ndim != 2 or X.shape[1] != centres.shape[1]:
        raise InputError(f"X and centres must be matrices with the same columns, got shapes "
                         f"{tuple(X.shape)} and {tuple(centres.shape)}")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y must be a vector of length {X.shape[0]} (the rows of X), got shape "
                         f"{tuple(y.shape)}")
    if not (bool(xp.all(xp.isfinite(X))) and bool(xp.all(xp.isfinite(y)))):
        raise InputError("X and y must be finite (NaN or inf found)")
    n, m = int(X.shape[0]), int(centres.shape[0])
    check_memory(min(block_rows, n), 8, 3.0, xp, device, cols=m)
    f64 = xp.float64

    # the feature map: eigenpairs of K_ZZ kept as psd_eigh keeps them (ascending order here)
    s, V = xp.linalg.eigh(rbf_gram(xp.astype(centres, f64), sigma2=sigma2))
    keep = int(xp.sum(xp.astype(s > PSD_FACTOR_RTOL * max(float(s[-1]), 0.0), xp.int64)))
    if keep == 0:
        raise NotPSDError("the Gram of the Nyström centres has no positive eigenvalue")
    P = V[:, m - keep:] / xp.sqrt(s[m - keep:])[None, :]

    # pass 1: the normal equations in the kernel basis (float64 accumulation), about a shift
    # (k₀, y₀) = the first block's means: the RBF values of wide kernels sit close to their
    # mean, and G - N k̄ k̄ᵀ about zero would cancel most of the digits of the centred part
    G = xp.zeros((m, m), dtype=f64, device=device)
    ky = xp.zeros((m,), dtype=f64, device=device)
    k1 = xp.zeros((m,), dtype=f64, device=device)
    ysum = 0.0
    k0: Any = None
    y0 = 0.0
    for a, b in _blocks(n, block_rows):
        KB = rbf_gram(X[a:b, ...], centres, sigma2=sigma2, block_rows=b - a)
        if a == 0:
            k0, y0 = xp.mean(KB, axis=0), float(xp.mean(xp.astype(y[a:b], f64)))
        DB, eB = KB - k0[None, :], y[a:b] - y0
        G = G + xp.astype(xp.matrix_transpose(DB) @ DB, f64)
        ky = ky + xp.astype(xp.matrix_transpose(DB) @ eB, f64)
        k1 = k1 + xp.astype(xp.sum(DB, axis=0), f64)
        ysum += float(xp.sum(xp.astype(eB, f64)))
    dbar, ebar = k1 / n, ysum / n
    kbar, ybar = xp.astype(k0, f64) + dbar, y0 + ebar
    A = xp.matrix_transpose(P) @ ((G - n * dbar[:, None] * dbar[None, :]) @ P)
    S, Q = xp.linalg.eigh((A + xp.matrix_transpose(A)) / 2)
    S = xp.clip(S, 0.0, None)
    T = P @ Q                                                   # m × r: Ψ = (K - k̄ᵀ) T
    c = xp.matrix_transpose(T) @ (ky - n * ebar * dbar)         # Qᵀ Φ̃ᵀ ỹ
    W = 1.0 / (S[:, None] + 1.0 / xp.asarray(gs, dtype=f64, device=device)[None, :])   # r × n_γ
    CW = c[:, None] * W

    # pass 2: every γ's predictions and leverages
    T_, CW_, W_, kb = (xp.astype(a, dt) for a in (T, CW, W, kbar))
    sse = xp.zeros((len(gs),), dtype=f64, device=device)
    for a, b in _blocks(n, block_rows):
        # centred before the product (K_B T - k̄ᵀT would cancel digits as G - N k̄ k̄ᵀ does)
        Psi = (rbf_gram(X[a:b, ...], centres, sigma2=sigma2, block_rows=b - a) - kb[None, :]) @ T_
        fit = xp.astype(Psi @ CW_, f64) + ybar
        lev = xp.astype((Psi * Psi) @ W_, f64) + 1.0 / n
        r = (xp.astype(y[a:b], f64)[:, None] - fit) / (1.0 - lev)
        sse = sse + xp.sum(r * r, axis=0)
    scores = sse / n
    j = int(xp.argmin(scores))
    coef = T @ CW[:, j]
    return NystroemPath(gammas=gs, scores=scores, gamma=gs[j], coef=coef,
                        intercept=ybar - xp.sum(kbar * coef), rank=keep)
