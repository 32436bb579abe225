"""The classical LS-SVM: regression (AReg paper eq. 1-2), weighted regression (eq. 74-75) and
classification (eq. 57).

Primal (eq. 1) in a finite feature map: the rows of a factor ``F`` with ``F F' = Ω`` (the
kernel's factor, :meth:`gram_factor`) are ``φ(x_i)'``, so ``w`` lives in ``R^r``::

    min_{w, b, e, α}  ½ w'w + ½ Σ_i γ_i e_i²
    s.t.              F w + b 1 + e = y       ("fit": the constraints of eq. 1)
                      γ_i e_i = α_i           ("kkt": the condition e_i γ = α_i of §2.1)

The second constraint is one of the optimality conditions the paper derives; it holds at the
optimum, so adding it does not change the solution, and it names the dual variables ``α``
(unique; at the optimum ``w = F'α = Σ α_i φ(x_i)``).  Writing ``Ωα`` in the fit constraint
instead (``w`` substituted) reads the same but puts two dense N × N blocks in the solver's KKT
system; this form has one N × r block and solves about 4× faster with CLARABEL at N = 1000
(benchmark ``lssvm_solvers``).
Eliminating ``e`` and ``w`` gives the dual linear system (eq. 2 / 75)::

    [ 0   1'          ] [b]   [0]
    [ 1   Ω + diag(1/γ)] [α] = [y]

which :meth:`LSSVM.closed_form` solves by one Cholesky factorization of ``H = Ω + diag(1/γ)``
and the Schur complement for the bias (:class:`lssvm_cvx.linalg.BorderedSystem`).

The classifier (eq. 57) replaces Ω by ``Ω_y = diag(y) Ω diag(y)``, the border ``1`` by ``y``
and the right-hand side ``y`` by ``1``; substituting ``α̃ = y ∘ α`` shows it is the regression
LS-SVM on the ±1 targets (``(Ω + I/γ)α̃ + 1b = y``, ``1'α̃ = 0``), which the model-selection code
uses to share one factorization between classes.  The classifier's bordered matrix is the
regression's scaled by ``diag(1, y)`` on both sides, so is its inverse: its held-out
``(C⁻¹)_VV⁻¹ α_V`` are ``y_V`` times the regression's residuals ``y_V - f^{(-V)}(x_V)``
(:meth:`LSSVM.loo_residuals` multiplies by the border; checked against refits in
``tests/test_formulation_heldout.py``).

The objective twin evaluates the primal objective of eq. (1) at ``w = Σα_iφ(x_i)`` with the
residuals implied by the fit equations, ``J(α, b) = ½α'Ωα + ½Σγ_i(y_i - (Ωα)_i - b)²``, so any
candidate ``(α, b)`` is scored on the same scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, cast

import cvxpy as cp
import numpy as np

from ..checks import as_gram, as_matrix, check_gamma
from ..kernels import RBF, Kernel
from ..kernels.psd import psd_factor
from ..linalg.engine import RKHS, decompose
from ..linalg.quadratic import QuadraticSystem
from ..solution import Solution
from .base import BuiltProblem, Formulation, Reference
from .heldout import HeldOutResiduals
from .tasks import check_task, classifier_preset, task_method, task_targets

__all__ = ["LSSVM", "WeightedLSSVM", "LSSVMClassification", "AREG_PAPER"]

AREG_PAPER = ("Pelckmans, Suykens & De Moor (2006), Additive regularization trade-off: fusion of training "
              "and validation levels in kernel methods, Machine Learning 62")


class KernelFormulation(Formulation):
    """Shared data handling: ``X``, ``y``, a kernel, the Gram ``Omega`` and its factor, and the
    task.

    The task is one instance attribute, :attr:`task` (``"regression"`` or
    ``"classification"``; default the class's :attr:`default_task`), read by the five hooks of
    the bordered systems of the papers (the LS-SVM, AReg and componentwise formulations): the
    targets (:meth:`targets`), the Gram block (:meth:`omega`), its factor rows
    (:meth:`_factor_rows`), the border (:meth:`border`) and the right-hand side (:meth:`rhs`).
    Regression uses ``y``, ``Ω``, ``1`` and ``y``; classification (AReg paper Appendix A,
    eq. 57) uses the labels coded ±1 by :func:`~lssvm_cvx.formulations.tasks.task_targets`
    (sorted order, the first class is ``-1``; the originals in :attr:`classes`),
    ``Ω_y = diag(y)Ωdiag(y)``, ``y`` and ``1``.  A registered classifier is its regression
    formulation with ``task="classification"``
    (:func:`~lssvm_cvx.formulations.tasks.classifier_preset`).
    """

    #: the task of an instance made without ``task`` (a classifier preset sets it)
    default_task: ClassVar[str] = "regression"
    #: the original labels of a classifier (set when its targets are coded)
    classes: np.ndarray

    def __init__(self, X: Any, y: Any, *, kernel: Kernel | None = None, Omega: Any | None = None,
                 task: str | None = None):
        self.X = X
        self.y = y
        self.kernel = kernel
        self.task = check_task(self.default_task if task is None else task)
        self._Omega: np.ndarray | None = None if Omega is None else as_gram(Omega)
        self._precomputed = Omega is not None
        self._factor: np.ndarray | None = None
        self._built = None

    @classmethod
    def from_gram(cls, Omega: Any, y: Any, **kwargs: Any):
        """Instance from a precomputed Gram ``Omega`` (``X`` is then not needed)."""
        return cls(None, y, Omega=Omega, **kwargs)

    def inputs(self) -> np.ndarray:
        """Validated ``X`` (or the square precomputed Gram)."""
        if self._precomputed:
            return cast(np.ndarray, self._Omega)  # given: precomputed, checked (as_gram)
        return as_matrix(self.X, min_samples=2)

    @property
    def n(self) -> int:
        return self.inputs().shape[0]

    @property
    def Omega(self) -> np.ndarray:
        """The Gram ``Ω_ij = K(x_i, x_j)`` (computed once)."""
        if self._Omega is None:
            self._Omega = (self.kernel or RBF())(self.inputs())
        return self._Omega

    @property
    def classification(self) -> bool:
        """Whether :attr:`task` is ``"classification"``."""
        return self.task == "classification"

    # --- the task's hooks (class docstring) ----------------------------------------------------
    def targets(self) -> np.ndarray:
        """The validated targets: ``y`` for regression, the ±1 labels for classification."""
        if not self.classification:
            return task_targets(self.y, self.n, self.task)[0]
        if getattr(self, "_ypm", None) is None:
            ypm, classes = task_targets(self.y, self.n, self.task)
            self._ypm, self.classes = ypm, cast(np.ndarray, classes)
        return self._ypm

    def border(self) -> np.ndarray:
        """The border of the bordered system: ``1`` (regression) or ``y`` (classification)."""
        return self.targets() if self.classification else np.ones(self.n)

    def rhs(self) -> np.ndarray:
        """The right-hand side of the bordered system: ``y`` (regression) or ``1`` (classification)."""
        return np.ones(self.n) if self.classification else self.targets()

    def omega(self) -> np.ndarray:
        """The Gram block: ``Ω`` (regression) or ``Ω_y = diag(y) Ω diag(y)`` (classification)."""
        if not self.classification:
            return self.Omega
        if getattr(self, "_Omega_y", None) is None:
            y = self.targets()
            self._Omega_y = self.Omega * np.outer(y, y)
        return self._Omega_y

    def _factor_rows(self) -> np.ndarray:
        F = self.gram_factor()
        return self.targets()[:, None] * F if self.classification else F

    def gram_factor(self) -> np.ndarray:
        """``L`` with ``Ω ≈ L L'``: the kernel's factor of ``X`` (exact for the linear kernel),
        or the eigen-factor of a precomputed Gram."""
        if self._factor is None:
            if not self._precomputed:
                self._factor = (self.kernel or RBF()).factor(self.inputs())
            else:
                self._factor = psd_factor(self.Omega)
        return self._factor


class LSSVM(HeldOutResiduals, KernelFormulation):
    """LS-SVM regression, AReg paper eq. (1)-(2).

    Parameters
    ----------
    X : array-like of shape (N, d) or None
        Training inputs (None with a precomputed ``Omega``).
    y : array-like of shape (N,)
        Targets.
    kernel : Kernel or None, default=None
        A :class:`~lssvm_cvx.kernels.Kernel` (default ``RBF(1.0)``).
    gamma : float or array-like of shape (N,), default=1.0
        Regularization constant γ > 0 of eq. (1) (*not* scikit-learn's RBF width).
    Omega : array-like of shape (N, N) or None, default=None
        Optional precomputed Gram (use :meth:`from_gram`).
    task : {"regression", "classification"} or None, default=None
        The task (:class:`KernelFormulation`); None: the class's (``"classification"`` for
        :class:`LSSVMClassification`, eq. 57).

    Notes
    -----
    See the module docstring for the primal with the named variables ``alpha``, ``b``, ``e``,
    the DPP parameter ``gamma`` and the closed form.
    """

    name: ClassVar[str] = "lssvm"
    reference = Reference("areg-fusion-pelckmans-2006", AREG_PAPER,
                          {"primal": "(1)", "dual system": "(2)"})
    has_closed_form = True
    compare = ("alpha", "b", "e")
    #: The first-order solvers stagnate on this form below their profiles' eps (1e-8 / 1e-9):
    #: they stop "optimal_inaccurate" after 20000 iterations (seconds at N = 200-500).  OSQP at
    #: eps 1e-6 then polishes, which for an equality-constrained QP solves the KKT system
    #: exactly (α to 1e-10 relative at N ≤ 1000); SCS (no polishing) reaches 1e-7 at eps 1e-7.
    solver_options = {"OSQP": {"eps_abs": 1e-6, "eps_rel": 1e-6},
                      "SCS": {"eps_abs": 1e-7, "eps_rel": 1e-7}}

    def __init__(self, X: Any, y: Any, *, kernel: Kernel | None = None, gamma: Any = 1.0,
                 Omega: Any | None = None, task: str | None = None):
        super().__init__(X, y, kernel=kernel, Omega=Omega, task=task)
        self.gamma = gamma

    def _gamma(self) -> float | np.ndarray:
        return check_gamma(self.gamma)

    def validate(self) -> None:
        self.targets()
        self._gamma()

    def parameter_values(self) -> dict[str, Any]:
        return {"gamma": self._gamma()}

    def _build(self) -> BuiltProblem:
        n, F = self.n, self._factor_rows()
        g = self._gamma()
        gamma = cp.Parameter(np.shape(g), nonneg=True, name="gamma")
        w = cp.Variable(F.shape[1], name="w")
        b = cp.Variable(name="b")
        e = cp.Variable(n, name="e")
        alpha = cp.Variable(n, name="alpha")
        a = self.border()
        if np.ndim(g) == 0:
            fit_term = cp.sum_squares(e) * gamma / 2
        else:
            fit_term = cp.sum(cp.multiply(gamma, cp.square(e))) / 2
        objective = cp.Minimize(0.5 * cp.sum_squares(w) + fit_term)
        constraints = {
            "fit": F @ w + a * b + e == self.rhs(),
            "kkt": cp.multiply(gamma, e) == alpha,
        }
        return BuiltProblem(objective, constraints, vars={"alpha": alpha, "b": b, "e": e, "w": w},
                            params={"gamma": gamma})

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        """Adds ``w = F'α`` when the solution (the closed form) has only ``α, b, e``."""
        values = super().values_from_solution(solution)
        if "w" not in values and "alpha" in values:
            values["w"] = self._factor_rows().T @ np.asarray(values["alpha"])
        return values

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        alpha, b = np.asarray(values["alpha"]), float(np.asarray(values["b"]))
        Oa = self.omega() @ alpha
        r = self.rhs() - Oa - self.border() * b
        g = self._gamma()
        return float(0.5 * alpha @ Oa + 0.5 * np.sum(g * r * r))

    def system(self) -> QuadraticSystem:
        """The factorised bordered system ``[[0, a'], [a, Ω + diag(1/γ)]]``: the composition
        core's system for the squared loss with weights ``γ_i`` and the RKHS norm alone
        (:func:`lssvm_cvx.linalg.engine.decompose` with the RKHS norm at weight 1 and loss
        weights ``γ_i``: its bordered representation, :class:`~lssvm_cvx.linalg.quadratic.
        RKHSSystem`, border ``a``), with its ``loo`` and ``kfold``."""
        return decompose(self.omega(), self._gamma(), {"rkhs": (RKHS, 1.0)}, border=self.border(),
                         name="Omega + I/gamma").system()

    def closed_form(self) -> Solution:
        sysm, t = self.system(), self.rhs()
        alpha, b = sysm.solve(t)
        e = alpha / np.asarray(self._gamma())
        return Solution(values={"alpha": alpha, "b": b, "e": e},
                        duals={"fit": -alpha, "kkt": np.zeros_like(alpha)},
                        extras={"system": sysm.diagnostics(t)})

    def _heldout_system(self) -> tuple[QuadraticSystem, np.ndarray, np.ndarray]:
        # the classifier's system is the regression's on the ±1 targets with α̃ = y∘α and the
        # inverse's blocks scaled by y on both sides, so its held-out α_V / C_VV are y_V times
        # the regression's residuals (module docstring); the border a is 1 or y
        self.validate()
        return self.system(), self.rhs(), self.border()

    @task_method("classification")
    def decision_function(self, solution: Solution, X_new: Any) -> np.ndarray:
        """The classifier's ``f(x) = Σ_i α_i y_i K(x_i, x) + b`` at new points (eq. 57; the label
        is ``sign f``).  A regression LS-SVM has none (:class:`NotSupportedError`)."""
        K = (self.kernel or RBF())(as_matrix(X_new), self.inputs())
        return K @ (solution["alpha"] * self.targets()) + solution.scalar("b")

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, gamma: float = 10.0,
                        sigma2: float = 1.0, **kwargs: Any) -> LSSVM:
        """``n`` points of ``lssvm_regression`` (``lssvm_classification`` for the classifier)."""
        from lssvm_cvx import problems

        ds = problems.get_problem(f"lssvm_{cls.default_task}", n=n, seed=seed, **kwargs)
        return cls(ds.X, ds.y, kernel=RBF(sigma2), gamma=gamma)


class WeightedLSSVM(LSSVM):
    """Weighted LS-SVM regression, AReg paper eq. (74)-(75): one ``γ_i > 0`` per point.

    ``gamma`` is a vector of ``N`` weights (a :class:`cvxpy.Parameter` of that shape in the
    builder); the dual system has ``I_Γ = diag(1/γ_i)`` in place of ``I/γ``.
    """

    name: ClassVar[str] = "weighted_lssvm"
    reference = Reference("areg-fusion-pelckmans-2006", AREG_PAPER,
                          {"primal": "(74)", "dual system": "(75)"})

    def _gamma(self) -> np.ndarray:
        g = check_gamma(self.gamma, self.n)
        return np.full(self.n, g) if np.ndim(g) == 0 else np.asarray(g)

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, sigma2: float = 1.0,
                        **kwargs: Any) -> WeightedLSSVM:
        base = LSSVM.random_instance(n, seed=seed, sigma2=sigma2, **kwargs)
        gammas = np.random.default_rng(seed + 1).uniform(1.0, 100.0, size=base.n)
        return cls(base.X, base.y, kernel=base.kernel, gamma=gammas)


LSSVMClassification = classifier_preset(
    LSSVM, "LSSVMClassification", name="lssvm_classifier",
    reference=Reference("areg-fusion-pelckmans-2006", AREG_PAPER,
                        {"primal": "A.1", "dual system": "(57)"}),
    doc="""LS-SVM classifier, AReg paper Appendix A.1 eq. (57).

    Labels may be any two values; they are mapped to ``{-1, +1}`` (sorted order, the first
    class is ``-1``) and the original labels are kept in :attr:`classes`.  The builder is the
    regression one with ``Ω_y = diag(y)Ωdiag(y)``, border ``y`` and right-hand side ``1``::

        min ½ α'Ω_yα + γ/2 Σ e_i²  s.t.  Ω_y α + y b + e = 1,  γ e = α.

    The decision function is ``f(x) = Σ_i α_i y_i K(x_i, x) + b`` and the label ``sign f``.
    """)
