"""The LS-SVM estimators with ``approximation="nystroem" | "rff"``: streamed, exact for the
approximate kernel, on one machine, a Dask cluster or a device (one code: the device path
gives its feature maps, :func:`~lssvm_cvx.estimators.lssvm_device.device_features`).

With an explicit feature map ``φ`` (:mod:`lssvm_cvx.kernels.features`, ``m`` features) the
LS-SVM of the AReg paper's eq. (1)-(2) on the Gram ``Φ Φ'`` is the primal ridge with an
unpenalised bias::

    min_{θ, b}  ½ ||θ||² + γ/2 Σ_i (y_i - φ(x_i)'θ - b)²
    ⇔  (Φ_c'Φ_c/N + I/(γN)) θ = Φ_c'y_c/N,   b = ȳ - φ̄'θ,

the dual solution being ``α = γ e`` and ``θ = Φ'α``.  This is problem (N1) of
:mod:`lssvm_cvx.linalg.penalized` with one identity penalty named ``ridge`` whose weight
satisfies ``ν ρ = 1/(γN)``, solved through the engine's streamed design
(:func:`~lssvm_cvx.linalg.engine.decompose` of a row source, ``design=True``, on
:class:`~lssvm_cvx.linalg.streaming.StreamingPenalizedLS`): one pass over row blocks (≈ 32 MB
of features each) accumulates the ``m × m`` normal equations, so no process ever holds the
``N × m`` design.  ``selection="loo"`` scores the whole γ grid of one σ² by the exact
leave-one-out residuals of the approximate model, ``(y_i - ŷ_i)/(1 - h_i)`` with
``h_i = 1/N + φ_c(x_i)'(Φ_c'Φ_c + I/γ)^{-1}φ_c(x_i)``, from one eigendecomposition of the
``m × m`` matrix (one more pass); above ``n_loo`` rows the criterion is the mean over a seeded
uniform subsample of rows (an unbiased estimate of the LOO criterion, ``loo_rows_``).
``selection="gcv"`` scores the grid by generalised cross-validation, ``N ||y - ŷ||²/(N - Σ h_i)²``
over every row, from the same eigendecomposition and pass (the exact LS-SVM's GCV on ``ΦΦ'``).

Dask: ``fit`` with ``dask.array`` ``X`` and ``y`` (same row chunks, known sizes) runs each pass as
one graph of per-chunk tasks with one tree reduction on the current ``distributed.Client``;
only ``m × m``, ``m``-sized results and the ``m`` centre rows (plus a 1000-row subsample for the
default σ² grid) come back to the client.  ``predict`` on a dask array returns a dask array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..checks import check_option
from ..exceptions import InputError
from ..kernels.base import Kernel
from ..kernels.features import NystroemMap, RandomFourierMap
from ..linalg.arrays import namespace_or_numpy, take_rows, to_numpy
from ..linalg.engine import RKHS, DesignDecomposition, decompose
from ..linalg.penalized import CHUNK_ELEMS
from ..linalg.streaming import is_dask, loo_subsample, row_source
from .auto_stream import pick_centres
from .grids import gamma_candidates, sigma2_candidates
from .scoring import best_of
from .search_results import search_results

__all__ = ["APPROXIMATIONS", "search_approximate", "fit_approximate", "approximate_decision",
           "dask_targets"]

#: the values of the LS-SVM estimators' ``approximation`` parameter besides ``None``
APPROXIMATIONS = ("nystroem", "rff")
#: LOO score names of the estimators → the streaming engine's vocabulary
_SCORE = {"mse": "mse", "misclassification": "error", "gcv": "gcv"}


def _subsample_rows(X: Any, n: int, seed: int) -> np.ndarray:
    """At most ``n`` seeded rows of ``X`` in memory (only those rows gathered from a dask array
    or copied from a device)."""
    (Xs,) = _take(loo_subsample(X.shape[0], n, seed), X)
    return np.asarray(to_numpy(Xs), dtype=np.float64)


def _take(rows: np.ndarray, *arrays: Any) -> tuple[Any, ...]:
    """Rows ``rows`` of the arrays: in memory for dask arrays (one ``dask.compute``, so a
    pipeline they share runs once), on their device for device arrays."""
    if is_dask(arrays[0]):
        import dask

        return tuple(np.asarray(a, dtype=np.float64)
                     for a in dask.compute(*(a[rows] for a in arrays)))
    return tuple(take_rows(namespace_or_numpy(a)[0], a, rows) for a in arrays)


def search_approximate(est: Any, X: Any, Y: Any, *, score: str, **approx: Any) -> None:
    """The approximations' fit: at the given (γ, σ²) (``selection=None``), or the search of
    ``selection="loo"`` / ``"gcv"`` over the γ grid of
    :func:`~lssvm_cvx.estimators.grids.gamma_candidates` and the RBF widths of
    :func:`~lssvm_cvx.estimators.grids.sigma2_candidates` (``"auto"`` around the median
    distance of 1000 seeded rows); with several widths and more rows than ``sigma2_subsample``,
    the width is chosen on that many seeded rows first, then the γ path at that width runs on
    every row.  NumPy, dask and device arrays alike (``Y``: (N, T) as the model uses it); the
    keyword arguments go to :func:`fit_approximate`."""
    gammas = sigma2s = None
    if est.selection in ("loo", "gcv"):
        gammas = gamma_candidates(est)
        rbf = isinstance(est.kernel, str) and est.kernel.lower() == "rbf"
        if est.sigma2_grid is not None and not rbf:
            sigma2_candidates(est, X)   # raises: the approximations search named RBFs only
        if rbf:
            sample = (_subsample_rows(X, 1000, 0) if isinstance(est.sigma2_grid, str)
                      else np.empty((0, int(X.shape[1]))))
            sigma2s = sigma2_candidates(est, sample)[0]
        n_sub = est.sigma2_subsample
        if sigma2s is not None and sigma2s.size > 1 and n_sub is not None and X.shape[0] > int(n_sub):
            # width stage on a seeded subsample (the exact LOO of the approximate model there),
            # then the γ path at the chosen width on every row
            rows = loo_subsample(int(X.shape[0]), int(n_sub), 0)
            fit_approximate(est, *_take(rows, X, Y), gammas=gammas, sigma2s=sigma2s, score=score,
                            **approx)
            stage = est.cv_results_
            fit_approximate(est, X, Y, gammas=gammas, sigma2s=np.array([est.sigma2_]),
                            score=score, **approx)
            est.cv_results_ = {**est.cv_results_, "sigma2_stage": stage,
                               "sigma2_subsample_rows": rows.size}
            return
    fit_approximate(est, X, Y, gammas=gammas, sigma2s=sigma2s, score=score, **approx)


def dask_targets(y: Any, classification: bool) -> tuple[Any, np.ndarray | None]:
    """Targets of a dask ``y`` as the model uses them (lazy): float columns, or the ±1 coding
    of :func:`~lssvm_cvx.checks.encode_labels` with the classes computed (a short vector)."""
    import dask
    import dask.array as da

    y = da.asarray(y)
    if not classification:
        return y.astype(np.float64), None
    if y.ndim != 1:
        raise InputError(f"y must be 1-D for a classifier, got shape {y.shape}")
    (classes,) = dask.compute(da.unique(y))
    classes = np.asarray(classes)
    if classes.size < 2:
        raise InputError(f"y has only {classes.size} class; a classifier needs two")
    if classes.size == 2:
        return da.where(y == classes[1], 1.0, -1.0), classes
    cols = [da.where(y == c, 1.0, -1.0) for c in classes]
    return da.stack(cols, axis=1), classes


def _feature_map(kind: str, kernel: Kernel, X: Any, m: int, random_state: Any) -> Any:
    """The CPU's feature map of ``kind`` for ``kernel``: ``m`` Nyström centres drawn from the
    rows of ``X`` with ``random_state``, or ``m`` random Fourier features."""
    if kind == "nystroem":
        d = X.shape[1]
        centres = pick_centres(X, np.zeros(d), np.ones(d), m, random_state)
        return NystroemMap(kernel, centres)
    sigma2 = RandomFourierMap.check_kernel(kernel)
    return RandomFourierMap(sigma2, X.shape[1], m, random_state)


def _decomposition(fmap: Any, source: Any, loo_rows: np.ndarray) -> DesignDecomposition:
    """The engine's streamed primal representation of the approximate LS-SVM: (Q') with unit
    loss weights and the identity ``ridge`` of weight ``1/γ`` on the features ``fmap``."""
    # a provisional feature mean keeps the shifted sums accurate: the mean over the Nyström
    # centres (training rows); random Fourier features have mean ≈ 0
    centres = getattr(fmap, "centres", None)
    if centres is not None:
        F = fmap(centres)
        shift = namespace_or_numpy(F)[0].mean(F, axis=0)
    else:
        xp, device, _ = namespace_or_numpy(fmap.W)
        shift = xp.zeros((fmap.n_features,), dtype=xp.float64, device=device)
    return decompose(source, 1.0, {"ridge": (RKHS, 0.0)}, design=True, features=fmap,
                     shift=shift, loo_rows=loo_rows)


def fit_approximate(est: Any, X: Any, Y: Any, *, gammas: np.ndarray | None,
                    sigma2s: np.ndarray | None, score: str, gamma: float,
                    make_kernel: Callable[[float | None], Kernel],
                    features: Callable[[str, Kernel, Any, int, Any], Any] = _feature_map) -> None:
    """Fit ``est`` (an LS-SVM estimator with ``approximation`` set) on ``X``, ``Y``.

    Parameters
    ----------
    est : LSSVMRegressor or LSSVMClassifier
        The estimator; its ``approximation``, ``n_components``, ``n_loo``, ``random_state``,
        ``progress``, ``gamma``, ``sigma2`` and kernel parameters are read, and the fitted
        attributes set.
    X : numpy.ndarray or dask.array.Array of shape (N, d)
        Inputs.
    Y : numpy.ndarray or dask.array.Array of shape (N, T)
        Targets as the model uses them (±1 columns for a classifier).
    gammas, sigma2s : numpy.ndarray or None
        The (γ, σ²) grid of ``selection="loo"`` or ``"gcv"`` (σ² only for the RBF kernel), or None to fit at
        ``est.gamma``, ``est.sigma2``.
    score : {"mse", "misclassification", "gcv"}
        The LOO criterion, or generalised cross-validation (every row).
    gamma : float
        The estimator's validated γ (used when ``gammas`` is None).
    make_kernel : callable
        ``make_kernel(sigma2)``: the estimator's kernel at width ``sigma2`` (None: as set).
    features : callable, default: the CPU's maps
        ``features(kind, kernel, X, m, random_state)``: the feature map of ``kind`` for the
        kernel at one width (:class:`~lssvm_cvx.kernels.features.NystroemMap` on ``m`` centres
        drawn from the rows of ``X``, or :class:`~lssvm_cvx.kernels.features.RandomFourierMap`).
        The device path gives the same features on the inputs' device
        (:func:`~lssvm_cvx.estimators.lssvm_device.device_features`); the rest of the fit is
        this one.
    """
    kind = est.approximation
    m, n_loo = int(est.n_components), int(est.n_loo)   # checked by the estimator's constraints
    seed = est.random_state if isinstance(est.random_state, (int, np.integer)) else 0
    N = X.shape[0]
    m = min(m, N)
    source = row_source(X, Y, m, progress=bool(est.progress))
    criterion = _SCORE[check_option(score, _SCORE, "the selection score")]
    # GCV is a criterion of every row; the LOO criterion may be estimated on a subsample
    loo_rows = np.arange(N) if criterion == "gcv" else loo_subsample(N, n_loo, int(seed))
    best: tuple[float, Any, DesignDecomposition, Any] | None
    if gammas is None:
        fmap = features(kind, make_kernel(None), X, m, est.random_state)
        best = (gamma, est.sigma2, _decomposition(fmap, source, loo_rows), fmap)
        results = None
    else:
        sig = [None] if sigma2s is None else list(sigma2s)
        scores = np.full((len(sig), gammas.size), np.inf)
        best = None
        best_score = np.inf
        for i, s2 in enumerate(sig):
            fmap = features(kind, make_kernel(s2), X, m, est.random_state)
            dec = _decomposition(fmap, source, loo_rows)
            # the LS-SVM's ridge is 1/γ
            scores[i] = dec.score_path("ridge", 1.0 / gammas, criterion=criterion)
            j = int(np.argmin(scores[i]))
            if scores[i, j] < best_score:
                best_score = float(scores[i, j])
                best = (float(gammas[j]), est.sigma2 if s2 is None else float(s2), dec, fmap)
        if best is None:
            raise InputError(f"no (gamma, sigma2) candidate gave a finite {criterion} criterion")
        params = [({} if s2 is None else {"sigma2": float(s2)}) | {"gamma": float(g)}
                  for s2 in sig for g in gammas]
        results = search_results(
            params, scores.ravel(), gammas=np.asarray(gammas), sigma2s=np.asarray(
                [np.nan if s is None else s for s in sig]), scores=scores,
            criterion=("gcv (approximate kernel)" if criterion == "gcv"
                       else f"loo ({criterion}, approximate kernel)"), best_gamma=best[0],
            best_sigma2=best[1], best_score=best_score)
    assert best is not None
    gamma, sigma2, dec, fmap = best
    theta, b, loo = dec.system({"ridge": 1.0 / gamma}).fit(None)
    est.approximation_ = kind
    est.feature_map_ = fmap
    est.n_components_ = fmap.n_features
    est.coef_ = theta[:, 0] if theta.shape[1] == 1 else theta
    est.intercept_ = float(b[0]) if b.shape[0] == 1 else np.asarray(b)
    est.gamma_ = float(gamma)
    est.sigma2_ = None if sigma2 is None else float(sigma2)
    est.kernel_ = make_kernel(sigma2)
    est.cv_results_ = results
    if results is not None:
        est.best_index_, est.best_params_, est.best_score_ = best_of(results)
    est.loo_rows_ = loo_rows
    est.loo_residuals_ = loo[:, 0] if loo.shape[1] == 1 else loo
    est.support_ = None
    est.X_fit_ = None
    est.dual_coef_ = None


def approximate_decision(est: Any, X: Any, validate: Callable[[Any], np.ndarray]) -> Any:
    """``φ(X)'θ + b`` (a dask array for a dask ``X``; an in-memory ``X`` is checked by the
    estimator's ``validate`` first)."""
    coef = est.coef_
    if is_dask(X):
        import dask.array as da

        X = da.asarray(X).astype(np.float64)
        if X.ndim != 2 or X.shape[1] != est.n_features_in_:
            raise InputError(f"X must have {est.n_features_in_} columns, got shape {X.shape}")
        X = X.rechunk({1: -1})
        fmap, b = est.feature_map_, est.intercept_
        if np.ndim(coef) == 1:
            return X.map_blocks(lambda xb: fmap(xb) @ coef + b, drop_axis=1, dtype=np.float64)
        return X.map_blocks(lambda xb: fmap(xb) @ coef + b, chunks=(X.chunks[0], (coef.shape[1],)),
                            dtype=np.float64)
    X = validate(X)
    step = max(1, CHUNK_ELEMS // max(est.n_components_, 1))
    parts = [est.feature_map_(X[s:s + step]) @ coef for s in range(0, X.shape[0], step)]
    out = np.concatenate(parts, axis=0) if parts else np.zeros((0,) + np.shape(coef)[1:])
    return out + est.intercept_
