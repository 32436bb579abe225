"""Fusion of AReg training with a validation set (Pelckmans, Suykens & De Moor 2006, §3.2 and
Appendix A.3): :class:`ARegFusion` [``areg_fusion``] (Lemma 3.2, eq. 15; Algorithm 3.1,
eq. 16-19) and :class:`ARegClassifierFusion` [``areg_classifier_fusion``] (eq. 61-62).

Notation, the regression / classification hooks and the paper slips (1: the sign of ``c`` in
Algorithm 3.1; 3: the first row of eq. 62) are documented in
:mod:`lssvm_cvx.formulations.areg`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..kernels import RBF
from ..linalg.lstsq import LSQR_ITER, constrained_lstsq
from ..solution import Solution
from .areg import AREG_REF, ValidationData, default_width
from .base import BuiltProblem, Reference
from .lssvm import AREG_PAPER
from .tasks import classifier_preset

__all__ = ["ARegFusion", "ARegClassifierFusion"]


class ARegFusion(ValidationData):
    """Fusion of AReg training with a validation set (Lemma 3.2, eq. 15; Algorithm 3.1).

    Builder (eq. 15, the paper's variable names)::

        min_{c, α, b, e^v}  ½ ||e^v||² + ½ ||α + c||²
        s.t.  (Ω + I)α + 1 b + c = y            ("training")
              1'α = 0                            ("bias")
              Ω^v α + 1 b + e^v = y^v            ("validation")

    ``α + c = e`` is the vector of training residuals (eq. 11), so the objective is the sum of
    squared training and validation residuals.  There is no hyperparameter: ``c`` is a
    variable, found together with the model.

    Closed form (Algorithm 3.1): eliminating ``c`` and ``e^v`` leaves eq. (16),
    ``min ½||Ω^vα + b - y^v||² + ½||Ωα + b - y||²`` s.t. ``1'α = 0``, i.e. least squares with
    ``M = [[Ω, 1], [Ω^v, 1]]`` (eq. 17) under one linear constraint.  The paper solves it with
    ``(M'M)^{-1}`` (eq. 19); :func:`constrained_lstsq` solves eq. (19) as one bordered system
    (a Cholesky factor of ``M'M`` and the Schur complement for ``ρ``) when ``M'M`` is well
    conditioned, and the minimum-norm solution of the projected problem otherwise (an RBF Gram
    is often singular to working precision; the model is still unique).  ``c`` is then
    recovered from the training
    equations, ``c = (y - Ωα - b) - α`` (the paper prints ``(Ωα + b - y) - α``; slip 1 of the
    module docstring), and ``e^v = y^v - Ω^vα - b``.

    Remark 3.3 of the paper: the fused model interpolates the training data when ``n`` is not
    much larger than ``N`` (``N`` free constants); §4 and §5 restrict ``c`` to prevent that.
    """

    name: ClassVar[str] = "areg_fusion"
    reference = Reference(AREG_REF, AREG_PAPER, {"fusion": "(15)", "eliminated": "(16)",
                                                  "analytic solution": "(17)-(19)"})
    has_closed_form = True
    compare = ("alpha", "b", "c", "e_v")

    def _build(self) -> BuiltProblem:
        N, n = self.n, self.n_val
        alpha, b = cp.Variable(N, name="alpha"), cp.Variable(name="b")
        c, e_v = cp.Variable(N, name="c"), cp.Variable(n, name="e_v")
        H = self.omega() + np.eye(N)
        objective = cp.Minimize(0.5 * cp.sum_squares(e_v) + 0.5 * cp.sum_squares(alpha + c))
        constraints = {
            "training": H @ alpha + self.border() * b + c == self.rhs(),
            "bias": self.border() @ alpha == 0,
            "validation": self._omega_v() @ alpha + self._val_border() * b + e_v == self._val_rhs(),
        }
        return BuiltProblem(objective, constraints,
                            vars={"alpha": alpha, "b": b, "c": c, "e_v": e_v})

    def residuals(self, alpha: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
        """Training and validation residuals ``(y - Ωα - b, y^v - Ω^vα - b)`` of a model."""
        e = self.rhs() - self.omega() @ alpha - self.border() * b
        e_v = self._val_rhs() - self._omega_v() @ alpha - self._val_border() * b
        return e, e_v

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """Eq. (16): ``½||y^v - Ω^vα - b||² + ½||y - Ωα - b||²`` (residuals implied by α, b)."""
        e, e_v = self.residuals(np.asarray(values["alpha"]), float(np.asarray(values["b"])))
        return float(0.5 * e_v @ e_v + 0.5 * e @ e)

    def _fused(self, method: str, iter_lim: int) -> tuple[np.ndarray, float, dict[str, Any]]:
        a, av = self.border(), self._val_border()
        M_alpha = np.vstack([self.omega(), self._omega_v()])
        m_b = np.concatenate([a, av])
        g = np.concatenate([self.rhs(), self._val_rhs()])
        info: dict[str, Any] = {}
        alpha, b = constrained_lstsq(M_alpha, m_b, g, a, info=info, method=method,
                                     iter_lim=iter_lim)
        return alpha, b, info

    def solve_lsqr(self, iter_lim: int = LSQR_ITER) -> Solution:
        """Eq. (16) by ``iter_lim`` LSQR (CG) steps, the paper's iterative route
        (:func:`lsqr_lstsq`): an implicitly regularized model, not the optimum of (15)."""
        self.validate()
        alpha, b, info = self._fused("lsqr", iter_lim)
        e, e_v = self.residuals(alpha, b)
        sol = Solution(values={"alpha": alpha, "b": b, "c": e - alpha, "e_v": e_v},
                       backend=f"lsqr({iter_lim})", extras={"e": e, "lstsq": info})
        sol.objective = self.objective(sol.values)
        return sol

    def closed_form(self) -> Solution:
        a = self.border()
        alpha, b, info = self._fused("exact", 0)
        e, e_v = self.residuals(alpha, b)
        c = e - alpha
        # multipliers (cvxpy convention, Lagrangian f + μ'(train) + β a'α + ν'(valid)):
        # ∂e^v: e^v + ν = 0; ∂c: (α + c) + μ = 0; ∂α: e + (Ω+I)μ + βa + Ω^v'ν = 0
        # ⇒ β a = Ωe + Ω^v'e^v (the normal equations of eq. 16 with multiplier of a'α = 0)
        grad = self.omega() @ e + self._omega_v().T @ e_v
        beta = float(a @ grad / (a @ a))
        return Solution(values={"alpha": alpha, "b": b, "c": c, "e_v": e_v},
                        duals={"training": -e, "bias": beta, "validation": -e_v},
                        extras={"e": e, "lstsq": info})

    def closed_form_paper(self) -> Solution:
        """Eq. (17)-(19) literally: ``a = M^†g + ρ (M'M)^{-1} d``, ``ρ = -d'M^†g / d'(M'M)^{-1}d``.

        Only meaningful when ``M'M`` is well conditioned; kept to check that
        :meth:`closed_form` solves the paper's problem (``test_fusion_matches_eq19``).
        """
        M = np.block([[self.omega(), self.border()[:, None]],
                      [self._omega_v(), self._val_border()[:, None]]])
        g = np.concatenate([self.rhs(), self._val_rhs()])
        d = np.concatenate([self.border(), [0.0]])
        MtM = M.T @ M
        Mpg = np.linalg.solve(MtM, M.T @ g)
        Minv_d = np.linalg.solve(MtM, d)
        rho = -(d @ Mpg) / (d @ Minv_d)
        sol = Mpg + rho * Minv_d
        alpha, b = sol[:-1], float(sol[-1])
        e, e_v = self.residuals(alpha, b)
        return Solution(values={"alpha": alpha, "b": b, "c": e - alpha, "e_v": e_v})

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, n_val: int | None = None,
                        sigma2: float | None = None, d: int = 3, **kwargs: Any) -> ARegFusion:
        """``n`` training and ``n_val`` (default ``n``) validation points from
        ``lssvm_regression``; the narrow default RBF width (0.1 at ``n ≤ 50``,
        :func:`~lssvm_cvx.formulations.areg.default_width` beyond) keeps ``M`` well conditioned
        so that the solvers can be compared on α and c (for wide kernels only the model is
        well-determined).  The classifier: ``lssvm_classification``, width 0.5 at ``n ≤ 50``."""
        from lssvm_cvx import problems

        base = {"regression": 0.1, "classification": 0.5}[cls.default_task]
        sigma2 = default_width(base, n, d) if sigma2 is None else sigma2
        nv = n if n_val is None else n_val
        ds = problems.get_problem(f"lssvm_{cls.default_task}", n=n + nv, d=d, seed=seed, **kwargs)
        return cls(ds.X[:n], ds.y[:n], ds.X[n:], ds.y[n:], kernel=RBF(sigma2))


ARegClassifierFusion = classifier_preset(
    ARegFusion, "ARegClassifierFusion", name="areg_classifier_fusion",
    reference=Reference(AREG_REF, AREG_PAPER, {"fusion system": "(62)",
                                               "validation residual": "(61)"}),
    doc="""Fusion of the AReg classifier with a validation set (Appendix A.3, eq. 62), solved with
    the least-squares criterion on the training errors ``e = α + c`` and the validation errors
    ``e^v`` (the paper's suggestion after eq. 62)::

        min ½||e^v||² + ½||α + c||²
        s.t. (Ω_y + I)α + y b + c = 1,  y'α = 0,  Ω^v_y α + y^v b + e^v = 1

    (first row of eq. 62 read as ``y'α = 0``; slip 3 of the module docstring).  With
    ``α̃ = y∘α`` this is :class:`ARegFusion` on the ±1 targets.
    """)
