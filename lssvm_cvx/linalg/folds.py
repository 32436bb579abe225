"""Cross-validation folds: the one helper that makes, checks and validates held-out index sets.

A *fold* is a held-out index set; a partition of ``range(n)`` into folds drives every k-fold
computation of the package (closed-form k-fold residuals, AReg CV, the multiobjective CV
baselines, the estimators' ``selection="kfold"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import array_api_compat as aac
import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_integer
from ..exceptions import HyperparameterError, InputError, LssvmCvxError
from .arrays import to_numpy

__all__ = ["check_folds", "disjoint_folds", "make_folds", "heldout_sets", "heldout_folds", "cv_splits",
           "index_set", "check_split", "LeaveOneOutSplits"]


class LeaveOneOutSplits(Sequence):
    """The leave-one-out pairs ``(train, test)`` of :func:`cv_splits`, each made when it is read.

    The ``N`` pairs hold ``N(N - 1)`` training indices, as many numbers as the Gram (72 MB at
    N = 3000), while the closed-form held-out paths read only the test halves; until
    2026-12-06 they were a list made at once.  Indexing and iteration give the same arrays as
    that list did (``test`` the one held-out point, ``train`` the others in order).

    Parameters
    ----------
    n : int
        Number of points.
    held : numpy.ndarray of int
        The points held out, one per split, in order (unlabelled points stay in every training
        set).
    """

    def __init__(self, n: int, held: np.ndarray):
        self.n, self.held = int(n), np.asarray(held, dtype=np.intp)

    def __len__(self) -> int:
        return int(self.held.size)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        j = int(self.held[k])      # an IndexError past the end ends an iteration
        full = np.arange(self.n, dtype=np.intp)
        return np.concatenate((full[:j], full[j + 1:])), full[j:j + 1].copy()

    def __repr__(self) -> str:
        return f"LeaveOneOutSplits(n={self.n}, splits={len(self)})"


def index_set(a: Any, n: int, what: str) -> np.ndarray:
    """``a`` as a flat array of indices into ``range(n)``: integers (or floats with integer
    values), or a boolean mask of ``n`` values; a NumPy array, a list or an array of any
    array-API namespace and device (copied to NumPy).

    Until the seventeenth session (2026-11-30) index sets were cast with
    ``np.asarray(a, dtype=np.intp)``, which truncated ``1.5`` to ``1`` and read a boolean mask
    as the indices 0 and 1, silently (``tests/test_folds_input.py``).

    Raises
    ------
    InputError
        Naming ``what``: anything else, or an index outside ``0 .. n - 1``.
    """
    try:                                # a NumPy scalar is an array-API object to aac, but
        v = np.asarray(a if isinstance(a, (np.ndarray, np.generic)) or not aac.is_array_api_obj(a)
                       else to_numpy(a))    # a string one has no __dlpack__
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be an index array ({exc})") from None
    if v.dtype == bool:
        if v.shape != (n,):
            raise InputError(f"{what}: a boolean mask must have {n} values, got shape {v.shape}")
        return np.flatnonzero(v)
    v = v.reshape(-1)
    if v.size == 0:
        return np.zeros(0, dtype=np.intp)
    if not (np.issubdtype(v.dtype, np.integer) or (
            np.issubdtype(v.dtype, np.floating) and np.all(np.isfinite(v))
            and np.all(v == np.round(v)))):
        raise InputError(f"{what} must hold integer indices or a boolean mask, got "
                         f"{v.dtype} values{' that are not whole numbers' if v.dtype.kind == 'f' else ''}")
    v = v.astype(np.intp)
    if v.min() < 0 or v.max() >= n:
        raise InputError(f"{what} has indices outside 0..{n - 1}")
    return v


def check_split(k: int, pair: Any, n: int, *, name: str = "cv") -> tuple[np.ndarray, np.ndarray]:
    """A given ``(train, test)`` pair (the ``k``-th) as index arrays (:func:`index_set`),
    refused (:class:`InputError` naming the argument ``name``) unless it is a pair, its test
    set is not empty, its training set holds at least 2 points and no point is in both."""
    try:
        train, test = pair
    except (TypeError, ValueError):
        raise InputError(f"{name}: split {k} is not a (train, test) pair of index arrays, got "
                         f"{type(pair).__name__}") from None
    train = index_set(train, n, f"{name}: split {k}'s train")
    test = index_set(test, n, f"{name}: split {k}'s test")
    if test.size == 0:
        raise InputError(f"{name}: split {k} has an empty test set")
    if train.size < 2:
        raise InputError(f"{name}: split {k} leaves {train.size} training point(s); at least 2 "
                         "are needed")
    if np.intersect1d(train, test).size:
        raise InputError(f"{name}: split {k} has points both in train and in test")
    return train, test


def check_folds(folds: Sequence[ArrayLike], n: int) -> list[np.ndarray]:
    """Validate a partition of ``range(n)`` into held-out sets (:func:`disjoint_folds` with
    ``cover=True``: non-empty, disjoint, covering) of at least 2 folds, each leaving at least 2
    training points."""
    n = check_integer(n, "n", error=InputError)
    out = disjoint_folds(folds, n, cover=True)
    if len(out) < 2:
        raise InputError(f"k-fold cross-validation needs at least 2 folds, got {len(out)}")
    if max(f.size for f in out) >= n - 1:
        raise InputError("every fold must leave at least 2 training points")
    return out


def disjoint_folds(folds: Sequence[Any], n: int, *, cover: bool = False) -> list[np.ndarray]:
    """Validate disjoint, non-empty held-out sets into ``range(n)``; with ``cover=False`` they
    need not cover every point (the held-out residual methods of the formulations: a point in
    no set gets NaN).

    Parameters
    ----------
    folds : sequence of array-like of int
        The held-out index sets (lists, NumPy arrays, or arrays of any array-API namespace and
        device: they are copied to NumPy).
    n : int
        The number of points.
    cover : bool, default=False
        Whether the sets must partition ``range(n)``.

    Returns
    -------
    list of numpy.ndarray
        The sets as flat integer arrays.

    Raises
    ------
    InputError
        Naming the first set that is empty or has an index outside ``0 .. n - 1``, or saying
        that the sets overlap (or, with ``cover``, leave points out).
    """
    rule = (f"folds must partition the {n} points: disjoint, non-empty index sets that cover "
            "every point" if cover else f"folds must be disjoint, non-empty index sets into {n} points")
    if isinstance(folds, (str, bytes)) or not isinstance(folds, Iterable) \
            or getattr(folds, "ndim", 1) == 0:
        raise InputError(f"folds must be a sequence of index sets, got {type(folds).__name__} "
                         f"{folds!r} ({rule})")
    try:
        out = [index_set(f, n, f"fold {k}") for k, f in enumerate(folds)]
    except InputError as exc:
        raise InputError(f"{exc} ({rule})") from None
    if not out:
        raise InputError(f"no folds given ({rule})")
    for k, f in enumerate(out):
        if f.size == 0:
            raise InputError(f"fold {k} is empty ({rule})")
    seen = np.concatenate(out)
    if np.unique(seen).size != seen.size:
        raise InputError(f"the folds overlap ({rule})")
    if cover and seen.size != n:
        raise InputError(f"the folds leave {n - seen.size} of the {n} points out ({rule})")
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
    try:
        return [test for _, test in splitter.split(np.zeros((n, 1)), y)]
    except (TypeError, ValueError) as exc:     # a group splitter (no groups here), too few points
        raise InputError(f"cv cannot split these data: {exc}") from None


def _is_pair(f: Any) -> bool:
    return (isinstance(f, (tuple, list)) and len(f) == 2
            and all(isinstance(s, (list, tuple)) or getattr(s, "ndim", 0) >= 1 for s in f))


def heldout_sets(folds: Iterable[Any], n: int, *, name: str = "folds") -> list[Any]:
    """The held-out sets of ``folds``: the sets themselves, or the test sets of scikit-learn's
    ``(train, test)`` pairs (``list(KFold(5).split(X))``, every element a pair of index
    arrays), each of whose training sets must be every other point (the k-fold formulas train
    on the complement of each held-out set; :class:`InputError` naming the argument ``name``
    otherwise).

    Until the eighteenth session (2026-11-30) such pairs were read as index sets and refused
    by an unrelated rule ("the folds overlap", or an index array that is not one).
    """
    folds = list(folds)
    if not (folds and all(_is_pair(f) for f in folds)):
        return folds
    tests = []
    for k, pair in enumerate(folds):
        train, test = check_split(k, pair, n, name=name)
        if np.unique(train).size + test.size != n:
            raise InputError(
                f"{name}: split {k} trains on {np.unique(train).size} of the {n - test.size} points "
                "outside its test set; these cross-validation formulas train each fold on all "
                "the other points (k-fold): give the test sets, or such splits")
        tests.append(test)
    return tests


def make_folds(n: int, folds: int | Sequence[ArrayLike] | None, seed: int | None = 0, *,
               name: str = "folds") -> list[np.ndarray]:
    """A validated partition of ``range(n)`` (each set sorted): ``folds`` index sets (or
    scikit-learn's ``(train, test)`` pairs, :func:`heldout_sets`), ``L`` shuffled folds
    (scikit-learn ``KFold(L, shuffle=True, random_state=seed)``), or ``None`` for
    leave-one-out (``L = n``).  Empty folds, overlaps, missing points or a fold leaving fewer
    than 2 training points raise :class:`InputError`; the messages call the argument
    ``name``, and an ``n`` that is not an integer ``>= 1`` raises it too (until the
    twenty-fourth session a string crashed in a comparison)."""
    n = check_integer(n, "n", error=InputError)
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
        raise HyperparameterError(f"{name} must be a number of folds or a list of index arrays, "
                                  f"got {folds!r}")
    try:
        return [np.sort(f) for f in check_folds(heldout_sets(cast(Iterable[Any], folds), n, name=name), n)]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, LssvmCvxError):
            raise
        raise InputError(f"{name} must hold integer index arrays: {exc}") from None


def cv_splits(cv: Any, n: int, *, y: np.ndarray | None = None, groups: Any = None,
              stratified: bool = False, random_state: Any = None,
              labeled: np.ndarray | None = None) -> Sequence[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` pairs of a cross-validation scheme, as index arrays into
    ``range(n)``.

    Parameters
    ----------
    cv : int, "loo", splitter or iterable
        ``"loo"``: leave-one-out; an int: that many folds (scikit-learn ``KFold``, or
        ``StratifiedKFold`` on ``y`` when ``stratified``, shuffled with ``random_state``);
        anything :func:`sklearn.model_selection.check_cv` accepts: a splitter (``KFold``,
        ``GroupKFold``, ``LeaveOneOut``, ``ShuffleSplit``, ...) or an iterable of
        ``(train, test)`` pairs.
    n : int
        Number of points.
    y : numpy.ndarray of shape (n,) or None, default=None
        Labels for stratification (and for splitters that use them).
    groups : array-like of shape (n,) or None, default=None
        Group labels (``GroupKFold``, ``LeaveOneGroupOut``, ...).
    stratified : bool, default=False
        Stratify an integer ``cv`` on ``y``.
    random_state : int, RandomState or None, default=None
        Shuffling of an integer ``cv``.
    labeled : numpy.ndarray of bool of shape (n,) or None, default=None
        The points the splitter may hold out (the others, e.g. unlabelled points of weight 0,
        stay in every training set); None: all.

    Returns
    -------
    sequence of (numpy.ndarray, numpy.ndarray)
        The pairs (indices into ``range(n)``): a list, or for ``"loo"`` a
        :class:`LeaveOneOutSplits`, whose pairs are made when read.

    Raises
    ------
    HyperparameterError
        An integer ``cv`` below 2 or an object that is not a splitter (the message names
        ``cv``).
    InputError
        A splitter that cannot split these data (too few points or groups).
    """
    from sklearn.model_selection import KFold, LeaveOneOut, StratifiedKFold, check_cv

    lab = np.arange(n) if labeled is None else np.flatnonzero(labeled)
    rest = np.setdiff1d(np.arange(n), lab)
    yl = None if y is None else np.asarray(y)[lab]
    gl = None if groups is None else np.asarray(groups)[lab]
    if isinstance(cv, str):
        if cv != "loo":
            raise HyperparameterError(f"cv must be an int, 'loo', a splitter or an iterable of "
                                      f"(train, test) pairs, got {cv!r}")
        if lab.size >= 2:  # LeaveOneOut's pairs, each made when read (no sort per split)
            return LeaveOneOutSplits(n, lab)
        splitter: Any = LeaveOneOut()
    elif isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if int(cv) < 2:
            raise HyperparameterError(f"cv must be >= 2 folds, got {cv!r}")
        splitter = (StratifiedKFold if stratified else KFold)(
            n_splits=int(cv), shuffle=True, random_state=random_state)
    elif isinstance(cv, bool) or not (hasattr(cv, "split") or hasattr(cv, "__iter__")):
        raise HyperparameterError(f"cv must be an int, 'loo', a splitter or an iterable of "
                                  f"(train, test) pairs, got {cv!r}")
    elif not hasattr(cv, "split"):  # given (train, test) pairs: indices into all n points
        out = []
        keep = np.zeros(n, dtype=bool)
        keep[lab] = True
        for k, pair in enumerate(cv):
            train, test = check_split(k, pair, n)
            out.append((np.union1d(train, rest), test[keep[test]]))
        if not out:
            raise InputError("cv yielded no split")
        return out
    else:
        try:
            splitter = check_cv(cv, yl, classifier=stratified)
        except (TypeError, ValueError) as exc:
            raise HyperparameterError(f"cv: {exc}") from None
    try:
        pairs = list(splitter.split(np.zeros((lab.size, 1)), yl, gl))
    except (TypeError, ValueError) as exc:
        raise InputError(f"cv cannot split these data: {exc}") from None
    out = []
    for train, test in pairs:
        train, test = np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp)
        out.append((np.sort(np.concatenate([lab[train], rest])), lab[test]))
    return out
