"""Cross-validation folds: the one helper that makes, checks and validates held-out index sets.

A *fold* is a held-out index set; a partition of ``range(n)`` into folds drives every k-fold
computation of the package (closed-form k-fold residuals, AReg CV, the multiobjective CV
baselines, the estimators' ``selection="kfold"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError, InputError, LssvmCvxError

__all__ = ["check_folds", "make_folds", "heldout_folds"]


def check_folds(folds: Sequence[Sequence[int]], n: int) -> list[np.ndarray]:
    """Validate a partition of ``range(n)`` into held-out sets (non-empty, disjoint, covering,
    each leaving at least 2 training points)."""
    out = [np.asarray(f, dtype=np.intp).reshape(-1) for f in folds]
    if len(out) < 2:
        raise InputError(f"k-fold cross-validation needs at least 2 folds, got {len(out)}")
    for k, f in enumerate(out):
        if f.size == 0:
            raise InputError(f"fold {k} is empty")
        if f.min() < 0 or f.max() >= n:
            raise InputError(f"fold {k} has indices outside 0..{n - 1}")
    allidx = np.concatenate(out)
    if allidx.size != n or np.unique(allidx).size != n:
        raise InputError("folds must be disjoint and cover every training point exactly once")
    if max(f.size for f in out) >= n - 1:
        raise InputError("every fold must leave at least 2 training points")
    return out


def heldout_folds(cv: Any, n: int, *, y: np.ndarray | None = None, stratified: bool = False,
                  random_state: Any = None) -> list[np.ndarray]:
    """The held-out index sets of a cross-validation scheme on ``n`` points.

    ``cv`` is a number of folds (scikit-learn ``KFold``, or ``StratifiedKFold`` on ``y`` when
    ``stratified``, both with ``shuffle=True, random_state=random_state``) or anything
    :func:`sklearn.model_selection.check_cv` accepts (a splitter, an iterable of
    ``(train, test)`` pairs, None for 5 folds).  The sets are not validated (see
    :func:`check_folds`).
    """
    from sklearn.model_selection import KFold, StratifiedKFold, check_cv

    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        splitter = (StratifiedKFold if stratified else KFold)(
            n_splits=int(cv), shuffle=True, random_state=random_state)
    else:
        splitter = check_cv(cv, y, classifier=stratified)
    return [test for _, test in splitter.split(np.zeros((n, 1)), y)]


def make_folds(n: int, folds: int | Sequence[Sequence[int]] | None, seed: int | None = 0
               ) -> list[np.ndarray]:
    """A validated partition of ``range(n)`` (each set sorted): ``folds`` index sets, ``L``
    shuffled folds (scikit-learn ``KFold(L, shuffle=True, random_state=seed)``), or ``None``
    for leave-one-out (``L = n``).  Empty folds, overlaps, missing points or a fold leaving
    fewer than 2 training points raise :class:`InputError`."""
    if folds is None:
        folds = [np.array([i]) for i in range(n)]
    elif isinstance(folds, (int, np.integer)) and not isinstance(folds, bool):
        L = int(folds)
        if L < 2:
            raise HyperparameterError(f"cross-validation needs L >= 2 folds, got {L}")
        if L > n:
            raise InputError(f"L = {L} folds for only {n} points")
        folds = heldout_folds(L, n, random_state=seed)
    elif isinstance(folds, (str, bytes)) or not hasattr(folds, "__iter__"):
        raise HyperparameterError(f"folds must be a number of folds or a list of index arrays, got {folds!r}")
    try:
        return [np.sort(f) for f in check_folds(folds, n)]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, LssvmCvxError):
            raise
        raise InputError(f"folds must hold integer index arrays: {exc}") from None
