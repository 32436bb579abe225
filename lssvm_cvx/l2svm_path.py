"""The regularization path of the ℓ2-SVM (Bonidal, Tindel & Guermeur 2013, §2.3-2.7) and model
selection along it (§3): the span leave-one-out test error prediction (Proposition 4,
eq. 16, 22-24) and the radius-margin bound (Theorem 1).

Notation (the paper's): ``H = diag(y) K diag(y)``, ``H(λ) = H + (λ/2) I``; the active set
``E(λ) = {i : y_i h_λ(x_i) < 1}`` (the support vectors, ``α_i > 0``) and ``I`` its complement;
``g_i(λ) = y_i h_λ(x_i) - 1`` (eq. 3), so that ``g_i = -(λ/2) α_i < 0`` on ``E`` (eq. 1, 5) and
``g_i ≥ 0`` on ``I``.  With ``E`` fixed, ``(α_0, α_E)`` solve the bordered system (7) (an
LS-SVM on ``d_E`` with ``γ = 2/λ``, Proposition 2) and are rational functions of λ whose
derivatives are eq. (13)::

    dα_0/dλ = -½ (ν^Tρ · y_E^Tν - ν^Tν · y_E^Tρ) / (y_E^Tν)²
    dα_E/dλ = -½ H_EE(λ)^{-1} α_E - (dα_0/dλ) ν

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

The inner loop ("active-set correction") replaces ``E`` by ``{i ∈ E: α_i > 0} ∪ {i ∈ I: g_i < 0}``
(the paper's rule, which is one step of Chapelle's primal Newton method for the squared
hinge loss); if it cycles it switches to that Newton method with an exact line search on
the primal objective, whose finite convergence Chapelle (2007, the paper's ref. [8]) proves.

The Hessian is either the exact Gram (``H`` dense, a Cholesky factor of ``H_EE(λ)`` per solve)
or a low-rank factor ``K ≈ R R^T`` (:mod:`lssvm_cvx.lowrank`) with the Sherman–Morrison–Woodbury
solves of Proposition 3 and the incremental ``R_E^T R_E`` of §2.7.2 (a Cholesky factor of
``R_E R_E^T + (λ/2) I`` when ``m_E ≤ r``).  :func:`lssvm_cvx.lowrank.eigen_factor` at its default
(numerical-rank) threshold gives the exact path faster when the Gram's numerical rank is
below ``m``: the dropped eigenvalues are below the rounding error of the Gram itself.

Consistency is judged with a tolerance ``tol``: ``α_i ≥ -tol · max α_E`` on ``E`` and
``g_i ≥ -tol`` on ``I``.  Near the hard-margin end (λ → 1e-6) ``H_EE(λ)`` has condition numbers
up to ``s_max / (λ/2) ≈ 1e9-1e10``, so ``α_E`` carries relative rounding noise of about
``ε_mach · cond``: a partition consistent within that noise (:meth:`Hessian.noise_level`) is
accepted, and an inner loop that does not converge makes the path retry at the geometric
midpoint of its step.  At such λ CLARABEL itself stops "optimal_inaccurate" and the path's
objective is the higher one (``tests/test_l2svm_path.py``, slow test).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ._validation import binary_labels
from .exceptions import ConditioningWarning, HyperparameterError, InputError, SolverError
from ._validation import check_positive
from .kernels.base import Kernel, Precomputed
from .linalg import BorderedSystem, Cholesky
from .lowrank import LowRankFactor, SMWSystem

__all__ = [
    "Hessian",
    "State",
    "evaluate",
    "derivatives",
    "correct_active_set",
    "solve_fixed",
    "L2SVMPath",
    "regularization_path",
    "span_loo",
    "radius_margin",
    "expand",
]


# ------------------------------------------------------------------------------- Hessian
class Hessian:
    """The working Hessian ``H_w = diag(y) K_w diag(y)`` of Problem 2: the exact Gram (``K``) or
    a low-rank factor (``K_w = R R^T``, :mod:`lssvm_cvx.lowrank`).

    With a factor, ``H_w = R_H R_H^T`` (``R_H = diag(y) R``) is the one Hessian used everywhere
    (solves, margins, line searches), so the path is the exact path of that problem.  Systems
    on ``E`` are solved by SMW (Proposition 3, ``O(m_E r + r³)``) when ``m_E > r`` and by a
    Cholesky factor of ``R_{H,E} R_{H,E}^T + (λ/2) I`` otherwise.

    Parameters
    ----------
    y :
        Labels in {-1, +1}.
    K :
        The ``m × m`` Gram (used when ``factor`` is None).
    factor :
        A :class:`~lssvm_cvx.lowrank.LowRankFactor`.
    """

    def __init__(self, y: np.ndarray, *, K: np.ndarray | None = None,
                 factor: LowRankFactor | None = None):
        if K is None and factor is None:
            raise InputError("Hessian needs a Gram K or a low-rank factor")
        self.y = np.asarray(y, dtype=np.float64)
        self.m = self.y.size
        self.factor = factor
        if factor is not None:
            if factor.R.shape[0] != self.m:
                raise InputError(f"the factor has {factor.R.shape[0]} rows but y has {self.m} entries")
            self.H = None
            self.RH = self.y[:, None] * factor.R
            self.r = self.RH.shape[1]
            self.smw = SMWSystem(self.RH)
        else:
            K = np.asarray(K, dtype=np.float64)
            if K.shape != (self.m, self.m):
                raise InputError(f"K must have shape ({self.m}, {self.m}), got {K.shape}")
            self.H = K * np.outer(self.y, self.y)
            self.RH, self.r, self.smw = None, self.m, None
        self.n_solves = 0
        self._s_max: float | None = None

    @property
    def s_max(self) -> float:
        """Largest eigenvalue of ``H_w`` (estimate: the factor's leading eigenvalue, or a few
        Lanczos iterations on the dense Hessian); used for the rounding-noise level."""
        if self._s_max is None:
            if self.factor is not None:
                self._s_max = float(np.max(self.factor.eigenvalues, initial=0.0))
            else:
                from scipy.sparse.linalg import eigsh

                try:
                    self._s_max = float(eigsh(self.H, k=1, which="LA", tol=1e-2,
                                              return_eigenvectors=False)[0])
                except Exception:  # pragma: no cover - tiny or degenerate matrices
                    self._s_max = float(np.abs(self.H).sum(axis=1).max())
        return self._s_max

    def noise_level(self, lam: float) -> float:
        """Relative rounding noise of ``α_E`` at λ: ``100 ε_mach cond(H(λ))``, with
        ``cond ≤ (s_max + λ/2) / (λ/2)``."""
        c = 0.5 * lam
        return 100.0 * np.finfo(np.float64).eps * (self.s_max + c) / c

    @property
    def kind(self) -> str:
        return "dense" if self.factor is None else "lowrank"

    def system(self, E: np.ndarray, lam: float) -> tuple[Any, bool, Any]:
        """A factorization of ``H_EE(λ)`` (:class:`~lssvm_cvx.linalg.Cholesky` or
        :class:`~lssvm_cvx.lowrank.SMWFactor`, both with ``solve`` and ``inv_diag``), whether it
        is a dense Cholesky, and ``cols(v) = H_w[:, E] @ v`` sharing the blocks already
        extracted for the solve."""
        c = 0.5 * lam
        self.n_solves += 1
        if self.H is not None:
            HE = self.H[:, E]
            M = HE[E]
            cols = HE.__matmul__
        elif E.size <= self.r:
            RE = self.RH[E]
            M = RE @ RE.T
            cols = lambda v, RE=RE: self.RH @ (RE.T @ v)  # noqa: E731
        else:
            self.smw.set_active(E)
            fac = self.smw.factor(c)
            return fac, False, lambda v, RE=fac.RE: self.RH @ (RE.T @ v)
        M[np.diag_indices_from(M)] += c
        chol = Cholesky.factor(M, name="H_EE(λ)", overwrite=True, check_cond=False)
        return chol, True, cols

    def cols(self, E: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``H_w[:, E] @ v`` (all ``m`` rows)."""
        if self.H is not None:
            return self.H[:, E] @ v
        return self.RH @ (self.RH[E].T @ v)

    def matvec(self, a: np.ndarray) -> np.ndarray:
        """``H_w @ a`` for a full vector (used by the line search)."""
        if self.H is not None:
            return self.H @ a
        return self.RH @ (self.RH.T @ a)

    def gram(self) -> np.ndarray:
        """The working Gram ``K_w`` (``m × m``)."""
        if self.H is not None:
            return self.H * np.outer(self.y, self.y)
        return self.factor.R @ self.factor.R.T


# ------------------------------------------------------------------------------- states
@dataclass
class State:
    """The solution of (7) on ``E`` at ``λ``: ``α_E``, ``α_0``, the margins ``g`` of all points,
    and (after :func:`derivatives`) their λ-derivatives (eq. 13)."""

    lam: float
    E: np.ndarray
    alpha_E: np.ndarray
    alpha0: float
    g: np.ndarray
    chol: Any = field(default=None, repr=False)
    nu: np.ndarray | None = field(default=None, repr=False)
    rho: np.ndarray | None = field(default=None, repr=False)
    dense: bool = True
    d_alpha_E: np.ndarray | None = None
    d_alpha0: float | None = None
    d_g: np.ndarray | None = None
    cols: Any = field(default=None, repr=False)
    _sys: BorderedSystem | None = field(default=None, repr=False)
    _yE: np.ndarray | None = field(default=None, repr=False)

    @property
    def sys(self) -> BorderedSystem:
        """The factorised bordered system (7), :class:`~lssvm_cvx.linalg.BorderedSystem` on the
        state's factorization (its ``alpha_inv_diag`` is eq. 22-23; built on first use)."""
        if self._sys is None:
            if self.chol is None:
                raise InputError("state has no factorization; re-evaluate it")
            self._sys = BorderedSystem(self.chol, self.y_E)  # recomputes ν: one solve
        return self._sys

    @property
    def y_E(self) -> np.ndarray:
        return self._yE

    @property
    def m_E(self) -> int:
        return self.E.size

    def alpha(self, m: int) -> np.ndarray:
        """``α`` as a full ``m``-vector."""
        a = np.zeros(m)
        a[self.E] = self.alpha_E
        return a

    def violations(self, tol: float) -> tuple[np.ndarray, np.ndarray]:
        """``(leaving, entering)``: indices of ``E`` with ``α_i < -tol·max α_E`` and of ``I`` with
        ``g_i < -tol``."""
        scale = max(float(np.max(self.alpha_E, initial=0.0)), np.finfo(float).tiny)
        leave = self.E[self.alpha_E < -tol * scale]
        inE = np.zeros(self.g.size, bool)
        inE[self.E] = True
        enter = np.flatnonzero(~inE & (self.g < -tol))
        return leave, enter

    def max_violation(self) -> float:
        """``max(max_E(-α_i / max α_E), max_I(-g_i), 0)``: 0 for a consistent partition."""
        scale = max(float(np.max(self.alpha_E, initial=0.0)), np.finfo(float).tiny)
        inE = np.zeros(self.g.size, bool)
        inE[self.E] = True
        v1 = float(np.max(-self.alpha_E / scale, initial=0.0))
        v2 = float(np.max(-self.g[~inE], initial=0.0))
        return max(v1, v2, 0.0)

    def consistent(self, tol: float) -> bool:
        a, b = self.violations(tol)
        return a.size == 0 and b.size == 0


def evaluate(hess: Hessian, E: np.ndarray, lam: float, *, deriv: bool = False) -> State:
    """Solve (7) on ``E`` at λ (Prop. 1-3) and the margins of all points (eq. 3)."""
    E = np.asarray(E, dtype=np.intp)
    if E.size == 0:
        raise SolverError("the active set became empty", solver="l2svm_path", status="empty_active_set")
    chol, dense, cols = hess.system(E, lam)
    yE = hess.y[E]
    V = chol.solve(np.column_stack([yE, np.ones(E.size)]))  # eq. (10): ν and ρ in one solve
    nu, rho = V[:, 0], V[:, 1]
    a0 = float(yE @ rho) / float(yE @ nu)                     # eq. (11)
    aE = rho - a0 * nu
    g = cols(aE) + hess.y * a0 - 1.0
    g[E] = -0.5 * lam * aE  # exact on E by (7); removes rounding noise
    st = State(lam=lam, E=E, alpha_E=aE, alpha0=a0, g=g, chol=chol, nu=nu, rho=rho, dense=dense, cols=cols,
               _yE=yE)
    if deriv:
        derivatives(hess, st)
    return st


def derivatives(hess: Hessian, st: State) -> State:
    """Eq. (13): ``dα_0/dλ``, ``dα_E/dλ`` and ``dg/dλ`` for all points (one extra solve with
    the same factorization)."""
    yE = hess.y[st.E]
    nu, rho = st.nu, st.rho
    s = float(yE @ nu)
    da0 = -0.5 * (float(nu @ rho) * s - float(nu @ nu) * float(yE @ rho)) / s**2
    daE = -0.5 * st.chol.solve(st.alpha_E) - da0 * nu
    dg = (st.cols(daE) if st.cols is not None else hess.cols(st.E, daE)) + hess.y * da0
    dg[st.E] = -0.5 * st.alpha_E - 0.5 * st.lam * daE
    st.d_alpha0, st.d_alpha_E, st.d_g = float(da0), daE, dg
    return st


# ---------------------------------------------------------------------- active-set correction
def _line_search(hess: Hessian, lam: float, a: np.ndarray, b: float, o: np.ndarray,
                 a_t: np.ndarray, b_t: float, o_t: np.ndarray) -> float:
    """Exact line search on the primal objective ``F = Σ max(0, 1 - o_i)² + (λ/2) a^T H a``
    along ``(a, b) → (a_t, b_t)`` in ``[0, 1]`` (F is convex and piecewise quadratic)."""
    da, do = a_t - a, o_t - o
    Hda = do - hess.y * (b_t - b)
    q1, q2 = float(a @ Hda), float(da @ Hda)

    def dF(t: float) -> float:
        r = np.maximum(0.0, 1.0 - o - t * do)
        return float(-2.0 * r @ do + lam * (q1 + t * q2))

    if dF(1.0) <= 0:
        return 1.0
    if dF(0.0) >= 0:
        return 0.0
    return brentq(dF, 0.0, 1.0, xtol=1e-14, rtol=1e-12)


def _newton(hess: Hessian, lam: float, a: np.ndarray, b: float, tol: float, max_iter: int,
            noise_tol: float = 1e-6) -> State:
    """Chapelle's primal Newton method with exact line search (finite convergence in exact
    arithmetic).  A cycle, or the iteration limit, ends with the least-violating state seen
    if its violation is within the rounding-noise level (a :class:`ConditioningWarning` is
    issued at the limit); otherwise :class:`SolverError`."""
    noise = max(noise_tol, hess.noise_level(lam))
    o = hess.matvec(a) + hess.y * b
    seen: dict[bytes, State] = {}
    for _ in range(max_iter):
        E = np.flatnonzero(o < 1.0)
        if E.size == 0:
            E = np.array([int(np.argmin(o))])
        st = evaluate(hess, E, lam)
        if st.consistent(tol):
            return st
        if E.tobytes() in seen:
            best = min(seen.values(), key=lambda s: s.max_violation())
            if best.max_violation() <= noise:
                return best
        seen[E.tobytes()] = st
        a_t = st.alpha(hess.m)
        o_t = st.g + 1.0
        t = _line_search(hess, lam, a, b, o, a_t, st.alpha0, o_t)
        if t <= 0.0:
            t = 1.0
        a = a + t * (a_t - a)
        b = b + t * (st.alpha0 - b)
        o = o + t * (o_t - o)
    best = min(seen.values(), key=lambda s: s.max_violation()) if seen else None
    if best is not None and best.max_violation() <= 10 * noise:
        warnings.warn(f"active-set iteration at λ = {lam:.3g} stopped at a partition consistent only "
                      f"within {best.max_violation():.2g} (rounding-noise level {noise:.2g}: H_EE(λ) is "
                      "ill-conditioned)", ConditioningWarning, stacklevel=3)
        return best
    raise SolverError(f"the active-set Newton iteration did not converge in {max_iter} steps at λ = {lam:.3g}",
                      solver="l2svm_path", status="max_iter")


def correct_active_set(hess: Hessian, E: np.ndarray, lam: float, *, tol: float = 1e-9,
                       max_iter: int = 100, start: State | None = None,
                       noise_tol: float = 1e-6, max_plain: int = 20) -> tuple[State, int]:
    """The inner loop of Fig. 1: solve (7) on ``E``, check consistency, update ``E`` from the
    multipliers and margins, until consistent.  Returns the consistent state and the number
    of solves.

    A cycle whose best state violates consistency by at most ``max(noise_tol,
    hess.noise_level(λ))`` (relative units of :meth:`State.max_violation`) is a point sitting on
    a breakpoint within rounding noise (at small λ the noise of ``α_E`` is about
    ``ε_mach · cond(H_EE(λ))``); that state is accepted.
    Any other cycle, or ``max_plain`` updates without consistency, switches to Chapelle's
    Newton method with exact line search, started from ``start`` (the consistent solution at
    the previous λ of the path) when given, else from the last state.  That method may raise
    :class:`SolverError` after ``max_iter`` steps on very ill-conditioned problems; the path
    then shortens its step (see :func:`regularization_path`)."""
    E = np.unique(np.asarray(E, dtype=np.intp))
    noise = max(noise_tol, hess.noise_level(lam))
    seen: dict[bytes, State] = {}
    st = None
    it = 0
    for it in range(1, max_plain + 1):
        if E.size == 0:
            break
        st = evaluate(hess, E, lam)
        leave, enter = st.violations(tol)
        if leave.size == 0 and enter.size == 0:
            return st, it
        seen[E.tobytes()] = st
        mask = np.zeros(hess.m, bool)
        mask[E] = True
        mask[leave] = False
        mask[enter] = True
        E = np.flatnonzero(mask)
        if E.tobytes() in seen:
            best = min(seen.values(), key=lambda s: s.max_violation())
            if best.max_violation() <= noise:
                return best, it
            break
    # cycle, no convergence or empty set: primal Newton with line search
    ref = start if start is not None else st
    if ref is not None:
        a, b = ref.alpha(hess.m), ref.alpha0
    else:
        a, b = np.zeros(hess.m), 0.0
    st = _newton(hess, lam, a, b, tol, max_iter, noise_tol)
    return st, it + max_iter


def blas_limit(threads: int | None):
    """Context limiting BLAS threads (None: leave as is).

    The path performs many small factorizations; multi-threaded BLAS only adds overhead to them
    (and on a loaded machine OpenBLAS threads can make a 200 × 200 Cholesky 100× slower), so
    the path and the fixed-λ solver run with one BLAS thread by default."""
    if threads is None:
        from contextlib import nullcontext

        return nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(threads), user_api="blas")


def solve_fixed(y: np.ndarray, lam: float, *, K: np.ndarray | None = None,
                factor: LowRankFactor | None = None, hess: Hessian | None = None,
                E0: np.ndarray | None = None, tol: float = 1e-9, max_iter: int = 200,
                blas_threads: int | None = 1) -> State:
    """The ℓ2-SVM at one λ (Problem 2) by the active-set iteration, started from ``E0``
    (default: all points, i.e. the LS-SVM solution, which is exact for large λ).

    Returns the consistent :class:`State` (``E``, ``α_E``, ``α_0``, margins)."""
    lam = check_positive(lam, "lam (λ)")
    if hess is None:
        y = _pm1(y)
        hess = Hessian(y, K=K, factor=factor)
    E0 = np.arange(hess.m) if E0 is None else E0
    with blas_limit(blas_threads):
        st, _ = correct_active_set(hess, E0, lam, tol=tol, max_iter=max_iter)
    return st


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
        ball = _ball(self.hess)
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
        if criterion == "span":
            vals = self.span(lambdas)
        elif criterion == "radius_margin":
            vals = self.radius_margin(lambdas)
        else:
            raise HyperparameterError(f"criterion must be 'span' or 'radius_margin', got {criterion!r}")
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


def expand(path: L2SVMPath, st: State, *, expansion: str = "landmarks", eps: float = 1e-8
           ) -> tuple[Any, np.ndarray, float]:
    """§2.7.3: the classifier ``h(x) = Σ_j γ_j k(z_j, x) + α_0`` on the original kernel.

    * exact Hessian (the Gram, or :func:`~lssvm_cvx.lowrank.eigen_factor` at its default
      numerical-rank threshold): ``z = x_E``, ``γ = y_E ∘ α_E``;
    * low-rank factor, ``expansion="landmarks"``: ``h`` built on ``κ_r`` is exactly
      ``k(x, Z) A R_E^T (y_E ∘ α_E) + α_0`` (``R = k(X, Z) A``), an expansion on the landmarks;
    * low-rank factor, ``expansion="support"`` (the paper's choice ``J = E``): solve
      ``(K_EE + (ε/2) I) γ = [R R_E^T (y_E ∘ α_E)]_E`` so that ``ĥ`` equals the ``κ_r`` classifier
      on ``d_E`` (``O(m_E³)``).

    Returns ``(Z, γ, α_0)`` with ``Z`` the expansion points (indices into the training Gram for
    a precomputed kernel).
    """
    hess, y = path.hess, path.y
    pre = path.kernel is None or isinstance(path.kernel, Precomputed)
    if hess.factor is None or hess.factor.info.get("numerically_exact", False):
        coef = y[st.E] * st.alpha_E
        return (st.E if pre else np.asarray(path.X)[st.E]), coef, st.alpha0
    fac = hess.factor
    w = fac.R[st.E].T @ (y[st.E] * st.alpha_E)
    if expansion == "landmarks":
        if pre:
            return fac.landmark_index, fac.A @ w, st.alpha0
        return fac.Z, fac.A @ w, st.alpha0
    if expansion == "support":
        if pre:
            raise HyperparameterError("expansion='support' needs a kernel function")
        XE = np.asarray(path.X)[st.E]
        KEE = path.kernel(XE)
        KEE[np.diag_indices_from(KEE)] += eps / 2.0
        f = fac.R[st.E] @ w
        gamma = Cholesky.factor(KEE, name="K_EE(ε)", overwrite=True, check_cond=False).solve(f)
        return XE, gamma, st.alpha0
    raise HyperparameterError(f"expansion must be 'landmarks' or 'support', got {expansion!r}")


def span_loo(hess: Hessian, st: State) -> float:
    """Span leave-one-out test error prediction of the ℓ2-SVM at ``st`` (Prop. 4, eq. 16):
    ``(1/m) #{i ∈ E : α_i / (A_E(λ)^{-1})_{ii} - 1 ≥ 0}``, with the diagonal of ``A_E(λ)^{-1}``
    from eq. (22)-(23) (``(H_EE(λ)^{-1})_{ii} - ν_i² / (y_E^T ν)``; eq. 24 with low-rank factors).
    Points of ``I`` are never leave-one-out errors."""
    return float(np.sum(span_loo_outputs(st) <= 0.0)) / hess.m


def span_loo_outputs(st: State) -> np.ndarray:
    """``y_i h^i_λ(x_i) = 1 - α_i / (A_E(λ)^{-1})_{ii}`` for ``i ∈ E`` (eq. 20)."""
    return 1.0 - st.alpha_E / st.sys.alpha_inv_diag()


def radius_margin(st: State, R2: float, m: int) -> float:
    """``(4/m) R² / γ²`` (Theorem 1 as printed) with ``1/γ² = α^T H(λ) α = 1^T α`` for the
    hard-margin machine of kernel ``κ_λ`` (from (7): ``α_E^T H_EE(λ) α_E = 1^T α_E``).

    The factor 4 is the paper's (and Chung et al. 2003, its ref. [10]); Chapelle et al. (2002)
    state the bound as ``R²/γ²`` over ``m``.  The constant does not move the minimiser."""
    return 4.0 * R2 * float(np.sum(st.alpha_E)) / m


class _BallOnHessian:
    """Enclosing-ball QP on the working Gram ``K_w`` (the exact Gram or ``R R^T``), DPP in λ."""

    def __init__(self, hess: Hessian):
        import cvxpy as cp

        from .solvers import solve_problem

        self._solve_problem = solve_problem
        self.lam = cp.Parameter(nonneg=True, name="lam")
        if hess.factor is not None:
            F = hess.factor.R
            d = np.einsum("ij,ij->i", F, F)
            self.m = F.shape[0]
            self.beta = cp.Variable(self.m, name="beta")
            quad = cp.sum_squares(F.T @ self.beta)
        else:
            K = hess.gram()
            d = np.diag(K).copy()
            self.m = K.shape[0]
            self.beta = cp.Variable(self.m, name="beta")
            quad = cp.quad_form(self.beta, cp.psd_wrap((K + K.T) / 2))
        obj = cp.Minimize(quad + self.lam / 2 * cp.sum_squares(self.beta) - d @ self.beta - self.lam / 2)
        self.problem = cp.Problem(obj, [self.beta >= 0, cp.sum(self.beta) == 1])

    def radius2(self, lam: float, solver: str = "CLARABEL") -> float:
        self.lam.value = lam
        info = self._solve_problem(self.problem, solver, accept_inaccurate=True)
        return float(-info["value"])


def _ball(hess: Hessian) -> _BallOnHessian:
    if getattr(hess, "_ball", None) is None:
        hess._ball = _BallOnHessian(hess)
    return hess._ball


def _pm1(y: Any) -> np.ndarray:
    y = np.asarray(y)
    if y.dtype.kind == "f" and set(np.unique(y)) <= {-1.0, 1.0} and np.unique(y).size == 2:
        return y.astype(np.float64)
    return binary_labels(y)[0]


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
        The exact Gram and/or a low-rank factor of it (:mod:`lssvm_cvx.lowrank`).  Exact mode
        is meant for ``K`` (optionally with the numerically exact factor of
        :func:`lssvm_cvx.lowrank.eigen_factor` for speed); with only a factor, both modes
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
    if breakpoints not in ("paper", "exact"):
        raise HyperparameterError(f"breakpoints must be 'paper' or 'exact', got {breakpoints!r}")
    if not 0 < fraction <= 1:
        raise HyperparameterError(f"fraction must be in (0, 1], got {fraction!r}")
    ypm = _pm1(y)
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
    g, dg = st.g, st.d_g
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
        dpsi = st.d_g.copy()
        dpsi[st.E] = st.d_alpha_E / scale
    return psi, dpsi


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
