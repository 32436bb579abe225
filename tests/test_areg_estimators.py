"""AdditiveRegularizationRegressor / AdditiveRegularizationClassifier: scikit-learn
conformance, agreement with the formulations they wrap, fitted attributes, save/load and bad
input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from lssvm_cvx import AdditiveRegularizationClassifier, AdditiveRegularizationRegressor, load, problems
from lssvm_cvx.exceptions import HyperparameterError, InputError, LabelError, NotFittedError
from lssvm_cvx.formulations import LSSVM
from lssvm_cvx.formulations.areg import AReg
from lssvm_cvx.formulations.areg_cv import ARegCV
from lssvm_cvx.formulations.areg_ensemble import ARegEnsemble, TikhonovNodes
from lssvm_cvx.formulations.areg_fast_cv import ARegFastCV
from lssvm_cvx.formulations.areg_fusion import ARegFusion
from lssvm_cvx.kernels import RBF

R, C = AdditiveRegularizationRegressor, AdditiveRegularizationClassifier


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


@parametrize_with_checks([R(), R(method="fusion"), R(method="cv"), R(method="fast_cv"),
                          R(method="fast_cv", solver="lsqr"), R(method="cv", solver="tikhonov"),
                          C(), C(method="fusion"), C(method="cv"), C(method="fast_cv"),
                          C(method="cv", solver="tikhonov"),
                          C(criterion="misclassification"), C(criterion="roc")])
def test_sklearn_conformance(estimator, check):
    check(estimator)


@pytest.fixture
def sinc():
    ds = problems.get_problem("sinc", n_train=40, n_val=20, seed=3)
    return ds.X, ds.y, ds.X_test, ds.y_test


def test_ensemble_regressor_follows_the_paper_protocol(sinc):
    """λ from the validation split (eq. 28), then the nodes retrained on all the data with the
    same γ_k and λ (§6); c_ reproduces the model through eq. (9)."""
    X, y, Xt, _ = sinc
    est = R(method="ensemble", sigma2=0.3, gammas=(1.0, 400.0), random_state=0).fit(X, y)
    lam = est.lambda_
    assert lam.shape == (2,) and np.all(lam >= 0) and abs(lam.sum() - 1) < 1e-12
    tr, va = est.train_idx_, est.val_idx_
    assert tr.size == 40 and va.size == 20 and np.intersect1d(tr, va).size == 0
    f = ARegEnsemble(X[tr], y[tr], X[va], y[va], gammas=(1.0, 400.0), kernel=RBF(0.3))
    np.testing.assert_allclose(f.solve()["lam"], lam, atol=1e-12)
    nodes = TikhonovNodes(RBF(0.3)(X), np.ones(60), y, (1.0, 400.0))
    np.testing.assert_allclose(est.dual_coef_, nodes.alphas @ lam, atol=1e-10)
    ar = AReg(X, y, kernel=RBF(0.3), c=est.c_).solve()
    np.testing.assert_allclose(ar["alpha"], est.dual_coef_, atol=1e-8)
    np.testing.assert_allclose(est.predict(Xt), RBF(0.3)(Xt, X) @ est.dual_coef_ + est.intercept_)
    assert est.gamma_ > 0 and est.gamma_recovery_["relative_distance"] < 1.0


def test_regressor_methods_equal_formulations(sinc):
    X, y, _, _ = sinc
    K = RBF(0.3)(X)
    fus = R(method="fusion", sigma2=0.3, random_state=1).fit(X, y)
    tr, va = fus.train_idx_, fus.val_idx_
    sol = ARegFusion.from_gram(K[np.ix_(tr, tr)], y[tr], K[np.ix_(va, tr)], y[va]).solve()
    np.testing.assert_allclose(fus.dual_coef_, sol["alpha"], atol=1e-10)
    np.testing.assert_allclose(fus.c_, sol["c"], atol=1e-10)
    cv = R(method="cv", sigma2=0.3, cv=5, random_state=2).fit(X, y)
    f = ARegCV(X, y, folds=cv.folds_, kernel=RBF(0.3))
    s = f.solve()
    np.testing.assert_allclose(cv.c_, s["c"], atol=1e-9)
    np.testing.assert_allclose(cv.dual_coef_, f.final_model(s)[0], atol=1e-9)
    fast = R(method="fast_cv", sigma2=0.3, cv=5, xi=2.0, random_state=2).fit(X, y)
    s = ARegFastCV(X, y, folds=fast.folds_, xi=2.0, kernel=RBF(0.3)).solve()
    np.testing.assert_allclose(fast.alpha_, s["alpha"], atol=1e-10)
    np.testing.assert_allclose(fast.dual_coef_, 0.8 * s["alpha"], atol=1e-10)  # eq. (41), L = 5
    assert fast.lambda_ is None and len(fast.folds_) == 5
    it = R(method="cv", sigma2=0.3, cv=5, solver="lsqr", max_iter=7, random_state=2).fit(X, y)
    s = ARegCV(X, y, folds=it.folds_, kernel=RBF(0.3)).solve_lsqr(7)
    np.testing.assert_allclose(it.c_, s["c"], atol=1e-10)


def test_recovered_gamma_on_the_tikhonov_path(sinc):
    """Two identical nodes: the ensemble is the LS-SVM at that γ, and gamma_ recovers it."""
    X, y, _, _ = sinc
    est = R(method="ensemble", sigma2=0.3, gammas=(25.0, 25.0), random_state=0).fit(X, y)
    ls = LSSVM(X, y, kernel=RBF(0.3), gamma=25.0).solve()
    np.testing.assert_allclose(est.dual_coef_, ls["alpha"], atol=1e-9)
    assert abs(np.log(est.gamma_ / 25.0)) < 1e-3


def test_classifier_labels_criteria_and_decision():
    ds = problems.get_problem("ripley")
    idx = np.random.default_rng(0).permutation(ds.n_samples)[:120]
    X, y = ds.X[idx], np.where(ds.y[idx] == 1, "yes", "no")
    for crit in ("l2", "misclassification", "roc"):
        est = C(sigma2=0.5, criterion=crit, random_state=0).fit(X, y)
        assert list(est.classes_) == ["no", "yes"]
        pred = est.predict(ds.X_test)
        assert set(np.unique(pred)) <= {"no", "yes"}
        dec = est.decision_function(ds.X_test)
        np.testing.assert_array_equal(pred == "yes", dec > 0)
        assert np.mean(pred == np.where(ds.y_test == 1, "yes", "no")) > 0.8
        if crit == "misclassification":
            va = est.val_idx_  # the criterion value is the validation count at the tuned λ
            assert est.criterion_value_ == int(est.criterion_value_) and 0 <= est.criterion_value_ <= va.size
        if crit == "roc":
            assert 0.5 < est.criterion_value_ <= 1.0
    for method in ("fusion", "cv", "fast_cv"):
        est = C(method=method, sigma2=0.5, random_state=0, cv=5).fit(X, y)
        assert np.mean(est.predict(ds.X_test) == np.where(ds.y_test == 1, "yes", "no")) > 0.7


def test_save_load_roundtrip(tmp_path, sinc):
    X, y, Xt, _ = sinc
    for est in (R(method="cv", sigma2=0.3, cv=4, random_state=0), R(sigma2=0.3, random_state=0)):
        est.fit(X, y)
        est.save(tmp_path / "m.npz")
        back = load(tmp_path / "m.npz")
        np.testing.assert_array_equal(back.predict(Xt), est.predict(Xt))


def test_estimator_bad_inputs(sinc):
    X, y, _, _ = sinc
    with pytest.raises(NotFittedError):
        R().predict(X)
    with pytest.raises(HyperparameterError, match="method"):
        R(method="tikhonov").fit(X, y)
    with pytest.raises(HyperparameterError, match="m >= 2"):
        R(gammas=(10.0,)).fit(X, y)
    with pytest.raises(HyperparameterError, match="finite values > 0"):
        R(gammas=(1.0, -4.0)).fit(X, y)
    with pytest.raises(HyperparameterError, match="validation_fraction"):
        R(validation_fraction=1.5).fit(X, y)
    with pytest.raises(HyperparameterError, match=r"'cv' parameter .* range \[2, inf\)"):
        R(method="cv", cv=1).fit(X, y)
    with pytest.raises(HyperparameterError, match="xi"):
        R(method="fast_cv", xi=-1.0).fit(X, y)
    with pytest.raises(HyperparameterError, match="solver"):
        R(method="fast_cv", solver="cg").fit(X, y)
    with pytest.raises(HyperparameterError, match="max_iter"):
        R(method="fast_cv", solver="lsqr", max_iter=0).fit(X, y)
    with pytest.raises(HyperparameterError, match="sigma2"):
        R(sigma2=0.0).fit(X, y)
    with pytest.raises(InputError, match="features"):
        R(sigma2=0.3).fit(X, y).predict(np.hstack([X, X]))
    y3 = np.arange(60) % 3
    with pytest.raises(LabelError, match="Only binary classification"):
        C().fit(X, y3)
    with pytest.raises(LabelError):
        C().fit(X, np.zeros(60))
    with pytest.raises(HyperparameterError, match="method='ensemble'"):
        C(method="cv", criterion="roc").fit(X, y3 % 2)
    with pytest.raises(HyperparameterError, match="criterion"):
        C(criterion="auc").fit(X, y3 % 2)
    with pytest.raises(InputError, match="empty"):
        R(method="cv", cv=[np.arange(60), np.array([], dtype=int)]).fit(X, y)
