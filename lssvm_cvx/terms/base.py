"""The term contract: a penalty on the expansion coefficients ``α`` of
``f(x) = Σ_i α_i k(x_i, x) + b``.

A term is one of two kinds.

* **Quadratic**: it defines :meth:`Term.quadratic` returning a symmetric PSD ``N × N`` matrix
  ``P``; the term is ``½ α'Pα``.  Its cvxpy expression (``½ ||L'α||²`` with ``P = L L'``, which
  keeps a weight Parameter DPP), its NumPy twin and its role in the closed form, in exact
  leave-one-out and in one-weight paths all come for free.
* **General**: it defines :meth:`Term.expr` (a convex, DPP-compatible cvxpy expression of the
  cvxpy variable ``alpha``, any atoms: ``norm1``, ``max``, ``pos``, a group norm) and
  :meth:`Term.value` (its NumPy twin).  That is all the harness needs to verify it: verdicts
  rest on the conic certificate of each solver's point (:mod:`lssvm_cvx.certificates`), and
  the twin is checked against ``expr`` at every certified point.  :meth:`Term.epigraph`
  (optional) writes the term with smooth pieces and named auxiliary variables
  (``||α||₁ = Σ t_i`` with ``-t ≤ α ≤ t``), e.g. to name the slacks in a report.

Every term gets a :class:`Context` carrying the training Gram ``K``, the inputs ``X`` and the
kernel.  A quadratic term of 5 lines::

    class Smoothness(Term):
        def quadratic(self, ctx):
            L = laplacian_of_knn_graph(ctx.X)     # any PSD N x N matrix
            return ctx.K @ L @ ctx.K              # f'Lf with f = K alpha

or, since it sees ``α`` only through ``f = Kα``, ``fitted_quadratic(ctx)`` returning ``L``
(its ``quadratic`` is then ``K L K``, and the closed form's paths are taken in the range of
``K``, accurate where the Gram is ill-conditioned).

Terms are scikit-learn ``BaseEstimator`` s, so their constructor arguments are parameters
(``get_params``/``set_params``/``clone``) like those of a kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator

from ..exceptions import NotPSDError, NotSupportedError, TermError, user_code
from ..kernels.psd import psd_factor
from ..linalg.cholesky import Cholesky

__all__ = ["Context", "Term", "psd_factor", "check_quadratic", "PSD_RTOL"]

#: relative tolerance of the PSD check of term matrices: eigenvalues below
#: ``-1e3 · PSD_RTOL · N · max|P|`` make a matrix "not PSD" (factors use the package's one
#: :func:`lssvm_cvx.kernels.psd.psd_factor`).
PSD_RTOL = 1e-10


def check_quadratic(P: Any, n: int, *, name: str, rtol: float = PSD_RTOL,
                    method: str = "quadratic") -> np.ndarray:
    """Return ``P`` as a float ``(n, n)`` array, or raise :class:`TermError` naming the term
    when it has the wrong shape, is not finite, not symmetric or not PSD (its
    smallest eigenvalue below ``-tol``).  The PSD test is a Cholesky factorisation of ``P + tol·I``
    (``tol = 1e3 · rtol · n · max|P|``), which succeeds exactly when the smallest eigenvalue
    is above ``-tol`` up to rounding; only where it fails is the eigenvalue computed, to
    decide and to report it (until the eighteenth session, 2026-11-30, every check was an
    ``eigvalsh``, about three times the cost).

    Parameters
    ----------
    P : array-like of shape (n, n)
        The matrix a term's ``quadratic`` returned.
    n : int
        Number of training points.
    name : str
        The term's name, used in the error messages.
    rtol : float, default=PSD_RTOL
        Relative tolerance of the symmetry and PSD checks.
    method : str, default="quadratic"
        The term's method that returned ``P``, named in the messages (``"fitted_quadratic"``).

    Returns
    -------
    numpy.ndarray of shape (n, n)
        The symmetrised matrix ``(P + P')/2``.
    """
    try:
        P = np.asarray(P, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TermError(f"term {name!r}: {method}() must return a real matrix ({exc})") from exc
    if P.shape != (n, n):
        raise TermError(f"term {name!r}: {method}() must return an ({n}, {n}) matrix, got {P.shape}")
    if not np.all(np.isfinite(P)):
        raise TermError(f"term {name!r}: {method}() returned NaN or inf")
    scale = max(float(np.abs(P).max()), np.finfo(float).tiny)
    asym = float(np.abs(P - P.T).max())
    if asym > 1e3 * rtol * scale:
        raise TermError(f"term {name!r}: {method}() is not symmetric "
                        f"(max |P - P'| = {asym:.3g}, scale {scale:.3g})")
    S, tol = (P + P.T) / 2, 1e3 * rtol * scale * n
    shifted = S.copy()
    shifted.flat[::n + 1] += tol
    try:            # S + tol·I positive definite proves λmin(S) > -tol (a third of eigvalsh)
        Cholesky.factor(shifted, overwrite=True, check_cond=False)
    except NotPSDError:
        lmin = float(np.linalg.eigvalsh(S)[0])
        if lmin < -tol:
            raise TermError(f"term {name!r}: {method}() is not positive semi-definite "
                            f"(smallest eigenvalue {lmin:.3g}); the term would not be "
                            "convex") from None
    return S


@dataclass
class Context:
    """What a term may use: the training Gram ``K`` (``N × N``), inputs ``X`` (``None`` for a
    precomputed Gram) and the ``kernel``.  :meth:`cached` memoises expensive derived matrices
    (a kNN graph, a factor) for the lifetime of one formulation.

    Parameters
    ----------
    K : numpy.ndarray of shape (N, N)
        The training Gram.
    X : numpy.ndarray of shape (N, d) or None, default=None
        The training inputs (``None`` under a precomputed Gram).
    kernel : Kernel or None, default=None
        The kernel that produced ``K``.
    rows : numpy.ndarray of int or None, default=None
        Which of the original training points these are (a refit without some points); a
        term that holds data of the original points (a fixed matrix) restricts it to them.
    """

    K: np.ndarray
    X: np.ndarray | None = None
    kernel: Any = None
    #: indices of these points among the training points a model was first given (set on the
    #: context of a refit without some points; None: all of them, in order)
    rows: np.ndarray | None = None
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, init=False)

    @property
    def n(self) -> int:
        """Number of training points ``N``."""
        return self.K.shape[0]

    def cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per key for this context.

        Parameters
        ----------
        key : hashable
            The cache key.
        compute : callable
            Called without arguments the first time ``key`` is asked for.

        Returns
        -------
        object
            The cached value.
        """
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def restricted(self, keep: np.ndarray) -> Context:
        """The context of a model fitted on the points ``keep`` only: the Gram and inputs
        restricted to them, ``rows`` saying which of the original points they are (a term is
        then evaluated there, e.g. a kNN graph of those points).

        Parameters
        ----------
        keep : numpy.ndarray of int
            Indices of the remaining points.

        Returns
        -------
        Context
            A new context (with its own cache).
        """
        keep = np.asarray(keep, dtype=np.intp)
        rows = keep if self.rows is None else self.rows[keep]
        return Context(K=self.K[np.ix_(keep, keep)], X=None if self.X is None else self.X[keep],
                       kernel=self.kernel, rows=rows)

    def require_inputs(self, term: str) -> np.ndarray:
        """``X``, or :class:`TermError` for a term that needs inputs under a precomputed Gram.

        Parameters
        ----------
        term : str
            The name of the asking term (for the error message).

        Returns
        -------
        numpy.ndarray of shape (N, d)
            The training inputs.
        """
        if self.X is None:
            raise TermError(f"term {term!r} needs the training inputs X (not a precomputed Gram)")
        return self.X


class Term(BaseEstimator):
    """Base class of the penalties of :class:`~lssvm_cvx.formulations.RegularizedLSSVM`.

    Subclasses define either :meth:`quadratic`, or :meth:`expr` and :meth:`value` (see the
    module docstring).
    """

    #: the convexity a term claims; ``False`` for terms that only run through a driver (GNC)
    convex: bool = True
    #: whether the term of a model refitted without some training points differs from the
    #: full term restricted to the remaining points.  ``False`` declares ``P_{-E} = P[-E, -E]``
    #: (the RKHS norm, a ridge, a fixed matrix): exact ``loo="refit"`` leave-one-out then comes
    #: in closed form from one factorisation.  ``True`` (the safe default, e.g. a kNN graph,
    #: a mean over the training points): the term is recomputed on the remaining points
    #: (:meth:`Context.restricted`) and the model refitted per held-out set.
    depends_on_data: bool = True
    #: whether the term can be evaluated on a subset of the training points at all (a refit,
    #: ``loo="refit"``); a term bound to exactly the training set sets it False
    supports_refit: bool = True

    # --- the two ways to define a term ------------------------------------------------------
    def quadratic(self, ctx: Context) -> np.ndarray:
        """The PSD ``N × N`` matrix ``P`` of a quadratic term ``½ α'Pα``.

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        numpy.ndarray of shape (N, N)
            The matrix ``P``; by default ``K M K`` of :meth:`fitted_quadratic` when the
            subclass defines it.
        """
        if not self.is_fitted_quadratic:
            raise NotImplementedError
        return ctx.K @ self.fitted_matrix(ctx) @ ctx.K     # M checked (shape, symmetry, PSD)

    def fitted_quadratic(self, ctx: Context) -> np.ndarray:
        """The PSD ``N × N`` matrix ``M`` of a quadratic term that sees ``α`` only through the
        fitted values ``f = Kα`` at the training points: ``½ α'Pα = ½ f'Mf``, ``P = K M K``
        (a graph Laplacian's smoothness).  Optional: a subclass that defines it gets
        :meth:`quadratic` from it, and the closed form's one-weight paths of models whose
        weighted terms are all such terms or the RKHS norm are taken in the range of ``K``
        (:meth:`lssvm_cvx.linalg.engine.Decomposition.range_path`: accurate where the Gram is
        ill-conditioned).

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        numpy.ndarray of shape (N, N)
            The matrix ``M``.
        """
        raise NotImplementedError

    def expr(self, alpha: cp.Variable, ctx: Context) -> cp.Expression:
        """Convex cvxpy expression of the term in the variable ``alpha``.

        Parameters
        ----------
        alpha : cvxpy.Variable of shape (N,)
            The expansion coefficients.
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        cvxpy.Expression
            A scalar, convex, DPP-compatible expression.
        """
        if not self.is_quadratic:
            raise NotSupportedError(f"{type(self).__name__} defines neither quadratic() nor expr()")
        return 0.5 * cp.sum_squares(self.factor(ctx).T @ alpha)

    def value(self, alpha: np.ndarray, ctx: Context) -> float:
        """NumPy twin of :meth:`expr` at a coefficient vector ``alpha``.

        Parameters
        ----------
        alpha : numpy.ndarray of shape (N,)
            The expansion coefficients.
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        float
            The value of the term.
        """
        if not self.is_quadratic:
            raise NotSupportedError(f"{type(self).__name__} defines expr() but not value()")
        P = self.matrix(ctx)
        a = np.asarray(alpha, dtype=np.float64)
        return float(0.5 * np.einsum("i...,ij,j...->...", a, P, a).sum())

    def epigraph(self, alpha: cp.Variable, ctx: Context
                 ) -> tuple[cp.Expression, dict[str, cp.Constraint], dict[str, cp.Variable]]:
        """``(objective piece, named constraints, named auxiliary variables)``; the default is
        ``(expr, {}, {})``.  Override to write a term with auxiliary variables (an epigraph).
        The composition multiplies the *piece* by the term's weight; the constraints are hard
        (they hold whatever the weight, 0 included), so they should only define the
        auxiliary variables.  A term whose piece is constant and which only adds constraints
        is refused (:class:`~lssvm_cvx.exceptions.TermError`): its weight would mean nothing.

        Parameters
        ----------
        alpha : cvxpy.Variable of shape (N,)
            The expansion coefficients.
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        tuple
            ``(cvxpy.Expression, dict[str, cvxpy.Constraint], dict[str, cvxpy.Variable])``.
        """
        return self.expr(alpha, ctx), {}, {}

    # --- provided -----------------------------------------------------------------------------
    def refit_change(self, ctx: Context, keep: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, float] | None:
        """How the term's matrix changes when the model is refitted on the points ``keep``
        only: ``(U, C)`` with ``P_keep = P[keep, keep] + U C U'`` (``U`` of few columns), or
        ``(U, C, scale)`` with ``P_keep = scale P[keep, keep] + U C U'`` (a mean over the
        points, renormalised: the scale is folded into the term's weight, one factorisation per
        distinct scale), or ``None`` when the term cannot say (it is then recomputed per refit).  Exact
        ``loo="refit"`` held-out values then come from one factorisation with a low-rank
        update (:meth:`lssvm_cvx.linalg.quadratic.AugmentedSystem.refit_predictions`).

        The default: no change for a term that does not depend on the data
        (:attr:`depends_on_data` False), ``None`` otherwise.

        Parameters
        ----------
        ctx : Context
            The context of all training points.
        keep : numpy.ndarray of int
            The remaining points.

        Returns
        -------
        tuple of numpy.ndarray or None
            ``(U, C)`` of shapes ``(len(keep), r)`` and ``(r, r)``, or None.
        """
        if self.depends_on_data:
            return None
        return np.zeros((len(keep), 0)), np.zeros((0, 0))

    @property
    def is_quadratic(self) -> bool:
        """Whether the subclass defines :meth:`quadratic` (or :meth:`fitted_quadratic`)."""
        return type(self).quadratic is not Term.quadratic or self.is_fitted_quadratic

    @property
    def is_fitted_quadratic(self) -> bool:
        """Whether the subclass defines :meth:`fitted_quadratic`."""
        return type(self).fitted_quadratic is not Term.fitted_quadratic

    def fitted_matrix(self, ctx: Context, *, name: str | None = None) -> np.ndarray:
        """The checked, symmetrised ``M`` of :meth:`fitted_quadratic` (memoised in ``ctx``).

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.
        name : str or None, default=None
            The term's name in error messages (default: the class name).

        Returns
        -------
        numpy.ndarray of shape (N, N)
            The matrix ``M``.
        """
        return self._checked(ctx, name, "fitted_quadratic")

    def matrix(self, ctx: Context, *, name: str | None = None) -> np.ndarray:
        """The checked, symmetrised ``P`` of a quadratic term (memoised in ``ctx``).

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.
        name : str or None, default=None
            The term's name in error messages (default: the class name).

        Returns
        -------
        numpy.ndarray of shape (N, N)
            The matrix ``P``.
        """
        if self.is_fitted_quadratic:            # its M checked first, under the same name
            self.fitted_matrix(ctx, name=name)
        return self._checked(ctx, name, "quadratic")

    def _checked(self, ctx: Context, name: str | None, method: str) -> np.ndarray:
        """The checked, symmetrised matrix the user's ``method`` returns, memoised in ``ctx``
        (:meth:`matrix` and :meth:`fitted_matrix`)."""
        label = name or type(self).__name__

        def compute() -> np.ndarray:
            with user_code(f"term {label!r} ({type(self).__name__})", method):
                M = getattr(self, method)(ctx)
            return check_quadratic(M, ctx.n, name=label, method=method)

        return ctx.cached((method, id(self)), compute)

    def factor(self, ctx: Context) -> np.ndarray:
        """``L`` with ``L L' = P`` (:func:`psd_factor`, memoised in ``ctx``).

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        numpy.ndarray of shape (N, r)
            The factor.
        """
        return ctx.cached(("factor", id(self)), lambda: psd_factor(self.matrix(ctx)))
