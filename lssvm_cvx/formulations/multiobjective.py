"""Multiobjective model selection for kernel ridge (KRR) and kernel principal component
regression (KPCR): You, Benitez-Quiroz & Martinez (2014).

Two objectives are traded off (§II, §III):

* model fit ``E_f = (1/2n) Σ_i (y_i - f(x_i))²`` (eq. 12),
* model complexity ``E_c``: the roughness of eq. (13)/(16)/(17)
  (:mod:`lssvm_cvx.kernels.roughness`) or the L2 norm ``α'Kα`` (eq. 22, Table VI).

θ-space selection (the paper's method)
--------------------------------------
:class:`KRRObjectives` and :class:`KPCRObjectives` evaluate ``E_f(θ)``, ``E_c(θ)`` and their
gradients for

* KRR, eq. (33): ``α = (K + λI)^{-1} y``, θ = ``(log σ², log λ)`` (RBF) or ``log λ``
  (polynomial, degree enumerated 1..6), gradients of §IV-A by the adjoint of
  ``(K + λI)``: one extra triangular solve pair per gradient;
* KPCR, eq. (35): ``α = Σ_{j≤m} λ_j^{-1} v_j v_j' y`` with the eigenpairs of the centred Gram
  ``K̃ = CKC`` and ``m = m(r)`` the number of components whose cumulative share of
  ``Σλ_j`` stays ≤ r (§IV-B), θ = ``(log σ², r)`` or ``r``.  ``∂α/∂σ²`` uses the eigenvalue and
  eigenvector derivatives of §IV-B (``∂λ_j = v_j'∂K̃v_j``, ``∂v_j = -(K̃ - λ_jI)^+ ∂K̃ v_j``),
  summed in closed form as the Daleckii–Krein formula ``V(Γ ∘ V'∂K̃V)V'y``; ``∂α/∂r`` is the
  paper's central difference ``(α(r+Δr) - α(r-Δr))/2Δr``.

:func:`select_model` runs Algorithm 1 (ideal point, weights eq. 28, ε* eq. 27, θ* eq. 26)
with the modified ε-constraint over θ solved by SLSQP
(:func:`lssvm_cvx.pareto.trace_front_nlp`), the plain ε-constraint (eq. 24), the sum (eq. 29)
and product (eq. 30-31) criteria with 5-fold CV for ν and γ, and the 10-fold CV and GCV grid
baselines of §V.

α-space selection (beyond the paper, convex)
--------------------------------------------
For a fixed kernel, ``E_f`` is a convex quadratic of α and the roughness is a non-convex
quadratic whose convex majorant ``E_c⁺`` (gradient-norm part plus the PSD part of the
curvature term) is :meth:`Roughness.convex_majorant`.  :class:`ParetoAlphaKRR` is the modified
ε-constraint in α (a DPP second-order cone program, ε a :class:`cvxpy.Parameter`);
:class:`WeightedSumAlphaKRR` is the sum criterion in α, a linear system with a closed form.
With ``complexity="l2"`` the front is exactly the KRR path: the weighted-sum point for ν is
KRR with ``λ = 2nν`` (tested).

Paper slips handled here (see also :mod:`lssvm_cvx.kernels.roughness`)
----------------------------------------------------------------------
* §IV-A names the fit gradient ``∂E_c/∂σ`` (it is ``∂E_R/∂σ``, the fit term) and writes
  ``∂K/∂σ = K∘D/σ³`` for ``exp(-D/2σ²)`` — correct for that parametrisation; we use
  ``σ² = sigma2`` with ``exp(-D/σ²)``, so ``∂K/∂σ² = K∘D/σ⁴``.
* §IV-B differentiates the eigenpairs of ``K`` but eq. (35) uses the centred ``K̃``: the
  derivatives are those of ``K̃`` (``∂K̃ = C ∂K C``).
* E_f: eq. (15) drops the ``1/2n`` of eq. (12); we keep eq. (12) (the scale matters for the
  sum and product criteria and for the weights of eq. 28).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
import scipy.linalg as sla
from scipy.optimize import minimize

from .._validation import as_matrix, as_targets
from ..exceptions import HyperparameterError
from ..kernels.base import RBF, Polynomial, sq_dists
from ..kernels.roughness import PolynomialRoughness, RBFRoughness, Roughness
from ..linalg import Cholesky
from ..solution import Solution
from .base import BuiltProblem, Formulation, Reference

__all__ = [
    "MOBJ_PAPER",
    "KRRObjectives",
    "KPCRObjectives",
    "kpcr_components",
    "check_r",
    "sigma2_range",
    "Selection",
    "select_model",
    "METHODS",
    "ParetoAlphaKRR",
    "EpsAlphaKRR",
    "WeightedSumAlphaKRR",
    "alpha_front",
]

MOBJ_PAPER = ("You, Benitez-Quiroz & Martinez (2014), Multiobjective optimization for model "
              "selection in kernel methods in regression, IEEE TNNLS 25(10):1879-1893")
_KEY = "multiobjective-model-selection-you-2014"

#: model-selection methods of :func:`select_model`
METHODS = ("modified_eps", "eps", "sum", "product", "cv", "gcv")

LAM_BOUNDS = (1e-5, 1e4)  # §V: λ ∈ {10^-5, ..., 10^4}
R_BOUNDS = (0.8, 1.0)  # §V: r ∈ [0.8, 1]


def check_r(r: Any) -> float:
    """``r ∈ (0, 1]`` (share of the centred Gram's trace kept by KPCR)."""
    if not isinstance(r, Real) or isinstance(r, bool) or not np.isfinite(r) or not 0 < r <= 1:
        raise HyperparameterError(f"r must be a number in (0, 1], got {r!r}")
    return float(r)


def _check_lam(lam: Any) -> float:
    if not isinstance(lam, Real) or isinstance(lam, bool) or not np.isfinite(lam) or lam <= 0:
        raise HyperparameterError(f"lam (lambda) must be a finite number > 0, got {lam!r}")
    return float(lam)


def _check_degree(degree: Any) -> int:
    if not isinstance(degree, (int, np.integer)) or isinstance(degree, bool) or degree < 1:
        raise HyperparameterError(f"degree must be an integer >= 1, got {degree!r}")
    return int(degree)


def _check_complexity(c: str) -> str:
    if c not in ("roughness", "l2"):
        raise HyperparameterError(f"complexity must be 'roughness' or 'l2', got {c!r}")
    return c


def _check_kernel(k: str) -> str:
    if not isinstance(k, str) or k.lower() not in ("rbf", "poly", "polynomial"):
        raise HyperparameterError(f"kernel must be 'rbf' or 'poly', got {k!r}")
    return "rbf" if k.lower() == "rbf" else "poly"


def sigma2_range(X: np.ndarray, n_max: int = 1000) -> tuple[float, float]:
    """σ² bounds from §V: the paper's σ (of ``exp(-D/2σ²)``) in ``[μ - 2δ, μ + 2δ]`` with μ, δ
    the mean and std of the pairwise distances, mapped to ``σ² = 2σ²_paper``.  The lower end is
    clipped at ``μ/10`` when ``μ - 2δ`` is not positive."""
    if X.shape[0] > n_max:
        X = X[np.random.default_rng(0).choice(X.shape[0], n_max, replace=False)]
    d = np.sqrt(sq_dists(X)[np.triu_indices(X.shape[0], 1)])
    mu, delta = float(d.mean()), float(d.std())
    lo = max(mu - 2 * delta, mu / 10)
    hi = mu + 2 * delta
    return 2 * lo**2, 2 * hi**2


# --------------------------------------------------------------------------------- KRR (θ)
class _Objectives:
    """Shared evaluation cache: ``evaluate(θ)`` computes E_f, E_c and both gradients once."""

    def __init__(self, X: Any, y: Any, kernel: str = "rbf", *, degree: int = 2, t: float = 1.0,
                 complexity: str = "roughness"):
        self.X = as_matrix(X, min_samples=2)
        self.y = as_targets(y, self.X.shape[0])
        self.n = self.X.shape[0]
        self.kernel = _check_kernel(kernel)
        self.degree = _check_degree(degree)
        if not isinstance(t, Real) or not np.isfinite(t) or t < 0:
            raise HyperparameterError(f"t must be a finite number >= 0, got {t!r}")
        self.t = float(t)
        self.complexity = _check_complexity(complexity)
        self._last: tuple[bytes, dict] | None = None
        self._poly: PolynomialRoughness | None = None
        self.nfev = 0

    @property
    def dim(self) -> int:
        """Length of θ: (log σ², hyperparameter) for the RBF kernel, the hyperparameter alone
        for the polynomial kernel (degree fixed)."""
        return 2 if self.kernel == "rbf" else 1

    def _rough(self, sigma2: float | None) -> Roughness:
        if self.kernel == "rbf":
            return RBFRoughness(self.X, float(sigma2))
        if self._poly is None:
            self._poly = PolynomialRoughness(self.X, self.degree, self.t)
        return self._poly

    def evaluate(self, theta: Any) -> dict[str, Any]:
        theta = np.asarray(theta, dtype=np.float64).reshape(-1)
        key = theta.tobytes()
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        out = self._evaluate(theta)
        self.nfev += 1
        self._last = (key, out)
        return out

    def E_f(self, theta: Any) -> tuple[float, np.ndarray]:
        """``(E_f(θ), ∇_θ E_f)``, the callable form used by :mod:`lssvm_cvx.pareto`."""
        o = self.evaluate(theta)
        return o["E_f"], o["grad_f"]

    def E_c(self, theta: Any) -> tuple[float, np.ndarray]:
        """``(E_c(θ), ∇_θ E_c)``."""
        o = self.evaluate(theta)
        return o["E_c"], o["grad_c"]

    def _complexity(self, rough: Roughness, beta: np.ndarray, yv: np.ndarray, b: float,
                    K: np.ndarray) -> tuple[float, np.ndarray, float]:
        """E_c at coefficients β and bias b, its β-gradient and its b-gradient."""
        if self.complexity == "l2":
            Kb = K @ beta
            return float(beta @ Kb), 2 * Kb, 0.0
        return rough.E_c(beta, yv, b), rough.grad_alpha(beta, yv, b), rough.grad_b(beta)


class KRRObjectives(_Objectives):
    """``E_f`` and ``E_c`` of kernel ridge regression (eq. 33) as functions of θ, with gradients.

    θ = ``(log σ², log λ)`` for ``kernel="rbf"`` (``k = exp(-||x-z||²/σ²)``) and ``(log λ,)``
    for ``kernel="poly"`` (``(x'z + t)^degree``, degree fixed).  ``y`` should be centred (the
    model has no bias, as eq. 33).

    ``evaluate(θ)`` returns a dict with ``alpha``, ``E_f``, ``E_c``, ``grad_f``, ``grad_c``
    (gradients in θ, i.e. in the logarithms).
    """

    def params(self, theta: Any) -> dict[str, float]:
        theta = np.asarray(theta, dtype=np.float64).reshape(-1)
        if self.kernel == "rbf":
            return {"sigma2": float(np.exp(theta[0])), "lam": float(np.exp(theta[1]))}
        return {"lam": float(np.exp(theta[0])), "degree": self.degree}

    def theta(self, *, lam: float, sigma2: float | None = None) -> np.ndarray:
        lam = _check_lam(lam)
        if self.kernel == "rbf":
            if sigma2 is None or sigma2 <= 0:
                raise HyperparameterError(f"sigma2 must be > 0, got {sigma2!r}")
            return np.log([sigma2, lam])
        return np.log([lam])

    def _evaluate(self, theta):
        p = self.params(theta)
        lam = p["lam"]
        rough = self._rough(p.get("sigma2"))
        K, y, n = rough.K, self.y, self.n
        H = K.copy()
        H[np.diag_indices_from(H)] += lam
        ch = Cholesky.factor(H, name="K + lam I")  # warns (ConditioningWarning) when ill-conditioned
        c = (ch.c, ch.lower)
        alpha = sla.cho_solve(c, y, check_finite=False)
        r = y - K @ alpha  # = λα
        E_f = float(r @ r / (2 * n))
        E_c, gc_a, _ = self._complexity(rough, alpha, y, 0.0, K)
        gf_a = -(K @ r) / n
        # adjoint solves: dE/dλ = -v'α, dE/dσ² (implicit part) = -v'(∂K α)
        V = sla.cho_solve(c, np.column_stack([gf_a, gc_a]), check_finite=False)
        dlam = -(V.T @ alpha)
        if self.kernel == "rbf":
            s2 = p["sigma2"]
            dK = rough.dK()
            dKa = dK @ alpha
            exp_f = -(r @ dKa) / n
            if self.complexity == "l2":
                exp_c = float(alpha @ dKa)
            else:
                exp_c = rough.dE_c_dsigma2(alpha, y, 0.0)
            ds = np.array([exp_f, exp_c]) - V.T @ dKa
            grad_f = np.array([s2 * ds[0], lam * dlam[0]])
            grad_c = np.array([s2 * ds[1], lam * dlam[1]])
        else:
            grad_f = np.array([lam * dlam[0]])
            grad_c = np.array([lam * dlam[1]])
        return {"alpha": alpha, "b": 0.0, "E_f": E_f, "E_c": float(E_c), "grad_f": grad_f,
                "grad_c": grad_c, **p}


# --------------------------------------------------------------------------------- KPCR (θ)
def kpcr_components(eigvals: np.ndarray, r: float, rtol: float = 1e-10) -> int:
    """``m(r)``: the number of leading eigenvalues whose cumulative share of the trace (over the
    numerical rank ``t``) is ≤ r (§IV-B), at least 1."""
    r = check_r(r)
    lam = np.asarray(eigvals, dtype=np.float64)
    lam = lam[lam > rtol * max(lam.max(), 0.0)] if lam.size and lam.max() > 0 else lam[:0]
    if lam.size == 0:
        return 0
    share = np.cumsum(lam) / lam.sum()
    m = int(np.searchsorted(share, r * (1 + 1e-12), side="right"))
    return max(1, min(m, lam.size))


class KPCRObjectives(_Objectives):
    """``E_f`` and ``E_c`` of kernel principal component regression (eq. 35) as functions of θ.

    The model is ``f(x) = ȳ + k̃(x)'α`` with the centred kernel ``k̃`` and
    ``α = Σ_{j≤m(r)} λ_j^{-1} v_j v_j' y_c`` (eigenpairs of ``K̃ = CKC``, ``y_c = y - ȳ``); on
    the centred scale ``f = b + Σ_m β_m k(x_m, ·)`` with ``β = Cα`` and ``b = -mean(Kβ)``, so
    the roughness of :mod:`lssvm_cvx.kernels.roughness` applies with a bias.

    θ = ``(log σ², r)`` for RBF, ``(r,)`` for polynomial.  ``delta_r`` is Δr of the central
    difference in r (§IV-B).
    """

    def __init__(self, X: Any, y: Any, kernel: str = "rbf", *, degree: int = 2, t: float = 1.0,
                 complexity: str = "roughness", delta_r: float = 0.01):
        super().__init__(X, y, kernel, degree=degree, t=t, complexity=complexity)
        if not isinstance(delta_r, Real) or not 0 < delta_r < 0.5:
            raise HyperparameterError(f"delta_r must be in (0, 0.5), got {delta_r!r}")
        self.delta_r = float(delta_r)
        self.yc = self.y - self.y.mean()
        self._eig: tuple[float | None, np.ndarray, np.ndarray] | None = None

    def params(self, theta: Any) -> dict[str, float]:
        theta = np.asarray(theta, dtype=np.float64).reshape(-1)
        if self.kernel == "rbf":
            return {"sigma2": float(np.exp(theta[0])), "r": float(theta[1])}
        return {"r": float(theta[0]), "degree": self.degree}

    def theta(self, *, r: float, sigma2: float | None = None) -> np.ndarray:
        r = check_r(r)
        if self.kernel == "rbf":
            if sigma2 is None or sigma2 <= 0:
                raise HyperparameterError(f"sigma2 must be > 0, got {sigma2!r}")
            return np.array([np.log(sigma2), r])
        return np.array([r])

    def eig(self, rough: Roughness, sigma2: float | None):
        """Eigenpairs of the centred Gram, descending (cached per σ²)."""
        if self._eig is not None and self._eig[0] == sigma2:
            return self._eig[1], self._eig[2]
        K = rough.K
        Kc = K - K.mean(0)[None, :] - K.mean(1)[:, None] + K.mean()
        w, V = np.linalg.eigh((Kc + Kc.T) / 2)
        w, V = w[::-1], V[:, ::-1]
        self._eig = (sigma2, w, V)
        return w, V

    def alpha_of(self, w: np.ndarray, V: np.ndarray, r: float) -> tuple[np.ndarray, int]:
        m = kpcr_components(w, min(max(r, 1e-12), 1.0))
        c = (V[:, :m].T @ self.yc) / w[:m]
        return V[:, :m] @ c, m

    def _evaluate(self, theta):
        p = self.params(theta)
        r = p["r"]
        rough = self._rough(p.get("sigma2"))
        K, n = rough.K, self.n
        w, V = self.eig(rough, p.get("sigma2"))
        alpha, m = self.alpha_of(w, V, r)
        a_hi, _ = self.alpha_of(w, V, min(r + self.delta_r, 1.0))
        a_lo, _ = self.alpha_of(w, V, max(r - self.delta_r, 1e-12))
        dalpha_dr = (a_hi - a_lo) / (2 * self.delta_r)
        def center(v):
            return v - v.mean()

        res = self.yc - center(K @ center(alpha))  # y_c - K̃α
        E_f = float(res @ res / (2 * n))

        beta = center(alpha)
        b = -float(np.mean(K @ beta))
        E_c, gc_beta, gc_b = self._complexity(rough, beta, self.yc, b, K)
        # α-gradients (β = Cα, b = -1'Kβ/n)
        gc_a = center(gc_beta - gc_b * (K.mean(0)))
        gf_a = -center(K @ center(res)) / n  # -(K̃ res)/n
        g = np.column_stack([gf_a, gc_a])
        grad_r = g.T @ dalpha_dr
        if self.kernel == "rbf":
            s2 = p["sigma2"]
            dK = rough.dK()
            dKc = dK - dK.mean(0)[None, :] - dK.mean(1)[:, None] + dK.mean()
            # explicit parts at fixed α
            exp_f = -(res @ (dKc @ alpha)) / n
            if self.complexity == "l2":
                exp_c = float(beta @ (dK @ beta))
            else:
                db = -float(np.mean(dK @ beta))
                exp_c = rough.dE_c_dsigma2(beta, self.yc, b) + gc_b * db
            # Daleckii–Krein: dα = V (Γ ∘ V'dK̃V) V' y_c
            keep = w > 1e-10 * max(w[0], 0.0)
            phi = np.zeros_like(w)
            phi[:m] = 1.0 / w[:m]
            diff = w[:, None] - w[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                Gam = (phi[:, None] - phi[None, :]) / diff
            same = np.abs(diff) <= 1e-12 * max(abs(w[0]), 1.0)
            Gam[same] = 0.0
            dphi = np.where(np.arange(w.size) < m, -1.0 / np.where(keep, w, 1.0) ** 2, 0.0)
            Gam[np.diag_indices_from(Gam)] = dphi
            # Γ_jk = 0 when both j, k > m, so only the first m columns of B = V'∂K̃V are
            # needed: O(m n²) instead of O(n³)
            Bm = V.T @ (dKc @ V[:, :m])  # Bm[j, k] = B_jk, k < m
            Vy = V.T @ self.yc
            Vg = V.T @ g
            t1 = Vg.T @ ((Gam[:, :m] * Bm) @ Vy[:m])  # k ≤ m, every j
            t2 = Vg[:m].T @ ((Gam[:m, m:] * Bm[m:, :].T) @ Vy[m:])  # j ≤ m, k > m
            implicit = t1 + t2
            ds = np.array([exp_f, exp_c]) + implicit
            grad_f = np.array([s2 * ds[0], grad_r[0]])
            grad_c = np.array([s2 * ds[1], grad_r[1]])
        else:
            grad_f = np.array([grad_r[0]])
            grad_c = np.array([grad_r[1]])
        return {"alpha": alpha, "beta": beta, "b": b, "m": m, "E_f": E_f, "E_c": float(E_c),
                "grad_f": grad_f, "grad_c": grad_c, **p}


# ------------------------------------------------------------------------------ selection
@dataclass
class Selection:
    """A selected KRR/KPCR model and how it was chosen.

    ``predict(X_new)`` evaluates ``f(x) = intercept + Σ_m coef_m k(x_m, x)`` with the kernel of
    the selected θ; ``front`` holds the traced Pareto front (θ-space methods) and ``scores``
    the grid/CV scores (grid and sum/product methods).
    """

    model: str
    kernel: str
    method: str
    complexity: str
    X: np.ndarray = field(repr=False)
    coef: np.ndarray = field(repr=False)
    intercept: float
    E_f: float
    E_c: float
    sigma2: float | None = None
    lam: float | None = None
    r: float | None = None
    degree: int | None = None
    t: float = 1.0
    m: int | None = None
    front: dict[str, Any] | None = None
    scores: dict[str, Any] | None = None
    nfev: int = 0

    def make_kernel(self):
        return RBF(self.sigma2) if self.kernel == "rbf" else Polynomial(int(self.degree), self.t)

    def predict(self, X_new: Any) -> np.ndarray:
        return self.make_kernel()(np.asarray(X_new, float), self.X) @ self.coef + self.intercept

    def params(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("sigma2", "lam", "r", "degree", "m")}


def _objectives(model: str, X, y, kernel, degree, t, complexity, delta_r=0.01):
    if model == "krr":
        return KRRObjectives(X, y, kernel, degree=degree, t=t, complexity=complexity)
    return KPCRObjectives(X, y, kernel, degree=degree, t=t, complexity=complexity, delta_r=delta_r)


def _bounds(model: str, kernel: str, X: np.ndarray) -> list[tuple[float, float]]:
    bnds = []
    if kernel == "rbf":
        lo, hi = sigma2_range(X)
        bnds.append((np.log(lo), np.log(hi)))
    bnds.append(tuple(np.log(LAM_BOUNDS)) if model == "krr" else R_BOUNDS)
    return bnds


def _grid_points(bounds, k: int = 5) -> np.ndarray:
    axes = [np.linspace(lo, hi, k) for lo, hi in bounds]
    return np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(bounds), -1).T


def _minimise(fun, bounds, starts, maxiter: int = 50) -> np.ndarray:
    """Best of a few starts, polished by L-BFGS-B (``fun(θ) -> (value, gradient)``)."""
    vals = [fun(th)[0] for th in starts]
    x0 = starts[int(np.nanargmin(vals))]
    res = minimize(lambda th: fun(th)[0], x0, jac=lambda th: fun(th)[1], method="L-BFGS-B",
                   bounds=bounds, options={"maxiter": int(maxiter)})
    return res.x if res.fun <= np.nanmin(vals) else x0


def _front(obj, method: str, bounds, s: float, n_eps: int, weights: Any = "normalized",
           maxiter: int = 30) -> dict[str, Any]:
    """Algorithm 1: ideal point, an ε sweep (continuation), ε* by eq. (27)-(28).

    The sweep bounds ``b`` (``E_c ≤ b``; ``ε = b/s`` for the modified method) run
    geometrically in ``E_c - z_c*`` from ``10^-4`` to 1 times the span between the ideal
    ``z_c*`` and the complexity of the fit-optimal θ.  ε₀ of eq. (28) is the bound closest to
    ``E_c(θ₀)`` at the initial θ₀, the centre of the θ box (in log coordinates).
    """
    from ..pareto import select_ideal_point, trace_front_nlp

    starts = _grid_points(bounds, 4)
    th_f = _minimise(obj.E_f, bounds, starts, maxiter)
    th_c = _minimise(obj.E_c, bounds, starts, maxiter)
    z = np.array([obj.E_f(th_f)[0], obj.E_c(th_c)[0]])
    hi = obj.E_c(th_f)[0]
    if not hi > z[1]:
        F = np.array([[obj.E_f(th_f)[0], hi]])
        return {"theta": th_f, "X": th_f[None, :], "F": F, "eps": np.array([hi]), "ideal": z,
                "index": 0, "success": np.array([True]), "eps0_index": 0}
    b = z[1] + (hi - z[1]) * np.logspace(-4, 0, n_eps)
    fr = trace_front_nlp(obj.E_f, obj.E_c, b, th_c, method=method, s=s, bounds=bounds,
                         options={"maxiter": int(maxiter)})
    F = fr.F.copy()
    theta0 = np.array([(lo + up) / 2 for lo, up in bounds])
    e0 = int(np.argmin(np.abs(b - obj.E_c(theta0)[0])))
    idx = select_ideal_point(F, z, eps0_index=e0, weights=weights) if np.isfinite(F).any() else 0
    return {"theta": fr.X[idx], "X": fr.X, "F": F, "eps": b, "ideal": z, "index": idx,
            "success": fr.success, "eps0_index": e0}


def _fit_theta(obj, theta) -> dict[str, Any]:
    return obj.evaluate(np.asarray(theta, float))


def _finish(model, kernel, method, complexity, X, y_mean, obj, ev, *, front=None, scores=None,
            degree=None, t=1.0, nfev=0) -> Selection:
    if model == "krr":
        coef, intercept = ev["alpha"], y_mean
    else:
        coef, intercept = ev["beta"], y_mean + ev["b"]
    return Selection(model, kernel, method, complexity, X, coef, float(intercept), ev["E_f"],
                     ev["E_c"], sigma2=ev.get("sigma2"), lam=ev.get("lam"), r=ev.get("r"),
                     degree=degree if kernel == "poly" else None, t=t, m=ev.get("m"),
                     front=front, scores=scores, nfev=nfev)


def _kfold(n: int, k: int, seed: int) -> list[np.ndarray]:
    from sklearn.model_selection import KFold

    k = min(k, n)
    return [te for _, te in KFold(k, shuffle=True, random_state=seed).split(np.zeros(n))]


def _criterion_fit(obj, bounds, crit: str, w: float, start) -> np.ndarray:
    """Minimise the sum (eq. 29) or log-product (eq. 31) criterion over θ."""
    if crit == "sum":
        def fun(th):
            f, gf = obj.E_f(th)
            c, gc = obj.E_c(th)
            return f + w * c, gf + w * gc
    else:
        def fun(th):
            f, gf = obj.E_f(th)
            c, gc = obj.E_c(th)
            if f <= 0 or c <= 0:
                return np.inf, np.zeros_like(th)
            return np.log(f) + w * np.log(c), gf / f + w * gc / c
    return _minimise(fun, bounds, start)


def _predict_ev(model, kernel, degree, t, Xtr, ytr_mean, ev, Xte) -> np.ndarray:
    kern = RBF(ev["sigma2"]) if kernel == "rbf" else Polynomial(int(degree), t)
    Kte = kern(Xte, Xtr)
    if model == "krr":
        return Kte @ ev["alpha"] + ytr_mean
    return Kte @ ev["beta"] + ev["b"] + ytr_mean


def select_model(X: Any, y: Any, *, model: str = "krr", kernel: str = "rbf",
                 method: str = "modified_eps", complexity: str = "roughness",
                 degrees: Sequence[int] = (1, 2, 3, 4, 5, 6), t: float = 1.0, s: float = 1e-3,
                 n_eps: int = 10, weights_grid: Sequence[float] | None = None,
                 n_sigma: int = 10, n_lam: int = 10, n_r: int = 9, cv: int = 10,
                 criterion_cv: int = 5, delta_r: float = 0.01, seed: int = 0,
                 weights: Any = "normalized", nlp_maxiter: int = 30) -> Selection:
    """Select (σ², λ) for KRR or (σ², r) for KPCR (and the polynomial degree) by one method.

    Parameters
    ----------
    X, y :
        Training data (the paper standardises the inputs; ``y`` is centred internally).
    model :
        ``"krr"`` (eq. 33) or ``"kpcr"`` (eq. 35).
    kernel :
        ``"rbf"`` (``exp(-||x-z||²/σ²)``) or ``"poly"`` (``(x'z + t)^d``, d in ``degrees``).
    method :
        ``"modified_eps"`` (Algorithm 1, eq. 26-28), ``"eps"`` (eq. 24 with the same ε*
        rule), ``"sum"`` (eq. 29, ν by ``criterion_cv``-fold CV over ``weights_grid``),
        ``"product"`` (eq. 30-31, γ likewise), ``"cv"`` (``cv``-fold CV grid) or ``"gcv"``.
    complexity :
        ``"roughness"`` (eq. 16-17) or ``"l2"`` (eq. 22, Table VI).
    s, n_eps :
        The constant of eq. (25) and the number of ε values of the sweep.
    weights :
        Weights of the ideal-point rule (eq. 27): ``"normalized"`` (default: ``1/range²`` of
        each objective over the front, scale-free) or ``"paper"`` (eq. 28 as printed,
        ``w_i = |u_i(θ_ε0) - z_i*|²``).  With the printed weights eq. (27) grows with the fourth
        power of each objective's units, so the objective with the larger excursion at ε₀ — in
        practice the roughness, which spans decades — decides alone, and the rule returns the
        smoothest end of the front (R² ≈ 0 on scikit-learn's regression check; see
        ``benchmarks/results/pareto_krr.md`` for both variants).
    nlp_maxiter :
        Iteration cap of each SLSQP solve of the sweep (KPCR's r-derivative is the paper's
        central difference of a piecewise-constant map, on which SLSQP can cycle).
    n_sigma, n_lam, n_r :
        Grid sizes of the CV/GCV baselines (σ in ``[μ-2δ, μ+2δ]``, λ in ``10^-5..10^4``,
        r in ``[0.8, 1]``).
    """
    X = as_matrix(X, min_samples=3)
    y = as_targets(y, X.shape[0])
    if model not in ("krr", "kpcr"):
        raise HyperparameterError(f"model must be 'krr' or 'kpcr', got {model!r}")
    kernel = _check_kernel(kernel)
    complexity = _check_complexity(complexity)
    if method not in METHODS:
        raise HyperparameterError(f"method must be one of {METHODS}, got {method!r}")
    from ..pareto import _check_s

    s = _check_s(s)
    degs = [_check_degree(d) for d in (degrees if kernel == "poly" else [2])]
    if not degs:
        raise HyperparameterError("degrees is empty")
    y_mean = float(y.mean())
    yc = y - y_mean
    bounds = _bounds(model, kernel, X)

    if method in ("cv", "gcv"):
        return _grid_select(X, y, model, kernel, method, complexity, degs, t, n_sigma, n_lam,
                            n_r, cv, seed)

    if method in ("modified_eps", "eps"):
        fronts = []
        for d in degs:
            obj = _objectives(model, X, yc, kernel, d, t, complexity, delta_r)
            fr = _front(obj, method, bounds, s, n_eps, weights, nlp_maxiter)
            fronts.append((d, obj, fr))
        if len(fronts) == 1:
            d, obj, fr = fronts[0]
        else:
            # polynomial degree by enumeration (§IV-A): Algorithm 1 per degree, then the degree
            # whose selected point is closest to the pooled ideal point, each objective
            # normalised by its range over the selected points (the per-degree weights of
            # eq. 28 are not comparable across degrees).
            P = np.array([fr["F"][fr["index"]] for _, _, fr in fronts])
            z = np.min([fr["ideal"] for _, _, fr in fronts], axis=0)
            ok = np.all(np.isfinite(P), axis=1)
            span = np.nanmax(P, axis=0) - z
            span = np.where(span > 0, span, 1.0)
            dist = np.where(ok, np.sum(((P - z) / span) ** 2, axis=1), np.inf)
            d, obj, fr = fronts[int(np.argmin(dist))]
        ev = _fit_theta(obj, fr["theta"])
        front = {"eps": fr["eps"].tolist(), "E_f": fr["F"][:, 0].tolist(),
                 "E_c": fr["F"][:, 1].tolist(), "theta": fr["X"].tolist(),
                 "ideal": fr["ideal"].tolist(), "index": int(fr["index"]), "degree": d,
                 "success": np.asarray(fr["success"]).tolist()}
        nfev = sum(o.nfev for _, o, _ in fronts)
        return _finish(model, kernel, method, complexity, X, y_mean, obj, ev, front=front,
                       degree=d, t=t, nfev=nfev)

    # sum / product: weight by k-fold CV, then refit on all data
    grid = np.asarray(weights_grid if weights_grid is not None else
                      ([1e-4, 1e-3, 1e-2, 1e-1, 1.0] if method == "sum" else [0.1, 0.3, 1.0, 3.0]),
                      dtype=np.float64)
    if grid.size == 0 or np.any(grid <= 0) or not np.all(np.isfinite(grid)):
        raise HyperparameterError(f"weights_grid must hold finite numbers > 0, got {weights_grid!r}")
    folds = _kfold(X.shape[0], criterion_cv, seed)
    scores = np.zeros((len(degs), grid.size))
    nfev = 0
    starts = _grid_points(bounds, 3)
    for a, d in enumerate(degs):
        for f in folds:
            tr = np.setdiff1d(np.arange(X.shape[0]), f)
            ym = float(y[tr].mean())
            obj = _objectives(model, X[tr], y[tr] - ym, kernel, d, t, complexity, delta_r)
            for c, w in enumerate(grid):
                th = _criterion_fit(obj, bounds, method, w, starts)
                pred = _predict_ev(model, kernel, d, t, X[tr], ym, obj.evaluate(th), X[f])
                scores[a, c] += np.sum((y[f] - pred) ** 2) / X.shape[0]
            nfev += obj.nfev
    a, c = np.unravel_index(int(np.argmin(scores)), scores.shape)
    d, w = degs[a], float(grid[c])
    obj = _objectives(model, X, yc, kernel, d, t, complexity, delta_r)
    ev = _fit_theta(obj, _criterion_fit(obj, bounds, method, w, starts))
    return _finish(model, kernel, method, complexity, X, y_mean, obj, ev, degree=d, t=t,
                   scores={"weights": grid.tolist(), "degrees": degs, "cv_mse": scores.tolist(),
                           "weight": w}, nfev=nfev + obj.nfev)


def _sigma2_grid(X: np.ndarray, k: int) -> np.ndarray:
    lo, hi = sigma2_range(X)
    return 2 * np.linspace(np.sqrt(lo / 2), np.sqrt(hi / 2), k) ** 2  # linear in the paper's σ


def _kpcr_fit_eval(Ktr, ytr, Kte, w, V, r):
    """Predictions at test rows from a KPCR fit on (Ktr, ytr) with eigenpairs (w, V) of K̃tr."""
    m = kpcr_components(w, r)
    ym = ytr.mean()
    alpha = V[:, :m] @ ((V[:, :m].T @ (ytr - ym)) / w[:m])
    Kc = Kte - Ktr.mean(0)[None, :] - Kte.mean(1)[:, None] + Ktr.mean()
    return Kc @ alpha + ym, m


def _centred_eig(K):
    Kc = K - K.mean(0)[None, :] - K.mean(1)[:, None] + K.mean()
    w, V = np.linalg.eigh((Kc + Kc.T) / 2)
    return w[::-1], V[:, ::-1]


def _grid_select(X, y, model, kernel, method, complexity, degs, t, n_sigma, n_lam, n_r, cv, seed):
    """§V baselines: ``cv``-fold CV or GCV over (σ, λ) / (σ, r) / (degree, ·) grids."""
    from ..model_selection import gamma_sweep

    n = X.shape[0]
    y_mean = float(y.mean())
    yc = y - y_mean
    kernels = ([("rbf", s2, None) for s2 in _sigma2_grid(X, n_sigma)] if kernel == "rbf"
               else [("poly", None, d) for d in degs])
    folds = _kfold(n, cv, seed)
    lams = np.logspace(np.log10(LAM_BOUNDS[0]), np.log10(LAM_BOUNDS[1]), n_lam)
    rs = np.linspace(R_BOUNDS[0], R_BOUNDS[1], n_r)
    scores = np.full((len(kernels), lams.size if model == "krr" else rs.size), np.inf)
    for a, (_, s2, d) in enumerate(kernels):
        kern = RBF(s2) if kernel == "rbf" else Polynomial(int(d), t)
        K = kern(X)
        if model == "krr":
            crit = "kfold" if method == "cv" else "gcv"
            sw = gamma_sweep(K, yc, 1.0 / lams, criterion=crit, folds=folds, bias=False,
                             method="eigh")
            scores[a] = sw.scores
        elif method == "gcv":
            w, V = _centred_eig(K)
            for c, r in enumerate(rs):
                pred, m = _kpcr_fit_eval(K, y, K, w, V, r)
                dof = m + 1
                scores[a, c] = n * np.sum((y - pred) ** 2) / (n - dof) ** 2 if dof < n else np.inf
        else:
            acc = np.zeros(rs.size)
            for f in folds:
                tr = np.setdiff1d(np.arange(n), f)
                Ktr = K[np.ix_(tr, tr)]
                w, V = _centred_eig(Ktr)
                for c, r in enumerate(rs):
                    pred, _ = _kpcr_fit_eval(Ktr, y[tr], K[np.ix_(f, tr)], w, V, r)
                    acc[c] += np.sum((y[f] - pred) ** 2) / n
            scores[a] = acc
    a, c = np.unravel_index(int(np.nanargmin(scores)), scores.shape)
    _, s2, d = kernels[a]
    obj = _objectives(model, X, yc, kernel, d or 2, t, complexity)
    if model == "krr":
        th = obj.theta(lam=float(lams[c]), sigma2=s2)
    else:
        th = obj.theta(r=float(rs[c]), sigma2=s2)
    ev = obj.evaluate(th)
    return _finish(model, kernel, method, complexity, X, y_mean, obj, ev, degree=d, t=t,
                   scores={"grid": [list(map(float, [s2 or 0.0, d or 0])) for _, s2, d in kernels],
                           "values": (lams if model == "krr" else rs).tolist(),
                           "scores": scores.tolist()})


# ------------------------------------------------------------------------------ α space
class _AlphaKRR(Formulation):
    """Shared data of the α-space formulations: fixed kernel, ``E_f`` and the convex
    complexity ``α'M₊α - q'α + ½ - shift`` (roughness majorant, shifted to minimum 0) or
    ``α'Kα`` (L2)."""

    reference = Reference(_KEY, MOBJ_PAPER, {"E_f": "(12)", "E_c": "(16)-(17), (22)"})
    compare = ("e",)

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, complexity: str = "roughness"):
        self.X = X
        self.y = y
        self.kernel = kernel if kernel is not None else RBF(1.0)
        self.complexity = complexity
        self._built = None
        self._data = None

    def _prep(self):
        if self._data is None:
            X = as_matrix(self.X, min_samples=2)
            y = as_targets(self.y, X.shape[0])
            _check_complexity(self.complexity)
            if isinstance(self.kernel, RBF):
                rough = RBFRoughness(X, float(self.kernel.sigma2))
            elif isinstance(self.kernel, Polynomial):
                self.kernel._validate()
                rough = PolynomialRoughness(X, int(self.kernel.degree), float(self.kernel.t))
            else:
                raise HyperparameterError("the α-space formulations need an RBF or Polynomial kernel")
            K = rough.K
            if self.complexity == "l2":
                Mq, q, c = K, np.zeros(X.shape[0]), 0.0
            else:
                Mq, q, c = rough.convex_majorant(), rough.q(y), 0.5
            self._data = {"X": X, "y": y, "K": K, "M": Mq, "q": q, "c": c, "rough": rough}
            # factor of B = T'MT in the whitened coordinates α = Tc (no truncation), and the
            # shift that makes min E_c⁺ = 0 (a constant: the Pareto set is unchanged, and the
            # ε-constraints then need ε > 0 only)
            T = self._whiten()
            B = T.T @ ((Mq + Mq.T) / 2) @ T
            w, V = np.linalg.eigh((B + B.T) / 2)
            w = np.maximum(w, 0.0)
            self._data["Lc"] = V * np.sqrt(w)
            p = T.T @ q
            pv = V.T @ p
            pos = w > 1e-12 * max(w.max(), 1e-300)
            cmin = c - float(np.sum(pv[pos] ** 2 / (4 * w[pos])))
            self.shift = cmin
            self._data["c"] = c - cmin
        return self._data

    def validate(self) -> None:
        self._prep()

    def E_f(self, alpha: np.ndarray) -> float:
        d = self._prep()
        r = d["y"] - d["K"] @ alpha
        return float(r @ r / (2 * len(r)))

    def E_c(self, alpha: np.ndarray) -> float:
        """The convex complexity used in α space (majorant of eq. 16-17, or eq. 22), shifted by
        :attr:`shift` so that its minimum over ``range(T)`` is 0."""
        d = self._prep()
        return float(alpha @ d["M"] @ alpha - d["q"] @ alpha + d["c"])

    def E_c_exact(self, alpha: np.ndarray) -> float:
        """The roughness of eq. (13)/(16) itself (non-convex in α), or eq. (22), minus the
        same :attr:`shift` as :meth:`E_c` (so that ``E_c ≥ E_c_exact``)."""
        d = self._prep()
        if self.complexity == "l2":
            return self.E_c(alpha)
        return d["rough"].E_c(alpha, d["y"]) - self.shift

    def _whiten(self):
        """``T`` with ``α = T c``: ``T = V_r Λ_r^{-1/2}`` over the eigenpairs of K above
        ``1e-10 λ_max`` (then ``α'Kα = ||c||²``).  Directions with ``Kα ≈ 0`` carry a function of
        (almost) zero RKHS norm, hence (almost) zero values and derivatives; dropping them keeps
        the conic problem well scaled for the solvers."""
        if getattr(self, "_T", None) is None:
            X = as_matrix(self.X, min_samples=2)
            w, V = np.linalg.eigh(self.kernel(X))
            keep = w > 1e-10 * w.max()
            self._T = V[:, keep] / np.sqrt(w[keep])
        return self._T

    def _exprs(self):
        d = self._prep()
        n = d["K"].shape[0]
        T = self._whiten()
        c = cp.Variable(T.shape[1], name="c")
        e = cp.Variable(n, name="e")
        E_f = cp.sum_squares(e) / (2 * n)
        E_c = cp.sum_squares(d["Lc"].T @ c) - (T.T @ d["q"]) @ c + d["c"]
        fit = e == d["y"] - (d["K"] @ T) @ c
        return c, e, E_f, E_c, fit

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        out = {k: v.value for k, v in built.vars.items()}
        if out.get("c") is not None:
            out["alpha"] = self._whiten() @ out["c"]
        return out

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        vals = dict(solution.values)
        if "c" not in vals and "alpha" in vals:
            vals["c"] = np.linalg.lstsq(self._whiten(), vals["alpha"], rcond=None)[0]
        return {k: vals[k] for k in self.problem.vars if k in vals}

    @classmethod
    def random_instance(cls, n: int = 40, *, seed: int = 0, **kwargs: Any):
        import problems

        ds = problems.get_problem("sinc", n_train=n, n_val=0, seed=seed)
        y = ds.y - ds.y.mean()
        return cls(ds.X, y, kernel=RBF(1.0), **kwargs)



class SpectralPath:
    """The weighted-sum path ``c(ν) = argmin E_f + ν E_c⁺`` from one eigendecomposition.

    In the whitened coordinates ``α = Tc`` of :meth:`_AlphaKRR._whiten`, ``E_f`` has the
    diagonal Hessian ``A = diag(w)/n`` and ``E_c⁺ = c'Bc - p'c + c₀``.  With
    ``A^{-1/2} B A^{-1/2} = UΘU'`` (one ``eigh``), ``c(ν) = A^{-1/2}U(I + 2νΘ)^{-1}U'A^{-1/2}(g + νp)``
    and ``E_f``, ``E_c⁺`` along the path cost O(r) per ν.  Since both objectives are convex,
    every ε-constraint solution lies on this path (KKT): the ε-constraint with bound ``b`` is
    ``c(ν_b)`` with ``E_c⁺(c(ν_b)) = b`` (or ``ν = 0`` when the bound is slack), and the
    modified ε-constraint is ``c(max(s/ε, ν_{sε}))`` — the multiplier of ``E_c⁺ ≤ hε`` is
    ``s/ε`` while ``0 < h < s``.
    """

    def __init__(self, form: "_AlphaKRR"):
        d = form._prep()
        T = form._whiten()
        n = d["K"].shape[0]
        w, V = np.linalg.eigh(d["K"])
        keep = w > 1e-10 * w.max()
        w, V = w[keep], V[:, keep]
        self.T, self.n = T, n
        a = w / n  # diag of A
        self.ia = 1.0 / np.sqrt(a)
        uy = V.T @ d["y"]
        g = np.sqrt(w) * uy / n
        B = T.T @ ((d["M"] + d["M"].T) / 2) @ T
        p = T.T @ d["q"]
        S = self.ia[:, None] * B * self.ia[None, :]
        theta, U = np.linalg.eigh((S + S.T) / 2)
        self.theta = np.maximum(theta, 0.0)
        self.U = U
        self.G = U.T @ (self.ia * g)
        self.Pv = U.T @ (self.ia * p)
        self.c0 = d["c"]
        self.yy = float(d["y"] @ d["y"]) / (2 * n)
        self.g_full = g
        self.a = a

    def z(self, nu: float) -> np.ndarray:
        return (self.G + nu * self.Pv) / (1.0 + 2.0 * nu * self.theta)

    def c(self, nu: float) -> np.ndarray:
        return self.ia * (self.U @ self.z(nu))

    def E_c(self, nu: float) -> float:
        z = self.z(nu)
        return float(z @ (self.theta * z) - self.Pv @ z + self.c0)

    def E_f(self, nu: float) -> float:
        z = self.z(nu)
        # E_f = ½ c'Ac - g'c + y'y/2n with c = A^{-1/2}Uz (exact within range(K))
        return float(0.5 * z @ z - self.G @ z + self.yy)

    def nu_for_bound(self, b: float) -> float:
        """Smallest ν ≥ 0 with ``E_c⁺(c(ν)) ≤ b`` (E_c⁺ decreases along the path)."""
        from scipy.optimize import brentq

        if self.E_c(0.0) <= b:
            return 0.0
        hi = 1.0
        while self.E_c(hi) > b:
            hi *= 10.0
            if hi > 1e16:
                raise HyperparameterError(
                    f"the complexity bound {b:.6g} is below the minimum of the convex complexity")
        lo = hi / 10.0 if hi > 1.0 else 0.0
        return float(brentq(lambda v: self.E_c(v) - b, lo, hi, xtol=1e-14, rtol=1e-13))

class ParetoAlphaKRR(_AlphaKRR):
    """Modified ε-constraint (eq. 25-26, convex form) over the kernel expansion α::

        min_{α, e, h}  E_f = ||e||²/2n + s h
        s.t.           e = y - Kα                    ("fit")
                       E_c⁺(α) ≤ h ε                 ("u <= h eps")
                       0 ≤ h ≤ s                     ("h >= 0", "h <= s")

    (the slack is the variable ``eta = h/s ∈ [0, 1]``).  ``compare = ("e",)``: the residual
    ``e`` is unique (``E_f`` is strictly convex in ``e``), α is not when ``K`` is singular.

    with ``E_c⁺ = ||L'α||² - q'α + ½`` the convex roughness majorant (``M₊ = LL'``) or
    ``α'Kα`` (``complexity="l2"``).  ε is a positive DPP :class:`cvxpy.Parameter`.  Every
    solution is Pareto-optimal for (E_f, E_c⁺) (see :mod:`lssvm_cvx.pareto`).
    """

    name: ClassVar[str] = "pareto_krr_alpha"
    compare = ("e",)
    reference = Reference(_KEY, MOBJ_PAPER, {"modified eps-constraint": "(25)-(26)",
                                             "E_f": "(12)", "E_c": "(16)-(17), (22)"})

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, complexity: str = "roughness",
                 eps: float = 1.0, s: float = 1e-3):
        super().__init__(X, y, kernel=kernel, complexity=complexity)
        self.eps = eps
        self.s = s

    def validate(self) -> None:
        from ..pareto import _check_eps_values, _check_s

        super().validate()
        _check_eps_values(self.eps, 1)
        _check_s(self.s)

    def parameter_values(self) -> dict[str, Any]:
        return {"eps": float(self.eps)}

    def _build(self) -> BuiltProblem:
        from ..pareto import modified_epsilon_constraint

        c, e, E_f, E_c, fit = self._exprs()
        pp = modified_epsilon_constraint(E_f, E_c, float(self.eps), s=float(self.s),
                                         constraints={"fit": fit})
        built = BuiltProblem(pp.objective, pp.cons, vars={"c": c, "e": e,
                                                          "eta": pp.vars["eta"]},
                             params={"eps": pp.eps})
        built.objectives = [E_f, E_c]
        built.eps = pp.eps
        return built

    has_closed_form = True

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        s = float(self.s)
        return self.E_f(np.asarray(values["alpha"])) + s * s * float(np.asarray(values["eta"]))

    def path(self) -> SpectralPath:
        """The weighted-sum path (one ``eigh``), cached."""
        if getattr(self, "_path", None) is None:
            self._path = SpectralPath(self)
        return self._path

    def closed_form(self) -> Solution:
        """Solution from the spectral path: ``ν = max(s/ε, ν_{sε})`` (see :class:`SpectralPath`)."""
        sp, s, eps = self.path(), float(self.s), float(self.eps)
        nu = max(s / eps, sp.nu_for_bound(s * eps))
        c = sp.c(nu)
        alpha = sp.T @ c
        e = self._prep()["y"] - self._prep()["K"] @ alpha
        eta = min(max(sp.E_c(nu) / (s * eps), 0.0), 1.0)
        n = e.size
        # duals (cvxpy convention, g <= 0): μ for E_c⁺ - η s ε ≤ 0 is ν; bounds from the η KKT
        lam_hi = max(nu * s * eps - s * s, 0.0)
        return Solution(values={"c": c, "alpha": alpha, "e": e, "eta": np.asarray(eta)},
                        duals={"fit": -e / n, "u <= h eps": np.asarray(nu),
                               "h >= 0": np.asarray(0.0), "h <= s": np.asarray(lam_hi)})

    @classmethod
    def random_instance(cls, n: int = 40, *, seed: int = 0, **kwargs: Any) -> "ParetoAlphaKRR":
        inst = super().random_instance(n, seed=seed, **kwargs)
        # a bound halfway between the complexity of α = 0 and that of the interpolant
        a_int = np.linalg.lstsq(inst._prep()["K"], inst._prep()["y"], rcond=1e-10)[0]
        lo, hi = inst.E_c(np.zeros(inst._prep()["K"].shape[0])), inst.E_c(a_int)
        inst.eps = float(max(lo, 0) + 0.05 * abs(hi - lo) + 1e-3) / float(inst.s)
        return inst


class EpsAlphaKRR(ParetoAlphaKRR):
    """Plain ε-constraint (eq. 24) over α: ``min E_f`` s.t. ``E_c⁺(α) ≤ ε``."""

    name: ClassVar[str] = "pareto_krr_alpha_eps"
    reference = Reference(_KEY, MOBJ_PAPER, {"eps-constraint": "(24)", "E_f": "(12)"})

    def _build(self) -> BuiltProblem:
        from ..pareto import epsilon_constraint

        c, e, E_f, E_c, fit = self._exprs()
        pp = epsilon_constraint(E_f, E_c, float(self.eps), constraints={"fit": fit})
        built = BuiltProblem(pp.objective, pp.cons, vars={"c": c, "e": e},
                             params={"eps": pp.eps})
        built.objectives = [E_f, E_c]
        built.eps = pp.eps
        return built

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        return self.E_f(np.asarray(values["alpha"]))

    def closed_form(self) -> Solution:
        """``c(ν_b)`` on the spectral path with ``E_c⁺ = ε`` (or ν = 0 when slack)."""
        sp = self.path()
        nu = sp.nu_for_bound(float(self.eps))
        c = sp.c(nu)
        alpha = sp.T @ c
        e = self._prep()["y"] - self._prep()["K"] @ alpha
        return Solution(values={"c": c, "alpha": alpha, "e": e},
                        duals={"fit": -e / e.size, "eps-constraint": np.asarray(nu)})

    @classmethod
    def random_instance(cls, n: int = 40, *, seed: int = 0, **kwargs: Any) -> "EpsAlphaKRR":
        inst = super().random_instance(n, seed=seed, **kwargs)
        inst.eps = float(inst.eps) * float(inst.s)
        return inst


class WeightedSumAlphaKRR(_AlphaKRR):
    """Sum criterion (eq. 29) over α for a fixed kernel: ``min E_f(α) + ν E_c⁺(α)``::

        min_{α, e}  ||e||²/2n + ν (||L'α||² - q'α + c)   s.t.  e = y - Kα   ("fit")

    A linear system: ``(K'K/n + 2ν M₊) α = K'y/n + ν q``, solved in the whitened coordinates
    ``α = Tc`` of :meth:`_whiten` (the same variables as the cvxpy builder); the dual of "fit"
    is ``-e/n``.  With
    ``complexity="l2"`` the solution is KRR (eq. 33) with ``λ = 2nν``.
    """

    name: ClassVar[str] = "pareto_krr_sum"
    reference = Reference(_KEY, MOBJ_PAPER, {"sum criterion": "(29)", "KRR": "(33)"})
    has_closed_form = True
    compare = ("c", "e")

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, complexity: str = "roughness",
                 nu: float = 0.1):
        super().__init__(X, y, kernel=kernel, complexity=complexity)
        self.nu = nu

    def validate(self) -> None:
        super().validate()
        if not isinstance(self.nu, Real) or not np.isfinite(self.nu) or self.nu <= 0:
            raise HyperparameterError(f"nu must be a finite number > 0, got {self.nu!r}")

    def parameter_values(self) -> dict[str, Any]:
        return {"nu": float(self.nu)}

    def _build(self) -> BuiltProblem:
        c, e, E_f, E_c, fit = self._exprs()
        nu = cp.Parameter(nonneg=True, name="nu")
        return BuiltProblem(cp.Minimize(E_f + nu * E_c), {"fit": fit},
                            vars={"c": c, "e": e}, params={"nu": nu})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        a = np.asarray(values["alpha"])
        return self.E_f(a) + float(self.nu) * self.E_c(a)

    def closed_form(self) -> Solution:
        d = self._prep()
        K, y, n, nu = d["K"], d["y"], d["K"].shape[0], float(self.nu)
        T = self._whiten()
        KT = K @ T
        A = KT.T @ KT / n + 2 * nu * T.T @ ((d["M"] + d["M"].T) / 2) @ T
        rhs = KT.T @ y / n + nu * T.T @ d["q"]
        c = np.linalg.solve(A, rhs)
        alpha = T @ c
        e = y - K @ alpha
        return Solution(values={"c": c, "alpha": alpha, "e": e}, duals={"fit": -e / n})


def alpha_front(X: Any, y: Any, kernel: Any, *, complexity: str = "roughness",
                n_eps: int = 30, s: float = 1e-3, solver: str = "CLARABEL",
                method: str = "modified_eps", weights: Any = "normalized") -> dict[str, Any]:
    """Trace the α-space front for a fixed kernel and pick ε* by eq. (27)-(28).

    Bounds run geometrically from the minimum of the convex complexity to the complexity of
    the least-squares interpolant.  ``solver`` is a cvxpy solver (one DPP compilation serves
    the whole sweep) or ``"closed_form"`` (the spectral path of :class:`SpectralPath`).
    Returns the front, the chosen α and the sweep timings.
    """
    from ..pareto import select_ideal_point, trace_front

    cls = ParetoAlphaKRR if method == "modified_eps" else EpsAlphaKRR
    form = cls(X, y, kernel=kernel, complexity=complexity, eps=1.0, s=s)
    form.path = lambda: ParetoAlphaKRR.path(form)
    d = form._prep()
    n = d["K"].shape[0]
    # ideal point: E_f* (unconstrained least squares), E_c* (minimum of the convex complexity)
    a_f = np.linalg.lstsq(d["K"], d["y"], rcond=1e-10)[0]
    a_c = np.linalg.lstsq(2 * d["M"], d["q"], rcond=1e-10)[0]
    z = np.array([form.E_f(a_f), form.E_c(a_c)])
    hi = form.E_c(a_f)
    bounds = z[1] + (max(hi, z[1] * 1.001 + 1e-9) - z[1]) * np.logspace(-4, 0, n_eps)
    bounds = np.maximum(bounds, 1e-12)
    eps_vals = bounds / s if method == "modified_eps" else bounds
    if solver == "closed_form":  # the spectral path: one eigh, O(r) per ε
        import time as _time

        from ..pareto import ParetoFront

        t0 = _time.perf_counter()
        sp = form.path()
        F, C, times = [], [], []
        for e in eps_vals:
            t1 = _time.perf_counter()
            nu = (max(s / e, sp.nu_for_bound(s * e)) if method == "modified_eps"
                  else sp.nu_for_bound(e))
            C.append(sp.c(nu))
            F.append([sp.E_f(nu), sp.E_c(nu)])
            times.append(_time.perf_counter() - t1)
        total = _time.perf_counter() - t0
        fr = ParetoFront(np.asarray(eps_vals, float), np.array(F), ["optimal"] * len(F),
                         np.array(times), total - sum(times[1:]), sum(times[1:]), False,
                         [{"c": c} for c in C], z)
    else:
        built = form.build()
        fr = trace_front(built, eps_vals, solver=solver, keep=["c"], ideal=z)
    idx = select_ideal_point(fr.F, z, weights=weights)
    alpha = form._whiten() @ np.asarray(fr.points[idx]["c"])
    return {"front": fr, "bounds": bounds, "index": idx, "alpha": alpha, "ideal": z,
            "E_f": form.E_f(alpha), "E_c": form.E_c(alpha), "E_c_exact": form.E_c_exact(alpha),
            "formulation": form, "n": n}
