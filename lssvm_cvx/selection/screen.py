"""Low-rank screens of a model-selection grid: the exact leave-one-out of a Nyström
(subset-of-regressors) model for every candidate, the exact N × N model on a short list.

One screen serves the composition core's (σ², term weights) grid (:func:`screen_path`, behind
``RegularizedLSSVMRegressor(search="screen")``), and so the LS-SVM's (γ, σ²) grid
(``LSSVMRegressor(search="screen")``, a preset of it: the RKHS norm's weight ``1/γ``,
:mod:`lssvm_cvx.estimators.regularized_search`).  The exhaustive searches pay one O(N³)
(generalised) eigendecomposition per σ²; the screen pays O(N r²).

**The screen model.** With ``r`` landmark columns ``L`` (:func:`screen_landmarks`) the
expansion is restricted to them, ``α = E_L β``, so that ``Kα = K_{:L}β`` and each quadratic
term ``½ α'P_kα`` becomes ``½ β'P_k[L, L]β``.  In the coordinates ``β = T c`` with
``T = U Λ^{-1/2}`` (``K_LL = U Λ U'``, eigenvalues at or below ``1e-10 λ_max`` dropped:
:func:`nystroem_features`) the fitted values are ``F c`` with the Nyström features
``F = K_{:L} T`` and the RKHS norm is ``½ ||c||²``: a weighted ridge problem with an
unpenalised bias and ``r × r`` penalty matrices ``M_k = T'P_k[L, L]T`` (the LS-SVM with Gram
``F F'`` and regularisation γ is the case ``M = I``, weight ``1/γ``).

**Its exact LOO** (:func:`screen_loo`, the one formula of the screens).  With the loss
weights ``s``, ``W = diag(√s)``, the weighted centring ``G = W(F - 1 f̄_s')``,
``ỹ = W(y - ȳ_s)`` and ``A(w) = G'G + M_fixed + w M_key``, one generalised eigendecomposition
of ``(G'G + M_fixed, M_key)`` gives every ``A(w)^{-1}``, and the residual of observation ``i``
left out of the loss is::

    r_i = (ỹ_i - (G A^{-1} G'ỹ)_i) / (√s_i (1 - h_i)),   h_i = s_i/Σs + (G A^{-1} G')_ii.

Unweighted with ``M_fixed = 0`` and ``M_key = I`` (the LS-SVM's screen), the eigenpairs of
``G'G`` come from the thin SVD of ``G`` instead (``G = U S V'``: ``G V = U S``, eigenvalues
``S²``), which does not square ``G``'s condition number.  Cost O(N r²) per σ², every weight in
O(N r).

**The search** then evaluates the exact model only around the best screened candidates and
returns the best *exact* score: the selected model and its reported score are exact; only which
candidates are evaluated exactly is guided by the screen (measured against the exhaustive grid
in ``benchmarks/results/scaling.md``, ``lssvm-cvx bench --only scaling``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sla

from ..checks import as_gram, as_matrix, as_targets, check_grid, check_integer
from ..exceptions import InputError
from ..formulations.regularized import RegularizedLSSVM
from ..kernels.psd import psd_eigh
from ..linalg.folds import index_set
from ..linalg.scores import loo_score, path_residuals
from ..terms import RKHSNorm

__all__ = ["SCREEN_RANK", "screen_landmarks", "nystroem_features", "screen_loo", "screen_path",
           "widen"]

#: number of landmark columns of the screen (its rank at most)
SCREEN_RANK = 300
#: eigenvalues of ``K_LL`` at or below this share of the largest are dropped by the screen
SCREEN_EIG_RTOL = 1e-10


def screen_landmarks(n: int, r: int = SCREEN_RANK, random_state: Any = None) -> np.ndarray:
    """``min(r, n)`` sorted landmark indices drawn uniformly without replacement.

    Parameters
    ----------
    n : int
        Number of training rows.
    r : int, default=SCREEN_RANK
        Number of landmarks.
    random_state : int, numpy.random.Generator, RandomState or None
        Seed.

    Returns
    -------
    numpy.ndarray of int
        The landmark indices.
    """
    from sklearn.utils import check_random_state

    n = check_integer(n, "n")
    r = min(check_integer(r, "r"), n)
    return np.sort(check_random_state(random_state).permutation(n)[:r])


def nystroem_features(K_XL: np.ndarray, K_LL: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Nyström features ``F = K_{:L} T`` and the map ``T = U Λ^{-1/2}`` of the landmark Gram
    ``K_LL = U Λ U'`` (eigenvalues at or below :data:`SCREEN_EIG_RTOL` ``· λ_max`` dropped), so that
    ``F F' = K_{:L} K_LL^+ K_{L:}`` approximates ``K``.

    Parameters
    ----------
    K_XL : numpy.ndarray of shape (N, r)
        The kernel between the rows and the landmarks.
    K_LL : numpy.ndarray of shape (r, r)
        The landmarks' Gram.

    Returns
    -------
    F : numpy.ndarray of shape (N, q)
        The features (``q ≤ r`` kept eigenpairs).
    T : numpy.ndarray of shape (r, q)
        The map from the features' coordinates to the landmark coefficients.
    """
    K_LL = as_gram(K_LL, name="K_LL")
    K_XL = as_matrix(K_XL, name="K_XL")
    if K_XL.shape[1] != K_LL.shape[0]:
        raise InputError(f"K_XL must have one column per landmark ({K_LL.shape[0]}), got {K_XL.shape[1]}")
    lam, U = psd_eigh(K_LL, rtol=SCREEN_EIG_RTOL)
    T = U / np.sqrt(lam)
    return K_XL @ T, T


def screen_loo(F: np.ndarray, Y: np.ndarray, weights: Any, criterion: str, *,
               sample_weight: np.ndarray | None = None, fixed: np.ndarray | None = None,
               key: np.ndarray | None = None) -> np.ndarray:
    """The LOO criterion of the ridge model on the features ``F`` (unpenalised bias) for every
    weight ``w`` of the penalty ``c'(fixed + w key)c`` (module docstring).

    Parameters
    ----------
    F : numpy.ndarray of shape (N, q)
        Features (:func:`nystroem_features`).
    Y : numpy.ndarray of shape (N,) or (N, T)
        Targets (several columns share the decomposition).
    weights : array-like of float
        The weights ``w > 0`` of ``key``.
    criterion : str
        A score of :data:`lssvm_cvx.linalg.scores.SCORES` (or an alias: ``"misclassification"``).
    sample_weight : numpy.ndarray of shape (N,) or None, default=None
        The loss weights ``s`` (None: all 1).
    fixed : numpy.ndarray of shape (q, q) or None, default=None
        The penalty matrix whose weight is fixed (None: zero).
    key : numpy.ndarray of shape (q, q) or None, default=None
        The penalty matrix whose weight varies (None: the identity, the RKHS norm).

    Returns
    -------
    numpy.ndarray of shape (len(weights),)
        The criterion at each weight (lower is better).
    """
    F = as_matrix(F, name="F")
    n, q = F.shape
    ws = check_grid(weights, "weights", flat=True)
    Y2 = as_targets(Y, n, name="Y", columns=True).reshape(n, -1)
    s = np.ones(n) if sample_weight is None else as_targets(sample_weight, n, name="sample_weight")
    sw, total = np.sqrt(s), float(s.sum())
    G = sw[:, None] * (F - (s @ F) / total)
    Yc = sw[:, None] * (Y2 - (s @ Y2) / total)
    if fixed is None and key is None:      # A(w) = G'G + w I: the thin SVD of G
        U, sv, _ = sla.svd(G, full_matrices=False, check_finite=False)
        P, q_ = U * sv, sv[:, None] * (U.T @ Yc)
        D = 1.0 / (sv[:, None] ** 2 + ws[None, :])
    else:
        B = G.T @ G + (0.0 if fixed is None else fixed)
        M = np.eye(q) if key is None else key
        ev = np.linalg.eigvalsh(M)
        if ev[0] > 1e-10 * max(ev[-1], 1e-300):  # M definite: A(w) = B + w M
            mu, V = sla.eigh(B, M, check_finite=False)
            D = 1.0 / (np.maximum(mu, 0.0)[:, None] + ws[None, :])
        else:
            jitter = 1e-10 * max(float(np.trace(B)) / q, 1e-300)
            theta, V = sla.eigh(M, B + jitter * np.eye(q), check_finite=False)
            D = 1.0 / (1.0 + np.maximum(theta, 0.0)[:, None] * ws[None, :])
        P, q_ = G @ V, V.T @ (G.T @ Yc)
    h = (s / total)[:, None] + (P * P) @ D
    R = path_residuals(Yc, P, q_, D, h) / sw[:, None, None]  # back from the √s-scaled rows
    return loo_score(R, Y2, criterion)


def screen_path(form: RegularizedLSSVM, key: str, weights: Any, Y: np.ndarray,
                landmarks: np.ndarray, criterion: str) -> np.ndarray:
    """Screened LOO criterion for every weight of term ``key`` of a composed model (module
    docstring).

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
    s = np.asarray(form.loss_.weights(n), dtype=np.float64)
    L = index_set(landmarks, n, "landmarks")   # strings reached an IndexError (until 2026-12-06)
    F, T = nystroem_features(K[:, L], K[np.ix_(L, L)])

    def reduced(term: Any, k: str) -> np.ndarray | None:
        if isinstance(term, RKHSNorm):
            return None  # T'K_LL T = I
        return T.T @ term.matrix(ctx, name=k)[np.ix_(L, L)] @ T

    r = T.shape[1]
    fixed = None
    for k, (t, w) in form.terms_.items():
        if k != key and w:
            m = reduced(t, k)
            fixed = (np.zeros((r, r)) if fixed is None else fixed) + w * (np.eye(r) if m is None
                                                                         else m)
    return screen_loo(F, Y, weights, criterion, sample_weight=s, fixed=fixed,
                      key=reduced(form.terms_[key][0], key))


def widen(evaluate: Callable[[list[int]], Any], row: np.ndarray, j0: int, window: int = 1
          ) -> int:
    """The exact evaluations of a screened search along one grid axis: the points within
    ``window`` steps of the screened optimum ``j0``, then one step further at a time while the
    exact optimum sits on the edge of what was evaluated (a 1-D search along the axis).

    Parameters
    ----------
    evaluate : callable
        ``evaluate(indices)`` returns the exact criterion (lower is better) at those grid
        indices, in their order.
    row : numpy.ndarray of shape (size,)
        The exact criterion along the axis, NaN where not evaluated; filled in place.
    j0 : int
        The screened optimum's index.
    window : int, default=1
        Steps evaluated at first on each side.

    Returns
    -------
    int
        The number of exact evaluations.
    """
    todo = [j for j in range(j0 - window, j0 + window + 1) if 0 <= j < row.size]
    done = 0
    while todo:
        row[todo] = evaluate(todo)
        done += len(todo)
        j = int(np.nanargmin(row))
        todo = [k for k in (j - 1, j + 1) if 0 <= k < row.size and np.isnan(row[k])]
    return done
