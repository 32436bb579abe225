"""Held-out residuals and their scores: the leave-one-out formulas and one vocabulary of
criteria for every engine, NumPy or array API (issue 30, item 2).

The three exact leave-one-out forms of a linear smoother, each written once here:

- the **leverage form** ``r_i / (1 - h_ii)`` (:func:`leverage_residuals`): a fit's residual
  over one minus its hat-matrix diagonal (the primal engines, the kernel choice, the weighted
  ``P = cM`` path);
- the **diagonal form** ``α_i / (C⁻¹)_ii`` (:func:`diagonal_residuals`): a dual solution over
  the diagonal of the inverse system (AReg paper eq. 2; Cawley & Talbot 2004), the LS-SVM and
  the augmented systems;
- the **spectral path** (:func:`path_residuals`): the leverage form for every value of one
  weight at once, from an eigendecomposition ``A(w)⁻¹ = V diag(W[:, k]) V'``;

and the k-fold form of the diagonal one, the **block form** ``r_V = (C⁻¹)_VV⁻¹ α_V``
(:func:`block_residuals`): a held-out set ``V`` leaves the fit together (Cawley & Talbot's
k-fold identity; a set of one point is the diagonal form).  Beside them the criterion that
needs no held-out fit, generalised cross-validation (:func:`gcv_score`).

Every function takes its array namespace from its inputs (``array_api_compat``: NumPy,
PyTorch on any device, CuPy, ``array-api-strict``) and returns arrays of that namespace, so the
engines of :mod:`lssvm_cvx.device` call the same code as the NumPy ones (issue 31); on NumPy
inputs the arithmetic is the same operations in the same order as a NumPy-only version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from array_api_compat import array_namespace, device

from ..checks import check_integer, check_option
from ..exceptions import InputError
from .folds import disjoint_folds

__all__ = ["SCORES", "ALIASES", "SEARCH_SCORES", "loo_score", "gcv_score", "dual_gcv", "leverage_residuals",
           "diagonal_residuals", "block_residuals", "path_residuals", "path_fit_residuals"]

#: LOO mean squared error, mean absolute error, squared hinge of the LOO decision values
#: (classification), LOO misclassification rate
SCORES = ("mse", "mae", "hinge2", "error")
#: other spellings accepted (the LS-SVM estimators' ``selection_score="misclassification"``)
ALIASES = {"misclassification": "error"}
#: the two scores the searches of :mod:`lssvm_cvx.selection` offer by these names
SEARCH_SCORES = ("mse", "misclassification")


def loo_score(R: Any, Y: Any, criterion: str, weights: np.ndarray | None = None) -> Any:
    """Criterion per path value; ``R`` (N, T, V) LOO residuals, ``Y`` (N, T) targets, optional
    per-observation ``weights`` (N,) of the average over observations.

    Parameters
    ----------
    R : array of shape (N, T, V)
        Held-out residuals ``y - f^{(-i)}`` for V path values (any array-API namespace).
    Y : array of shape (N, T)
        Targets (±1 columns for classification), in the namespace of ``R``.
    criterion : str
        One of :data:`SCORES` (or an alias in :data:`ALIASES`).
    weights : numpy.ndarray of shape (N,) or None, default=None
        Weights of the observations in the average (None: the plain mean; NumPy inputs only).

    Returns
    -------
    array of shape (V,)
        The criterion per path value (lower is better), in the namespace of ``R``.
    """
    xp = array_namespace(R, Y)
    criterion = check_option(criterion, SCORES + tuple(ALIASES), "criterion")
    criterion = ALIASES.get(criterion, criterion)
    if criterion == "mse":
        per_row = xp.mean(R * R, axis=1)
    elif criterion == "mae":
        per_row = xp.mean(xp.abs(R), axis=1)
    elif criterion == "hinge2":
        F = Y[:, :, None] - R  # LOO decision values (targets ±1)
        per_row = xp.mean(xp.clip(1.0 - Y[:, :, None] * F, 0.0, None) ** 2, axis=1)
    else:                                       # "error"
        F = Y[:, :, None] - R
        if Y.shape[1] == 1:
            wrong = (Y[:, :, None] * F <= 0)[:, 0, :]
        else:
            wrong = xp.argmax(F, axis=1) != xp.argmax(Y, axis=1)[:, None]
        per_row = xp.astype(wrong, R.dtype)
    if weights is None:
        return xp.mean(per_row, axis=0)
    return np.average(per_row, axis=0, weights=weights)


def gcv_score(rss: Any, n: int, resid_trace: Any) -> Any:
    """Generalised cross-validation of a linear smoother ``ŷ = S y`` (Golub, Heath & Wahba
    1979, eq. 1.4: ``V = (1/n)||(I - S)y||² / [(1/n) tr(I - S)]²``)::

        GCV = n · RSS / tr(I - S)²,

    ``+inf`` where ``tr(I - S) ≤ 0`` (a smoother with as many degrees of freedom as points).
    The package's one definition: the LS-SVM's γ selection, the Tikhonov weight of the AReg
    fusion and the §V baselines of the multiobjective paper call it.

    Parameters
    ----------
    rss : float or array
        The residual sum of squares ``||(I - S)y||²`` (one per candidate; for several target
        columns, their mean).
    n : int
        The number of points (an integer ``>= 1``; until the twenty-fourth session a fraction
        such as ``12.5`` was used as given and a string crashed inside NumPy).
    resid_trace : float or array
        ``tr(I - S) = n - tr S`` (one per candidate).

    Returns
    -------
    float or array
    """
    n = check_integer(n, "n", error=InputError)
    try:
        r, tr = np.asarray(rss, dtype=np.float64), np.asarray(resid_trace, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"gcv_score: rss and resid_trace must be numbers or arrays of "
                         f"numbers: {exc}") from None
    if r.ndim == 0 and tr.ndim == 0:
        t = float(tr)
        return n * float(r) / t**2 if t > 0 else np.inf
    return np.where(tr > 0, n * r / np.where(tr > 0, tr, 1.0) ** 2, np.inf)


def dual_gcv(alpha: np.ndarray, cdiag: np.ndarray, q: Any) -> float:
    """:func:`gcv_score` of a dual fit whose residuals are ``y - ŷ = q ∘ α`` and whose
    ``tr(I - S) = Σ q_i C_ii`` (``C`` the α-block of the inverse system, ``cdiag`` its
    diagonal): the LS-SVM's ``q = 1/γ`` (AReg paper eq. 2: ``I - S = diag(1/γ) C``), the
    weighted LS-SVM's ``q_i = 1/γ_i`` and the RKHS-only system's ``q = c/s``.  The residual sum
    of squares is unweighted, and for several target columns their mean (NumPy or any
    array-API namespace; the score is a float).

    Parameters
    ----------
    alpha : array of shape (N,) or (N, T)
        The dual solution.
    cdiag : array of shape (N,)
        ``diag(C)``.
    q : float or array of shape (N,)
        The factor of the residuals.

    Returns
    -------
    float
    """
    xp = array_namespace(alpha, cdiag)
    vec = np.ndim(q) > 0
    res = alpha * (q[:, None] if alpha.ndim > 1 and vec else q)
    tr = float(xp.sum(cdiag * q)) if vec else float(xp.sum(cdiag)) * q
    return float(gcv_score(float(xp.mean(xp.sum(res**2, axis=0))), alpha.shape[0], tr))


def _array(a: Any) -> Any:
    """``a`` if it is an array of some namespace, else ``numpy.asarray(a)``."""
    return a if hasattr(a, "ndim") and hasattr(a, "shape") else np.asarray(a)


def leverage_residuals(residuals: Any, h: Any) -> Any:
    """Exact leave-one-out residuals ``r_i / (1 - h_ii)`` of a linear smoother.

    Parameters
    ----------
    residuals : array of shape (N,), (N, T) or (N, V)
        Residuals ``y - ŷ`` of the fit on all the data (any array-API namespace).
    h : array of shape (N,) or the shape of ``residuals``
        The hat-matrix diagonal (leverages) of the fit; one per row, or one per row and
        column (a path: the leverages at each weight value).

    Returns
    -------
    array
        The held-out residuals ``y_i - f^{(-i)}(x_i)``, the shape of ``residuals``.
    """
    residuals, h = _array(residuals), _array(h)
    return residuals / (1.0 - (h[:, None, ...] if residuals.ndim > h.ndim else h))


def diagonal_residuals(alpha: Any, d: Any) -> Any:
    """Exact leave-one-out residuals ``α_i / (C⁻¹)_ii`` of a dual linear system (AReg paper
    eq. 2; Cawley & Talbot 2004); also the augmented system's ``μ_i / (√s_i Z_ii)`` (with
    ``d = √s ∘ diag Z``).

    Parameters
    ----------
    alpha : array of shape (N,) or (N, T)
        The dual solution (support values) of the system on all the data (any array-API
        namespace).
    d : array of shape (N,)
        The matching diagonal of the inverse of the (bordered) system matrix.

    Returns
    -------
    array
        The held-out residuals, the shape of ``alpha``.
    """
    alpha, d = _array(alpha), _array(d)
    return alpha / (d[:, None] if alpha.ndim > d.ndim else d)


def block_residuals(alpha: Any, folds: Sequence[Any], block: Callable[[Any], Any],
                    d: Any = None, *, cover: bool = False) -> Any:
    """Exact held-out residuals of disjoint index sets, ``r_V = B_V⁻¹ α_V`` with ``B_V`` the
    principal block ``(C⁻¹)_VV`` of the inverse system (then divided by ``d_V`` when ``d`` is
    given: the augmented system's ``√s``); :func:`diagonal_residuals` for sets of one point.

    Parameters
    ----------
    alpha : array of shape (N,) or (N, T)
        The dual solution of the system on all the data (any array-API namespace).
    folds : sequence of integer arrays
        Disjoint index sets; with NumPy inputs they may leave points out (their entries are
        then NaN), on another namespace they must partition ``0 .. N - 1``
        (:func:`~lssvm_cvx.linalg.folds.disjoint_folds` with ``cover=True``: an
        :class:`~lssvm_cvx.exceptions.InputError` otherwise).  On another namespace they may be
        NumPy arrays, lists or arrays of that namespace.
    block : callable
        ``block(V)``: the principal block ``(C⁻¹)_VV`` for the indices ``V`` (given as a NumPy
        array for NumPy inputs, else in ``alpha``'s namespace and on its device).
    d : array of shape (N,) or None, default=None
        A divisor per point, or None.
    cover : bool, default=False
        Whether NumPy inputs' folds must partition ``0 .. N - 1`` too.

    Returns
    -------
    array
        The held-out residuals, the shape of ``alpha``.
    """
    alpha = _array(alpha)
    if isinstance(alpha, np.ndarray):
        out = np.full_like(alpha, np.nan)
        for V in disjoint_folds(folds, alpha.shape[0], cover=cover):
            out[V] = np.linalg.solve(block(V), alpha[V])
            if d is not None:
                out[V] /= d[V, None] if alpha.ndim > 1 else d[V]
        return out
    xp, dev = array_namespace(alpha), device(alpha)
    idx = disjoint_folds(folds, int(alpha.shape[0]), cover=True)
    parts = []
    for v in idx:
        V = xp.asarray(v, device=dev)
        aV = xp.take(alpha, V, axis=0)
        rV = xp.linalg.solve(block(V), aV if aV.ndim > 1 else aV[:, None])
        rV = rV if aV.ndim > 1 else rV[:, 0]
        if d is not None:
            dV = xp.take(d, V)
            rV = rV / (dV[:, None] if rV.ndim > 1 else dV)
        parts.append(rV)
    back = np.argsort(np.concatenate(idx), kind="stable")
    return xp.take(xp.concat(parts, axis=0), xp.asarray(back, device=dev), axis=0)


def path_residuals(Yc: Any, P: Any, q: Any, W: Any, h: Any) -> Any:
    """Exact leave-one-out residuals for every value of one weight, from one
    eigendecomposition ``A(w_k)⁻¹ = V diag(W[:, k]) V'`` of a centred penalised least-squares
    system (:func:`leverage_residuals` at every ``k``).

    Parameters
    ----------
    Yc : array of shape (rows, T)
        Centred targets of the rows (any array-API namespace; the others in the same).
    P : array of shape (rows, m)
        The rows' centred design in the eigenbasis, ``B V``.
    q : array of shape (m, T)
        The right-hand side in the eigenbasis, ``V' B_all' y_c`` (scaled as the fitted values
        ``P (q ∘ W)`` need).
    W : array of shape (m, V)
        The spectral weights, one column per weight value.
    h : array of shape (rows, V)
        The leverages at every weight value.

    Returns
    -------
    array of shape (rows, T, V)
        The held-out residuals per row, target column and weight value.
    """
    return leverage_residuals(path_fit_residuals(Yc, P, q, W), h)


def path_fit_residuals(Yc: Any, P: Any, q: Any, W: Any) -> Any:
    """The residuals ``y_c - P (q ∘ W[:, k])`` of the fit on all the rows for every value of
    one weight (the arguments of :func:`path_residuals`; an array of shape (rows, T, V))."""
    xp = array_namespace(Yc, P, q, W)
    return xp.stack([Yc[:, t:t + 1] - P @ (q[:, t:t + 1] * W) for t in range(int(Yc.shape[1]))],
                    axis=1)
