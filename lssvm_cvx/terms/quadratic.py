"""Quadratic terms ``½ α'Pα``: the RKHS norm, ridge, a user matrix, graph-Laplacian smoothness,
the gradient norm of the Auto LS-SVM note and the roughness of the multiobjective paper.

With ``f = Kα + b`` on the training points, a penalty on the fitted values ``f'Mf`` (``M`` with
``M 1 = 0``, e.g. a graph Laplacian) is the quadratic term ``P = K M K``; a term that says so
(:meth:`~lssvm_cvx.terms.Term.fitted_quadratic`, as :class:`GraphLaplacian` does) is solved on
the range of ``K`` (:class:`lssvm_cvx.linalg.engine.RangeSystem`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..checks import as_gram, as_matrix, check_integer, check_option, check_positive
from ..exceptions import TermError
from ..kernels import RBF
from .base import Context, Term, psd_factor
from .gradient_norm import affine_dim, gradient_norm_gram
from .roughness import roughness

__all__ = ["RKHSNorm", "Ridge", "Quadratic", "GraphLaplacian", "GradientNorm", "Roughness",
           "knn_laplacian"]


class RKHSNorm(Term):
    """The RKHS norm ``½ ||f||²_H = ½ α'Kα`` (``P = K``): with the squared loss and weight
    ``1/γ`` this is the LS-SVM (AReg paper eq. 1-2)."""

    depends_on_data = False  # P = K: a model on fewer points has the restricted Gram

    def quadratic(self, ctx: Context) -> np.ndarray:
        return ctx.K

    def matrix(self, ctx: Context, *, name: str | None = None) -> np.ndarray:
        return ctx.K  # a kernel Gram, checked where the kernel was evaluated

    def factor(self, ctx: Context) -> np.ndarray:
        def compute() -> np.ndarray:
            if ctx.X is not None and hasattr(ctx.kernel, "factor"):
                return ctx.kernel.factor(ctx.X)
            return psd_factor(ctx.K)
        return ctx.cached(("factor", "rkhs"), compute)


class Ridge(Term):
    """``½ ||α||²`` (``P = I``), the margin term of the Auto LS-SVM note's eq. (9)."""

    depends_on_data = False

    def quadratic(self, ctx: Context) -> np.ndarray:
        return np.eye(ctx.n)

    def factor(self, ctx: Context) -> np.ndarray:
        return np.eye(ctx.n)


class Quadratic(Term):
    """``½ α'Pα`` for a given PSD matrix ``P`` (an array, or a callable ``ctx -> P``).

    Parameters
    ----------
    P : array-like of shape (N, N) or callable, default=None
        The PSD matrix, or a function of the :class:`Context` returning it.
    """

    def __init__(self, P: Any = None):
        self.P = P

    @property
    def depends_on_data(self) -> bool:  # type: ignore[override]
        """A fixed matrix restricts to the remaining points; a callable may not."""
        return callable(self.P)

    def quadratic(self, ctx: Context) -> np.ndarray:
        if self.P is None:
            raise TermError("Quadratic term needs a matrix P")
        if callable(self.P):
            return self.P(ctx)
        P = as_gram(self.P, name="Quadratic: P", finite=False)  # the term check scans it
        # a model refitted without some points: the matrix of the remaining ones
        return P if ctx.rows is None else P[np.ix_(ctx.rows, ctx.rows)]


def knn_laplacian(X: np.ndarray, n_neighbors: int = 10, *, sigma2: float | None = None,
                  normalized: bool = False) -> np.ndarray:
    """Laplacian ``L = D - W`` of the symmetrised k-nearest-neighbour graph of ``X``.

    ``W_ij = 1`` (or ``exp(-||x_i - x_j||²/σ²)`` with ``sigma2``) when ``j`` is among the
    ``n_neighbors`` nearest neighbours of ``i`` or ``i`` among those of ``j``;
    ``normalized=True`` gives ``I - D^{-½} W D^{-½}``.

    Parameters
    ----------
    X : numpy.ndarray of shape (N, d)
        The inputs.
    n_neighbors : int, default=10
        Number of neighbours ``k`` (``1 ≤ k < N``).
    sigma2 : float or None, default=None
        Width of the heat-kernel weights (``None``: unit weights).
    normalized : bool, default=False
        Return the normalised Laplacian.

    Returns
    -------
    numpy.ndarray of shape (N, N)
        The Laplacian.
    """
    from sklearn.neighbors import kneighbors_graph

    X = as_matrix(X)
    n = X.shape[0]
    k, sigma2, normalized = _graph_params(n_neighbors, sigma2, normalized)
    if not 1 <= k < n:
        raise TermError(f"n_neighbors must be in [1, {n - 1}] for {n} points, got {n_neighbors!r}")
    mode = "distance" if sigma2 is not None else "connectivity"
    G = kneighbors_graph(X, k, mode=mode, include_self=False).toarray()
    if sigma2 is not None:
        G = np.where(G > 0, np.exp(-(G**2) / sigma2), 0.0)
    W = np.maximum(G, G.T)
    d = W.sum(axis=1)
    if normalized:
        s = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
        return np.eye(n) - s[:, None] * W * s[None, :]
    return np.diag(d) - W


def _graph_params(n_neighbors: Any, sigma2: Any = None, normalized: Any = False
                ) -> tuple[int, float | None, bool]:
    """The neighbourhood graph's parameters (:func:`knn_laplacian`), checked by name
    (:class:`TermError`): an integer ``n_neighbors >= 1``, ``sigma2`` None or a number > 0, a
    boolean ``normalized``.  Until the nineteenth session (2026-11-30) they were cast late:
    ``n_neighbors=1.5`` became 1, a negative ``sigma2`` gave weights ``exp(+d²/|σ²|)`` and
    ``normalized="no"`` normalised, all silently."""
    if not isinstance(normalized, (bool, np.bool_)):
        raise TermError(f"normalized must be True or False, got {normalized!r}")
    return (check_integer(n_neighbors, "n_neighbors", error=TermError),
            None if sigma2 is None else check_positive(sigma2, "sigma2", error=TermError),
            bool(normalized))


def _neighbours(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of each point's ``k`` nearest other points (nearest first)."""
    from sklearn.neighbors import NearestNeighbors

    return NearestNeighbors(n_neighbors=k).fit(X).kneighbors()


class GraphLaplacian(Term):
    """Smoothness on a k-nearest-neighbour graph: ``½ f'Lf = ½ Σ_{i~j} W_ij (f_i - f_j)²/2``,
    ``f = Kα`` at the training points, so ``P = K L K`` (Belkin et al.'s manifold term;
    :meth:`fitted_quadratic` is ``L``: with the RKHS norm, the closed form is solved on the
    range of ``K``).

    Parameters
    ----------
    n_neighbors : int, default=10
        Number of neighbours of the graph (see :func:`knn_laplacian`).
    sigma2 : float or None, default=None
        Width of the heat-kernel edge weights (``None``: unit weights).
    normalized : bool, default=False
        Use the normalised Laplacian.
    """

    def __init__(self, n_neighbors: int = 10, sigma2: float | None = None,
                 normalized: bool = False):
        self.n_neighbors = n_neighbors
        self.sigma2 = sigma2
        self.normalized = normalized

    def laplacian(self, ctx: Context) -> np.ndarray:
        """The graph Laplacian ``L`` of the training inputs.

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        numpy.ndarray of shape (N, N)
            The Laplacian (memoised in ``ctx``).
        """
        X = ctx.require_inputs("GraphLaplacian")
        k, sigma2, normalized = _graph_params(self.n_neighbors, self.sigma2, self.normalized)
        return ctx.cached(("laplacian", k, sigma2, normalized),
                          lambda: knn_laplacian(X, k, sigma2=sigma2, normalized=normalized))

    def fitted_quadratic(self, ctx: Context) -> np.ndarray:
        return self.laplacian(ctx)

    def refit_change(self, ctx: Context, keep: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray] | None:
        """Removing points changes the graph only near them: with ``L'`` the Laplacian of the
        remaining points' graph embedded at their indices (zero elsewhere),
        ``P_keep - P[keep, keep] = K[keep, :] (L' - L) K[:, keep]`` and ``L' - L`` is zero
        outside the removed points, their neighbours and the points that take new
        neighbours: ``U = K[keep, T]``, ``C = (L' - L)[T, T]`` with ``T`` those points.

        Parameters
        ----------
        ctx : Context
            The context of all training points.
        keep : numpy.ndarray of int
            The remaining points.

        Returns
        -------
        tuple of numpy.ndarray or None
            ``(U, C)``; None when ``n_neighbors`` does not fit the remaining points.
        """
        X = ctx.require_inputs("GraphLaplacian")
        n = ctx.n
        keep = np.asarray(keep, dtype=np.intp)
        k, sigma2, normalized = _graph_params(self.n_neighbors, self.sigma2, self.normalized)
        m = n - keep.size
        if not 1 <= k < keep.size:
            return None
        # each remaining point's k nearest among the remaining ones are the first k of its
        # k + m nearest overall that were not removed (one neighbour search for all refits)
        width = min(k + m, n - 1)
        dist, nb = ctx.cached(("knn", width), lambda: _neighbours(X, width))
        removed = np.ones(n, dtype=bool)
        removed[keep] = False
        ok = ~removed[nb]
        take = ok & (np.cumsum(ok, axis=1) <= k)
        take[removed] = False
        rows, cols = np.nonzero(take)
        W = np.zeros((n, n))
        W[rows, nb[rows, cols]] = (np.exp(-dist[rows, cols] ** 2 / sigma2)
                                   if sigma2 is not None else 1.0)
        W = np.maximum(W, W.T)
        d = W.sum(axis=1)
        if normalized:
            inv = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
            Lk = np.diag((~removed).astype(float)) - inv[:, None] * W * inv[None, :]
        else:
            Lk = np.diag(d) - W
        D = Lk - self.laplacian(ctx)
        T = np.flatnonzero(np.any(D != 0.0, axis=1))
        return ctx.K[np.ix_(keep, T)], D[np.ix_(T, T)]


class GradientNorm(Term):
    """``½ ∫ ||∇f(x)||² dx`` over ``R^d`` for an RBF model (Auto LS-SVM note eq. 40-41), or the
    note's normalised form (unit diagonal, integrated over the affine hull of the inputs, see
    :func:`lssvm_cvx.kernels.gradient_norm_gram`).

    The kernel must be :class:`~lssvm_cvx.kernels.RBF` ``exp(-||x - z||²/σ²)``: the note's
    width is ``γ = 1/σ²`` (``form="exact"``) or ``γ = p/σ²`` with ``p`` input columns
    (``form="normalized"``, whose kernel is ``exp(-(γ/p)||x - z||²)``).

    Parameters
    ----------
    form : {"normalized", "exact"}, default="normalized"
        The note's normalised form or the exact integral.
    """

    def __init__(self, form: str = "normalized"):
        self.form = form

    @property
    def depends_on_data(self) -> bool:  # type: ignore[override]
        """The exact integral over ``R^d`` is a function of each pair of points (a model on
        fewer points has the restricted Gram); the normalised form integrates over the affine
        hull of the inputs, which depends on all of them."""
        return self._form() != "exact"

    def _form(self) -> str:
        return check_option(self.form, ("normalized", "exact"), "GradientNorm: form", error=TermError)

    def refit_change(self, ctx: Context, keep: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray] | None:
        """The normalised form depends on the other points only through the dimension of
        their affine hull: no change while the remaining points span the same one.

        Parameters
        ----------
        ctx : Context
            The context of all training points.
        keep : numpy.ndarray of int
            The remaining points.

        Returns
        -------
        tuple of numpy.ndarray or None
            An empty change, or None when the remaining points span a smaller hull.
        """
        if self._form() == "normalized":
            X = ctx.require_inputs("GradientNorm")
            if affine_dim(X[np.asarray(keep, dtype=np.intp)]) != affine_dim(X):
                return None
        return np.zeros((len(keep), 0)), np.zeros((0, 0))

    def quadratic(self, ctx: Context) -> np.ndarray:
        X = ctx.require_inputs("GradientNorm")
        if not isinstance(ctx.kernel, RBF):
            raise TermError(f"GradientNorm is derived for the RBF kernel, got {ctx.kernel!r}")
        s2 = float(ctx.kernel.sigma2)
        p = X.shape[1]
        if self._form() == "exact":
            return gradient_norm_gram(X, gamma=1.0 / s2, form="exact")
        return gradient_norm_gram(X, gamma=p / s2, form="normalized", n_features=p)


class Roughness(Term):
    """Mean squared gradient at the training points, ``½ (1/N) Σ_i ||∇f(x_i)||²``: the
    gradient part of the roughness ``E_c`` of the multiobjective paper (You et al. 2014,
    eq. 13 and 16-17; ``P = Σ_i R_i / N``).

    ``E_c`` itself adds ``(1/2N) Σ_i (f(x_i) - y_i) Δf(x_i)``, which depends on the targets and
    is not a penalty on ``α`` alone; the full ``E_c`` is in
    :mod:`lssvm_cvx.formulations.multiobjective`.  RBF and polynomial kernels.
    """

    def quadratic(self, ctx: Context) -> np.ndarray:
        X = ctx.require_inputs("Roughness")
        A = self._A(ctx, X)
        return np.einsum("jim,jik->mk", A, A) / ctx.n  # Σ_i R_i / N

    @staticmethod
    def _A(ctx: Context, X: np.ndarray) -> np.ndarray:
        return ctx.cached(("roughness_A",), lambda: roughness(ctx.kernel, X).A())

    def refit_change(self, ctx: Context, keep: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, float] | None:
        """The mean over the remaining points: with ``R_i = A_i'A_i`` (``A_i``: the gradient
        of the basis functions at ``x_i``, ``p × N``) and ``P = Σ_i R_i / N``, the refit on the
        ``N - m`` points ``keep`` has
        ``P_keep = (N P[keep, keep] - Σ_{r removed} R_r[keep, keep]) / (N - m)``: a rescaled
        ``P`` (``scale = N / (N - m)``, folded into the term's weight) plus
        ``U C U'`` with ``U = [A_r[:, keep]']_r`` (``p m`` columns) and ``C = -I / (N - m)``.

        Parameters
        ----------
        ctx : Context
            The context of all training points.
        keep : numpy.ndarray of int
            The remaining points.

        Returns
        -------
        tuple
            ``(U, C, scale)``.
        """
        X = ctx.require_inputs("Roughness")
        n = ctx.n
        keep = np.asarray(keep, dtype=np.intp)
        if keep.size == 0:
            return None
        removed = np.setdiff1d(np.arange(n), keep)
        A = self._A(ctx, X)  # (p, N, N): A[j, i, m] = d k(x_m, x_i) / d x_ij
        U = A[:, removed][:, :, keep].reshape(-1, keep.size).T
        return U, -np.eye(U.shape[1]) / keep.size, n / keep.size
