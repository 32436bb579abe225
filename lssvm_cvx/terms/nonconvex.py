"""Non-convex terms: the smoothly thresholding penalty (and its SCAD / hard-threshold / L1
siblings) on the components of a componentwise model, run through the graduated
non-convexity driver :func:`lssvm_cvx.selection.gnc_terms.gnc_fit`.

Componentwise LS-SVM chapter, eq. (23)-(25): a concave, non-decreasing penalty ``ℓ`` on a size
``s_p`` of every component ``f_p = K_p α`` of ``f = Σ_p f_p + b`` (``K = Σ_p K_p``, a
:class:`~lssvm_cvx.kernels.Componentwise` kernel); here ``s_p = sqrt(α'K_pα)``, the
component's RKHS norm (the size :class:`~lssvm_cvx.terms.GroupL1` sums).

The chapter prints ``s_d = ||Ŷ^d||₁``, the L1 norm of the component's training outputs
(eq. 24); its own eq. (25) is the formulation
:class:`~lssvm_cvx.formulations.componentwise_gnc.ComponentwiseSTP` with a dedicated driver.
We use the RKHS norm because ``s_p² = α'K_pα`` is quadratic in α and every penalty of
:mod:`lssvm_cvx.terms.penalties` is concave in ``s²``: the tangent of ``ℓ`` in ``s²`` at the
current point is a *quadratic* majorizer (the chapter's eq. 43 with ``u = s``), so each
majorize-minimize step of the driver is the composition's closed form with one more quadratic
term ``½ α'(Σ_p 2ν_p² K_p)α``.  (An output-norm size ``||K_pα||₂`` gives the matrices
``K_pK_p``, whose α-space system is far worse conditioned: tried, the steps stalled.)

``ℓ`` is smoothed at 0 (``s → sqrt(s² + ε²) - ε``, still concave and non-decreasing in
``s²``) so that the majorizer's weight ``ℓ'(s)/(2s)`` stays finite for a component at zero.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_option, check_positive
from ..exceptions import HyperparameterError, TermError
from .base import Context, Term
from .penalties import PENALTIES, Penalty, make_penalty

__all__ = ["SmoothlyThresholding"]


class SmoothlyThresholding(Term):
    """``Σ_p ℓ(s_p)``: a concave penalty on component sizes (componentwise LS-SVM eq. 24-25).

    Non-convex: :class:`~lssvm_cvx.formulations.RegularizedLSSVM` refuses to build it into a
    cvxpy problem; :func:`lssvm_cvx.selection.gnc_terms.gnc_fit` (and the composed estimators,
    which call it) minimise the composition by graduated non-convexity.

    Parameters
    ----------
    penalty : {"stp", "scad", "hard", "l1"}, default="stp"
        ``ℓ`` with ``λ = 1`` (the term's weight in the composition is the chapter's λ):
        ``"stp"`` is ``a s / (1 + a s)`` (eq. 24).
    a : float, default=3.7
        The shape parameter of STP and SCAD (the chapter's 3.7).
    eps : float, default=1e-4
        Smoothing of ``ℓ`` at ``s = 0``.
    """

    convex = False

    def __init__(self, penalty: str = "stp", a: float = 3.7, eps: float = 1e-4):
        self.penalty = penalty
        self.a = a
        self.eps = eps

    # --- the pieces -----------------------------------------------------------------------------
    def penalty_(self) -> Penalty:
        """The scalar penalty ``ℓ`` (``λ = 1``).

        Returns
        -------
        Penalty
            The penalty object of :mod:`lssvm_cvx.terms.penalties`.
        """
        check_option(self.penalty, sorted(PENALTIES), "SmoothlyThresholding: penalty", error=TermError)
        check_positive(self.eps, "SmoothlyThresholding: eps", error=TermError)
        try:
            return make_penalty(self.penalty, lam=1.0, a=self.a)
        except HyperparameterError as exc:
            raise TermError(f"SmoothlyThresholding: {exc}") from exc

    def grams(self, ctx: Context) -> list[np.ndarray]:
        """The component Grams ``K_p`` (``s_p² = α'K_pα``), memoised in ``ctx``.

        Parameters
        ----------
        ctx : Context
            The training Gram, inputs and a componentwise kernel.

        Returns
        -------
        list of numpy.ndarray of shape (N, N)
            One Gram per component.
        """
        self.penalty_()
        X = ctx.require_inputs("SmoothlyThresholding")
        if not hasattr(ctx.kernel, "components"):
            raise TermError(f"SmoothlyThresholding needs a Componentwise kernel, got {ctx.kernel!r}")

        return ctx.cached("component_grams", lambda: [np.asarray(Kp, dtype=np.float64)
                                                       for Kp in ctx.kernel.components(X)])

    def sizes(self, alpha: np.ndarray, ctx: Context) -> np.ndarray:
        """``s_p`` for every component at ``alpha``.

        Parameters
        ----------
        alpha : numpy.ndarray of shape (N,)
            The expansion coefficients.
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        numpy.ndarray of shape (P,)
            The component sizes.
        """
        a = np.asarray(alpha, dtype=np.float64)
        return np.sqrt(np.maximum([a @ G @ a for G in self.grams(ctx)], 0.0))

    def _smoothed(self, s: np.ndarray) -> np.ndarray:
        return np.sqrt(s * s + self.eps ** 2) - self.eps

    def value(self, alpha: np.ndarray, ctx: Context) -> float:
        """``Σ_p ℓ(sqrt(s_p² + ε²) - ε)`` (the smoothed penalty).

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
        return float(self.penalty_().value(self._smoothed(self.sizes(alpha, ctx))).sum())

    def slopes(self, alpha0: np.ndarray, ctx: Context) -> tuple[np.ndarray, np.ndarray]:
        """Per component, the majorizer's coefficient ``c_p = 2φ'(v_p)`` and constant at
        ``alpha0`` (:meth:`majorizer` is ``½ α'(Σ_p c_p K_p)α + Σ_p const_p``).

        With ``v = s²`` the smoothed penalty ``φ(v) = ℓ(sqrt(v + ε²) - ε)`` is concave, so
        ``φ(v) ≤ φ(v₀) + φ'(v₀)(v - v₀)`` with ``φ'(v₀) = ℓ'(s̃₀) / (2 sqrt(v₀ + ε²))``
        (``s̃₀`` the smoothed size): the chapter's eq. (43) in ``s``.

        Parameters
        ----------
        alpha0 : numpy.ndarray of shape (N,)
            The point of contact.
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        c : numpy.ndarray of shape (P,)
            The coefficients ``2φ'(v_p)``.
        const : numpy.ndarray of shape (P,)
            ``φ(v_p) - φ'(v_p) v_p``.
        """
        pen = self.penalty_()
        v0 = self.sizes(alpha0, ctx) ** 2
        root = np.sqrt(v0 + self.eps ** 2)
        slope = pen.derivative(root - self.eps) / (2.0 * root)
        return 2.0 * slope, pen.value(root - self.eps) - slope * v0

    def majorizer(self, alpha0: np.ndarray, ctx: Context) -> tuple[np.ndarray, float]:
        """``(P, c)`` with ``value(α) ≤ ½ α'Pα + c`` for every α, equal at ``alpha0``
        (``P = Σ_p c_p K_p`` with the coefficients of :meth:`slopes`).

        Parameters
        ----------
        alpha0 : numpy.ndarray of shape (N,)
            The point of contact.
        ctx : Context
            The training Gram, inputs and kernel.

        Returns
        -------
        P : numpy.ndarray of shape (N, N)
            The PSD matrix of the quadratic majorizer.
        c : float
            Its constant.
        """
        coef, const = self.slopes(alpha0, ctx)
        P = sum(c * G for c, G in zip(coef, self.grams(ctx)))
        return np.asarray(P), float(const.sum())

    def expr(self, alpha, ctx):
        raise TermError(f"{type(self).__name__} is not convex: it has no cvxpy expression; fit it "
                        "with lssvm_cvx.selection.gnc_terms.gnc_fit (graduated non-convexity)")
