"""Refits in the range of K (:mod:`lssvm_cvx.linalg.range_refits`): the held-out predictions of
``loo="refit"`` (the points leave the loss, the basis and the terms: a kNN graph is rebuilt
without them) for the RKHS norm and a graph term, against fresh fits of the estimator on the
remaining points (GridSearchCV's computation) and against 50-digit refits where the augmented
system's deletion formulas, which served until the fifteenth session, were off."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold

from lssvm_cvx import RegularizedLSSVMRegressor
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import Squared
from lssvm_cvx.selection.heldout import heldout_predictions
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm, knn_laplacian


def _data(n: int, seed: int, outputs: int = 1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    Y = np.sinc(X[:, 0])[:, None] * np.arange(1, outputs + 1) + 0.1 * rng.standard_normal(
        (n, outputs))
    return X, Y[:, 0] if outputs == 1 else Y


def _terms(wr: float, g: float, k: int = 5) -> dict:
    return {"rkhs": (RKHSNorm(), wr), "graph": (GraphLaplacian(n_neighbors=k), g)}


def _fresh(X, Y, w, s2, terms, train, test):
    """The estimator fitted on ``train`` (its graph built on those points), at ``test``."""
    cols = [Y] if Y.ndim == 1 else list(Y.T)
    out = [RegularizedLSSVMRegressor(sigma2=s2, terms=terms).fit(
        X[train], c[train], sample_weight=None if w is None else w[train]).predict(X[test])
        for c in cols]
    return out[0] if Y.ndim == 1 else np.column_stack(out)


@pytest.mark.parametrize(("s2", "wr", "g"), [(1.0, 0.1, 0.01), (0.5, 1e-3, 10.0),
                                             (2.0, 1e-3, 1e-3)])
@pytest.mark.parametrize("kind", ["one target", "two targets, unlabelled points"])
def test_leave_one_out_refit_predictions_equal_fresh_fits_on_the_remaining_points(s2, wr, g,
                                                                                  kind):
    """Every leave-one-out prediction within 2e-6 ``max|y|`` of the estimator refitted on the
    remaining points (one target; two target columns with every fourth point of loss weight 0,
    never held out).  The deletion formulas of the augmented system were up to 2.8e-2
    ``max|y|`` off on these problems (``notes/range_refits.md``)."""
    X, Y = _data(30, 4, outputs=1 if kind == "one target" else 2)
    n = len(X)
    w = None if kind == "one target" else np.where(np.arange(n) % 4 == 0, 0.0, 1.0)
    splits = [(np.setdiff1d(np.arange(n), [i]), np.array([i])) for i in range(n)
              if w is None or w[i] > 0]
    terms = _terms(wr, g)
    form = RegularizedLSSVM(X, Y if Y.ndim == 1 else Y[:, 0], kernel=RBF(s2), terms=terms,
                            loss=Squared(sample_weight=w))
    assert form.decomposition().representation() == "range"
    held = heldout_predictions(form, splits, Y, estimand="refit")
    assert set(held.status) == {"closed_form"} and "deleted from one factorisation" in held.method
    for (train, test), got in zip(splits, held.predictions):
        want = _fresh(X, Y, w, s2, terms, train, test)
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * np.abs(Y).max())


def test_held_out_sets_of_several_points_are_refitted_per_split():
    """Sets of two points (15 folds, a 2-NN graph whose change would fit one update): refitted
    per split since the fifteenth session — the range's update was 1.6e-4 ``max|y|`` from the
    fresh fits on this problem (the augmented system's deletion formulas 9.1e-3)."""
    X, y = _data(30, 4)
    terms = _terms(1e-3, 10.0, k=2)
    splits = list(KFold(15, shuffle=True, random_state=0).split(X))
    held = heldout_predictions(RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms), splits,
                               estimand="refit")
    assert held.method.startswith("refits on the remaining points")
    for (train, test), got in zip(splits, held.predictions):
        np.testing.assert_allclose(got, _fresh(X, y, None, 0.5, terms, train, test), rtol=0,
                                   atol=1e-12)


def test_refit_predictions_against_50_digit_refits():
    """The problem where the deletion formulas were furthest off (N = 30, σ² = 0.5, RKHS weight
    1e-3, graph weight 10: 2.8e-2 ``max|y|`` at their 1e-10 ridge): three left-out points
    against the refit solved in 50-digit arithmetic (mpmath, in ``f = Kα`` on the remaining
    points, ``K`` and its inverse in that precision) — within 1e-6 ``max|y|`` (measured 3.2e-7
    at worst)."""
    mp = pytest.importorskip("mpmath")
    X, y = _data(30, 4)
    n, s2, wr, g = len(y), 0.5, 1e-3, 10.0
    form = RegularizedLSSVM(X, y, kernel=RBF(s2), terms=_terms(wr, g))
    splits = [(np.setdiff1d(np.arange(n), [i]), np.array([i])) for i in range(n)]
    got = np.concatenate(heldout_predictions(form, splits, estimand="refit").predictions)

    def exact(i: int) -> float:
        keep = np.setdiff1d(np.arange(n), [i])
        m, L = keep.size, knn_laplacian(X[keep], 5)
        with mp.workdps(50):
            x = [mp.mpf(float(v)) for v in X[:, 0]]
            K = mp.matrix(m, m)
            for a in range(m):
                for c in range(m):
                    K[a, c] = mp.exp(-(x[keep[a]] - x[keep[c]]) ** 2 / mp.mpf(s2))
            Ki = mp.inverse(K)
            F = wr * Ki + g * mp.matrix(L.tolist())
            A, r = mp.matrix(m + 1, m + 1), mp.matrix(m + 1, 1)
            for a in range(m):
                for c in range(m):
                    A[a, c] = F[a, c]
                A[a, a] += 1
                A[a, m] = A[m, a] = 1
                r[a] = mp.mpf(float(y[keep[a]]))
            A[m, m] = m
            r[m] = sum(r[a] for a in range(m))
            sol = mp.lu_solve(A, r)
            alpha = Ki * mp.matrix([sol[a] for a in range(m)])
            return float(sum(mp.exp(-(x[i] - x[keep[c]]) ** 2 / mp.mpf(s2)) * alpha[c]
                             for c in range(m)) + sol[m])

    for i in (1, 24, 26):
        assert abs(got[i] - exact(i)) < 1e-6 * np.abs(y).max()
