"""LSSVMRegressor / LSSVMClassifier: scikit-learn conformance, selection without refitting,
multiclass, kernels, sample weights, save/load without pickle."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import lssvm_cvx
from lssvm_cvx import problems
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor
from lssvm_cvx.kernels import RBF, Polynomial
from lssvm_cvx.model_selection import loo_residuals


@parametrize_with_checks([LSSVMRegressor(), LSSVMClassifier(),
                          LSSVMClassifier(multi_class="ovo"),
                          LSSVMRegressor(selection="loo", gamma_grid=[0.1, 10.0], sigma2_grid=[0.5, 2.0]),
                          LSSVMClassifier(selection="kfold", cv=3, gamma_grid=[0.1, 10.0])])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture
def reg():
    return problems.get_problem("sinc", seed=3)


def test_regressor_matches_formulation_and_predicts(reg):
    m = LSSVMRegressor(sigma2=0.5, gamma=20.0).fit(reg.X, reg.y)
    from lssvm_cvx.formulations import LSSVM

    s = LSSVM(reg.X, reg.y, kernel=RBF(0.5), gamma=20.0).solve()
    np.testing.assert_allclose(m.dual_coef_, s["alpha"], rtol=1e-12, atol=1e-14)
    pred = m.predict(reg.X_test)
    np.testing.assert_allclose(pred, RBF(0.5)(reg.X_test, reg.X) @ s["alpha"] + s.scalar("b"))


def test_loo_selection_picks_the_grid_minimum(reg):
    gammas, s2s = np.logspace(-1, 3, 5), [0.1, 0.5, 2.0]
    m = LSSVMRegressor(selection="loo", gamma_grid=gammas, sigma2_grid=s2s).fit(reg.X, reg.y)
    scores = np.array([[np.mean(loo_residuals(RBF(s2)(reg.X), reg.y, g) ** 2) for g in gammas]
                       for s2 in s2s])
    i, j = np.unravel_index(np.argmin(scores), scores.shape)
    assert (m.sigma2_, m.gamma_) == (s2s[i], gammas[j])
    np.testing.assert_allclose(m.cv_results_["scores"], scores, rtol=1e-8)


def test_pipeline_and_gridsearch(reg):
    pipe = make_pipeline(StandardScaler(), LSSVMRegressor())
    gs = GridSearchCV(pipe, {"lssvmregressor__gamma": [1.0, 100.0],
                             "lssvmregressor__sigma2": [0.1, 1.0]}, cv=3).fit(reg.X, reg.y)
    assert gs.predict(reg.X_test).shape == (reg.X_test.shape[0],)
    assert gs.score(reg.X_test, reg.y_test) > 0.7  # noise-free test set


@pytest.mark.parametrize("mc", ["ovr", "ovo"])
def test_multiclass(mc):
    ds = problems.get_problem("waveform", binary=False, n_train=300, seed=0)
    m = LSSVMClassifier(multi_class=mc, sigma2=40.0, gamma=1.0).fit(ds.X, ds.y)
    acc = m.score(ds.X_test, ds.y_test)
    assert acc > 0.75  # Breiman's waveform: Bayes accuracy about 0.86
    d = m.decision_function(ds.X_test[:5])
    assert d.shape == (5, 3)
    np.testing.assert_array_equal(m.classes_[np.argmax(d, axis=1)], m.predict(ds.X_test[:5]))


def test_ovr_columns_equal_separate_binary_fits():
    ds = problems.get_problem("waveform", binary=False, n_train=120, seed=1)
    m = LSSVMClassifier(multi_class="ovr", sigma2=30.0, gamma=2.0).fit(ds.X, ds.y)
    for c_idx, c in enumerate(m.classes_):
        b = LSSVMClassifier(sigma2=30.0, gamma=2.0).fit(ds.X, np.where(ds.y == c, 1, 0))
        np.testing.assert_allclose(m.dual_coef_[:, c_idx], b.dual_coef_, atol=1e-10)


def test_precomputed_and_callable_kernels(reg):
    K = RBF(0.5)(reg.X)
    a = LSSVMRegressor(kernel="precomputed", gamma=5.0).fit(K, reg.y)
    b = LSSVMRegressor(sigma2=0.5, gamma=5.0).fit(reg.X, reg.y)
    np.testing.assert_allclose(a.predict(RBF(0.5)(reg.X_test, reg.X)), b.predict(reg.X_test), atol=1e-10)
    c = LSSVMRegressor(kernel=lambda A, B: RBF(0.5)(A, B), gamma=5.0).fit(reg.X, reg.y)
    np.testing.assert_allclose(c.predict(reg.X_test), b.predict(reg.X_test), atol=1e-12)
    d = LSSVMRegressor(kernel=Polynomial(3, 1.0), gamma=5.0).fit(reg.X, reg.y)
    e = LSSVMRegressor(kernel="poly", degree=3, t=1.0, gamma=5.0).fit(reg.X, reg.y)
    np.testing.assert_allclose(d.predict(reg.X_test), e.predict(reg.X_test))


def test_multi_output_regression(reg):
    Y = np.column_stack([reg.y, 2 * reg.y + 1])
    m = LSSVMRegressor(gamma=10.0).fit(reg.X, Y)
    single = LSSVMRegressor(gamma=10.0).fit(reg.X, reg.y)
    np.testing.assert_allclose(m.predict(reg.X_test)[:, 0], single.predict(reg.X_test), atol=1e-10)
    np.testing.assert_allclose(m.predict(reg.X_test)[:, 1], 2 * single.predict(reg.X_test) + 1, atol=1e-9)


def test_integer_sample_weight_equals_repetition(reg):
    w = np.ones(len(reg.y))
    w[:5] = 3
    a = LSSVMRegressor(gamma=10.0).fit(reg.X, reg.y, sample_weight=w)
    Xr = np.vstack([reg.X, reg.X[:5], reg.X[:5]])
    yr = np.r_[reg.y, reg.y[:5], reg.y[:5]]
    b = LSSVMRegressor(gamma=10.0).fit(Xr, yr)
    np.testing.assert_allclose(a.predict(reg.X_test), b.predict(reg.X_test), atol=1e-8)


@pytest.mark.parametrize("est", [LSSVMRegressor(selection="gcv"),
                                 LSSVMClassifier(multi_class="ovo", gamma=3.0)])
def test_save_load_round_trip_exactly(est, tmp_path):
    ds = problems.get_problem("waveform", binary=False, n_train=90, seed=2)
    y = ds.y if isinstance(est, LSSVMClassifier) else ds.X[:, 0]
    est.fit(ds.X, y)
    path = tmp_path / "model.npz"
    est.save(path)
    back = lssvm_cvx.load(path)
    assert type(back) is type(est) and back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict(ds.X_test), est.predict(ds.X_test))
    with np.load(path, allow_pickle=False) as data:  # readable without pickle
        assert "__header__" in data
