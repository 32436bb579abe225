"""``linalg.folds.cv_splits("loo", n)`` gives scikit-learn's leave-one-out pairs, built without
a splitter (each training set a slice of ``range(n)``): the same arrays, dtypes and order as
``LeaveOneOut`` mapped through the labelled points, checked against the definition."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import InputError
from lssvm_cvx.linalg.folds import cv_splits


@pytest.mark.parametrize("n, labeled", [(2, None), (9, None), (9, [0, 2, 3, 7]),
                                        (6, [0, 1, 2, 3, 4, 5])])
def test_loo_pairs_are_the_definition(n, labeled):
    mask = None
    if labeled is not None:
        mask = np.zeros(n, dtype=bool)
        mask[labeled] = True
    held = np.arange(n) if mask is None else np.flatnonzero(mask)
    pairs = cv_splits("loo", n, labeled=mask)
    assert len(pairs) == held.size
    for i, (train, test) in zip(held, pairs):
        assert train.dtype == np.intp and test.dtype == np.intp
        np.testing.assert_array_equal(test, [i])
        np.testing.assert_array_equal(train, [j for j in range(n) if j != i])
    # the pairs own their memory: a caller may write into one without touching the others
    pairs[0][1][0] = -1
    assert all(te[0] >= 0 for _, te in pairs[1:])


def test_loo_of_one_point_is_refused():
    with pytest.raises(InputError, match="LeaveOneOut"):
        cv_splits("loo", 1)
    with pytest.raises(InputError, match="LeaveOneOut"):
        cv_splits("loo", 4, labeled=np.array([False, True, False, False]))
