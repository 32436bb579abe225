"""The ℓ2-SVM at one λ by the active-set iteration (Bonidal, Tindel & Guermeur 2013, §2.3-2.4,
Propositions 1-3): the working Hessian (exact Gram or low-rank factor), the bordered system (7)
on an active set, its λ-derivatives (eq. 13) and the active-set correction (the inner loop of
Fig. 1).  The regularization path over λ is :mod:`lssvm_cvx.selection.l2svm_path`.

Notation (the paper's): ``H = diag(y) K diag(y)``, ``H(λ) = H + (λ/2) I``; the active set
``E(λ) = {i : y_i h_λ(x_i) < 1}`` (the support vectors, ``α_i > 0``) and ``I`` its complement;
``g_i(λ) = y_i h_λ(x_i) - 1`` (eq. 3), so that ``g_i = -(λ/2) α_i < 0`` on ``E`` (eq. 1, 5) and
``g_i ≥ 0`` on ``I``.  With ``E`` fixed, ``(α_0, α_E)`` solve the bordered system (7) (an
LS-SVM on ``d_E`` with ``γ = 2/λ``, Proposition 2) and are rational functions of λ whose
derivatives are eq. (13)::

    dα_0/dλ = -½ (ν^Tρ · y_E^Tν - ν^Tν · y_E^Tρ) / (y_E^Tν)²

The inner loop ("active-set correction") replaces ``E`` by ``{i ∈ E: α_i > 0} ∪ {i ∈ I: g_i < 0}``
(the paper's rule, which is one step of Chapelle's primal Newton method for the squared
hinge loss); if it cycles it switches to that Newton method with an exact line search on
the primal objective, whose finite convergence Chapelle (2007, the paper's ref. [8]) proves.

The Hessian is either the exact Gram (``H`` dense, a Cholesky factor of ``H_EE(λ)`` per solve)
or a low-rank factor ``K ≈ R R^T`` (:mod:`lssvm_cvx.kernels.factors`) with the Sherman–Morrison–Woodbury
solves of Proposition 3 and the incremental ``R_E^T R_E`` of §2.7.2 (a Cholesky factor of
``R_E R_E^T + (λ/2) I`` when ``m_E ≤ r``).  :func:`lssvm_cvx.kernels.factors.eigen_factor` at its default
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

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ..checks import binary_labels, check_positive
from ..exceptions import ConditioningWarning, InputError, SolverError
from ..kernels.factors import LowRankFactor
from ..linalg import BorderedSystem, Cholesky
from ..linalg.smw import SMWSystem
from ..linalg.threads import blas_limit

__all__ = [
    "Hessian",
    "State",
    "evaluate",
    "derivatives",
    "correct_active_set",
    "solve_fixed",
]


# ------------------------------------------------------------------------------- Hessian
class Hessian:
    """The working Hessian ``H_w = diag(y) K_w diag(y)`` of Problem 2: the exact Gram (``K``) or
    a low-rank factor (``K_w = R R^T``, :mod:`lssvm_cvx.kernels.factors`).

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
        A :class:`~lssvm_cvx.kernels.factors.LowRankFactor`.
    """

    #: the enclosing-ball problem of the radius-margin criterion, cached by
    #: :func:`lssvm_cvx.selection.l2svm_criteria.ball_on_hessian`
    _ball: Any = None

    def __init__(self, y: np.ndarray, *, K: np.ndarray | None = None,
                 factor: LowRankFactor | None = None):
        if K is None and factor is None:
            raise InputError("Hessian needs a Gram K or a low-rank factor")
        self.y = np.asarray(y, dtype=np.float64)
        self.m = self.y.size
        self.factor = factor
        self.H: np.ndarray | None
        self.RH: np.ndarray | None
        self.smw: SMWSystem | None
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
                    self._s_max = float(np.abs(self._dense()).sum(axis=1).max())
        return self._s_max

    def noise_level(self, lam: float) -> float:
        """Relative rounding noise of ``α_E`` at λ: ``100 ε_mach cond(H(λ))``, with
        ``cond ≤ (s_max + λ/2) / (λ/2)``."""
        c = 0.5 * lam
        return 100.0 * np.finfo(np.float64).eps * (self.s_max + c) / c

    @property
    def kind(self) -> str:
        return "dense" if self.factor is None else "lowrank"

    def _dense(self) -> np.ndarray:
        """``H_w`` of a dense Hessian."""
        if self.H is None:
            raise InputError("this Hessian is a low-rank factor, not a dense matrix")
        return self.H

    def _low_rank(self) -> tuple[LowRankFactor, np.ndarray, SMWSystem]:
        """The factor, ``R_H`` and the SMW system of a low-rank Hessian."""
        if self.factor is None or self.RH is None or self.smw is None:
            raise InputError("this Hessian is dense: it has no low-rank factor")
        return self.factor, self.RH, self.smw

    def system(self, E: np.ndarray, lam: float) -> tuple[Any, bool, Any]:
        """A factorization of ``H_EE(λ)`` (:class:`~lssvm_cvx.linalg.Cholesky` or
        :class:`~lssvm_cvx.linalg.smw.SMWFactor`, both with ``solve`` and ``inv_diag``), whether it
        is a dense Cholesky, and ``cols(v) = H_w[:, E] @ v`` sharing the blocks already
        extracted for the solve."""
        c = 0.5 * lam
        self.n_solves += 1
        if self.H is not None:
            HE = self.H[:, E]
            M = HE[E]
            cols = HE.__matmul__
        elif E.size <= self.r:
            RH = self._low_rank()[1]
            RE = RH[E]
            M = RE @ RE.T
            cols = lambda v, RE=RE: RH @ (RE.T @ v)  # noqa: E731
        else:
            _, RH, smw = self._low_rank()
            smw.set_active(E)
            fac = smw.factor(c)
            return fac, False, lambda v, RE=fac.RE: RH @ (RE.T @ v)
        M[np.diag_indices_from(M)] += c
        chol = Cholesky.factor(M, name="H_EE(λ)", overwrite=True, check_cond=False)
        return chol, True, cols

    def cols(self, E: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``H_w[:, E] @ v`` (all ``m`` rows)."""
        if self.H is not None:
            return self.H[:, E] @ v
        RH = self._low_rank()[1]
        return RH @ (RH[E].T @ v)

    def matvec(self, a: np.ndarray) -> np.ndarray:
        """``H_w @ a`` for a full vector (used by the line search)."""
        if self.H is not None:
            return self.H @ a
        RH = self._low_rank()[1]
        return RH @ (RH.T @ a)

    def gram(self) -> np.ndarray:
        """The working Gram ``K_w`` (``m × m``)."""
        if self.H is not None:
            return self.H * np.outer(self.y, self.y)
        factor = self._low_rank()[0]
        return factor.R @ factor.R.T


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
        if self._yE is None:
            raise InputError("state has no labels of E; re-evaluate it")
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
    if nu is None or rho is None:
        raise InputError("state has no factorization; re-evaluate it")
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
    least = min(seen.values(), key=lambda s: s.max_violation()) if seen else None
    if least is not None and least.max_violation() <= 10 * noise:
        warnings.warn(f"active-set iteration at λ = {lam:.3g} stopped at a partition consistent only "
                      f"within {least.max_violation():.2g} (rounding-noise level {noise:.2g}: H_EE(λ) is "
                      "ill-conditioned)", ConditioningWarning, stacklevel=3)
        return least
    raise SolverError(f"the active-set Newton iteration did not converge in {max_iter} steps "
                      f"at λ = {lam:.3g}",
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


def solve_fixed(y: np.ndarray, lam: float, *, K: np.ndarray | None = None,
                factor: LowRankFactor | None = None, hess: Hessian | None = None,
                E0: np.ndarray | None = None, tol: float = 1e-9, max_iter: int = 200,
                blas_threads: int | None = 1) -> State:
    """The ℓ2-SVM at one λ (Problem 2) by the active-set iteration, started from ``E0``
    (default: all points, i.e. the LS-SVM solution, which is exact for large λ).

    Returns the consistent :class:`State` (``E``, ``α_E``, ``α_0``, margins)."""
    lam = check_positive(lam, "lam (λ)")
    if hess is None:
        y = binary_labels(y)[0]
        hess = Hessian(y, K=K, factor=factor)
    E0 = np.arange(hess.m) if E0 is None else E0
    with blas_limit(blas_threads):
        st, _ = correct_active_set(hess, E0, lam, tol=tol, max_iter=max_iter)
    return st
