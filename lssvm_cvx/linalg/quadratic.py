"""Closed form of the squared loss with quadratic terms, exact leave-one-out and k-fold
residuals, and one-weight paths.

The problem (with ``S = diag(s)``, ``s_i > 0`` the loss weights and ``P = Σ_k w_k P_k``)::

    min_{α, b}  ½ (y - Kα - b1)' S (y - Kα - b1) + ½ α'Pα.

Augmented system
----------------
With ``μ = S^{½}(Kα + b1 - y)`` the optimality conditions are the symmetric (indefinite)
system of order ``2N + 1``::

    [ P      0       K S^½ ] [α]   [   0    ]
    [ 0      0      1'S^½  ] [b] = [   0    ]                                   (A)
    [ S^½K  S^½1     -I    ] [μ]   [ S^½ y  ]

(first row: stationarity in α, ``Pα + K S (Kα + b1 - y) = 0``; second: in b).  Unlike the
normal equations ``(P + KSK) α = ...`` it does not square the condition number of ``K``.  It is
singular exactly when some ``(α, b) ≠ 0`` has ``Pα = 0`` and ``Kα + b1 = 0`` (then α is not
identifiable; the fitted values still are — e.g. an RBF Gram that is numerically singular
under a term ``K M K`` on the fitted values).  We factorise it by LU with partial pivoting
(``dgetrf``: faster here than the symmetric-indefinite ``dsytrf``); when ``dgecon`` estimates a
reciprocal condition below :data:`lssvm_cvx.linalg.cholesky.COND_WARN` we add the ridge ``δ I`` to
the α block (``δ =`` :data:`JITTER` ``· max|A|``), which picks the small-norm α among the
equivalent ones, and fall back to a pseudo-inverse with a
:class:`~lssvm_cvx.exceptions.ConditioningWarning` only if that is still singular.  Every solve
with the ridge is followed by iterative refinement against the exact system (residual of (A)
without the ridge, corrected with the ridged factors: the iterated-Tikhonov step, which
converges for a consistent singular system), at most :data:`REFINE_STEPS` steps of O(N²) each,
until the residual stops halving.  That step shrinks the error by ``δ/(λ + δ)`` per
eigen-direction of the α block while the residual of (A) is at rounding level after one step,
so the ridge must sit below the penalty's small but real eigenvalues (``δ = 1e-10·max|A|``
until 2026-11-30 left a graph term's fitted values 4.1e-3 ``||y||`` from the range of K at
N = 60, ``1e-14`` 7.2e-9: ``notes/augmented_ridge.md``; ``tests/test_engine.py`` checks it).
The leave-``E``-out refits of :meth:`AugmentedSystem.refit_predictions` subtract columns of
the ridged inverse: with a ridge they lose digits or move with it (the range of K refits
without one since the fifteenth session: :mod:`~lssvm_cvx.linalg.range_refits`).
:meth:`AugmentedSystem.diagnostics` reports the ridge, the steps and the final relative
residual, which the closed form's certificate carries.

Exact leave-one-out (observation i leaves the loss; basis and penalty stay)
----------------------------------------------------------------------------
The fitted values are ``ŷ = y + S^{-½} μ = H y`` with hat matrix ``H = I + S^{-½} Z S^{½}``,
``Z`` the ``μμ`` block of ``A^{-1}``.  For a quadratic penalty and a fixed basis, refitting
without observation i is the same as refitting with ``y_i`` replaced by its own leave-one-out
prediction (the usual ridge argument), so ``y_i - ŷ_i^{(-i)} = (y_i - ŷ_i)/(1 - H_ii)``, i.e.::

    r_i = μ_i / (sqrt(s_i) Z_ii),         r_V = S_V^{-½} Z_VV^{-1} μ_V   (a held-out set V).

RKHS-only fast path
-------------------
When ``P = cK`` (every term is :class:`~lssvm_cvx.terms.RKHSNorm`), ``α = -S^{½}μ/c`` solves the
first row and (A) reduces to the weighted LS-SVM system ``(K + c S^{-1}) α + b1 = y``,
``1'α = 0`` (AReg paper eq. 75 with ``γ_i = s_i / c``): one Cholesky of order N, and the
leave-one-out residuals ``α_i / C_ii`` of the bordered inverse (Cawley & Talbot).  Both are
checked against brute-force refits in ``tests/test_regularized.py``.

Used by :class:`lssvm_cvx.formulations.RegularizedLSSVM` (the composition of a loss and terms).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import array_api_compat as aac
import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from ..checks import as_gram, as_targets, check_grid
from ..exceptions import ConditioningWarning, InputError, NotSupportedError, NumericalError
from .arrays import ArrayLU, check_zero_top, diag_matrix, namespace_or_numpy
from .bordered import BorderedSystem, lssvm_system
from .cholesky import COND_WARN, Cholesky, one_norm
from .scores import block_residuals, diagonal_residuals, dual_gcv, gcv_score, leverage_residuals

__all__ = ["QuadraticSystem", "RKHSSystem", "AugmentedSystem", "generalized_path",
           "JITTER", "REFINE_STEPS", "RESIDUAL_TOL"]

#: relative ridge on α added when system (A) is numerically singular (α not identifiable)
JITTER = 1e-14
#: most iterative-refinement steps after a solve with the ridge
REFINE_STEPS = 20
#: largest relative residual ``||A x - r|| / ||r||`` of a solve off NumPy accepted (NumPy falls
#: back to the pseudo-inverse instead)
RESIDUAL_TOL = 1e-8


def _cols(Y: np.ndarray) -> np.ndarray:
    return Y[:, None] if Y.ndim == 1 else Y


def _like(Y: np.ndarray, R: np.ndarray) -> np.ndarray:
    return R[:, 0] if Y.ndim == 1 else R


def _deleted(V: np.ndarray, GR: np.ndarray, M: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``V - G_{:,R} G_{R,R}^{-1} V_R`` (zero on ``R``): from ``V = A^{-1} r``, the solution of
    the system with the rows and columns ``R`` deleted."""
    return V - GR @ np.linalg.solve(M, V[R])


class _Reduced:
    """The system (A) with the rows and columns ``R`` deleted and the α block changed by
    ``U C U'`` (``U`` at the remaining points): solves through the factorisation of (A)."""

    def __init__(self, aug: AugmentedSystem, GR: np.ndarray, M: np.ndarray, R: np.ndarray,
                 E: np.ndarray, U: np.ndarray | None, C: np.ndarray | None):
        self.aug, self.GR, self.M, self.R = aug, GR, M, R
        self.Ut: np.ndarray | None = None
        if U is not None and U.shape[1] and C is not None:
            n = aug.n
            self.Ut = np.zeros((2 * n + 1, U.shape[1]))
            self.Ut[np.setdiff1d(np.arange(n), E)] = U
            self.C = C
            self.SU = _deleted(aug._solve(self.Ut), GR, M, R)
            self.W = np.eye(U.shape[1]) + C @ (self.Ut.T @ self.SU)

    def solve(self, V: np.ndarray, AinvV: np.ndarray | None = None) -> np.ndarray:
        """The reduced system's solution for right-hand side ``V`` (``AinvV = A^{-1}V`` if
        known)."""
        SV = _deleted(self.aug._solve(V) if AinvV is None else AinvV, self.GR, self.M, self.R)
        if self.Ut is None:
            return SV
        return SV - self.SU @ np.linalg.solve(self.W, self.C @ (self.Ut.T @ SV))

    def apply(self, V: np.ndarray) -> np.ndarray:
        """The exact (ridge-free) reduced operator times ``V`` (zero on ``R``)."""
        AV = self.aug._apply(V)
        if self.Ut is not None:
            AV += self.Ut @ (self.C @ (self.Ut.T @ V))
        AV[self.R] = 0.0
        return AV


class QuadraticSystem:
    """Interface of the two factorisations: ``solve``, ``loo``, ``kfold``."""

    n: int

    def solve(self, Y: Any, top: Any = 0.0) -> tuple[Any, Any]:
        """``(alpha, b)`` for targets ``Y`` (``(N,)`` or ``(N, C)``); ``top``: the right-hand
        side of the border row ``a'α = top`` of the bordered representation (the fused AReg
        problems' duals; elsewhere 0)."""
        raise NotImplementedError

    def loo(self, Y: Any) -> Any:
        """Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)``."""
        raise NotImplementedError

    def kfold(self, Y: Any, folds: Sequence[Any], *, cover: bool = False) -> Any:
        """Exact held-out residuals for disjoint index sets ``folds`` (``cover``: they must
        also cover every point, :func:`~lssvm_cvx.linalg.folds.disjoint_folds`)."""
        raise NotImplementedError

    def fit(self, Y: Any, folds: Sequence[Any] | None = None, *, cover: bool = False,
            last: bool = False) -> tuple[Any, Any, Any]:
        """``(α, b, residuals)``: :meth:`solve` with the leave-one-out residuals (``folds=None``)
        or those held out per fold (:meth:`kfold`); a representation that answers both from one
        solve overrides it; ``last``: the system's last question (it may spend its factor)."""
        a, b = self.solve(Y)
        return a, b, self.loo(Y) if folds is None else self.kfold(Y, folds, cover=cover)

    def gcv(self, Y: np.ndarray) -> float:
        """Generalised cross-validation of the fit as a linear smoother ``ŷ = H y`` of the
        targets (:func:`~lssvm_cvx.linalg.scores.gcv_score`: ``N ||y - ŷ||² / tr(I - H)²``,
        the residuals unweighted, their mean over the columns of ``Y``; any namespace, the
        score a float)."""
        raise NotImplementedError

    def inverse(self) -> tuple[np.ndarray, np.ndarray]:
        """``(C, g)`` with ``α = C y`` and ``b = g'y`` for any ``y`` (the bordered
        representation's, :meth:`RKHSSystem.inverse`)."""
        raise NotSupportedError(f"{type(self).__name__} has no explicit inverse; the bordered "
                                "(RKHS-only) representation has")

    def diagnostics(self, Y: Any) -> dict[str, float]:
        """How accurate the solve for ``Y`` is: ``jitter`` (a ridge added to factorise, 0 if
        none), ``rcond`` (LAPACK's reciprocal condition estimate) and, where the system is
        kept, ``system_residual`` (``‖A x - B‖∞ / (‖A‖∞ ‖x‖∞ + ‖B‖∞)``)."""
        return {"jitter": 0.0}


class RKHSSystem(QuadraticSystem):
    """``P = cK``: the weighted LS-SVM bordered system (module docstring), with border ``1``
    or another vector ``a`` (the LS-SVM classifier's ``y``, AReg paper eq. 57, whose residuals
    are then ``a ∘`` those of the regression on the ±1 targets), on NumPy or on any array-API
    namespace and device (:class:`~lssvm_cvx.linalg.bordered.BorderedSystem`).  ``s`` may be a
    scalar; ``bias=False`` drops the bias and its border (the model ``Kα`` alone, the
    multiobjective paper's KRR)."""

    def __init__(self, K: Any, s: Any, c: float, *, border: Any = None, bias: bool = True,
                 overwrite: bool = False, name: str = "K + c S^-1 (RKHS term)"):
        xp, device, numpy = namespace_or_numpy(K, s, border)
        self.n = int(K.shape[0])
        a = (np.ones(self.n) if numpy else xp.ones(self.n, dtype=K.dtype, device=device)
             ) if border is None else border
        #: the LS-SVM's γ_i = s_i / c (AReg paper eq. 75)
        self.gamma = s / c
        self.system: BorderedSystem = lssvm_system(K, self.gamma, a if bias else None,
                                                   copy=not overwrite, name=name)

    def solve(self, Y, top=0.0):
        return self.system.solve(Y, top)

    def inverse(self) -> tuple[np.ndarray, np.ndarray]:
        """``(C, g)``, the α-block and bias row of the bordered inverse (NumPy): ``C = H⁻¹ -
        uu'/s``, ``g = u/s`` (``u = H⁻¹a``, ``s = a'u``; ``g = 0`` without the bias)."""
        sysm = self.system
        Hinv = sysm.chol.solve(np.eye(self.n))
        if sysm.u is None:
            return Hinv, np.zeros(self.n)
        return Hinv - np.outer(sysm.u, sysm.u) / sysm.s, sysm.u / sysm.s

    def fit(self, Y, folds=None, *, cover=False, last=False):
        """One solve; a ``last`` LOO overwrites the factor (:meth:`Cholesky.inv_diag`)."""
        alpha, b = (sysm := self.system).solve(Y)
        return alpha, b, (diagonal_residuals(alpha, sysm.alpha_inv_diag(overwrite=last))
                          if folds is None else
                          block_residuals(alpha, folds, sysm.alpha_inv_block, cover=cover))

    def loo(self, Y):
        return self.fit(Y)[2]

    def kfold(self, Y, folds, *, cover=False):
        return self.fit(Y, folds, cover=cover)[2]

    def gcv(self, Y):
        """``y - ŷ = α/γ`` and ``I - H = diag(1/γ) C`` (AReg paper eq. 2;
        :func:`~lssvm_cvx.linalg.scores.dual_gcv`)."""
        alpha, _ = self.system.solve(Y)
        return dual_gcv(alpha, self.system.alpha_inv_diag(), 1.0 / self.gamma)

    def diagnostics(self, Y):
        return {"jitter": 0.0, "rcond": self.system.chol.rcond}


class AugmentedSystem(QuadraticSystem):
    """System (A) of the module docstring, factorised once (LU with partial pivoting), on NumPy
    or on any array-API namespace and device (PyTorch on the CPU or CUDA, CuPy,
    ``array-api-strict``: the results stay there).

    Off NumPy the LU is the namespace's (:class:`~lssvm_cvx.linalg.arrays.ArrayLU`, Hager's
    condition estimate in place of LAPACK's ``dgecon``), the ridge and refinement policy is the
    same, and where NumPy falls back to the pseudo-inverse a solve whose relative residual stays
    above :data:`RESIDUAL_TOL` is a one-line :class:`~lssvm_cvx.exceptions.NumericalError`
    (issue 30 step 5: this class replaced the device twin in ``lssvm_cvx.device.quadratic``).
    :meth:`refit_predictions` is NumPy's only.  ``ridge``: the relative ridge where one is
    needed (module docstring; default :data:`JITTER`).
    """

    def __init__(self, K: Any, s: Any, P: Any, *, ridge: float = JITTER):
        xp, _, self._numpy = namespace_or_numpy(K, s, P)
        self.xp = xp
        n = int(K.shape[0])
        self.n, self.r = n, xp.sqrt(s)
        self._K, self._P = K, P  # the exact system, for refinement and residuals (no copy)
        self._pinv: np.ndarray | None = None
        self.jitter, self.refinement_steps, self._Z = 0.0, 0, None
        A = self._assemble()
        self._anorm = one_norm(A)     # of the exact system (A)
        if not self._factor(A, self._anorm) or self.rcond < COND_WARN:
            # α is not identifiable (module docstring): add δ||α||²/2, δ tiny relative to the
            # system, for the smallest-norm α among the (almost) equivalent ones (moving the
            # fitted values by O(δ), which refinement removes: _refined)
            A = self._assemble(out=A) if self._numpy else A   # (A) again where the LU was
            self.jitter = ridge * max(float(xp.max(A)), -float(xp.min(A)), 1.0)   # max |A|
            ok = self._factor(self._ridged(A))
            # with δ > 0 (A) is nonsingular (the α block is positive definite) and LU is
            # backward stable in practice: only a zero pivot or a condition beyond double
            # precision calls for NumPy's pseudo-inverse (elsewhere refused: _refined)
            if self._numpy and (not ok or self.rcond < np.finfo(float).eps ** 1.5):
                warnings.warn(
                    f"the optimality system of the composed problem is singular "
                    f"(reciprocal condition ≈ {self.rcond:.1e}) even with a ridge "
                    f"{self.jitter:.1e} on α; using the pseudo-inverse", ConditioningWarning,
                    stacklevel=4)
                w, V = np.linalg.eigh(self._ridged(self._assemble()))
                keep = np.abs(w) > 1e-12 * np.abs(w).max()
                self._pinv = (V[:, keep] / w[keep]) @ V[:, keep].T

    def _ridged(self, A: Any) -> Any:
        """``A`` with the ridge ``jitter`` on the diagonal of its α block (in place on NumPy)."""
        xp, n = self.xp, self.n
        if self._numpy:
            A[np.arange(n), np.arange(n)] += self.jitter
            return A
        dt, dev = A.dtype, aac.device(A)
        return A + diag_matrix(xp, xp.concat([xp.full((n,), self.jitter, dtype=dt, device=dev),
                                               xp.zeros((n + 1,), dtype=dt, device=dev)]))

    def _assemble(self, out: np.ndarray | None = None) -> Any:
        """System (A) in the inputs' namespace (on NumPy Fortran-ordered, so that the LU
        overwrites it, :meth:`_factor`; in ``out`` when given)."""
        xp, n, K, r = self.xp, self.n, self._K, self.r
        if self._numpy:
            A = np.zeros((2 * n + 1, 2 * n + 1), order="F") if out is None else out
            A[:n, n] = A[n, :n + 1] = A[n + 1:, n + 1:] = 0.0   # (already, unless out)
            A[:n, :n] = self._P
            np.multiply(r[:, None], K, out=A[n + 1:, :n])       # no N × N temporary
            A[n + 1:, n] = r
            A[:n, n + 1:] = A[n + 1:, :n].T
            A[n, n + 1:] = r
            A[np.arange(n + 1, 2 * n + 1), np.arange(n + 1, 2 * n + 1)] = -1.0
            return A
        dt, dev = K.dtype, aac.device(K)
        SK = r[:, None] * K                                   # S^½ K
        return xp.concat([
            xp.concat([self._P, xp.zeros((n, 1), dtype=dt, device=dev), xp.matrix_transpose(SK)],
                      axis=1),
            xp.concat([xp.zeros((1, n + 1), dtype=dt, device=dev), r[None, :]], axis=1),
            xp.concat([SK, r[:, None], -xp.eye(n, dtype=dt, device=dev)], axis=1)], axis=0)

    def _factor(self, A: Any, anorm: float | None = None) -> bool:
        """LU with partial pivoting and the reciprocal condition ``rcond``; False at a zero
        pivot.  NumPy: ``dgetrf`` in the Fortran-ordered ``A`` (peak one array of order 2N + 1;
        a copy until 2026-12-06; ``dsytrf`` took 7.5× longer, 4.9 s vs 0.65 s at order 2001)
        and ``dgecon`` with ``anorm``, ``A``'s 1-norm; elsewhere the namespace's LU and Hager's
        estimate (:class:`~lssvm_cvx.linalg.arrays.ArrayLU`)."""
        if not self._numpy:
            self._lu = ArrayLU(self.xp, A)
            self.rcond = self._lu.rcond()
            return True
        anorm = one_norm(A) if anorm is None else anorm        # before the LU overwrites A
        self._lu, self._piv, info = lapack.dgetrf(A, overwrite_a=1)
        if info != 0:
            self.rcond = 0.0
            return False
        self.rcond = float(lapack.dgecon(self._lu, anorm, norm="1")[0])
        return True

    def _solve(self, B: Any) -> Any:
        if self._pinv is not None:
            return self._pinv @ B
        if not self._numpy:
            return self._lu.solve(B)
        X, info = lapack.dgetrs(self._lu, self._piv, B)
        if info != 0:  # pragma: no cover - argument error inside LAPACK
            raise InputError(f"dgetrs failed (info {info})")
        return X

    def _apply(self, X: Any) -> Any:
        """``A X`` with the exact (ridge-free) system (A), blockwise in O(N²)."""
        n, r = self.n, self.r[:, None]
        a, b, mu = X[:n, ...], X[n:n + 1, ...], X[n + 1:, ...]
        return self.xp.concat([self._P @ a + self._K @ (r * mu), self.r[None, :] @ mu,
                               r * (self._K @ a) + r * b - mu], axis=0)

    def _rhs(self, Y: Any) -> Any:
        xp, n, Yc = self.xp, self.n, _cols(Y)
        zeros = xp.zeros((n + 1, int(Yc.shape[1])), dtype=Yc.dtype, device=aac.device(Yc))
        return xp.concat([zeros, self.r[:, None] * Yc], axis=0)

    def _residual(self, X: Any, B: Any) -> float:
        xp = self.xp
        R = B - self._apply(X)
        den = self._anorm * float(xp.max(xp.abs(X))) + float(xp.max(xp.abs(B)))
        return float(xp.max(xp.abs(R))) / max(den, np.finfo(float).tiny)

    def _full(self, Y: Any) -> Any:
        return self._refined(self._rhs(Y))

    def _refined(self, B: Any) -> Any:
        """``A⁻¹B`` for the exact system (A): with the ridge, the ridged factors' solution
        refined against (A), every column (the fitted values, hence ``μ`` and the ``μμ`` block
        of the inverse, are identifiable even where ``α`` is not)."""
        X = self._solve(B)
        res = None
        if self.jitter and self._pinv is None:
            # iterative refinement against the exact system: X += A_δ^{-1}(B - A X)
            res = self._residual(X, B)
            for step in range(REFINE_STEPS):
                X_new = X + self._solve(B - self._apply(X))
                res_new = self._residual(X_new, B)
                if not res_new < 0.5 * res:
                    break
                X, res = X_new, res_new
                self.refinement_steps = max(self.refinement_steps, step + 1)
        if not self._numpy:       # no pseudo-inverse to fall back to: refuse an inexact solve
            res = self._residual(X, B) if res is None else res
            if not (bool(self.xp.all(self.xp.isfinite(X))) and res <= RESIDUAL_TOL):
                raise NumericalError(
                    f"the augmented system of the quadratic terms is singular in {B.dtype} "
                    f"(relative residual {res:.2g} > {RESIDUAL_TOL:g} with a ridge "
                    f"{self.jitter:.1e} on α); fit on NumPy arrays, which fall back to the "
                    "pseudo-inverse")
        return X

    def refit_predictions(self, Y: np.ndarray, sets: Sequence[tuple[np.ndarray, np.ndarray]],
                          changes: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
                          ) -> list[np.ndarray]:
        """Decision values at ``test`` of the model refitted without the points ``E`` — out of
        the loss, out of the basis and out of ``P`` — for each ``(E, test)`` in ``sets``
        (``test ⊆ E``).

        The refit's optimality system is (A) with the rows and columns of ``α_E`` and ``μ_E``
        (the set ``R``) deleted, its ``α`` block ``P[-E, -E] + U C U'`` (``changes``, per set:
        how the terms change on the remaining points; none for terms that do not depend on
        the data).  With ``G = A^{-1}`` and ``x = G r``, the deleted system's solution is
        ``S(r) = x_{-R} - G_{-R,R} G_{R,R}^{-1} x_R`` (the Schur complement of the inverse), and
        with the change ``x' = S(r) - S(Ũ) (I + C Ũ'S(Ũ))^{-1} C Ũ'S(r)`` (Woodbury, ``Ũ`` the
        rows of ``U`` at ``α_{-E}``).  The prediction ``f'(x_t) = Σ_{j∉E} K_tj α'_j + b'``
        needs only the columns ``R`` of ``G``: O(N³) once for every leave-one-out set, then
        O(N|E|² + rN²) per set.  When the system needed the ridge, each refit is refined
        against its exact system as :meth:`solve` is (O(N²) per step and set).

        Parameters
        ----------
        Y : numpy.ndarray of shape (N,) or (N, C)
            Targets.
        sets : sequence of (numpy.ndarray, numpy.ndarray)
            Pairs ``(E, test)`` of index arrays, ``test ⊆ E``.
        changes : sequence of (numpy.ndarray, numpy.ndarray) or None, default=None
            Per set, ``(U, C)`` with ``U`` of shape ``(N - len(E), r)`` (rows: the remaining
            points in increasing order) and ``C`` of shape ``(r, r)``; None: no change.

        Returns
        -------
        list of numpy.ndarray
            Per set, the decision values at ``test`` (shape ``(len(test),)`` or
            ``(len(test), C)``).
        """
        if not self._numpy:
            raise NotSupportedError("refit_predictions needs NumPy arrays (convert the inputs)")
        n = self.n
        B = self._rhs(Y)
        X = self._solve(B)  # consistent with G (no refinement)
        union = np.unique(np.concatenate([np.asarray(E, dtype=np.intp) for E, _ in sets]))
        cols = np.concatenate([union, n + 1 + union])
        I = np.zeros((2 * n + 1, cols.size))
        I[cols, np.arange(cols.size)] = 1.0
        G = self._solve(I)  # the columns R of A^{-1} for every E
        where = {int(j): k for k, j in enumerate(union)}
        m = union.size
        out = []
        for k, (E, test) in enumerate(sets):
            E, test = np.asarray(E, dtype=np.intp), np.asarray(test, dtype=np.intp)
            pos = np.array([where[int(j)] for j in E])
            rc = np.concatenate([pos, m + pos])  # columns of G for α_E and μ_E
            R = np.concatenate([E, n + 1 + E])  # their rows in x
            GR = G[:, rc]
            M = GR[R]
            U, C = changes[k] if changes is not None else (None, None)
            red = _Reduced(self, GR, M, R, E, U, C)
            Xr = red.solve(B, X)
            if self.jitter and self._pinv is None:
                # refine against the exact reduced system (rows R are not equations of it)
                Bz = B.copy()
                Bz[R] = 0.0
                res = float(np.abs(Bz - red.apply(Xr)).max())
                for _ in range(REFINE_STEPS):
                    Xn = Xr + red.solve(Bz - red.apply(Xr))
                    res_n = float(np.abs(Bz - red.apply(Xn)).max())
                    if not res_n < 0.5 * res:
                        break
                    Xr, res = Xn, res_n
            out.append(_like(Y, self._K[test] @ Xr[:n] + Xr[n]))
        return out

    def diagnostics(self, Y):
        return {"jitter": self.jitter, "rcond": self.rcond,
                "refinement_steps": float(self.refinement_steps),
                "system_residual": self._residual(self._full(Y), self._rhs(Y))}

    def solve(self, Y, top=0.0):
        check_zero_top(top, "the bordered representation", NotSupportedError)
        X, n = self._full(Y), self.n   # one target's b: a float on NumPy, else a 0-d array
        b = X[n, ...] if np.ndim(Y) > 1 else (float(X[n, 0]) if self._numpy else X[n, 0])
        return _like(Y, X[:n, ...]), b

    def _unit_columns(self) -> Any:
        """The right-hand sides of the ``μμ`` block of ``A^{-1}``: the ``N`` unit columns of μ."""
        xp, n, K = self.xp, self.n, self._K
        return xp.concat([xp.zeros((n + 1, n), dtype=K.dtype, device=aac.device(K)),
                          xp.eye(n, dtype=K.dtype, device=aac.device(K))], axis=0)

    def Z(self) -> Any:
        """The ``μμ`` block of ``A^{-1}`` (``N`` solves with the one factorisation; with the
        ridge, refined against the exact system as the solution is: from the ridged factors
        alone the LOO residuals were the ridged model's, 2 % off the exact system's on an
        unidentifiable α, ``tests/test_device_regularized.py``)."""
        if self._Z is None:
            self._Z = self._refined(self._unit_columns())[self.n + 1:, ...]
        return self._Z

    def _solution_Z(self, Y: Any) -> tuple[Any, Any]:
        """The solution ``(α; b; μ)`` for ``Y`` and ``Z``, refined together with the ridge
        (every column while the residual of all halves: on the unidentifiable case of
        ``tests/test_device_regularized.py``, rcond 2e-14, the LOO residuals are 7.4e-7 from
        brute-force refits so and 2.2e-6 refined apart, 2026-11-28; ``Z`` then per ``Y``);
        without the ridge, no refinement and ``Z`` formed once."""
        if not self.jitter or self._pinv is not None:
            return self._full(Y), self.Z()
        B = self._rhs(Y)
        T = int(B.shape[1])
        X = self._refined(self.xp.concat([B, self._unit_columns()], axis=1))
        return X[:, :T], X[self.n + 1:, T:]

    def gcv(self, Y):
        """``y - ŷ = y - Kα - b`` and ``tr(I - H) = -tr Z`` (``H = I + S^{-½} Z S^{½}``, module
        docstring), over the points in the loss: a point of weight 0 (``Z_ii = -1``, its
        target not an observation) counts in neither (until the fifteenth session, 2026-11-30,
        its residual and 1 did); the solution and ``Z`` refined together (:meth:`_solution_Z`)."""
        xp = self.xp
        X, Z = self._solution_Z(Y)
        R = _cols(Y) - (self._K @ X[:self.n, ...] + X[self.n:self.n + 1, ...])
        out = self.r == 0
        R2, dZ = xp.where(out[:, None], 0.0, R**2), xp.where(out, 0.0, xp.linalg.diagonal(Z))
        return float(gcv_score(float(xp.mean(xp.sum(R2, axis=0))),
                               self.n - int(xp.sum(xp.astype(out, xp.int64))), -float(xp.sum(dZ))))

    def loo(self, Y):
        X, Z = self._solution_Z(Y)
        mu = X[self.n + 1:, ...]
        return _like(Y, diagonal_residuals(mu, self.xp.linalg.diagonal(Z) * self.r))

    def kfold(self, Y, folds, *, cover=False):
        xp = self.xp
        X, Z = self._solution_Z(Y)
        mu = X[self.n + 1:, ...]
        return _like(Y, block_residuals(mu, folds, lambda V: xp.take(xp.take(Z, V, axis=0), V,
                                                                      axis=1), self.r,
                                        cover=cover))


def generalized_path(K: np.ndarray, s: np.ndarray, P_fixed: np.ndarray, P_key: np.ndarray,
                     Y: np.ndarray, ws: Sequence[float] | np.ndarray, *,
                     folds: Sequence[np.ndarray] | None = None, cover: bool = False,
                     rcond_min: float = 1e-10
                     ) -> tuple[list[np.ndarray], list[np.ndarray | float], list[np.ndarray]] | None:
    """One weight ``w`` of ``P(w) = P_fixed + w P_key`` along ``ws`` from ONE generalised
    symmetric eigendecomposition, or ``None`` when neither pencil is definite.

    Eliminating the bias (``b = s̄'(y - Kα)``, ``s̄ = s/Σs``, ``K_c = (I - 1s̄')K``) leaves
    ``A(w) α = K_c'Sy`` with ``A(w) = M + w P_key``, ``M = K_c'SK_c + P_fixed``.  If ``M`` is
    positive definite (Cholesky with reciprocal condition ≥ ``rcond_min``), ``eigh(P_key, M)``
    gives ``V'MV = I``, ``V'P_keyV = Θ`` and ``A(w)^{-1} = V diag(1/(1 + wθ)) V'``; else if
    ``P_key`` is, ``eigh(M, P_key)`` gives ``A(w)^{-1} = V diag(1/(λ + w)) V'``.  With
    ``Q = K_c V`` the hat matrix is ``H = 1s̄' + Q D(w) Q'S``: ``O(N²)`` per weight for the fit
    and the leave-one-out residuals ``(y_i - ŷ_i)/(1 - H_ii)``.  These normal equations square
    the condition of ``K``; the pencils are refused (``None``) rather than used when they are
    not safely definite, and the caller then factorises the exact system (A) per weight.
    """
    K = as_gram(K, name="K", min_samples=1)   # strings and NaN crashed or answered (2026-12-06)
    n = K.shape[0]
    s = as_targets(s, n, name="s")
    P_fixed, P_key = (as_gram(P, name=k, min_samples=1) for P, k in ((P_fixed, "P_fixed"), (P_key, "P_key")))
    if P_fixed.shape[0] != n or P_key.shape[0] != n:
        raise InputError(f"P_fixed and P_key must be {n} × {n}, got {P_fixed.shape}, {P_key.shape}")
    Y = as_targets(Y, n, name="Y", columns=True)
    ws = check_grid(ws, "ws", allow_zero=True, flat=True)
    sbar = s / s.sum()
    Kc = K - np.outer(np.ones(n), sbar @ K)
    M = Kc.T @ (s[:, None] * Kc) + P_fixed
    M = (M + M.T) / 2
    Pk = (P_key + P_key.T) / 2
    mode = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConditioningWarning)
        for cand, name in ((M, "M"), (Pk, "P")):
            try:
                if Cholesky.factor(cand, name=name).rcond >= rcond_min:
                    mode = name
                    break
            except InputError:  # NotPSDError is an InputError
                continue
    if mode is None:
        return None
    if mode == "M":
        theta, V = sla.eigh(Pk, M)
    else:
        theta, V = sla.eigh(M, Pk)
    Q = Kc @ V
    Yc = _cols(Y)
    q = Q.T @ (s[:, None] * Yc)
    Q2 = Q * Q
    mean = sbar @ Yc
    alphas, bs, res = [], [], []
    for w in ws:
        d = 1.0 / (1.0 + w * theta) if mode == "M" else 1.0 / (theta + w)
        a = V @ (d[:, None] * q)
        yhat = Q @ (d[:, None] * q) + mean[None, :]
        b = sbar @ (Yc - K @ a)
        R = Yc - yhat
        if folds is None:
            out = leverage_residuals(R, sbar + s * (Q2 @ d))
        else:   # the leverage form of a set: r_V = (I - H_VV)⁻¹ (y - ŷ)_V
            def block(V_: np.ndarray, d: np.ndarray = d) -> np.ndarray:
                Qv = Q[V_]
                return np.eye(len(V_)) - (sbar[V_][None, :] + (Qv * d) @ Qv.T * s[V_][None, :])

            out = block_residuals(R, folds, block, cover=cover)
        alphas.append(_like(Y, a))
        bs.append(b if Y.ndim > 1 else float(b[0]))
        res.append(_like(Y, out))
    return alphas, bs, res
