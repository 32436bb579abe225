"""α-space multiobjective formulations for a fixed kernel (You, Benitez-Quiroz & Martinez 2014,
beyond the paper, convex): the modified ε-constraint, the plain ε-constraint and the weighted
sum of the fit ``E_f`` and the convex roughness majorant ``E_c⁺`` over the kernel expansion α,
with the spectral weighted-sum path as their closed form (:class:`SpectralPath`).  The θ-space
objectives are in :mod:`lssvm_cvx.formulations.multiobjective`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import cvxpy as cp
import numpy as np

from ..checks import as_matrix, as_targets, check_positive
from ..exceptions import HyperparameterError
from ..kernels.base import RBF, Polynomial
from ..kernels.psd import psd_eigh
from ..solution import Solution
from ..terms.roughness import PolynomialRoughness, RBFRoughness
from .base import BuiltProblem, Formulation, Reference
from .multiobjective import MOBJ_KEY, MOBJ_PAPER, check_complexity
from .scalarize import (
    ParetoProblem,
    check_eps_values,
    check_s,
    epsilon_constraint,
    modified_epsilon_constraint,
)

__all__ = ["AlphaKRR", "SpectralPath", "ParetoAlphaKRR", "EpsAlphaKRR", "WeightedSumAlphaKRR",
           "WHITEN_RTOL"]

#: relative eigenvalue cutoff of the whitening ``α = Tc`` (eigenvalues of K ``<= WHITEN_RTOL ·
#: λ_max`` are dropped).  At 1e-10 cond(T) reached 1e5 and the whitened Hessian 1e8-1e10, and
#: the closed form and the cvxpy solvers disagreed by 1e-5 to 1e-2 along near-flat directions
#: (issue 12); 1e-8 drops only directions whose function has RKHS norm² below ``1e-8 λ_max |c|²``.
WHITEN_RTOL = 1e-8


class AlphaKRR(Formulation):
    """Shared data of the α-space formulations: fixed kernel, ``E_f`` and the convex
    complexity ``α'M₊α - q'α + ½ - shift`` (roughness majorant, shifted to minimum 0) or
    ``α'Kα`` (L2)."""

    reference = Reference(MOBJ_KEY, MOBJ_PAPER, {"E_f": "(12)", "E_c": "(16)-(17), (22)"})
    compare: ClassVar[tuple[str, ...]] = ("e",)
    reparametrization: ClassVar[dict[str, tuple[str, str]]] = {
        "α": ("c", "α = T c with T = V_r Λ_r^{-1/2} over the eigenpairs of K above 1e-8 λ_max: "
                   "α'Kα = ||c||², so the conic problem is well scaled; α is read back as T c"),
        "E_c": ("E_c(c)", "the convex majorant E_c⁺ of eq. (16)-(17) written in c, "
                          "||L_c'c||² - p'c + c₀ with L_c L_c' = T'M₊T, shifted to minimum 0"),
        "e": ("e", "the residual y - Kα, a named variable so the fit is one constraint"),
    }

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, complexity: str = "roughness"):
        self.X = X
        self.y = y
        self.kernel = kernel if kernel is not None else RBF(1.0)
        self.complexity = complexity
        self._built = None
        self._data = None

    def prepared(self):
        """The validated data and the builder's quantities (``K``, ``y``, ``B``, ``p``...), cached."""
        if self._data is None:
            X = as_matrix(self.X, min_samples=2)
            y = as_targets(self.y, X.shape[0])
            check_complexity(self.complexity)
            if isinstance(self.kernel, RBF):
                rough = RBFRoughness(X, float(self.kernel.sigma2))
            elif isinstance(self.kernel, Polynomial):
                self.kernel.validate()
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
            T = self.whitening()
            B = T.T @ ((Mq + Mq.T) / 2) @ T
            w, V = psd_eigh(B)  # the PSD part above 1e-12 λ_max (the shared routine)
            Lc = V * np.sqrt(w) if w.size else np.zeros((B.shape[0], 1))
            self._data["Lc"] = Lc
            # the complexity's Hessian in c as the builder writes it (||Lc'c||²): the closed
            # forms and the NumPy twins use this same matrix, so all backends solve one
            # problem (the full T'M₊T differs from it by the eigenvalues psd_eigh drops, which
            # moved the closed form 1.7e-6 from the solvers before)
            self._data["B"] = Lc @ Lc.T
            p = T.T @ q
            self._data["p"] = p
            pv = V.T @ p
            cmin = c - float(np.sum(pv ** 2 / (4 * w)))
            self.shift = cmin
            self._data["c"] = c - cmin
        return self._data

    def validate(self) -> None:
        self.prepared()

    def E_f(self, alpha: np.ndarray) -> float:
        d = self.prepared()
        r = d["y"] - d["K"] @ alpha
        return float(r @ r / (2 * len(r)))

    def E_c(self, alpha: np.ndarray) -> float:
        """The convex complexity used in α space (majorant of eq. 16-17, or eq. 22), shifted by
        :attr:`shift` so that its minimum over ``range(T)`` is 0."""
        d = self.prepared()
        return float(alpha @ d["M"] @ alpha - d["q"] @ alpha + d["c"])

    def E_c_white(self, c: np.ndarray) -> float:
        """:meth:`E_c` in the whitened coordinates ``α = Tc`` exactly as the cvxpy builder
        writes it (``||Lc'c||² - p'c + c₀`` with ``Lc Lc'`` the PSD part of ``T'M₊T``): the
        twin of the builder's expression, used by the objectives and closed forms."""
        d = self.prepared()
        c = np.asarray(c, dtype=np.float64)
        return float(c @ d["B"] @ c - d["p"] @ c + d["c"])

    def coordinates(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """The whitened coordinates ``c`` of a solution (least squares from ``alpha`` when
        ``c`` is not among its values)."""
        if "c" in values:
            return np.asarray(values["c"], dtype=np.float64)
        return np.linalg.lstsq(self.whitening(), np.asarray(values["alpha"]), rcond=None)[0]

    def E_c_exact(self, alpha: np.ndarray) -> float:
        """The roughness of eq. (13)/(16) itself (non-convex in α), or eq. (22), minus the
        same :attr:`shift` as :meth:`E_c` (so that ``E_c ≥ E_c_exact``)."""
        d = self.prepared()
        if self.complexity == "l2":
            return self.E_c(alpha)
        return d["rough"].E_c(alpha, d["y"]) - self.shift

    def whitening(self):
        """``T`` with ``α = T c``: ``T = V_r Λ_r^{-1/2}`` over the eigenpairs of K above
        ``WHITEN_RTOL · λ_max`` = 1e-8 λ_max, from the shared PSD routine
        :func:`~lssvm_cvx.kernels.psd.psd_eigh` (then ``α'Kα = ||c||²``).  Directions with
        ``Kα ≈ 0`` carry a function of (almost) zero RKHS norm, hence (almost) zero values and
        derivatives; dropping them keeps the conic problem well scaled for the solvers.  The
        cutoff 1e-8 (not 1e-10) bounds cond(T) by 1e4 and the whitened Hessian's condition by
        ~1e8, so the closed form and the cvxpy solvers agree (the harness checks it)."""
        if getattr(self, "_T", None) is None:
            w, V = self.spectrum()
            self._T = V / np.sqrt(w)
        return self._T

    def spectrum(self) -> tuple[np.ndarray, np.ndarray]:
        """The kept eigenpairs ``(w, V)`` of the Gram (descending), shared by :meth:`whitening` and
        :class:`SpectralPath` so that both use the same basis."""
        if getattr(self, "_eig", None) is None:
            X = as_matrix(self.X, min_samples=2)
            self._eig = psd_eigh(self.kernel(X), rtol=WHITEN_RTOL)
        return self._eig

    def _exprs(self):
        d = self.prepared()
        n = d["K"].shape[0]
        T = self.whitening()
        c = cp.Variable(T.shape[1], name="c")
        e = cp.Variable(n, name="e")
        E_f = cp.sum_squares(e) / (2 * n)
        E_c = cp.sum_squares(d["Lc"].T @ c) - (T.T @ d["q"]) @ c + d["c"]
        fit = e == d["y"] - (d["K"] @ T) @ c
        return c, e, E_f, E_c, fit

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        out = super().values_from(built)
        c = out.get("c")
        if c is not None:
            out["alpha"] = self.whitening() @ c
        return out

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        vals = dict(solution.values)
        if "c" not in vals and "alpha" in vals:
            vals["c"] = np.linalg.lstsq(self.whitening(), vals["alpha"], rcond=None)[0]
        return {k: vals[k] for k in self.problem.vars if k in vals}

    @classmethod
    def random_instance(cls, n: int = 40, *, seed: int = 0, **kwargs: Any):
        from lssvm_cvx import problems

        ds = problems.get_problem("sinc", n_train=n, n_val=0, seed=seed)
        y = ds.y - ds.y.mean()
        return cls(ds.X, y, kernel=RBF(1.0), **kwargs)



class SpectralPath:
    """The weighted-sum path ``c(ν) = argmin E_f + ν E_c⁺`` from one eigendecomposition.

    In the whitened coordinates ``α = Tc`` of :meth:`AlphaKRR.whitening`, ``E_f`` has the
    diagonal Hessian ``A = diag(w)/n`` and ``E_c⁺ = c'Bc - p'c + c₀``.  With
    ``A^{-1/2} B A^{-1/2} = UΘU'`` (one ``eigh``), ``c(ν) = A^{-1/2}U(I + 2νΘ)^{-1}U'A^{-1/2}(g + νp)``
    and ``E_f``, ``E_c⁺`` along the path cost O(r) per ν.  Since both objectives are convex,
    every ε-constraint solution lies on this path (KKT): the ε-constraint with bound ``b`` is
    ``c(ν_b)`` with ``E_c⁺(c(ν_b)) = b`` (or ``ν = 0`` when the bound is slack), and the
    modified ε-constraint is ``c(max(s/ε, ν_{sε}))`` — the multiplier of ``E_c⁺ ≤ hε`` is
    ``s/ε`` while ``0 < h < s``.
    """

    def __init__(self, form: AlphaKRR):
        d = form.prepared()
        T = form.whitening()
        n = d["K"].shape[0]
        w, V = form.spectrum()  # the eigenpairs behind T (psd_eigh, WHITEN_RTOL)
        self.T, self.n = T, n
        a = w / n  # diag of A
        self.ia = 1.0 / np.sqrt(a)
        uy = V.T @ d["y"]
        g = np.sqrt(w) * uy / n
        B, p = d["B"], d["p"]  # the builder's complexity Hessian (see AlphaKRR.prepared)
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

_ParetoT = TypeVar("_ParetoT", bound="ParetoAlphaKRR")


class ParetoAlphaKRR(AlphaKRR):
    """Modified ε-constraint (eq. 25-26, convex form) over the kernel expansion α::

        min_{α, e, h}  E_f = ||e||²/2n + s h
        s.t.           e = y - Kα                    ("fit")
                       E_c⁺(α) ≤ h ε                 ("u <= h eps")
                       0 ≤ h ≤ s                     ("h >= 0", "h <= s")

    (the slack is the variable ``eta = h/s ∈ [0, 1]``).  ``compare = ("e",)``: the residual
    ``e`` is unique (``E_f`` is strictly convex in ``e``), α is not when ``K`` is singular.

    with ``E_c⁺ = ||L'α||² - q'α + ½`` the convex roughness majorant (``M₊ = LL'``) or
    ``α'Kα`` (``complexity="l2"``).  ε is a positive DPP :class:`cvxpy.Parameter`.  Every
    solution is Pareto-optimal for (E_f, E_c⁺) (see :mod:`lssvm_cvx.formulations.scalarize`).
    """

    name: ClassVar[str] = "pareto_krr_alpha"
    compare = ("e",)
    reparametrization: ClassVar[dict[str, tuple[str, str]]] = {
        **AlphaKRR.reparametrization,
        "h": ("eta", "h = s η with η ∈ [0, 1]: the same problem, better scaled (s ε is of the "
                     "order of E_c); the constraint E_c ≤ h ε reads E_c ≤ η s ε"),
    }
    reference = Reference(MOBJ_KEY, MOBJ_PAPER, {"modified eps-constraint": "(25)-(26)",
                                             "E_f": "(12)", "E_c": "(16)-(17), (22)"})

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, complexity: str = "roughness",
                 eps: float = 1.0, s: float = 1e-3):
        super().__init__(X, y, kernel=kernel, complexity=complexity)
        self.eps = eps
        self.s = s

    def validate(self) -> None:
        super().validate()
        check_eps_values(self.eps, 1)
        check_s(self.s)

    def parameter_values(self) -> dict[str, Any]:
        return {"eps": float(self.eps)}

    def _build(self) -> BuiltProblem:
        c, e, E_f, E_c, fit = self._exprs()
        pp = modified_epsilon_constraint(E_f, E_c, float(self.eps), s=float(self.s),
                                         constraints={"fit": fit})
        built = ParetoProblem(pp.objective, pp.cons, vars={"c": c, "e": e, "eta": pp.vars["eta"]},
                              params={"eps": pp.eps}, objectives=[E_f, E_c], kind=pp.kind, s=pp.s)
        built.h = pp.h
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
        e = self.prepared()["y"] - self.prepared()["K"] @ alpha
        eta = min(max(sp.E_c(nu) / (s * eps), 0.0), 1.0)
        n = e.size
        # duals (cvxpy convention, g <= 0): μ for E_c⁺ - η s ε ≤ 0 is ν; bounds from the η KKT
        lam_hi = max(nu * s * eps - s * s, 0.0)
        return Solution(values={"c": c, "alpha": alpha, "e": e, "eta": np.asarray(eta)},
                        duals={"fit": -e / n, "u <= h eps": np.asarray(nu),
                               "h >= 0": np.asarray(0.0), "h <= s": np.asarray(lam_hi)})

    @classmethod
    def random_instance(cls: type[_ParetoT], n: int = 40, *, seed: int = 0, **kwargs: Any) -> _ParetoT:
        inst = super().random_instance(n, seed=seed, **kwargs)
        # a bound halfway between the complexity of α = 0 and that of the interpolant
        a_int = np.linalg.lstsq(inst.prepared()["K"], inst.prepared()["y"], rcond=1e-10)[0]
        lo, hi = inst.E_c(np.zeros(inst.prepared()["K"].shape[0])), inst.E_c(a_int)
        inst.eps = float(max(lo, 0) + 0.05 * abs(hi - lo) + 1e-3) / float(inst.s)
        return inst


class EpsAlphaKRR(ParetoAlphaKRR):
    """Plain ε-constraint (eq. 24) over α: ``min E_f`` s.t. ``E_c⁺(α) ≤ ε``."""

    name: ClassVar[str] = "pareto_krr_alpha_eps"
    reparametrization = AlphaKRR.reparametrization  # no slack h in the plain ε-constraint
    reference = Reference(MOBJ_KEY, MOBJ_PAPER, {"eps-constraint": "(24)", "E_f": "(12)"})

    def _build(self) -> BuiltProblem:
        c, e, E_f, E_c, fit = self._exprs()
        pp = epsilon_constraint(E_f, E_c, float(self.eps), constraints={"fit": fit})
        return ParetoProblem(pp.objective, pp.cons, vars={"c": c, "e": e}, params={"eps": pp.eps},
                             objectives=[E_f, E_c], kind=pp.kind)

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        return self.E_f(np.asarray(values["alpha"]))

    def closed_form(self) -> Solution:
        """``c(ν_b)`` on the spectral path with ``E_c⁺ = ε`` (or ν = 0 when slack)."""
        sp = self.path()
        nu = sp.nu_for_bound(float(self.eps))
        c = sp.c(nu)
        alpha = sp.T @ c
        e = self.prepared()["y"] - self.prepared()["K"] @ alpha
        return Solution(values={"c": c, "alpha": alpha, "e": e},
                        duals={"fit": -e / e.size, "eps-constraint": np.asarray(nu)})

    @classmethod
    def random_instance(cls, n: int = 40, *, seed: int = 0, **kwargs: Any) -> EpsAlphaKRR:
        inst = super().random_instance(n, seed=seed, **kwargs)
        inst.eps = float(inst.eps) * float(inst.s)
        return inst


class WeightedSumAlphaKRR(AlphaKRR):
    """Sum criterion (eq. 29) over α for a fixed kernel: ``min E_f(α) + ν E_c⁺(α)``::

        min_{α, e}  ||e||²/2n + ν (||L'α||² - q'α + c)   s.t.  e = y - Kα   ("fit")

    A linear system: ``(K'K/n + 2ν M₊) α = K'y/n + ν q``, solved in the whitened coordinates
    ``α = Tc`` of :meth:`whitening` (the same variables and the same complexity Hessian ``B`` as
    the cvxpy builder: :meth:`AlphaKRR.E_c_white`); the dual of "fit" is ``-e/n``.  With
    ``complexity="l2"`` the solution is KRR (eq. 33) with ``λ = 2nν``.
    """

    name: ClassVar[str] = "pareto_krr_sum"
    reference = Reference(MOBJ_KEY, MOBJ_PAPER, {"sum criterion": "(29)", "KRR": "(33)"})
    has_closed_form = True
    compare = ("c", "e")

    def __init__(self, X: Any, y: Any, *, kernel: Any = None, complexity: str = "roughness",
                 nu: float = 0.1):
        super().__init__(X, y, kernel=kernel, complexity=complexity)
        self.nu = nu

    def validate(self) -> None:
        super().validate()
        check_positive(self.nu, "nu")

    def parameter_values(self) -> dict[str, Any]:
        return {"nu": float(self.nu)}

    def _build(self) -> BuiltProblem:
        c, e, E_f, E_c, fit = self._exprs()
        nu = cp.Parameter(nonneg=True, name="nu")
        return BuiltProblem(cp.Minimize(E_f + nu * E_c), {"fit": fit},
                            vars={"c": c, "e": e}, params={"nu": nu})

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        a = np.asarray(values["alpha"])
        return self.E_f(a) + float(self.nu) * self.E_c_white(self.coordinates(values))

    def closed_form(self) -> Solution:
        d = self.prepared()
        K, y, n, nu = d["K"], d["y"], d["K"].shape[0], float(self.nu)
        T = self.whitening()
        KT = K @ T
        A = KT.T @ KT / n + 2 * nu * d["B"]
        rhs = KT.T @ y / n + nu * d["p"]
        c = np.linalg.solve(A, rhs)
        alpha = T @ c
        e = y - K @ alpha
        return Solution(values={"c": c, "alpha": alpha, "e": e}, duals={"fit": -e / n})
