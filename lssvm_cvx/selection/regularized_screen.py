"""Fast exact leave-one-out search over (σ², term weights) for the composition core: a
low-rank screen of the whole grid, the exact N × N path on a short list.

The exhaustive search of :class:`~lssvm_cvx.estimators.RegularizedLSSVMRegressor` pays one
O(N³) (generalised) eigendecomposition per σ² (:meth:`RegularizedLSSVM.path
<lssvm_cvx.formulations.RegularizedLSSVM.path>`).  :func:`screen_path` instead scores every
weight of the path term, for one σ², by the exact LOO of a *subset-of-regressors* model: the
expansion ``α`` restricted to ``r`` landmark columns ``L`` (``α = E_L β``), so that ``Kα = K_{:L}β``
and each quadratic term ``½ α'P_kα`` becomes ``½ β'P_k[L, L]β``.  In the coordinates
``β = T γ`` with ``T = U Λ^{-1/2}`` (``K_LL = U Λ U'``, eigenvalues below ``1e-10 λ_max``
dropped) the fitted values are ``F γ`` with the Nyström features ``F = K_{:L} T`` and the RKHS
norm is ``½ ||γ||²``: a weighted ridge problem with an unpenalised bias and ``r × r`` penalty
matrices ``M_k = T'P_k[L, L]T``.  With the loss weights ``s``, ``W = diag(√s)``, the weighted
centring ``G = W(F - 1 f̄_s')``, ``ỹ = W(y - ȳ_s)`` and ``A(w) = G'G + Σ_{k≠key} w_k M_k + w M_key``,
one generalised eigendecomposition of ``(G'G + M_fixed, M_key)`` gives every ``A(w)^{-1}``, and
the LOO residuals of the screen model (observation i leaves the loss) are exact for it::

    r_i = (ỹ_i - (G A^{-1} G'ỹ)_i) / (√s_i (1 - h_i)),   h_i = s_i/Σs + (G A^{-1} G')_ii.

Cost O(N r²) per σ² besides the Gram and the term matrices, every weight in O(N r).  The
search then evaluates the exact path (:meth:`RegularizedLSSVM.path`) only for the ``shortlist``
best screened candidates and returns the best *exact* score: the selected model and its
reported score are exact; only which candidates are evaluated exactly is guided by the screen
(measured against the exhaustive grid in ``benchmarks/results/scaling.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla

from ..formulations.regularized import RegularizedLSSVM
from ..kernels.psd import psd_eigh
from ..linalg.scores import loo_score
from ..terms import RKHSNorm

__all__ = ["SCREEN_LANDMARKS", "screen_landmarks", "screen_path"]

#: number of landmark columns of the screen
SCREEN_LANDMARKS = 300


def screen_landmarks(n: int, r: int = SCREEN_LANDMARKS, random_state: Any = None) -> np.ndarray:
    """``min(r, n)`` sorted landmark indices drawn uniformly without replacement.

    Parameters
    ----------
    n : int
        Number of training rows.
    r : int, default=SCREEN_LANDMARKS
        Number of landmarks.
    random_state : int, numpy.random.Generator, RandomState or None
        Seed.

    Returns
    -------
    numpy.ndarray of int
        The landmark indices.
    """
    from sklearn.utils import check_random_state

    r = min(int(r), int(n))
    return np.sort(check_random_state(random_state).permutation(n)[:r])


def screen_path(form: RegularizedLSSVM, key: str, weights: Any, Y: np.ndarray,
                landmarks: np.ndarray, criterion: str) -> np.ndarray:
    """Screened LOO criterion for every weight of term ``key`` (module docstring).

    Parameters
    ----------
    form : RegularizedLSSVM
        A squared-loss formulation whose terms are all quadratic (its Gram, loss weights and
        the other terms' weights are used).
    key : str
        The term whose weight varies.
    weights : array-like of float
        Its weights (``> 0``).
    Y : numpy.ndarray of shape (N,) or (N, T)
        Targets (several columns share the decompositions).
    landmarks : numpy.ndarray of int
        The landmark columns ``L``.
    criterion : str
        A score of :data:`lssvm_cvx.linalg.scores.SCORES` (``"mse"``, ``"error"``, ...).

    Returns
    -------
    numpy.ndarray of shape (len(weights),)
        The criterion of the screen model at each weight.
    """
    ctx = form.context
    K = ctx.K
    n = K.shape[0]
    ws = np.asarray(weights, dtype=np.float64).reshape(-1)
    Y2 = np.asarray(Y, dtype=np.float64).reshape(n, -1)
    s = np.asarray(form.loss_.weights(n), dtype=np.float64)
    L = np.asarray(landmarks)
    lam, U = psd_eigh(K[np.ix_(L, L)], rtol=1e-10)
    T = U / np.sqrt(lam)
    F = K[:, L] @ T
    sw, total = np.sqrt(s), float(s.sum())
    G = sw[:, None] * (F - (s @ F) / total)
    Yc = sw[:, None] * (Y2 - (s @ Y2) / total)
    r = T.shape[1]

    def reduced(term: Any, k: str) -> np.ndarray:
        if isinstance(term, RKHSNorm):
            return np.eye(r)  # T'K_LL T
        return T.T @ term.matrix(ctx, name=k)[np.ix_(L, L)] @ T

    terms = form.terms_
    M_fixed = np.zeros((r, r))
    for k, (t, w) in terms.items():
        if k != key and w:
            M_fixed += w * reduced(t, k)
    M_key = reduced(terms[key][0], key)
    B = G.T @ G + M_fixed
    ev = np.linalg.eigvalsh(M_key)
    if ev[0] > 1e-10 * max(ev[-1], 1e-300):  # M_key definite: A(w) = B + w M_key
        mu, V = sla.eigh(B, M_key, check_finite=False)
        D = 1.0 / (np.maximum(mu, 0.0)[:, None] + ws[None, :])
    else:
        jitter = 1e-10 * max(float(np.trace(B)) / r, 1e-300)
        theta, V = sla.eigh(M_key, B + jitter * np.eye(r), check_finite=False)
        D = 1.0 / (1.0 + np.maximum(theta, 0.0)[:, None] * ws[None, :])
    P = G @ V
    q = V.T @ (G.T @ Yc)
    h = (s / total)[:, None] + (P * P) @ D
    R = np.empty((n, Y2.shape[1], ws.size))
    for col in range(Y2.shape[1]):
        R[:, col] = (Yc[:, col:col + 1] - P @ (q[:, col:col + 1] * D)) / (sw[:, None] * (1.0 - h))
    return loo_score(R, Y2, criterion)
