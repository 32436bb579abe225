r"""The LS-SVM closed form and its exact leave-one-out on any array namespace and device
(issue 31, first step): the Gram matrix built in row blocks on the inputs' device, and the fit,
the exact LOO residuals and the whole γ path of the LOO error from the package's one closed-form
engine (:mod:`lssvm_cvx.linalg.engine`), which factorises in the inputs' namespace.

The model is the AReg paper's eq. (2) (the LS-SVM with a bias):

.. math::

   \begin{bmatrix} 0 & 1^\top \\ 1 & K + I/\gamma \end{bmatrix}
   \begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ y \end{bmatrix},
   \qquad f(x) = \sum_i \alpha_i k(x_i, x) + b .

With ``H = K + I/γ = L Lᵀ`` (one Cholesky factor,
:class:`~lssvm_cvx.linalg.quadratic.RKHSSystem`), ``b = 1ᵀH⁻¹y / 1ᵀH⁻¹1``,
``α = H⁻¹y - b H⁻¹1``.  The leave-one-out residual is ``r_i = α_i / C_ii`` with
``C = H⁻¹ - h hᵀ / 1ᵀh`` the α-block of the bordered inverse (Cawley & Talbot 2004), ``(H⁻¹)_ii``
the squared column norms of ``L⁻¹`` formed in column blocks that skip its zero upper triangle
(:func:`~lssvm_cvx.linalg.arrays.inverse_diagonal`).  Along a γ path, ``K = U Λ Uᵀ`` once and
every γ costs O(N²) (:class:`~lssvm_cvx.linalg.engine.SpectralSystem`).  (Issue 30, step 5: this
module had its own factorisation, bordered solve and spectral path, twins of the CPU engine's.)

These functions are what the device benchmark (``lssvm-cvx bench --only device``) times, and
the tests compare them with the NumPy path to 1e-10 under NumPy, ``array-api-strict`` and
PyTorch on the CPU.
"""

from __future__ import annotations

from typing import Any

from ..checks import check_option
from ..exceptions import InputError
from ..linalg.arrays import check_finite, check_memory, float_dtype, namespace_of, pairwise_blocks, sq_dists
from ..linalg.engine import RKHS, decompose
from ..linalg.quadratic import QuadraticSystem
from .arrays import positive

__all__ = ["pairwise_blocks", "sq_dists", "rbf_gram", "check_system_inputs", "lssvm_fit",
           "lssvm_loo_residuals", "loo_path_residuals", "loo_gamma_path", "loo_grid"]


def _matrix(xp: Any, K: Any, y: Any) -> int:
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise InputError(f"K must be a square matrix, got shape {tuple(K.shape)}")
    if y.ndim != 1 or y.shape[0] != K.shape[0]:
        raise InputError(f"y must be a vector of length {K.shape[0]} (the rows of K), got shape "
                         f"{tuple(y.shape)}")
    check_finite(xp, "K and y", K, y)
    return int(K.shape[0])


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


def check_system_inputs(K: Any, y: Any, matrices: float, *others: Any) -> tuple[Any, Any, int]:
    """Namespace, device and N of the inputs of a solve, after the dtype, shape, value and
    memory checks (``matrices`` N × N arrays of ``K``'s dtype must fit; ``others``: N × N term
    matrices that must share the namespace and be finite too)."""
    xp, device = namespace_of(K, y, *others)
    float_dtype(xp, K, y, *others)
    n = _matrix(xp, K, y)
    for P in others:
        if tuple(P.shape) != (n, n) or not bool(xp.all(xp.isfinite(P))):
            raise InputError(f"a term's matrix must be finite and {n} × {n}, got shape "
                             f"{tuple(P.shape)}")
    check_memory(n, K.dtype, matrices, xp, device)
    return xp, device, n


def _bordered(K: Any, g: float) -> QuadraticSystem:
    """The engine's bordered system ``K + I/γ`` (:func:`~lssvm_cvx.linalg.engine.decompose`)."""
    return decompose(K, 1.0, {"rkhs": (RKHS, 1.0 / g)}, name=f"K + I/gamma (gamma = {g:g})"
                     ).system(representation="bordered")


def _lssvm_system(K: Any, y: Any, gamma: float, *, matrices: float = 3.0) -> QuadraticSystem:
    """The LS-SVM's factorised bordered system ``K + I/γ`` (AReg eq. 2) on the inputs' device,
    after the checks of the inputs (``matrices`` N × N arrays of ``K``'s dtype must fit: ``I``,
    ``H`` and ``L``, and one more for ``L⁻¹`` when the caller holds out).

    Returns
    -------
    QuadraticSystem
        ``solve``, ``loo`` and ``kfold`` of the engine's
        :class:`~lssvm_cvx.linalg.quadratic.RKHSSystem`.
    """
    check_system_inputs(K, y, matrices)
    return _bordered(K, positive(gamma))


def lssvm_fit(K: Any, y: Any, gamma: float) -> tuple[Any, Any]:
    """The LS-SVM's ``(α, b)`` for the Gram matrix ``K`` and targets ``y`` (AReg eq. 2): one
    Cholesky factor of ``K + I/γ`` and two triangular solves, on the inputs' device.

    Returns
    -------
    alpha : array of shape (n,)
    b : float (NumPy) or 0-d array
    """
    return _lssvm_system(K, y, gamma).solve(y)


def lssvm_loo_residuals(K: Any, y: Any, gamma: float) -> Any:
    """Exact leave-one-out residuals ``y_i - f⁽⁻ⁱ⁾(x_i)`` of the LS-SVM, ``α_i / C_ii``, from the
    fit's Cholesky factor (plus ``L⁻¹`` for the diagonal of ``H⁻¹``), on the inputs' device."""
    return _lssvm_system(K, y, gamma, matrices=4.0).loo(y)


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
    check_option(method, ("cholesky", "eigh"), "method")
    if method == "cholesky":                          # I, H, L and L⁻¹ per γ
        xp, _, _ = check_system_inputs(K, y, 4.0)
        return xp.stack([_bordered(K, g).loo(y) for g in gs])
    xp, _, _ = check_system_inputs(K, y, 3.0)   # K, U and one N × N product
    dec = decompose(K, 1.0, {"rkhs": (RKHS, 1.0)})
    return xp.stack(dec.path("rkhs", [1.0 / g for g in gs], y)[2])


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
