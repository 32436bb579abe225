r"""The LS-SVM closed form and its exact leave-one-out on any array namespace and device
(issue 31, first step): the Gram matrix built in row blocks on the inputs' device, one
Cholesky factor and two triangular solves for the fit, the exact LOO residuals from the same
factor, and the whole γ path of the LOO error from one eigendecomposition.

The model is the AReg paper's eq. (2) (the LS-SVM with a bias):

.. math::

   \begin{bmatrix} 0 & 1^\top \\ 1 & K + I/\gamma \end{bmatrix}
   \begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ y \end{bmatrix},
   \qquad f(x) = \sum_i \alpha_i k(x_i, x) + b .

With ``H = K + I/γ = L Lᵀ``, ``h = H⁻¹1`` and ``H⁻¹y`` come from one forward and one backward
solve with the two right-hand sides together; ``b = 1ᵀH⁻¹y / 1ᵀh``, ``α = H⁻¹y - b h``.  The
leave-one-out residual is ``r_i = α_i / C_ii`` with ``C = H⁻¹ - h hᵀ / 1ᵀh`` the α-block of the
bordered inverse (Cawley & Talbot 2004; the NumPy twin is
:func:`lssvm_cvx.model_selection.loo_residuals`), ``(H⁻¹)_ii`` the squared column norms of
``L⁻¹`` formed in column blocks that skip its zero upper triangle
(:func:`inverse_diagonal`).  Along a γ path, ``K = U Λ Uᵀ`` once and every γ costs O(N²).

The NumPy/SciPy path of the estimators is unchanged; these functions are what the device
benchmark (``lssvm-cvx bench --only device``) times, and the tests compare them with it to
1e-10 under NumPy, ``array-api-strict`` and PyTorch on the CPU.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any, NamedTuple

from array_api_compat import device as device_of

from ..exceptions import HyperparameterError, InputError, NumericalError
from ..linalg.arrays import check_memory, float_dtype, namespace_of, solve_triangular
from ..linalg.scores import diagonal_residuals
from .arrays import positive

__all__ = ["pairwise_blocks", "sq_dists", "rbf_gram", "lssvm_fit", "lssvm_factor", "LSSVMFactor",
           "lssvm_loo_residuals", "loo_path_residuals", "loo_gamma_path", "loo_grid", "inverse_diagonal"]


def _matrix(xp: Any, K: Any, y: Any) -> int:
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise InputError(f"K must be a square matrix, got shape {tuple(K.shape)}")
    if y.ndim != 1 or y.shape[0] != K.shape[0]:
        raise InputError(f"y must be a vector of length {K.shape[0]} (the rows of K), got shape "
                         f"{tuple(y.shape)}")
    if not (bool(xp.all(xp.isfinite(K))) and bool(xp.all(xp.isfinite(y)))):
        raise InputError("K and y must be finite (NaN or inf found)")
    return int(K.shape[0])


def pairwise_blocks(X: Any, Z: Any, fn: Any, *, block_rows: int = 4096) -> Any:
    """``fn(D)`` of the squared distances ``D_ij = ||x_i - z_j||²`` (clipped at 0) for the rows
    of ``X`` and ``Z``, formed ``block_rows`` rows at a time on the inputs' device (the
    temporary memory is one ``block_rows × m`` block besides the result; the memory of the
    result is checked first).

    Parameters
    ----------
    X, Z : array of shape (n, d) and (m, d)
        Inputs of one namespace, float32 or float64.
    fn : callable
        Elementwise map of a block of squared distances (in their namespace).
    block_rows : int, default=4096

    Returns
    -------
    array of shape (n, m)
    """
    xp, device = namespace_of(X, Z)
    dtype = float_dtype(xp, X, Z)
    check_memory(int(X.shape[0]), 8 if dtype == xp.float64 else 4, 1.0, xp, device,
                 cols=int(Z.shape[0]))
    zz = xp.sum(Z * Z, axis=1)
    out = xp.empty((X.shape[0], Z.shape[0]), dtype=dtype, device=device)
    n = int(X.shape[0])
    for start in range(0, n, block_rows):
        stop = min(start + block_rows, n)               # the standard has no out-of-range stops
        B = X[start:stop, ...]
        d2 = xp.sum(B * B, axis=1)[:, None] + zz[None, :] - 2.0 * (B @ xp.matrix_transpose(Z))
        out[start:stop, ...] = fn(xp.clip(d2, 0.0, None))
    return out


def sq_dists(X: Any, Z: Any = None, *, block_rows: int = 4096) -> Any:
    """``||x_i - z_j||²`` (clipped at 0) for the rows of ``X`` and ``Z`` (``X`` when None), in
    blocks on the inputs' device (:func:`pairwise_blocks`)."""
    return pairwise_blocks(X, X if Z is None else Z, lambda d2: d2, block_rows=block_rows)


def rbf_gram(X: Any, Z: Any = None, *, sigma2: float, block_rows: int = 4096) -> Any:
    """``exp(-||x - z||² / σ²)`` for the rows of ``X`` and ``Z`` (``X`` when None), built in
    blocks of ``block_rows`` rows on the inputs' device.

    Parameters
    ----------
    X, Z : array of shape (n, d) and (m, d)
        Inputs of one namespace, float32 or float64.
    sigma2 : float
        The RBF width σ² > 0 (``lssvm_cvx.kernels.RBF(sigma2)``'s convention).
    block_rows : int, default=4096
        Rows computed at a time (bounds the temporary memory to ``block_rows × m``).

    Returns
    -------
    array of shape (n, m)
    """
    Z = X if Z is None else Z
    xp, _ = namespace_of(X, Z)
    s2 = positive(sigma2, "sigma2")
    return pairwise_blocks(X, Z, lambda d2: xp.exp(-d2 / s2), block_rows=block_rows)


def _factor(xp: Any, K: Any, gamma: float) -> Any:
    n = K.shape[0]
    H = K + xp.eye(n, dtype=K.dtype, device=device_of(K)) / gamma
    L = xp.linalg.cholesky(H)
    if not bool(xp.all(xp.isfinite(L))):
        raise NumericalError(f"K + I/γ (γ = {gamma:g}) is not positive definite in "
                             f"{K.dtype}: the Cholesky factor is not finite; use float64 or a "
                             "smaller γ")
    return L


def _checked(K: Any, y: Any, matrices: float) -> tuple[Any, Any, int]:
    """Namespace, device and N of the inputs of a solve, after the dtype, shape, value and
    memory checks (``matrices`` N × N arrays of ``K``'s dtype must fit)."""
    xp, device = namespace_of(K, y)
    float_dtype(xp, K, y)
    n = _matrix(xp, K, y)
    check_memory(n, 8 if K.dtype == xp.float64 else 4, matrices, xp, device)
    return xp, device, n


def _bordered(xp: Any, hy: Any, h1: Any) -> tuple[Any, Any, Any]:
    """``(α, b, 1ᵀh)`` of the bordered system from ``H⁻¹y`` and ``h = H⁻¹1``:
    ``b = 1ᵀH⁻¹y / 1ᵀh``, ``α = H⁻¹y - b h``."""
    s = xp.sum(h1)
    b = xp.sum(hy) / s
    return hy - b * h1, b, s


def _solve_both(xp: Any, L: Any, y: Any) -> tuple[Any, Any]:
    """``H⁻¹y`` and ``H⁻¹1`` from the factor: one forward and one backward solve, two columns."""
    rhs = xp.stack([y, xp.ones_like(y)], axis=1)
    Z = solve_triangular(xp, L, solve_triangular(xp, L, rhs), trans=True)
    return Z[:, 0], Z[:, 1]


class LSSVMFactor(NamedTuple):
    """The LS-SVM's fit with its factor (:func:`lssvm_factor`), arrays on the inputs' device.

    Attributes
    ----------
    L : array of shape (n, n)
        Cholesky factor of ``H = K + I/γ``.
    alpha : array of shape (n,)
    b : 0-d array
    h : array of shape (n,)
        ``H⁻¹1``.
    s : 0-d array
        ``1ᵀH⁻¹1``.
    """

    L: Any
    alpha: Any
    b: Any
    h: Any
    s: Any


def _factor_solve(xp: Any, K: Any, y: Any, gamma: float) -> LSSVMFactor:
    L = _factor(xp, K, gamma)
    hy, h1 = _solve_both(xp, L, y)
    alpha, b, s = _bordered(xp, hy, h1)
    return LSSVMFactor(L, alpha, b, h1, s)


def lssvm_factor(K: Any, y: Any, gamma: float, *, matrices: float = 3.0) -> LSSVMFactor:
    """The LS-SVM's ``(α, b)`` for the Gram matrix ``K`` and targets ``y`` (AReg eq. 2) with the
    pieces its held-out residuals reuse: one Cholesky factor of ``H = K + I/γ``, the two
    triangular solves of ``H⁻¹[y 1]``, then ``b = 1ᵀH⁻¹y / 1ᵀH⁻¹1``, ``α = H⁻¹y - b H⁻¹1``.

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    gamma : float
    matrices : float, default=3.0
        N × N arrays of ``K``'s dtype that must fit in the device's memory (``I``, ``H`` and
        ``L``; a caller that forms more, such as ``L⁻¹``, asks for them here).

    Returns
    -------
    LSSVMFactor
    """
    xp, _, _ = _checked(K, y, matrices)
    return _factor_solve(xp, K, y, positive(gamma))


def lssvm_fit(K: Any, y: Any, gamma: float) -> tuple[Any, Any]:
    """The LS-SVM's ``(α, b)`` for the Gram matrix ``K`` and targets ``y`` (AReg eq. 2): one
    Cholesky factor of ``K + I/γ`` and two triangular solves, on the inputs' device.

    Returns
    -------
    alpha : array of shape (n,)
    b : 0-d array
    """
    f = lssvm_factor(K, y, gamma)                      # I, K + I/γ and its factor
    return f.alpha, f.b


def lssvm_loo_residuals(K: Any, y: Any, gamma: float) -> Any:
    """Exact leave-one-out residuals ``y_i - f⁽⁻ⁱ⁾(x_i)`` of the LS-SVM, ``α_i / C_ii``, from the
    fit's Cholesky factor (plus ``L⁻¹`` for the diagonal of ``H⁻¹``), on the inputs' device."""
    xp, device, n = _checked(K, y, 4.0)                # the fit's three and L⁻¹
    return _loo_cholesky(xp, device, K, y, positive(gamma))


def _loo_cholesky(xp: Any, device: Any, K: Any, y: Any, gamma: float) -> Any:
    """``α_i / C_ii`` for one γ (inputs already checked): one factor, ``L⁻¹`` for ``diag H⁻¹``."""
    f = _factor_solve(xp, K, y, gamma)
    return diagonal_residuals(f.alpha, inverse_diagonal(xp, device, f.L) - f.h * f.h / f.s)


def inverse_diagonal(xp: Any, device: Any, L: Any, *, block: int = 1024) -> Any:
    """``diag(H⁻¹)`` from the Cholesky factor ``H = L Lᵀ``: the squared column norms of ``L⁻¹``.

    Column ``j`` of ``L⁻¹`` is zero above row ``j``, so the columns ``[j₀, j₁)`` come from the
    trailing block alone, ``L[j₀:, j₀:] X = I[j₀:, j₀:j₁]``, solved by block forward
    substitution in matrix products: with ``D_i = L_ii⁻¹`` the inverses of the diagonal blocks
    (formed once), ``X_i = -D_i (L[i, j₀:i] X[j₀:i])`` row block after row block (the
    formulation of GPU triangular solves with inverted diagonal blocks, in general matrix
    products, the fastest kernel of a GPU).  With ``k`` blocks the products cost about
    ``N³ (k + 1)(2k + 1) / (6k²)`` multiply-adds (0.36 N³ for ``k = 20``, N = 20 000) against
    ``N³`` for ``solve_triangular(L, I)``, and the temporary is ``N × block``, not ``N × N``.

    Parameters
    ----------
    xp, device
        The namespace and device of ``L``.
    L : array of shape (n, n)
        Lower-triangular Cholesky factor.
    block : int, default=1024
        Rows and columns of a block.  On an H100 at N = 20 000 (``.devrun`` probe of the run at
        3f1bd22) 1024 took 0.073 s, as long as the Cholesky factor itself, 2560 0.084 s,
        4096 0.098 s and ``⌈N / 12⌉ = 1667`` 0.094 s (sizes off the tensor cores' tiles are
        slow); 512 is a little faster on a CPU.

    Returns
    -------
    array of shape (n,)
    """
    if isinstance(block, bool) or not isinstance(block, Integral) or block < 1:
        raise HyperparameterError(f"block must be an integer >= 1, got {block!r}")
    n = int(L.shape[0])
    r = int(block)
    edges = [(s0, min(s0 + r, n)) for s0 in range(0, n, r)]
    D = [solve_triangular(xp, L[s0:s1, s0:s1], xp.eye(s1 - s0, dtype=L.dtype, device=device))
         for s0, s1 in edges]
    parts = []
    for j, (j0, j1) in enumerate(edges):
        X = xp.empty((n - j0, j1 - j0), dtype=L.dtype, device=device)
        X[: j1 - j0, ...] = D[j]
        for i in range(j + 1, len(edges)):
            i0, i1 = edges[i]
            X[i0 - j0:i1 - j0, ...] = -(D[i] @ (L[i0:i1, j0:i0] @ X[: i0 - j0, ...]))
        parts.append(xp.sum(X * X, axis=0))
    return xp.concat(parts)


def loo_grid(X: Any, y: Any, gammas: Any, sigma2s: Any, *, method: str = "cholesky",
             block_rows: int = 4096) -> Any:
    """Mean squared exact LOO residual of the RBF LS-SVM on a (σ², γ) grid, on the inputs'
    device: the exact model selection of :class:`~lssvm_cvx.estimators.LSSVMRegressor`
    (``loo="exact"``) without leaving the device.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    gammas, sigma2s : sequences of float
        The grid (every pair is scored).
    method : {"cholesky", "eigh"}, default="cholesky"
        ``"cholesky"``: one Cholesky factor and the diagonal of its inverse per pair
        (:func:`lssvm_loo_residuals`; ``≈ 0.72 N³`` flops each); ``"eigh"``: one eigendecomposition
        per σ² and O(N²) per γ (:func:`loo_gamma_path`).  The same numbers either way (to
        round-off); which is faster depends on the device's ``eigh`` against its Cholesky and
        triangular solve and on the number of γ (``lssvm-cvx bench --only device``).
    block_rows : int, default=4096
        Rows of the Gram built at a time (:func:`rbf_gram`).

    Returns
    -------
    array of shape (len(sigma2s), len(gammas))
    """
    xp, device = namespace_of(X, y)
    float_dtype(xp, X, y)
    rows = []
    for s2 in sigma2s:
        K = rbf_gram(X, sigma2=s2, block_rows=block_rows)
        r = loo_path_residuals(K, y, gammas, method=method)
        rows.append(xp.mean(r * r, axis=1))
        del K
    return xp.stack(rows)


def loo_path_residuals(K: Any, y: Any, gammas: Any, *, method: str = "eigh") -> Any:
    """Exact leave-one-out residuals ``α_i / C_ii`` of the LS-SVM at every γ of ``gammas``,
    on the inputs' device: one row per γ.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix.
    y : array of shape (n,)
        Targets.
    gammas : sequence of float
        Regularisation constants (> 0).
    method : {"eigh", "cholesky"}, default="eigh"
        ``"eigh"``: one eigendecomposition ``K = U Λ Uᵀ``, then O(N²) per γ; ``"cholesky"``:
        one Cholesky factor and the diagonal of its inverse per γ (:func:`lssvm_loo_residuals`).
        The same numbers either way (to round-off).

    Returns
    -------
    array of shape (len(gammas), n)
    """
    gs = [positive(g) for g in gammas]
    if method not in ("cholesky", "eigh"):
        raise HyperparameterError(f"method must be 'cholesky' or 'eigh', got {method!r}")
    if method == "cholesky":
        xp, device, _ = _checked(K, y, 4.0)
        return xp.stack([_loo_cholesky(xp, device, K, y, g) for g in gs])
    xp, _, _ = _checked(K, y, 3.0)
    lam, U = xp.linalg.eigh(K)
    lam = xp.clip(lam, 0.0, None)                       # round-off negatives of a PSD Gram
    Ut = xp.matrix_transpose(U)
    Uy, U1, U2 = Ut @ y, xp.sum(U, axis=0), U * U
    out = []
    for g in gs:
        w = 1.0 / (lam + 1.0 / g)
        hy, h1 = U @ (w * Uy), U @ (w * U1)
        alpha, _, s = _bordered(xp, hy, h1)
        out.append(diagonal_residuals(alpha, U2 @ w - h1 * h1 / s))
    return xp.stack(out)


def loo_gamma_path(K: Any, y: Any, gammas: Any) -> Any:
    """Mean squared exact LOO residual of the LS-SVM at every γ of ``gammas``: one
    eigendecomposition ``K = U Λ Uᵀ``, then O(N²) per γ (:func:`loo_path_residuals`).

    Returns
    -------
    array of shape (len(gammas),), in the inputs' namespace and on their device
    """
    r = loo_path_residuals(K, y, gammas, method="eigh")
    xp, _ = namespace_of(K, y)
    return xp.mean(r * r, axis=1)
