"""Closed-form LOO, k-fold and GCV against brute-force refits (the definitions)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import problems
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations import LSSVM, LSSVMClassification, WeightedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.model_selection import (gamma_sweep, gcv, kfold_residuals, loo_residuals,
                                       select_gamma_sigma2)


def refit_predict(K, y, gamma, train, test):
    """Fit the LS-SVM on ``train`` (an independent solve through the formulation) and predict
    ``test``."""
    g = gamma[train] if np.ndim(gamma) else gamma
    cls = WeightedLSSVM if np.ndim(gamma) else LSSVM
    s = cls.from_gram(K[np.ix_(train, train)], y[train], gamma=g).solve()
    return K[np.ix_(test, train)] @ s["alpha"] + s.scalar("b")


@pytest.fixture
def data():
    ds = problems.get_problem("lssvm_regression", n=45, seed=11)
    return RBF(1.3)(ds.X), ds.y


@pytest.mark.parametrize("gamma", [0.05, 3.0, 1e4])
def test_loo_equals_brute_force(data, gamma):
    K, y = data
    n = len(y)
    brute = np.array([y[i] - refit_predict(K, y, gamma, np.arange(n) != i, [i])[0]
                      for i in range(n)])
    np.testing.assert_allclose(loo_residuals(K, y, gamma), brute, rtol=0, atol=1e-8)


def test_weighted_loo_equals_brute_force(data, rng):
    K, y = data
    g = rng.uniform(0.5, 20, size=len(y))
    n = len(y)
    brute = np.array([y[i] - refit_predict(K, y, g, np.arange(n) != i, [i])[0] for i in range(n)])
    np.testing.assert_allclose(loo_residuals(K, y, g), brute, atol=1e-8)


@pytest.mark.parametrize("k", [2, 5, 45])
def test_kfold_equals_brute_force(data, k, rng):
    K, y = data
    folds = np.array_split(rng.permutation(len(y)), k)
    brute = np.empty(len(y))
    for f in folds:
        train = np.setdiff1d(np.arange(len(y)), f)
        brute[f] = y[f] - refit_predict(K, y, 4.0, train, f)
    np.testing.assert_allclose(kfold_residuals(K, y, 4.0, folds), brute, atol=1e-8)
    if k == len(y):  # leave-one-out is the n-fold special case
        np.testing.assert_allclose(kfold_residuals(K, y, 4.0, folds), loo_residuals(K, y, 4.0), atol=1e-10)


def test_gcv_equals_definition_from_smoother_matrix(data):
    K, y = data
    n, g = len(y), 2.0
    S = np.column_stack([refit_predict(K, np.eye(n)[j], g, np.arange(n), np.arange(n))
                         for j in range(n)])  # the smoother: y_hat = S y
    resid = y - S @ y
    brute = n * resid @ resid / np.trace(np.eye(n) - S) ** 2
    assert gcv(K, y, g) == pytest.approx(brute, rel=1e-9)


def test_multi_column_targets_share_factorization(data):
    K, y = data
    Y = np.column_stack([y, y**2, -y])
    R = loo_residuals(K, Y, 3.0)
    for j in range(3):
        np.testing.assert_allclose(R[:, j], loo_residuals(K, Y[:, j], 3.0), atol=1e-12)


@pytest.mark.parametrize("criterion", ["loo", "kfold", "gcv"])
def test_eigh_and_cholesky_sweeps_agree_and_match_single_calls(data, criterion, rng):
    K, y = data
    folds = np.array_split(rng.permutation(len(y)), 5)
    gammas = np.logspace(-2, 4, 9)
    a = gamma_sweep(K, y, gammas, criterion=criterion, folds=folds, method="eigh")
    b = gamma_sweep(K, y, gammas, criterion=criterion, folds=folds, method="cholesky")
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-8)
    single = {"loo": lambda g: np.mean(loo_residuals(K, y, g) ** 2),
              "kfold": lambda g: np.mean(kfold_residuals(K, y, g, folds) ** 2),
              "gcv": lambda g: gcv(K, y, g)}[criterion]
    np.testing.assert_allclose(b.scores, [single(g) for g in gammas], rtol=1e-10)
    assert a.best_gamma == gammas[np.argmin(b.scores)]


def test_classifier_loo_misclassification_equals_brute_force():
    ds = problems.get_problem("lssvm_classification", n=40, seed=5)
    X, y = ds.X, ds.y
    K = RBF(1.0)(X)
    gammas = [0.1, 1.0, 10.0]
    sweep = gamma_sweep(K, y, gammas, criterion="loo", score="misclassification")
    for g, score in zip(gammas, sweep.scores):
        wrong = 0
        for i in range(len(y)):
            m = np.arange(len(y)) != i
            f = LSSVMClassification(X[m], y[m], kernel=RBF(1.0), gamma=g)
            s = f.solve()
            wrong += np.sign(f.decision_function(s, X[i : i + 1])[0]) != y[i]
        assert score == pytest.approx(wrong / len(y))


def test_joint_search_picks_the_brute_force_minimum():
    ds = problems.get_problem("lssvm_regression", n=30, seed=2)
    gammas, sigma2s = [0.1, 10.0, 1000.0], [0.3, 1.0, 3.0]
    res = select_gamma_sigma2(ds.X, ds.y, gammas, sigma2s)
    brute = np.array([[np.mean([(ds.y[i] - refit_predict(RBF(s2)(ds.X), ds.y, g,
                                                           np.arange(30) != i, [i])[0]) ** 2
                                for i in range(30)]) for g in gammas] for s2 in sigma2s])
    np.testing.assert_allclose(res.scores, brute, rtol=1e-7)
    i, j = np.unravel_index(np.argmin(brute), brute.shape)
    assert (res.best_sigma2, res.best_gamma) == (sigma2s[i], gammas[j])


def test_bad_folds_and_options(data):
    K, y = data
    n = len(y)
    with pytest.raises(InputError, match="empty"):
        kfold_residuals(K, y, 1.0, [np.arange(n), np.array([], int)])
    with pytest.raises(InputError, match="disjoint"):
        kfold_residuals(K, y, 1.0, [np.arange(10), np.arange(5, n)])
    with pytest.raises(InputError, match="at least 2 folds"):
        kfold_residuals(K, y, 1.0, [np.arange(n)])
    with pytest.raises(HyperparameterError, match="criterion"):
        gamma_sweep(K, y, [1.0], criterion="aic")
    with pytest.raises(HyperparameterError, match="needs folds"):
        gamma_sweep(K, y, [1.0], criterion="kfold")
    with pytest.raises(HyperparameterError, match="gamma"):
        gamma_sweep(K, y, [1.0, -2.0])
