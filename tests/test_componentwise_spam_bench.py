"""The sparsity experiment of ``benchmarks/componentwise_spam.py``: its primal ridge is the
componentwise LS-SVM classifier, its CV is fold refits, its stepwise search is greedy."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import ComponentwiseLSSVMClassifier
from lssvm_cvx.benchmarks import componentwise_spam as spam


def _toy(n=80, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + 30, p))
    y = np.where(np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n + 30) > 0, 1.0, -1.0)
    return X[:n], y[:n], X[n:], y[n:]


@pytest.mark.parametrize("gamma", [0.1, 3.0])
def test_primal_ridge_is_the_componentwise_lssvm_classifier(gamma):
    Xtr, ytr, Xte, _ = _toy()
    F, Ft = spam.primal_features(Xtr, Xte, 2.0, rank_tol=1e-13)
    S = [0, 2, 3]
    dec = spam.ridge_decisions(np.hstack([F[d] for d in S]), ytr,
                               np.hstack([Ft[d] for d in S]), [gamma])[0]
    ref = ComponentwiseLSSVMClassifier(sigma2=2.0, gamma=gamma).fit(Xtr[:, S], ytr)
    np.testing.assert_allclose(dec, ref.decision_function(Xte[:, S]), atol=1e-6)


def test_forward_stepwise_is_greedy():
    w = np.array([0.1, 0.5, 0.3, 0.05])
    # a score with an interaction: 3 is worth more once 1 is in the set
    def score(S):
        v = w[S].sum() + (0.4 if {1, 3} <= set(S) else 0.0)
        return np.array([v, v - 1])
    out = spam.forward_stepwise([None] * 4, None, score, 3)
    assert [S for S, _, _ in out] == [[1], [1, 3], [1, 3, 2]]
    assert [gi for _, _, gi in out] == [0, 0, 0]
    np.testing.assert_allclose([a for _, a, _ in out], [0.5, 0.95, 1.25])
