"""Sparse components by L1 regularization (eq. 20-22), its L2 variant (§3.2), and fusion of
training and validation for component selection (eq. 30) — componentwise LS-SVM chapter.

All three replace the LS-SVM substrate's cost by a level-2 cost on the component outputs
``Ŷ^d = Ω^dα`` while the substrate's optimality conditions (19) hold exactly; eliminating
``c`` by ``e = α + c`` leaves (eq. 20)::

    min  ½ Σ_d ||Ŷ^d||_1 + ξ/2 Σ_k e_k²
    s.t. 1'α = 0,   Ωα + 1b + e = Y,   Ω^dα = Ŷ^d  (d = 1..P).

(Eq. 20 prints ``Ωα + 1_N^T b``; the bias enters every row, so it is ``1_N b`` as in eq. 19.
Eq. 21 prints the stacked system as ``[…; 0 Ω^d][b; α] + [0; e; Ŷ^1; …; Ŷ^D] = [0; Y; 0; …]``,
which would give ``Ŷ^d = -Ω^dα``; we use ``Ŷ^d = +Ω^dα`` as in eq. 9 and 20, so that
``Σ_d Ŷ^d + b + e = Y`` — ``test_componentwise_sparse.py`` checks that identity.)

Two forms of the constraints (``form=``):

* ``"reduced"`` (default) — the same constraints in the coordinates of
  :class:`~.componentwise.ComponentBasis`: ``vec(Ŷ) = blockdiag(V_d) z``, ``Z'z = 0``,
  ``Σ_d Ŷ^d + b + e = Y``.  Exact for the component Grams truncated at ``rank_tol``;
  well-conditioned (every solver agrees), and sparse (``N R`` nonzeros instead of ``P N²``).
* ``"printed"`` — eq. (20) literally with dense ``Ω^d`` and the variable ``α``.  Fine for small
  well-conditioned instances (linear components, or short RBF widths); it is how the tests
  show that the reduced form solves the same problem.

Selected set (eq. 22): ``S_D = {d : α'Ω^dα ≠ 0}``.  ``α'Ω^dα = 0`` iff ``Ω^dα = 0`` (``Ω^d``
PSD), so we test the equivalent, numerically robust ``||Ŷ^d||_2 > tol · max_d ||Ŷ^d||_2``
(:func:`selected_components`), and predict with the selected components only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..checks import as_matrix, as_targets, check_option
from ..exceptions import InputError
from ..kernels import RBF, Componentwise
from ..solution import Solution
from ..checks import check_positive
from .base import BuiltProblem, Formulation, Reference
from .componentwise import CW_KEY, CW_PAPER, Components
from .componentwise_basis import ComponentBasis

__all__ = ["selected_components", "ComponentwiseL1", "ComponentwiseL2", "ComponentwiseFusion"]

FORMS = ("reduced", "printed")


def selected_components(yhat: np.ndarray, tol: float = 1e-4, *, scale: float | None = None) -> np.ndarray:
    """Indices of the selected components (eq. 22): ``||Ŷ^d||_2 > tol · scale``.

    ``yhat`` is ``(N, P)`` (column ``d`` = ``Ŷ^d``); ``scale`` is the size of the data, e.g.
    ``||Y - mean(Y)||_2`` (default: the largest ``||Ŷ^d||_2``).  Empty when every component
    is zero at that scale.
    """
    norms = np.linalg.norm(np.asarray(yhat, dtype=np.float64), axis=0)
    top = float(norms.max()) if norms.size else 0.0
    ref = top if scale is None else float(scale)
    if ref <= 0:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(norms > tol * ref)


def _abs_epigraph(vars_: dict, cons: dict, x: cp.Variable, name: str) -> cp.Variable:
    """Add ``t ≥ x`` and ``t ≥ -x`` (named ``{name}_upper``/``{name}_lower``) so that
    ``Σ t = Σ |x|`` at the optimum: the QP form of the L1 norm the chapter solves (eq. 21).
    Written this way every term of the objective is differentiable, so the harness can score
    the KKT conditions of each backend (the inequality duals are the L1 subgradients)."""
    t = cp.Variable(x.shape, name=name)
    cons[f"{name}_upper"] = x <= t
    cons[f"{name}_lower"] = -x <= t
    vars_[name] = t
    return t


class SparseComponents(Components, Formulation):
    """Shared data of the component-selection problems (at least two components)."""

    min_components: ClassVar[int] = 2
    compare: ClassVar[tuple[str, ...]] = ("yhat", "b", "e")
    _y_cache: tuple[Any, np.ndarray] | None  # lazily set by :meth:`targets`: ``(y, targets)``

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, xi: Any = 1.0,
                 rank_tol: float = 1e-10, coupling_tol: float | None = None,
                 form: str = "reduced"):
        self._init_components(X, y, kernel)
        self.xi = xi
        self.rank_tol = rank_tol
        self.coupling_tol = coupling_tol
        self.form = form
        self._basis: ComponentBasis | None = None

    # --- data ---------------------------------------------------------------------------
    def targets(self) -> np.ndarray:
        """The validated targets ``y`` (cached)."""
        cache = getattr(self, "_y_cache", None)
        if cache is None or cache[0] is not self.y:
            cache = self._y_cache = (self.y, as_targets(self.y, self.n))
        return cache[1]

    def _xi(self) -> float:
        return check_positive(self.xi, "xi")

    def validate(self) -> None:
        self.targets()
        self._xi()
        check_option(self.form, FORMS, "form")

    def parameter_values(self) -> dict[str, Any]:
        return {"xi": self._xi()}

    @property
    def basis(self) -> ComponentBasis:
        """The :class:`ComponentBasis` of the training inputs (computed once)."""
        if self._basis is None:
            self._basis = ComponentBasis.build(self.inputs(), self.components,
                                               rank_tol=self.rank_tol,
                                               coupling_tol=self.coupling_tol, grams=self._grams)
        return self._basis

    # --- constraints shared by the builders ------------------------------------------------
    def _train_part(self) -> tuple[dict[str, cp.Variable], dict[str, cp.Constraint], cp.Variable]:
        """Variables and the constraints of eq. (20) in the chosen form; returns
        ``(vars, constraints, yhat)``."""
        n, P, y = self.n, self.n_components, self.targets()
        yhat = cp.Variable((n, P), name="yhat")
        b, e = cp.Variable(name="b"), cp.Variable(n, name="e")
        fit = cp.sum(yhat, axis=1) + b + e == y                      # Ωα + 1b + e = Y
        if self.form == "reduced":
            B = self.basis
            if self._theta_form():
                # z = U_B θ: the coupling (one α with 1'α = 0) is built into the coordinates
                theta = cp.Variable(B.UB.shape[1], name="theta")
                cons = {"components": cp.vec(yhat, order="F") == (B.V_block() @ B.UB) @ theta,
                        "fit": fit}
                return {"theta": theta, "yhat": yhat, "b": b, "e": e}, cons, yhat
            z = cp.Variable(B.R, name="z")
            cons = {"components": cp.vec(yhat, order="F") == B.V_block() @ z,  # Ω^dα = Ŷ^d
                    "fit": fit}
            if B.Z.shape[1]:
                cons["coupling"] = B.Z.T @ z == 0                     # common α, 1'α = 0
            return {"z": z, "yhat": yhat, "b": b, "e": e}, cons, yhat
        alpha = cp.Variable(n, name="alpha")
        stacked = np.vstack(self.component_grams())                  # [Ω^1; …; Ω^P]
        cons = {"sum_alpha": cp.sum(alpha) == 0,
                "components": cp.vec(yhat, order="F") == stacked @ alpha,
                "fit": fit}
        return {"alpha": alpha, "yhat": yhat, "b": b, "e": e}, cons, yhat

    def _theta_form(self) -> bool:
        """Write the coupled coordinates as ``z = U_B θ`` (no ``coupling`` constraint) unless
        nothing is coupled or the dense ``blockdiag(V_d) U_B`` would be large.  The θ form is
        what interior-point solvers handle best when the coupling removes many directions
        (``R > N``: CLARABEL reports a numerical error on ``Z'z = 0`` there)."""
        B = self.basis
        k, q = B.Z.shape[1], B.UB.shape[1]
        return k > 0 and self.n * self.n_components * q <= 4_000_000

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        out = super().values_from(built)
        if self.form == "reduced":
            theta = out.get("theta")
            if theta is not None:
                out["z"] = self.basis.UB @ theta
            z = out.get("z")
            if z is not None:
                out["alpha"] = self.basis.alpha(z)
        return out

    def _closed_values(self, z: np.ndarray, Yh: np.ndarray, b: float, e: np.ndarray,
                       lam_comp: np.ndarray, lam_fit: np.ndarray) -> Solution:
        """A closed-form :class:`Solution` with the variables and duals of the builder's
        form (``theta`` or ``z`` + ``coupling``)."""
        B = self.basis
        values = {"z": z, "yhat": Yh, "b": b, "e": e, "alpha": B.alpha(z)}
        duals = {"fit": lam_fit, "components": lam_comp.reshape(-1, order="F")}
        if self._theta_form():
            values["theta"] = B.UB.T @ z
        elif B.Z.shape[1]:
            duals["coupling"] = B.Z.T @ (B.V_block().T @ duals["components"])
        return Solution(values=values, duals=duals)

    def _yhat_b(self, values: Mapping[str, np.ndarray]) -> tuple[np.ndarray, float]:
        """``(Ŷ, b)`` of a candidate point, recomputed from its coordinates (``z`` or ``α``)
        so the objective twin scores the point the constraints define."""
        b = float(np.asarray(values["b"]))
        if self.form == "reduced":
            z = values["z"] if "z" in values else self.basis.UB @ np.asarray(values["theta"])
            return self.basis.outputs(np.asarray(z)), b
        alpha = np.asarray(values["alpha"])
        return np.column_stack([G @ alpha for G in self.component_grams()]), b

    # --- results --------------------------------------------------------------------------
    def coef(self, solution: Solution) -> np.ndarray:
        """Per-component dual coefficients ``A`` (``N × P``): ``f^d(x) = K^d(x, X) A[:, d]``."""
        if "z" in solution.values:
            return self.basis.coef(solution["z"])
        return np.repeat(np.asarray(solution["alpha"])[:, None], self.n_components, axis=1)

    def selected(self, solution: Solution, tol: float = 1e-4) -> np.ndarray:
        """``S_D`` of eq. (22) (see :func:`selected_components`)."""
        y = self.targets()
        return selected_components(solution["yhat"], tol, scale=float(np.linalg.norm(y - y.mean())))

    def component_outputs(self, solution: Solution, X_new: Any) -> np.ndarray:
        """``f^d(x)`` at new points, shape ``(n, P)`` (eq. 9)."""
        A = self.coef(solution)
        cols = []
        for d in range(self.n_components):
            nz = np.flatnonzero(A[:, d])
            K = self.component_gram(d, X_new)
            cols.append(K[:, nz] @ A[nz, d])
        return np.column_stack(cols)

    def predict(self, solution: Solution, X_new: Any, *, tol: float = 1e-4) -> np.ndarray:
        """Eq. (22): ``Σ_{d ∈ S_D} f^d(x) + b`` (only the selected components)."""
        S = self.selected(solution, tol)
        F = self.component_outputs(solution, X_new)
        return F[:, S].sum(axis=1) + solution.scalar("b")

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, xi: float = 1.0,
                        sigma2: float = 1.0, **kwargs: Any):
        from lssvm_cvx import problems

        ds = problems.get_problem("additive10", n_train=n, n_test=0, seed=seed, **kwargs)
        return cls(ds.X, ds.y, kernel=Componentwise(RBF(sigma2)), xi=xi)


class ComponentwiseL1(SparseComponents):
    """L1 component regularization, eq. (20)-(22), as a QP.

    Parameters
    ----------
    X, y :
        Training data.
    kernel :
        Componentwise kernel (see :func:`~.componentwise.as_componentwise`).
    xi :
        Trade-off ξ > 0 of eq. (20) (a DPP parameter: a ξ sweep re-solves without
        recompiling).
    rank_tol, coupling_tol :
        Truncation of the component Grams and of the coupling (:class:`ComponentBasis`).
    form :
        ``"reduced"`` (default) or ``"printed"`` (see the module docstring).

    Notes
    -----
    Builder: ``min ½ Σ_{d,k} |Ŷ^d_k| + ξ/2 ||e||²`` subject to the constraints of eq. (20)
    named ``components`` (``Ω^dα = Ŷ^d``), ``coupling``/``sum_alpha`` (one ``α`` with
    ``1'α = 0``) and ``fit`` (``Ωα + 1b + e = Y``).  The solution's ``Ŷ``, ``b`` and ``e`` are
    unique (``e`` by strict convexity, ``Ŷ`` generically); ``α`` is not (eq. 20 fixes only
    ``Ω^dα``), so the harness compares ``yhat``, ``b``, ``e``.
    """

    name: ClassVar[str] = "componentwise_l1"
    reference = Reference(CW_KEY, CW_PAPER, {"problem": "(20)", "stacked form": "(21)",
                                             "selected set / prediction": "(22)"})

    def _build(self) -> BuiltProblem:
        xi = cp.Parameter(nonneg=True, name="xi")
        vars_, cons, yhat = self._train_part()
        t = _abs_epigraph(vars_, cons, yhat, "t")                  # t ≥ |Ŷ| elementwise
        objective = cp.Minimize(0.5 * cp.sum(t) + xi / 2 * cp.sum_squares(vars_["e"]))
        return BuiltProblem(objective, cons, vars=vars_, params={"xi": xi})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``½ Σ_d ||Ŷ^d||_1 + ξ/2 ||Y - Σ_d Ŷ^d - b||²`` (eq. 20)."""
        Yh, b = self._yhat_b(values)
        e = self.targets() - Yh.sum(axis=1) - b
        return float(0.5 * np.abs(Yh).sum() + self._xi() / 2 * e @ e)


class ComponentwiseL2(SparseComponents):
    """The L2 variant of §3.2: ``min ½ Σ_d ||Ŷ^d||²₂ + ξ/2 ||e||²`` under the constraints of
    eq. (20).

    It has a closed form: in the reduced coordinates ``||Ŷ^d||₂ = ||z_d||`` (``V_d``
    orthonormal) and, with ``z = U_B θ`` (coupling basis) and ``b`` eliminated,
    ``(I + ξ U_B'V'P V U_B) θ = ξ U_B'V'P Y`` (``V = [V_1 … V_P]``, ``P = I - 11'/N``).  The
    duals follow from stationarity of the Lagrangian (cvxpy's sign convention):
    ``λ_fit = -ξe``, ``λ_components,d = ξe - Ŷ^d``, ``λ_coupling = Z' blockdiag(V_d)' λ_components``.

    The chapter notes that component selection then needs a significance test (no exact
    zeros); :meth:`~SparseComponents.selected` applies the same norm threshold as for L1.
    """

    name: ClassVar[str] = "componentwise_l2"
    reference = Reference(CW_KEY, CW_PAPER, {"problem": "(20) with the L2 norm (§3.2)"})
    has_closed_form = True

    def _build(self) -> BuiltProblem:
        xi = cp.Parameter(nonneg=True, name="xi")
        vars_, cons, yhat = self._train_part()
        objective = cp.Minimize(0.5 * cp.sum_squares(yhat) + xi / 2 * cp.sum_squares(vars_["e"]))
        return BuiltProblem(objective, cons, vars=vars_, params={"xi": xi})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        Yh, b = self._yhat_b(values)
        e = self.targets() - Yh.sum(axis=1) - b
        return float(0.5 * np.sum(Yh * Yh) + self._xi() / 2 * e @ e)

    def closed_form(self) -> Solution:
        if self.form != "reduced":
            raise InputError("the closed form is written in the reduced coordinates; use form='reduced'")
        B, y, xi = self.basis, self.targets(), self._xi()
        V = B.V_stack()
        PVU = V @ B.UB
        PVU -= PVU.mean(axis=0)
        Py = y - y.mean()
        H = np.eye(B.UB.shape[1]) + xi * PVU.T @ PVU
        theta = np.linalg.solve(H, xi * PVU.T @ Py)
        z = B.UB @ theta
        Yh = B.outputs(z)
        b = float(np.mean(y - Yh.sum(axis=1)))
        e = y - Yh.sum(axis=1) - b
        return self._closed_values(z, Yh, b, e, xi * e[:, None] - Yh, -xi * e)


class ComponentwiseFusion(SparseComponents):
    """Fusion of componentwise LS-SVMs and validation for component selection, eq. (30).

    Parameters
    ----------
    X, y :
        Training data ``D_N``.
    X_val :
        Validation inputs ``X^(v)`` (``n × D``).  Eq. (30) uses the validation *inputs* only:
        ``Y^(v)`` does not appear in it, so none is taken.
    kernel, xi, rank_tol, coupling_tol, form :
        As in :class:`ComponentwiseL1`.

    Notes
    -----
    ::

        min ½ Σ_d ||Ŷ^(v)d||_1 + ½ Σ_d ||Ŷ^d||_1 + ξ/2 ||e||²
        s.t. the constraints of eq. (20)  and  Ω^(v)dα = Ŷ^(v)d  (d = 1..P)

    with ``Ω^(v)d_jk = K^d(x_j^(v)d, x_k^d)``.  In the reduced form the validation outputs are
    ``Ŷ^(v)d = E_d z_d`` (:meth:`ComponentBasis.features`), the kernel expansion
    ``K^d(X^(v), X) A[:, d]`` of the same component function that gives ``Ŷ^d`` on the
    training points.
    """

    name: ClassVar[str] = "componentwise_fusion"
    reference = Reference(CW_KEY, CW_PAPER, {"problem": "(30)"})
    compare = ("yhat", "yhat_val", "b", "e")

    def __init__(self, X: Any, y: Any, X_val: Any, *, kernel: Any = None, xi: Any = 1.0,
                 rank_tol: float = 1e-10, coupling_tol: float | None = None,
                 form: str = "reduced"):
        super().__init__(X, y, kernel=kernel, xi=xi, rank_tol=rank_tol,
                         coupling_tol=coupling_tol, form=form)
        self.X_val = X_val

    def _val_inputs(self) -> np.ndarray:
        Xv = as_matrix(self.X_val, name="X_val")
        if Xv.shape[1] != self.inputs().shape[1]:
            raise InputError(f"X_val has {Xv.shape[1]} features, X has {self.inputs().shape[1]}")
        return Xv

    def validate(self) -> None:
        super().validate()
        self._val_inputs()

    def _build(self) -> BuiltProblem:
        xi = cp.Parameter(nonneg=True, name="xi")
        vars_, cons, yhat = self._train_part()
        Xv = self._val_inputs()
        yv = cp.Variable((Xv.shape[0], self.n_components), name="yhat_val")
        if self.form == "reduced":
            import scipy.sparse as sp

            E = sp.block_diag(self.basis.features(Xv), format="csr")
            if "theta" in vars_:
                cons["validation"] = cp.vec(yv, order="F") == (E @ self.basis.UB) @ vars_["theta"]
            else:
                cons["validation"] = cp.vec(yv, order="F") == E @ vars_["z"]
        else:
            Ev = np.vstack([self.component_gram(d, Xv) for d in range(self.n_components)])
            cons["validation"] = cp.vec(yv, order="F") == Ev @ vars_["alpha"]
        vars_["yhat_val"] = yv
        t = _abs_epigraph(vars_, cons, yhat, "t")
        tv = _abs_epigraph(vars_, cons, yv, "t_val")
        objective = cp.Minimize(0.5 * cp.sum(tv) + 0.5 * cp.sum(t) + xi / 2 * cp.sum_squares(vars_["e"]))
        return BuiltProblem(objective, cons, vars=vars_, params={"xi": xi})

    def _val_outputs(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        Xv = self._val_inputs()
        if self.form == "reduced":
            E = self.basis.features(Xv)
            z = values["z"] if "z" in values else self.basis.UB @ np.asarray(values["theta"])
            return np.column_stack([Ed @ zd for Ed, zd in zip(E, self.basis.blocks(np.asarray(z)))])
        alpha = np.asarray(values["alpha"])
        return np.column_stack([self.component_gram(d, Xv) @ alpha for d in range(self.n_components)])

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``½ Σ_d ||Ŷ^(v)d||_1 + ½ Σ_d ||Ŷ^d||_1 + ξ/2 ||e||²`` (eq. 30)."""
        Yh, b = self._yhat_b(values)
        e = self.targets() - Yh.sum(axis=1) - b
        Yv = self._val_outputs(values)
        return float(0.5 * np.abs(Yv).sum() + 0.5 * np.abs(Yh).sum() + self._xi() / 2 * e @ e)

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, xi: float = 1.0,
                        sigma2: float = 1.0, n_val: int | None = None, **kwargs: Any):
        from lssvm_cvx import problems

        n_val = max(n // 2, 2) if n_val is None else n_val
        ds = problems.get_problem("additive10", n_train=n + n_val, n_test=0, seed=seed, **kwargs)
        return cls(ds.X[:n], ds.y[:n], ds.X[n:], kernel=Componentwise(RBF(sigma2)), xi=xi)
