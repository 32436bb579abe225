r"""The two streamed passes behind the approximate LS-SVMs on a device (issue 31): the primal
ridge with an unpenalised bias on features ``φ(x) = b(x) P`` of a block map ``b`` (the kernel
columns ``k(x, Z)`` of the Nyström model, :mod:`.nystroem`; the random Fourier features,
:mod:`.rff`, with ``P = I``), and its exact leave-one-out error over a whole γ grid.

.. math::

   \min_{\theta, c}\ \tfrac12\|\theta\|^2 + \tfrac{\gamma}{2}\sum_i (y_i - \phi(x_i)^\top\theta - c)^2
   \iff (\tilde\Phi^\top\tilde\Phi + I/\gamma)\,\theta = \tilde\Phi^\top\tilde y,
   \quad c = \bar y - \bar\phi^\top\theta,

with ``Φ̃``, ``ỹ`` centred; the exact LOO residual is ``(y_i - ŷ_i) / (1 - h_i)`` with
``h_i = 1/N + φ̃_iᵀ(Φ̃ᵀΦ̃ + I/γ)⁻¹φ̃_i`` (the hat matrix of a ridge with an unpenalised
intercept is ``11ᵀ/N + Φ̃(Φ̃ᵀΦ̃ + I/γ)⁻¹Φ̃ᵀ``).

1. The normal equations in the block map's basis about a shift ``b₀`` (the first block's column
   means): ``G = Σ D_Bᵀ D_B``, ``Σ D_Bᵀ(y - y₀)``, ``Σ D_Bᵀ 1`` with ``D_B = b(X_B) - b₀ᵀ``
   (accumulated in float64 whatever the features' dtype), so that
   ``Φ̃ᵀΦ̃ = Pᵀ(G - N d̄ d̄ᵀ)P``; then one ``r × r`` eigendecomposition ``Φ̃ᵀΦ̃ = Q S Qᵀ``.
   Without the shift, ``Σ K_BᵀK_B - N k̄ k̄ᵀ`` cancels most digits when the kernel values sit
   close to their means (wide RBF widths): 2.8e-6 relative between two correct float64 runs
   (PyTorch and NumPy) of the device benchmark's N = 2000 Nyström problem, against 1e-10 with it.
2. ``Ψ_B = (b(X_B) - b̄ᵀ) P Q``, from which every γ's predictions ``Ψ_B (c ⊙ w_γ)`` and
   leverages ``1/N + Ψ_B² w_γ`` come from two ``B × r × n_γ`` products (``c = QᵀΦ̃ᵀỹ``,
   ``w_γ = 1/(S + 1/γ)``).

The coefficients are returned in the block map's basis: ``f(x) = b(x) β + c`` with ``β = P θ``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..exceptions import HyperparameterError, InputError
from ..linalg.arrays import check_memory
from ..linalg.scores import leverage_residuals
from .arrays import positive

__all__ = ["StreamedPath", "check_rows", "two_pass_loo"]


def check_rows(xp: Any, device: Any, X: Any, y: Any, gammas: Any, *, block_rows: int,
               cols: int) -> list[float]:
    """The checks both approximate paths make of their rows and γ grid, before any pass: a
    non-empty positive γ grid, ``y`` of one value per row of ``X``, finite values, and a block
    of ``block_rows × cols`` features that fits in the device's memory (three such arrays).

    Returns
    -------
    list of float
        The γ grid.

    Raises
    ------
    HyperparameterError
        An empty or non-positive γ grid.
    InputError
        Shapes that do not match, non-finite values, a block that does not fit in memory.
    """
    gs = [positive(g) for g in gammas]
    if not gs:
        raise HyperparameterError("gammas must hold at least one value")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y must be a vector of length {X.shape[0]} (the rows of X), got shape "
                         f"{tuple(y.shape)}")
    if not (bool(xp.all(xp.isfinite(X))) and bool(xp.all(xp.isfinite(y)))):
        raise InputError("X and y must be finite (NaN or inf found)")
    check_memory(min(block_rows, int(X.shape[0])), 8, 3.0, xp, device, cols=cols)
    return gs


@dataclass
class StreamedPath:
    """What the approximate LS-SVMs' LOO paths return (arrays in the inputs' namespace and
    device).

    Attributes
    ----------
    gammas : list of float
        The γ grid.
    scores : array of shape (n_gammas,)
        Mean squared exact LOO residual of the approximate model at every γ (all N rows).
    gamma : float
        The γ of the smallest score.
    coef : array
        The coefficients at ``gamma`` in the block map's basis.
    intercept : 0-d array
        The bias at ``gamma``.
    """

    gammas: list[float]
    scores: Any
    gamma: float
    coef: Any
    intercept: Any


def two_pass_loo(xp: Any, device: Any, dt: Any, X: Any, y: Any,
                 block_map: Callable[[Any], Any], P: Any, gammas: list[float], *,
                 block_rows: int) -> StreamedPath:
    """Fit at the γ of the smallest exact LOO error over ``gammas`` in two passes over the rows
    of ``X`` (module docstring).

    Parameters
    ----------
    xp, device, dt :
        The inputs' namespace, device and float dtype (checked by the caller).
    X : array of shape (n, d)
        Rows: the block map's values are in ``dt``, the normal equations and everything after
        them in float64.
    y : array of shape (n,)
    block_map : callable
        ``block_map(X_B)``: the ``(rows, m)`` basis values of a block of rows.
    P : array of shape (m, r) or None
        The projection onto the features (float64); None for ``P = I``.
    gammas : list of float
        The γ grid (positive, checked by the caller).
    block_rows : int
        Rows per block.

    Returns
    -------
    StreamedPath
        ``coef`` (float64) in the block map's basis.
    """
    n = int(X.shape[0])
    f64 = xp.float64
    blocks = [(s, min(s + block_rows, n)) for s in range(0, n, block_rows)]

    # pass 1: the normal equations in the block map's basis (float64 accumulation), about a
    # shift (b₀, y₀) = the first block's means
    G: Any = None
    ky: Any = None
    k1: Any = None
    ysum = 0.0
    k0: Any = None
    y0 = 0.0
    for a, b in blocks:
        KB = block_map(X[a:b, ...])
        if a == 0:
            m = int(KB.shape[1])
            G = xp.zeros((m, m), dtype=f64, device=device)
            ky = xp.zeros((m,), dtype=f64, device=device)
            k1 = xp.zeros((m,), dtype=f64, device=device)
            k0, y0 = xp.mean(KB, axis=0), float(xp.mean(xp.astype(y[a:b], f64)))
        DB, eB = KB - k0[None, :], y[a:b] - y0
        G = G + xp.astype(xp.matrix_transpose(DB) @ DB, f64)
        ky = ky + xp.astype(xp.matrix_transpose(DB) @ eB, f64)
        k1 = k1 + xp.astype(xp.sum(DB, axis=0), f64)
        ysum += float(xp.sum(xp.astype(eB, f64)))
    dbar, ebar = k1 / n, ysum / n
    kbar, ybar = xp.astype(k0, f64) + dbar, y0 + ebar
    C = G - n * dbar[:, None] * dbar[None, :]
    A = C if P is None else xp.matrix_transpose(P) @ (C @ P)
    S, Q = xp.linalg.eigh((A + xp.matrix_transpose(A)) / 2)
    S = xp.clip(S, 0.0, None)
    T = Q if P is None else P @ Q                               # m × r: Ψ = (b - b̄ᵀ) T
    c = xp.matrix_transpose(T) @ (ky - n * ebar * dbar)         # Qᵀ Φ̃ᵀ ỹ
    W = 1.0 / (S[:, None] + 1.0 / xp.asarray(gammas, dtype=f64, device=device)[None, :])
    CW = c[:, None] * W                                         # r × n_γ

    # pass 2: every γ's predictions and leverages
    T_, CW_, W_, kb = (xp.astype(a, dt) for a in (T, CW, W, kbar))
    sse = xp.zeros((len(gammas),), dtype=f64, device=device)
    for a, b in blocks:
        # centred before the product (b(X_B) T - b̄ᵀT would cancel digits as G - N b̄ b̄ᵀ does)
        Psi = (block_map(X[a:b, ...]) - kb[None, :]) @ T_
        fit = xp.astype(Psi @ CW_, f64) + ybar
        lev = xp.astype((Psi * Psi) @ W_, f64) + 1.0 / n
        r = leverage_residuals(xp.astype(y[a:b], f64)[:, None] - fit, lev)
        sse = sse + xp.sum(r * r, axis=0)
    scores = sse / n
    j = int(xp.argmin(scores))
    coef = T @ CW[:, j]
    return StreamedPath(gammas=gammas, scores=scores, gamma=gammas[j], coef=coef,
                        intercept=ybar - xp.sum(kbar * coef))
