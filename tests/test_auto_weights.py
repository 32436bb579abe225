"""``sample_weight`` through the whole Auto LS-SVM search (issue 12, item 4): the penalised
least-squares engine with weights (exact weighted LOO against brute-force refits, integer
weights equal repeated rows, unit weights equal no weights) and the estimators (weights of one
change nothing, a zero weight drops the row, bad weights and unsupported paths get clear errors)."""

import numpy as np
import pytest

from lssvm_cvx import AutoLSSVMClassifier, AutoLSSVMRegressor
from lssvm_cvx.exceptions import InputError
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.linalg.refits import brute_force_loo


def _engine(seed=0, n=40, m=12):
    rng = np.random.default_rng(seed)
    Phi = rng.standard_normal((n, m))
    Y = rng.standard_normal(n)
    G = np.eye(m) + 0.1 * np.ones((m, m))
    return rng, Phi, Y, G


def test_weighted_loo_is_exact_against_brute_force_refits():
    rng, Phi, Y, G = _engine()
    w = rng.uniform(0.3, 3.0, Y.size)
    pr = PenalizedLS(Phi, Y, G, sample_weight=w)
    np.testing.assert_allclose(pr.fit(0.5, 0.1).loo[:, 0],
                               brute_force_loo(Phi, Y, G, 0.5, 0.1, sample_weight=w), atol=1e-10)
    mus, nus = [0.1, 0.5, 2.0], [0.01, 0.1, 1.0]
    np.testing.assert_allclose(pr.mu_path(mus, 0.1, "mse").scores,
                               [np.mean(pr.fit(mu, 0.1).loo ** 2) for mu in mus], rtol=1e-10)
    np.testing.assert_allclose(pr.nu_path(nus, 0.5, "mse").scores,
                               [np.mean(pr.fit(0.5, nu).loo ** 2) for nu in nus], rtol=1e-10)


def test_integer_weights_are_repeated_rows_and_ones_are_no_weights():
    rng, Phi, Y, G = _engine(1)
    k = rng.integers(1, 4, Y.size)
    idx = np.repeat(np.arange(Y.size), k)
    a = PenalizedLS(Phi, Y, G, sample_weight=k.astype(float)).fit(0.5, 0.1)
    b = PenalizedLS(Phi[idx], Y[idx], G).fit(0.5, 0.1)
    np.testing.assert_allclose(a.theta, b.theta, atol=1e-12)
    np.testing.assert_allclose(a.b, b.b, atol=1e-12)
    c = PenalizedLS(Phi, Y, G, sample_weight=np.ones(Y.size)).fit(0.5, 0.1)
    d = PenalizedLS(Phi, Y, G).fit(0.5, 0.1)
    np.testing.assert_allclose(c.loo, d.loo, atol=1e-12)


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    return rng, X, np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)


def test_estimator_weights_of_one_zero_and_positive():
    rng, X, y = _data()
    ref = AutoLSSVMRegressor().fit(X, y)
    ones = AutoLSSVMRegressor().fit(X, y, sample_weight=np.ones(y.size))
    np.testing.assert_allclose(ones.predict(X), ref.predict(X), atol=1e-8)
    w = rng.uniform(0.5, 2.0, y.size)
    w0 = w.copy()
    w0[:10] = 0.0
    dropped = AutoLSSVMRegressor().fit(X[10:], y[10:], sample_weight=w[10:])
    zero = AutoLSSVMRegressor().fit(X, y, sample_weight=w0)
    np.testing.assert_allclose(zero.predict(X), dropped.predict(X), atol=1e-12)
    # a weighted fit is not the unweighted one, and its LOO residuals are those of the engine
    weighted = AutoLSSVMRegressor().fit(X, y, sample_weight=w)
    assert np.abs(weighted.predict(X) - ref.predict(X)).max() > 1e-6
    assert weighted.loo_residuals_.shape == (y.size,)
    clf = AutoLSSVMClassifier().fit(X, y > 0.3, sample_weight=w)
    assert clf.score(X, y > 0.3) > 0.9


@pytest.mark.parametrize("bad", [-np.ones(120), np.full(120, np.nan), np.ones(7)])
def test_bad_weights_are_named(bad):
    _, X, y = _data()
    with pytest.raises(InputError, match="sample_weight"):
        AutoLSSVMRegressor().fit(X, y, sample_weight=bad)


def test_weights_on_unsupported_paths_are_refused():
    _, X, y = _data()
    with pytest.raises(InputError, match="sample_weight"):
        AutoLSSVMRegressor(approximation="nystroem", n_components=20).fit(
            X, y, sample_weight=np.ones(y.size))
    est = AutoLSSVMRegressor().fit(X, y, sample_weight=np.ones(y.size))
    with pytest.raises(InputError, match="unweighted"):
        est.predict_interval(X[:3])
