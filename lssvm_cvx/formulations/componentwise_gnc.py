"""Smoothly thresholding penalty (STP) for sparse components, eq. (24)-(25), solved by the
weighted graduated non-convexity algorithm (Algorithm 1 with eq. 41-43) — componentwise
LS-SVM chapter, §3.3 and §5.1.

Problem (25) with any penalty of :mod:`lssvm_cvx.terms.penalties` (``ℓ = STP`` by default)::

    min  J(Ŷ, e) = ½ Σ_d ℓ(s_d) + ½ Σ_k e_k²,    s_d = ||Ŷ^d||_1
    s.t. the constraints of eq. (20)  (1'α = 0, Ωα + 1b + e = Y, Ω^dα = Ŷ^d).

Non-convex for STP / hard threshold / SCAD (convex for L1, where it is eq. 20 with λ = 1/ξ).

Algorithm 1 deforms a least-squares cost into ``J``.  Here the deformed part is the penalty
(the data term ``½||e||²`` is already quadratic)::

    J_ζ = ½ Σ_d [(1 - ζ) ℓ(s_d) + ζ ρ ||Ŷ^d||²₂] + ½ ||e||²,   ζ = 1 → 0,

``ζ = 1`` being the L2 variant of §3.2 (Algorithm 1, step 1: the least-squares solution).
The driver also offers the classical GNC start for a concave penalty, the tangent ``ℓ'(0) s_d``
(``start="l1"``); see :func:`lssvm_cvx.selection.gnc.gnc` for how the two paths differ on the chapter's example.
At a fixed ζ each step replaces ``J_ζ`` by the weighted least-squares cost
``½ Σ_{d,k} ν_{dk}² (Ŷ^d_k)² + ½||e||²`` with the weights of eq. (43) — value and slope of the
penalty matched at the current point.  Applied to the composite ``ℓ(Σ_k |ŷ_k|)`` this gives::

    ν_{dk}² = (1 - ζ) ℓ'(s_d) / (2 |ŷ_{dk}|_ε) + ζ ρ,   |u|_ε = sqrt(u² + ε²),

where the absolute value is smoothed (``s_d = Σ_k (|ŷ_{dk}|_ε - ε)``) so that weights stay
finite at exact zeros.  Because every penalty here is concave and non-decreasing in ``s`` and
``|u|_ε`` is concave in ``u²``, the weighted quadratic is a majorizer of ``J_ζ`` touching it at
the current point, so each step cannot increase ``J_ζ`` (majorize-minimize): the history is
monotone within every stage, which ``test_componentwise_gnc.py`` checks.  A fixed point of the
reweighting is a stationary point of the (smoothed) objective; the driver stops the last
stage (ζ = 0) when the relative projected gradient is below ``tol_stationarity``.

The formulation object :class:`ComponentwiseSTP` is the weighted least-squares step (its
builder has the weights ``nu`` as a DPP parameter; its closed form is the step's linear
system); :func:`lssvm_cvx.selection.gnc.gnc` is the driver loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..exceptions import HyperparameterError, NotPSDError, NotSupportedError, SolverError
from ..linalg.cholesky import Cholesky
from ..terms.penalties import Penalty, make_penalty
from ..solution import Solution
from ..checks import check_grid, check_option, check_positive
from .base import BuiltProblem, Reference
from .componentwise import CW_KEY, CW_PAPER
from .componentwise_sparse import SparseComponents

__all__ = ["ComponentwiseSTP", "kernel_dof_weights", "component_dimensions"]

#: first (convex) stage of the graduated non-convexity (:func:`lssvm_cvx.selection.gnc.gnc`):
#: "l2" = least squares (Algorithm 1), "l1" = the penalty's tangent at 0
STARTS = ("l2", "l1")


def _l1(start: str) -> bool:
    """Whether the relaxation starts from the ℓ1 penalty (else the weighted ℓ2 one)."""
    return check_option(start, STARTS, "start") == "l1"


class ComponentwiseSTP(SparseComponents):
    """STP component selection, eq. (24)-(25); the weighted least-squares step of Algorithm 1.

    Parameters
    ----------
    X, y :
        Training data.
    kernel :
        Componentwise kernel (e.g. ``Componentwise([RBF(s2), Linear()])`` for the chapter's
        "STP with RBF and lin" candidates).
    penalty :
        ``"stp"`` (default), ``"l1"``, ``"hard"``, ``"scad"`` or a
        :class:`~lssvm_cvx.penalties.Penalty`.
    lam, a :
        λ > 0 and a > 0 of the penalty (a = 3.7 as in the chapter).
    eps :
        Smoothing of ``|u|`` in the weights (absolute; default ``1e-6 · std(y)``).
    nu :
        Weights ``ν`` (``N × P``) of the weighted least-squares step (default ones: Algorithm 1
        step 2, ``ν^(0) = 1``).
    rank_tol, coupling_tol, form :
        See :class:`~.componentwise.ComponentBasis` and
        :class:`~.componentwise_sparse.ComponentwiseL1`.
    start_weights :
        Positive weights ``w_d`` (length ``P``) of the least-squares start of the deformation
        (``start="l2"``): ``J_ζ = ½ Σ_d [(1 - ζ) ℓ(s_d) + ζ ρ w_d ||Ŷ^d||²] + ½||e||²``.  The
        objective of eq. (25) (ζ = 0) does not depend on them; they choose which local minimum
        GNC reaches.  ``None`` (default): all ones, Algorithm 1 as printed.
        :func:`kernel_dof_weights` gives the weights the estimators use when candidate
        kernels of different types compete.

    Notes
    -----
    Builder (the step): ``min ½ Σ_{d,k} (ν_{dk} Ŷ^d_k)² + ½ ||e||²`` under eq. (20)'s
    constraints, ``nu`` a DPP parameter.  Closed form: in the reduced coordinates
    ``||ν_d ∘ Ŷ^d||² = z_d' V_d' diag(ν_d²) V_d z_d`` and, with ``b`` eliminated,
    ``H z = V'PY`` on the coupling subspace (``H = blockdiag(V_d' diag(ν_d²) V_d) + V'PV``),
    solved on ``z = U_B θ`` or, when the coupling removes few directions, with the constraint
    ``Z'z = 0`` by a bordered Cholesky solve.
    """

    name: ClassVar[str] = "componentwise_stp"
    reference = Reference(CW_KEY, CW_PAPER, {"penalty": "(24)", "problem": "(25)",
                                             "GNC": "Algorithm 1", "reweighting": "(41)-(43)"})
    has_closed_form = True

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, penalty: Any = "stp",
                 lam: float = 1.0, a: float = 3.7, eps: float | None = None, nu: Any = None,
                 norm_scale: float = 1.0, rank_tol: float = 1e-10,
                 coupling_tol: float | None = None, form: str = "reduced",
                 start_weights: Any = None):
        super().__init__(X, y, kernel=kernel, xi=1.0, rank_tol=rank_tol,
                         coupling_tol=coupling_tol, form=form)
        self.penalty = penalty
        self.lam = lam
        self.a = a
        self.eps = eps
        self.nu = nu
        self.norm_scale = norm_scale
        self.start_weights = start_weights
        self._step_cache: dict[str, Any] | None = None

    # --- parameters ------------------------------------------------------------------------
    @property
    def penalty_(self) -> Penalty:
        return make_penalty(self.penalty, lam=self.lam, a=self.a)

    def _eps(self) -> float:
        if self.eps is None:
            s = float(np.std(self.targets()))
            return 1e-6 * (s if s > 0 else 1.0)
        return check_positive(self.eps, "eps")

    def _nu(self) -> np.ndarray:
        if self.nu is None:
            return np.ones((self.n, self.n_components))
        nu = check_grid(self.nu, "nu", allow_zero=True, flat=True)
        if np.shape(self.nu) != (self.n, self.n_components):
            raise HyperparameterError(
                f"nu must be a finite non-negative ({self.n}, {self.n_components}) array")
        return nu.reshape(self.n, self.n_components)

    def _ws(self) -> np.ndarray:
        """The weights ``w_d`` of the least-squares start (ones by default)."""
        if self.start_weights is None:
            return np.ones(self.n_components)
        w = check_grid(self.start_weights, "start_weights", flat=True)
        if w.shape != (self.n_components,):
            raise HyperparameterError(
                f"start_weights must be {self.n_components} finite positive numbers")
        return w

    def validate(self) -> None:
        self.targets()
        self.penalty_
        self._eps()
        check_positive(self.norm_scale, "norm_scale")
        self._nu()
        self._ws()
        check_option(self.form, ("reduced", "printed"), "form")

    def parameter_values(self) -> dict[str, Any]:
        return {"nu": self._nu()}

    # --- the weighted least-squares step -------------------------------------------------------
    def _build(self) -> BuiltProblem:
        nu = cp.Parameter((self.n, self.n_components), nonneg=True, name="nu")
        vars_, cons, yhat = self._train_part()
        objective = cp.Minimize(0.5 * cp.sum_squares(cp.multiply(nu, yhat))
                                + 0.5 * cp.sum_squares(vars_["e"]))
        return BuiltProblem(objective, cons, vars=vars_, params={"nu": nu})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """NumPy twin of the step's objective ``½ Σ (ν Ŷ)² + ½ ||e||²``."""
        Yh, b = self._yhat_b(values)
        e = self.targets() - Yh.sum(axis=1) - b
        nu = self._nu()
        return float(0.5 * np.sum((nu * Yh) ** 2) + 0.5 * e @ e)

    def _step_data(self) -> dict[str, Any]:
        """Everything of the step's linear system that does not depend on ν (computed once)."""
        data = self._step_cache
        if data is None:
            if self.form != "reduced":
                raise NotSupportedError("the closed-form step is written in the reduced "
                                        "coordinates; use form='reduced' or a cvxpy solver")
            B, y = self.basis, self.targets()
            PV = B.V_stack()
            PV = PV - PV.mean(axis=0)
            Py = y - y.mean()
            q, k = B.UB.shape[1], B.Z.shape[1]
            theta_path = q * q <= B.R * B.R / 3 or k > q
            data = {"PV": PV, "rhs": PV.T @ Py, "theta": theta_path}
            if theta_path:
                PVU = PV @ B.UB
                data["G0"] = PVU.T @ PVU                   # U_B' V'PV U_B
                data["rhs_t"] = B.UB.T @ data["rhs"]
            else:
                G0 = PV.T @ PV
                if k:
                    G0 += B.Z @ B.Z.T                      # harmless on Z'z = 0, makes H PD
                data["G0"] = G0
            self._step_cache = data
        return data

    def solve_step(self, nu2: np.ndarray) -> tuple[np.ndarray, float]:
        """``(z, b)`` minimising ``½ Σ ν² Ŷ² + ½||e||²`` for squared weights ``nu2``
        (``N × P``) — one Cholesky solve (Algorithm 1, step 4)."""
        B, data = self.basis, self._step_data()
        y = self.targets()
        blocks = [V.T @ (w[:, None] * V) for V, w in zip(B.V, np.asarray(nu2).T)]
        if data["theta"]:
            H = data["G0"].copy()
            o = B.offsets
            for d, C in enumerate(blocks):
                Ud = B.UB[o[d]:o[d + 1]]
                H += Ud.T @ C @ Ud
            theta = _spd_solve(H, data["rhs_t"])
            z = B.UB @ theta
        else:
            H = data["G0"].copy()
            o = B.offsets
            for d, C in enumerate(blocks):
                H[o[d]:o[d + 1], o[d]:o[d + 1]] += C
            Z = B.Z
            sol = _spd_solve(H, np.column_stack([data["rhs"], Z]) if Z.shape[1] else data["rhs"][:, None])
            v = sol[:, 0]
            if Z.shape[1]:
                W = sol[:, 1:]
                mu = np.linalg.solve(Z.T @ W, Z.T @ v)
                v = v - W @ mu
            z = v
        Yh = B.outputs(z)
        b = float(np.mean(y - Yh.sum(axis=1)))
        return z, b

    def closed_form(self) -> Solution:
        nu = self._nu()
        z, b = self.solve_step(nu * nu)
        B, y = self.basis, self.targets()
        Yh = B.outputs(z)
        e = y - Yh.sum(axis=1) - b
        return self._closed_values(z, Yh, b, e, e[:, None] - nu * nu * Yh, -e)

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, lam: float = 1.0, sigma2: float = 1.0,
                        **kwargs: Any) -> "ComponentwiseSTP":
        """The additive example with random step weights ``nu`` (for the harness)."""
        from lssvm_cvx import problems

        from ..kernels import RBF, Componentwise

        ds = problems.get_problem("additive10", n_train=n, n_test=0, seed=seed, **kwargs)
        nu = np.random.default_rng(seed + 1).uniform(0.1, 3.0, (n, ds.X.shape[1]))
        return cls(ds.X, ds.y, kernel=Componentwise(RBF(sigma2)), lam=lam, nu=nu)

    # --- the penalised objective and its stationarity ----------------------------------------
    def smoothed_norms(self, Yh: np.ndarray) -> np.ndarray:
        """``s_d = Σ_k (sqrt(ŷ²+ε²) - ε)`` (→ ``||Ŷ^d||_1`` as ε → 0)."""
        eps = self._eps()
        return np.sum(np.sqrt(Yh * Yh + eps * eps) - eps, axis=0) / self.norm_scale

    def relaxed_objective(self, z: np.ndarray, b: float, zeta: float = 0.0, rho: float = 1.0,
                          start: str = "l2") -> float:
        """``J_ζ = ½ Σ_d [(1-ζ) ℓ(s_d) + ζ ρ ||Ŷ^d||²] + ½ ||Y - Σ_d Ŷ^d - b||²``; ``ζ = 0`` is
        the objective of eq. (25) (with the smoothed ``s_d``)."""
        Yh = self.basis.outputs(z)
        e = self.targets() - Yh.sum(axis=1) - b
        sn = self.smoothed_norms(Yh)
        pen = self.penalty_.value(sn)
        if _l1(start):
            lin = self.penalty_.derivative(0.0) * sn
            return float(0.5 * np.sum((1 - zeta) * pen + zeta * lin) + 0.5 * e @ e)
        return float(0.5 * np.sum((1 - zeta) * pen) + 0.5 * zeta * rho * np.sum(self._ws() * Yh * Yh)
                     + 0.5 * e @ e)

    def weights(self, z: np.ndarray, zeta: float = 0.0, rho: float = 1.0,
                start: str = "l2") -> np.ndarray:
        """Squared weights ``ν²`` (``N × P``) of eq. (43) for ``J_ζ`` at ``z``."""
        Yh = self.basis.outputs(z)
        eps = self._eps()
        slope = self.penalty_.derivative(self.smoothed_norms(Yh)) / self.norm_scale
        if _l1(start):
            slope = (1 - zeta) * slope + zeta * self.penalty_.derivative(0.0) / self.norm_scale
            return slope[None, :] / (2.0 * np.sqrt(Yh * Yh + eps * eps))
        return ((1 - zeta) * slope[None, :] / (2.0 * np.sqrt(Yh * Yh + eps * eps))
                + zeta * rho * self._ws()[None, :])

    def gradient(self, z: np.ndarray, zeta: float = 0.0, rho: float = 1.0,
                 start: str = "l2") -> np.ndarray:
        """Gradient of ``J_ζ`` (``b`` at its optimum) with respect to ``z``."""
        B, y = self.basis, self.targets()
        Yh = B.outputs(z)
        e = y - Yh.sum(axis=1)
        e -= e.mean()
        eps = self._eps()
        slope = self.penalty_.derivative(self.smoothed_norms(Yh)) / self.norm_scale
        if _l1(start):
            slope = (1 - zeta) * slope + zeta * self.penalty_.derivative(0.0) / self.norm_scale
            dYh = 0.5 * slope[None, :] * Yh / np.sqrt(Yh * Yh + eps * eps)
        else:
            dYh = ((1 - zeta) * 0.5 * slope[None, :] * Yh / np.sqrt(Yh * Yh + eps * eps)
                   + zeta * rho * self._ws()[None, :] * Yh)
        dYh = dYh - e[:, None]
        return np.concatenate([V.T @ dYh[:, d] for d, V in enumerate(B.V)])

    def stationarity(self, z: np.ndarray, zeta: float = 0.0, rho: float = 1.0,
                     start: str = "l2") -> float:
        """Relative projected gradient ``||U_B' ∇J_ζ|| / ||U_B' V'PY||`` (0 at a stationary
        point of ``J_ζ`` on the coupling subspace)."""
        B, y = self.basis, self.targets()
        g = B.UB.T @ self.gradient(z, zeta, rho, start)
        PV = B.V_stack()
        scale = np.linalg.norm(B.UB.T @ (PV.T @ (y - y.mean())))
        return float(np.linalg.norm(g) / (scale if scale > 0 else 1.0))


def component_dimensions(basis: Any, rank_tol: float = 1e-10) -> np.ndarray:
    """Number of free output directions of every component beyond the constant: the rank of
    the centred component space ``(I - 11'/N) V_d Λ_d^{1/2}`` (singular values² above
    ``rank_tol`` × the largest), at least 1.  The constant is not counted because the bias
    ``b`` of eq. (25) absorbs it."""
    out = []
    for V, lv in zip(basis.V, basis.lam):
        M = V * np.sqrt(lv)
        M = M - M.mean(axis=0)
        s = np.linalg.svd(M, compute_uv=False)
        out.append(max(1, int(np.sum(s * s > rank_tol * float(np.max(lv))))) if s.size else 1)
    return np.asarray(out, dtype=np.float64)


def kernel_dof_weights(basis: Any, kernel_names: Any, rank_tol: float = 1e-10) -> np.ndarray:
    """Start weights ``w_d`` of GNC when candidate kernels of different types compete
    (componentwise LS-SVM chapter, §5.2 "STP with RBF and lin").

    Why (measured in ``benchmarks/componentwise_defaults.py``).  Inside its span a component
    is unpenalized (eq. 25 only charges ``ℓ(||Ŷ^d||_1)``, which saturates at ≈ λ/2 for any
    large component), so a 1-D RBF component is a free regression on ``r_d - 1`` ≈ 4-14
    directions and a linear one on 1, and the RBF span contains the linear function.
    Algorithm 1 starts from the least-squares cost ``ρ Σ_d ||Ŷ^d||²``: a ridge in orthonormal
    output coordinates, which splits a linear effect evenly over the linear and the RBF
    candidate of its input, and the RBF one also fits noise.  Both pieces are then large,
    both saturate, and the reweighting keeps the RBF one: the literal start picks RBF for
    every input, linear or not.  Weighting the start by the dimension of each candidate,
    ``ρ Σ_d w_d ||Ŷ^d||²``, gives every candidate the same prior budget ``E||f^d||²`` spread
    over its directions (the ridge of a Gram normalised to unit trace per direction, the
    usual way to let kernels of different types compete in multiple-kernel learning; the
    group lasso's ``√p_g`` weights serve the same purpose), so a linear effect starts in the
    linear candidate and a nonlinear one in the RBF candidate.  The objective of eq. (25) is
    unchanged: only the local minimum GNC reaches differs.

    The dimension of a kernel type is the mean over its components of
    :func:`component_dimensions`, so all components of one kernel get the same weight (with a
    single candidate kernel every weight is 1: Algorithm 1 as printed); the weights are
    divided by the largest.

    Parameters
    ----------
    basis : ComponentBasis
        The factored components (:class:`~.componentwise_basis.ComponentBasis`).
    kernel_names : sequence of str
        Kernel name of every component (the second entry of ``Componentwise.labels``).
    rank_tol : float
        Tolerance of :func:`component_dimensions`.

    Returns
    -------
    ndarray of shape (P,)
        Weights in (0, 1].
    """
    names = [str(k) for k in kernel_names]
    if len(names) != basis.P:
        raise HyperparameterError(f"{len(names)} kernel names for {basis.P} components")
    dims = component_dimensions(basis, rank_tol)
    per = {k: float(np.mean([d for d, n in zip(dims, names) if n == k])) for k in set(names)}
    w = np.array([per[n] for n in names])
    return w / w.max()


def _spd_solve(H: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Cholesky solve of an SPD system; a vanishing ridge is added only if the factorization
    fails (flat directions when a penalty has zero slope): the package's policy,
    :meth:`~lssvm_cvx.linalg.cholesky.Cholesky.factor_ridged`."""
    try:
        return Cholesky.factor_ridged(H, name="weighted least-squares system").solve(rhs)
    except NotPSDError:
        raise SolverError("weighted least-squares step: the system is singular",
                          solver="closed_form", status="singular") from None
