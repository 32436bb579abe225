"""Additive regularization trade-off (AReg): training for a given ``c``, its relation with
Tikhonov and weighted LS-SVMs, the shared data handling and least-squares solvers of the
fused problems, and recovery of the Tikhonov γ closest to an AReg solution.

Pelckmans, Suykens & De Moor (2006), *Additive regularization trade-off: fusion of training
and validation levels in kernel methods*, Machine Learning 62 (``areg-fusion-pelckmans-2006``).

Formulations in this module (registry names in brackets):

* :class:`AReg` [``areg``] — AReg training for a fixed vector ``c`` (eq. 8-11, dual system 9);
  :class:`ARegClassification` [``areg_classifier``] is Appendix A.2 (eq. 59, dual system 60,
  see the slip below).
* Fusion of AReg training with a validation set (Lemma 3.2, eq. 15; Algorithm 3.1, eq. 16-19;
  Appendix A.3, eq. 62) is in :mod:`lssvm_cvx.formulations.areg_fusion` (``areg_fusion``,
  ``areg_classifier_fusion``); its least-squares solvers (:func:`constrained_lstsq`) are here.

Functions: :func:`tikhonov_c` (eq. 70), :func:`weighted_lssvm_gammas` (eq. 76-77),
:func:`recover_tikhonov_gamma` (Appendix B.1, eq. 71-73).

The ensemble of Tikhonov nodes (§4, App. A.4-A.5) is in
:mod:`lssvm_cvx.formulations.areg_ensemble`; fusion with cross-validation (§5, App. A.6) in
:mod:`lssvm_cvx.formulations.areg_cv`.

Notation
--------
Training data ``(x_i, y_i)``, ``i = 1..N``, Gram ``Ω_ij = K(x_i, x_j)``; validation data
``(x^v_j, y^v_j)``, ``j = 1..n``, and ``Ω^v_ji = K(x^v_j, x_i)`` (an ``n × N`` matrix; the
paper writes ``R^{n×n}`` after eq. 3, which is a slip of the dimension).  The residuals are
``e = y - f(x)`` on training points and ``e^v = y^v - f(x^v)`` on validation points.

Regression and classification share one code path through four "hooks": the Gram block
(``Ω`` or ``Ω_y = diag(y) Ω diag(y)``), the border of the bias (``1`` or ``y``) and the
right-hand side (``y`` or ``1``) — exactly as :class:`~lssvm_cvx.formulations.lssvm.LSSVM`
and :class:`~lssvm_cvx.formulations.lssvm.LSSVMClassification` do: each classifier here is its
regression class with ``task="classification"`` (:mod:`lssvm_cvx.formulations.tasks`).

Paper slips handled here (each has a test in ``tests/test_areg_formulations.py``)
---------------------------------------------------------------------------------
1. Algorithm 3.1 prints ``c = (Ωα + b - y) - α``.  The training equations of (15),
   ``(Ω + I)α + 1b + c = y``, give ``c = (y - Ωα - b) - α``: the sign of the residual part is
   flipped in print.  We use the latter (``test_fusion_matches_eq19_and_c_sign``).
2. Eq. (60) prints the right-hand side ``1_N - (c·y)`` for the classifier of eq. (59).  The
   Lagrangian of (59), ``½w'w + ½Σ(e_i - c_i)² - Σα_i(y_i(w'φ(x_i) + b) - 1 + e_i)``, gives
   ``e_i = c_i + α_i`` and hence ``(Ω_y + I)α + y b = 1 - c``; eq. (62) of the same appendix
   also has ``... + c = 1``.  ``1 - c∘y`` is what one gets with the loss ``(e_i - y_i c_i)²``
   (the additive constant placed on the regression residual ``y_i - f(x_i) = y_i e_i``).  We
   implement (59) as printed, hence ``1 - c`` (``test_classifier_rhs_is_1_minus_c``).
3. Eq. (62), first block row, prints ``[0_N' 1_n' 0 y']`` (so ``Σ e^v + y'α = 0``); the bias
   condition of (60) is ``y'α = 0``, so the ``1_n'`` should be ``0_n'`` (compare eq. 32, whose
   first row is ``[0 0 0 1']``).  We use ``y'α = 0``
   (``test_classifier_fusion_bias_row``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
from scipy.optimize import minimize_scalar

from ..checks import as_gram, as_matrix, as_targets, check_gamma, check_integer, check_same_features
from ..exceptions import InputError
from ..kernels import RBF, Kernel
from ..linalg.engine import RKHS, decompose
from ..linalg.lstsq import constrained_lstsq, lsqr_lstsq, min_norm_lstsq
from ..linalg.quadratic import QuadraticSystem
from ..solution import Solution
from .base import BuiltProblem, Reference
from .lssvm import AREG_PAPER, KernelFormulation
from .tasks import classifier_preset, task_targets

__all__ = [
    "AREG_REF",
    "AReg",
    "ARegClassification",
    "tikhonov_c",
    "weighted_lssvm_gammas",
    "recover_tikhonov_gamma",
    "TikhonovRecovery",
    "constrained_lstsq",
    "min_norm_lstsq",
    "lsqr_lstsq",
]

AREG_REF = "areg-fusion-pelckmans-2006"

# ------------------------------------------------------------------------------ data handling
def _vector(value: Any, name: str) -> np.ndarray:
    """``value`` as a 1-D float array, or :class:`InputError` naming ``name``."""
    try:
        return np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a vector of numbers: {exc}") from None


def default_width(base: float, n: int, d: int) -> float:
    """RBF width of the random instances: ``base`` at ``n ≤ 50`` points, shrunk as
    ``(50/n)^{2/d}`` beyond (the typical spacing of ``n`` points in ``d`` dimensions scales as
    ``n^{-1/d}``), so the Gram — and the fused least-squares problems — stay about as well
    conditioned as ``n`` grows and the harness compares α and ``c``, not only the model."""
    return float(base) * min(1.0, 50.0 / max(int(n), 1)) ** (2.0 / max(int(d), 1))


class ARegData(KernelFormulation):
    """Training data of every AReg form; the regression / classification hooks
    (:meth:`omega`: ``Ω`` or ``Ω_y``, :meth:`border`: ``1`` or ``y``, :meth:`rhs`: ``y`` or
    ``1``, :meth:`_factor_rows`: a factor ``F`` with ``F F' = omega()``) are the task's, from
    :class:`~lssvm_cvx.formulations.lssvm.KernelFormulation`.
    """

    @property
    def n(self) -> int:
        """Number of training points (the inputs are validated once, then cached)."""
        if getattr(self, "_n", None) is None:
            self._n = self.inputs().shape[0]
        return self._n

    def _kernel_obj(self) -> Kernel:
        return self.kernel or RBF()

    def system(self, idx: np.ndarray | None = None) -> QuadraticSystem:
        """The factorised system (9): ``[[0, a'], [a, Ω + I]]`` (cached), or its principal
        block on the points ``idx`` (the training part ``T`` of a fold, AReg §5): the
        package's engine (:func:`lssvm_cvx.linalg.engine.decompose`) for the RKHS norm at
        weight 1 and unit loss weights, with the border ``a`` (its bordered representation,
        whose :meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.solve` takes a top
        right-hand side and :meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.inverse`
        gives the inverse's blocks)."""
        if idx is not None:
            return decompose(self.omega()[np.ix_(idx, idx)], 1.0, {"rkhs": (RKHS, 1.0)},
                             border=self.border()[idx], name="Omega_T + I").system()
        if getattr(self, "_sys", None) is None:
            self._sys = decompose(self.omega(), 1.0, {"rkhs": (RKHS, 1.0)}, border=self.border(),
                                  name="Omega + I").system()
        return self._sys


class ValidationData(ARegData):
    """Adds a validation set ``(X_val, y_val)`` (or a precomputed ``Omega_v``, ``n × N``)."""

    # lazily set caches of the classifier (declared only: ``getattr`` sees them unset)
    _yvpm: np.ndarray | None
    _Omega_vy: np.ndarray | None

    def __init__(self, X: Any, y: Any, X_val: Any, y_val: Any, *, kernel: Kernel | None = None,
                 Omega: Any | None = None, Omega_v: Any | None = None, task: str | None = None):
        super().__init__(X, y, kernel=kernel, Omega=Omega, task=task)
        self.X_val = X_val
        self.y_val = y_val
        self._Omega_v = None if Omega_v is None else as_matrix(Omega_v, name="Omega_v")

    @classmethod
    def from_gram(cls, Omega: Any, y: Any, Omega_v: Any = None, y_val: Any = None, **kw: Any):
        """Instance from precomputed ``Omega`` (``N × N``) and ``Omega_v`` (``n × N``)."""
        if Omega_v is None:
            raise InputError("from_gram needs the validation Gram Omega_v (n x N)")
        return cls(None, y, None, y_val, Omega=Omega, Omega_v=Omega_v, **kw)

    @property
    def n_val(self) -> int:
        return self.Omega_v.shape[0]

    @property
    def Omega_v(self) -> np.ndarray:
        """``Ω^v_ji = K(x^v_j, x_i)``, shape ``(n, N)``."""
        if self._Omega_v is None:
            X = self.inputs()
            Xv = as_matrix(self.X_val, name="X_val", min_samples=1)
            check_same_features(Xv, X.shape[1], name="X_val")
            self._Omega_v = self._kernel_obj()(Xv, X)
        elif not getattr(self, "_Omega_v_checked", False):
            O = self._Omega_v
            if O.shape[1] != self.n:        # a finite matrix (as_matrix)
                raise InputError(f"Omega_v must have shape (n_val, {self.n}), got {O.shape}")
            self._Omega_v_checked = True
        return self._Omega_v

    # --- the validation side of the task's hooks (Appendix A, eq. 61 for the classifier) ----
    def _val_targets(self) -> np.ndarray:
        """``y^v``, or its labels coded ±1 with the training classes."""
        if not self.classification:
            return task_targets(self.y_val, self.n_val, self.task, name="y_val")[0]
        yvpm = getattr(self, "_yvpm", None)
        if yvpm is None:
            self.targets()
            yvpm = self._yvpm = task_targets(self.y_val, self.n_val, self.task,
                                             classes=self.classes, name="y_val")[0]
        return yvpm

    def _val_border(self) -> np.ndarray:
        """``1_n`` (regression) or ``y^v`` (classification)."""
        return self._val_targets() if self.classification else np.ones(self.n_val)

    def _val_rhs(self) -> np.ndarray:
        """``y^v`` (regression) or ``1_n`` (classification)."""
        return np.ones(self.n_val) if self.classification else self._val_targets()

    def _omega_v(self) -> np.ndarray:
        """``Ω^v`` (regression) or ``Ω^v_y = diag(y^v) Ω^v diag(y)`` (classification)."""
        if not self.classification:
            return self.Omega_v
        Omega_vy = getattr(self, "_Omega_vy", None)
        if Omega_vy is None:
            Omega_vy = self._Omega_vy = self.Omega_v * np.outer(self._val_targets(), self.targets())
        return Omega_vy

    def validate(self) -> None:
        self.rhs()
        self._val_rhs()


# ------------------------------------------------------------------------------ item 1: training
class AReg(ARegData):
    """AReg LS-SVM regression for a fixed vector ``c`` (paper eq. 8-11).

    Primal (eq. 8) with ``w = Σ_i α_i φ(x_i)`` substituted (so ``w'w = α'Ωα``)::

        min_{α, b, e}  ½ α'Ωα + ½ Σ_i (e_i - c_i)²
        s.t.           Ωα + b 1 + e = y           ("fit": the constraints of eq. 8)
                       e - c = α                  ("kkt": e_i = c_i + α_i, eq. 11)

    As in :class:`~lssvm_cvx.formulations.lssvm.LSSVM`, the optimality condition of eq. (11)
    is imposed as a constraint: it holds at the optimum and makes ``α`` unique.  ``c`` is a
    :class:`cvxpy.Parameter` (DPP).  Eliminating ``e`` gives the dual system (9)::

        [ 0  1'     ] [b]   [  0  ]
        [ 1  Ω + I  ] [α] = [y - c]

    solved by one Cholesky factor of ``Ω + I`` and the Schur complement for the bias (the
    engine :func:`lssvm_cvx.linalg.engine.decompose`: the LS-SVM system with ``γ = 1``).
    ``c = 0`` is the LS-SVM with ``γ = 1`` (Remark 3.1); ``c = (1/γ - 1)α_γ`` reproduces the
    LS-SVM solution ``α_γ`` for any ``γ`` (eq. 70, :func:`tikhonov_c`), and
    ``c_i = (1/γ_i - 1)α_i`` the weighted LS-SVM (eq. 76, :func:`weighted_lssvm_gammas`).

    Parameters
    ----------
    X, y :
        Training inputs ``(N, d)`` and targets ``(N,)``.
    c :
        The additive regularization constants (``N`` values; default zeros).
    kernel :
        A :class:`~lssvm_cvx.kernels.Kernel` (default ``RBF(1.0)``).
    Omega :
        Optional precomputed Gram (use :meth:`from_gram`).
    task :
        ``"regression"`` or ``"classification"`` (Appendix A.2; default the class's).
    """

    name: ClassVar[str] = "areg"
    reference = Reference(AREG_REF, AREG_PAPER, {"primal": "(8)", "dual system": "(9)",
                                                  "optimality": "(11)"})
    has_closed_form = True
    compare = ("alpha", "b", "e")

    def __init__(self, X: Any, y: Any, *, c: Any = None, kernel: Kernel | None = None,
                 Omega: Any | None = None, task: str | None = None):
        super().__init__(X, y, kernel=kernel, Omega=Omega, task=task)
        self.c = c

    def _c(self) -> np.ndarray:
        if self.c is None:
            return np.zeros(self.n)
        c = _vector(self.c, "c")
        if c.shape != (self.n,):
            raise InputError(f"c must have {self.n} entries (one per training point), got {c.shape}")
        if not np.all(np.isfinite(c)):
            raise InputError("c contains NaN or inf")
        return c

    def validate(self) -> None:
        self.rhs()
        self._c()

    def parameter_values(self) -> dict[str, Any]:
        return {"c": self._c()}

    def _build(self) -> BuiltProblem:
        n, F = self.n, self._factor_rows()
        c = cp.Parameter(n, name="c")
        alpha, b, e = cp.Variable(n, name="alpha"), cp.Variable(name="b"), cp.Variable(n, name="e")
        objective = cp.Minimize(0.5 * cp.sum_squares(F.T @ alpha) + 0.5 * cp.sum_squares(e - c))
        constraints = {
            "fit": self.omega() @ alpha + self.border() * b + e == self.rhs(),
            "kkt": e - c == alpha,
        }
        return BuiltProblem(objective, constraints, vars={"alpha": alpha, "b": b, "e": e},
                            params={"c": c})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``½α'Ωα + ½||e - c||²`` with ``e = y - Ωα - b`` implied by the fit equations."""
        alpha, b = np.asarray(values["alpha"]), float(np.asarray(values["b"]))
        Oa = self.omega() @ alpha
        e = self.rhs() - Oa - self.border() * b
        return float(0.5 * alpha @ Oa + 0.5 * np.sum((e - self._c()) ** 2))

    def closed_form(self) -> Solution:
        c = self._c()
        t = self.rhs() - c
        alpha, b = self.system().solve(t)
        return Solution(values={"alpha": alpha, "b": b, "e": alpha + c},
                        duals={"fit": -alpha, "kkt": np.zeros_like(alpha)},
                        extras={"system": self.system().diagnostics(t)})

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, sigma2: float = 1.0,
                        **kwargs: Any) -> AReg:
        """``n`` points of ``lssvm_regression`` (``lssvm_classification`` for the classifier)
        and ``c ~ N(0, 0.3²)``."""
        from lssvm_cvx import problems

        ds = problems.get_problem(f"lssvm_{cls.default_task}", n=n, seed=seed, **kwargs)
        c = np.random.default_rng(seed + 7).normal(scale=0.3, size=n)
        return cls(ds.X, ds.y, c=c, kernel=RBF(sigma2))


ARegClassification = classifier_preset(
    AReg, "ARegClassification", name="areg_classifier",
    reference=Reference(AREG_REF, AREG_PAPER, {"primal": "(59)", "dual system": "(60)"}),
    doc="""AReg LS-SVM classifier for a fixed ``c`` (Appendix A.2, eq. 59-60).

    Primal (59) with ``w = Σ_i α_i y_i φ(x_i)``::

        min ½ α'Ω_yα + ½ Σ(e_i - c_i)²  s.t.  Ω_yα + y b + e = 1,  e - c = α

    and the dual system ``[[0, y'], [y, Ω_y + I]] [b; α] = [0; 1 - c]``.  The paper prints the
    right-hand side ``1 - c∘y`` (eq. 60); that does not follow from (59) — see slip 2 in the
    module docstring.  The decision function is ``f(x) = Σ_i α_i y_i K(x_i, x) + b``.
    """)


def tikhonov_c(alpha: Any, gamma: Any) -> np.ndarray:
    """The Tikhonov constraint, eq. (70) (and eq. 76 with one ``γ_i`` per point):
    ``c = (1/γ - 1) α``.

    With this ``c``, AReg training (9) returns the LS-SVM solution ``α`` of eq. (2) (or of the
    weighted LS-SVM, eq. 75): ``(Ω + I)α + b + (1/γ - 1)α = (Ω + I/γ)α + b``.
    """
    alpha = as_targets(alpha, None, name="alpha")
    g = check_gamma(gamma, alpha.shape[0])
    return (1.0 / np.asarray(g) - 1.0) * alpha


def weighted_lssvm_gammas(alpha: Any, c: Any) -> np.ndarray:
    """Weights ``γ_i`` of the weighted LS-SVM (eq. 74-75) that has the AReg solution ``α`` for
    constants ``c`` (Corollary B.1): ``γ_i = α_i / (α_i + c_i) = α_i / e_i``.

    They exist (``γ_i > 0``) iff ``sign(α_i)(c_i + α_i) > 0`` for every ``i`` (eq. 77);
    otherwise :class:`InputError` names the offending points.
    """
    alpha, c = as_targets(alpha, None, name="alpha"), as_targets(c, None, name="c")
    if alpha.shape != c.shape:
        raise InputError(f"alpha and c must have the same shape, got {alpha.shape} and {c.shape}")
    ok = np.sign(alpha) * (c + alpha) > 0
    if not ok.all():
        bad = np.flatnonzero(~ok)
        raise InputError(
            f"condition (77) sign(alpha_i)(c_i + alpha_i) > 0 fails at {bad.size} point(s) "
            f"(first: {bad[:5].tolist()}): no weighted LS-SVM has this AReg solution")
    return alpha / (alpha + c)


# ------------------------------------------------------------------------------ item 7: γ recovery
@dataclass
class TikhonovRecovery:
    """Result of :func:`recover_tikhonov_gamma`."""

    gamma: float
    objective: float
    #: ``||f_c||²`` (to read ``objective`` relatively)
    scale: float
    grid: np.ndarray = field(repr=False)
    grid_objective: np.ndarray = field(repr=False)
    at_boundary: bool = False

    @property
    def relative_objective(self) -> float:
        return self.objective / self.scale if self.scale > 0 else 0.0


def recover_tikhonov_gamma(Omega: Any, y: Any, c: Any, *, bias: bool = True,
                           border: Any = None, gamma_range: tuple[float, float] = (1e-6, 1e8),
                           grid_size: int = 241) -> TikhonovRecovery:
    """The Tikhonov ``γ`` whose LS-SVM best approximates an AReg solution (Appendix B.1).

    Eq. (71): ``γ_c = argmin_γ ||f_γ - f_c||²`` over the training points, with ``f_γ`` the
    LS-SVM fit of eq. (2) and ``f_c`` the AReg fit of eq. (9) for the constants ``c``.  The
    problem is non-convex in γ.  With ``Ω = V diag(s) V'`` (one ``eigh``; the paper writes the
    SVD ``Ω = U'SU``, the same thing for a symmetric PSD Ω) every γ costs O(N) (eq. 72-73)::

        V'f_γ = s ∘ (ỹ - ã b_γ) / (s + 1/γ) + ã b_γ,     ỹ = V'y,  ã = V'a

    with ``b_γ = (ã'Dỹ)/(ã'Dã)``, ``D = diag(1/(s + 1/γ))`` (the Schur complement of the
    bordered system in the eigenbasis), and ``||f_γ - f_c|| = ||V'f_γ - V'f_c||``.  The paper
    drops the bias "for notational convenience" (``bias=False`` gives eq. 73 exactly: ``b = 0``
    in both fits); the default keeps it, as the models of eq. (2) and (9) have it.

    The line search: the objective on a log-spaced grid of ``grid_size`` values in
    ``gamma_range``, then a bounded Brent refinement in ``log γ`` between the neighbours of the
    best grid point.  ``at_boundary`` flags a minimiser at the end of the range (the AReg
    solution is then closest to the un- or over-regularised limit).

    Parameters
    ----------
    Omega, y, c :
        Gram (``N × N``), targets (or the ``1`` right-hand side of a classifier in ``Ω_y``
        form) and AReg constants.
    border :
        The bias border (``1``, or ``y`` for the classifier in ``Ω_y`` form); default ones.
    """
    O, y, c = as_gram(Omega, name="Omega"), as_targets(y, None), as_targets(c, None, name="c")
    N = y.shape[0]
    a = np.ones(N) if border is None else as_targets(border, None, name="border")
    if O.shape != (N, N) or c.shape != (N,) or a.shape != (N,):
        raise InputError(f"Omega must be ({N}, {N}), c and border ({N},), got {O.shape}, "
                         f"{c.shape} and {a.shape}")
    try:
        lo, hi = map(float, gamma_range)
    except (TypeError, ValueError):
        lo = hi = math.nan
    if not (0 < lo < hi and math.isfinite(hi)):
        raise InputError(f"gamma_range must be (low, high) with 0 < low < high, got {gamma_range!r}")
    check_integer(grid_size, "grid_size", low=2)
    s, V = np.linalg.eigh(O)
    s = np.maximum(s, 0.0)
    yt, at = V.T @ y, V.T @ a

    def fit(rhs_t: np.ndarray, lam: float) -> np.ndarray:
        w = 1.0 / (s + lam)
        b = float(at @ (w * rhs_t) / (at @ (w * at))) if bias else 0.0
        return s * w * (rhs_t - at * b) + at * b

    fc = fit(yt - V.T @ c, 1.0)

    def obj(log_g: float) -> float:
        r = fit(yt, math.exp(-log_g)) - fc
        return float(r @ r)

    grid = np.linspace(math.log(lo), math.log(hi), int(grid_size))
    vals = np.array([obj(g) for g in grid])
    k = int(np.argmin(vals))
    best_g, best_v = grid[k], vals[k]
    if 0 < k < grid.size - 1:
        res = minimize_scalar(obj, bounds=(grid[k - 1], grid[k + 1]), method="bounded",
                              options={"xatol": 1e-10})
        if res.fun <= best_v:
            best_g, best_v = float(res.x), float(res.fun)
    return TikhonovRecovery(gamma=float(math.exp(best_g)), objective=float(best_v),
                            scale=float(fc @ fc), grid=np.exp(grid), grid_objective=vals,
                            at_boundary=k in (0, grid.size - 1))
