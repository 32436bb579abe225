"""Index sets given by a user — the folds of the held-out formulas, the ``(train, test)`` pairs
of ``cv=`` — are read exactly or refused by name (:func:`lssvm_cvx.linalg.folds.index_set`).

Until the seventeenth session (2026-11-30) they were cast with ``np.asarray(a, dtype=np.intp)``:
``1.5`` became ``1`` and a boolean mask became the indices 0 and 1, silently; a pair whose
training set was empty (its test set every point) was scored by the closed form with no
training point; a pair's training indices were not range-checked; AReg with a group splitter
(it takes no groups) crashed in scikit-learn with ``ValueError``."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold, KFold, ShuffleSplit

import lssvm_cvx
from lssvm_cvx.exceptions import InputError
from lssvm_cvx.linalg.engine import RKHS, decompose
from lssvm_cvx.linalg.folds import cv_splits, disjoint_folds, index_set, make_folds

N = 12
IDX = np.arange(N)


@pytest.mark.parametrize(("a", "expected"), [
    ([3, 1, 4], [3, 1, 4]),
    (np.array([3.0, 1.0]), [3, 1]),                       # whole floats are indices
    (IDX % 3 == 0, [0, 3, 6, 9]),                         # a boolean mask of N values
    ([], []),
    (np.array([[0, 1], [2, 3]]), [0, 1, 2, 3]),           # flattened, as before
])
def test_index_sets_are_read_exactly(a, expected):
    np.testing.assert_array_equal(index_set(a, N, "fold 0"), expected)


@pytest.mark.parametrize(("a", "match"), [
    ([0.5, 1.5], "fold 0 must hold integer indices or a boolean mask, got float64 values that "
                 "are not whole numbers"),
    (["a", "b"], "fold 0 must hold integer indices or a boolean mask"),
    (np.ones(5, dtype=bool), r"fold 0: a boolean mask must have 12 values, got shape \(5,\)"),
    ([0, 12], r"fold 0 has indices outside 0\.\.11"),
    ([-1], r"fold 0 has indices outside 0\.\.11"),
    ([np.nan], "fold 0 must hold integer indices"),
])
def test_bad_index_sets_are_refused_by_name(a, match):
    with pytest.raises(InputError, match=match):
        index_set(a, N, "fold 0")


def test_a_boolean_mask_fold_holds_out_its_points_in_the_engine():
    """The k-fold residuals of folds given as masks are those of the same folds as indices
    (a mask was read as the indices 0 and 1: "the folds overlap")."""
    x = np.linspace(-2, 2, N)
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(2 * x)
    dec = decompose(K, 1.0, {"rkhs": (RKHS, 0.1)})
    masks = [IDX < 4, (IDX >= 4) & (IDX < 8), IDX >= 8]
    np.testing.assert_array_equal(dec.kfold(y, masks), dec.kfold(y, [np.flatnonzero(m) for m in masks]))
    assert [f.tolist() for f in disjoint_folds(masks, N)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


@pytest.mark.parametrize(("cv", "match"), [
    ([(IDX[:6] + 0.5, IDX[6:])], "split 0's train must hold integer indices"),
    ([(np.r_[IDX[:6], 20], IDX[6:])], r"split 0's train has indices outside 0\.\.11"),
    ([(IDX[:0], IDX)], r"split 0 leaves 0 training point\(s\); at least 2 are needed"),
    ([(IDX[:6], IDX[:0])], "split 0 has an empty test set"),
    ([(IDX[:8], IDX[6:])], "split 0 has points both in train and in test"),
    ([3], r"split 0 is not a \(train, test\) pair of index arrays, got int"),
    ([], "cv yielded no split"),
])
def test_bad_given_splits_are_refused_by_name(cv, match):
    with pytest.raises(InputError, match=match):
        cv_splits(cv, N)


def _data(n=30):
    X = np.random.default_rng(0).uniform(-2, 2, (n, 2))
    return X, np.sin(X[:, 0])


@pytest.mark.parametrize("cls", [lssvm_cvx.LSSVMRegressor, lssvm_cvx.RegularizedLSSVMRegressor])
def test_splits_given_as_masks_score_as_the_same_splits_given_as_indices(cls):
    X, y = _data()
    i = np.arange(30)
    masks = [(i < 20, i >= 20), (i >= 10, i < 10)]
    ints = [(np.flatnonzero(a), np.flatnonzero(b)) for a, b in masks]
    kw = dict(selection="kfold", sigma2=1.0)
    a = cls(cv=masks, **kw).fit(X, y).cv_results_["mean_test_score"]
    b = cls(cv=ints, **kw).fit(X, y).cv_results_["mean_test_score"]
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cls", [lssvm_cvx.LSSVMRegressor, lssvm_cvx.RegularizedLSSVMRegressor])
def test_a_split_with_no_training_point_is_refused_not_scored(cls):
    """Train empty, test every point: the complement of the test set is the training set, so the
    closed form scored it (a model fitted to no point); now refused."""
    X, y = _data()
    with pytest.raises(InputError, match="leaves 0 training point"):
        cls(selection="kfold", cv=[(np.arange(0), np.arange(30))]).fit(X, y)


@pytest.mark.parametrize("method", ["cv", "fast_cv"])
def test_areg_with_a_group_splitter_is_refused_by_name(method):
    X, y = _data()
    with pytest.raises(InputError, match="cv cannot split these data"):
        lssvm_cvx.AdditiveRegularizationRegressor(method=method, cv=GroupKFold(3)).fit(X, y)


# --- scikit-learn's (train, test) pairs where the estimator needs a partition (18th session) --
# AReg's cv fusion and the componentwise estimator read a list as held-out index sets; before,
# ``list(KFold(5).split(X))`` was refused by an unrelated rule ("the folds overlap", or "must be
# an index array"), though AReg's constraints (``FOLDS``) accept pairs.

def _pairs(n=30, k=5):
    return list(KFold(k, shuffle=True, random_state=0).split(np.zeros((n, 1))))


def test_pairs_of_a_partition_are_their_test_sets():
    pairs = _pairs()
    got = make_folds(30, pairs)
    want = make_folds(30, [te for _, te in pairs])
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    assert [f.size for f in make_folds(6, [[0, 1], [2, 3], [4, 5]])] == [2, 2, 2]   # index sets


@pytest.mark.parametrize(("pairs", "match"), [
    ([(tr[:-1], te) for tr, te in _pairs()], "split 0 trains on 23 of the 24 points outside"),
    (list(ShuffleSplit(3, test_size=0.2, random_state=0).split(np.zeros((30, 1)))),
     "folds overlap"),
    ([(np.arange(15, 30), np.arange(15)), (np.arange(15), np.arange(10, 30))],
     "split 1 has points both in train and in test"),
])
def test_pairs_that_are_not_a_partition_are_refused_by_name(pairs, match):
    with pytest.raises(InputError, match=match):
        make_folds(30, pairs)


@pytest.mark.parametrize("method", ["cv", "fast_cv"])
def test_areg_takes_the_pairs_of_a_splitter_as_the_splitter(method):
    X, y = _data()
    est = lssvm_cvx.AdditiveRegularizationRegressor
    kf = KFold(5, shuffle=True, random_state=0)
    by_pairs = est(method=method, cv=list(kf.split(X))).fit(X, y).predict(X)
    np.testing.assert_array_equal(by_pairs, est(method=method, cv=kf).fit(X, y).predict(X))


def test_componentwise_takes_pairs_as_their_test_sets():
    X, y = _data()
    pairs = _pairs()
    est = lssvm_cvx.ComponentwiseLSSVMRegressor
    a = est(cv=pairs).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, est(cv=[te for _, te in pairs]).fit(X, y).predict(X))
