"""Componentwise LS-SVMs (Pelckmans, Goethals, De Brabanter, Suykens & De Moor), eq. (3)-(19):
the additive model ``f(x) = Σ_d f^d(x^d) + b`` fitted by one linear system, its classifier, the
additive-regularization (AReg) substrate, and the component bases that the sparse formulations
(:mod:`.componentwise_sparse`, :mod:`.componentwise_gnc`) are written in.

Notation.  A componentwise kernel (:class:`lssvm_cvx.kernels.Componentwise`) has ``P``
components; component ``d`` applies a base kernel ``K^d`` to a column (group) ``x^d``.  Its
training Gram is ``Ω^d`` (``Ω^d_kl = K^d(x_k^d, x_l^d)``) and ``Ω = Σ_d Ω^d`` (eq. 7, 12).

* :class:`ComponentwiseLSSVM` — primal (4) with ``w_d = Σ_k α_k φ_d(x_k^d)`` (eq. 6c), so that
  ``Σ_d w_d'w_d = Σ_d α'Ω^dα``::

      min_{α, b, e}  ½ Σ_d α'Ω^dα + γ/2 Σ_k e_k²
      s.t.           Σ_d Ω^d α + b 1 + e = y        ("fit", eq. 4 / 6a)
                     γ e = α                        ("kkt", eq. 6b)

  whose dual system (7) is the ordinary LS-SVM system with the summed kernel (eq. 12); the
  closed form *is* :class:`~lssvm_cvx.formulations.lssvm.LSSVM` on ``Ω = Σ_d Ω^d``.  The
  per-component outputs are ``Ŷ^d = Ω^d α`` on training data and ``K^d(X_*, X) α`` on new data
  (eq. 9), and the smoother matrix of eq. (10)-(11) is :meth:`ComponentwiseLSSVM.smoother`.
* :class:`ComponentwiseLSSVMClassification` — eq. (15)-(17): ``Ω_y = Σ_d diag(y) Ω^d diag(y)``.
* :class:`ComponentwiseAReg` — the AReg substrate, eq. (18)-(19)::

      min ½ Σ_d α'Ω^dα + ½ Σ_k (e_k - c_k)²  s.t.  Σ_d Ω^dα + b 1 + e = y,  e - c = α

  with ``c`` a DPP parameter; dual system (19) ``[0 1'; 1 Ω + I][b; α] = [0; y - c]``.
* :class:`ComponentBasis` — orthonormal bases of the (numerically truncated) component spaces
  ``range(Ω^d)`` and of the coupling that the common ``α`` of eq. (20) imposes; see its
  docstring for why the sparse formulations are written in these coordinates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..checks import as_matrix, as_targets
from ..exceptions import HyperparameterError, InputError
from ..kernels import RBF, Componentwise, Kernel, make_kernel
from ..linalg.engine import RKHS, decompose
from ..linalg.quadratic import QuadraticSystem
from ..solution import Solution
from .base import BuiltProblem, Formulation, Reference
from .lssvm import LSSVM
from .tasks import check_task, classifier_preset, task_method

__all__ = [
    "CW_PAPER",
    "CW_KEY",
    "as_componentwise",
    "column_groups",
    "component_kernels",
    "check_component_inputs",
    "ComponentwiseLSSVM",
    "ComponentwiseLSSVMClassification",
    "ComponentwiseAReg",
]

CW_KEY = "componentwise-lssvm-pelckmans"
CW_PAPER = ("Pelckmans, Goethals, De Brabanter, Suykens & De Moor (2005), Componentwise Least "
            "Squares Support Vector Machines, in Support Vector Machines: Theory and "
            "Applications (L. Wang, ed.), Springer")


# --------------------------------------------------------------------------- helpers
def as_componentwise(kernel: Any = None, *, sigma2: float = 1.0, degree: int = 3,
                     t: float = 1.0) -> Componentwise:
    """The componentwise kernel for ``kernel``.

    ``None`` → ``Componentwise(RBF(sigma2))``; a :class:`Componentwise` is used as is; a
    kernel name or :class:`Kernel` ``k`` → ``Componentwise(k)`` (one component per input
    column); a list of names/kernels → one component per column *and* kernel (e.g.
    ``["rbf", "linear"]`` gives the chapter's "STP with RBF and lin" candidates).
    """
    if isinstance(kernel, Componentwise):
        return kernel
    if kernel is None:
        return Componentwise(RBF(sigma2))
    if isinstance(kernel, (list, tuple)):
        if len(kernel) == 0:
            raise HyperparameterError("the list of componentwise base kernels is empty")
        return Componentwise([make_kernel(k, sigma2=sigma2, degree=degree, t=t) for k in kernel])
    k = make_kernel(kernel, sigma2=sigma2, degree=degree, t=t)
    if type(k).__name__ in ("Precomputed", "CallableKernel"):
        raise HyperparameterError(
            "a componentwise model needs a kernel per input column; 'precomputed' and callable "
            "kernels are not supported")
    return Componentwise(k)


def component_kernels(cw: Componentwise, n_features: int) -> list[tuple[Kernel, tuple[int, ...]]]:
    """``(base kernel, columns)`` of every component, in the order of
    :meth:`Componentwise.components` and :meth:`Componentwise.labels`.

    Lets callers evaluate one component Gram at a time (the full list of Grams of a large
    problem does not fit in memory: spambase has 57 components of 3065² entries).
    """
    cw.validate()
    labels = cw.labels(n_features)
    bases = cw.base_kernels()  # the kernel's list (RBF() for None), as labels() uses it
    n_groups = len(labels) // len(bases)
    return [(bases[i // n_groups], labels[i][0]) for i in range(len(labels))]


def column_groups(components: Sequence[tuple[Any, tuple[int, ...]]]) -> dict[tuple[int, ...], list[int]]:
    """Indices of the components on each input column (group), from ``(base kernel, columns)``
    pairs (:func:`component_kernels`): a list longer than one holds the candidate kernels of
    one input (e.g. ``kernel=["rbf", "linear"]``)."""
    by: dict[tuple[int, ...], list[int]] = {}
    for d, (_, cols) in enumerate(components):
        by.setdefault(tuple(cols), []).append(d)
    return by


def component_columns_gram(kd: Kernel, cols: tuple[int, ...], X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    c = list(cols)
    return kd(X[:, c], None if Z is None else Z[:, c])


def check_component_inputs(X: Any, cw: Componentwise, *, min_components: int = 1,
                           name: str = "X") -> np.ndarray:
    """Validated inputs for a componentwise model (raises :class:`InputError`).

    Rejects NaN/inf, fewer than 2 samples, component columns out of range, a constant column
    used by a component (its component is a constant function, indistinguishable from the
    bias ``b`` of eq. 1), and fewer than ``min_components`` candidate components.
    """
    X = as_matrix(X, name=name, min_samples=2)
    comps = component_kernels(cw, X.shape[1])
    if len(comps) < min_components:
        raise InputError(
            f"component selection needs at least {min_components} candidate components; got "
            f"{len(comps)} from {X.shape[1]} feature(s): with one column there is nothing to select")
    used = sorted({j for _, cols in comps for j in cols})
    ptp = np.ptp(X[:, used], axis=0)
    const = [used[i] for i in np.flatnonzero(ptp == 0)]
    if const:
        raise InputError(
            f"column(s) {const} of {name} are constant; a componentwise model cannot tell a "
            "constant component from the bias b (eq. 1): drop the column(s)")
    return X


class Components:
    """Data handling shared by the formulations of this chapter: inputs, the componentwise
    kernel, and the per-component Grams (computed on demand, one at a time)."""

    #: minimum number of candidate components (2 for the selection formulations)
    min_components: ClassVar[int] = 1
    _factors: list[np.ndarray] | None  # lazily set by :meth:`component_factors`

    def _init_components(self, X: Any, y: Any, kernel: Any) -> None:
        self.X = X
        self.y = y
        self.cw = as_componentwise(kernel)
        self._Xc: np.ndarray | None = None
        self._grams: list[np.ndarray] | None = None
        self._Omega: np.ndarray | None = None
        self._built: BuiltProblem | None = None

    def inputs(self) -> np.ndarray:
        """The validated inputs ``X`` (cached)."""
        if self._Xc is None:
            self._Xc = check_component_inputs(self.X, self.cw, min_components=self.min_components)
        return self._Xc

    @property
    def n(self) -> int:
        return self.inputs().shape[0]

    @property
    def n_components(self) -> int:
        return len(self.components)

    @property
    def components(self) -> list[tuple[Kernel, tuple[int, ...]]]:
        """``(kernel, columns)`` per component (see :func:`component_kernels`)."""
        return component_kernels(self.cw, self.inputs().shape[1])

    def labels(self) -> list[tuple[tuple[int, ...], str]]:
        """``(columns, kernel name)`` per component (:meth:`Componentwise.labels`)."""
        return self.cw.labels(self.inputs().shape[1])

    def component_gram(self, d: int, Z: Any | None = None) -> np.ndarray:
        """``Ω^d`` (``Z is None``) or ``K^d(Z, X)`` (shape ``(len(Z), N)``) for component ``d``."""
        comps = self.components
        if not 0 <= int(d) < len(comps):
            raise InputError(f"component index {d} out of range [0, {len(comps) - 1}]")
        kd, cols = comps[int(d)]
        X = self.inputs()
        if Z is None:
            if self._grams is not None:
                return self._grams[int(d)]
            return component_columns_gram(kd, cols, X)
        Z = as_matrix(Z, name="X_new")
        if Z.shape[1] != X.shape[1]:
            raise InputError(f"X_new has {Z.shape[1]} features, the training inputs {X.shape[1]}")
        return component_columns_gram(kd, cols, Z, X)

    def component_grams(self) -> list[np.ndarray]:
        """All ``Ω^d`` (cached; ``P N²`` floats — use :meth:`component_gram` for large N)."""
        if self._grams is None:
            self._grams = [self.component_gram(d) for d in range(self.n_components)]
        return self._grams

    @property
    def Omega(self) -> np.ndarray:
        """``Ω = Σ_d Ω^d`` (eq. 7), summed one component at a time."""
        if self._Omega is None:
            out = None
            for d in range(self.n_components):
                G = self.component_gram(d)
                out = G.copy() if out is None else out.__iadd__(G)
            if out is None:  # (the inputs are checked to have at least one component)
                raise InputError("the componentwise kernel has no components")
            self._Omega = out
        return self._Omega

    def component_factors(self) -> list[np.ndarray]:
        """``L_d`` with ``Ω^d ≈ L_d L_d'`` (the base kernel's factor of the component columns;
        exact for linear components).  Builders write ``α'Ω^dα`` as ``||L_d'α||²`` (DPP)."""
        factors = getattr(self, "_factors", None)
        if factors is None:
            X = self.inputs()
            factors = self._factors = [kd.factor(X[:, list(cols)]) for kd, cols in self.components]
        return factors


# ----------------------------------------------------------------- componentwise LS-SVM
class _ComponentwiseGamma(Components):
    """Constructor of the componentwise LS-SVM: the componentwise kernel, the regularization
    constant γ and the task (the LS-SVM machinery does the rest)."""

    default_task: ClassVar[str]  # (declared: the LS-SVM's, or a classifier preset's)

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, gamma: Any = 1.0,
                 task: str | None = None):
        self._init_components(X, y, kernel)
        self.kernel: Kernel | None = self.cw
        self.gamma = gamma
        self.task = check_task(self.default_task if task is None else task)
        self._precomputed = False
        self._factor: np.ndarray | None = None


class ComponentwiseLSSVM(_ComponentwiseGamma, LSSVM):
    """Componentwise LS-SVM regression, eq. (3)-(11).

    Parameters
    ----------
    X, y :
        Training inputs ``(N, D)`` and targets ``(N,)``.
    kernel :
        The componentwise kernel (anything :func:`as_componentwise` accepts; default
        ``Componentwise(RBF(1))``: one RBF component per input column).
    gamma :
        Regularization constant γ > 0 of eq. (4).
    task :
        ``"regression"`` or ``"classification"`` (eq. 14-17: ``Ω_y^d = diag(y) Ω^d diag(y)``,
        border ``y``, right-hand side ``1``); default the class's.

    Notes
    -----
    The builder is eq. (4) written per component (``½ Σ_d ||L_d'α||²`` with ``Ω^d = L_d L_d'``)
    with the fit constraint ``Σ_d Ω^dα + b + e = y``; the closed form is the LS-SVM dual system
    (7) with ``Ω = Σ_d Ω^d``, i.e. the ordinary LS-SVM with the summed kernel of eq. (12)
    (:class:`~lssvm_cvx.formulations.lssvm.LSSVM`, whose ``closed_form`` is reused).
    """

    name: ClassVar[str] = "componentwise_lssvm"
    reference = Reference(CW_KEY, CW_PAPER, {"primal": "(4)", "dual system": "(7)",
                                             "prediction": "(8)", "components": "(9)",
                                             "smoother": "(10)-(11)"})
    has_closed_form = True
    compare = ("alpha", "b", "e")

    def _build(self) -> BuiltProblem:
        n = self.n
        yy = self.targets() if self.classification else None     # Ω_y^d = diag(y) Ω^d diag(y)
        gamma = cp.Parameter(nonneg=True, name="gamma")
        alpha, b, e = cp.Variable(n, name="alpha"), cp.Variable(name="b"), cp.Variable(n, name="e")
        Ls = [L if yy is None else yy[:, None] * L for L in self.component_factors()]
        grams = [self.component_gram(d) for d in range(len(Ls))]
        grams = grams if yy is None else [G * np.outer(yy, yy) for G in grams]
        reg = 0.5 * sum(cp.sum_squares(L.T @ alpha) for L in Ls)          # ½ Σ_d w_d'w_d
        fit = sum(G @ alpha for G in grams)                               # Σ_d Ω^d α
        objective = cp.Minimize(reg + gamma / 2 * cp.sum_squares(e))
        bias = b if yy is None else yy * b
        constraints = {"fit": fit + bias + e == self.rhs(), "kkt": gamma * e == alpha}
        return BuiltProblem(objective, constraints, vars={"alpha": alpha, "b": b, "e": e},
                            params={"gamma": gamma})

    # closed_form, objective, system: inherited from LSSVM with Ω = Σ_d Ω^d

    def component_outputs(self, alpha: np.ndarray, X_new: Any | None = None) -> np.ndarray:
        """Per-component outputs of eq. (9): column ``d`` is ``Ω^d α`` (training) or
        ``K^d(X_new, X) α`` (new points); shape ``(n, P)``.  Row sums plus ``b`` are eq. (8).
        The classifier's are the latent ``Σ_k α_k y_k K^d(x_k, x)`` (the terms of eq. 17)."""
        alpha = np.asarray(alpha, dtype=np.float64)
        if self.classification:
            alpha = alpha * self.targets()
        return np.column_stack([self.component_gram(d, X_new) @ alpha
                                for d in range(self.n_components)])

    @task_method("regression")
    def predict(self, solution: Solution, X_new: Any) -> np.ndarray:
        """Eq. (8): ``Σ_k α_k Σ_d K^d(x_k^d, x^d) + b`` (regression; the classifier's output is
        :meth:`decision_function`)."""
        return self.component_outputs(solution["alpha"], X_new).sum(axis=1) + solution.scalar("b")

    @task_method("classification")
    def decision_function(self, solution: Solution, X_new: Any) -> np.ndarray:
        """The classifier's eq. (17) without the sign: ``Σ_k α_k y_k Σ_d K^d(x_k, x) + b``."""
        return self.component_outputs(solution["alpha"], X_new).sum(axis=1) + solution.scalar("b")

    @task_method("regression")
    def smoother(self, *, bias: bool = True, components: bool = False) -> np.ndarray:
        """The linear smoother of eq. (10): fitted values ``Ŷ = S Y``.

        ``bias=False`` is eq. (11) as printed, ``S_γ = Ω (Ω + I/γ)^{-1}`` (the model without
        ``b``).  ``bias=True`` (default) includes the bias row of eq. (7):
        ``S = Ω C + 1 u'/s`` with ``C`` the α-block of the bordered inverse, ``u = H^{-1}1``,
        ``s = 1'u`` (the engine's bordered system, :func:`~lssvm_cvx.linalg.engine.decompose`).  ``components=True`` returns
        the per-component smoothers ``S^d = Ω^d C`` (shape ``(P, N, N)``) with
        ``Ŷ^d = S^d Y`` (the bias part ``1u'/s`` is not split over components).  Regression only.
        """
        C, g = decompose(self.Omega, self._gamma(), {"rkhs": (RKHS, 1.0)}, bias=bias,
                         name="Omega + I/gamma").system().inverse()
        if components:
            return np.stack([G @ C for G in self.component_grams()])
        return self.Omega @ C + np.outer(np.ones(self.n), g)

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, gamma: float = 10.0,
                        sigma2: float = 1.0, **kwargs: Any) -> "ComponentwiseLSSVM":
        from lssvm_cvx import problems

        ds = problems.get_problem("additive10", n_train=n, n_test=0, seed=seed, **kwargs)
        y = ds.y if cls.default_task == "regression" else np.where(ds.y > np.median(ds.y), 1.0, -1.0)
        return cls(ds.X, y, kernel=Componentwise(RBF(sigma2)), gamma=gamma)


ComponentwiseLSSVMClassification = classifier_preset(
    ComponentwiseLSSVM, "ComponentwiseLSSVMClassification", name="componentwise_lssvm_classifier",
    reference=Reference(CW_KEY, CW_PAPER, {"primal": "(15)", "dual system": "(16)",
                                           "prediction": "(17)"}),
    doc="""Componentwise LS-SVM classifier, eq. (14)-(17).

    Labels may be any two values (mapped to ±1, sorted order).  Builder::

        min ½ Σ_d α'Ω_y^dα + γ/2 Σ e²  s.t.  Σ_d Ω_y^d α + y b + e = 1,  γ e = α

    with ``Ω_y^d = diag(y) Ω^d diag(y)``; the closed form is the dual system (16).
    The decision function is eq. (17) without the sign: ``Σ_k α_k y_k Σ_d K^d(x_k, x) + b``.
    """)


# ----------------------------------------------------------------- AReg substrate
class ComponentwiseAReg(Components, Formulation):
    """The componentwise LS-SVM substrate of additive regularization, eq. (18)-(19).

    Parameters
    ----------
    X, y :
        Training data.
    kernel :
        Componentwise kernel (see :func:`as_componentwise`).
    c :
        The additive regularization vector ``c ∈ R^N`` (a DPP parameter of the builder).

    Notes
    -----
    Builder (eq. 18 with ``w_d = Σ_k α_k φ_d(x_k)`` substituted and the optimality condition
    ``e = α + c`` of eq. 19 imposed, which makes α unique as for the LS-SVM)::

        min ½ Σ_d ||L_d'α||² + ½ ||e - c||²  s.t.  Σ_d Ω^dα + b 1 + e = y,  e - c = α.

    Closed form: ``[0 1'; 1 Ω + I][b; α] = [0; y - c]`` (eq. 19), one Cholesky factorization
    of ``Ω + I`` and the Schur complement for ``b``; ``e = α + c``.  The LS-SVM of eq. (7) is
    recovered with ``c = (1/γ - 1) α`` (§3.1: "γ⁻¹α = α + c").
    """

    name: ClassVar[str] = "componentwise_areg"
    reference = Reference(CW_KEY, CW_PAPER, {"primal": "(18)", "dual system": "(19)"})
    has_closed_form = True
    compare = ("alpha", "b", "e")

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, c: Any = None):
        self._init_components(X, y, kernel)
        self.c = c

    def targets(self) -> np.ndarray:
        """The validated targets ``y``."""
        return as_targets(self.y, self.n)

    def _c(self) -> np.ndarray:
        if self.c is None:
            return np.zeros(self.n)
        try:
            c = np.asarray(self.c, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise InputError(f"c must be a vector of numbers: {exc}") from None
        if c.shape != (self.n,) or not np.all(np.isfinite(c)):
            raise InputError(f"c must be a finite vector of {self.n} entries, got shape {c.shape}")
        return c

    def validate(self) -> None:
        self.targets()
        self._c()

    def parameter_values(self) -> dict[str, Any]:
        return {"c": self._c()}

    def _build(self) -> BuiltProblem:
        n, y = self.n, self.targets()
        c = cp.Parameter(n, name="c")
        alpha, b, e = cp.Variable(n, name="alpha"), cp.Variable(name="b"), cp.Variable(n, name="e")
        Ls = self.component_factors()
        objective = cp.Minimize(0.5 * sum(cp.sum_squares(L.T @ alpha) for L in Ls)
                                + 0.5 * cp.sum_squares(e - c))
        fit = sum(self.component_gram(d) @ alpha for d in range(len(Ls)))
        constraints = {"fit": fit + b + e == y, "kkt": e - c == alpha}
        return BuiltProblem(objective, constraints, vars={"alpha": alpha, "b": b, "e": e},
                            params={"c": c})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``½ α'Ωα + ½ ||e - c||²`` with ``e = y - Ωα - b`` (eq. 18)."""
        alpha, b = np.asarray(values["alpha"]), float(np.asarray(values["b"]))
        Oa = self.Omega @ alpha
        e = self.targets() - Oa - b
        r = e - self._c()
        return float(0.5 * alpha @ Oa + 0.5 * r @ r)

    def system(self) -> QuadraticSystem:
        """The factorised system ``[[0, 1'], [1, Ω + I]]`` of eq. (19): the package's engine
        (:func:`lssvm_cvx.linalg.engine.decompose`) for the RKHS norm at weight 1 and unit
        loss weights (its bordered representation)."""
        return decompose(self.Omega, 1.0, {"rkhs": (RKHS, 1.0)}, name="Omega + I").system()

    def closed_form(self) -> Solution:
        c = self._c()
        t = self.targets() - c
        sysm = self.system()
        alpha, b = sysm.solve(t)
        return Solution(values={"alpha": alpha, "b": b, "e": alpha + c},
                        duals={"fit": -alpha, "kkt": np.zeros_like(alpha)},
                        extras={"system": sysm.diagnostics(t)})

    def component_outputs(self, alpha: np.ndarray, X_new: Any | None = None) -> np.ndarray:
        """``Ω^d α`` / ``K^d(X_new, X) α`` per component (eq. 9), shape ``(n, P)``."""
        alpha = np.asarray(alpha, dtype=np.float64)
        return np.column_stack([self.component_gram(d, X_new) @ alpha
                                for d in range(self.n_components)])

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, sigma2: float = 1.0,
                        **kwargs: Any) -> "ComponentwiseAReg":
        from lssvm_cvx import problems

        ds = problems.get_problem("additive10", n_train=n, n_test=0, seed=seed, **kwargs)
        c = np.random.default_rng(seed + 1).normal(0.0, 0.5, n)
        return cls(ds.X, ds.y, kernel=Componentwise(RBF(sigma2)), c=c)
