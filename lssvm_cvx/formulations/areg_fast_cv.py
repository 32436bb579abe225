"""Fast cross-validation fusion of additive regularization (Pelckmans, Suykens & De Moor 2006,
Lemma 5.2, eq. 45-48, Algorithm 5.1, eq. 52) and its ∞-norm stability variant; the
derivation and the corrections of the printed equations are in
:mod:`lssvm_cvx.formulations.areg_cv`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..checks import check_positive
from ..exceptions import NotSupportedError
from ..kernels import RBF, Kernel
from ..linalg.lstsq import LSQR_ITER, constrained_lstsq
from ..solution import Solution
from .areg import AREG_REF, default_width
from .areg_cv import FoldData, fast_cv_matrices
from .base import BuiltProblem, Reference
from .lssvm import AREG_PAPER
from .tasks import classifier_preset

__all__ = ["ARegFastCV", "ARegClassifierFastCV", "ARegStability"]


class ARegFastCV(FoldData):
    """Fast cross-validation fusion (Lemma 5.2, eq. 45-48; Algorithm 5.1, eq. 52).

    Builder (eq. 52 with the corrections of the module docstring; ``xi`` is a
    :class:`cvxpy.Parameter`)::

        min  ||ē||² + ξ ||ē - e^v||²
        s.t. 1'α = 0                                                   ("bias")
             [((L-2)/(L-1)) Ω + (1/(L-1)) Ω_CV] α + 1 b + ē = y         ("training", eq. 46)
             ((L Ω_CV - Ω)/(L-1)) α + (ē - e^v) = 0                     ("cv", eq. 47 - 46)

    ``ē`` are the fold-averaged training residuals and ``e^v`` the cross-validation residuals
    (eq. 47); ``c = ē - α`` (eq. 50a).  Eliminating ``ē`` and ``e^v`` leaves least squares
    in ``(α, b)`` under ``1'α = 0``, solved in closed form by :func:`constrained_lstsq`.
    The model is the average of the ``L`` fold models, eq. (41):
    ``f(x) = ((L-1)/L) Σ_i α_i K(x_i, x) + b`` (:meth:`model`; eq. 48 drops the factor, see
    the module docstring).

    Parameters
    ----------
    xi :
        The weight ``ξ > 0`` of eq. (52) (the paper does not report the value it used).
    """

    name: ClassVar[str] = "areg_fast_cv"
    reference = Reference(AREG_REF, AREG_PAPER, {"Omega_CV": "(45)", "dual system": "(46)",
                                                  "validation": "(47)", "model": "(41)",
                                                  "fusion": "(52)"})
    has_closed_form = True
    compare = ("alpha", "b", "e_bar", "e_v")
    # lazily set by :meth:`matrices`: ``(fold_sets, A, D)``
    _AD: tuple[list[np.ndarray], np.ndarray, np.ndarray] | None

    def __init__(self, X: Any, y: Any, *, folds: int | Sequence[Sequence[int]] | None = 10,
                 xi: float = 1.0, seed: int | None = 0, kernel: Kernel | None = None,
                 Omega: Any | None = None, task: str | None = None):
        super().__init__(X, y, folds=folds, seed=seed, kernel=kernel, Omega=Omega, task=task)
        self.xi = xi

    def _xi(self) -> float:
        return check_positive(self.xi, "xi")

    def validate(self) -> None:
        super().validate()
        self._xi()

    def parameter_values(self) -> dict[str, Any]:
        return {"xi": self._xi()}

    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(A, D)`` of :func:`fast_cv_matrices` for this problem's Gram block (cached)."""
        AD = getattr(self, "_AD", None)
        if AD is None or AD[0] is not self.fold_sets:
            AD = self._AD = (self.fold_sets, *fast_cv_matrices(self.omega(), self.fold_sets))
        return AD[1], AD[2]

    def _constraints(self, alpha, b, e_bar, e_v) -> dict[str, cp.Constraint]:
        A, D = self.matrices()
        return {
            "bias": self.border() @ alpha == 0,
            "training": A @ alpha + self.border() * b + e_bar == self.rhs(),
            "cv": D @ alpha + e_bar - e_v == 0,
        }

    def _build(self) -> BuiltProblem:
        N = self.n
        xi = cp.Parameter(nonneg=True, name="xi")
        alpha, b = cp.Variable(N, name="alpha"), cp.Variable(name="b")
        e_bar, e_v = cp.Variable(N, name="e_bar"), cp.Variable(N, name="e_v")
        objective = cp.Minimize(cp.sum_squares(e_bar) + xi * cp.sum_squares(e_bar - e_v))
        return BuiltProblem(objective, self._constraints(alpha, b, e_bar, e_v),
                            vars={"alpha": alpha, "b": b, "e_bar": e_bar, "e_v": e_v},
                            params={"xi": xi})

    def model(self, solution: Solution) -> tuple[np.ndarray, float]:
        """Coefficients of the CV model (41), the average of the ``L`` fold models:
        ``f(x) = Σ_i coef_i K(x_i, x) + b`` with ``coef = ((L-1)/L) α`` (for the classifier
        ``f(x) = Σ_i coef_i y_i K(x_i, x) + b``)."""
        L = len(self.fold_sets)
        return (L - 1) / L * np.asarray(solution["alpha"]), float(np.asarray(solution["b"]))

    def residuals(self, alpha: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
        """``(ē, ē - e^v)`` implied by ``(α, b)``: ``ē = y - Aα - b``, ``ē - e^v = -Dα``."""
        A, D = self.matrices()
        return self.rhs() - A @ alpha - self.border() * b, -(D @ alpha)

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``||ē||² + ξ||ē - e^v||²`` with the residuals implied by ``(α, b)``."""
        e_bar, d = self.residuals(np.asarray(values["alpha"]), float(np.asarray(values["b"])))
        return float(e_bar @ e_bar + self._xi() * d @ d)

    def _fused(self, method: str, iter_lim: int) -> tuple[np.ndarray, float, dict[str, Any]]:
        A, D = self.matrices()
        a, xi = self.border(), self._xi()
        M = np.vstack([A, np.sqrt(xi) * D])
        mb = np.concatenate([a, np.zeros(self.n)])
        g = np.concatenate([self.rhs(), np.zeros(self.n)])
        info: dict[str, Any] = {}
        alpha, b = constrained_lstsq(M, mb, g, a, info=info, method=method, iter_lim=iter_lim)
        return alpha, b, info

    def solve_lsqr(self, iter_lim: int = LSQR_ITER) -> Solution:
        """Eq. (52) by ``iter_lim`` LSQR (CG) steps — the paper's route (Remark 5.4): an
        implicitly regularized solution, not the optimum of (52)."""
        self.validate()
        alpha, b, info = self._fused("lsqr", iter_lim)
        e_bar, d = self.residuals(alpha, b)
        sol = Solution(values={"alpha": alpha, "b": b, "e_bar": e_bar, "e_v": e_bar - d},
                       backend=f"lsqr({iter_lim})", extras={"c": e_bar - alpha, "lstsq": info})
        sol.objective = self.objective(sol.values)
        return sol

    def closed_form(self) -> Solution:
        A, D = self.matrices()
        a, xi = self.border(), self._xi()
        alpha, b, info = self._fused("exact", 0)
        e_bar, d = self.residuals(alpha, b)
        e_v = e_bar - d
        # multipliers: ν = -2ξd ("cv"), μ = -2ē ("training"), βa = 2Aē + 2ξDd ("bias")
        grad = 2.0 * (A @ e_bar) + 2.0 * xi * (D @ d)
        return Solution(values={"alpha": alpha, "b": b, "e_bar": e_bar, "e_v": e_v},
                        duals={"bias": float(a @ grad / (a @ a)), "training": -2.0 * e_bar,
                               "cv": -2.0 * xi * d},
                        extras={"c": e_bar - alpha, "lstsq": info})

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, folds: int = 5, xi: float = 1.0,
                        sigma2: float | None = None, d: int = 3, **kwargs: Any) -> ARegFastCV:
        """``n`` points of ``lssvm_regression``, RBF width 0.5 at ``n ≤ 50`` (the classifier:
        ``lssvm_classification``, 1.0), :func:`~lssvm_cvx.formulations.areg.default_width`
        beyond."""
        from lssvm_cvx import problems

        base = {"regression": 0.5, "classification": 1.0}[cls.default_task]
        sigma2 = default_width(base, n, d) if sigma2 is None else sigma2
        ds = problems.get_problem(f"lssvm_{cls.default_task}", n=n, d=d, seed=seed, **kwargs)
        return cls(ds.X, ds.y, folds=folds, xi=xi, seed=seed, kernel=RBF(sigma2))


ARegClassifierFastCV = classifier_preset(
    ARegFastCV, "ARegClassifierFastCV", name="areg_classifier_fast_cv",
    reference=Reference(AREG_REF, AREG_PAPER, {"system": "(67)", "Omega_CV,y": "(68)",
                                               "criterion": "(69)"}),
    doc="""Fast CV fusion for the classifier (Appendix A.6, eq. 67-69): :class:`ARegFastCV` with
    ``Ω_y``, ``Ω_CV,y`` (eq. 68), border ``y`` and right-hand side ``1_N`` (eq. 67 prints
    ``1/N``, read as ``1_N``; its ``1/L`` weight and third row are corrected as in the module
    docstring).""")


class ARegStability(ARegFastCV):
    """α-stable fast CV fusion (Remark 5.3, eq. 55-56)::

        min ||ē||_2 + ξ ||ē - e^v||_∞   s.t. the constraints of (52)

    ``ξ`` is a :class:`cvxpy.Parameter` (DPP).  The paper states the criterion in a
    leave-one-out setting (``L = N``, the default ``folds=None``), where it bounds
    ``max_i |ē_i - e^v_i|`` as in the definition of α-stability (eq. 55).  A second-order
    cone program with a non-smooth objective: no closed form; solvers are compared with each
    other.
    """

    name: ClassVar[str] = "areg_stability"
    reference = Reference(AREG_REF, AREG_PAPER, {"stability": "(55)", "criterion": "(56)",
                                                  "constraints": "(52)"})
    has_closed_form = False

    def __init__(self, X: Any, y: Any, *, folds: int | Sequence[Sequence[int]] | None = None,
                 xi: float = 1.0, seed: int | None = 0, kernel: Kernel | None = None,
                 Omega: Any | None = None, task: str | None = None):
        super().__init__(X, y, folds=folds, xi=xi, seed=seed, kernel=kernel, Omega=Omega,
                         task=task)

    def _build(self) -> BuiltProblem:
        N = self.n
        xi = cp.Parameter(nonneg=True, name="xi")
        alpha, b = cp.Variable(N, name="alpha"), cp.Variable(name="b")
        e_bar, e_v = cp.Variable(N, name="e_bar"), cp.Variable(N, name="e_v")
        objective = cp.Minimize(cp.norm(e_bar, 2) + xi * cp.norm(e_bar - e_v, "inf"))
        return BuiltProblem(objective, self._constraints(alpha, b, e_bar, e_v),
                            vars={"alpha": alpha, "b": b, "e_bar": e_bar, "e_v": e_v},
                            params={"xi": xi})

    def closed_form(self) -> Solution:
        raise NotSupportedError("areg_stability (eq. 56) has no closed form; solve it with a "
                                "conic solver (ECOS, SCS, CLARABEL)")

    def solve_lsqr(self, iter_lim: int = LSQR_ITER) -> Solution:
        raise NotSupportedError("eq. (56) is not a least-squares problem")

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """Eq. (56): ``||ē||_2 + ξ||ē - e^v||_∞`` with the residuals implied by ``(α, b)``."""
        e_bar, d = self.residuals(np.asarray(values["alpha"]), float(np.asarray(values["b"])))
        return float(np.linalg.norm(e_bar) + self._xi() * np.abs(d).max())

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, folds: int | None = None,
                        xi: float = 1.0, sigma2: float | None = None, d: int = 3,
                        **kwargs: Any) -> ARegStability:
        from lssvm_cvx import problems

        sigma2 = default_width(0.5, n, d) if sigma2 is None else sigma2
        ds = problems.get_problem("lssvm_regression", n=n, d=d, seed=seed, **kwargs)
        return cls(ds.X, ds.y, folds=folds, xi=xi, seed=seed, kernel=RBF(sigma2))
