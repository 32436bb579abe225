"""Auto LS-SVM objective (Sorber 2017, eq. 8-9 and §1.1 item 1b): data fit, gradient norm and
an L2 (margin) term, with an unregularised bias.

Regression (eq. 9, with the bias the LS-SVM has; ``f(x) = K(x)α + b``, eq. 8)::

    min_{α, b, e}  ||e||² + μ α'Gα + ν α'Rα
    s.t.           Kα + b 1 + e = y                                   ("fit")

with ``R = I`` (``margin="alpha"``, the default here: eq. 9's ``||α||²`` as printed) or
``R = K + 1e-6 I`` (``margin="rkhs"``: ``α'Kα = ||w||²``, the LS-SVM's margin term; the jitter
keeps ``R`` numerically definite and is the one the tuner uses).

``K`` is the RBF model kernel and ``G`` the gradient-norm Gram with ``∫||∇f||² = α'Gα``, both
from :mod:`lssvm_cvx.kernels.gradient_norm` (``form="exact"``: eq. 41 with ``exp(-γ||x-z||²)``;
``form="normalized"`` (default): eq. 44's kernel ``exp(-(γ/p)||x-z||²)`` and the PSD normalised
Gram — the printed eq. 43/44 Grams are indefinite from three input dimensions on, see that
module).  The builder writes ``α'Gα`` as ``||L_G'α||²`` with ``G = L_G L_G'`` so the problem is
DPP in the parameters ``mu`` and ``nu``.

Classification (§1.1 item 1b, "a mix between fit on the training data, model complexity
(next-gen term) and maximizing the margin (L2 norm)"): labels mapped to ``y ∈ {-1, +1}``, the
LS-SVM classifier's fit on the margin targets, the gradient norm of the decision function, and
the margin: ``margin="alpha"`` (default, as for regression) uses eq. 9's ``||α||²``, the margin
of the linear classifier in the empirical kernel map ``x ↦ K(x)``; ``margin="rkhs"`` uses
``α'Kα = ||w||²`` with ``w`` the feature-space normal (margin ``2/||w||``), which the estimators
use by default.  With ``"rkhs"``, ``α`` itself is ill-determined for large N (Hessian
eigenvalues down to ``ν·1e-6``), so solvers agree on the objective, ``b`` and ``e`` but only to
about 1e-3 on ``α`` beyond N ≈ 80 on smooth 1-D data (``benchmarks/results/auto_gradnorm.md``)::

    min  ||e||² + μ α'Gα + ν α'Rα   s.t.  y ∘ (Kα + b 1) + e = 1     ("fit")

Closed form (both): half of eq. (9) is the composition core's problem, the squared loss with
unit weights and the quadratic term ``½α'(μG + νR)α`` (``tests/test_core_equivalence.py``), so
:meth:`AutoLSSVM.system` is the core's augmented system (:mod:`lssvm_cvx.linalg.quadratic`, LU of
order ``2N + 1``) with targets ``t = y`` or the ±1 labels.  Eliminating ``b = mean(t - Kα)``
instead leaves the SPD normal equations ``(K_c'K_c + μG + νR) α = K_c' t``
(``K_c = (I - 11'/N) K``), which this module solved until 2026-11-27: they square the condition
number of ``K``.  Since ``(1 - y_i f_i)² = (y_i - f_i)²`` for ``y_i = ±1``, the classifier
has the regression solution on the ±1 targets, with ``e_cls = y ∘ e_reg``.  Duals (cvxpy's
sign convention, Lagrangian ``f + λ'(g)``): stationarity in ``e`` gives ``λ_fit = -2e``.

``μ``, ``ν`` here are the note's raw weights of eq. (9).  The normalised weights of §1.3 that the
estimators tune are mapped to them by :meth:`AutoLSSVM.from_normalized`
(:meth:`lssvm_cvx.linalg.penalized.PenalizedLS.paper_weights`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar, cast

import cvxpy as cp
import numpy as np

from ..checks import as_matrix, check_option, check_positive
from ..exceptions import NotPSDError
from ..linalg.engine import decompose
from ..linalg.penalties import normalizers
from ..linalg.quadratic import QuadraticSystem
from ..solution import Solution
from ..terms.gradient_basis import MARGIN_JITTER, MARGINS
from ..terms.gradient_norm import FORMS, affine_dim, gradient_norm_gram, model_kernel, n_informative_columns
from .base import BuiltProblem, Formulation, Reference
from .heldout import HeldOutResiduals
from .tasks import check_task, classifier_preset, task_targets

__all__ = ["AutoLSSVM", "AutoLSSVMClassification", "AUTO_PAPER"]

AUTO_PAPER = "Sorber, L. (2017), Auto LS-SVM, technical note, 25 August 2017"


def _weight(value: Any, name: str, *, positive: bool = False) -> float:
    return check_positive(value, name, allow_zero=not positive)


_AutoT = TypeVar("_AutoT", bound="AutoLSSVM")


class AutoLSSVM(HeldOutResiduals, Formulation):
    """Auto LS-SVM regression, note eq. (8)-(9) with an unregularised bias.

    Parameters
    ----------
    X, y :
        Training inputs ``(N, d)`` and targets ``(N,)``.
    gamma :
        Kernel width γ > 0 (eq. 4; divided by ``p`` for ``form="normalized"``, eq. 44).
    mu :
        Weight μ ≥ 0 of the gradient-norm term ``α'Gα`` (eq. 9).
    nu :
        Weight ν > 0 of the L2 term ``α'Rα`` (eq. 9); > 0 makes the problem strictly convex.
    margin :
        ``"alpha"`` (``R = I``, eq. 9 as printed) or ``"rkhs"`` (``R = K + 1e-6 I``).
    form :
        ``"normalized"`` (default) or ``"exact"``; ``"eq43"``/``"eq44"`` are accepted for the
        closed form but their Gram is indefinite from d = 3 on and the builder then raises
        :class:`~lssvm_cvx.exceptions.NotPSDError`.
    task :
        ``"regression"`` or ``"classification"`` (§1.1 item 1b, the module docstring); default
        the class's (``"classification"`` for :class:`AutoLSSVMClassification`).
    """

    name: ClassVar[str] = "auto_lssvm"
    reference = Reference("auto-lssvm-sorber-2017", AUTO_PAPER,
                          {"model": "(8)", "objective": "(9)", "regularizer": "(41), (44) normalised"})
    has_closed_form = True
    compare = ("alpha", "b", "e")
    #: the task of an instance made without ``task`` (the classifier preset sets it)
    default_task: ClassVar[str] = "regression"
    #: the original labels of a classifier (set when its targets are coded)
    classes: np.ndarray

    def __init__(self, X: Any, y: Any, *, gamma: Any = 1.0, mu: Any = 1.0, nu: Any = 1.0,
                 form: str = "normalized", margin: str = "alpha", task: str | None = None):
        self.X = X
        self.y = y
        self.task = check_task(self.default_task if task is None else task)
        self.gamma = gamma
        self.mu = mu
        self.nu = nu
        self.form = form
        self.margin = margin
        self._cache: dict[str, Any] = {}
        self._built = None

    @classmethod
    def from_normalized(cls: type[_AutoT], X: Any, y: Any, *, gamma: float = 1.0, mu: float = 1.0,
                        nu: float = 0.1, **kwargs: Any) -> _AutoT:
        """Instance whose (μ, ν) are the eq. (9) weights of the normalised (μ, ν) of §1.3
        (:mod:`lssvm_cvx.linalg.penalized`, problem N1): ``μ_9 = μ tr(C)/tr(G)``,
        ``ν_9 = ν tr(C)/N`` with ``C = K_c'K_c/N``."""
        f = cls(X, y, gamma=gamma, **kwargs)
        rho_g, rho_i = normalizers(f.K, f.G, None if f._margin() == "alpha" else f.R)
        n = f.n
        f.mu = _weight(mu, "mu") * n * rho_g
        f.nu = _weight(nu, "nu", positive=True) * n * rho_i
        return f

    # data -------------------------------------------------------------------------------
    def inputs(self) -> np.ndarray:
        """The validated inputs ``X`` (cached)."""
        if "X" not in self._cache:
            self._cache["X"] = as_matrix(self.X, min_samples=2)
        return self._cache["X"]

    @property
    def n(self) -> int:
        return self.inputs().shape[0]

    @property
    def classification(self) -> bool:
        """Whether :attr:`task` is ``"classification"``."""
        return self.task == "classification"

    def targets(self) -> np.ndarray:
        """The validated targets ``y``; the ±1 labels for the classifier."""
        if not self.classification:
            return task_targets(self.y, self.n, self.task)[0]
        if "ypm" not in self._cache:
            ypm, classes = task_targets(self.y, self.n, self.task)
            self._cache["ypm"], self.classes = ypm, cast(np.ndarray, classes)
        return self._cache["ypm"]

    def rhs(self) -> np.ndarray:
        """The targets of the fit term (``y``; the ±1 labels for the classifier)."""
        return self.targets()

    @property
    def K(self) -> np.ndarray:
        """The model kernel matrix ``K(X, X)`` of the chosen form."""
        if "K" not in self._cache:
            X = self.inputs()
            self._cache["K"] = model_kernel(X, gamma=self._gamma(), form=self._form(),
                                            n_features=n_informative_columns(X))
        return self._cache["K"]

    @property
    def G(self) -> np.ndarray:
        """The gradient-norm Gram of the chosen form (symmetrised)."""
        if "G" not in self._cache:
            X = self.inputs()
            G = gradient_norm_gram(X, gamma=self._gamma(), form=self._form(),
                                   n_features=n_informative_columns(X),
                                   dim=affine_dim(X) if self._form() == "normalized" else None)
            self._cache["G"] = 0.5 * (G + G.T)
        return self._cache["G"]

    def _margin(self) -> str:
        return check_option(self.margin, MARGINS, "margin")

    @property
    def R(self) -> np.ndarray:
        """The margin matrix ``I`` (``"alpha"``) or ``K + 1e-6 I`` (``"rkhs"``)."""
        if "R" not in self._cache:
            if self._margin() == "alpha":
                self._cache["R"] = np.eye(self.n)
            else:
                R = self.K.copy()
                R[np.diag_indices_from(R)] += MARGIN_JITTER
                self._cache["R"] = R
        return self._cache["R"]

    def R_factor(self) -> np.ndarray:
        """``L_R`` with ``R = L_R L_R'`` (the identity for ``"alpha"``)."""
        if "LR" not in self._cache:
            if self._margin() == "alpha":
                self._cache["LR"] = np.eye(self.n)
            else:
                s, V = np.linalg.eigh(self.R)
                self._cache["LR"] = V * np.sqrt(np.maximum(s, 0.0))
        return self._cache["LR"]

    def G_factor(self) -> np.ndarray:
        """``L_G`` with ``G = L_G L_G'`` (eigen-factor; round-off negatives clipped), raising
        :class:`NotPSDError` when ``G`` is clearly indefinite (eq. 43/44 with d ≥ 3)."""
        if "LG" not in self._cache:
            s, V = np.linalg.eigh(self.G)
            if s[0] < -1e-8 * max(s[-1], 1e-300) * len(s):
                raise NotPSDError(
                    f"the gradient-norm Gram of form {self.form!r} is indefinite (smallest "
                    f"eigenvalue {s[0]:.3g}); eq. (43)/(44) are not PSD for inputs spanning >= 3 "
                    "dimensions — use form='normalized'")
            keep = s > 1e-13 * s[-1]
            self._cache["LG"] = V[:, keep] * np.sqrt(s[keep])
        return self._cache["LG"]

    def _gamma(self) -> float:
        return _weight(self.gamma, "gamma", positive=True)

    def _form(self) -> str:
        return check_option(self.form, FORMS, "form")

    def validate(self) -> None:
        self.rhs()
        self._gamma()
        self._form()
        self._margin()
        _weight(self.mu, "mu")
        _weight(self.nu, "nu", positive=True)

    def parameter_values(self) -> dict[str, Any]:
        return {"mu": _weight(self.mu, "mu"), "nu": _weight(self.nu, "nu", positive=True)}

    # cvxpy -------------------------------------------------------------------------------
    def _fit_constraint(self, K, alpha, b, e):
        if self.classification:
            return cp.multiply(self.targets(), K @ alpha + b) + e == 1.0
        return K @ alpha + b + e == self.rhs()

    def _build(self) -> BuiltProblem:
        n, K, LG = self.n, self.K, self.G_factor()
        mu = cp.Parameter(nonneg=True, name="mu")
        nu = cp.Parameter(nonneg=True, name="nu")
        alpha = cp.Variable(n, name="alpha")
        b = cp.Variable(name="b")
        e = cp.Variable(n, name="e")
        margin = cp.sum_squares(alpha) if self._margin() == "alpha" else cp.sum_squares(
            self.R_factor().T @ alpha)
        objective = cp.Minimize(cp.sum_squares(e) + mu * cp.sum_squares(LG.T @ alpha) + nu * margin)
        return BuiltProblem(objective, {"fit": self._fit_constraint(K, alpha, b, e)},
                            vars={"alpha": alpha, "b": b, "e": e}, params={"mu": mu, "nu": nu})

    # NumPy twin ----------------------------------------------------------------------------
    def _residual(self, alpha: np.ndarray, b: float) -> np.ndarray:
        if self.classification:
            return 1.0 - self.targets() * (self.K @ alpha + b)
        return self.rhs() - self.K @ alpha - b

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """Eq. (9): ``||y - Kα - b||² + μ α'Gα + ν α'Rα`` (residuals implied by (α, b); the
        classifier's: ``Σ_i (1 - y_i f(x_i))² + μ α'Gα + ν α'Rα``)."""
        alpha, b = np.asarray(values["alpha"], dtype=np.float64), float(np.asarray(values["b"]))
        r = self._residual(alpha, b)
        mu, nu = self.parameter_values().values()
        return float(r @ r + mu * alpha @ self.G @ alpha + nu * alpha @ self.R @ alpha)

    # closed form -------------------------------------------------------------------------
    def system(self) -> QuadraticSystem:
        """The factorised optimality system of eq. (9): half of it is the composition core's
        squared loss (unit weights) with ``P = μG + νR``, ``½||y - Kα - b1||² + ½α'(μG + νR)α``,
        solved by the core's engine (:func:`lssvm_cvx.linalg.engine.decompose` with the named
        weights ``mu`` and ``nu``), whose augmented representation it is
        (:class:`~lssvm_cvx.linalg.quadratic.AugmentedSystem`: LU of order ``2N + 1``, no
        squared condition number; it has ``loo`` and ``kfold`` too).  Until
        2026-11-27 this formulation solved the normal equations ``(K_c'K_c + μG + νR)α = K_c'y``
        by its own Cholesky; ``tests/test_auto_formulation.py`` holds the closed form to an
        independent dense solve of the unreduced normal equations, ``tests/test_golden.py`` to
        the outputs of the former code (1e-10)."""
        mu, nu = self.parameter_values().values()
        return decompose(self.K, np.ones(self.n), {"mu": (self.G, mu), "nu": (self.R, nu)}).system()

    def _heldout_system(self) -> tuple[QuadraticSystem, np.ndarray, float]:
        self.validate()
        return self.system(), self.rhs(), 1.0

    def closed_form(self) -> Solution:
        sysm, t = self.system(), self.rhs()
        alpha, b = sysm.solve(t)
        e = self._residual(alpha, float(b))
        # how accurate the linear solve is: the closed form's certificate carries it
        return Solution(values={"alpha": alpha, "b": b, "e": e}, duals={"fit": -2.0 * e},
                        extras={"system": sysm.diagnostics(t)})

    def decision_function(self, solution: Solution, X_new: Any) -> np.ndarray:
        """``f(x) = K(x)α + b`` at new points (eq. 8)."""
        X = self.inputs()
        Kx = model_kernel(as_matrix(X_new), X, gamma=self._gamma(), form=self._form(),
                          n_features=n_informative_columns(X))
        return Kx @ solution["alpha"] + solution.scalar("b")

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, gamma: float | None = None,
                        mu: float = 1.0, nu: float = 1.0, **kwargs: Any) -> AutoLSSVM:
        """``n`` points of the note's sinc problem (``problems.get_problem("sinc_auto")``; the
        classifier: ``lssvm_classification``) with normalised (μ, ν) mapped to eq. (9) by
        :meth:`from_normalized`; ``gamma`` 3 (the classifier: 4)."""
        from lssvm_cvx import problems

        if cls.default_task == "regression":
            ds = problems.get_problem("sinc_auto", n_train=n, seed=seed)
        else:
            ds = problems.get_problem("lssvm_classification", n=n, seed=seed)
        gamma = {"regression": 3.0, "classification": 4.0}[cls.default_task] \
            if gamma is None else gamma
        return cls.from_normalized(ds.X, ds.y, gamma=gamma, mu=mu, nu=nu, **kwargs)


AutoLSSVMClassification = classifier_preset(
    AutoLSSVM, "AutoLSSVMClassification", name="auto_lssvm_classifier",
    reference=Reference("auto-lssvm-sorber-2017", AUTO_PAPER,
                        {"model": "(8)", "objective": "§1.1 item 1b with (9)",
                         "regularizer": "(41), (44) normalised"}),
    doc="""Auto LS-SVM classifier, note §1.1 item 1b: fit on the ±1 margin targets, gradient norm of
    the decision function, and the margin (L2) term; labels are any two values (sorted, the
    first is -1), the originals in :attr:`classes`.  See the module docstring.""")
