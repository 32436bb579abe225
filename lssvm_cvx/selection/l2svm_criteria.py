"""Model selection along the ℓ2-SVM path (Bonidal, Tindel & Guermeur 2013, §3): the span
leave-one-out test error prediction (Proposition 4, eq. 16, 22-24) and the radius-margin bound
(Theorem 1) with its enclosing-ball QP on the working Gram."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..checks import as_gram
from ..formulations.l2svm_active_set import Hessian, State

__all__ = ["span_loo", "span_loo_outputs", "radius_margin", "dense_ball_problem", "BallOnHessian",
           "ball_on_hessian"]


def span_loo(hess: Hessian, st: State) -> float:
    """Span leave-one-out test error prediction of the ℓ2-SVM at ``st`` (Prop. 4, eq. 16):
    ``(1/m) #{i ∈ E : α_i / (A_E(λ)^{-1})_{ii} - 1 ≥ 0}``, with the diagonal of ``A_E(λ)^{-1}``
    from eq. (22)-(23) (``(H_EE(λ)^{-1})_{ii} - ν_i² / (y_E^T ν)``; eq. 24 with low-rank factors).
    Points of ``I`` are never leave-one-out errors."""
    return float(np.sum(span_loo_outputs(st) <= 0.0)) / hess.m


def span_loo_outputs(st: State) -> np.ndarray:
    """``y_i h^i_λ(x_i) = 1 - α_i / (A_E(λ)^{-1})_{ii}`` for ``i ∈ E`` (eq. 20)."""
    return 1.0 - st.alpha_E / st.sys.alpha_inv_diag()


def radius_margin(st: State, R2: float, m: int) -> float:
    """``(4/m) R² / γ²`` (Theorem 1 as printed) with ``1/γ² = α^T H(λ) α = 1^T α`` for the
    hard-margin machine of kernel ``κ_λ`` (from (7): ``α_E^T H_EE(λ) α_E = 1^T α_E``).

    The factor 4 is the paper's (and Chung et al. 2003, its ref. [10]); Chapelle et al. (2002)
    state the bound as ``R²/γ²`` over ``m``.  The constant does not move the minimiser."""
    return 4.0 * R2 * float(np.sum(st.alpha_E)) / m


def dense_ball_problem(K: np.ndarray) -> Any:
    """The enclosing-ball QP (:func:`~lssvm_cvx.formulations.l2svm.enclosing_ball_problem`) of
    the points of a dense Gram ``K`` (symmetrized, PSD-wrapped), λ a Parameter."""
    import cvxpy as cp

    from ..formulations.l2svm import enclosing_ball_problem

    K = as_gram(K, name="K")    # a string crashed and a NaN built a problem (until 2026-12-06)
    Ks = cp.psd_wrap((K + K.T) / 2)
    return enclosing_ball_problem(np.diag(K).copy(), lambda b: cp.quad_form(b, Ks))


class BallOnHessian:
    """Enclosing-ball QP on the working Gram ``K_w`` (the exact Gram or ``R R^T``), DPP in λ."""

    def __init__(self, hess: Hessian):
        import cvxpy as cp

        from ..formulations.l2svm import enclosing_ball_problem
        from ..solvers import solve_problem

        self._solve_problem = solve_problem
        if hess.factor is not None:
            F = hess.factor.R
            self.problem = enclosing_ball_problem(np.einsum("ij,ij->i", F, F),
                                                  lambda b: cp.sum_squares(F.T @ b))
        else:
            self.problem = dense_ball_problem(hess.gram())
        self.lam = self.problem.params["lam"]
        self.beta = self.problem.vars["beta"]
        self.m = self.beta.size

    def radius2(self, lam: float, solver: str = "CLARABEL") -> float:
        self.lam.value = lam
        info = self._solve_problem(self.problem, solver, accept_inaccurate=True)
        return float(-info["value"])


#: the enclosing-ball problem of each Hessian, built on first use (weak keys: it goes with ``hess``)
_BALLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def ball_on_hessian(hess: Hessian) -> BallOnHessian:
    """Return the enclosing-ball problem of ``hess`` (built on first use, then cached)."""
    ball = _BALLS.get(hess)
    if ball is None:
        ball = _BALLS[hess] = BallOnHessian(hess)
    return ball
