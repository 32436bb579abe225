"""The helpers of the Auto LS-SVM benchmarks (issue 17): the plain LS-SVM grid scores behind the
test-set oracle of ``benchmarks/auto_sinc.py`` against :class:`lssvm_cvx.LSSVMRegressor` and
brute-force leave-one-out refits, the Auto LS-SVM grid against the estimator, and the problem
classes of ``benchmarks/auto_gradient.py``."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import AutoLSSVMRegressor, LSSVMRegressor


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-5, 5, (40, 1))
    y = np.sinc(X[:, 0]) + 0.3 * rng.standard_normal(40)
    Xt = rng.uniform(-5, 5, (30, 1))
    return X, y, Xt, np.sinc(Xt[:, 0])


def test_lssvm_grid_scores_match_the_estimator_and_brute_force_loo(data):
    from lssvm_cvx.benchmarks.auto_sinc import lssvm_grid_scores

    X, y, Xt, yt = data
    s2, g = np.array([0.5, 3.0]), np.array([0.1, 10.0, 1000.0])
    test, loo = lssvm_grid_scores(X, y, Xt, yt, s2, g)
    for i, sigma2 in enumerate(s2):
        for j, gamma in enumerate(g):
            m = LSSVMRegressor(sigma2=float(sigma2), gamma=float(gamma)).fit(X, y)
            assert test[i, j] == pytest.approx(np.sqrt(np.mean((m.predict(Xt) - yt) ** 2)), rel=1e-8)
            r = [y[k] - LSSVMRegressor(sigma2=float(sigma2), gamma=float(gamma)).fit(
                np.delete(X, k, 0), np.delete(y, k)).predict(X[k:k + 1])[0] for k in range(len(y))]
            assert loo[i, j] == pytest.approx(np.mean(np.square(r)), rel=1e-6)


def test_auto_grid_matches_the_estimator_at_fixed_hyperparameters(data):
    from lssvm_cvx.benchmarks.auto_sinc import auto_grid_test_rmse

    X, y, Xt, yt = data
    grid = {"kernel_gamma": np.array([2.0]), "mu": np.array([0.0, 1.0]), "nu": np.array([0.1])}
    out = auto_grid_test_rmse(X, y, Xt, yt, grid)
    for j, mu in enumerate(grid["mu"]):
        m = AutoLSSVMRegressor(kernel_gamma=2.0, mu=float(mu), nu=0.1).fit(X, y)
        assert out[0, j, 0] == pytest.approx(np.sqrt(np.mean((m.predict(Xt) - yt) ** 2)), rel=1e-8)


@pytest.mark.parametrize("name", ["doppler", "step", "sinc with a gap", "kink", "heteroscedastic sinc",
                                  "Friedman #1"])
def test_gradient_benchmark_problem_classes(name):
    from lssvm_cvx.benchmarks.auto_gradient import make_problem

    X, y, Xt, ft = make_problem(name, 7)
    assert X.shape[0] == y.shape[0] and Xt.shape[0] == ft.shape[0] == 500
    assert np.all(np.isfinite(y)) and np.all(np.isfinite(ft))
    X2, y2, _, _ = make_problem(name, 7)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)  # seeded
    if name == "sinc with a gap":
        assert X.shape[0] == 200 and not np.any((X[:, 0] > 1) & (X[:, 0] < 3))
        assert np.any((Xt[:, 0] > 1) & (Xt[:, 0] < 3))  # the gap is tested
    with pytest.raises(ValueError):
        make_problem("nope", 0)
