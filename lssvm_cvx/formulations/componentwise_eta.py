"""Componentwise regularized LS-SVM with one ``η_d`` per component (eq. 31-36) and its fusion
with validation (eq. 37-40), solved by alternating least squares — componentwise LS-SVM
chapter, §4.3.

Level 1 (eq. 31), with ``w_d = η_d Σ_k α_k^η φ_d(x_k)`` (eq. 33c) substituted so that
``w_d'w_d / η_d = η_d α^η'Ω^dα^η``::

    min ½ Σ_d η_d α'Ω^dα + ½ Σ_k e_k²   s.t.  Σ_d η_d Ω^dα + b 1 + e = y,   e = α   (33b)

dual system (34) ``[0 1'; 1 Ω^η + I][b; α^η] = [0; y]``, ``Ω^η = Σ_d η_d Ω^d``; prediction
(35) ``Σ_k α_k^η Σ_d η_d K^d(x_k, x) + b``; component outputs (36) ``η_d Ω^d α^η``.  With
``η = γ 1`` it is the componentwise LS-SVM with regularization constant γ (``α = γ α^η``).

Fusion (38): ``min_{η ≥ 0} Σ_j (f(x_j^(v); α^η, b) - y_j^(v))²`` with ``(α^η, b)`` solving (34).

Paper slip in eq. (40).  The chapter rewrites (38) as ``min ||Ω^(v)α - Y^(v)||²`` subject to
(39), where ``α`` is the AReg dual of the *plain* kernel that reproduces the η-model's training
fit (``Ωα = Ω^ηα^η``).  The two models agree on the training points only: on validation points
``Ω^(v)α = Ω^(v)Ω^{-1}Ω^ηα^η``, which equals the η-model's prediction
``Σ_d η_d Ω^(v)d α^η`` (eq. 35) when ``η ∝ 1`` but not in general (on a well-conditioned
instance the two objectives differ by 10-15 %; on the additive example, where RBF Grams are
numerically low-rank, they happen to nearly coincide).  So (40) as printed does not measure
the validation error of the model it tunes.  We optimize (38) itself; ``test_componentwise_eta.py``
shows the printed objective equals the η-model's validation error for ``η = γ1`` and differs
for ``η = (2, 0, 0)``.

Algorithm (:func:`lssvm_cvx.selection.eta_als.eta_fusion`), alternating two least-squares problems:

1. *Level 1:* given η, solve the linear system (34) for ``(α^η, b)`` (one Cholesky).
2. *Level 2:* with the component shapes ``g_d = Ω^(v)d α^η`` fixed, fit
   ``min_{η' ≥ 0, b'} ||Σ_d η'_d g_d + b' - y^(v)||²`` (bounded least squares,
   :func:`scipy.optimize.lsq_linear`).
3. Move ``η ← η + t (η' - η)`` with the largest ``t ∈ {1, ½, ¼, …}`` (at most
   ``max_backtrack`` halvings) for which the true objective (38) — re-evaluated through step
   1 — decreases.  η stays ≥ 0 (a convex combination).

Stopping rule: stop when the relative decrease of (38) over an iteration is below ``tol``, when
no step length decreases it, or after ``max_iter`` iterations.  By construction the recorded
objective never increases.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..checks import as_targets, check_grid
from ..exceptions import HyperparameterError
from ..kernels import RBF, Componentwise
from ..linalg.engine import RKHS, decompose
from ..solution import Solution
from .base import BuiltProblem, Formulation, Reference
from .componentwise import CW_KEY, CW_PAPER, Components

__all__ = ["ComponentwiseEta", "printed_fusion_objective"]


class ComponentwiseEta(Components, Formulation):
    """Componentwise regularized LS-SVM, eq. (31)-(36).

    Parameters
    ----------
    X, y :
        Training data.
    kernel :
        Componentwise kernel (see :func:`~.componentwise.as_componentwise`).
    eta :
        ``η ∈ R^P`` with ``η_d ≥ 0`` (a DPP parameter of the builder; default ones).  The
        chapter asks ``η_d > 0``; ``η_d = 0`` switches component ``d`` off, which the fusion
        driver uses for selection (``Ω^η + I`` stays positive definite).
    """

    name: ClassVar[str] = "componentwise_eta"
    reference = Reference(CW_KEY, CW_PAPER, {"primal": "(31)", "dual system": "(34)",
                                             "prediction": "(35)", "components": "(36)"})
    has_closed_form = True
    compare = ("alpha", "b", "e")

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, eta: Any = None):
        self._init_components(X, y, kernel)
        self.eta = eta

    def targets(self) -> np.ndarray:
        """The validated targets ``y``."""
        return as_targets(self.y, self.n)

    def eta_weights(self) -> np.ndarray:
        """The component weights ``η`` (eq. 34) as ``P`` finite values ``>= 0`` (ones for ``None``)."""
        P = self.n_components
        if self.eta is None:
            return np.ones(P)
        eta = check_grid(self.eta, "eta", allow_zero=True, flat=True)
        if np.ndim(self.eta) == 0:
            eta = np.full(P, eta[0])
        if eta.shape != (P,) or np.ndim(self.eta) > 1:
            raise HyperparameterError(f"eta must be {P} finite values >= 0, got {self.eta!r}")
        return eta

    def validate(self) -> None:
        self.targets()
        self.eta_weights()

    def parameter_values(self) -> dict[str, Any]:
        return {"eta": self.eta_weights()}

    def Omega_eta(self) -> np.ndarray:
        """``Ω^η = Σ_d η_d Ω^d`` (eq. 34)."""
        eta = self.eta_weights()
        out = np.zeros((self.n, self.n))
        for d in range(self.n_components):
            if eta[d]:
                out += eta[d] * self.component_gram(d)
        return out

    def _build(self) -> BuiltProblem:
        n, P, y = self.n, self.n_components, self.targets()
        eta = cp.Parameter(P, nonneg=True, name="eta")
        alpha, b, e = cp.Variable(n, name="alpha"), cp.Variable(name="b"), cp.Variable(n, name="e")
        Ls = self.component_factors()
        reg = 0.5 * sum(eta[d] * cp.sum_squares(L.T @ alpha) for d, L in enumerate(Ls))
        fit = sum(eta[d] * (self.component_gram(d) @ alpha) for d in range(P))
        objective = cp.Minimize(reg + 0.5 * cp.sum_squares(e))
        constraints = {"fit": fit + b + e == y, "kkt": e == alpha}
        return BuiltProblem(objective, constraints, vars={"alpha": alpha, "b": b, "e": e},
                            params={"eta": eta})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``½ Σ_d η_d α'Ω^dα + ½ ||y - Ω^ηα - b||²`` (eq. 31 at ``w_d = η_d Φ_d'α``)."""
        alpha, b = np.asarray(values["alpha"]), float(np.asarray(values["b"]))
        Oa = self.Omega_eta() @ alpha
        r = self.targets() - Oa - b
        return float(0.5 * alpha @ Oa + 0.5 * r @ r)

    def closed_form(self) -> Solution:
        alpha, b = decompose(self.Omega_eta(), 1.0, {"rkhs": (RKHS, 1.0)}, name="Omega_eta + I"
                             ).system(overwrite_gram=True).solve(self.targets())
        return Solution(values={"alpha": alpha, "b": b, "e": alpha.copy()},
                        duals={"fit": -alpha, "kkt": np.zeros_like(alpha)})

    def component_outputs(self, alpha: np.ndarray, X_new: Any | None = None) -> np.ndarray:
        """Eq. (36): column ``d`` is ``η_d Ω^d α^η`` (or ``η_d K^d(X_new, X) α^η``)."""
        eta, alpha = self.eta_weights(), np.asarray(alpha, dtype=np.float64)
        return np.column_stack([eta[d] * (self.component_gram(d, X_new) @ alpha) if eta[d]
                                else np.zeros(self.n if X_new is None else len(X_new))
                                for d in range(self.n_components)])

    def predict(self, solution: Solution, X_new: Any) -> np.ndarray:
        """Eq. (35)."""
        return self.component_outputs(solution["alpha"], X_new).sum(axis=1) + solution.scalar("b")

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, sigma2: float = 1.0,
                        **kwargs: Any) -> "ComponentwiseEta":
        from lssvm_cvx import problems

        ds = problems.get_problem("additive10", n_train=n, n_test=0, seed=seed, **kwargs)
        eta = np.random.default_rng(seed + 1).uniform(0.5, 20.0, ds.X.shape[1])
        return cls(ds.X, ds.y, kernel=Componentwise(RBF(sigma2)), eta=eta)


def printed_fusion_objective(problem: ComponentwiseEta, X_val: Any, y_val: Any) -> float:
    """Eq. (40) as printed at the problem's η: ``||Ω^(v)α - Y^(v)||²`` with the plain-kernel
    AReg dual ``α`` that reproduces the η-model's training fit (eq. 39: ``Ωα = Ω^ηα^η``; the
    bias is kept, ``b`` as in eq. 34).  Provided to document the slip (module docstring)."""
    sol = problem.closed_form()
    target = problem.Omega_eta() @ sol["alpha"]
    alpha = np.linalg.lstsq(problem.Omega, target, rcond=None)[0]
    Kv = sum(problem.component_gram(d, X_val) for d in range(problem.n_components))
    r = Kv @ alpha + sol.scalar("b") - np.asarray(y_val, dtype=np.float64)
    return float(r @ r)
