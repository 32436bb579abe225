"""Problem (N1) of :mod:`lssvm_cvx.linalg.penalized` with the design streamed in row chunks:
never an ``N × m`` array, in memory or on a Dask cluster.

A *row source* hands out ``(offset, X_block, Y_block)`` and sums per-block partial results:

* :class:`ArraySource` — in-memory arrays, blocks of ``CHUNK_ELEMS / m`` rows (≈ 32 MB of
  design per block), an optional tqdm progress bar;
* :class:`DaskSource` — ``dask.array`` inputs: every pass is one graph of per-block tasks and
  one tree reduction, computed on the current ``distributed.Client`` (or the default
  scheduler); only ``m × m`` and ``m``-sized partial sums come back to the client.

:class:`StreamingPenalizedLS` has the interface of :class:`~lssvm_cvx.linalg.penalized.
PenalizedLS` that :func:`lssvm_cvx.selection.auto.auto_search` uses.  One pass accumulates the
shifted sums ``S = Σ(φ-s)(φ-s)'``, ``a = Σ(φ-s)``, ``c = Σ(φ-s)(y-t)'``, ``e = Σ(y-t)`` (``s``
a provisional feature mean, ``t = 0``), from which ``C = (S - a a'/N)/N`` and
``Φ_c'y_c/N = (c - a e'/N)/N`` exactly as in the in-memory engine.  The exact LOO residuals
``r_i = (y_i - ŷ_i)/(1 - h_i)`` of the paths and of the final fit are evaluated on
``loo_rows`` (all rows up to ``n_loo`` rows, above that a seeded uniform subsample: the mean
of exact LOO residuals over a random subset, an unbiased estimate of the LOO criterion, which
makes each path cost ``O(n_loo · m²)`` instead of ``O(N m²)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import array_api_compat as aac
import numpy as np

from ..exceptions import InputError
from .arrays import namespace_or_numpy, take_rows, to_numpy
from .penalized import CHUNK_ELEMS, Fit, PenalizedLS
from .penalties import penalty_set
from .scores import loo_score

__all__ = ["ArraySource", "DaskSource", "is_dask", "row_source", "StreamingPenalizedLS",
           "StreamingFit", "check_finite_block", "loo_subsample"]


def is_dask(a: Any) -> bool:
    """Whether ``a`` is a ``dask.array.Array`` (without importing dask)."""
    return type(a).__module__.startswith("dask.") and hasattr(a, "chunks")


def check_finite_block(offset: int, Xb: np.ndarray, Yb: np.ndarray | None = None) -> None:
    """Raise :class:`InputError` naming the first row with NaN or inf in a block (any array
    namespace: one host synchronisation off NumPy)."""
    if not isinstance(Xb, np.ndarray):
        xp = namespace_or_numpy(Xb)[0]
        if bool(xp.all(xp.isfinite(Xb))) and (Yb is None or bool(xp.all(xp.isfinite(Yb)))):
            return
        Xb, Yb = to_numpy(Xb), None if Yb is None else to_numpy(Yb)
    bad = ~np.isfinite(Xb).all(axis=1)
    if Yb is not None:
        bad |= ~np.isfinite(Yb.reshape(Yb.shape[0], -1)).all(axis=1)
    if bad.any():
        raise InputError(f"X or y contains NaN or inf (first at row {offset + int(np.argmax(bad))})")


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


class ArraySource:
    """In-memory ``X`` (N, d) and ``Y`` (N, T) handed out in row blocks: NumPy arrays, or the
    arrays of any other namespace and device (PyTorch, CuPy, ``array-api-strict``), whose
    blocks and outputs stay there."""

    def __init__(self, X: np.ndarray, Y: np.ndarray, *, block_rows: int = 8000,
                 progress: bool = False):
        self.X, self.Y = X, Y
        self.n_rows = X.shape[0]
        self.block_rows = max(1, int(block_rows))
        self.progress = progress

    def _blocks(self, desc: str):
        starts = range(0, self.n_rows, self.block_rows)
        if self.progress:
            from tqdm.auto import tqdm

            starts = tqdm(starts, desc=desc, leave=False)
        for s in starts:
            e = min(s + self.block_rows, self.n_rows)
            yield s, self.X[s:e, ...], self.Y[s:e, ...]

    def map_reduce(self, fn: Callable[[int, np.ndarray, np.ndarray], tuple], desc: str = "") -> tuple:
        total: tuple | None = None
        for s, xb, yb in self._blocks(desc):
            part = fn(s, xb, yb)
            total = part if total is None else _add(total, part)
        if total is None:  # n_rows == 0: no block, nothing to sum
            raise InputError("the data source has no rows")
        return total

    def map_rows(self, fn: Callable[[int, np.ndarray, np.ndarray], np.ndarray], n_out: int,
                 desc: str = "") -> np.ndarray:
        """Concatenate per-block outputs (``n_out`` rows in all)."""
        parts = [fn(s, xb, yb) for s, xb, yb in self._blocks(desc)]
        return namespace_or_numpy(self.X)[0].concat(parts, axis=0)

    def take(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xp = namespace_or_numpy(self.X)[0]
        return take_rows(xp, self.X, rows), take_rows(xp, self.Y, rows)


class DaskSource:
    """``dask.array`` ``X`` (N, d) and ``Y`` (N, T) with the same row chunks (known sizes)."""

    def __init__(self, X: Any, Y: Any, *, progress: bool = False):
        import dask.array as da

        X, Y = da.asarray(X), da.asarray(Y)
        for name, a in (("X", X), ("y", Y)):
            if any(np.isnan(c) for c in a.chunks[0]) or np.isnan(a.shape[0]):
                raise InputError(f"the dask array {name} has unknown chunk sizes; call "
                                 f"{name}.compute_chunk_sizes() (or build it with known chunks) first")
        if Y.ndim == 1:
            Y = Y[:, None]
        if X.ndim != 2:
            raise InputError(f"X must be 2-D, got {X.ndim} dimensions")
        if X.shape[0] != Y.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but y has {Y.shape[0]}")
        if X.chunks[0] != Y.chunks[0]:
            raise InputError("X and y must have the same row chunks (got "
                             f"{X.chunks[0][:4]}... and {Y.chunks[0][:4]}...); rechunk y like X")
        self.X = X.rechunk({1: -1}) if len(X.chunks[1]) > 1 else X
        self.Y = Y.rechunk({1: -1}) if len(Y.chunks[1]) > 1 else Y
        self.n_rows = int(X.shape[0])
        self.offsets = np.r_[0, np.cumsum(X.chunks[0])[:-1]].astype(int)
        self.progress = progress

    def _parts(self, fn: Callable) -> list:
        from dask import delayed

        xs = self.X.to_delayed().ravel()
        ys = self.Y.to_delayed().ravel()
        return [delayed(fn)(int(o), xb, yb) for o, xb, yb in zip(self.offsets, xs, ys)]

    def map_reduce(self, fn: Callable, desc: str = "") -> tuple:
        import dask
        from dask import delayed

        parts = self._parts(fn)
        while len(parts) > 1:  # one tree reduction
            parts = [delayed(_add)(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                     for i in range(0, len(parts), 2)]
        (total,) = dask.compute(parts[0])
        return total

    def map_rows(self, fn: Callable, n_out: int, desc: str = "") -> Any:
        """A lazy dask array of the per-block outputs (computed on demand, never in ``fit``)."""
        import dask.array as da

        parts = self._parts(fn)
        return da.concatenate(
            [da.from_delayed(p, shape=(np.nan, self.Y.shape[1]), dtype=np.float64) for p in parts],
            axis=0, allow_unknown_chunksizes=True)

    def take(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import dask

        Xr, Yr = dask.compute(self.X[rows], self.Y[rows])
        return np.asarray(Xr), np.asarray(Yr)


def row_source(X: Any, Y: Any, m: int, *, progress: bool = False) -> ArraySource | DaskSource:
    """The row source of a streamed problem with ``m`` features: a :class:`DaskSource` over
    dask arrays (``X`` as float64), else an :class:`ArraySource` in blocks of
    ``CHUNK_ELEMS / m`` rows (≈ 32 MB of design per block)."""
    if is_dask(X):
        return DaskSource(X.astype(np.float64), Y, progress=progress)
    return ArraySource(X, Y, block_rows=max(1, CHUNK_ELEMS // max(int(m), 1)), progress=progress)


@dataclass
class StreamingFit(Fit):
    """A :class:`~lssvm_cvx.linalg.penalized.Fit` whose ``loo`` (and ``leverage``) hold the
    exact LOO residuals on the problem's ``loo_rows`` only (a lazy dask array on a Dask source)."""

    problem: StreamingPenalizedLS = field(repr=False)

    def jackknife_influence(self) -> np.ndarray:
        pr = self.problem
        if not isinstance(pr.source, ArraySource) or pr.loo_rows.size != pr.N:
            raise InputError("the jackknife influence needs every row in memory")
        xp = pr.xp
        r = np.asarray(self.loo)[:, 0] if pr.numpy else self.loo[:, 0]

        def block(s: int, xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
            B = pr.features(xb) - pr.phi_mean
            return xp.matrix_transpose(self.chol.solve(xp.matrix_transpose(B))
                                       * (r[s:s + xb.shape[0]] / pr.N))

        return xp.matrix_transpose(pr.source.map_rows(block, pr.N))


class StreamingPenalizedLS(PenalizedLS):
    """(N1) for the design ``features(X_block)`` streamed from a row source (module docstring).

    Parameters
    ----------
    source :
        :class:`ArraySource` (NumPy or any array namespace and device: the sums, the paths
        and the fit stay there) or :class:`DaskSource` (targets already as the model uses
        them).
    features :
        ``features(X_block) -> Φ_block`` (rows × m), applied per block.
    G, R :
        Penalty and margin matrices as in :class:`PenalizedLS` (None with ``penalties``).
    loo_rows :
        Sorted row indices on which LOO residuals are evaluated (None: every row).
    shift :
        Provisional feature mean ``s`` (any ``m``-vector; a good one keeps the sums accurate),
        in the source's namespace.
    penalties, definite :
        Named penalties instead of ``G`` and ``R``, as in :class:`PenalizedLS`.
    """

    source: ArraySource | DaskSource
    features: Callable[[np.ndarray], np.ndarray]
    loo_rows: np.ndarray

    def __init__(self, source: ArraySource | DaskSource, features: Callable[[np.ndarray], np.ndarray],
                 G: np.ndarray | None, R: np.ndarray | None, loo_rows: np.ndarray | None,
                 shift: np.ndarray, *, penalties: Mapping[str, np.ndarray | None] | None = None,
                 definite: Iterable[str] = ()):
        self.source = source
        self.features = features
        named = penalty_set(G, R, penalties, definite)
        namespace = namespace_or_numpy(shift, *named[0].values())
        shift = np.asarray(shift, dtype=np.float64) if namespace[2] else shift
        self._setup(source.n_rows, shift.shape[0], named, shift, namespace=namespace)
        self.loo_rows = np.arange(self.N) if loo_rows is None else np.asarray(loo_rows,
                                                                               dtype=np.int64)
        xp = self.xp

        def stats(off: int, xb: np.ndarray, yb: np.ndarray) -> tuple:
            check_finite_block(off, xb, yb)
            B = features(xb) - shift
            Bt = xp.matrix_transpose(B)
            return Bt @ B, xp.sum(B, axis=0), Bt @ yb, xp.sum(yb, axis=0)

        S, a, c, e = source.map_reduce(stats, desc="normal equations")
        self._from_shifted_sums(S, a, c, e, shift)
        self.single = False

    @property
    def numpy(self) -> bool:
        """Whether the problem lives in NumPy (its outputs are then NumPy arrays)."""
        return aac.is_numpy_namespace(self.xp)

    def _loo_block(self, off: int, xb: np.ndarray, yb: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Centred design, targets and their centred copy on the LOO rows inside a block."""
        lo, hi = np.searchsorted(self.loo_rows, [off, off + xb.shape[0]])
        if hi - lo < xb.shape[0]:          # some rows of the block (else all of them)
            sel = self.loo_rows[lo:hi] - off
            xb, yb = (take_rows(self.xp, A, sel) for A in (xb, yb))
        return self.features(xb) - self.phi_mean, yb, yb - self.y_mean

    def _reduce(self, fn: Callable) -> Any:
        """``Σ fn(None, Φ_c, Y, Y_c)`` over the LOO rows of the source's blocks (one reduction on
        a Dask source)."""
        def block(off: int, xb: np.ndarray, yb: np.ndarray) -> tuple:
            B, Yb, Ycb = self._loo_block(off, xb, yb)
            return (fn(None, B, Yb, Ycb) if B.shape[0] else 0.0,)

        return self.source.map_reduce(block, desc="LOO path")[0]

    def fit(self, *args: float, **named: float) -> StreamingFit:
        weights = self.weights(*args, **named)
        chol, theta = self._solved(weights)
        b = self.y_mean - self.phi_mean @ theta

        def block(off: int, xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
            B, _, Ycb = self._loo_block(off, xb, yb)
            return self._held_out(chol, theta, None, B, Ycb)[0]

        loo = self.source.map_rows(block, self.loo_rows.size, desc="LOO residuals")
        return StreamingFit(theta=theta, b=b, loo=loo, leverage=np.empty(0), chol=chol,
                            weights=weights, problem=self)

    def fit_score(self, fit: Fit, criterion: str) -> float:
        """The LOO criterion of a fit (one reduction on a Dask source)."""
        if isinstance(self.source, ArraySource):
            _, Y = self.source.take(self.loo_rows)
            loo = np.asarray(fit.loo) if self.numpy else fit.loo
            return float(loo_score(loo[:, :, None], Y, criterion)[0])
        path = self._path(np.linalg.inv(fit.chol.L).T, np.ones((self.m, 1)), criterion)
        return float(path[0])

    def loo_residuals(self, *args: float, **named: float) -> np.ndarray:
        loo = self.fit(*args, **named).loo
        return np.asarray(loo) if self.numpy else loo


def loo_subsample(n_rows: int, n_loo: int, seed: int) -> np.ndarray:
    """Every row up to ``n_loo`` rows, else a seeded sorted uniform subsample of ``n_loo``."""
    if n_rows <= n_loo:
        return np.arange(n_rows)
    return np.sort(np.random.default_rng(seed).choice(n_rows, n_loo, replace=False))

