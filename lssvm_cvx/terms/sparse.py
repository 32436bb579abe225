"""Non-smooth convex terms: ``||α||₁``, the group (component) L1 of componentwise models and
total variation on a k-nearest-neighbour graph.

Each writes its kink with smooth pieces in :meth:`~lssvm_cvx.terms.Term.epigraph`
(``|v| ≤ t`` as ``-t ≤ v ≤ t``), so the cvxpy problem is a QP whose KKT conditions the harness
checks exactly; :meth:`~lssvm_cvx.terms.Term.expr` gives the plain atom for users composing
the term by hand.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from ..checks import check_integer
from ..exceptions import TermError
from .base import Context, Term, psd_factor
from .quadratic import knn_laplacian

__all__ = ["L1", "GroupL1", "TotalVariation"]


def _abs_epigraph(v: cp.Expression, n: int, name: str):
    t = cp.Variable(n, name=f"t_{name}")
    return cp.sum(t), {f"{name}_pos": v <= t, f"{name}_neg": -v <= t}, {f"t_{name}": t}


class L1(Term):
    """``||α||₁``: sparse expansions (few support vectors)."""

    depends_on_data = False

    def expr(self, alpha: cp.Variable, ctx: Context) -> cp.Expression:
        return cp.norm1(alpha)

    def value(self, alpha: np.ndarray, ctx: Context) -> float:
        return float(np.abs(np.asarray(alpha)).sum())

    def epigraph(self, alpha, ctx):
        return _abs_epigraph(alpha, ctx.n, "l1")


class TotalVariation(Term):
    """``Σ_{i~j} |f_i - f_j|`` over the edges of the symmetrised kNN graph of the inputs, with
    ``f = Kα`` at the training points (``||D K α||₁``, ``D`` the edge-incidence matrix).

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbours of the kNN graph.
    """

    def __init__(self, n_neighbors: int = 5):
        self.n_neighbors = n_neighbors

    def incidence(self, ctx: Context) -> np.ndarray:
        """``D K`` (edges × N).

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        numpy.ndarray of shape (E, N)
            The edge incidence matrix times the Gram (memoised in ``ctx``).
        """
        X = ctx.require_inputs("TotalVariation")

        def compute() -> np.ndarray:
            L = knn_laplacian(X, k)
            i, j = np.nonzero(np.triu(-L, 1))
            D = np.zeros((i.size, ctx.n))
            D[np.arange(i.size), i] = 1.0
            D[np.arange(i.size), j] = -1.0
            return D @ ctx.K
        k = check_integer(self.n_neighbors, "n_neighbors", error=TermError)
        return ctx.cached(("tv", k), compute)

    def expr(self, alpha, ctx):
        return cp.norm1(self.incidence(ctx) @ alpha)

    def value(self, alpha, ctx):
        return float(np.abs(self.incidence(ctx) @ np.asarray(alpha)).sum())

    def epigraph(self, alpha, ctx):
        DK = self.incidence(ctx)
        return _abs_epigraph(DK @ alpha, DK.shape[0], "tv")


class GroupL1(Term):
    """``Σ_p ||f_p||_H = Σ_p sqrt(α'K_pα)``: the component L1 of componentwise models
    (componentwise LS-SVM paper §3; one group per component of a
    :class:`~lssvm_cvx.kernels.Componentwise` kernel, whose Grams sum to ``K``)."""

    def factors(self, ctx: Context) -> list[np.ndarray]:
        """One factor ``L_p`` (``L_p L_p' = K_p``) per component.

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        list of numpy.ndarray
            The factors, one per component.
        """
        X = ctx.require_inputs("GroupL1")
        if not hasattr(ctx.kernel, "components"):
            raise TermError(f"GroupL1 needs a Componentwise kernel, got {ctx.kernel!r}")
        return ctx.cached("group_factors",
                          lambda: [psd_factor(Kp) for Kp in ctx.kernel.components(X)])

    def expr(self, alpha, ctx):
        return cp.sum(cp.hstack([cp.norm(L.T @ alpha, 2) for L in self.factors(ctx)]))

    def value(self, alpha, ctx):
        a = np.asarray(alpha)
        return float(sum(np.linalg.norm(L.T @ a) for L in self.factors(ctx)))
