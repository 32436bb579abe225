"""The gradient-norm regularizer of the Auto LS-SVM note (Sorber 2017, §1.2, eq. 40-44).

For the RBF model ``f(x) = K(x) α = Σ_i α_i k(x, x_i)`` with ``k(x, z) = exp(-γ ||x - z||²)``
(note eq. 4, scikit-learn's convention) the squared gradient norm integrated over all of
``R^d`` is a quadratic form in ``α`` (eq. 40-41)::

    ∫ ||∇f(x)||² dx = α' G α,
    G_ij = γ² (π / (2γ))^{d/2} sqrt(k(x_i, x_j)) (d/γ - ||x_i - x_j||²).

Derivation check (used for the tests): ``k(x, x_i) k(x, x_j) = sqrt(k(x_i, x_j))
exp(-2γ ||x - m||²)`` with ``m = (x_i + x_j)/2``, i.e. a Gaussian of variance ``1/(4γ)`` per
coordinate and mass ``(π/(2γ))^{d/2}``, and ``(x - x_i)'(x - x_j)`` has mean
``d/(4γ) - ||x_i - x_j||²/4`` under it; times ``4γ²`` from eq. (7) this is eq. (41).  Every
intermediate integral of the note (eq. 18-39) checks out.

``G`` is positive semi-definite: it is the Gram matrix of the functions ``∇k(·, x_i)`` in
``L²(R^d)^d``; in Fourier terms it is ``-Δ`` of the Gaussian ``sqrt(k)``, whose transform is
``||ω||² exp(-||ω||²/(2γ)) ≥ 0`` (Bochner).

Normalised forms (§1.3)
-----------------------
The note proposes (eq. 43) to "fix d = 2", giving ``sqrt(k_ij) (2 - γ ||x_i - x_j||²)``, and
(eq. 44) to use ``γ/d`` in the kernel, ``sqrt(k_ij) (2 - (γ/d) ||x_i - x_j||²)``.

**Slip.**  The ``d`` inside the bracket of eq. (41) is the trace of the Laplacian: it counts the
directions the gradient is integrated over.  Replacing it by 2 subtracts ``(d - 2)`` times the
PSD matrix ``sqrt(k)`` from a PSD matrix, so eq. (43)/(44) are **indefinite** as soon as the
inputs span three or more dimensions (the Fourier transform becomes
``(||ω||² - (d - 2)γ') exp(...)``, negative near ``ω = 0``); ``α'Gα`` can then be negative and
objective (9) is no longer convex.  ``tests/test_gradient_norm.py::
test_paper_eq43_eq44_indefinite_from_three_dimensions`` shows a negative eigenvalue of -0.26
(d = 3) and -11 (d = 5) on 400 Gaussian points, while the form used here stays PSD.

**What we use** (``form="normalized"``, the default of the Auto LS-SVM estimators): the
kernel of eq. (44), ``k(x, z) = exp(-(γ/p) ||x - z||²)`` with ``p`` the number of (non-constant)
input columns, and the gradient norm integrated over the **affine hull of the inputs**, whose
dimension ``c = affine_dim(X) ≤ p``, divided by its diagonal::

    G̃_ij = sqrt(k_ij) (1 - s_ij / c),      s_ij = (γ/p) ||x_i - x_j||².

This is exactly ``∫_{aff(X)} ∇k_i·∇k_j / ∫_{aff(X)} ||∇k_i||²``: the gradient energy of ``f`` in
units of the gradient energy of one kernel bump.  It is PSD (it is a true gradient Gram in
``c`` dimensions; the gradient of ``f`` at points of the affine hull is tangent to it), has a unit
diagonal, and is *exactly* invariant under duplicating the feature columns (the note's example
of a single feature copied: ``s`` and ``c`` unchanged) and under adding a constant column (``p``
counts non-constant columns only), which is what eq. (44) was after.  Duplicating one column of
several gives that coordinate twice the weight in ``||x - z||²``; no isotropic kernel can undo
that, and the measured effect on a fitted model is reported in ``tests/test_auto_invariance.py``.
For ``c = 2`` it equals eq. (44) divided by 2.

All distances come from :func:`lssvm_cvx.linalg.arrays.sq_dists` in the inputs' namespace
(for NumPy arrays :func:`lssvm_cvx.kernels.sq_dists`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..checks import as_targets, check_integer, check_option, check_positive
from ..exceptions import HyperparameterError, InputError
from ..linalg.arrays import namespace_or_numpy, sq_dists

__all__ = [
    "FORMS",
    "affine_dim",
    "affine_rows",
    "n_informative_columns",
    "model_kernel",
    "gradient_norm_gram",
    "normalized_grams",
    "exact_diagonal",
    "gradient_norm_integrand",
    "rbf_model_gradient",
]

#: the forms :func:`gradient_norm_gram` knows (see the module docstring)
FORMS = ("exact", "eq42", "eq43", "eq44", "normalized")


def _as_2d(X: Any, name: str) -> np.ndarray:
    xp, _, numpy = namespace_or_numpy(X)
    if not numpy:        # an array of another namespace (a device): checked and kept there
        X = X[:, None] if X.ndim == 1 else X
        if X.ndim != 2 or int(X.shape[0]) == 0 or not bool(xp.all(xp.isfinite(X))):
            raise InputError(f"{name} must be a finite 2-D array with samples, got shape "
                             f"{tuple(X.shape)}")
        return X
    X = as_targets(X, None, name=name, columns=True)      # finite numbers, 1-D or 2-D
    return X[:, None] if X.ndim == 1 else X


def _gamma(gamma: Any) -> float:
    return check_positive(gamma, "gamma")


def n_informative_columns(X: Any, *, rtol: float = 1e-12) -> int:
    """Number of columns of ``X`` that are not constant (at least 1).

    Used as ``p`` in the kernel ``exp(-(γ/p)||x - z||²)`` of eq. (44), so that a constant
    (e.g. all-zero) column, the note's counterargument to eq. (44), changes nothing.
    """
    X = _as_2d(X, "X")
    span = X.max(axis=0) - X.min(axis=0)
    scale = np.maximum(np.abs(X).max(axis=0), 1.0)
    return max(int(np.sum(span > rtol * scale)), 1)


def affine_rows(n: int, *, max_rows: int = 4000, seed: int = 0) -> np.ndarray | None:
    """The rows :func:`affine_dim` reads of ``n``: ``max_rows`` of them drawn with ``seed``
    (without replacement), or None (every row) when ``n <= max_rows``.  A caller whose rows sit
    on a device copies only these to the CPU."""
    if n <= max_rows:
        return None
    return np.random.default_rng(seed).choice(n, max_rows, replace=False)


def affine_dim(X: Any, *, rtol: float = 1e-8, max_rows: int = 4000, seed: int = 0) -> int:
    """Dimension of the affine hull of the rows of ``X`` (numerical rank of the centred data).

    Singular values below ``rtol`` times the largest count as zero.  At most ``max_rows``
    rows (a seeded random subset, :func:`affine_rows`) are used, which is exact unless the
    data has more than ``max_rows`` dimensions.  Returns at least 1.
    """
    X = _as_2d(X, "X")
    rows = affine_rows(X.shape[0], max_rows=max_rows, seed=seed)
    if rows is not None:
        X = X[rows]
    Xc = X - X.mean(axis=0)
    if Xc.shape[0] < 2:
        return 1
    return numerical_rank(np.linalg.svd(Xc, compute_uv=False), rtol=rtol)


def numerical_rank(s: np.ndarray, *, rtol: float = 1e-8) -> int:
    """The number of singular values ``s`` (descending) above ``rtol`` times the largest, at
    least 1: :func:`affine_dim`'s rule, which a caller holding the singular values of the
    centred inputs by another route (a dask covariance) applies to them."""
    if s.size == 0 or not s[0] > 0:
        return 1
    return max(int(np.sum(s > rtol * s[0])), 1)


def _width(gamma: float, form: str, p: int) -> float:
    """Per-coordinate width ``γ'`` of the model kernel ``exp(-γ' ||x - z||²)`` of a form."""
    return gamma / p if form in ("eq44", "normalized") else gamma


def model_kernel(X: Any, Z: Any | None = None, *, gamma: float = 1.0, form: str = "normalized",
                 n_features: int | None = None) -> np.ndarray:
    """The RBF model kernel ``k(x, z)`` that belongs to a form of :func:`gradient_norm_gram`.

    ``exp(-γ ||x - z||²)`` (eq. 4) for ``"exact"``, ``"eq42"``, ``"eq43"``, and
    ``exp(-(γ/p) ||x - z||²)`` (eq. 44) for ``"eq44"`` and ``"normalized"``, with ``p =
    n_features`` (default: :func:`n_informative_columns` of ``X``).
    """
    X = _as_2d(X, "X")
    Zc = None if Z is None else _as_2d(Z, "Z")
    _check_form(form)
    g = _gamma(gamma)
    p = _p(X, n_features)
    D = sq_dists(X, Zc)
    if not isinstance(D, np.ndarray):      # another namespace: no in-place update
        return namespace_or_numpy(D)[0].exp(D * -_width(g, form, p))
    D *= -_width(g, form, p)
    return np.exp(D, out=D)


def _check_form(form: str) -> None:
    check_option(form, FORMS, "the gradient-norm form")


def _p(X: np.ndarray, n_features: int | None) -> int:
    if n_features is None:
        return n_informative_columns(X)
    if int(n_features) < 1:
        raise HyperparameterError(f"n_features must be >= 1, got {n_features!r}")
    return int(n_features)


def exact_diagonal(gamma: float, dim: int) -> float:
    """``∫ ||∇k(x, z)||² dx`` over ``R^dim`` for ``k = exp(-γ||x - z||²)``: the diagonal of eq. (41),
    ``γ² (π/(2γ))^{dim/2} dim/γ = dim γ (π/(2γ))^{dim/2}``."""
    g, dim = _gamma(gamma), check_integer(dim, "dim")
    return float(dim * g * (np.pi / (2 * g)) ** (dim / 2))


def gradient_norm_gram(X: Any, Z: Any | None = None, *, gamma: float = 1.0,
                       form: str = "normalized", dim: int | None = None,
                       n_features: int | None = None) -> np.ndarray:
    """Gradient-norm Gram ``G`` with ``∫||∇f||² = α'Gα`` (or a normalised form), note eq. 41-44.

    Parameters
    ----------
    X, Z :
        Centres ``(n, d)`` and ``(m, d)`` (``Z=None``: ``G(X, X)``, symmetric).
    gamma :
        The note's γ > 0.  For ``"exact"``/``"eq42"``/``"eq43"`` the kernel is
        ``exp(-γ||x - z||²)`` (eq. 4); for ``"eq44"``/``"normalized"`` it is
        ``exp(-(γ/p)||x - z||²)`` (eq. 44), see :func:`model_kernel`.
    form :
        ``"exact"`` — eq. (41), the integral over ``R^d`` (``d = X.shape[1]``, or ``dim``);
        ``"eq42"`` — eq. (42), eq. (41) without the constant ``(π/2)^{d/2}``;
        ``"eq43"``, ``"eq44"`` — the note's printed normalisations (indefinite from three input
        dimensions on; kept for reference and for the test that shows it);
        ``"normalized"`` — ours: the integral over the affine hull of the inputs (dimension
        ``c = dim``, default :func:`affine_dim` of ``X``), divided by its diagonal,
        ``sqrt(k)(1 - s/c)`` with ``s = (γ/p)||x_i - x_j||²``.
    dim :
        Integration dimension: ``d`` for ``"exact"``/``"eq42"`` (default ``X.shape[1]``), ``c``
        for ``"normalized"`` (default ``affine_dim(X)``; pass it when ``Z`` holds other points,
        e.g. the training set's value).
    n_features :
        ``p`` of the eq. (44) kernel (default :func:`n_informative_columns` of ``X``).

    Returns
    -------
    ndarray of shape (n, m)
    """
    X = _as_2d(X, "X")
    Zc = None if Z is None else _as_2d(Z, "Z")
    if Zc is not None and Zc.shape[1] != X.shape[1]:
        raise InputError(f"X has {X.shape[1]} features but Z has {Zc.shape[1]}")
    _check_form(form)
    g = _gamma(gamma)
    R2 = sq_dists(X, Zc)
    exp = namespace_or_numpy(R2)[0].exp
    if form in ("exact", "eq42"):
        d = X.shape[1] if dim is None else int(dim)
        root_k = exp(-0.5 * g * R2)
        if form == "exact":
            return g * g * (np.pi / (2 * g)) ** (d / 2) * root_k * (d / g - R2)
        return g ** (-d / 2) * root_k * (d * g - g * g * R2)
    if form == "eq43":
        return exp(-0.5 * g * R2) * (2.0 - g * R2)
    p = _p(X, n_features)
    S = R2 * (g / p)
    if form == "eq44":
        return exp(-0.5 * S) * (2.0 - S)
    return _normalized(S, affine_dim(X) if dim is None else dim)


def _normalized(S: Any, dim: Any) -> Any:
    """The normalised gradient Gram ``sqrt(k)(1 - S/c)`` of the scaled squared distances
    ``S = (γ/p)||x_i - x_j||²`` and the integration dimension ``c = dim``."""
    c = int(dim)
    if c < 1:
        raise HyperparameterError(f"dim must be >= 1, got {dim!r}")
    return namespace_or_numpy(S)[0].exp(-0.5 * S) * (1.0 - S / c)


def normalized_grams(Z: Any, *, gamma: float, n_features: int, dim: int) -> tuple[Any, Any]:
    """``(K, G)``: the eq. (44) kernel ``K(Z, Z)`` (:func:`model_kernel`) and the normalised
    gradient Gram ``G̃(Z, Z)`` (:func:`gradient_norm_gram`, ``form="normalized"``) of the same
    points from one matrix of squared distances (the same numbers as the two functions), in
    ``Z``'s namespace: what a basis needs of its centres."""
    Z = _as_2d(Z, "Z")
    S = sq_dists(Z, None) * (_gamma(gamma) / _p(Z, n_features))
    G = _normalized(S, dim)
    return namespace_or_numpy(S)[0].exp(-S), G


def rbf_model_gradient(x: Any, X: Any, alpha: Any, gamma: float) -> np.ndarray:
    """``∇f(x)`` for ``f(x) = Σ_i α_i exp(-γ||x - x_i||²)`` at points ``x`` (eq. 7): shape (m, d)."""
    x = _as_2d(x, "x")
    X = _as_2d(X, "X")
    alpha = as_targets(alpha, X.shape[0], name="alpha")
    g = _gamma(gamma)
    K = np.exp(-g * sq_dists(x, X))  # (m, n)
    W = K * alpha[None, :]
    # ∇f(x) = -2γ Σ_i α_i k(x, x_i) (x - x_i)
    return -2.0 * g * (x * W.sum(axis=1, keepdims=True) - W @ X)


def gradient_norm_integrand(x: Any, X: Any, alpha: Any, gamma: float) -> np.ndarray:
    """``||∇f(x)||²`` at points ``x`` (the integrand of eq. 40), for numerical integration."""
    G = rbf_model_gradient(x, X, alpha, gamma)
    return np.einsum("ij,ij->i", G, G)
