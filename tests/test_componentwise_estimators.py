"""ComponentwiseLSSVMRegressor / ComponentwiseLSSVMClassifier: scikit-learn contract, component
access, plotting, and the bad-input battery of the issue."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from lssvm_cvx import problems
from lssvm_cvx import ComponentwiseLSSVMClassifier, ComponentwiseLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError, LabelError, NotFittedError
from lssvm_cvx.formulations.componentwise import ComponentwiseLSSVMClassification
from lssvm_cvx.kernels import RBF, Componentwise


@parametrize_with_checks([
    ComponentwiseLSSVMRegressor(),
    ComponentwiseLSSVMClassifier(),
    ComponentwiseLSSVMRegressor(penalty="stp", sigma2=1.0, lam=1.0),
    ComponentwiseLSSVMClassifier(penalty="stp", lam=0.05, gnc_start="l1"),
    ComponentwiseLSSVMRegressor(penalty="fusion_eta", random_state=0),
])
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks([
    ComponentwiseLSSVMRegressor(penalty="l1", sigma2=1.0, xi=1.0),
    ComponentwiseLSSVMRegressor(penalty="fusion_areg", xi=10.0, random_state=0),
])
def test_sklearn_contract_qp_penalties(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def additive():
    return problems.get_problem("additive10", n_train=100, n_test=60, seed=3)


@pytest.mark.parametrize("penalty,kw", [(None, {"gamma": 50.0}), ("l1", {"xi": 0.3}),
                                        ("stp", {"lam": 1.0, "gnc_start": "l1"}),
                                        ("fusion_areg", {"xi": 0.3}),
                                        ("fusion_eta", {"gamma": 50.0})])
def test_components_sum_to_prediction(additive, penalty, kw):
    ds = additive
    est = ComponentwiseLSSVMRegressor(sigma2=1.0, penalty=penalty, random_state=0, **kw).fit(ds.X, ds.y)
    F = est.predict_components(ds.X_test)
    assert F.shape == (len(ds.X_test), 10)
    np.testing.assert_allclose(F.sum(1) + est.intercept_, est.predict(ds.X_test), atol=1e-10)
    off = np.setdiff1d(np.arange(10), est.selected_components_)
    assert np.all(F[:, off] == 0)
    np.testing.assert_allclose(est.predict_components(ds.X_test, [2, 0]), F[:, [2, 0]])
    if penalty is not None:
        # the relevant inputs x1..x4 are always kept
        assert set(range(4)) <= set(est.selected_components_.tolist())


@pytest.mark.parametrize("penalty,kw", [(None, {"gamma": 50.0}), ("stp", {"lam": 1.0, "gnc_start": "l1"}),
                                        ("stp", {"lam": 1.0, "kernel": ["rbf", "linear"]})])
def test_save_load_round_trip(additive, penalty, kw, tmp_path):
    import lssvm_cvx

    ds = additive
    est = ComponentwiseLSSVMRegressor(sigma2=1.0, penalty=penalty, **kw).fit(ds.X, ds.y)
    est.save(tmp_path / "m.npz")
    back = lssvm_cvx.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.predict(ds.X_test), est.predict(ds.X_test))
    np.testing.assert_array_equal(back.selected_components_, est.selected_components_)
    assert back.get_params() == est.get_params()


def test_stp_detects_structure_with_mixed_candidates(additive):
    ds = additive
    est = ComponentwiseLSSVMRegressor(kernel=["rbf", "linear"], sigma2=1.0, penalty="stp", lam=1.0,
                                      gnc_start="l1").fit(ds.X, ds.y)
    labels = est.selected_labels()
    assert {c[0] for c, _ in labels} == {0, 1, 2, 3}
    assert len(est.component_labels_) == 20
    assert est.history_ and est.score(ds.X_test, ds.y_test) > 0.9


def test_classifier_equals_componentwise_classification(additive):
    ds = additive
    lab = np.where(ds.y > np.median(ds.y), "hi", "lo")
    est = ComponentwiseLSSVMClassifier(sigma2=1.0, gamma=3.0).fit(ds.X, lab)
    f = ComponentwiseLSSVMClassification(ds.X, lab, kernel=Componentwise(RBF(1.0)), gamma=3.0)
    sol = f.solve()
    np.testing.assert_allclose(est.decision_function(ds.X_test), f.decision_function(sol, ds.X_test),
                               atol=1e-10)
    assert set(est.predict(ds.X_test)) <= {"hi", "lo"}
    F = est.predict_components(ds.X_test)
    np.testing.assert_allclose(F.sum(1) + est.intercept_, est.decision_function(ds.X_test), atol=1e-10)
    sparse = ComponentwiseLSSVMClassifier(sigma2=1.0, penalty="stp", lam=0.2, gnc_start="l1").fit(ds.X, lab)
    assert 0 < len(sparse.selected_components_) < 10
    assert sparse.score(ds.X_test, np.where(ds.y_test > np.median(ds.y), "hi", "lo")) > 0.75


def test_plot_components(additive):
    import matplotlib

    matplotlib.use("Agg")
    ds = additive
    est = ComponentwiseLSSVMRegressor(sigma2=1.0, penalty="l1", xi=0.3).fit(ds.X, ds.y)
    fig = est.plot_components(feature_names=ds.feature_names)
    visible = [a for a in fig.axes if a.get_visible()]
    assert len(visible) == len(est.selected_components_)
    assert visible[0].lines and "x1" in visible[0].get_title()
    fig2 = est.plot_components([0, 9])
    assert len([a for a in fig2.axes if a.get_visible()]) == 2
    with pytest.raises(InputError, match="out of range"):
        est.plot_components([10])


def test_bad_inputs(additive):
    ds = additive
    X, y = ds.X, ds.y
    with pytest.raises(InputError, match="1 feature"):
        ComponentwiseLSSVMRegressor(penalty="stp", lam=1.0).fit(X[:, :1], y)
    ComponentwiseLSSVMRegressor().fit(X[:, :1], y)          # one column is fine without selection
    Xc = X.copy()
    Xc[:, 5] = 1.0
    with pytest.raises(InputError, match="constant"):
        ComponentwiseLSSVMRegressor().fit(Xc, y)
    est = ComponentwiseLSSVMRegressor(sigma2=1.0).fit(X, y)
    with pytest.raises(InputError, match="out of range"):
        est.predict_components(ds.X_test, [10])
    with pytest.raises(InputError, match="out of range"):
        est.predict_components(ds.X_test, [-1])
    with pytest.raises(InputError, match="out of range"):
        ComponentwiseLSSVMRegressor(kernel=Componentwise(RBF(), columns=[0, 11])).fit(X, y)
    for kw in ({"penalty": "l1", "xi": 0.0}, {"penalty": "fusion_areg", "xi": -1.0},
               {"penalty": "stp", "a": 0.0}, {"penalty": "stp", "a": -3.7},
               {"penalty": "stp", "lam": 0.0}, {"penalty": None, "gamma": 0.0},
               {"penalty": "lasso"}, {"penalty": "fusion_eta", "validation_fraction": 1.5},
               {"sigma2": -1.0}):
        with pytest.raises(HyperparameterError):
            ComponentwiseLSSVMRegressor(**kw).fit(X, y)
    with pytest.raises(InputError):
        ComponentwiseLSSVMRegressor(kernel="precomputed").fit(X, y)
    with pytest.raises(HyperparameterError, match="precomputed"):
        ComponentwiseLSSVMRegressor(kernel="precomputed").fit(X[:60, :60] @ X[:60, :60].T, y[:60])
    with pytest.raises(LabelError, match="Only binary"):
        ComponentwiseLSSVMClassifier().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(NotFittedError):
        ComponentwiseLSSVMRegressor().predict_components(X)
    with pytest.raises(InputError):
        est.predict(ds.X_test[:, :4])
