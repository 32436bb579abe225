r"""The Auto LS-SVM's penalised least-squares problem (N1) on any array namespace and device
(issue 31, item 2): the device twin of :class:`lssvm_cvx.linalg.penalized.PenalizedLS`, with
the same formulas, so that ``AutoLSSVMRegressor`` fits, searches (γ, μ, ν) by exact
leave-one-out and predicts on PyTorch (CPU or CUDA), CuPy or ``array-api-strict`` arrays.

.. math::

   J(θ, b) = \|y - Φθ - b 1\|² + μ s_G θ^\top Gθ + ν s_R θ^\top Rθ ,                    (N1)

with ``C = Φ_c^\top Φ_c / N``, ``ρ_G = tr(C)/(N tr G)``, ``ρ_R = tr(C)/(N tr R)`` and the
solution ``(C + μρ_G G + νρ_R R) θ = Φ_c^\top y_c / N``, ``b = ȳ - \bar φ^\top θ`` (the
derivation, the normalisers and the exact LOO residual ``(y_i - ŷ_i)/(1 - S_ii)`` are in
:mod:`lssvm_cvx.linalg.penalized`).  The μ path needs the generalised eigenproblem
``ρ_G G V = B V Θ`` (``B = C + νρ_R R``), which the array-API standard lacks: here it is
reduced to a standard one through the Cholesky factor ``B = L L^\top``,
``(L^{-1} ρ_G G L^{-\top}) W = W Θ``, ``V = L^{-\top} W`` (so ``V^\top B V = I``, as LAPACK's
``sygvd`` does on the CPU); the ν path the same with ``R`` in place of ``B``.

What differs from the CPU twin: the design is held centred (``Φ_c``, one N × m array: the exact
basis is N × N) instead of in 32 MB row chunks, the LOO criterion is averaged on the device
and only the path's scores come back, and ``Fit.rcond`` is the exact reciprocal 1-norm condition
number ``1/(||A||₁ ||A⁻¹||₁)`` (from ``L⁻¹``: two more m × m products) where the CPU has
LAPACK's estimate ``dpocon`` of it (which can only be larger).
Sample weights are not supported (the device estimator refuses them).  The tests compare every
method with :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` to 1e-10 under NumPy,
``array-api-strict`` and PyTorch on the CPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError, InputError, NotPSDError
from ..linalg.scores import leverage_residuals, loo_score, path_residuals
from .arrays import check_memory, float_dtype, namespace_of, solve_triangular
from .host import to_numpy

__all__ = ["DevicePenalizedLS", "DeviceStreamedPenalizedLS", "DevicePath", "DeviceFit",
           "xp_take_rows"]


@dataclass
class DevicePath:
    """LOO scores along one path (μ or ν): ``values`` and ``scores`` copied to NumPy."""

    name: str
    values: np.ndarray
    scores: np.ndarray
    fixed: dict[str, float]

    @property
    def best(self) -> tuple[float, float]:
        k = int(np.nanargmin(self.scores))
        return float(self.values[k]), float(self.scores[k])


def _trace(xp: Any, A: Any) -> float:
    return float(xp.sum(xp.linalg.diagonal(A)))


def _cholesky(xp: Any, A: Any) -> Any | None:
    """The Cholesky factor of ``A``, or None when ``A`` is not numerically positive definite
    (the libraries raise different errors, or return a non-finite factor)."""
    try:
        L = xp.linalg.cholesky(A)
    except (np.linalg.LinAlgError, RuntimeError, ValueError):
        return None
    return L if bool(xp.all(xp.isfinite(L))) else None


class DevicePenalizedLS:
    """Problem (N1) for one basis on the inputs' device: exact LOO, μ and ν paths, fit.

    Parameters
    ----------
    Phi : array of shape (N, m)
        Design.
    Y : array of shape (N,) or (N, T)
        Targets (several columns share every decomposition).
    G : array of shape (m, m)
        Gradient-norm penalty, symmetric PSD.
    R : array of shape (m, m) or None
        Margin matrix of the ν term, symmetric positive definite; None for the identity.
    block_rows : int, default=8192
        Rows of ``Φ_c V`` formed at a time along a path.
    """

    def __init__(self, Phi: Any, Y: Any, G: Any, R: Any = None, *, block_rows: int = 8192):
        self._setup(Phi, Y, G, R, block_rows)
        if Phi.ndim != 2 or Phi.shape[0] != self.N:
            raise InputError(f"Phi must be (N, m) with the N = {self.N} rows of Y, got "
                             f"{tuple(Phi.shape)}")
        xp = self.xp
        self.phi_mean = xp.mean(Phi, axis=0)
        self.y_mean = xp.mean(self.Y, axis=0)
        self.Yc = self.Y - self.y_mean
        self.Phic = Phi - self.phi_mean
        self.loo_rows: np.ndarray | None = None             # every row
        C = xp.matrix_transpose(self.Phic) @ self.Phic / self.W
        self._finish(C, xp.matrix_transpose(self.Phic) @ self.Yc / self.W,
                     float(xp.sum(self.Phic * self.Phic)) / self.W)

    def _setup(self, X: Any, Y: Any, G: Any, R: Any, block_rows: int) -> None:
        """Namespace, dtype, shapes and the penalty matrices (both constructors)."""
        arrays = (X, Y, G) if R is None else (X, Y, G, R)
        xp, self.device = namespace_of(*arrays)
        self.xp = xp
        self.dtype = float_dtype(xp, *arrays)
        if Y.ndim not in (1, 2):
            raise InputError(f"Y must be (N,) or (N, T), got shape {tuple(Y.shape)}")
        self.single = Y.ndim == 1
        self.Y = Y[:, None] if self.single else Y
        self.N, self.m = int(self.Y.shape[0]), int(G.shape[0])
        if G.shape != (self.m, self.m) or (R is not None and R.shape != (self.m, self.m)):
            raise InputError(f"G and R must be square of one order, got {tuple(G.shape)}")
        self.block_rows = int(block_rows)
        self.basis: Any = None
        self.w = None                    # unweighted (the CPU twin's attribute)
        self.W = float(self.N)
        self.G = 0.5 * (G + xp.matrix_transpose(G))
        self.R = None if R is None else 0.5 * (R + xp.matrix_transpose(R))

    def _finish(self, C: Any, rhs: Any, trC: float) -> None:
        """``C``, ``Φ_c'y_c/N`` and the normalisers ``ρ_G``, ``ρ_R`` (both constructors)."""
        xp = self.xp
        self.C = 0.5 * (C + xp.matrix_transpose(C))
        self.rhs = rhs
        trG = _trace(xp, self.G)
        trR = float(self.m) if self.R is None else _trace(xp, self.R)
        if not trG > 0:
            raise NotPSDError(f"the gradient-norm Gram has non-positive trace {trG:.3g}")
        if not trR > 0:
            raise NotPSDError(f"the margin matrix has non-positive trace {trR:.3g}")
        if not trC > 0:
            raise InputError("the design has no variation (all inputs identical?)")
        self.rho_g, self.rho_i = trC / trG / self.W, trC / trR / self.W

    def _loo_blocks(self) -> Iterator[tuple[Any, Any, Any]]:
        """``(Φ_c, Y, Y_c)`` of the LOO rows, block by block."""
        for s in range(0, self.N, self.block_rows):
            e = min(s + self.block_rows, self.N)
            yield self.Phic[s:e, ...], self.Y[s:e, ...], self.Yc[s:e, ...]

    @property
    def n_loo(self) -> int:
        """Rows on which the LOO residuals are evaluated."""
        return self.N if self.loo_rows is None else int(self.loo_rows.size)

    def paper_weights(self, mu: float, nu: float) -> tuple[float, float]:
        """(μ, ν) of the note's eq. (9) equivalent to the normalised ones."""
        return float(mu) * self.W * self.rho_g, float(nu) * self.W * self.rho_i

    def _eye(self) -> Any:
        return self.xp.eye(self.m, dtype=self.dtype, device=self.device)

    def matrix(self, mu: float, nu: float) -> Any:
        """``A = C + μρ_G G + νρ_R R``."""
        R = self._eye() if self.R is None else self.R
        return self.C + (mu * self.rho_g) * self.G + (nu * self.rho_i) * R

    def _geneig(self, A: Any, B: Any) -> tuple[Any, Any] | None:
        """``A V = B V Θ`` with ``V'BV = I`` (``B`` SPD) through ``B = L L'``; None when ``B``
        is not numerically positive definite (the CPU twin's ``LinAlgError``)."""
        xp = self.xp
        if B is None:
            lam, V = xp.linalg.eigh(0.5 * (A + xp.matrix_transpose(A)))
            return lam, V
        L = _cholesky(xp, B)
        if L is None:
            return None
        M = solve_triangular(xp, L, xp.matrix_transpose(solve_triangular(xp, L, A)))
        lam, W = xp.linalg.eigh(0.5 * (M + xp.matrix_transpose(M)))
        return lam, solve_triangular(xp, L, W, trans=True)

    def _path(self, V: Any, Wt: Any, criterion: str) -> np.ndarray:
        """Criterion for every column of the weights ``Wt`` (m × n_values), with
        ``A⁻¹ = V diag(Wt[:, k]) V'``; the residuals are formed in row blocks."""
        xp = self.xp
        q = xp.matrix_transpose(V) @ self.rhs                          # (m, T)
        total: Any = None
        for B, Yb, Ycb in self._loo_blocks():
            if int(B.shape[0]) == 0:
                continue
            P = B @ V
            h = 1.0 / self.W + ((P * P) @ Wt) / self.W                   # (rows, V)
            R = path_residuals(Ycb, P, q, Wt, h)                        # (rows, T, V)
            part = loo_score(R, Yb, criterion) * int(B.shape[0])
            total = part if total is None else total + part
        return to_numpy(total / self.n_loo).astype(np.float64)

    def _grid(self, values: Any) -> tuple[np.ndarray, Any]:
        grid = np.asarray(values, dtype=np.float64).reshape(-1)
        return grid, self.xp.asarray(grid, dtype=self.dtype, device=self.device)

    def mu_path(self, mus: Any, nu: float, criterion: str = "mse") -> DevicePath:
        """LOO criterion for every μ at fixed ν (one generalised eigendecomposition)."""
        grid, g = self._grid(mus)
        dec = self._geneig(self.rho_g * self.G, self.matrix(0.0, nu))
        if dec is None:
            return DevicePath("mu", grid, np.full(grid.size, np.inf), {"nu": float(nu)})
        theta, V = dec
        theta = self.xp.clip(theta, 0.0, None)
        Wt = 1.0 / (1.0 + theta[:, None] * g[None, :])
        return DevicePath("mu", grid, self._path(V, Wt, criterion), {"nu": float(nu)})

    def nu_path(self, nus: Any, mu: float, criterion: str = "mse") -> DevicePath:
        """LOO criterion for every ν at fixed μ (one eigendecomposition, generalised with
        respect to ``R`` when it is not the identity)."""
        grid, g = self._grid(nus)
        dec = self._geneig(self.matrix(mu, 0.0), self.R)
        if dec is None:
            return DevicePath("nu", grid, np.full(grid.size, np.inf), {"mu": float(mu)})
        lam, U = dec
        lam = self.xp.clip(lam, 0.0, None)
        Wt = 1.0 / (lam[:, None] + self.rho_i * g[None, :])
        return DevicePath("nu", grid, self._path(U, Wt, criterion), {"mu": float(mu)})

    def fit(self, mu: float, nu: float) -> DeviceFit:
        """Solve (N1) by one Cholesky factorisation; LOO residuals from ``L⁻¹Φ_c'``."""
        if mu < 0 or nu <= 0:
            raise HyperparameterError(f"need mu >= 0 and nu > 0, got mu={mu!r}, nu={nu!r}")
        xp = self.xp
        check_memory(self.m, 8 if self.dtype == xp.float64 else 4, 4.0, xp, self.device)
        A = self.matrix(mu, nu)
        L = _cholesky(xp, A)
        if L is None:
            raise NotPSDError(f"C + mu G + nu R (mu = {mu:g}, nu = {nu:g}) is not positive "
                              f"definite in {self.dtype}")
        Linv = solve_triangular(xp, L, self._eye())
        # the exact reciprocal 1-norm condition number (LAPACK's dpocon estimates it on the CPU)
        rcond = 1.0 / float(xp.max(xp.sum(xp.abs(A), axis=0))
                            * xp.max(xp.sum(xp.abs(xp.matrix_transpose(Linv) @ Linv), axis=0)))
        del Linv
        theta = solve_triangular(xp, L, solve_triangular(xp, L, self.rhs), trans=True)
        b = self.y_mean - self.phi_mean @ theta
        loos, hs = [], []
        for B, _, Ycb in self._loo_blocks():
            Z = solve_triangular(xp, L, xp.matrix_transpose(B))             # (m, rows)
            h = (1.0 + xp.sum(Z * Z, axis=0)) / self.W
            loos.append(leverage_residuals(Ycb - B @ theta, h))
            hs.append(h)
        return DeviceFit(theta, b, xp.concat(loos), xp.concat(hs), L, float(mu), float(nu),
                         rcond, self)

    def fit_score(self, fit: DeviceFit, criterion: str) -> float:
        """The LOO criterion of a fit."""
        Y = xp_take_rows(self.xp, self.Y, self.loo_rows)
        return float(loo_score(fit.loo[:, :, None], Y, criterion)[0])

    def loo_residuals(self, mu: float, nu: float) -> Any:
        """Exact LOO residuals ``y_i - f^{(-i)}(x_i)`` (shape of ``Y`` as given; the LOO rows)."""
        R = self.fit(mu, nu).loo
        return R[:, 0] if self.single else R


def xp_take_rows(xp: Any, A: Any, rows: np.ndarray | None) -> Any:
    """The rows ``rows`` (NumPy indices; None: all) of the device array ``A``."""
    if rows is None:
        return A
    return xp.take(A, xp.asarray(rows, device=namespace_of(A)[1]), axis=0)


class DeviceStreamedPenalizedLS(DevicePenalizedLS):
    """Problem (N1) with the design ``features(X_block)`` formed block by block on the device
    (never ``N × m`` at once): the twin of
    :class:`lssvm_cvx.linalg.streaming.StreamingPenalizedLS` on an in-memory source.  One pass
    accumulates ``S = Σ(φ-s)(φ-s)'``, ``a = Σ(φ-s)``, ``c = Σ(φ-s)y'``, ``e = Σy`` (``s`` the
    provisional mean ``shift``), whence ``C = (S - aa'/N)/N`` and ``Φ_c'y_c/N = (c - ae'/N)/N``;
    the LOO residuals of the paths and of the fit are evaluated on ``loo_rows`` only.

    Parameters
    ----------
    X : array of shape (N, d)
        The inputs the features are computed from.
    Y : array of shape (N, T)
        Targets.
    features : callable
        ``features(X_block) -> Φ_block`` (rows × m) on the device.
    G, R :
        As in :class:`DevicePenalizedLS`.
    loo_rows : numpy.ndarray
        Sorted row indices of the LOO residuals.
    shift : array of shape (m,)
        Provisional feature mean (a good one keeps the sums accurate).
    block_rows : int, default=8192
    """

    def __init__(self, X: Any, Y: Any, features: Callable[[Any], Any], G: Any, R: Any,
                 loo_rows: np.ndarray, shift: Any, *, block_rows: int = 8192):
        self._setup(X, Y, G, R, block_rows)
        xp = self.xp
        self.X, self.features = X, features
        self.rows = np.asarray(loo_rows, dtype=np.int64)
        self.loo_rows = self.rows
        S = xp.zeros((self.m, self.m), dtype=self.dtype, device=self.device)
        a = xp.zeros((self.m,), dtype=self.dtype, device=self.device)
        c = xp.zeros((self.m, int(self.Y.shape[1])), dtype=self.dtype, device=self.device)
        for s in range(0, self.N, self.block_rows):
            B = features(X[s:min(s + self.block_rows, self.N), ...]) - shift
            Yb = self.Y[s:min(s + self.block_rows, self.N), ...]
            S = S + xp.matrix_transpose(B) @ B
            a = a + xp.sum(B, axis=0)
            c = c + xp.matrix_transpose(B) @ Yb
        e = xp.sum(self.Y, axis=0)
        n = self.W
        self.phi_mean = shift + a / n
        self.y_mean = e / n
        C = (S - a[:, None] * a[None, :] / n) / n
        self._finish(C, (c - a[:, None] * e[None, :] / n) / n, float(_trace(xp, C)))

    def _loo_blocks(self) -> Iterator[tuple[Any, Any, Any]]:
        for s in range(0, self.rows.size, self.block_rows):
            rows = self.rows[s:s + self.block_rows]
            Xb, Yb = (xp_take_rows(self.xp, A, rows) for A in (self.X, self.Y))
            yield self.features(Xb) - self.phi_mean, Yb, Yb - self.y_mean


@dataclass
class DeviceFit:
    """A solved instance of (N1) on the device (the twin of
    :class:`lssvm_cvx.linalg.penalized.Fit`): coefficients, bias, exact LOO residuals and
    leverages (on the problem's LOO rows), the Cholesky factor ``L`` of ``A`` and ``rcond``
    (module docstring)."""

    theta: Any
    b: Any
    loo: Any
    leverage: Any
    L: Any
    mu: float
    nu: float
    rcond: float
    problem: DevicePenalizedLS = field(repr=False)

    def predict(self, Phi_new: Any) -> Any:
        return Phi_new @ self.theta + self.b

    def jackknife_influence(self) -> Any:
        """``Q = A⁻¹ Φ_c' diag(r)/N`` (m × N, first target): the LOO model at a new point is
        ``f^{(-i)}(x) = f(x) - r_i/N - (φ_c(x)'Q)_i`` (every row must be a LOO row)."""
        pr = self.problem
        if pr.n_loo != pr.N:
            raise InputError("the jackknife influence needs the LOO residuals of every row")
        xp = pr.xp
        parts = [solve_triangular(xp, self.L, solve_triangular(xp, self.L, xp.matrix_transpose(B)),
                                  trans=True) for B, _, _ in pr._loo_blocks()]
        return xp.concat(parts, axis=1) * (self.loo[:, 0] / pr.W)[None, :]
