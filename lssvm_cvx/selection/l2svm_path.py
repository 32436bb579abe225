"""The regularization path of the ℓ2-SVM (Bonidal, Tindel & Guermeur 2013, §2.3-2.7), followed by
the active-set solver of :mod:`lssvm_cvx.formulations.l2svm_active_set`; the span and
radius-margin criteria along it (§3) are in :mod:`lssvm_cvx.selection.l2svm_criteria`.

The notation (``H``, ``E``, ``g``, the bordered system (7) and its λ-derivatives, eq. 13) is
that of :mod:`lssvm_cvx.formulations.l2svm_active_set`.

Algorithm (Fig. 1).  Start at ``λ^1 = lam_max`` (1e7 by default) with ``E = [1, m]`` — the
paper's large-λ regime where eq. (14) holds — and correct ``E`` there if needed.  Then, going
down to ``lam_min``:

* ``breakpoints="paper"`` (the paper's rule, §2.5): Newton predictions
  ``λ_i = λ^l - g_i / g_i'`` of the next zero of every ``g_i`` (eq. 12); ``λ^{l+1}`` is placed so
  that 2% of ``m_E`` predictions lie in ``(λ^{l+1}, λ^l)``, and never below ``λ^l / 2``; the
  partition at ``λ^{l+1}`` is predicted from the sign of ``g_i + g_i' (λ^{l+1} - λ^l)`` and then
  corrected (the inner loop) until consistent.  The path is exact at every ``λ^l``; between
  them :meth:`L2SVMPath.solution_at` re-runs the inner loop from the nearest ``λ^l``.
* ``breakpoints="exact"`` (beyond the paper): every change of ``E`` is located by
  one-dimensional root finding on the analytic ``α_E(λ)``, ``g_I(λ)`` (safeguarded Newton in
  ``log λ`` with bisection, to ``rtol`` in ``log λ``), so ``E`` is known on every segment and
  :meth:`L2SVMPath.solution_at` is exact at any λ (one bordered solve).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..checks import as_gram, binary_labels, check_option, check_positive
from ..exceptions import ConditioningWarning, HyperparameterError, InputError, SolverError
from ..formulations.l2svm_active_set import Hessian, State, correct_active_set, derivatives, evaluate
from ..kernels.base import Kernel, Precomputed
from ..kernels.factors import LowRankFactor
from ..linalg import Cholesky
from ..linalg.threads import blas_limit
from .l2svm_criteria import ball_on_hessian, radius_margin, span_loo

__all__ = [
    "L2SVMPath",
    "regularization_path",
    "expand",
]


# ------------------------------------------------------------------------------- the path
@dataclass
class L2SVMPath:
    """A computed regularization path.

    Attributes
    ----------
    lambdas : ndarray
        ``"paper"``: the λ^l at which the path was solved (decreasing).  ``"exact"``: the
        segment starts: ``lambdas[0] = lam_max`` and ``lambdas[k]`` (k ≥ 1) the point just
        below the k-th breakpoint where ``E_k`` starts.
    breakpoints : ndarray
        ``"exact"``: the located changes of ``E`` (decreasing; each within ``rtol`` in log λ of
        the true one, ``breakpoint_brackets`` gives the bracket).  ``"paper"``: ``lambdas[1:]``.
    active_sets : list of ndarray
        ``E`` at each entry of ``lambdas`` (exact mode: on the whole segment below it).
    alphas, alpha0 : list of ndarray, ndarray
        ``α_E`` and ``α_0`` at each entry of ``lambdas``.
    timing : dict
        Seconds per phase (``factor``, ``path``, ``criteria``, ...).
    n_solves : int
        Number of bordered solves (factorizations).
    """

    y: np.ndarray
    mode: str
    lambdas: np.ndarray
    active_sets: list[np.ndarray]
    alphas: list[np.ndarray]
    alpha0: np.ndarray
    breakpoints: np.ndarray
    breakpoint_brackets: np.ndarray
    lam_min: float
    lam_max: float
    tol: float
    hess: Hessian = field(repr=False)
    timing: dict[str, float] = field(default_factory=dict)
    n_solves: int = 0
    n_inner: list[int] = field(default_factory=list)
    criteria: dict[str, np.ndarray] = field(default_factory=dict)
    X: Any = field(default=None, repr=False)
    kernel: Kernel | None = field(default=None, repr=False)
    blas_threads: int | None = 1

    @property
    def m(self) -> int:
        return self.y.size

    @property
    def n_changes(self) -> int:
        """Number of changes of the partition (exact mode) or path steps (paper mode; the
        number the paper's Table 2 reports in parentheses)."""
        return int(len(self.lambdas) - 1)

    @property
    def n_set_changes(self) -> int:
        """Number of stored steps at which ``E`` differs from the previous step."""
        return int(sum(not np.array_equal(a, b) for a, b in zip(self.active_sets[:-1], self.active_sets[1:])))

    def m_E(self) -> np.ndarray:
        """``m_E`` at each stored λ."""
        return np.array([E.size for E in self.active_sets])

    def _segment(self, lam: float) -> int:
        """Index of the stored state whose segment contains λ (the last ``lambdas[k] ≥ λ``)."""
        k = int(np.searchsorted(-self.lambdas, -lam, side="right")) - 1
        return min(max(k, 0), len(self.lambdas) - 1)

    def state_at(self, lam: float, *, deriv: bool = False) -> State:
        """The exact solution at λ (exact mode: one solve on the segment's ``E``; paper mode:
        the inner loop from the nearest stored ``E`` above λ)."""
        lam = check_positive(lam, "lam (λ)")
        k = self._segment(lam)
        E = self.active_sets[k]
        with blas_limit(self.blas_threads):
            if self.mode == "exact" and self.lam_min <= lam <= self.lam_max:
                st = evaluate(self.hess, E, lam, deriv=deriv)
                if st.consistent(max(self.tol, 1e-7)):
                    return st
            st, _ = correct_active_set(self.hess, E, lam, tol=self.tol)
            return derivatives(self.hess, st) if deriv else st

    def solution_at(self, lam: float) -> tuple[np.ndarray, float]:
        """``(α, α_0)`` at λ, ``α`` as a full ``m``-vector."""
        st = self.state_at(lam)
        return st.alpha(self.m), st.alpha0

    def stored_state(self, k: int, *, deriv: bool = False) -> State:
        """Re-solve the stored point ``k`` (its factorization is not kept)."""
        return evaluate(self.hess, self.active_sets[k], float(self.lambdas[k]), deriv=deriv)

    # -- model selection ------------------------------------------------------------------
    def span(self, lambdas: Sequence[float] | None = None) -> np.ndarray:
        """Span LOO test error prediction (Prop. 4, eq. 16) at ``lambdas`` (default: stored)."""
        t0 = time.perf_counter()
        with blas_limit(self.blas_threads):
            if lambdas is None:
                out = np.array([span_loo(self.hess, self.stored_state(k)) for k in range(len(self.lambdas))])
            else:
                out = np.array([span_loo(self.hess, self.state_at(l)) for l in lambdas])
        self.timing["span"] = self.timing.get("span", 0.0) + time.perf_counter() - t0
        return out

    def radius_margin(self, lambdas: Sequence[float] | None = None, *, solver: str = "CLARABEL"
                      ) -> np.ndarray:
        """Radius-margin bound ``(4/m) R²(λ) ||w̃||²`` (Theorem 1) at ``lambdas``."""
        t0 = time.perf_counter()
        lams = self.lambdas if lambdas is None else np.asarray(lambdas, dtype=np.float64)
        ball = ball_on_hessian(self.hess)
        out = []
        for k, lam in enumerate(lams):
            st = self.stored_state(k) if lambdas is None else self.state_at(lam)
            out.append(radius_margin(st, ball.radius2(float(lam), solver=solver), self.m))
        self.timing["radius_margin"] = self.timing.get("radius_margin", 0.0) + time.perf_counter() - t0
        return np.array(out)

    def select(self, criterion: str = "span", lambdas: Sequence[float] | None = None
               ) -> tuple[float, np.ndarray, np.ndarray]:
        """``(λ*, lambdas, values)``: the λ minimising ``criterion`` ("span" or
        "radius_margin"); ties go to the largest λ (the most regularised)."""
        check_option(criterion, ("span", "radius_margin"), "criterion")
        vals = self.span(lambdas) if criterion == "span" else self.radius_margin(lambdas)
        lams = self.lambdas if lambdas is None else np.asarray(lambdas, dtype=np.float64)
        self.criteria[criterion] = vals
        k = int(np.flatnonzero(vals <= vals.min())[0])
        return float(lams[k]), lams, vals

    def decision_function(self, X_new: Any, lam: float, *, expansion: str = "landmarks") -> np.ndarray:
        """``h_λ(x)`` at new points (needs the path's ``X`` and ``kernel``)."""
        Z, coef, b = expand(self, self.state_at(lam), expansion=expansion)
        return _kernel_rows(self, X_new, Z) @ coef + b


def _kernel_rows(path: L2SVMPath, X_new: Any, Z: Any) -> np.ndarray:
    kernel = path.kernel
    if kernel is None or isinstance(kernel, Precomputed):
        Kn = np.asarray(X_new, dtype=np.float64)
        return Kn[:, Z]  # Z holds column indices for a precomputed Gram
    return kernel(X_new, Z)


class Expandable(Protocol):
    """What :func:`expand` reads of a path: an :class:`L2SVMPath`, or any object with the
    labels, the Hessian, the training inputs and the kernel of a fixed-λ fit."""

    @property
    def y(self) -> np.ndarray: ...
    @property
    def hess(self) -> Hessian: ...
    @property
    def X(self) -> Any: ...
    @property
    def kernel(self) -> Kernel | None: ...


def expand(path: Expandable, st: State, *, expansion: str = "landmarks", eps: float = 1e-8
           ) -> tuple[Any, np.ndarray, float]:
    """§2.7.3: the classifier ``h(x) = Σ_j γ_j k(z_j, x) + α_0`` on the original kernel.

    * exact Hessian (the Gram, or :func:`~lssvm_cvx.kernels.factors.eigen_factor` at its default
      numerical-rank threshold): ``z = x_E``, ``γ = y_E ∘ α_E``;
    * low-rank factor, ``expansion="landmarks"``: ``h`` built on ``κ_r`` is exactly
      ``k(x, Z) A R_E^T (y_E ∘ α_E) + α_0`` (``R = k(X, Z) A``), an expansion on the landmarks;
    * low-rank factor, ``expansion="support"`` (the paper's choice ``J = E``): solve
      ``(K_EE + (ε/2) I) γ = [R R_E^T (y_E ∘ α_E)]_E`` so that ``ĥ`` equals the ``κ_r`` classifier
      on ``d_E`` (``O(m_E³)``).

    Returns ``(Z, γ, α_0)`` with ``Z`` the expansion points (indices into the training Gram for
    a precomputed kernel).
    """
    check_option(expansion, ("landmarks", "support"), "expansion")
    hess, y, kernel = path.hess, path.y, path.kernel
    pre = kernel is None or isinstance(kernel, Precomputed)
    if hess.factor is None or hess.factor.info.get("numerically_exact", False):
        coef = y[st.E] * st.alpha_E
        return (st.E if pre else np.asarray(path.X)[st.E]), coef, st.alpha0
    fac = hess.factor
    w = fac.R[st.E].T @ (y[st.E] * st.alpha_E)
    if expansion == "landmarks":
        if pre:
            return fac.landmark_index, fac.A @ w, st.alpha0
        return fac.Z, fac.A @ w, st.alpha0
    if kernel is None or isinstance(kernel, Precomputed):  # expansion == "support"
        raise HyperparameterError("expansion='support' needs a kernel function")
    XE = np.asarray(path.X)[st.E]
    KEE = kernel(XE)
    KEE[np.diag_indices_from(KEE)] += eps / 2.0
    f = fac.R[st.E] @ w
    gamma = Cholesky.factor(KEE, name="K_EE(ε)", overwrite=True, check_cond=False).solve(f)
    return XE, gamma, st.alpha0


def regularization_path(y: Any, *, K: np.ndarray | None = None, factor: LowRankFactor | None = None,
                        lam_min: float = 1e-6, lam_max: float = 1e7, breakpoints: str = "paper",
                        fraction: float = 0.02, tol: float = 1e-9, rtol: float = 1e-9,
                        max_steps: int | None = None, X: Any = None, kernel: Kernel | None = None,
                        timing: dict[str, float] | None = None, blas_threads: int | None = 1
                        ) -> L2SVMPath:
    """Compute the ℓ2-SVM regularization path from ``lam_max`` down to ``lam_min`` (Fig. 1).

    Parameters
    ----------
    y :
        Two-class labels (mapped to ±1).
    K, factor :
        The exact Gram and/or a low-rank factor of it (:mod:`lssvm_cvx.kernels.factors`).  Exact mode
        is meant for ``K`` (optionally with the numerically exact factor of
        :func:`lssvm_cvx.kernels.factors.eigen_factor` for speed); with only a factor, both modes
        follow the exact path of the approximated problem (kernel ``R R^T``).
    lam_min, lam_max :
        Range of λ (the paper: ``1e-6`` to ``1e7``).
    breakpoints :
        ``"paper"`` (2% rule with the halving safeguard, §2.5) or ``"exact"`` (every change of
        ``E`` located by root finding).
    fraction :
        The paper's 2%: share of ``m_E`` predicted to change per step.
    tol :
        Consistency tolerance of the partition.
    rtol :
        Exact mode: bracket width of each breakpoint in ``log λ``.
    max_steps :
        Safety cap on the number of steps (default ``50 m + 1000``).
    X, kernel :
        Kept on the path for :meth:`L2SVMPath.decision_function`.
    blas_threads :
        BLAS threads during the path (see :func:`blas_limit`; None leaves the global setting).

    Raises
    ------
    HyperparameterError
        ``lam_min``, ``lam_max`` not ``0 < lam_min < lam_max``, unknown ``breakpoints``.
    LabelError
        Labels that are not two classes.
    """
    lam_min = check_positive(lam_min, "lam_min")
    lam_max = check_positive(lam_max, "lam_max")
    if not lam_min < lam_max:
        raise HyperparameterError(f"need lam_min < lam_max, got {lam_min!r} >= {lam_max!r}")
    check_option(breakpoints, ("paper", "exact"), "breakpoints")
    if not check_positive(fraction, "fraction") <= 1:
        raise HyperparameterError(f"fraction must be in (0, 1], got {fraction!r}")
    K = None if K is None else as_gram(K, name="K")
    ypm = binary_labels(y)[0]
    with blas_limit(blas_threads):
        return _run_path(ypm, K, factor, lam_min, lam_max, breakpoints, fraction, tol, rtol,
                         max_steps, X, kernel, timing, blas_threads)


def _run_path(ypm, K, factor, lam_min, lam_max, breakpoints, fraction, tol, rtol, max_steps, X,
              kernel, timing, blas_threads) -> L2SVMPath:
    t0 = time.perf_counter()
    hess = Hessian(ypm, K=K, factor=factor)
    m = hess.m
    cap = max_steps if max_steps is not None else 50 * m + 1000
    st, n_in = correct_active_set(hess, np.arange(m), lam_max, tol=tol)
    derivatives(hess, st)
    lambdas, Es, alphas, a0s, inner = [lam_max], [st.E], [st.alpha_E], [st.alpha0], [n_in]
    brackets: list[tuple[float, float]] = []
    if breakpoints == "paper":
        lam = lam_max
        while lam > lam_min and len(lambdas) < cap:
            lam_next, E_pred = _paper_step(st, lam, lam_min, fraction)
            st, n_in, lam_next = _robust_correct(hess, st, lam, lam_next, E_pred, tol)
            derivatives(hess, st)
            lam = lam_next
            lambdas.append(lam)
            Es.append(st.E)
            alphas.append(st.alpha_E)
            a0s.append(st.alpha0)
            inner.append(n_in)
        bps = np.array(lambdas[1:])
        brackets_arr = np.column_stack([bps, bps]) if bps.size else np.zeros((0, 2))
    else:
        while len(lambdas) < cap:
            # a segment that starts at a point consistent only within rounding noise (accepted
            # by the inner loop) gets a tolerance just above that noise, so noise-level sign
            # changes of that point are not taken for breakpoints
            tol_seg = max(tol, 10.0 * st.max_violation())
            ev = _next_event(hess, st, lam_min, tol_seg, rtol)
            if ev is None:
                break
            lo, hi, st_lo = ev
            leave, enter = st_lo.violations(tol_seg)
            mask = np.zeros(m, bool)
            mask[st.E] = True
            mask[leave] = False
            mask[enter] = True
            st_new, n_in = correct_active_set(hess, np.flatnonzero(mask), lo, tol=tol, start=st)
            derivatives(hess, st_new)
            if np.array_equal(st_new.E, st.E):  # a noise-level event: no change of E
                st = st_new
                continue
            st = st_new
            brackets.append((lo, hi))
            lambdas.append(lo)
            Es.append(st.E)
            alphas.append(st.alpha_E)
            a0s.append(st.alpha0)
            inner.append(n_in)
        brackets_arr = np.array(brackets) if brackets else np.zeros((0, 2))
        bps = np.sqrt(brackets_arr[:, 0] * brackets_arr[:, 1]) if brackets else np.zeros(0)
    if len(lambdas) >= cap:
        warnings.warn(f"the path stopped after max_steps = {cap} steps at λ = {lambdas[-1]:.3g} > lam_min",
                      ConditioningWarning, stacklevel=3)
    tim = dict(timing or {})
    if factor is not None and "factor" not in tim and "time" in factor.info:
        tim["factor"] = float(factor.info["time"])
    tim["path"] = time.perf_counter() - t0
    return L2SVMPath(y=ypm, mode=breakpoints, lambdas=np.array(lambdas), active_sets=Es, alphas=alphas,
                     alpha0=np.array(a0s), breakpoints=bps, breakpoint_brackets=brackets_arr,
                     lam_min=lam_min, lam_max=lam_max, tol=tol, hess=hess, timing=tim,
                     n_solves=hess.n_solves, n_inner=inner, X=X, kernel=kernel, blas_threads=blas_threads)


def _robust_correct(hess: Hessian, st: State, lam: float, lam_next: float, E_pred: np.ndarray,
                    tol: float, max_halvings: int = 40) -> tuple[State, int, float]:
    """The inner loop at ``lam_next``; if it fails (an ill-conditioned problem near the
    hard-margin end where even the line-searched Newton method stalls), retry at the geometric
    midpoint of ``(lam_next, lam)``, i.e. shorten the continuation step."""
    n_total = 0
    for _ in range(max_halvings):
        try:
            new, n_in = correct_active_set(hess, E_pred, lam_next, tol=tol, start=st)
            return new, n_total + n_in, lam_next
        except SolverError:
            n_total += 1
            lam_next = math.sqrt(lam * lam_next)
            if lam_next >= lam * (1 - 1e-12):
                break
            if st.d_g is not None:
                E_pred = np.flatnonzero(st.g + st.d_g * (lam_next - lam) < 0)
                if E_pred.size == 0:
                    E_pred = st.E
    raise SolverError(f"the active-set iteration failed below λ = {lam:.3g} even with short steps",
                      solver="l2svm_path", status="no_convergence")


def _paper_step(st: State, lam: float, lam_min: float, fraction: float) -> tuple[float, np.ndarray]:
    """§2.5: next λ from the Newton predictions of eq. (12) (2% rule, halving safeguard) and
    the predicted partition."""
    g, dg = st.g, _slopes(st)[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        lam_i = lam - g / dg
    ok = np.isfinite(lam_i) & (lam_i < lam * (1.0 - 1e-9)) & (lam_i > 0)
    cand = np.sort(lam_i[ok])[::-1]
    k = max(1, int(math.ceil(fraction * st.m_E)))
    if cand.size >= k:
        lam_next = math.sqrt(cand[k - 1] * cand[k]) if cand.size > k else 0.999 * cand[k - 1]
    else:
        lam_next = 0.0
    lam_next = min(max(lam_next, 0.5 * lam, lam_min), lam * (1.0 - 1e-6))
    lam_next = max(lam_next, lam_min)
    pred = g + dg * (lam_next - lam)
    E_pred = np.flatnonzero(pred < 0)
    if E_pred.size == 0:
        E_pred = st.E
    return lam_next, E_pred


def _psi(st: State) -> tuple[np.ndarray, np.ndarray | None]:
    """Consistency functions (≥ 0 when consistent, as in :meth:`State.violations`):
    ``α_i / max α_E`` on E, ``g_i`` on I, and their λ-derivatives (the scale taken as constant)."""
    scale = max(float(np.max(st.alpha_E, initial=0.0)), np.finfo(float).tiny)
    psi = st.g.copy()
    psi[st.E] = st.alpha_E / scale
    dpsi = None
    if st.d_g is not None:
        d_alpha_E, d_g = _slopes(st)
        dpsi = d_g.copy()
        dpsi[st.E] = d_alpha_E / scale
    return psi, dpsi


def _slopes(st: State) -> tuple[np.ndarray, np.ndarray]:
    """``(dα_E/dλ, dg/dλ)`` of a state evaluated with its derivatives (eq. 13)."""
    if st.d_alpha_E is None or st.d_g is None:
        raise InputError("the state has no λ-derivatives; evaluate it with deriv=True")
    return st.d_alpha_E, st.d_g


def _next_event(hess: Hessian, st: State, lam_min: float, tol: float, rtol: float
                ) -> tuple[float, float, State] | None:
    """Exact mode: the largest λ below ``st.lam`` where the partition stops being consistent.

    Phase 1: Newton predictions in ``t = log λ`` (with a 10% overshoot and at most a halving per
    step) until a trial point is inconsistent.  Phase 2: safeguarded Newton/bisection on
    ``G(t) = min_i ψ_i + tol`` until the bracket is narrower than ``rtol``.  Returns
    ``(λ_lo, λ_hi, state at λ_lo on the old E)`` or None when ``lam_min`` is reached first."""
    E = st.E
    t_min = math.log(lam_min)

    def G(s: State) -> tuple[float, float]:
        psi, dpsi = _psi(s)
        j = int(np.argmin(psi))
        return float(psi[j] + tol), float(dpsi[j] * s.lam) if dpsi is not None else float("nan")

    hi = st
    if hi.d_g is None:
        derivatives(hess, hi)
    lo = None
    # ---- phase 1
    for _ in range(10000):
        t_hi = math.log(hi.lam)
        if t_hi <= t_min + 1e-15:
            return None
        psi, dpsi = _psi(hi)
        if dpsi is None:  # hi has its derivatives (computed above or by evaluate)
            raise InputError("the state has no λ-derivatives; evaluate it with deriv=True")
        slope = dpsi * hi.lam  # dψ/dt
        with np.errstate(divide="ignore", invalid="ignore"):
            dt = (psi + tol) / slope
        ok = np.isfinite(dt) & (slope > 0) & (dt >= 0)
        step = float(dt[ok].min()) * 1.1 if ok.any() else math.log(2.0)
        step = min(max(step, 1e-3 * rtol), math.log(2.0))
        t_try = max(t_hi - step, t_min)
        trial = evaluate(hess, E, math.exp(t_try), deriv=True)
        if G(trial)[0] >= 0:
            hi = trial
            if t_try <= t_min:
                return None
            continue
        lo = trial
        break
    if lo is None:  # pragma: no cover - defensive
        raise SolverError("exact path: no event bracket found", solver="l2svm_path", status="no_bracket")
    # ---- phase 2: rtsafe on G in t
    t_lo, t_hi = math.log(lo.lam), math.log(hi.lam)
    cur = lo
    dx_old = t_hi - t_lo
    for _ in range(200):
        if t_hi - t_lo <= rtol:
            break
        Gc, dGc = G(cur)
        tc = math.log(cur.lam)
        t_new = None
        if np.isfinite(dGc) and dGc != 0:
            cand = tc - Gc / dGc
            if t_lo < cand < t_hi and abs(cand - tc) < 0.5 * dx_old:
                t_new = cand
        if t_new is None:
            t_new = 0.5 * (t_lo + t_hi)
        # keep strictly inside the bracket
        t_new = min(max(t_new, t_lo + 0.25 * rtol), t_hi - 0.25 * rtol)
        dx_old = abs(t_new - tc)
        cur = evaluate(hess, E, math.exp(t_new), deriv=True)
        if G(cur)[0] >= 0:
            t_hi, hi = t_new, cur
        else:
            t_lo, lo = t_new, cur
    return lo.lam, hi.lam, lo
