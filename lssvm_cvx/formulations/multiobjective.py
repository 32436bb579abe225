"""Multiobjective model selection for kernel ridge (KRR) and kernel principal component
regression (KPCR): You, Benitez-Quiroz & Martinez (2014).

Two objectives are traded off (§II, §III):

* model fit ``E_f = (1/2n) Σ_i (y_i - f(x_i))²`` (eq. 12),
* model complexity ``E_c``: the roughness of eq. (13)/(16)/(17)
  (:mod:`lssvm_cvx.terms.roughness`) or the L2 norm ``α'Kα`` (eq. 22, Table VI).

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

:func:`lssvm_cvx.selection.multiobjective.select_model` runs Algorithm 1 (ideal point, weights
eq. 28, ε* eq. 27, θ* eq. 26) with the modified ε-constraint over θ solved by SLSQP
(:func:`lssvm_cvx.selection.pareto_nlp.trace_front_nlp`), the plain ε-constraint (eq. 24), the sum (eq. 29)
and product (eq. 30-31) criteria with 5-fold CV for ν and γ, and the 10-fold CV and GCV grid
baselines of §V.

α-space selection (beyond the paper, convex)
--------------------------------------------
For a fixed kernel, ``E_f`` is a convex quadratic of α and the roughness is a non-convex
quadratic whose convex majorant ``E_c⁺`` (gradient-norm part plus the PSD part of the
curvature term) is :meth:`Roughness.convex_majorant`.
:class:`~lssvm_cvx.formulations.alpha_krr.ParetoAlphaKRR` is the modified ε-constraint in α (a DPP
second-order cone program, ε a :class:`cvxpy.Parameter`);
:class:`~lssvm_cvx.formulations.alpha_krr.WeightedSumAlphaKRR` is the sum criterion in α, a linear
system with a closed form.
With ``complexity="l2"`` the front is exactly the KRR path: the weighted-sum point for ν is
KRR with ``λ = 2nν`` (tested).

Paper slips handled here (see also :mod:`lssvm_cvx.terms.roughness`)
---------------------------------------------------------------------
* §IV-A names the fit gradient ``∂E_c/∂σ`` (it is ``∂E_R/∂σ``, the fit term) and writes
  ``∂K/∂σ = K∘D/σ³`` for ``exp(-D/2σ²)`` — correct for that parametrisation; we use
  ``σ² = sigma2`` with ``exp(-D/σ²)``, so ``∂K/∂σ² = K∘D/σ⁴``.
* §IV-B differentiates the eigenpairs of ``K`` but eq. (35) uses the centred ``K̃``: the
  derivatives are those of ``K̃`` (``∂K̃ = C ∂K C``).
* E_f: eq. (15) drops the ``1/2n`` of eq. (12); we keep eq. (12) (the scale matters for the
  sum and product criteria and for the weights of eq. 28).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..checks import as_matrix, as_targets, check_integer, check_number, check_option, check_positive
from ..exceptions import HyperparameterError
from ..kernels.base import sq_dists
from ..linalg import Cholesky
from ..terms.roughness import PolynomialRoughness, RBFRoughness, Roughness

__all__ = [
    "MOBJ_PAPER",
    "MOBJ_KEY",
    "METHODS",
    "LAM_BOUNDS",
    "R_BOUNDS",
    "KRRObjectives",
    "KPCRObjectives",
    "make_objectives",
    "kpcr_components",
    "check_r",
    "check_lam",
    "check_degree",
    "check_complexity",
    "check_kernel_name",
    "sigma2_range",
]

MOBJ_PAPER = ("You, Benitez-Quiroz & Martinez (2014), Multiobjective optimization for model "
              "selection in kernel methods in regression, IEEE TNNLS 25(10):1879-1893")
MOBJ_KEY = "multiobjective-model-selection-you-2014"

#: model-selection methods of :func:`select_model`
METHODS = ("modified_eps", "eps", "sum", "product", "cv", "gcv")

LAM_BOUNDS = (1e-5, 1e4)  # §V: λ ∈ {10^-5, ..., 10^4}
R_BOUNDS = (0.8, 1.0)  # §V: r ∈ [0.8, 1]


def check_r(r: Any) -> float:
    """``r ∈ (0, 1]`` (share of the centred Gram's trace kept by KPCR)."""
    v = check_positive(r, "r")
    if v > 1:
        raise HyperparameterError(f"r must be a number in (0, 1], got {r!r}")
    return v


def check_lam(lam: Any) -> float:
    """Return ``lam`` as a float after checking it is finite and > 0."""
    return check_positive(lam, "lam (lambda)")


def check_degree(degree: Any) -> int:
    """Return ``degree`` as an int after checking it is an integer >= 1."""
    return check_integer(degree, "degree")


def check_complexity(c: str) -> str:
    """Return ``c`` after checking it is ``"roughness"`` or ``"l2"``."""
    return check_option(c, ("roughness", "l2"), "complexity")


def check_kernel_name(k: str) -> str:
    """Return ``"rbf"`` or ``"poly"`` for a kernel name (``"polynomial"`` is ``"poly"``)."""
    if not isinstance(k, str) or k.lower() not in ("rbf", "poly", "polynomial"):
        raise HyperparameterError(f"kernel must be 'rbf' or 'poly', got {k!r}")
    return "rbf" if k.lower() == "rbf" else "poly"


def sigma2_range(X: np.ndarray, n_max: int = 1000) -> tuple[float, float]:
    """σ² bounds from §V: the paper's σ (of ``exp(-D/2σ²)``) in ``[μ - 2δ, μ + 2δ]`` with μ, δ
    the mean and std of the pairwise distances, mapped to ``σ² = 2σ²_paper``.  The lower end is
    clipped at ``μ/10`` when ``μ - 2δ`` is not positive."""
    X = as_matrix(X, min_samples=2)
    if X.shape[0] > check_integer(n_max, "n_max", low=2):
        X = X[np.random.default_rng(0).choice(X.shape[0], n_max, replace=False)]
    d = np.sqrt(sq_dists(X)[np.triu_indices(X.shape[0], 1)])
    mu, delta = float(d.mean()), float(d.std())
    lo = max(mu - 2 * delta, mu / 10)
    hi = mu + 2 * delta
    return 2 * lo**2, 2 * hi**2


# --------------------------------------------------------------------------------- KRR (θ)
class _Objectives:
    """Shared evaluation cache: ``evaluate(θ)`` computes E_f, E_c and both gradients once."""

    t: float
    complexity: str
    nfev: int

    def __init__(self, X: Any, y: Any, kernel: str = "rbf", *, degree: int = 2, t: float = 1.0,
                 complexity: str = "roughness"):
        self.X = as_matrix(X, min_samples=2)
        self.y = as_targets(y, self.X.shape[0])
        self.n = self.X.shape[0]
        self.kernel = check_kernel_name(kernel)
        self.degree = check_degree(degree)
        self.t = check_positive(t, "t", allow_zero=True)
        self.complexity = check_complexity(complexity)
        self._last: tuple[bytes, dict] | None = None
        self._poly: PolynomialRoughness | None = None
        self.nfev = 0

    @property
    def dim(self) -> int:
        """Length of θ: (log σ², hyperparameter) for the RBF kernel, the hyperparameter alone
        for the polynomial kernel (degree fixed)."""
        return 2 if self.kernel == "rbf" else 1

    def _rough(self, sigma2: float | None) -> Roughness:
        if self.kernel == "rbf":  # θ carries σ² for RBF; the last one is cached
            s2 = float(cast(float, sigma2))
            last = getattr(self, "_rbf_last", None)
            if last is None or last[0] != s2:
                last = (s2, RBFRoughness(self.X, s2))
                self._rbf_last = last
            return last[1]
        if self._poly is None:
            self._poly = PolynomialRoughness(self.X, self.degree, self.t)
        return self._poly

    def _evaluate(self, theta: np.ndarray) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

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
        lam = check_lam(lam)
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
        if self.kernel == "poly":  # K is fixed: one eigendecomposition serves every λ
            return self._evaluate_spectral(rough, lam, p)
        H = K.copy()
        H[np.diag_indices_from(H)] += lam
        ch = Cholesky.factor(H, name="K + lam I")  # warns (ConditioningWarning) when ill-conditioned
        alpha = ch.solve(y)
        r = y - K @ alpha  # = λα
        E_f = float(r @ r / (2 * n))
        E_c, gc_a, _ = self._complexity(rough, alpha, y, 0.0, K)
        gf_a = -(K @ r) / n
        # adjoint solves: dE/dλ = -v'α, dE/dσ² (implicit part) = -v'(∂K α)
        V = ch.solve(np.column_stack([gf_a, gc_a]))
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


    def _evaluate_spectral(self, rough: Roughness, lam: float, p: dict[str, Any]) -> dict[str, Any]:
        """Polynomial kernel: ``K = V diag(w) V'`` once (cached), then ``α = V (V'y/(w+λ))`` and
        the adjoint solves in O(n²) per θ — the same quantities as the Cholesky path (tested)."""
        K, y, n = rough.K, self.y, self.n
        if getattr(self, "_spec", None) is None:
            w, V = np.linalg.eigh((K + K.T) / 2)
            self._spec = (w, V, V.T @ y)
        w, V, Vy = self._spec
        d = 1.0 / (w + lam)
        alpha = V @ (Vy * d)
        r = lam * alpha  # y - Kα = λα
        E_f = float(r @ r / (2 * n))
        E_c, gc_a, _ = self._complexity(rough, alpha, y, 0.0, K)
        gf_a = -(K @ r) / n
        Vg = V @ ((V.T @ np.column_stack([gf_a, gc_a])) * d[:, None])
        dlam = -(Vg.T @ alpha)
        return {"alpha": alpha, "b": 0.0, "E_f": E_f, "E_c": float(E_c),
                "grad_f": np.array([lam * dlam[0]]), "grad_c": np.array([lam * dlam[1]]), **p}


# --------------------------------------------------------------------------------- KPCR (θ)
def kpcr_components(eigvals: np.ndarray, r: float, rtol: float = 1e-10) -> int:
    """``m(r)``: the number of leading eigenvalues whose cumulative share of the trace (over the
    numerical rank ``t``) is ≤ r (§IV-B), at least 1."""
    r = check_r(r)
    lam = as_targets(eigvals, None, name="eigvals")
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

    yc: np.ndarray


    def __init__(self, X: Any, y: Any, kernel: str = "rbf", *, degree: int = 2, t: float = 1.0,
                 complexity: str = "roughness", delta_r: float = 0.01):
        super().__init__(X, y, kernel, degree=degree, t=t, complexity=complexity)
        self.delta_r = check_number(delta_r, "delta_r", bound="in (0, 0.5)")
        if not 0 < self.delta_r < 0.5:
            raise HyperparameterError(f"delta_r must be in (0, 0.5), got {delta_r!r}")
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

    def values(self, theta: Any) -> tuple[float, float, int]:
        """``(E_f, E_c, m)`` at θ without the gradients (one eigendecomposition per σ²,
        cached): what the exact discrete search over (σ², r) of the selection needs."""
        p = self.params(np.asarray(theta, dtype=np.float64).reshape(-1))
        rough = self._rough(p.get("sigma2"))
        K, n = rough.K, self.n
        w, V = self.eig(rough, p.get("sigma2"))
        alpha, m = self.alpha_of(w, V, p["r"])

        def center(v):
            return v - v.mean()

        res = self.yc - center(K @ center(alpha))
        beta = center(alpha)
        b = -float(np.mean(K @ beta))
        E_c, _, _ = self._complexity(rough, beta, self.yc, b, K) if self.complexity == "l2" else (
            rough.E_c(beta, self.yc, b), None, None)
        return float(res @ res / (2 * n)), float(E_c), m

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


def make_objectives(model: str, X, y, kernel, degree, t, complexity, delta_r=0.01):
    """Return the KRR (``model="krr"``) or KPCR objectives of the multiobjective paper."""
    if model == "krr":
        return KRRObjectives(X, y, kernel, degree=degree, t=t, complexity=complexity)
    return KPCRObjectives(X, y, kernel, degree=degree, t=t, complexity=complexity, delta_r=delta_r)
