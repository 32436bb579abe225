"""The data container shared by every problem, and the split helpers.

Only numpy is imported here, so ``import lssvm_cvx.problems`` stays cheap.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Dataset", "random_split", "kfold_indices", "as_rng"]

TASKS = ("regression", "classification")


def as_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A ``numpy.random.Generator`` from an int seed (or a Generator, used as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (int, np.integer)):
        return np.random.default_rng(seed)
    raise TypeError(f"seed must be an int or a numpy.random.Generator, not {type(seed).__name__}")


def _as_X(X: Any, what: str) -> np.ndarray:
    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2:
        raise ValueError(f"{what} must be 2-D (n, d), got shape {X.shape}")
    return X


def _as_y(y: Any, task: str) -> np.ndarray:
    y = np.asarray(y)
    if task == "regression":
        y = np.ascontiguousarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    return y


@dataclass(frozen=True, eq=False)
class Dataset:
    """One learning problem: a design matrix, targets, an optional fixed test set and provenance.

    ``X`` is float64, shape (n, d), C-contiguous.  ``y`` holds float64 targets for
    regression and the source's own class labels for classification (any dtype; loaders
    never recode them to +-1 unless the source, e.g. Raetsch's IDA coding, does so).
    ``X_test``/``y_test`` are set only where the source defines a fixed test set
    (Ripley synth.te, Pima.te, Adult test, a generator's noise-free test set).
    ``meta`` holds source, citation, licence, paper(s), generator arguments and seed,
    and notes on preprocessing.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    task: str
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    feature_names: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.task!r}")
        X = _as_X(self.X, "X")
        y = _as_y(self.y, self.task)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        if (self.X_test is None) != (self.y_test is None):
            raise ValueError("X_test and y_test must be given together")
        if self.X_test is not None:
            Xt = _as_X(self.X_test, "X_test")
            yt = _as_y(self.y_test, self.task)
            if Xt.shape[0] != yt.shape[0]:
                raise ValueError(f"X_test has {Xt.shape[0]} rows but y_test has {yt.shape[0]}")
            if Xt.shape[1] != X.shape[1]:
                raise ValueError(f"X_test has {Xt.shape[1]} columns but X has {X.shape[1]}")
            object.__setattr__(self, "X_test", Xt)
            object.__setattr__(self, "y_test", yt)
        names = tuple(str(f) for f in self.feature_names)
        if names and len(names) != X.shape[1]:
            raise ValueError(f"{len(names)} feature names for {X.shape[1]} columns")
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "meta", dict(self.meta))

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def classes(self) -> np.ndarray:
        """Sorted distinct labels of ``y`` (classification only)."""
        if self.task != "classification":
            raise AttributeError("classes is defined for classification problems only")
        return np.unique(self.y)

    def subset(self, idx: Any) -> Dataset:
        """Rows ``idx`` (integer indices or a boolean mask) of X and y; the test set is kept."""
        idx = np.asarray(idx)
        if idx.dtype == bool:
            if idx.shape != (self.n_samples,):
                raise ValueError(f"boolean mask of shape {idx.shape} for {self.n_samples} rows")
        elif idx.size == 0:
            idx = idx.astype(np.intp)
        elif not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"idx must hold integers or booleans, got dtype {idx.dtype}")
        return dataclasses.replace(self, X=self.X[idx], y=self.y[idx])

    def __repr__(self) -> str:
        test = f", test={self.X_test.shape[0]}" if self.X_test is not None else ""
        return (f"Dataset({self.name!r}, task={self.task!r}, n={self.n_samples}, "
                f"d={self.n_features}{test})")


def random_split(n: int, sizes: Sequence[int | None], seed: int | np.random.Generator | None) \
        -> list[np.ndarray]:
    """Disjoint random index arrays of the given sizes drawn from ``range(n)``.

    At most one size may be ``None``, meaning "all the remaining rows".  Each returned
    array is sorted.  Raises ``ValueError`` if the sizes add up to more than ``n``.
    """
    n = int(n)
    if n < 0:
        raise ValueError("n must be non-negative")
    sizes = list(sizes)
    if sum(s is None for s in sizes) > 1:
        raise ValueError("at most one size may be None")
    for s in sizes:
        if s is not None and (not isinstance(s, (int, np.integer)) or s < 0):
            raise ValueError(f"sizes must be non-negative integers or None, got {s!r}")
    fixed = sum(int(s) for s in sizes if s is not None)
    if fixed > n:
        raise ValueError(f"sizes {sizes} add up to {fixed} > n = {n}")
    sizes = [n - fixed if s is None else int(s) for s in sizes]
    perm = as_rng(seed).permutation(n)
    out, start = [], 0
    for s in sizes:
        out.append(np.sort(perm[start:start + s]))
        start += s
    return out


def kfold_indices(n: int, n_folds: int, seed: int | np.random.Generator | None) -> list[np.ndarray]:
    """``n_folds`` disjoint random folds covering ``range(n)``, sizes differing by at most 1."""
    n, n_folds = int(n), int(n_folds)
    if n_folds < 2:
        raise ValueError(f"n_folds must be >= 2, got {n_folds}")
    if n_folds > n:
        raise ValueError(f"n_folds = {n_folds} exceeds n = {n}")
    perm = as_rng(seed).permutation(n)
    return [np.sort(f) for f in np.array_split(perm, n_folds)]
