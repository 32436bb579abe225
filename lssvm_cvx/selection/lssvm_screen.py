"""Fast exact (γ, σ²) selection for the LS-SVM: a low-rank screen of the whole grid, exact
leave-one-out on a short list.

The exhaustive search (:func:`lssvm_cvx.selection.lssvm.select_gamma_sigma2`) pays one O(N³)
eigendecomposition per σ².  :func:`screened_gamma_sigma2` instead

1. **screens** every (σ², γ) with the exact LOO of a rank-``r`` Nyström LS-SVM: with ``r``
   uniformly drawn landmarks ``Z``, ``Ω ≈ F F'`` with ``F = K(X, Z) Q_r diag(e_r)^{-1/2}``
   (``K_ZZ = Q diag(e) Q'``).  The LS-SVM with the Gram ``F F'`` is ridge regression on ``F``
   with an unpenalised bias and ``λ = 1/γ``, whose LOO residuals come from one thin SVD of the
   centred ``F``: ``r_i = (y_c - ŷ_c)_i / (1 - h_i)``, ``ŷ_c = U (d ∘ U'y_c)``,
   ``h = 1/N + (U∘U) d``, ``d_k = s_k²/(s_k² + λ)``.  Cost O(N r²) per σ², every γ in O(N r);
2. keeps the ``shortlist`` widths with the best screened score and, for each, the γ values
   within ``gamma_window`` grid steps of its screened optimum;
3. scores those candidates by the **exact** LOO of the full N × N LS-SVM (one Cholesky and one
   ``dtrtri`` per γ, or one ``eigh`` when there are at least
   :data:`~lssvm_cvx.linalg.spectral.EIGH_BREAK_EVEN` of them), extending the γ window one grid
   step at a time while the exact optimum sits on its edge (a 1-D search along γ).

The returned point is the best *exact* LOO score among the candidates evaluated, so the
selected model and its reported score are exact; only the choice of which candidates to
evaluate exactly is guided by the low-rank screen.  Measured against the exhaustive grid in
``benchmarks/results/scaling.md`` (``lssvm-cvx bench scaling``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla

from ..exceptions import HyperparameterError
from ..kernels import RBF, Kernel
from .lssvm import SearchResult, gamma_sweep, score_residuals

__all__ = ["SCREEN_RANK", "screen_scores", "screened_gamma_sigma2", "ScreenedSearch"]

#: rank of the Nyström screen
SCREEN_RANK = 300


def _nystroem_factor(kern: Kernel, X: np.ndarray, landmarks: np.ndarray) -> np.ndarray:
    """``F`` with ``K ≈ F F'`` from the landmarks (eigenvalues below 1e-10·max dropped)."""
    Z = X[landmarks]
    e, Q = np.linalg.eigh(kern(Z))
    keep = e > 1e-10 * max(float(e[-1]), 1e-300)
    return kern(X, Z) @ (Q[:, keep] / np.sqrt(e[keep]))


def screen_scores(F: np.ndarray, Y: np.ndarray, gammas: np.ndarray, score: str) -> np.ndarray:
    """Exact LOO scores of the LS-SVM with Gram ``F F'`` (bias included) for every γ."""
    Y2 = Y[:, None] if Y.ndim == 1 else Y
    n = F.shape[0]
    U, s, _ = sla.svd(F - F.mean(axis=0), full_matrices=False, check_finite=False)
    Yc = Y2 - Y2.mean(axis=0)
    UtY = U.T @ Yc  # (r, T)
    U2 = U * U
    out = np.empty(gammas.size)
    for k, g in enumerate(gammas):
        d = s**2 / (s**2 + 1.0 / g)
        h = 1.0 / n + U2 @ d
        R = (Yc - U @ (d[:, None] * UtY)) / (1.0 - h)[:, None]
        out[k] = score_residuals(R if Y.ndim > 1 else R[:, 0], Y, score)
    return out


@dataclass
class ScreenedSearch(SearchResult):
    """A :class:`~lssvm_cvx.selection.lssvm.SearchResult` whose ``scores`` hold the exact LOO
    where it was evaluated (NaN elsewhere); ``screen`` holds the low-rank screen of the whole
    grid and ``n_exact`` the number of exact evaluations."""

    screen: np.ndarray | None = None
    n_exact: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["screen_scores"] = None if self.screen is None else self.screen.tolist()
        d["n_exact"] = self.n_exact
        return d


def screened_gamma_sigma2(X: np.ndarray, y: np.ndarray, gammas: Sequence[float],
                          sigma2s: Sequence[float], *, kernel: Callable[[float], Kernel] = RBF,
                          score: str = "mse", rank: int = SCREEN_RANK, shortlist: int = 2,
                          gamma_window: int = 1, random_state: Any = 0) -> ScreenedSearch:
    """Low-rank screen of the (γ, σ²) grid, exact LOO on the short list (module docstring)."""
    gammas = np.asarray(gammas, dtype=np.float64).reshape(-1)
    sigma2s = np.asarray(sigma2s, dtype=np.float64).reshape(-1)
    if gammas.size == 0 or sigma2s.size == 0:
        raise HyperparameterError("the γ and σ² grids must be non-empty")
    for name, v in (("rank", rank), ("shortlist", shortlist), ("gamma_window", gamma_window)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < (0 if name == "gamma_window" else 1):
            raise HyperparameterError(f"{name} must be a positive integer, got {v!r}")
    order = np.argsort(gammas)
    gammas = gammas[order]
    Y = np.asarray(y, dtype=np.float64)
    n = X.shape[0]
    seed = random_state if isinstance(random_state, (int, np.integer)) else 0
    landmarks = np.sort(np.random.default_rng(seed).choice(n, min(int(rank), n), replace=False))
    screen = np.vstack([screen_scores(_nystroem_factor(kernel(float(s2)), X, landmarks), Y,
                                      gammas, score) for s2 in sigma2s])
    exact = np.full(screen.shape, np.nan)
    best_rows = np.argsort(np.nanmin(np.where(np.isfinite(screen), screen, np.inf), axis=1))
    n_exact = 0
    for i in best_rows[:int(shortlist)]:
        Omega = kernel(float(sigma2s[i]))(X)
        j0 = int(np.nanargmin(np.where(np.isfinite(screen[i]), screen[i], np.inf)))
        lo, hi = max(0, j0 - gamma_window), min(gammas.size - 1, j0 + gamma_window)
        todo = list(range(lo, hi + 1))
        while todo:
            sw = gamma_sweep(Omega, Y, gammas[todo], criterion="loo", score=score)
            exact[i, todo] = sw.scores
            n_exact += len(todo)
            j = int(np.nanargmin(exact[i]))
            todo = [k for k in (j - 1, j + 1) if 0 <= k < gammas.size and np.isnan(exact[i, k])]
        del Omega
    inv = np.argsort(order)
    return ScreenedSearch(gammas[inv], sigma2s, exact[:, inv], "loo", screen=screen[:, inv],
                          n_exact=n_exact)
