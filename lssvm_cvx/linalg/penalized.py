"""The penalised least-squares engine: an unpenalised bias, a design ``Φ`` and quadratic
penalties, with exact leave-one-out by the hat matrix and one-weight paths from one
(generalised) eigendecomposition.

The normalised problem (§1.3)
-----------------------------
Every path (dual, Nyström, random Fourier features) is a penalised least-squares problem in a
design ``Φ`` (``N × m``: the Gram ``K(X, X)`` in the dual, ``K(X, Z)`` for ``m`` Nyström
centres ``Z``, or random Fourier features) with an unregularised bias, on standardised targets::

    J(θ, b) = ||y - Φθ - b 1||² + μ s_G θ'Gθ + ν s_R θ'Rθ,                         (N1)

``G`` the gradient-norm Gram of the centres (:mod:`lssvm_cvx.terms.gradient_norm`, normalised
form: unit diagonal) or, for random Fourier features, the data-averaged gradient Gram (see
:func:`lssvm_cvx.terms.gradient_basis.rff_gradient_gram`).  ``R`` is the margin matrix of the L2 term: ``I`` (``margin="alpha"``,
eq. 9's ``||α||²`` as printed) or the kernel matrix of the centres plus ``1e-6 I``
(``margin="rkhs"``: ``α'Kα = ||w||²``, the margin of the LS-SVM, which the note names for the
classifier in §1.1 item 1b); for random Fourier features ``R = I`` is ``||w||²`` itself.  With
``Φ_c`` the column-centred design and ``C = Φ_c'Φ_c / N`` (the Hessian of the mean fit term
after eliminating the bias),

    s_G = MU_UNIT · tr(C) / tr(G),        s_R = NU_UNIT · tr(C) / tr(R),      MU_UNIT = NU_UNIT = 1.

(N1) *is* the note's eq. (9) with ``μ_9 = μ s_G`` and ``ν_9 = ν s_R`` (:func:`paper_weights`).
The code works with (N1)/N, whose penalty weights are ``ρ_G = s_G/N`` and ``ρ_R = s_R/N``.

Why these scalings.  Width and data scale: the traces make μ and ν relative to the curvature of
the fit term at the current width (a narrow kernel has a small ``tr C``), and the estimators
standardise inputs and targets, so rescaling either changes nothing.  Rows (goal 2c): for a
fixed function the centre weights are ``θ = a/m``; then ``θ'Gθ`` (the gradient energy in units
of one kernel bump) and ``θ'Kθ = ||f||²`` do not depend on N, so those terms act like a fixed
prior whose weight relative to the summed fit decays like 1/N (the Bayesian reading), while
``||α||²`` keeps the raw scaling of eq. (9) (``ν_9`` constant for the dual).  We compared
scalings by fitting a half and a quarter of a data set with the hyperparameters selected on all
of it: this one degraded the LOO error less than the per-observation scaling ``(1/N)||r||²``
with fixed penalties (measured in ``tests/test_auto_invariance.py``).  The optimal amount of
regularisation does change with N, so no scaling makes the selected values exactly
row-invariant; the search re-selects them on every fit.

Solution: ``(C + μρ_G G + νρ_R R) θ = Φ_c' y_c / N``, ``b = ȳ - mean(Φ) θ``.

Exact leave-one-out
-------------------
The fitted values are ``ŷ = S y`` with hat matrix ``S = 11'/N + Φ_c A^{-1} Φ_c' / N``, ``A`` the
matrix above, so leaving observation ``i`` out of the fit term (basis and penalty matrices
fixed) gives the residual ``r_i = (y_i - ŷ_i) / (1 - S_ii)`` exactly (Sherman-Morrison; the same
identity as for ridge regression).  ``tests/test_auto_tuning.py`` checks it against ``N``
brute-force refits.

Sweeps from one decomposition
-----------------------------
* **μ path** (fixed ν): the generalised eigendecomposition ``ρ_G G V = B V Θ`` with
  ``B = C + νρ_R R``, ``V'BV = I``, gives ``A(μ)^{-1} = V diag(1/(1 + μθ)) V'``; with ``P = Φ_c V``
  and ``q = P'y_c/N`` every μ costs O(N m): ``ŷ_c = P (q ∘ w)``, ``S_ii = 1/N + (P∘P) w / N``.
* **ν path** (fixed μ): ``(C + μρ_G G) U = R U diag(λ)``, ``U'RU = I``, gives ``A(ν)^{-1} =
  U diag(1/(λ + νρ_R)) U'``, the same formulas.

The search over (γ, μ, ν) that uses these paths, and its cost, is
:func:`lssvm_cvx.selection.auto.auto_search`.

Large N
-------
Above ``max_exact`` rows the estimators use ``m`` Nyström centres (the default;
``sklearn.kernel_approximation.Nystroem`` picks them; penalty: the exact normalised gradient
Gram of the centres, i.e. the dual objective with the centres restricted to ``Z``) or ``m``
random Fourier features (``RBFSampler``; penalty: the data-averaged gradient Gram, since the
integral over ``R^d`` of a sum of cosines diverges).  Both are (N1) in the primal with the same LOO formulas; memory
is O(N m): the design is stored once and every other N-sized quantity is formed in row chunks
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla
from numpy.typing import ArrayLike

from ..exceptions import HyperparameterError, InputError, NotPSDError
from .cholesky import Cholesky
from .scores import leverage_residuals, loo_score, path_residuals

__all__ = [
    "CHUNK_ELEMS",
    "MU_UNIT",
    "NU_UNIT",
    "normalizers",
    "paper_weights",
    "PenalizedLS",
    "PathResult",
    "Fit",
    "brute_force_loo",
]

#: unit of the normalised μ (module docstring)
MU_UNIT = 1.0
#: unit of the normalised ν (module docstring)
NU_UNIT = 1.0
#: elements per row chunk of an N × m product (rows = this / m, ≈ 32 MB of float64 per chunk)
CHUNK_ELEMS = 4_000_000


def normalizers(Phi: np.ndarray, G: np.ndarray, R: np.ndarray | None = None,
                sample_weight: np.ndarray | None = None) -> tuple[float, float]:
    """``(ρ_G, ρ_R) = (s_G/N, s_R/N)`` with ``s_G = MU_UNIT tr(C)/tr(G)``, ``s_R = NU_UNIT
    tr(C)/tr(R)`` (``R = I`` when None) and ``C = Φ_c'SΦ_c/N`` (module docstring; ``S`` the
    sample weights scaled to mean 1, the identity when None)."""
    Phi = np.asarray(Phi, dtype=np.float64)
    n, m = Phi.shape
    if sample_weight is None:
        trC = float(np.sum((Phi - Phi.mean(axis=0)) ** 2) / n)
    else:  # weighted: the sum of weights plays the part of N (integer weights = repeated rows)
        w = np.asarray(sample_weight, dtype=np.float64)
        n = float(w.sum())
        trC = float(w @ np.sum((Phi - (w @ Phi) / n) ** 2, axis=1) / n)
    trG = float(np.trace(G))
    trR = float(m if R is None else np.trace(R))
    if not trG > 0:
        raise NotPSDError(f"the gradient-norm Gram has non-positive trace {trG:.3g}")
    if not trR > 0:
        raise NotPSDError(f"the margin matrix has non-positive trace {trR:.3g}")
    if not trC > 0:
        raise InputError("the design has no variation (all inputs identical?)")
    return MU_UNIT * trC / trG / n, NU_UNIT * trC / trR / n


def paper_weights(Phi: np.ndarray, G: np.ndarray, mu: float, nu: float,
                  R: np.ndarray | None = None) -> tuple[float, float]:
    """The note's (μ, ν) of eq. (9) that correspond to the normalised (μ, ν) of (N1):
    ``(μ s_G, ν s_R) = (N μ ρ_G, N ν ρ_R)``."""
    rho_g, rho_i = normalizers(Phi, G, R)
    n = np.asarray(Phi).shape[0]
    return float(mu) * n * rho_g, float(nu) * n * rho_i


@dataclass
class PathResult:
    """LOO scores along one path (μ or ν) at fixed other hyperparameters."""

    name: str
    values: np.ndarray
    scores: np.ndarray
    fixed: dict[str, float]

    @property
    def best(self) -> tuple[float, float]:
        k = int(np.nanargmin(self.scores))
        return float(self.values[k]), float(self.scores[k])


# ------------------------------------------------------------------- the LS problem
class PenalizedLS:
    """Problem (N1) for one basis: exact LOO, μ and ν paths from one decomposition, fit.

    Parameters
    ----------
    Phi :
        Design ``(N, m)``.
    Y :
        Targets ``(N,)`` or ``(N, T)`` (several columns share every decomposition).
    G :
        Gradient-norm penalty ``(m, m)``, symmetric PSD.
    R :
        Margin matrix of the ν term ``(m, m)``, symmetric positive definite; None for the
        identity (eq. 9's ``||α||²``).
    sample_weight :
        Positive weights ``s_i`` of the observations in the fit term (``Σ s_i r_i²``; None: all
        ones).  ``W = Σ s_i`` takes the place of N everywhere (so integer weights are the same
        problem as repeated rows): the bias and the centring become weighted means,
        ``C = Φ_c'SΦ_c/W``, and the exact LOO residual (observation i leaves the fit term) is
        ``(y_i - ŷ_i)/(1 - S_ii)`` with ``S_ii = s_i/W + s_i φ_c,i'A^{-1}φ_c,i/W``.
    """

    def __init__(self, Phi: np.ndarray, Y: np.ndarray, G: np.ndarray, R: np.ndarray | None = None,
                 sample_weight: np.ndarray | None = None):
        self.Phi = np.asarray(Phi, dtype=np.float64)
        Y = np.asarray(Y, dtype=np.float64)
        self.single = Y.ndim == 1
        self.Y = Y[:, None] if self.single else Y
        if self.Y.shape[0] != self.Phi.shape[0]:
            raise InputError(f"Y has {self.Y.shape[0]} rows but the design has {self.Phi.shape[0]}")
        self.G = 0.5 * (G + G.T)
        self.R = None if R is None else 0.5 * (R + R.T)
        self.basis: Any = None  # the basis it was built from, when a caller records it
        self.N, self.m = self.Phi.shape
        self.w = None
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
            if w.shape != (self.N,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
                raise InputError(f"sample_weight must be {self.N} finite weights > 0")
            self.w = w
        self.W = float(self.N if self.w is None else self.w.sum())
        if self.w is None:
            self.phi_mean = self.Phi.mean(axis=0)
            self.y_mean = self.Y.mean(axis=0)
        else:
            self.phi_mean = (self.w @ self.Phi) / self.W
            self.y_mean = (self.w @ self.Y) / self.W
        self.Yc = self.Y - self.y_mean
        self.C = self._gram()
        # (N1) divided by N: the penalties' weights per unit of the mean-squared fit term
        self.rho_g, self.rho_i = normalizers(self.Phi, self.G, self.R, self.w)
        self.rhs = self._cross(self.Yc) / self.W  # Φ_c' S y_c / W

    def _wt(self, sl: slice) -> np.ndarray:
        """The weights of the rows ``sl`` as a column (ones when unweighted)."""
        return np.ones((sl.stop - sl.start, 1)) if self.w is None else self.w[sl, None]

    # chunked products with the centred design -------------------------------------------
    def _chunks(self):
        step = max(1, CHUNK_ELEMS // max(self.m, 1))
        for s in range(0, self.N, step):
            yield slice(s, min(s + step, self.N)), self.Phi[s:s + step] - self.phi_mean

    def _gram(self) -> np.ndarray:
        C = np.zeros((self.m, self.m))
        for sl, B in self._chunks():
            C += B.T @ (B if self.w is None else self.w[sl, None] * B)
        C /= self.W
        return 0.5 * (C + C.T)

    def _cross(self, Y: np.ndarray) -> np.ndarray:
        out = np.zeros((self.m, Y.shape[1]))
        for sl, B in self._chunks():
            out += B.T @ (Y[sl] if self.w is None else self.w[sl, None] * Y[sl])
        return out

    def paper_weights(self, mu: float, nu: float) -> tuple[float, float]:
        """(μ, ν) of the note's eq. (9) equivalent to the normalised ones (module docstring)."""
        return float(mu) * self.W * self.rho_g, float(nu) * self.W * self.rho_i

    def matrix(self, mu: float, nu: float) -> np.ndarray:
        """``A = C + μρ_G G + νρ_R R``."""
        A = self.C + (mu * self.rho_g) * self.G
        if self.R is None:
            A[np.diag_indices_from(A)] += nu * self.rho_i
        else:
            A += (nu * self.rho_i) * self.R
        return A

    # paths -----------------------------------------------------------------------------
    def _path(self, V: np.ndarray, W: np.ndarray, criterion: str) -> np.ndarray:
        """Criterion for every column of the weight matrix ``W`` (m × n_values), with
        ``A^{-1} = V diag(W[:, k]) V'``."""
        n_vals = W.shape[1]
        T = self.Y.shape[1]
        # q = P'y_c / N = V' Φ_c' y_c / N = V' rhs
        q = V.T @ self.rhs  # (m, T)
        R = np.empty((self.N, T, n_vals))
        for sl, B in self._chunks():
            P = B @ V
            h = self._wt(sl) * ((1.0 / self.W) + (P * P) @ W / self.W)  # (rows, n_vals)
            R[sl] = path_residuals(self.Yc[sl], P, q, W, h)
        return loo_score(R, self.Y, criterion)

    def mu_path(self, mus: ArrayLike, nu: float, criterion: str = "mse") -> PathResult:
        """LOO criterion for every μ at fixed ν (one generalised eigendecomposition)."""
        mu_grid = np.asarray(mus, dtype=np.float64)
        B = self.matrix(0.0, nu)
        try:
            theta, V = sla.eigh(self.rho_g * self.G, B, check_finite=False)
        except np.linalg.LinAlgError:  # B numerically singular at this ν: no usable path
            return PathResult("mu", mu_grid, np.full(mu_grid.size, np.inf), {"nu": float(nu)})
        theta = np.maximum(theta, 0.0)  # PSD G: negative values are round-off
        W = 1.0 / (1.0 + theta[:, None] * mu_grid[None, :])
        return PathResult("mu", mu_grid, self._path(V, W, criterion), {"nu": float(nu)})

    def nu_path(self, nus: ArrayLike, mu: float, criterion: str = "mse") -> PathResult:
        """LOO criterion for every ν at fixed μ (one symmetric eigendecomposition, generalised
        with respect to ``R`` when it is not the identity)."""
        nu_grid = np.asarray(nus, dtype=np.float64)
        try:
            lam, U = sla.eigh(self.matrix(mu, 0.0), self.R, check_finite=False)
        except np.linalg.LinAlgError:
            return PathResult("nu", nu_grid, np.full(nu_grid.size, np.inf), {"mu": float(mu)})
        lam = np.maximum(lam, 0.0)
        W = 1.0 / (lam[:, None] + self.rho_i * nu_grid[None, :])
        return PathResult("nu", nu_grid, self._path(U, W, criterion), {"mu": float(mu)})

    # one setting -----------------------------------------------------------------------
    def fit(self, mu: float, nu: float) -> "Fit":
        """Solve (N1) by one Cholesky factorisation; LOO residuals from ``L^{-1}Φ_c'``."""
        if mu < 0 or nu <= 0:
            raise HyperparameterError(f"need mu >= 0 and nu > 0, got mu={mu!r}, nu={nu!r}")
        chol = Cholesky.factor(self.matrix(mu, nu), name="C + mu G + nu I")
        theta = chol.solve(self.rhs)  # (m, T)
        b = self.y_mean - self.phi_mean @ theta
        R = np.empty_like(self.Y)
        h = np.empty(self.N)
        for sl, B in self._chunks():
            Z = sla.solve_triangular(chol.L, B.T, lower=True, check_finite=False)
            h[sl] = self._wt(sl)[:, 0] * (1.0 + np.einsum("ij,ij->j", Z, Z)) / self.W
            R[sl] = leverage_residuals(self.Yc[sl] - B @ theta, h[sl])
        return Fit(theta=theta, b=b, loo=R, leverage=h, chol=chol, mu=float(mu), nu=float(nu),
                   problem=self)

    def fit_score(self, fit: "Fit", criterion: str) -> float:
        """The LOO criterion of a fit."""
        return float(loo_score(fit.loo[:, :, None], self.Y, criterion)[0])

    def loo_residuals(self, mu: float, nu: float) -> np.ndarray:
        """Exact LOO residuals ``y_i - f^{(-i)}(x_i)`` (shape of ``Y`` as given)."""
        R = self.fit(mu, nu).loo
        return R[:, 0] if self.single else R


@dataclass
class Fit:
    """A solved instance of (N1): coefficients, bias, exact LOO residuals and leverages."""

    theta: np.ndarray
    b: np.ndarray
    loo: np.ndarray
    leverage: np.ndarray
    chol: Cholesky
    mu: float
    nu: float
    problem: PenalizedLS = field(repr=False)

    def predict(self, Phi_new: np.ndarray) -> np.ndarray:
        return Phi_new @ self.theta + self.b

    def jackknife_influence(self) -> np.ndarray:
        """``Q = A^{-1} Φ_c' diag(r)/N`` (m × N, first target): the LOO model at a new point is
        ``f^{(-i)}(x) = f(x) - r_i/N - (φ_c(x)'Q)_i`` (Sherman-Morrison on (N1))."""
        pr = self.problem
        if getattr(pr, "w", None) is not None:
            raise InputError("the jackknife influence assumes unweighted observations")
        r = self.loo[:, 0]
        Q = np.empty((pr.m, pr.N))
        for sl, B in pr._chunks():
            Q[:, sl] = self.chol.solve(B.T) * (r[sl] / pr.N)
        return Q


def brute_force_loo(Phi: np.ndarray, Y: np.ndarray, G: np.ndarray, mu: float, nu: float,
                    R: np.ndarray | None = None, sample_weight: np.ndarray | None = None
                    ) -> np.ndarray:
    """Definition of the LOO residuals of (N1): N refits, each with observation ``i`` removed
    from the fit term (``Σ_{j≠i} w_j r_j²``), the basis and the penalty matrices (including
    their normalisers ρ) kept; used by the tests to check the closed form."""
    pr = PenalizedLS(Phi, Y, G, R, sample_weight=sample_weight)
    Y2 = pr.Y
    N = pr.N
    w = np.ones(N) if pr.w is None else pr.w
    pen = (mu * pr.rho_g) * pr.G + (nu * pr.rho_i) * (np.eye(pr.m) if pr.R is None else pr.R)
    scale = pr.W
    Z = np.hstack([np.ones((N, 1)), pr.Phi])
    R = np.empty_like(Y2)
    for i in range(N):
        keep = np.arange(N) != i
        Zi = Z[keep]
        M = Zi.T @ (w[keep, None] * Zi)
        M[1:, 1:] += scale * pen  # (1/W)Σ_{j≠i} w_j r_j² + pen, times W
        beta = np.linalg.solve(M, Zi.T @ (w[keep, None] * Y2[keep]))
        R[i] = Y2[i] - Z[i] @ beta
    return R[:, 0] if Y.ndim == 1 else R
