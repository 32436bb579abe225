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
    test, loo, _ = lssvm_grid_scores(X, y, Xt, yt, s2, g)
    for i, sigma2 in enumerate(s2):
        for j, gamma in enumerate(g):
            m = LSSVMRegressor(sigma2=float(sigma2), gamma=float(gamma)).fit(X, y)
            assert test[i, j] == pytest.approx(np.sqrt(np.mean((m.predict(Xt) - yt) ** 2)), rel=1e-8)
            r = [y[k] - LSSVMRegressor(sigma2=float(sigma2), gamma=float(gamma)).fit(
                np.delete(X, k, 0), np.delete(y, k)).predict(X[k:k + 1])[0] for k in range(len(y))]
            assert loo[i, j] == pytest.approx(np.mean(np.square(r)), rel=1e-6)


def test_lssvm_evidence_is_the_flat_bias_prior_limit(data):
    """The log evidence with a flat prior on b is the limit of the Gaussian density with a
    N(0, τ²) prior on b, plus ½ log(2πτ²), as τ → ∞ (at the profiled noise scale ŝ²)."""
    from lssvm_cvx.benchmarks.auto_sinc import lssvm_grid_scores
    from scipy.stats import multivariate_normal

    from lssvm_cvx.kernels import RBF

    X, y, Xt, yt = data
    for sigma2, gamma in ((0.5, 10.0), (3.0, 0.3)):
        _, _, ev = lssvm_grid_scores(X, y, Xt, yt, np.array([sigma2]), np.array([gamma]))
        n = len(y)
        C = RBF(sigma2=sigma2)(X, X) + np.eye(n) / gamma
        Ci = np.linalg.inv(C)
        one = np.ones(n)
        P = Ci - np.outer(Ci @ one, Ci @ one) / (one @ Ci @ one)
        s2 = y @ P @ y / (n - 1)
        tau = 1e3
        ref = multivariate_normal(np.zeros(n), s2 * C + tau ** 2 * np.outer(one, one)).logpdf(y) \
            + 0.5 * np.log(2 * np.pi * tau ** 2)
        assert ev[0, 0] == pytest.approx(ref, abs=1e-4)
        # and the evidence is maximised in s² at ŝ² (the profiling used)
        dens = [multivariate_normal(np.zeros(n), f * s2 * C + tau ** 2 * np.outer(one, one)).logpdf(y)
                for f in (0.9, 1.0, 1.1)]
        assert dens[1] > max(dens[0], dens[2])


def test_auto_grid_matches_the_estimator_at_fixed_hyperparameters(data):
    from lssvm_cvx.benchmarks.auto_sinc import auto_grid_test_rmse

    X, y, Xt, yt = data
    grid = {"kernel_gamma": np.array([2.0]), "mu": np.array([0.0, 1.0]), "nu": np.array([0.1])}
    out = auto_grid_test_rmse(X, y, Xt, yt, grid)
    for j, mu in enumerate(grid["mu"]):
        m = AutoLSSVMRegressor(kernel_gamma=2.0, mu=float(mu), nu=0.1).fit(X, y)
        assert out[0, j, 0] == pytest.approx(np.sqrt(np.mean((m.predict(Xt) - yt) ** 2)), rel=1e-8)


@pytest.mark.parametrize("name", ["doppler", "step", "sinc with a gap", "2-D sinc with a hole", "kink",
                                  "heteroscedastic sinc", "clustered inputs", "Friedman #1"])
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
    if name == "2-D sinc with a hole":
        assert X.shape == (200, 2) and np.all(np.linalg.norm(X - 1.0, axis=1) > 1.0)
    with pytest.raises(ValueError):
        make_problem("nope", 0)


def test_auto_sinc_grid_one_run_scores_default_bound_and_loo_choice():
    """One seed of one cell of ``auto_sinc_grid``: the bound is the grid's test-set minimum, so
    it is never above the LOO choice on the same grid; the default's RMSE is a real fit's."""
    from lssvm_cvx.benchmarks.auto_sinc_grid import one_run

    row = one_run((50, 0.3, 0))
    bound = row["plain LS-SVM, test-set oracle (bound)"]
    assert 0 < bound <= row["plain LS-SVM, exact LOO on the grid"] + 1e-15
    assert 0 < row["Auto LS-SVM (default)"] < 1.0
