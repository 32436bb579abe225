r"""Low-rank kernel factors ``K ≈ R R^T`` (eigen, Nyström, incomplete Cholesky) of the ℓ2-SVM
regularization path (Bonidal, Tindel & Guermeur 2013, §2.4.2, §2.7.1); the
Sherman–Morrison–Woodbury solves on them are in :mod:`lssvm_cvx.linalg.smw`.

Every factor returned here is a :class:`LowRankFactor` ``R`` (``m × r``) with

.. math::

    K \approx R R^T, \qquad R = k(X, Z)\,A,

where ``Z`` are ``l`` *landmarks* (training points, k-means centres or pivots) and ``A`` is
``l × r``.  The second identity holds exactly for every method, so the rows of ``R`` extend to
new points (:meth:`LowRankFactor.transform`) and a classifier built on the approximate kernel
``κ_r(x, z) = k(x, Z) A A^T k(Z, z)`` is an exact expansion on the landmarks (used for §2.7.3).

Methods
-------
* :func:`eigen_factor` — truncated eigendecomposition of the Gram (``O(m³)``).  With the default
  threshold (numpy's numerical-rank rule ``m · ε_mach · s_max``) it drops only eigenvalues below
  the rounding error of the Gram itself; the path's *exact* mode uses it.
* :func:`nystroem_factor` — Nyström with ``weighting="uniform"`` (landmarks drawn uniformly from
  the training set; Williams & Seeger) or ``"density"`` (landmarks = k-means centres, each
  weighted by its cluster's share of the data: Zhang & Kwok 2009, the paper's ref. [32]).
  ``O(l³ + m l)``.
* :func:`icf_factor` — pivoted incomplete Cholesky factorization (Fine & Scheinberg 2001, ref.
  [15]): greedy pivot on the largest residual diagonal, ``O(m r²)``.

Rank selection (§2.7.1): a fixed ``rank`` and/or an eigenvalue ``threshold``.  For Nyström the
threshold applies to the method's estimates ``m μ_k`` of the eigenvalues of the ``m × m`` Gram
(``μ_k`` the eigenvalues of the weighted landmark problem ``S^{1/2} K_ZZ S^{1/2}``), as in
Zhang & Kwok; for the eigen and ICF factors it applies to the exact eigenvalues of ``R R^T``
(:func:`truncate`), so the spectral-norm error of the dropped part is at most the threshold.

The jitter ``ε`` of the paper (``H(ε) = H + (ε/2) I``, ε = 1e-8) is used only to stabilise the
landmark inversions; the approximated learning problem is then exactly the ℓ2-SVM with the
kernel matrix ``R R^T`` at the same λ (the paper's ``(λ - ε)/2`` shift changes only the dropped
directions, by ``ε/2``).
"""


from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from ..checks import as_gram, as_matrix, check_integer, check_option, check_positive
from ..exceptions import HyperparameterError, InputError, NotPSDError
from .base import Kernel, Precomputed

__all__ = [
    "LowRankFactor",
    "eigen_factor",
    "nystroem_factor",
    "nystrom_factor",
    "low_rank_method",
    "OLD_SPELLINGS",
    "LOW_RANK_METHODS",
    "icf_factor",
    "truncate",
    "numerical_rank_threshold",
    "make_factor",
    "pivoted_cholesky",
]

@dataclass
class LowRankFactor:
    """``K ≈ R R^T`` with ``R = k(X, Z) A`` (see the module docstring).

    Attributes
    ----------
    R : ndarray (m, r)
        The factor on the training points.
    Z : ndarray (l, d) or None
        Landmarks (training rows, centres or pivots); None for a precomputed Gram.
    A : ndarray (l, r)
        Maps kernel values at the landmarks to factor rows.
    kernel : Kernel or None
        The kernel ``k`` (None for a precomputed Gram).
    eigenvalues : ndarray (r,)
        Eigenvalue estimates of the Gram kept by the rank selection (descending).
    method : str
        ``"eigen"``, ``"nystroem"``, ``"nystroem-density"`` or ``"icf"``.
    landmark_index : ndarray or None
        Indices of the landmarks in the training set when they are training points.
    info : dict
        Threshold, requested rank, landmark count, time (s).
    """

    R: np.ndarray
    Z: np.ndarray | None
    A: np.ndarray
    kernel: Kernel | None
    eigenvalues: np.ndarray
    method: str
    landmark_index: np.ndarray | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def m(self) -> int:
        return self.R.shape[0]

    @property
    def rank(self) -> int:
        return self.R.shape[1]

    def transform(self, X_new: Any) -> np.ndarray:
        """Rows of ``R`` for new points: ``k(X_new, Z) A``.  For a precomputed Gram pass
        ``K(X_new, landmarks)`` (columns = the landmarks, ``landmark_index`` of the training
        points)."""
        if self.kernel is None or isinstance(self.kernel, Precomputed):
            Kz = np.asarray(X_new, dtype=np.float64)
            if self.landmark_index is not None and Kz.shape[1] == self.m:
                Kz = Kz[:, self.landmark_index]
        else:
            Kz = self.kernel(X_new, self.Z)
        return Kz @ self.A

    def gram(self) -> np.ndarray:
        """The approximation ``R R^T`` (``m × m``; for tests and small problems)."""
        return self.R @ self.R.T


def numerical_rank_threshold(s_max: float, m: int) -> float:
    """NumPy's numerical-rank tolerance ``m · ε_mach · s_max`` (``matrix_rank``)."""
    return float(m * np.finfo(np.float64).eps * max(s_max, 0.0))


def _check_rank(rank: Any, m: int, what: str = "rank") -> int | None:
    if rank is None:
        return None
    if check_integer(rank, what) > m:
        raise HyperparameterError(f"{what} = {rank} is larger than the number of training points m = {m}")
    return int(rank)


def _check_threshold(threshold: Any) -> float | None:
    if threshold is None:
        return None
    return check_positive(threshold, "threshold", allow_zero=True)


def _keep(values: np.ndarray, threshold: float | None, rank: int | None) -> np.ndarray:
    """Indices of the kept eigenvalues (``values`` descending)."""
    idx = np.arange(values.size)
    if threshold is not None:
        idx = idx[values[idx] > threshold]
    if rank is not None:
        idx = idx[:rank]
    return idx


def truncate(R: np.ndarray, *, threshold: float | None = None, rank: int | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best rank-``k`` approximation of ``R R^T`` from the eigendecomposition of ``R^T R``.

    With ``R^T R = Q Θ Q^T`` the nonzero eigenvalues of ``R R^T`` are ``Θ`` and its
    eigenvectors ``R Q Θ^{-1/2}``; keeping the eigenvalues above ``threshold`` (at most ``rank``
    of them) gives ``R_k = R Q_k`` with ``||R R^T - R_k R_k^T||_2 = max dropped Θ``.

    Returns ``(R_k, Q_k, Θ_k)`` (descending eigenvalues; ``R_k`` has orthogonal columns).
    """
    R = as_matrix(R, name="R")
    theta, Q = np.linalg.eigh(R.T @ R)
    theta, Q = theta[::-1], Q[:, ::-1]
    keep = _keep(theta, threshold, rank)
    return R @ Q[:, keep], Q[:, keep], theta[keep]


def eigen_factor(K: np.ndarray, *, threshold: float | None = None, rank: int | None = None,
                 eps: float = 0.0, psd_rtol: float = 1e-8, name: str = "kernel matrix",
                 X: np.ndarray | None = None, kernel: Kernel | None = None) -> LowRankFactor:
    """Truncated eigendecomposition ``K + (ε/2) I ≈ V_k S_k V_k^T = R R^T`` (``R = V_k S_k^{1/2}``).

    Parameters
    ----------
    K :
        The ``m × m`` Gram (symmetric).
    threshold :
        Keep eigenvalues above it; default: the numerical-rank tolerance
        ``m · ε_mach · s_max`` (what is dropped is below the rounding error of ``K``).
    rank :
        Keep at most this many eigenvalues.
    eps :
        Jitter ``ε`` of the paper (``K + (ε/2) I``); 0 by default.
    psd_rtol :
        A smallest eigenvalue below ``-psd_rtol · s_max · m`` raises :class:`NotPSDError`.
    X, kernel :
        Training inputs and kernel, recorded so that :meth:`LowRankFactor.transform` works
        (``R = k(X, X) V_k S_k^{-1/2}`` exactly).

    Raises
    ------
    NotPSDError
        If ``K`` is not positive semi-definite within tolerance.
    """
    t0 = time.perf_counter()
    K = as_gram(K, name=name, min_samples=1)   # square, finite (InputError naming it)
    m = K.shape[0]
    rank = _check_rank(rank, m)
    threshold = _check_threshold(threshold)
    s, V = np.linalg.eigh((K + K.T) / 2)
    s_max = max(abs(s[-1]), abs(s[0]), np.finfo(float).tiny)
    if s[0] < -psd_rtol * s_max * m:
        raise NotPSDError(f"{name} is not positive semi-definite: smallest eigenvalue {s[0]:.3g} "
                          f"(largest {s[-1]:.3g})")
    s = s[::-1] + eps / 2.0
    V = V[:, ::-1]
    thr = numerical_rank_threshold(s[0], m) if threshold is None else threshold
    keep = _keep(s, max(thr, 0.0), rank)
    if keep.size == 0:
        raise NotPSDError(f"{name} has no eigenvalue above the threshold {thr:.3g}")
    sk, Vk = s[keep], V[:, keep]
    R = Vk * np.sqrt(sk)
    A = Vk / np.sqrt(sk)
    return LowRankFactor(R=R, Z=X, A=A, kernel=kernel, eigenvalues=sk, method="eigen",
                         landmark_index=np.arange(m),
                         info={"threshold": thr, "rank_requested": rank, "eps": eps,
                               "time": time.perf_counter() - t0, "n_landmarks": m,
                               "numerically_exact": threshold is None and rank is None and eps == 0.0})


def _kernel_or_fail(kernel: Kernel | None) -> Kernel:
    if kernel is None or isinstance(kernel, Precomputed):
        raise HyperparameterError("Nyström and ICF factors need a kernel function (not a precomputed Gram)")
    return kernel


def nystroem_factor(X: Any, kernel: Kernel | None, n_landmarks: int | None, *,
                    weighting: str = "uniform", threshold: float | None = None,
                    rank: int | None = None, eps: float = 1e-8, random_state: Any = None,
                    kmeans_iter: int = 10) -> LowRankFactor:
    """Nyström factor ``K ≈ K_XZ S^{1/2} U_k M_k^{-1} U_k^T S^{1/2} K_ZX`` (§2.7.1).

    ``S^{1/2} (K_ZZ + (ε/2) I) S^{1/2} = U M U^T`` is the weighted landmark eigenproblem, the
    Nyström quadrature of the kernel's integral operator with weights ``S = diag(w)``,
    ``Σ w = 1``; ``m μ_k`` estimates the eigenvalues of the ``m × m`` Gram.

    * ``weighting="uniform"``: ``l`` training points drawn without replacement, ``w = 1/l``
      (the standard Nyström method; ``R = K_XZ U σ^{-1/2}`` with ``σ`` the eigenvalues of
      ``K_ZZ``).
    * ``weighting="density"``: the ``l`` centres of a k-means clustering of ``X`` (scikit-learn
      ``KMeans``, one initialisation, ``kmeans_iter`` Lloyd iterations), ``w_j`` = share of the
      points in cluster ``j`` (Zhang & Kwok 2009, the paper's ref. [32]).

    Eigenpairs with ``m μ_k ≤ threshold`` (default: keep ``m μ_k > 10^{-12} m μ_1``) and beyond
    ``rank`` are dropped.

    Raises
    ------
    HyperparameterError
        ``n_landmarks`` or ``rank`` not in ``1..m``, unknown ``weighting``.
    NotPSDError
        If the landmark Gram is not PSD (an invalid kernel).
    """
    t0 = time.perf_counter()
    kernel = _kernel_or_fail(kernel)
    X = as_matrix(X)
    m = X.shape[0]
    n_landmarks = _check_rank(n_landmarks, m, "n_landmarks")
    if n_landmarks is None:
        raise HyperparameterError("n_landmarks is required")
    rank = _check_rank(rank, m)
    threshold = _check_threshold(threshold)
    check_option(weighting, ("uniform", "density"), "weighting")
    rng = np.random.default_rng(random_state) if not isinstance(random_state, np.random.Generator) \
        else random_state
    idx = None
    if weighting == "uniform":
        idx = np.sort(rng.choice(m, n_landmarks, replace=False))
        Z = X[idx]
        w = np.full(n_landmarks, 1.0 / n_landmarks)
    else:                                             # "density"
        import warnings

        from sklearn.cluster import KMeans
        from sklearn.exceptions import ConvergenceWarning

        seed = int(rng.integers(2**31 - 1))
        km = KMeans(n_clusters=n_landmarks, n_init=1, max_iter=kmeans_iter, random_state=seed)
        with warnings.catch_warnings():  # duplicate points leave clusters empty: dropped below
            warnings.simplefilter("ignore", ConvergenceWarning)
            labels = km.fit_predict(X)
        counts = np.bincount(labels, minlength=n_landmarks).astype(np.float64)
        nonempty = counts > 0
        Z = km.cluster_centers_[nonempty]
        w = counts[nonempty] / m
    W = kernel(Z)
    W[np.diag_indices_from(W)] += eps / 2.0
    sw = np.sqrt(w)
    mu, U = np.linalg.eigh((sw[:, None] * W) * sw[None, :])
    mu, U = mu[::-1], U[:, ::-1]
    if mu[-1] < -1e-8 * max(abs(mu[0]), 1e-300) * len(mu):
        raise NotPSDError(f"the landmark kernel matrix is not positive semi-definite: smallest "
                          f"eigenvalue {mu[-1]:.3g}")
    est = m * mu
    floor = 1e-12 * est[0]
    keep = _keep(est, max(threshold if threshold is not None else 0.0, floor), rank)
    if keep.size == 0:
        raise NotPSDError("no Nyström eigenvalue above the threshold")
    A = (sw[:, None] * U[:, keep]) / np.sqrt(mu[keep])
    R = kernel(X, Z) @ A
    return LowRankFactor(R=R, Z=Z, A=A, kernel=kernel, eigenvalues=est[keep],
                         method="nystroem" if weighting == "uniform" else "nystroem-density",
                         landmark_index=idx,
                         info={"threshold": threshold, "rank_requested": rank, "eps": eps,
                               "n_landmarks": int(Z.shape[0]), "weighting": weighting,
                               "time": time.perf_counter() - t0})


def icf_factor(X: Any, kernel: Kernel | None, *, rank: int | None = None, tol: float = 1e-6,
               threshold: float | None = None, eps: float = 1e-8, K: np.ndarray | None = None
               ) -> LowRankFactor:
    """Pivoted incomplete Cholesky ``K ≈ L L^T`` (Fine & Scheinberg 2001, the paper's ref. [15]).

    Greedy pivoting: at step ``j`` the pivot is the point with the largest residual diagonal
    ``d_i = K_ii - Σ_{k<j} L_ik²``; the factorization stops when ``Σ_i d_i ≤ tol · trace(K)``
    or after ``rank`` columns.  Each step evaluates one kernel column (``O(m r²)`` in total).
    Afterwards :func:`truncate` applies an eigenvalue ``threshold`` if given.

    ``K`` may be passed for a precomputed Gram (then ``kernel`` may be None and
    :meth:`LowRankFactor.transform` expects kernel values against the pivots).
    """
    t0 = time.perf_counter()
    if K is None:
        kernel = _kernel_or_fail(kernel)
        X = as_matrix(X)
        m = X.shape[0]
        diag = np.asarray(kernel.diag(X), dtype=np.float64) + eps / 2.0

        def column(i: int) -> np.ndarray:
            c = kernel(X, X[i:i + 1])[:, 0]
            c[i] += eps / 2.0
            return c
    else:
        K = as_gram(K, name="K", min_samples=1)
        m = K.shape[0]
        diag = np.diag(K).copy() + eps / 2.0

        def column(i: int) -> np.ndarray:
            c = K[:, i].copy()
            c[i] += eps / 2.0
            return c
    rank = _check_rank(rank, m)
    threshold = _check_threshold(threshold)
    L, P = pivoted_cholesky(column=column, diag=diag, rtol=tol, rule="trace", rank=rank)
    r = P.size
    if r == 0:
        raise NotPSDError("incomplete Cholesky found no positive pivot: the kernel matrix is zero or not PSD")
    # K[:, P] = L L_P^T  =>  L = K[:, P] L_P^{-T}: A = L_P^{-T}
    A = sla.solve_triangular(L[P], np.eye(r), lower=True, trans="T")
    Rk, Q, theta = truncate(L, threshold=threshold, rank=rank)
    if Rk.shape[1] == 0:
        raise NotPSDError("no eigenvalue of the incomplete Cholesky factor above the threshold")
    return LowRankFactor(R=Rk, Z=None if K is not None else X[P], A=A @ Q,
                         kernel=kernel if K is None else None,
                         eigenvalues=theta, method="icf", landmark_index=P,
                         info={"threshold": threshold, "rank_requested": rank, "tol": tol, "eps": eps,
                               "n_landmarks": r, "time": time.perf_counter() - t0})


#: the package's one spelling of the Nyström methods (scikit-learn's ``Nystroem``), and the old
#: spellings still accepted with a FutureWarning (issue 30, item 4)
OLD_SPELLINGS = {"nystrom": "nystroem", "nystrom-density": "nystroem-density"}
#: the methods of :func:`make_factor` (None: the exact eigen factor at its default threshold)
LOW_RANK_METHODS = (None, "eigen", "nystroem", "nystroem-density", "icf")


def low_rank_method(method: str | None, *, stacklevel: int = 3) -> str | None:
    """``method`` in the package's spelling: ``"nystrom"`` and ``"nystrom-density"`` become
    ``"nystroem"`` and ``"nystroem-density"`` with a FutureWarning (removed in a later
    release); anything else is returned as it is."""
    if isinstance(method, str) and method in OLD_SPELLINGS:
        warnings.warn(f"low_rank={method!r} is spelled {OLD_SPELLINGS[method]!r} (scikit-learn's "
                      "Nystroem); the old spelling will be removed", FutureWarning,
                      stacklevel=stacklevel)
        return OLD_SPELLINGS[method]
    return method


def nystrom_factor(*args: Any, **kwargs: Any) -> LowRankFactor:
    """Deprecated spelling of :func:`nystroem_factor` (FutureWarning; removed in a later
    release)."""
    warnings.warn("nystrom_factor is spelled nystroem_factor (scikit-learn's Nystroem); the "
                  "old name will be removed", FutureWarning, stacklevel=2)
    return nystroem_factor(*args, **kwargs)


def make_factor(method: str | None, X: np.ndarray | None, kernel: Kernel | None, *,
                K: np.ndarray | None = None, rank: int | None = None, threshold: float | None = None,
                n_landmarks: int | None = None, eps: float = 1e-8, random_state: Any = None
                ) -> LowRankFactor:
    """One entry point: ``method`` in ``None``/``"eigen"``, ``"nystroem"`` (uniform),
    ``"nystroem-density"``, ``"icf"`` (the old spellings ``"nystrom"``, ``"nystrom-density"``
    with a FutureWarning: :func:`low_rank_method`).  ``n_landmarks`` defaults to ``min(m,
    max(rank, 60% of m))`` for Nyström (the paper's 60%, §4.4)."""
    method = check_option(low_rank_method(method), LOW_RANK_METHODS, "low_rank")
    if method in (None, "eigen"):
        if K is None:
            if kernel is None:
                raise HyperparameterError("the eigen factor needs a kernel or a Gram K")
            K = kernel(X)
        return eigen_factor(K, threshold=threshold, rank=rank, eps=0.0 if method is None else eps,
                            X=X, kernel=kernel)
    m = K.shape[0] if K is not None else as_matrix(X).shape[0]
    if method in ("nystroem", "nystroem-density"):
        if n_landmarks is None:
            n_landmarks = min(m, max(rank or 0, int(round(0.6 * m)), 1))
        return nystroem_factor(X, kernel, n_landmarks,
                               weighting="uniform" if method == "nystroem" else "density",
                               threshold=threshold, rank=rank, eps=eps, random_state=random_state)
    K_icf = K if kernel is None or isinstance(kernel, Precomputed) else None     # "icf"
    return icf_factor(X, kernel, rank=rank, threshold=threshold, eps=eps, K=K_icf)


def pivoted_cholesky(G: np.ndarray | None = None, rtol: float = 1e-10, *,
                     column: Callable[[int], np.ndarray] | None = None,
                     diag: np.ndarray | None = None, rule: str = "max", rank: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Greedy pivoted Cholesky ``G ≈ L L'`` of a PSD matrix: ``(L, piv)``.

    The one pivoted Cholesky of the package (the componentwise bases and the incomplete
    Cholesky factor :func:`icf_factor` call it).  At step ``j`` the pivot is the row with the
    largest residual diagonal ``d_i = G_ii - Σ_{k<j} L_ik²``; the factorization stops after
    ``rank`` columns or when

    * ``rule="max"``: the largest remaining diagonal is ``<= rtol · max diag(G)`` (the
      residual ``G - L L'`` is PSD with every entry that small); or
    * ``rule="trace"``: the remaining trace ``Σ_i d_i`` is ``<= rtol · trace(G)`` (Fine &
      Scheinberg 2001: a bound on the nuclear norm of the residual).

    The residual vanishes on the pivot columns: ``G[:, piv] = L L[piv]'``.

    Parameters
    ----------
    G : numpy.ndarray of shape (m, m) or None
        The dense matrix.  With ``rule="max"`` and no ``rank`` it is factored by LAPACK's
        blocked ``dpstrf`` (the same pivots and stopping rule as the loop, up to ties).
    rtol : float, default=1e-10
        The relative stopping tolerance of ``rule``.
    column : callable or None
        Matrix-free access ``column(i) -> G[:, i]`` (then ``diag`` is required and ``G`` is
        None): one column is evaluated per step, ``O(m r²)`` work in all.
    diag : numpy.ndarray of shape (m,) or None
        ``diag(G)`` for the matrix-free form.
    rule : {"max", "trace"}, default="max"
        The stopping rule above.
    rank : int or None
        At most this many columns.

    Returns
    -------
    L : numpy.ndarray of shape (m, r)
        The factor (rows in the original order).
    piv : numpy.ndarray of shape (r,)
        The pivots in the order chosen.
    """
    check_option(rule, ("max", "trace"), "rule")
    if G is not None:
        G = as_gram(G, name="G", min_samples=1)
        d0 = np.diag(G).copy()
        if column is None:
            def column(i: int) -> np.ndarray:
                return G[:, i]
    elif column is None or diag is None:
        raise HyperparameterError("pivoted_cholesky needs G, or column and diag")
    else:
        d0 = np.asarray(diag, dtype=np.float64)
    if not np.all(np.isfinite(d0)):
        raise InputError("the matrix contains NaN or inf")
    m = d0.size
    if np.any(d0 < -1e-12 * max(float(np.abs(d0).max(initial=0.0)), 1e-300)):
        raise NotPSDError("the matrix has a negative diagonal entry: it is not PSD")
    scale = float(d0.max(initial=0.0)) if rule == "max" else float(d0.sum())
    if scale <= 0:
        return np.zeros((m, 0)), np.zeros(0, dtype=int)
    if G is not None and rule == "max" and rank is None:
        return _dpstrf(G, rtol * scale)
    rmax = m if rank is None else min(rank, m)
    L = np.zeros((m, rmax))
    d = d0.copy()
    piv: list[int] = []
    for j in range(rmax):
        i = int(np.argmax(d))
        left = d[i] if rule == "max" else d.sum()
        if d[i] <= 0 or left <= rtol * scale:
            break
        col = np.array(column(i), dtype=np.float64) - L[:, :j] @ L[i, :j]
        if col[i] <= 0:
            break
        L[:, j] = col / np.sqrt(col[i])
        d -= L[:, j] ** 2
        d[i] = 0.0
        np.maximum(d, 0.0, out=d)
        piv.append(i)
    return L[:, :len(piv)], np.asarray(piv, dtype=int)


def _dpstrf(G: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's blocked pivoted Cholesky (stops when the largest remaining diagonal <= tol)."""
    c, piv, rank, info = lapack.dpstrf(G, tol=tol, lower=1)
    if info < 0:  # pragma: no cover - argument error inside LAPACK
        raise InputError(f"dpstrf rejected argument {-info}")
    p = piv - 1
    Lp = np.tril(c)[:, :rank]
    L = np.empty_like(Lp)
    L[p] = Lp
    return L, p[:rank]
