"""Least-squares solves of the fused AReg problems (Pelckmans, Suykens & De Moor 2006): the
equality-constrained least squares of Algorithm 3.1 (eq. 18-19) by a bordered Cholesky system
when the normal matrix is well conditioned, else a minimum-norm solve; the paper's
early-stopped LSQR."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..checks import as_matrix, as_targets, check_grid, check_integer, check_option, check_positive
from ..exceptions import ConditioningWarning, HyperparameterError, InputError, NotPSDError
from .bordered import BorderedSystem
from .cholesky import Cholesky
from .scores import gcv_score

__all__ = ["CHOL_RCOND", "EIG_RTOL", "LSQR_ITER", "MU_GRID", "cholesky_if_conditioned",
           "min_norm_lstsq", "lsqr_lstsq", "tikhonov_lstsq", "gcv_curve", "constrained_lstsq",
           "normal_lstsq"]

#: reciprocal condition of ``M'M`` above which the normal equations are solved by Cholesky
#: (relative error ≲ eps/rcond ≈ 1e-8)
CHOL_RCOND = 1e-8
#: relative eigenvalue cutoff of :func:`min_norm_lstsq` (directions below it are treated as
#: the null space, which selects the minimum-norm solution)
EIG_RTOL = 1e-13
#: default number of LSQR iterations of the early-stopped solves (Matlab's ``lsqr`` default)
LSQR_ITER = 20
#: relative Tikhonov weights ``μ / σ_max²`` searched by the GCV choice of :func:`tikhonov_lstsq`
MU_GRID = np.logspace(-14, 1, 151)


def cholesky_if_conditioned(G: np.ndarray, rcond: float) -> Cholesky | None:
    """Cholesky factor of the SPD ``G`` if its reciprocal condition estimate exceeds
    ``rcond``, else ``None`` (no warning: the caller falls back to a minimum-norm solve)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConditioningWarning)
        try:
            chol = Cholesky.factor(G, name="normal matrix", check_cond=True)
        except NotPSDError:
            return None
    return chol if chol.rcond > rcond else None


def _checked(A: Any, g: Any) -> tuple[np.ndarray, np.ndarray]:
    """``A`` as a finite float64 matrix and ``g`` as finite targets of its rows (``(m,)`` or
    ``(m, T)``), else :class:`~lssvm_cvx.exceptions.InputError` naming them.  Until the
    twenty-fourth session the three solvers below took ``np.asarray`` of their inputs: a NaN
    in ``g`` came back as a NaN solution, a NaN in ``A`` or a string crashed inside LAPACK or
    NumPy."""
    A = as_matrix(A, name="A")
    return A, as_targets(g, A.shape[0], name="g", columns=True)


def min_norm_lstsq(A: np.ndarray, g: np.ndarray, *, eig_rtol: float = EIG_RTOL
                   ) -> tuple[np.ndarray, dict[str, Any]]:
    """Minimum-norm least squares ``min ||A x - g||`` through the normal equations and one
    ``eigh`` of ``A'A``: eigenvalues below ``eig_rtol × max`` (singular values of ``A`` below
    ``sqrt(eig_rtol) × σ_max``, about ``3e-7 σ_max`` by default) are treated as zero.

    Cheaper than LAPACK's rank-revealing least squares (``gelsy``/``gelsd``, BLAS-2 heavy) on
    tall matrices, at the price of resolving only the directions that the normal equations can
    represent in double precision; the dropped directions change ``A x`` by at most
    ``sqrt(eig_rtol) σ_max |x_i|``.
    """
    A, g = _checked(A, g)
    G = A.T @ A
    s, V = np.linalg.eigh(G)
    keep = s > eig_rtol * max(float(s[-1]), 1e-300)
    x = V[:, keep] @ ((V[:, keep].T @ (A.T @ g)) / s[keep])
    return x, {"method": "eigh", "dropped": int((~keep).sum())}


def lsqr_lstsq(A: np.ndarray, g: np.ndarray, *, iter_lim: int = LSQR_ITER,
               tol: float = 1e-6) -> tuple[np.ndarray, dict[str, Any]]:
    """``iter_lim`` steps of LSQR (conjugate gradients on the normal equations) from ``x = 0``.

    The paper solves its fused least-squares problems this way ("via ordinary least squares
    (52) can be solved in O(lN²) where 0 < l ≪ N is the number of iteration steps in the
    conjugate gradient algorithm", Remarks 4.4 and 5.4).  Stopped early, the iteration is a
    regularizer (iterates stay in the span of the first Krylov vectors); it is *not* the
    optimum of the convex problem.  Defaults are those of Matlab's ``lsqr`` (``maxit =
    min(n, 20)``, ``tol = 1e-6``); the paper does not state its settings.
    """
    from scipy.sparse.linalg import lsqr

    A, g = _checked(A, g)
    r = lsqr(A, g, atol=tol, btol=tol, iter_lim=check_integer(iter_lim, "iter_lim"))
    return r[0], {"method": "lsqr", "iterations": int(r[2]), "istop": int(r[1])}


def gcv_curve(s: np.ndarray, beta: np.ndarray, perp2: float, m: int, mus: np.ndarray
              ) -> np.ndarray:
    """Generalized cross-validation (Golub, Heath & Wahba 1979, cited in §1 of the AReg paper)
    of the Tikhonov solutions ``x_μ = argmin ||Ax - g||² + μ||x||²`` for every ``μ`` in ``mus``::

        GCV(μ) = m ||A x_μ - g||² / (m - tr H_μ)²,   H_μ = A (A'A + μI)^{-1} A'

    from the thin SVD of ``A`` (``m`` rows): singular values ``s``, ``beta = U'g`` and
    ``perp2 = ||g||² - ||beta||²`` (the part of ``g`` outside the range of ``A``).  With
    ``f_i = s_i²/(s_i² + μ)``: residual ``Σ((1 - f_i)β_i)² + perp2``, ``tr H_μ = Σ f_i``
    (:func:`~lssvm_cvx.linalg.scores.gcv_score`, the package's one GCV; until 2026-11-28 this
    curve was ``1/m`` of it, which has the same minimiser).
    """
    s, beta = as_targets(s, None, name="s"), as_targets(beta, None, name="beta")
    mus = check_grid(mus, "mus", allow_zero=True, flat=True)
    perp2 = check_positive(perp2, "perp2", allow_zero=True, error=InputError)
    m = check_integer(m, "m", error=InputError)
    s2 = s[None, :] ** 2
    f = s2 / (s2 + mus[:, None])
    res2 = np.sum(((1.0 - f) * beta[None, :]) ** 2, axis=1) + perp2
    return gcv_score(res2, m, m - f.sum(axis=1))


def tikhonov_lstsq(A: np.ndarray, g: np.ndarray, mu: float | str = "gcv", *,
                   grid: np.ndarray = MU_GRID) -> tuple[np.ndarray, dict[str, Any]]:
    """Tikhonov-regularized least squares ``min ||A x - g||² + μ ||x||²``, i.e. the solution of
    the normal equations ``(A'A + μI) x = A'g``, computed from the thin SVD ``A = U S V'`` as
    ``x = V diag(s/(s² + μ)) U'g`` (stable where ``A'A`` is singular to working precision).

    ``mu="gcv"`` chooses the weight by minimising :func:`gcv_curve` over
    ``μ = σ_max² × grid`` (``σ_max`` the largest singular value of ``A``; the default grid is
    :data:`MU_GRID`, 151 points from 1e-14 to 10, i.e. from no regularization at double
    precision to shrinking every direction); a float ``mu > 0`` is used as given.  ``info``
    holds ``mu``, the singular values ``s`` and, for the GCV choice, the curve.

    This is the regularized variant of the AReg cross-validation fusion (§5.2 of Pelckmans,
    Suykens & De Moor 2006), whose exact optimum is ill-posed (``c`` has ``N`` degrees of
    freedom and the least-squares matrix in ``c`` is numerically rank deficient); the paper
    regularizes only implicitly, by stopping conjugate gradients early (Remark 5.4).
    """
    A, g = _checked(A, g)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    beta = U.T @ g
    info: dict[str, Any] = {"method": "tikhonov", "s": s}
    smax2 = max(float(s[0]) ** 2, 1e-300)
    if isinstance(mu, str):
        if mu != "gcv":
            raise HyperparameterError(f"mu must be a number > 0 or 'gcv', got {mu!r}")
        mus = smax2 * np.asarray(grid, dtype=float)
        perp2 = max(float(g @ g - beta @ beta), 0.0)
        curve = gcv_curve(s, beta, perp2, A.shape[0], mus)
        k = int(np.argmin(curve))
        mu_v = float(mus[k])
        info.update(gcv=curve, grid=mus, at_boundary=k in (0, mus.size - 1))
    else:
        mu_v = check_positive(mu, "mu")
    info["mu"] = mu_v
    x = Vt.T @ (s / (s ** 2 + mu_v) * beta)
    return x, info


def constrained_lstsq(M_alpha: np.ndarray, m_b: np.ndarray, g: np.ndarray, a: np.ndarray, *,
                      rcond: float = CHOL_RCOND, info: dict | None = None,
                      method: str = "exact", iter_lim: int = 20) -> tuple[np.ndarray, float]:
    """``min_{α,b} ||M_α α + m_b b - g||²`` s.t. ``a'α = 0`` (minimum-norm when not unique).

    Fast path — the paper's analytic solution (Algorithm 3.1, eq. 18-19): with
    ``M = [M_α, m_b]`` (columns scaled to unit norm, which leaves the solution unchanged) and
    ``d = (a; 0)``, the optimality conditions
    ``M'M x - M'g = ρ d``, ``d'x = 0`` form the bordered system
    ``[[0, d'], [d, M'M]] [-ρ; x] = [0; M'g]``, solved by one Cholesky factor of ``M'M`` and the
    Schur complement (:class:`~lssvm_cvx.linalg.BorderedSystem`); this is
    ``ρ = -d'M^†g / d'(M'M)^{-1}d`` of eq. (19).  It is used when LAPACK's reciprocal condition
    estimate of ``M'M`` exceeds ``rcond`` (the normal equations lose ``cond(M'M)·eps`` relative
    accuracy).

    Otherwise (RBF Grams are often singular to working precision, and ``M'M`` squares their
    condition number) the constraint is eliminated with the projector ``P = I - aa'/(a'a)``,
    ``α = P z``, and the minimum-norm solution of the projected problem is computed by
    :func:`min_norm_lstsq`.  Since ``M_α P a = 0``, the minimum-norm ``z`` has no component
    along ``a``, so ``α = z`` satisfies the constraint.  The model ``M x`` is unique either way;
    ``α`` is unique when ``M`` has full column rank (then both paths agree).

    ``method="lsqr"`` runs :func:`lsqr_lstsq` on the projected problem instead (the paper's
    early-stopped CG; its iterates stay orthogonal to ``a``).  ``info``, if given, receives
    ``{"method": "cholesky" | "eigh" | "lsqr", ...}``.
    """
    check_option(method, ("exact", "lsqr"), "method")
    M_alpha, g = _checked(M_alpha, g)
    N = M_alpha.shape[1]
    m_b = as_targets(m_b, M_alpha.shape[0], name="m_b")
    a = as_targets(a, N, name="a")
    M = np.empty((M_alpha.shape[0], N + 1))
    M[:, :N] = M_alpha
    M[:, N] = m_b
    chol = None
    if method == "exact":
        G = M.T @ M
        # Jacobi scaling: the bias column has norm sqrt(N + n) against O(1) kernel columns
        sc = 1.0 / np.sqrt(np.maximum(np.diagonal(G), 1e-300))
        G *= sc[:, None]
        G *= sc[None, :]
        h = sc * (M.T @ g)
        chol = cholesky_if_conditioned(G, rcond)
    rc = 0.0 if chol is None else chol.rcond
    if chol is not None:
        d = np.zeros(N + 1)
        d[:N] = a
        x, _ = BorderedSystem(chol, sc * d).solve(h)
        x *= sc
        if info is not None:
            info.update(method="cholesky", rcond=float(rc))
        return x[:N], float(x[N])
    aa = float(a @ a)
    M[:, :N] -= np.outer(M_alpha @ a, a / aa)
    x, meta = min_norm_lstsq(M, g) if method == "exact" else lsqr_lstsq(M, g, iter_lim=iter_lim)
    if info is not None:
        info.update(meta, rcond=float(rc))
    z = x[:N]
    return z - a * (a @ z) / aa, float(x[N])


def normal_lstsq(G: np.ndarray, h: np.ndarray, method: str = "exact", iter_lim: int = LSQR_ITER,
                 mu: float | str = "gcv") -> tuple[np.ndarray, dict[str, Any]]:
    """``min ||G c - h||`` (minimum norm): Cholesky of ``G'G`` when its reciprocal condition
    exceeds :data:`CHOL_RCOND`, else :func:`min_norm_lstsq`;
    ``method="lsqr"``: :func:`lsqr_lstsq` (early-stopped CG);
    ``method="tikhonov"``: :func:`tikhonov_lstsq` with weight ``mu``."""
    check_option(method, ("exact", "lsqr", "tikhonov"), "method")
    G, h = _checked(G, h)
    if method == "lsqr":
        return lsqr_lstsq(G, h, iter_lim=iter_lim)
    if method == "tikhonov":
        return tikhonov_lstsq(G, h, mu)
    chol = cholesky_if_conditioned(G.T @ G, CHOL_RCOND)
    if chol is not None:
        return chol.solve(G.T @ h), {"method": "cholesky", "rcond": chol.rcond}
    return min_norm_lstsq(G, h)
