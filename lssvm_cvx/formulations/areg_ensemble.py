"""Tikhonov-node ensembles: AReg restricted to the convex hull of ``m`` LS-SVM solutions
(Pelckmans, Suykens & De Moor 2006, §4 and Appendix A.4-A.5).

* :class:`ARegEnsemble` [``areg_ensemble``] — the fused problem (eq. 25-26) as one cvxpy
  problem; its closed form is the fast two-layer algorithm (Algorithm 4.1, eq. 27-28):
  the ``m`` Tikhonov nodes of eq. (21) first, then the simplex-constrained least squares (28).
  :class:`ARegClassifierEnsemble` [``areg_classifier_ensemble``] is the classifier version
  (eq. 63-64).
* :func:`simplex_lstsq` — the second layer (28), solved exactly (active-set enumeration).
* :func:`criterion_search` — non-convex validation criteria over the node simplex
  (misclassification count, eq. 65-66, and the area under the ROC curve, §A.5): exact line
  search for ``m = 2``, pairwise exact line searches for ``m > 2``.

Notation as in :mod:`lssvm_cvx.formulations.areg`.  A node ``k`` solves the LS-SVM (eq. 21)
``(Ω + I/γ_k)α_k + 1 b_k = y``, ``1'α_k = 0``; the ensemble model is
``α = Σλ_kα_k``, ``b = Σλ_k b_k`` with ``λ`` in the simplex (eq. 22), which is the AReg
solution for ``c = Σ_k λ_k α_k (1/γ_k - 1)`` (Proposition 4.1, eq. 23-24).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..checks import as_matrix, as_targets, check_grid, check_option
from ..exceptions import HyperparameterError, InputError, LabelError, SolverError
from ..kernels import RBF, Kernel
from ..linalg.engine import RKHS, decompose
from ..solution import Solution
from ..solvers import solve_problem
from .areg import AREG_REF, ValidationData
from .base import BuiltProblem, Reference
from .lssvm import AREG_PAPER
from .tasks import classifier_preset, task_method

__all__ = [
    "check_node_gammas",
    "TikhonovNodes",
    "simplex_lstsq",
    "ARegEnsemble",
    "ARegClassifierEnsemble",
    "CriterionSearch",
    "criterion_search",
    "CRITERIA",
    "NODE_GAMMAS",
]

#: the default node constants per task (Tables 2 and 3 of the paper)
NODE_GAMMAS = {"regression": (1.0, 400.0), "classification": (1.0, 20.0)}
#: non-convex validation criteria of Appendix A.5
CRITERIA = ("misclassification", "roc")

#: largest m for which :func:`simplex_lstsq` enumerates supports (2^m - 1 small solves)
ENUMERATE_MAX_M = 14


def check_node_gammas(gammas: Any) -> np.ndarray:
    """``m ≥ 2`` finite, positive node regularization constants (eq. 21, §4.1: ``m ≥ 2``)."""
    g = check_grid(gammas, "gammas", flat=True)
    if g.size < 2:
        raise HyperparameterError(
            f"gammas: a Tikhonov ensemble needs m >= 2 nodes (paper §4.1), got m = {g.size}")
    return g


class TikhonovNodes:
    """The ``m`` Tikhonov nodes of eq. (21) (first layer of Algorithm 4.1) and their systems.

    The systems of the engine along the weight ``1/γ_k``
    (:meth:`~lssvm_cvx.linalg.engine.Decomposition.systems`): fewer than
    :data:`~lssvm_cvx.linalg.spectral.EIGH_BREAK_EVEN` nodes, one Cholesky factor of
    ``Ω + I/γ_k`` per node; more, one eigendecomposition of Ω shared by all, the rule of
    :func:`~lssvm_cvx.model_selection.gamma_sweep`.
    """

    def __init__(self, omega: np.ndarray, border: np.ndarray, rhs: np.ndarray, gammas: Any):
        self.gammas = check_node_gammas(gammas)
        self.border = border
        dec = decompose(omega, 1.0, {"rkhs": (RKHS, 1.0)}, border=border,
                        name="Omega + I/gamma_k")
        self._systems = list(dec.systems("rkhs", 1.0 / self.gammas))
        sols = [self.solve(rhs, k) for k in range(self.gammas.size)]
        self.alphas = np.column_stack([s[0] for s in sols])  # N x m
        self.bs = np.array([s[1] for s in sols])  # m

    @property
    def m(self) -> int:
        return self.gammas.size

    def solve(self, r: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray | float]:
        """``(α, b)`` of node ``k``'s bordered system with right-hand side ``r``."""
        return self._systems[k].solve(r)

    def solve_bordered(self, r: np.ndarray, t: float | np.ndarray, k: int) -> tuple[np.ndarray, float]:
        """``(μ, β)`` with ``[[0, a'], [a, Ω + I/γ_k]] [β; μ] = [t; r]`` (non-zero top)."""
        mu, beta = self._systems[k].solve(r, top=t)
        return mu, float(beta)


def simplex_lstsq(P: Any, t: Any) -> np.ndarray:
    """Exact solution of eq. (28): ``min_λ ||P λ - t||²`` s.t. ``Σλ_k = 1``, ``λ ≥ 0``.

    For ``m ≤`` :data:`ENUMERATE_MAX_M` every support ``S`` is tried: the equality-constrained
    least squares on ``S`` (a KKT system of size ``|S| + 1``, minimum-norm when singular) is
    kept when it is non-negative, and the best kept point is returned.  The optimum has some
    support ``S*`` on which it is the equality-constrained minimiser, so the enumeration finds
    the global minimum value (a finite, exact "closed form"; with ties, the point of smallest
    support found first).  Larger ``m`` solve the QP with CLARABEL (60 s limit).
    """
    P, t = as_matrix(P, name="P"), as_targets(t, None, name="t")
    if P.shape[0] != t.shape[0]:
        raise InputError(f"P must be (n, m) with n = len(t), got {P.shape} and {t.shape}")
    m = P.shape[1]
    if m > ENUMERATE_MAX_M:
        lam_var = cp.Variable(m, nonneg=True)
        prob = cp.Problem(cp.Minimize(cp.sum_squares(P @ lam_var - t)), [cp.sum(lam_var) == 1])
        solve_problem(prob, "CLARABEL", time_limit=60.0)  # a failure raises, with the status
        lam = np.clip(np.asarray(lam_var.value), 0.0, None)
        return lam / lam.sum()
    Q, q = P.T @ P, P.T @ t
    scale = max(float(np.abs(Q).max()), 1e-300)
    best, best_val = None, np.inf
    for size in range(1, m + 1):
        for support in itertools.combinations(range(m), size):
            S = list(support)
            K = np.zeros((size + 1, size + 1))
            K[:size, :size] = Q[np.ix_(S, S)] / scale
            K[:size, size] = K[size, :size] = 1.0
            rhs = np.concatenate([q[S] / scale, [1.0]])
            sol = np.linalg.lstsq(K, rhs, rcond=1e-13)[0][:size]
            if np.any(sol < -1e-12):
                continue
            lam = np.zeros(m)
            lam[S] = np.clip(sol, 0.0, None)
            lam /= lam.sum()
            r = P @ lam - t
            val = float(r @ r)
            if val < best_val * (1 - 1e-13) - 1e-300:
                best, best_val = lam, val
    if best is None:  # every support's value was NaN
        raise InputError("simplex_lstsq: P and t must be finite")
    return best


class ARegEnsemble(ValidationData):
    """Fusion of AReg with validation over the convex hull of ``m`` Tikhonov nodes (§4).

    Builder: eq. (26) in the variables ``α^λ_k = λ_k α_k`` (columns of ``alpha_lam``),
    ``e^λ_k = λ_k e_k`` (``e_lam``: the nodes' training residuals scaled by ``λ_k``),
    ``b^λ_k = λ_k b_k``, ``λ`` and ``e^v``; ``gamma`` (``γ_k``) is a :class:`cvxpy.Parameter`,
    so the node constants can change without recompiling (DPP)::

        min   ||e^v||²
        s.t.  λ_k y = Ω α^λ_k + e^λ_k + 1 b^λ_k,   γ_k e^λ_k = α^λ_k,
              1'α^λ_k = 0                                   ("nodes", "node_kkt", "node_bias")
              Σ_k λ_k = 1,  λ ≥ 0                           ("simplex_sum", "simplex_nonneg")
              y^v = Ω^v Σ_k α^λ_k + 1 Σ_k b^λ_k + e^v        ("validation", last line of 26)

    The node line of (26), ``λ_k y = (Ω + Iγ_k^{-1})α^λ_k + b^λ_k``, is written with the
    residual ``e^λ_k = γ_k^{-1}α^λ_k`` made explicit — the optimality condition ``γe = α`` of
    eq. (1), imposed as a constraint exactly as the LS-SVM builder does.  The model and the
    constants of (26) are the linear functions ``α = Σ_kα^λ_k``, ``b = Σ_kb^λ_k`` and
    ``c = Σ_k α^λ_k(γ_k^{-1} - 1) = Σ_k (e^λ_k - α^λ_k)`` (eq. 24); by Proposition 4.1 they
    satisfy the constraints of (15), which are therefore implied and not repeated.  (Writing
    (26) literally — ``α, b, c`` as extra variables tied by (15) and (24), and ``γ_k^{-1}α^λ_k``
    inside the node equations — gives an equivalent problem on which CLARABEL's KKT
    factorisation fails with ``NumericalError`` on most instances with ``γ = (1, 400)``; this
    form is solved by all four solvers.)

    Closed form (Algorithm 4.1, the "fast" two-layer algorithm): the nodes by one
    factorization each (:class:`TikhonovNodes`), then eq. (28),
    ``min_λ ||Σ_k (Ω^vα_k + b_k) λ_k - y^v||²`` over the simplex, solved exactly by
    :func:`simplex_lstsq`; ``c`` follows from eq. (24).  The multipliers of every constraint
    are returned too (derived in :meth:`_duals`), so the harness checks the KKT conditions of
    (26) at the two-layer solution: the equivalence of (26) and (27)-(28).

    Parameters
    ----------
    X, y, X_val, y_val :
        Training and validation data.
    gammas :
        Node constants ``γ_1..γ_m`` (``m ≥ 2``; the paper uses ``(1, 400)`` in Table 2 and
        ``(1, 20)`` in Table 3); default :data:`NODE_GAMMAS` of the task.
    task :
        ``"regression"`` or ``"classification"`` (Appendix A.4; default the class's).
    kernel, Omega, Omega_v :
        As in :class:`~lssvm_cvx.formulations.areg_fusion.ARegFusion`.
    """

    name: ClassVar[str] = "areg_ensemble"
    reference = Reference(AREG_REF, AREG_PAPER, {"nodes": "(21)", "convex set": "(22)-(24)",
                                                  "fusion": "(25)-(26)",
                                                  "two-layer": "Alg. 4.1, (27)-(28)"})
    has_closed_form = True
    compare = ("lam", "alpha", "b", "c", "e_v")
    #: CLARABEL: its default static regularization (1e-8) lets the KKT factorisation fail
    #: (NumericalError) on most instances with N ≥ 200 (1e-7 still fails at N = 500, 1e-6
    #: does not); and the objective is flat along λ, so the profile's 1e-10 gap tolerance
    #: leaves ~1e-6 in λ and c — 1e-12 brings CLARABEL to ~1e-8 of the (KKT-exact) two-layer
    #: solution
    solver_options = {"CLARABEL": {"static_regularization_constant": 1e-6, "tol_gap_abs": 1e-12,
                                   "tol_gap_rel": 1e-12, "tol_feas": 1e-12}}

    def __init__(self, X: Any, y: Any, X_val: Any, y_val: Any, *, gammas: Any = None,
                 kernel: Kernel | None = None, Omega: Any | None = None,
                 Omega_v: Any | None = None, task: str | None = None):
        super().__init__(X, y, X_val, y_val, kernel=kernel, Omega=Omega, Omega_v=Omega_v,
                         task=task)
        self.gammas = NODE_GAMMAS[self.task] if gammas is None else gammas

    def validate(self) -> None:
        super().validate()
        check_node_gammas(self.gammas)

    def parameter_values(self) -> dict[str, Any]:
        return {"gamma": check_node_gammas(self.gammas)}

    def _build(self) -> BuiltProblem:
        N, nv, m = self.n, self.n_val, check_node_gammas(self.gammas).size
        O, a, r = self.omega(), self.border(), self.rhs()
        gamma = cp.Parameter(m, nonneg=True, name="gamma")
        A = cp.Variable((N, m), name="alpha_lam")
        E = cp.Variable((N, m), name="e_lam")
        b_lam, lam = cp.Variable(m, name="b_lam"), cp.Variable(m, name="lam")
        e_v = cp.Variable(nv, name="e_v")
        constraints = {
            "nodes": O @ A + E + cp.outer(a, b_lam) - cp.outer(r, lam) == 0,
            "node_kkt": A == E @ cp.diag(gamma),
            "node_bias": a @ A == 0,
            "simplex_sum": cp.sum(lam) == 1,
            "simplex_nonneg": lam >= 0,
            "validation": self._omega_v() @ cp.sum(A, axis=1)
            + self._val_border() * cp.sum(b_lam) + e_v == self._val_rhs(),
        }
        return BuiltProblem(cp.Minimize(cp.sum_squares(e_v)), constraints,
                            vars={"alpha_lam": A, "e_lam": E, "b_lam": b_lam, "lam": lam,
                                  "e_v": e_v},
                            params={"gamma": gamma})

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        out: dict[str, Any] = super().values_from(built)  # arrays, and the float b below
        if out["alpha_lam"] is not None:
            A, E = out["alpha_lam"], out["e_lam"]
            out.update(alpha=A.sum(axis=1), b=float(np.sum(out["b_lam"])),
                       c=(E - A).sum(axis=1))
        return out

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """Eq. (25)/(27): ``||y^v - Ω^vα - b||²`` (validation residual implied by α, b)."""
        alpha, b = np.asarray(values["alpha"]), float(np.asarray(values["b"]))
        e_v = self._val_rhs() - self._omega_v() @ alpha - self._val_border() * b
        return float(e_v @ e_v)

    # --- the classifier's criteria (Appendix A.4-A.5) --------------------------------------
    @task_method("classification")
    def node_decision_values(self) -> np.ndarray:
        """The classifier's validation decision values
        ``f_k(x^v_j) = Σ_i α_{k,i} y_i K(x_i, x^v_j) + b_k`` (``task="classification"``)."""
        return self._val_targets()[:, None] * self.node_validation_outputs()

    @task_method("classification")
    def search(self, criterion: str = "misclassification", **kwargs: Any) -> Solution:
        """The classifier's non-convex validation criterion minimised over the node simplex
        (eq. 66, §A.5), starting from the 2-norm solution of (64); see
        :func:`criterion_search`."""
        self.validate()
        values = self.node_decision_values()
        start = simplex_lstsq(self.node_validation_outputs(), self._val_rhs())
        res = criterion_search(values, self._val_targets(), criterion, lam0=start, **kwargs)
        sol = self.from_lambda(res.lam)
        sol.backend = f"search/{criterion}"
        sol.extras.update({"criterion": criterion, "value": res.value, "history": res.history,
                           "method": res.method, "l2_start": start})
        return sol

    # --- the two layers -------------------------------------------------------------------
    def nodes(self) -> TikhonovNodes:
        """First layer: the Tikhonov nodes (cached for the current ``gammas``)."""
        g = check_node_gammas(self.gammas)
        cached = getattr(self, "_nodes", None)
        if cached is None or not np.array_equal(cached.gammas, g):
            self._nodes = TikhonovNodes(self.omega(), self.border(), self.rhs(), g)
        return self._nodes

    def node_validation_outputs(self) -> np.ndarray:
        """``P[:, k] = Ω^vα_k + 1 b_k`` (``n × m``): the nodes' validation predictions (the
        columns of eq. 28; for the classifier ``Ω^v_yα_k + y^v b_k``, the margins of eq. 64)."""
        nd = self.nodes()
        return self._omega_v() @ nd.alphas + np.outer(self._val_border(), nd.bs)

    def from_lambda(self, lam: Any) -> Solution:
        """The ensemble model for a point ``λ`` of the simplex (eq. 22), ``c`` by eq. (24)."""
        nd = self.nodes()
        lam = np.asarray(lam, dtype=np.float64).reshape(-1)
        if lam.shape != (nd.m,) or np.any(lam < -1e-12) or abs(lam.sum() - 1) > 1e-9:
            raise InputError(f"lambda must be a point of the {nd.m}-simplex, got {lam.tolist()}")
        alpha = nd.alphas @ lam
        b = float(nd.bs @ lam)
        c = (nd.alphas * (1.0 / nd.gammas - 1.0)) @ lam
        e_v = self._val_rhs() - self._omega_v() @ alpha - self._val_border() * b
        return Solution(values={"lam": lam, "alpha": alpha, "b": b, "c": c, "e_v": e_v,
                                "alpha_lam": nd.alphas * lam, "b_lam": nd.bs * lam,
                                "e_lam": nd.alphas * (lam / nd.gammas)})

    def closed_form(self) -> Solution:
        P = self.node_validation_outputs()
        lam = simplex_lstsq(P, self._val_rhs())
        sol = self.from_lambda(lam)
        sol.duals = self._duals(sol)
        return sol

    def _duals(self, sol: Solution) -> dict[str, np.ndarray]:
        """Multipliers of the builder's constraints at the two-layer solution (cvxpy's sign
        convention: Lagrangian ``f + Σ_j λ_j' g_j``).

        With ``η_k, ζ_k, θ_k`` for node ``k``'s "nodes", "node_kkt" and "node_bias" rows, ``σ``,
        ``π`` for the simplex and ``ν`` for "validation", stationarity reads: ``ν = -2e^v``
        (in ``e^v``); ``ζ_k = η_k/γ_k`` (in ``e^λ_k``); ``Ωη_k + ζ_k + θ_k a + Ω^v'ν = 0`` and
        ``a'η_k + a_v'ν = 0`` (in ``α^λ_k``, ``b^λ_k``), i.e. node ``k``'s bordered system
        ``[[0, a'], [a, Ω + I/γ_k]] [θ_k; η_k] = [-a_v'ν; -Ω^v'ν]``; and
        ``π_k = σ - r'η_k`` (in ``λ_k``) with ``σ = r'η_k`` on the support of ``λ``, so that
        complementarity holds and dual feasibility (``π ≥ 0``) is what the harness checks.
        """
        nd = self.nodes()
        e_v, lam = sol["e_v"], sol["lam"]
        nu = -2.0 * e_v
        rhs, top = -(self._omega_v().T @ nu), -(self._val_border() @ nu)
        eta = np.empty((self.n, nd.m))
        theta = np.empty(nd.m)
        for k in range(nd.m):
            eta[:, k], theta[k] = nd.solve_bordered(rhs, top, k)
        ry = self.rhs() @ eta
        support = lam > 1e-10
        sigma = float(np.average(ry[support], weights=lam[support]))
        return {"nodes": eta, "node_kkt": eta / nd.gammas, "node_bias": theta,
                "simplex_sum": sigma, "simplex_nonneg": sigma - ry, "validation": nu}

    def two_layer(self, solver: str = "CLARABEL") -> Solution:
        """Algorithm 4.1 with the second layer (28) solved as a cvxpy QP by ``solver``
        (the paper's description; :meth:`closed_form` solves (28) exactly instead)."""
        from ..solvers import solve_problem

        P, t = self.node_validation_outputs(), self._val_rhs()
        lam = cp.Variable(P.shape[1], name="lam")
        prob = cp.Problem(cp.Minimize(cp.sum_squares(P @ lam - t)), [cp.sum(lam) == 1, lam >= 0])
        info = solve_problem(prob, solver)
        if lam.value is None:
            raise SolverError("the simplex QP (28) has no solution", solver=solver, status=info["status"])
        lam_v = np.clip(lam.value, 0.0, None)
        sol = self.from_lambda(lam_v / lam_v.sum())
        sol.backend = f"two-layer/{solver}"
        sol.solve_time = info["solve_time"]
        return sol

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, n_val: int | None = None,
                        gammas: Any = None, sigma2: float = 1.0, d: int = 3,
                        **kwargs: Any) -> ARegEnsemble:
        """``n`` training and ``n_val`` (default ``n``) validation points of
        ``lssvm_regression`` with noise 0.5 (the classifier: ``lssvm_classification``)."""
        from lssvm_cvx import problems

        nv = n if n_val is None else n_val
        if cls.default_task == "regression":
            kwargs = {"noise_std": 0.5, **kwargs}
        ds = problems.get_problem(f"lssvm_{cls.default_task}", n=n + nv, d=d, seed=seed,
                                  **kwargs)
        return cls(ds.X[:n], ds.y[:n], ds.X[n:], ds.y[n:], gammas=gammas, kernel=RBF(sigma2))


ARegClassifierEnsemble = classifier_preset(
    ARegEnsemble, "ARegClassifierEnsemble", name="areg_classifier_ensemble",
    reference=Reference(AREG_REF, AREG_PAPER, {"nodes": "(63)", "second layer": "(64)",
                                               "other criteria": "(65)-(66), A.5"}),
    doc="""Tikhonov-node ensemble of LS-SVM classifiers (Appendix A.4, eq. 63-64).

    Nodes: ``(Ω_y + I/γ_k)α_k + y b_k = 1``, ``y'α_k = 0`` (eq. 63); second layer:
    ``min_λ ||Σ_k [Ω^v_yα_k + y^v b_k] λ_k - 1_n||²`` over the simplex (eq. 64).  The builder is
    (26) with the classifier's Gram, border and right-hand side.  :meth:`search` replaces the
    2-norm of (64) by the misclassification count (eq. 65-66) or the area under the ROC curve
    (§A.5), which are not convex (:func:`criterion_search`).
    """)


# ------------------------------------------------------------------------------ item 6: search
@dataclass
class CriterionSearch:
    """Result of :func:`criterion_search`: the simplex point, the criterion there
    (misclassification count, or the AUC for ``"roc"``), and the accepted moves."""

    lam: np.ndarray
    value: float
    criterion: str
    method: str
    history: list[dict[str, Any]] = field(default_factory=list)


def _l2_best_in(f0: np.ndarray, d: np.ndarray, y: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """``argmin_{t ∈ [lo, hi]} ||f0 + t d - y||²`` and its value (exact: a 1-D quadratic)."""
    dd = float(d @ d)
    t = lo if dd == 0 else float(np.clip((d @ (y - f0)) / dd, lo, hi))
    r = f0 + t * d - y
    return t, float(r @ r)


def _auc(f: np.ndarray, y: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y > 0, f))


def _line_search(f0: np.ndarray, d: np.ndarray, y: np.ndarray, lo: float, hi: float,
                 criterion: str, max_pairs: int, grid_size: int) -> tuple[float, float, float, str]:
    """Minimise the criterion of ``f(t) = f0 + t d`` over ``t ∈ [lo, hi]``.

    Each margin ``y_j f_j(t)`` (misclassification) or pair difference ``f_p(t) - f_q(t)`` (AUC,
    positive ``p``, negative ``q``) is affine in ``t`` and changes sign at most once, so the
    criterion is piecewise constant with a breakpoint at each root; at a root the criterion is
    never better than on both neighbouring intervals (``I(0) = 1`` in eq. 65; a tie counts ½
    in the AUC).  The exact search therefore scores every open interval between consecutive
    roots (by a cumulative sum of the ±1 changes at the roots) and the two ends.  Ties between
    intervals are broken by the 2-norm criterion of (64) minimised inside each interval.  For
    the AUC with more than ``max_pairs`` pairs the roots are not enumerated: ``grid_size``
    equally spaced ``t`` are scored instead.  Returns ``(t, error, l2, method)`` where error
    is the count (misclassification) or ``1 - AUC``.
    """
    if hi - lo <= 0:
        f = f0 + lo * d
        err = float(np.sum(y * f <= 0)) if criterion == "misclassification" else 1 - _auc(f, y)
        return lo, err, float(np.sum((f - y) ** 2)), "exact"
    if criterion == "misclassification":
        g0, s = y * f0, y * d
        nz = s != 0
        roots = -g0[nz] / s[nz]
        inside = (roots > lo) & (roots < hi)
        roots, slope = roots[inside], s[nz][inside]
        # at an interior root, an increasing margin leaves the error set: -1, else +1
        change = np.where(slope > 0, -1.0, 1.0)

        def direct(t: float) -> float:
            return float(np.sum(g0 + t * s <= 0))
        method = "exact"
    elif criterion == "roc":
        pos, neg = y > 0, y <= 0
        n_pairs = int(pos.sum()) * int(neg.sum())
        if n_pairs == 0:
            raise LabelError("the ROC criterion needs both classes in the validation set")
        if n_pairs > max_pairs:
            ts = np.linspace(lo, hi, int(grid_size))
            errs = np.array([1 - _auc(f0 + t * d, y) for t in ts])
            best = np.flatnonzero(errs <= errs.min() + 1e-15)
            cand = [(errs[i], float(np.sum((f0 + ts[i] * d - y) ** 2)), ts[i]) for i in best]
            e, l2, t = min(cand, key=lambda z: (z[0], z[1]))
            return float(t), float(e), float(l2), f"grid({grid_size})"
        h0 = (f0[pos][:, None] - f0[neg][None, :]).ravel()
        hs = (d[pos][:, None] - d[neg][None, :]).ravel()
        nz = hs != 0
        roots = -h0[nz] / hs[nz]
        inside = (roots > lo) & (roots < hi)
        roots, slope = roots[inside], hs[nz][inside]
        # error = 1 - AUC: an increasing difference becomes concordant: error -1/pairs
        change = np.where(slope > 0, -1.0, 1.0) / n_pairs

        def direct(t: float) -> float:
            h = h0 + t * hs
            return float(1.0 - (np.sum(h > 0) + 0.5 * np.sum(h == 0)) / n_pairs)
        method = "exact"
    else:
        raise HyperparameterError(f"unknown criterion {criterion!r}; use one of {CRITERIA}")
    uniq, inv = np.unique(roots, return_inverse=True)
    deltas = np.bincount(inv, weights=change, minlength=uniq.size) if uniq.size else np.zeros(0)
    edges = np.concatenate([[lo], uniq, [hi]])
    first = direct(0.5 * (edges[0] + edges[1]))
    interval_err = first + np.concatenate([[0.0], np.cumsum(deltas)])
    cands: list[tuple[float, float, float]] = []
    for t_end in (lo, hi):
        f = f0 + t_end * d
        cands.append((direct(t_end), float(np.sum((f - y) ** 2)), t_end))
    best_err = min(interval_err.min(), min(c[0] for c in cands))
    tol = 1e-12
    for i in np.flatnonzero(interval_err <= best_err + tol):
        a, b = edges[i], edges[i + 1]
        eps = (b - a) * 1e-6
        t, l2 = _l2_best_in(f0, d, y, a + eps, b - eps)
        cands.append((float(interval_err[i]), l2, t))
    e, l2, t = min(cands, key=lambda z: (round(z[0], 12), z[1]))
    return float(t), float(direct(t)), float(l2), method


def criterion_search(F: Any, y: Any, criterion: str = "misclassification", *,
                     lam0: Any = None, max_sweeps: int = 50, max_pairs: int = 4_000_000,
                     grid_size: int = 2001) -> CriterionSearch:
    """Minimise a non-convex validation criterion over the simplex of node weights (§A.5).

    Parameters
    ----------
    F :
        ``n × m`` validation decision values of the ``m`` nodes, ``F[j, k] = f_k(x^v_j)``.
    y :
        Validation labels in ``{-1, +1}``.
    criterion :
        ``"misclassification"`` (the count of eq. 66, ``y_j f_j ≤ 0`` counts as an error) or
        ``"roc"`` (maximise the area under the ROC curve).
    lam0 :
        Starting point for ``m > 2`` (default: the barycentre); the estimators pass the
        2-norm solution of eq. (64).

    Notes
    -----
    ``m = 2``: ``λ = (1 - t, t)``, ``f(t) = F_1 + t(F_2 - F_1)``, and the exact line search over
    ``t ∈ [0, 1]`` (see :func:`_line_search`) returns a global minimiser.

    ``m > 2`` (documented local search): pairwise exact line searches, an SMO-like coordinate
    descent on the simplex.  For every pair ``(k, l)`` the move ``λ + t(e_k - e_l)``,
    ``t ∈ [-λ_k, λ_l]``, keeps ``λ`` in the simplex and makes ``f`` affine in ``t``; the best
    ``t`` is found exactly and the move is accepted when it lowers the criterion (or keeps it
    and lowers the 2-norm of eq. 64).  Sweeps over all pairs repeat until none improves.  The
    result is a point no pairwise move improves — a local, not necessarily global, optimum
    (the criterion is piecewise constant on a polyhedral partition of the simplex).
    """
    F, y = as_matrix(F, name="F"), as_targets(y, None)
    if F.shape[0] != y.shape[0]:
        raise InputError(f"F must be (n_val, m) with n_val = len(y), got {F.shape} and {y.shape}")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise LabelError("criterion_search needs validation labels in {-1, +1}")
    m = F.shape[1]
    if m < 2:
        raise HyperparameterError(f"the node simplex needs m >= 2 nodes, got {m}")
    check_option(criterion, CRITERIA, "criterion")

    def report(err: float) -> float:
        return err if criterion == "misclassification" else 1.0 - err

    if m == 2:
        t, err, l2, method = _line_search(F[:, 0], F[:, 1] - F[:, 0], y, 0.0, 1.0, criterion,
                                          max_pairs, grid_size)
        lam = np.array([1.0 - t, t])
        return CriterionSearch(lam, report(err), criterion, f"line search ({method})",
                               [{"sweep": 0, "pair": (0, 1), "t": t, "value": report(err), "l2": l2}])
    lam = np.full(m, 1.0 / m) if lam0 is None else np.asarray(lam0, dtype=np.float64).copy()
    f = F @ lam
    _, err, l2, _ = _line_search(f, np.zeros_like(f), y, 0.0, 0.0, criterion, max_pairs, grid_size)
    history: list[dict[str, Any]] = [{"sweep": 0, "pair": None, "t": 0.0, "value": report(err), "l2": l2}]
    methods = set()
    for sweep in range(1, max_sweeps + 1):
        improved = False
        for k, l in itertools.combinations(range(m), 2):
            lo, hi = -lam[k], lam[l]
            if hi - lo <= 0:
                continue
            t, e_new, l2_new, method = _line_search(f, F[:, k] - F[:, l], y, lo, hi, criterion,
                                                    max_pairs, grid_size)
            methods.add(method)
            if e_new < err - 1e-12 or (abs(e_new - err) <= 1e-12 and l2_new < l2 * (1 - 1e-10)):
                lam[k] += t
                lam[l] -= t
                lam = np.clip(lam, 0.0, None)
                lam /= lam.sum()
                f = F @ lam
                err, l2 = e_new, l2_new
                improved = True
                history.append({"sweep": sweep, "pair": (k, l), "t": t, "value": report(err),
                                "l2": l2})
        if not improved:
            break
    return CriterionSearch(lam, report(err), criterion,
                           f"pairwise line searches ({', '.join(sorted(methods)) or 'exact'})",
                           history)
