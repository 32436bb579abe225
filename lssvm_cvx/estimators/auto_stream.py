"""Streamed and Dask fits of the Auto LS-SVM above ``max_exact`` rows.

The Nyström and random-feature paths of :class:`~lssvm_cvx.estimators.auto.AutoLSSVMRegressor`
never hold the ``N × m`` design: the full-data problem is a
:class:`~lssvm_cvx.linalg.streaming.StreamingPenalizedLS` that evaluates the features block by
block (≈ 32 MB each) from the raw inputs, standardising each block on the fly.  Memory is
``O(N d + m² + n_loo · T)`` besides one block; the exact LOO criterion of the μ / ν paths and the
stored LOO residuals are evaluated on ``n_loo`` rows (all rows up to ``n_loo``; above that a
seeded subsample, ``loo_rows_``).

Dask arrays
-----------
``AutoLSSVMRegressor().fit(X, y)`` with ``X`` a ``dask.array`` (N, d) and ``y`` a ``dask.array``
(N,) with the same row chunks runs every pass over the data on the Dask scheduler in force —
the current ``distributed.Client`` if one exists: input statistics (one reduction), the
normal equations of each width (one reduction), each LOO path (one reduction).  Only ``d × d``,
``m × m`` and ``m``-sized sums and the ``n_subsample`` + ``n_components`` rows of the width
stage and the centres come back to the client; ``loo_residuals_`` stays a lazy dask array.
With the same ``random_state`` the model equals the in-memory fit (to rounding).  To use a
real cluster::

    from distributed import Client
    import dask.array as da
    client = Client("tcp://scheduler-host:8786")      # or dask_jobqueue / dask-kubernetes
    X = da.from_zarr("s3://bucket/X.zarr")            # rows chunked, e.g. 100 000 rows each
    y = da.from_zarr("s3://bucket/y.zarr").rechunk(X.chunks[0])
    model = AutoLSSVMRegressor(random_state=0).fit(X, y)
    model.predict(X_new)                              # NumPy in, NumPy out; dask in, dask out

The workers need ``lssvm_cvx`` installed (same version) and enough memory for one chunk of
``rows × n_components`` floats.  Unknown chunk sizes, X and y chunked differently or NaN/inf
anywhere raise :class:`~lssvm_cvx.exceptions.InputError`; a failed fit leaves the estimator
unfitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError, InputError
from ..linalg.arrays import namespace_or_numpy, take_rows, to_numpy
from ..linalg.penalized import CHUNK_ELEMS, PenalizedLS
from ..linalg.streaming import ArraySource, DaskSource, StreamingPenalizedLS, is_dask, loo_subsample
from ..terms.gradient_basis import (
    Basis,
    basis_transform,
    exact_basis,
    nystroem_basis,
    rff_basis,
    rff_gradient_gram,
    rff_params,
)
from ..terms.gradient_norm import affine_dim, affine_rows, n_informative_columns, numerical_rank

__all__ = ["is_dask", "input_stats", "pick_centres", "check_dask_target",
           "problem_factory"]


def check_dask_target(X: Any, y: Any) -> Any:
    """``y`` as a 1-D float dask array chunked like ``X`` (errors name the problem)."""
    import dask.array as da

    if not is_dask(X):
        raise InputError("give X and y both as dask arrays or both in memory")
    y = da.asarray(y)
    for name, a in (("X", X), ("y", y)):
        if any(np.isnan(c) for c in a.chunks[0]):
            raise InputError(f"the dask array {name} has unknown chunk sizes; call "
                             f"{name}.compute_chunk_sizes() first")
    if y.ndim != 1:
        raise InputError(f"y must be 1-D, got shape {y.shape}")
    return y.astype(np.float64)


def input_stats(X: Any, w: np.ndarray | None = None) -> dict[str, Any]:
    """The Auto LS-SVM's standardisation of the inputs, for every kind of input: the column
    mean and scale (weighted by the fit term's ``w``, NumPy only), the standardised inputs
    ``Xs`` (None for a dask array), the number of informative columns ``p``
    (:func:`~lssvm_cvx.terms.gradient_norm.n_informative_columns`), the affine dimension ``c``
    (:func:`~lssvm_cvx.terms.gradient_norm.affine_dim`) and whether every input is identical.

    A dask array costs one reduction (``c`` from the covariance's eigenvalues); an array of
    another namespace stays on its device: only the column ranges and, for ``c``, at most 4000
    seeded rows (:func:`~lssvm_cvx.terms.gradient_norm.affine_rows`) are copied to the CPU.
    """
    if is_dask(X):
        import dask
        import dask.array as da

        if any(np.isnan(c) for c in X.chunks[0]):
            raise InputError("the dask array X has unknown chunk sizes; call X.compute_chunk_sizes() first")
        if X.ndim != 2:
            raise InputError(f"X must be 2-D, got {X.ndim} dimensions")
        X = X.astype(np.float64)
        mean, std, lo, hi, cov = dask.compute(
            X.mean(axis=0), X.std(axis=0), X.min(axis=0), X.max(axis=0),
            da.cov(X, rowvar=False) if X.shape[1] > 1 else X.var(axis=0)[None])
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(std))):
            raise InputError("X contains NaN or inf")
        scale = np.where(std > 0, std, 1.0)
        cs = np.atleast_2d(cov) / np.outer(scale, scale)
        c = numerical_rank(np.sqrt(np.maximum(np.linalg.eigvalsh(cs)[::-1], 0.0)))
        hi, lo, Xs = (hi - mean) / scale, (lo - mean) / scale, None
    else:
        xp, _, numpy = namespace_or_numpy(X)
        if numpy:
            mean = np.average(X, axis=0, weights=w)
            std = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
        else:
            mean, std = xp.mean(X, axis=0), xp.std(X, axis=0)
        scale = xp.where(std > 0, std, xp.ones_like(std))
        Xs = (X - mean) / scale
        rows = affine_rows(int(X.shape[0]))
        c = affine_dim(to_numpy(Xs if rows is None else take_rows(xp, Xs, rows)))
        hi, lo = to_numpy(xp.max(Xs, axis=0)), to_numpy(xp.min(Xs, axis=0))
    return {"mean": mean, "scale": scale, "Xs": Xs, "c": c,
            "p": n_informative_columns(np.stack([hi, lo])),   # its ranges are those of Xs
            "constant": bool(np.max(hi - lo) == 0.0)}


def pick_centres(X: Any, mean: Any, scale: Any, m: int, random_state: Any) -> Any:
    """Standardised Nyström centres: the rows scikit-learn's ``Nystroem`` would pick (a seeded
    permutation's first ``m``), gathered alone from a dask array; on another array namespace
    they stay on its device."""
    from sklearn.utils import check_random_state

    n = X.shape[0]
    m = min(int(m), n)
    idx = check_random_state(random_state).permutation(n)[:m]
    if is_dask(X):
        import dask

        order = np.argsort(idx)
        Z = np.empty((m, X.shape[1]))
        Z[order] = np.asarray(dask.compute(X[np.sort(idx)])[0], dtype=np.float64)
    elif not isinstance(X, np.ndarray):
        return (take_rows(namespace_or_numpy(X)[0], X, idx) - mean) / scale
    else:
        Z = np.asarray(X[idx], dtype=np.float64)
    return np.ascontiguousarray((Z - mean) / scale)


def _float64(a: Any) -> Any:
    """NumPy arrays (and dask blocks) as float64; another namespace's arrays as they are."""
    return np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a


def _take_standardized(source: Any, rows: np.ndarray, mean: Any, scale: Any) -> tuple[Any, Any]:
    """Rows ``rows`` of ``source``: standardised inputs and float targets (in the source's
    namespace)."""
    Xr, Yr = source.take(rows)
    return (_float64(Xr) - mean) / scale, _float64(Yr)


def _streamed_problem(kind: str, source: Any, gamma: float, *, p: int, c: int, margin: str,
                     centres: np.ndarray | None, mean: np.ndarray, scale: np.ndarray,
                     n_components: int, seed: int, n_loo: int, X_mem: np.ndarray | None
                     ) -> StreamingPenalizedLS:
    """The full-data problem of the ``kind`` basis at width ``gamma``, streamed from ``source``."""
    if kind == "nystroem":
        if centres is None:
            raise InputError("the Nyström basis needs its centres")
        # the centres' K(Z, Z) from their one distance matrix: the penalties' and the shift's
        B = nystroem_basis(centres, gamma, p=p, c=c, centres=centres, margin=margin)
        params, G, R = B.params, B.G, B.R
        shift = namespace_or_numpy(centres)[0].mean(B.Phi, axis=0)
    elif kind == "rff":
        if X_mem is None:
            raise HyperparameterError(
                "approximation='rff' needs X in memory; use 'nystroem' with dask arrays")
        params = rff_params(gamma, p=p, d=X_mem.shape[1], n_components=n_components, random_state=seed)
        G = _rff_gram(X_mem, mean, scale, params)
        R = None
        shift = np.zeros(G.shape[0])
    else:  # pragma: no cover - the estimator routes "exact" elsewhere
        raise HyperparameterError(f"no streamed basis {kind!r}")

    def features(xb: Any) -> Any:
        return basis_transform(kind, params, (_float64(xb) - mean) / scale)

    pr = StreamingPenalizedLS(source, features, G, R, loo_subsample(source.n_rows, n_loo, seed), shift)
    pr.basis = Basis(kind, np.empty((0, G.shape[0])), G, params, R)
    return pr


def problem_factory(kind: str, source: ArraySource | DaskSource | None, *, mean: Any, scale: Any,
                    p: int, c: int, margin: str, centres: Any, n_components: int, seed: int,
                    n_loo: int, Xs: Any = None, Y: Any = None, w: np.ndarray | None = None,
                    X_mem: np.ndarray | None = None, vector: bool = False,
                    guard: Callable[[Any], None] | None = None
                    ) -> Callable[[float, np.ndarray | None], PenalizedLS]:
    """``make_problem(γ, rows)`` of :func:`~lssvm_cvx.selection.auto.auto_search` for the Auto
    LS-SVM's basis ``kind`` — the one problem builder of the CPU fit (NumPy or dask) and the
    device fit (any array namespace): all rows of the Nyström or random-feature basis streamed
    from ``source``; the exact basis, or the rows ``rows`` of a width
    stage, formed in memory.

    Parameters
    ----------
    kind : {"exact", "nystroem", "rff"}
        The basis.
    source : ArraySource, DaskSource or None
        The raw inputs and the targets (columns) the streamed problems and the rows of a width
        stage come from (None: the exact basis); ``mean`` and ``scale`` standardise them (0
        and 1: already standard).
    p, c, margin, centres, n_components, seed, n_loo :
        The basis' parameters (:mod:`lssvm_cvx.terms.gradient_basis`), the random features'
        seed and the LOO rows of a streamed problem.
    Xs, Y, w :
        The standardised inputs, the targets and the sample weights in memory (the exact basis).
    X_mem : numpy.ndarray or None
        The raw inputs in memory (the random features' gradient Gram).
    vector : bool
        The rows of a width stage give targets as a vector (``Y`` was one).
    guard : callable or None
        ``guard(X_rows)`` before an exact basis is formed (the device's memory check).
    """
    def make_problem(g: float, rows: np.ndarray | None) -> PenalizedLS:
        if kind == "exact":
            if Xs is None:
                raise HyperparameterError("approximation='exact' needs X in memory")
            xp = namespace_or_numpy(Xs)[0]
            Xr, Yr = take_rows(xp, Xs, rows), take_rows(xp, Y, rows)
            if guard is not None:
                guard(Xr)
            B = exact_basis(Xr, g, p=p, c=c, margin=margin)
        else:
            if source is None:
                raise HyperparameterError(f"the {kind} basis needs a data source")
            if rows is None:
                return _streamed_problem(kind, source, g, p=p, c=c, margin=margin,
                                        centres=centres, mean=mean, scale=scale,
                                        n_components=n_components, seed=seed, n_loo=n_loo,
                                        X_mem=X_mem)
            Xr, Yr = _take_standardized(source, rows, mean, scale)
            Yr = Yr[:, 0] if vector else Yr
            if kind == "nystroem":
                if centres is None:
                    raise InputError("the Nyström basis needs its centres")
                B = nystroem_basis(Xr, g, p=p, c=c, centres=centres, margin=margin)
            else:
                B = rff_basis(Xr, g, p=p, n_components=n_components, random_state=seed)
        pr = PenalizedLS(B.Phi, Yr, B.G, B.R,
                         sample_weight=None if w is None else (w if rows is None else w[rows]))
        pr.basis = B
        return pr

    return make_problem


def _rff_gram(X: np.ndarray, mean: np.ndarray, scale: np.ndarray, params: dict[str, Any]) -> np.ndarray:
    """:func:`~lssvm_cvx.terms.gradient_basis.rff_gradient_gram` over standardised blocks."""
    D = params["W"].shape[1]
    step = max(1, CHUNK_ELEMS // D)
    acc = np.zeros((D, D))
    for s in range(0, X.shape[0], step):
        Xb = (X[s:s + step] - mean) / scale
        acc += rff_gradient_gram(Xb, params["W"], params["offset"]) * Xb.shape[0]
    return acc / X.shape[0]
