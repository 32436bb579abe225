"""The ℓ2-SVM of Bonidal, Tindel & Guermeur (2013): primal (Problem 1), Wolfe dual (Problem 2),
the active-set closed form (Propositions 1-2, eq. 6-11) and the enclosing-ball QP of the
radius-margin bound (Theorem 1).

Problem 1 (primal).  With ``h̄ = Σ_j c_j κ_{x_j}`` and a factor ``K = F F^T`` of the Gram
(``F`` of full column rank, so ``w = F^T c`` ranges over ``R^r``, ``||h̄||²_κ = ||w||²`` and
``h̄(x_i) = (F w)_i``)::

    min_{w, b, ξ}  ||ξ||² + (λ/2) ||w||²
    s.t.           y_i ((F w)_i + b) ≥ 1 - ξ_i               ("margin")

Problem 2 (Wolfe dual), ``H = diag(y) K diag(y)``, ``H(λ) = H + (λ/2) I`` (eq. 1-4: the Gram of
``κ_λ = κ + (λ/2) δ``)::

    max_α  -½ α^T H(λ) α + 1^T α     s.t.  α ≥ 0 ("nonneg"),  y^T α = 0 ("balance")

written for cvxpy as the minimisation of ``½ α^T H α + (λ/4)||α||² - 1^T α`` (``form="gram"``:
``quad_form`` with the PSD-checked ``H``; ``form="factor"``: ``½||F_y^T α||²`` with
``F_y = diag(y) F``), so the problem is DPP in the parameter ``lam`` and cvxpy's duals follow
the package's sign convention: the multiplier of "balance" is the bias ``b = α_0`` and that of
"nonneg" is ``μ = H(λ)α + α_0 y - 1``, i.e. ``y_i h̃_λ(x_i) - 1`` (zero on ``E``).

Duality (checked in the tests): the Lagrangian of Problem 1 with multipliers ``β = λα`` gives
``ξ = (λ/2) α`` (eq. 1), ``h = Σ α_i y_i κ_{x_i} + α_0`` (eq. 2) and
``min P1 = λ · max P2`` (Problem 2 is the Lagrange dual divided by λ).

Closed form (Propositions 1-2).  With ``E = {i : y_i h_λ(x_i) < 1}`` known,

    [ 0    y_E^T      ] [α_0]   [0]
    [ y_E  H_EE(λ)    ] [α_E] = [1]        (eq. 7)

which is the LS-SVM classifier system on ``d_E`` with ``γ = 2/λ`` (Problem 3, Proposition 2);
:func:`active_set_solution` solves it with one Cholesky factor of ``H_EE(λ)`` and the Schur
complement (``ν = H_EE(λ)^{-1} y_E``, ``ρ = H_EE(λ)^{-1} 1``, ``α_0 = y^Tρ / y^Tν``,
``α_E = ρ - α_0 ν``: eq. 8-11), the closed-form engine's bordered representation
(:func:`lssvm_cvx.linalg.engine.decompose` with the one RKHS term of weight ``λ/2`` and the
border ``y_E``).  When ``E`` is not
given, :meth:`L2SVMDual.closed_form` finds it with the active-set (primal Newton) iteration of
:func:`lssvm_cvx.l2svm_path.solve_fixed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, cast

import cvxpy as cp
import numpy as np

from ..checks import as_gram, as_matrix, as_targets, check_number, check_option, check_positive
from ..exceptions import InputError, NotPSDError
from ..kernels import RBF, Kernel
from ..kernels.base import check_psd
from ..kernels.psd import psd_factor
from ..linalg.engine import RKHS, decompose
from ..linalg.folds import index_set
from ..solution import Solution
from .base import BuiltProblem, Formulation, Reference
from .tasks import task_targets

__all__ = [
    "L2SVM_PAPER",
    "L2SVMPrimal",
    "L2SVMDual",
    "enclosing_ball_problem",
    "EnclosingBall",
    "active_set_solution",
    "asymptotic_alpha",
    "b_infinity",
    "dual_objective",
    "primal_objective",
    "exact_factor",
]

L2SVM_PAPER = ("Bonidal, Tindel & Guermeur (2013), Model selection for the l2-SVM by following the "
               "regularization path, Transactions on Computational Collective Intelligence 13")


def exact_factor(K: np.ndarray, *, name: str = "kernel matrix") -> np.ndarray:
    """``F`` with ``K = F F^T`` by the package's PSD eigen-factor
    (:func:`~lssvm_cvx.kernels.psd.psd_factor`: eigenvalues above 1e-12 ``s_max``; a linear
    kernel gives ``r = d``).  ``K`` must be PSD within ``1e-8 · ||K||`` (else
    :class:`NotPSDError`)."""
    check_psd(K, name=name)
    return psd_factor(K)


def dual_objective(H: np.ndarray, lam: float, alpha: np.ndarray) -> float:
    """Problem 2's objective ``W(α) = -½ α^T H(λ) α + 1^T α`` (to be maximised)."""
    H = as_gram(H, name="H")
    return _dual_value(H, check_positive(lam, "lam"), alpha)


def _dual_value(H: np.ndarray, lam: float, alpha: Any) -> float:
    """:func:`dual_objective` at a checked ``H`` and ``λ`` (``α`` is checked here)."""
    alpha = as_targets(alpha, H.shape[0], name="alpha")
    return float(-0.5 * alpha @ (H @ alpha) - 0.25 * lam * alpha @ alpha + alpha.sum())


def primal_objective(K: np.ndarray, y: np.ndarray, lam: float, alpha: np.ndarray, b: float) -> float:
    """Problem 1's objective at ``h = Σ α_i y_i κ_{x_i} + b`` with the optimal slacks
    ``ξ_i = max(0, 1 - y_i h(x_i))``: ``||ξ||² + (λ/2) (y∘α)^T K (y∘α)``."""
    K = as_gram(K, name="K")
    y, alpha = as_targets(y, K.shape[0]), as_targets(alpha, K.shape[0], name="alpha")
    lam, b = check_positive(lam, "lam"), check_number(b, "b", error=InputError)
    c = alpha * y
    f = K @ c
    xi = np.maximum(0.0, 1.0 - y * (f + b))
    return float(xi @ xi + 0.5 * lam * c @ f)


def asymptotic_alpha(y: np.ndarray, lam: float) -> np.ndarray:
    """Eq. (14): the solution of Problem 4 (the limit of Problem 2 as λ → ∞),
    ``α_i = 4 m_- / (m λ)`` for ``y_i = +1`` and ``4 m_+ / (m λ)`` otherwise."""
    y, lam = as_targets(y, None), check_positive(lam, "lam")
    m, mp = y.size, float(np.sum(y > 0))
    mm = m - mp
    return np.where(y > 0, 4.0 * mm / (m * lam), 4.0 * mp / (m * lam))


def b_infinity(y: np.ndarray) -> float:
    """§2.6: the limit of the bias as λ → ∞, ``b_∞ = (m_+ - m_-) / m``."""
    y = as_targets(y, None)
    return float((int(np.sum(y > 0)) - int(np.sum(y < 0))) / y.size)


def active_set_solution(H: np.ndarray, y: np.ndarray, lam: float, E: np.ndarray
                        ) -> tuple[np.ndarray, float, Any]:
    """Propositions 1-2: ``(α, α_0, system)`` from the bordered system (7) on the active set ``E``.

    ``system`` is the factorised :class:`~lssvm_cvx.linalg.BorderedSystem` of ``A_E(λ)``
    (the LS-SVM classifier system on ``d_E`` with ``γ = 2/λ``: the engine's RKHS system of
    ``H_EE`` with unit loss weights, the term weight ``λ/2`` and the border ``y_E``);
    ``system.u`` is ``ν`` of eq. (10) and ``system.alpha_inv_diag()`` the diagonal of
    ``A_E(λ)^{-1}`` (eq. 22-23).  ``α`` is returned as a full ``m``-vector (zero outside ``E``).
    """
    E = np.asarray(E, dtype=np.intp)
    if E.size == 0:
        raise InputError("the active set E is empty; Problem 2 needs at least one support vector")
    # the engine's RKHSSystem, whose `system` is the bordered system
    sys: Any = decompose(H[np.ix_(E, E)], 1.0, {"rkhs": (RKHS, 0.5 * lam)}, border=y[E],
                         name="H_EE(λ)").system(representation="bordered", overwrite_gram=True)
    aE, a0 = sys.solve(np.ones(E.size))
    alpha = np.zeros(y.size)
    alpha[E] = aE
    return alpha, float(a0), sys.system


class _L2SVMBase(Formulation):
    """Data handling shared by the ℓ2-SVM builders: ``X`` (or a Gram ``Omega``), labels mapped
    to ±1, the regularization ``lam`` > 0 and an optional known active set ``E``."""

    reference_equations: ClassVar[dict[str, str]] = {}

    def __init__(self, X: Any, y: Any, *, kernel: Kernel | None = None, lam: Any = 1.0,
                 Omega: Any | None = None, active_set: Any | None = None, form: str = "gram"):
        self.X = X
        self.y = y
        self.kernel = kernel
        self.lam = lam
        self.active_set = active_set
        self.form = form
        self._Omega = None if Omega is None else as_gram(Omega)
        self._precomputed = Omega is not None
        self._F: np.ndarray | None = None
        self._ypm: np.ndarray | None = None
        self._built = None

    @classmethod
    def from_gram(cls, Omega: Any, y: Any, **kwargs: Any):
        """Instance from a precomputed Gram ``Omega``."""
        return cls(None, y, Omega=Omega, **kwargs)

    @property
    def n(self) -> int:
        if self._precomputed:
            return self.Omega.shape[0]  # the given Gram
        return as_matrix(self.X, min_samples=2).shape[0]

    @property
    def Omega(self) -> np.ndarray:
        if self._Omega is None:
            self._Omega = (self.kernel or RBF())(as_matrix(self.X, min_samples=2))
        return self._Omega

    @property
    def labels(self) -> np.ndarray:
        """Labels mapped to ±1 (the original ones are in :attr:`classes`)."""
        if self._ypm is None:
            ypm, classes = task_targets(self.y, self.n, "classification")
            self._ypm, self.classes = ypm, cast(np.ndarray, classes)
        return self._ypm

    @property
    def H(self) -> np.ndarray:
        """``H = diag(y) K diag(y)``."""
        y = self.labels
        return self.Omega * np.outer(y, y)

    def _lam(self) -> float:
        return check_positive(self.lam, "lam (λ)")

    def factor(self) -> np.ndarray:
        """Exact factor ``F`` (``K = F F^T``) used by the builders (PSD check included)."""
        if self._F is None:
            self._F = exact_factor(self.Omega)
        return self._F

    def validate(self) -> None:
        _ = self.labels  # validates the ±1 labels
        self._lam()
        self._check_form()
        if self._precomputed:
            check_psd(self.Omega, name="precomputed kernel matrix")

    def _check_form(self) -> None:
        check_option(self.form, ("gram", "factor"), "form")

    def _quadratic(self, v: cp.Variable, G: np.ndarray) -> cp.Expression:
        """``v^T G v`` as ``quad_form(v, psd_wrap(G))`` after a PSD check of the Gram
        (``form="gram"``, the default: 10× faster than ``||F^T v||²`` with CLARABEL on a dense
        Gram, 4 s against 43 s at m = 1300).  ``form="factor"`` writes ``||F^T v||²`` with the
        exact factor ``F`` instead (better for a low-rank Gram, ``r ≪ m``).  Both are DPP in λ."""
        check_psd(self.Omega, name="kernel matrix")
        return cp.quad_form(v, cp.psd_wrap((G + G.T) / 2))

    def parameter_values(self) -> dict[str, Any]:
        return {"lam": self._lam()}

    def _active(self) -> tuple[np.ndarray, np.ndarray, float]:
        """``(E, α, α_0)``: from :attr:`active_set` if given, else by the active-set iteration."""
        y, lam = self.labels, self._lam()
        if self.active_set is not None:
            E = np.unique(index_set(self.active_set, y.size, "active_set"))
        else:
            from .l2svm_active_set import solve_fixed

            E = solve_fixed(y, lam, K=self.Omega).E
        alpha, a0, _ = active_set_solution(self.H, y, lam, E)
        return E, alpha, a0

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, lam: float = 1.0, sigma2: float = 2.0,
                        **kwargs: Any):
        from lssvm_cvx import problems

        ds = problems.get_problem("lssvm_classification", n=n, seed=seed, **kwargs)
        return cls(ds.X, ds.y, kernel=RBF(sigma2), lam=lam)


class L2SVMPrimal(_L2SVMBase):
    """Problem 1 (primal ℓ2-SVM), Bonidal et al. (2013) §2.1.

    Parameters
    ----------
    X, y :
        Training inputs ``(m, d)`` and two-class labels (mapped to ±1, sorted order).
    kernel :
        A :class:`~lssvm_cvx.kernels.Kernel` (default ``RBF(1.0)``).
    lam :
        Regularization coefficient λ > 0 (a DPP :class:`cvxpy.Parameter` ``lam``).
    Omega :
        Optional precomputed Gram (use :meth:`from_gram`).
    active_set :
        Optional known ``E`` for :meth:`closed_form` (found by the active-set iteration
        otherwise).
    form :
        Problem 2 and the ball only: ``"gram"`` (``quad_form`` on the Gram, default) or
        ``"factor"`` (``||F^T α||²``); Problem 1 always uses the factor.

    Notes
    -----
    Named arrays: ``w`` (``h̄`` in the basis of the exact factor ``F``), ``b``, ``xi`` and
    ``alpha = β/λ`` (the multiplier of "margin" divided by λ, Problem 2's variable).
    """

    name: ClassVar[str] = "l2svm_primal"
    reference = Reference("l2svm-regularization-path-bonidal-2013", L2SVM_PAPER,
                          {"primal": "Problem 1", "slacks": "(1)", "classifier": "(2)"})
    has_closed_form = True
    compare = ("w", "b", "xi", "alpha")

    def _build(self) -> BuiltProblem:
        F, y = self.factor(), self.labels
        m, r = F.shape
        lam = cp.Parameter(nonneg=True, name="lam")
        w = cp.Variable(r, name="w")
        b = cp.Variable(name="b")
        xi = cp.Variable(m, name="xi")
        objective = cp.Minimize(cp.sum_squares(xi) + lam / 2 * cp.sum_squares(w))
        constraints = {"margin": cp.multiply(y, F @ w + b) >= 1 - xi}
        return BuiltProblem(objective, constraints, vars={"w": w, "b": b, "xi": xi},
                            params={"lam": lam})

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        out = super().values_from(built)
        beta = built.cons["margin"].dual_value
        if beta is not None:  # (a missing value is dropped from the Solution either way)
            out["alpha"] = np.asarray(beta) / self._lam()
        return out

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        xi, w = np.asarray(values["xi"]), np.asarray(values["w"])
        return float(xi @ xi + 0.5 * self._lam() * w @ w)

    def closed_form(self) -> Solution:
        E, alpha, a0 = self._active()
        lam, y = self._lam(), self.labels
        w = self.factor().T @ (y * alpha)
        xi = 0.5 * lam * alpha
        return Solution(values={"w": w, "b": a0, "xi": xi, "alpha": alpha},
                        duals={"margin": lam * alpha}, extras={"E": E})


class L2SVMDual(_L2SVMBase):
    """Problem 2 (Wolfe dual of the ℓ2-SVM = hard-margin SVM dual with ``κ_λ``), §2.1 eq. (1)-(4).

    Same parameters as :class:`L2SVMPrimal`.  Named arrays: ``alpha`` and ``b`` (the multiplier
    of "balance", ``= α_0``).  :meth:`objective` is the minimised cvxpy objective
    ``½ α^T H(λ) α - 1^T α``, i.e. **minus** Problem 2's objective; :meth:`dual_objective` gives
    the paper's value.
    """

    name: ClassVar[str] = "l2svm_dual"
    reference = Reference("l2svm-regularization-path-bonidal-2013", L2SVM_PAPER,
                          {"dual": "Problem 2", "hard margin": "(4)", "closed form": "(7)-(11)"})
    has_closed_form = True
    compare = ("alpha", "b")

    def _build(self) -> BuiltProblem:
        y = self.labels
        m = y.size
        lam = cp.Parameter(nonneg=True, name="lam")
        alpha = cp.Variable(m, name="alpha")
        if self.form == "factor":
            quad = cp.sum_squares((y[:, None] * self.factor()).T @ alpha)
        else:
            quad = self._quadratic(alpha, self.H)
        objective = cp.Minimize(0.5 * quad + lam / 4 * cp.sum_squares(alpha) - cp.sum(alpha))
        constraints = {"nonneg": alpha >= 0, "balance": y @ alpha == 0}
        return BuiltProblem(objective, constraints, vars={"alpha": alpha}, params={"lam": lam})

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        out = super().values_from(built)  # {"alpha": ...}
        nu = built.cons["balance"].dual_value
        if nu is not None:  # (a missing value is dropped from the Solution either way)
            out["b"] = np.asarray(nu)
        return out

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        return {"alpha": solution.values["alpha"]}

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        return -self.dual_objective(values["alpha"])

    def dual_objective(self, alpha: np.ndarray) -> float:
        """Problem 2's objective ``-½ α^T H(λ) α + 1^T α``."""
        return _dual_value(self.H, self._lam(), alpha)   # H: the formulation's own, checked

    def closed_form(self) -> Solution:
        E, alpha, a0 = self._active()
        lam, y = self._lam(), self.labels
        mu = self.H @ alpha + 0.5 * lam * alpha + a0 * y - 1.0
        mu[E] = 0.0
        return Solution(values={"alpha": alpha, "b": a0},
                        duals={"nonneg": mu, "balance": np.asarray(a0)}, extras={"E": E})


def enclosing_ball_problem(d: np.ndarray, quad: Any) -> BuiltProblem:
    """The enclosing-ball QP of Theorem 1 (the one builder, also used along the ℓ2-SVM path):
    ``min quad(β) + (λ/2)||β||² - d'β - λ/2`` s.t. ``β ≥ 0`` ("nonneg"), ``1'β = 1``
    ("simplex"), with ``quad(β) = β'Kβ`` (any DPP cvxpy form of it) and ``d = diag(K)``;
    ``λ`` is the Parameter ``lam``.  ``R²(λ)`` is minus the optimal value."""
    m = d.size
    lam = cp.Parameter(nonneg=True, name="lam")
    beta = cp.Variable(m, name="beta")
    objective = cp.Minimize(quad(beta) + lam / 2 * cp.sum_squares(beta) - d @ beta - lam / 2)
    constraints = {"nonneg": beta >= 0, "simplex": cp.sum(beta) == 1}
    return BuiltProblem(objective, constraints, vars={"beta": beta}, params={"lam": lam})


class EnclosingBall(_L2SVMBase):
    """Squared radius of the smallest ball enclosing ``{Φ_λ(x_i)}`` in the RKHS of
    ``κ_λ = κ + (λ/2) δ`` (Theorem 1 applied to the ℓ2-SVM, §3.1)::

        R²(λ) = max_β  Σ_i β_i κ_λ(x_i, x_i) - β^T K_λ β   s.t.  β ≥ 0, 1^T β = 1

    with ``K_λ = K + (λ/2) I``.  Written as the DPP minimisation of
    ``||F^T β||² + (λ/2)||β||² - diag(K)^T β - λ/2``; ``R2`` is minus the optimal value and
    the centre is ``Σ β_i Φ_λ(x_i)``.  Labels are not used (``y`` may be None).
    """

    name: ClassVar[str] = "l2svm_radius"
    reference = Reference("l2svm-regularization-path-bonidal-2013", L2SVM_PAPER,
                          {"radius-margin bound": "Theorem 1"})
    has_closed_form = False
    compare = ("beta", "R2")

    def validate(self) -> None:
        self._lam()
        self._check_form()
        if self._precomputed:
            check_psd(self.Omega, name="precomputed kernel matrix")

    @property
    def labels(self) -> np.ndarray:  # labels are irrelevant for the ball
        return np.ones(self.n)

    def _build(self) -> BuiltProblem:
        if self.form == "factor":
            F = self.factor()
            return enclosing_ball_problem(np.diag(self.Omega).copy(), lambda b: cp.sum_squares(F.T @ b))
        return enclosing_ball_problem(np.diag(self.Omega).copy(),
                                      lambda b: self._quadratic(b, self.Omega))

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        beta = built.vars["beta"].value
        if beta is None:  # (missing values are dropped from the Solution either way)
            return {}
        return {"beta": beta, "R2": np.asarray(self.radius2_at(beta))}

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        return {"beta": solution.values["beta"]}

    def radius2_at(self, beta: np.ndarray) -> float:
        """``Σ β_i κ_λ(x_i, x_i) - β^T K_λ β`` (equal to R² at the optimum)."""
        beta = np.asarray(beta, dtype=np.float64)
        lam = self._lam()
        K = self.Omega
        return float(np.diag(K) @ beta + 0.5 * lam * beta.sum() - beta @ (K @ beta) - 0.5 * lam * beta @ beta)

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        return -self.radius2_at(values["beta"])

    def radius2(self, lam: float | None = None, solver: str = "CLARABEL") -> float:
        """Solve for ``R²(λ)`` (re-using the compiled DPP problem across calls)."""
        if lam is not None:
            self.lam = lam
        sol = self.solve(solver)
        if not sol.ok:  # pragma: no cover - solve raises on failure
            raise NotPSDError("enclosing-ball QP failed")
        return float(sol.values["R2"])
