"""``LSSVMRegressor`` / ``LSSVMClassifier`` on device arrays (issue 31, item 2): the fit, the
exact (γ, σ²) LOO search and ``predict`` stay in the inputs' namespace and equal the NumPy
estimators (the same ``best_params_``, ``cv_results_`` scores to 1e-9, predictions to 1e-10);
unsupported options and CPU-only estimators given arrays off the CPU are one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import ComponentwiseLSSVMRegressor, LSSVMClassifier, LSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError, InputTypeError

DEVICE_NS = ["array_api_strict", "torch-cpu", "torch-cuda"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (90, 2))
    y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(90)
    return X, y


@pytest.mark.parametrize("ns", DEVICE_NS)
@pytest.mark.parametrize("approximation, selection", [
    (None, "loo"), ("nystroem", "loo"), ("rff", "loo"), ("nystroem", "gcv"), ("rff", "gcv")])
def test_the_regressor_on_a_device_equals_the_numpy_regressor(ns, approximation, selection, data,
                                                              to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    kw = dict(selection=selection, sigma2_grid=[0.5, 2.0], gamma_grid=np.logspace(-1, 3, 5),
              search="grid", approximation=approximation, n_components=25, random_state=0)
    with lssvm_cvx.array_api_dispatch():
        est = LSSVMRegressor(**kw).fit(conv(X), conv(y))
        pred = est.predict(conv(X[:7]))
    ref = LSSVMRegressor(**kw).fit(X, y)
    assert type(pred) is type(conv(X))                              # stays in the namespace
    assert est.best_params_ == ref.best_params_
    assert est.cv_results_["criterion"] == ref.cv_results_["criterion"]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-9)
    np.testing.assert_allclose(to_numpy(pred), ref.predict(X[:7]), rtol=0, atol=1e-10)


@pytest.mark.parametrize("ns", DEVICE_NS)
def test_the_binary_classifier_on_a_device_equals_the_numpy_classifier(ns, data, to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    labels = (y > 0).astype(np.int64) * 3 + 2                       # classes 2 and 5
    kw = dict(selection="loo", sigma2_grid=[0.5, 2.0], search="grid")
    with lssvm_cvx.array_api_dispatch():
        est = LSSVMClassifier(**kw).fit(conv(X), conv(labels))
        got = est.predict(conv(X))
    ref = LSSVMClassifier(**kw).fit(X, labels)
    assert est.best_params_ == ref.best_params_
    np.testing.assert_array_equal(to_numpy(got), ref.predict(X))
    np.testing.assert_allclose(to_numpy(est.decision_function(conv(X))), ref.decision_function(X),
                               rtol=0, atol=1e-10)


@pytest.mark.parametrize("ns", DEVICE_NS)
@pytest.mark.parametrize("classify", [False, True])
def test_the_kfold_search_on_a_device_equals_the_numpy_estimator(ns, classify, data,
                                                                to_namespace, to_numpy):
    """The CPU path's folds (shuffled; stratified for the classifier) and split scores: the
    same ``cv_results_`` scores (to 1e-9), ``best_params_`` and predictions."""
    conv = to_namespace(ns)
    X, y = data
    C = LSSVMClassifier if classify else LSSVMRegressor
    yy = (y > 0).astype(np.int64) * 3 + 2 if classify else y
    kw = dict(selection="kfold", cv=5, random_state=2, sigma2_grid=[0.5, 2.0],
              gamma_grid=np.logspace(-1, 5, 7), search="grid")
    with lssvm_cvx.array_api_dispatch():
        est = C(**kw).fit(conv(X), conv(yy))
        got = est.decision_function(conv(X[:9])) if classify else est.predict(conv(X[:9]))
    ref = C(**kw).fit(X, yy)
    assert est.best_params_ == ref.best_params_
    assert est.cv_results_["params"] == ref.cv_results_["params"]
    for k in ["mean_test_score"] + [f"split{i}_test_score" for i in range(5)]:
        np.testing.assert_allclose(est.cv_results_[k], ref.cv_results_[k], rtol=1e-9, atol=1e-12)
    want = ref.decision_function(X[:9]) if classify else ref.predict(X[:9])
    np.testing.assert_allclose(to_numpy(got), want, rtol=0, atol=1e-9)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu"])
@pytest.mark.parametrize("classify, kw", [
    (False, dict(selection="kfold", scoring="neg_mean_absolute_error")),
    (False, dict(selection="kfold", scoring="r2")),
    (False, dict(selection="loo", scoring="neg_mean_absolute_error")),
    (True, dict(selection="loo", selection_score="misclassification")),
    (True, dict(selection="kfold", scoring="balanced_accuracy")),
    (False, dict(selection="gcv")),
    (True, dict(selection="gcv")),
])
def test_the_exact_device_path_is_the_composed_one_and_scores_as_the_cpu(ns, classify, kw, data,
                                                                         to_namespace, to_numpy):
    """The exact LS-SVM on a device is the preset of the composed estimator's device path, so
    a scoring of one's own (refused before) or the classifier's misclassification criterion
    scores as on the CPU: the same grid view, ``best_params_`` and model."""
    conv = to_namespace(ns)
    X, y = data
    C = LSSVMClassifier if classify else LSSVMRegressor
    yy = (y > 0).astype(np.int64) * 3 + 2 if classify else y
    kw = dict(kw, cv=5, random_state=2, sigma2_grid=[0.5, 2.0], gamma_grid=np.logspace(-1, 4, 6),
              search="grid")
    with lssvm_cvx.array_api_dispatch():
        est = C(**kw).fit(conv(X), conv(yy))
        got = est.decision_function(conv(X[:9])) if classify else est.predict(conv(X[:9]))
    ref = C(**kw).fit(X, yy)
    assert est.best_params_ == ref.best_params_ and est.gamma_ == ref.gamma_
    np.testing.assert_allclose(est.cv_results_["scores"], ref.cv_results_["scores"], rtol=1e-9,
                               atol=1e-12)
    assert est.cv_results_["criterion"] == ref.cv_results_["criterion"]
    want = ref.decision_function(X[:9]) if classify else ref.predict(X[:9])
    np.testing.assert_allclose(to_numpy(got), want, rtol=0, atol=1e-9)


def test_a_cpu_tensor_without_the_switch_is_converted_to_numpy_as_before(data):
    torch = pytest.importorskip("torch")
    X, y = data
    est = LSSVMRegressor(gamma=10.0, sigma2=1.0).fit(torch.asarray(X), torch.asarray(y))
    assert getattr(est, "device_", None) is None
    assert isinstance(est.predict(torch.asarray(X[:3])), np.ndarray)
    with lssvm_cvx.array_api_dispatch():                             # a device fit ...
        est.fit(torch.asarray(X), torch.asarray(y))
    assert est.device_ == "cpu"
    est.fit(X, y)                                                    # ... then a NumPy refit
    assert est.device_ is None and isinstance(est.predict(X[:3]), np.ndarray)


@pytest.mark.parametrize("kw, match", [
    (dict(kernel="linear"), "kernel must be 'rbf'"),
    (dict(selection="kfold", approximation="nystroem"), "not k-fold"),
    (dict(selection="kfold", approximation="rff"), "not k-fold"),
    (dict(selection="loo", approximation="rff", scoring="r2"), "mean squared LOO residual only"),
])
def test_unsupported_options_on_a_device_are_one_line_errors(kw, match, data):
    torch = pytest.importorskip("torch")
    X, y = data
    with lssvm_cvx.array_api_dispatch(), pytest.raises(HyperparameterError, match=match) as e:
        LSSVMRegressor(**kw).fit(torch.asarray(X), torch.asarray(y))
    assert "\n" not in str(e.value) and "X.cpu().numpy()" in str(e.value)


def test_the_device_path_checks_the_widths_and_searches_only_when_asked_as_the_cpu_path(data, to_numpy):
    """``sigma2_grid`` goes through the CPU path's checks; ``selection=None`` fits the given
    (γ, σ²) without scoring a grid (``cv_results_`` None on both paths)."""
    torch = pytest.importorskip("torch")
    X, y = data
    t = torch.asarray
    with lssvm_cvx.array_api_dispatch():
        for grid in ("median", [1.0, -2.0]):
            with pytest.raises(HyperparameterError, match="sigma2_grid"):
                LSSVMRegressor(selection="loo", sigma2_grid=grid).fit(t(X), t(y))
        est = LSSVMRegressor(gamma=10.0, sigma2=2.0).fit(t(X), t(y))
    ref = LSSVMRegressor(gamma=10.0, sigma2=2.0).fit(X, y)
    assert est.cv_results_ is None and ref.cv_results_ is None
    assert (est.gamma_, est.sigma2_) == (ref.gamma_, ref.sigma2_)
    np.testing.assert_allclose(to_numpy(est.predict(t(X[:5]))), ref.predict(X[:5]), rtol=0, atol=1e-10)


def test_weights_multiclass_and_shapes_on_a_device_are_one_line_errors(data):
    torch = pytest.importorskip("torch")
    X, y = data
    t = torch.asarray
    with lssvm_cvx.array_api_dispatch():
        with pytest.raises(InputError, match="sample_weight"):
            LSSVMRegressor().fit(t(X), t(y), sample_weight=np.ones(len(y)))
        with pytest.raises(InputError, match="binary, got 3 classes"):
            LSSVMClassifier().fit(t(X), t(np.arange(len(y)) % 3))
        with pytest.raises(InputError, match="X must be"):
            LSSVMRegressor().fit(t(X[:, 0]), t(y))
        est = LSSVMRegressor().fit(t(X), t(y))
        with pytest.raises(InputError, match=r"X must be \(n, 2\)"):
            est.predict(t(X[:, :1]))
        with pytest.raises(InputTypeError, match="one library"):
            est.predict(X)                                           # NumPy into a torch model


def test_a_cpu_only_estimator_given_an_array_off_the_cpu_says_so_in_one_line(data):
    """PyTorch's ``meta`` device stands for a GPU here: not the CPU, not convertible."""
    torch = pytest.importorskip("torch")
    X, y = data
    Xm, ym = torch.empty(X.shape, device="meta"), torch.empty(y.shape, device="meta")
    with pytest.raises(InputTypeError, match="computes on the CPU .* on meta") as e:
        ComponentwiseLSSVMRegressor().fit(Xm, ym)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("ns", DEVICE_NS)
@pytest.mark.parametrize("approximation", ["nystroem", "rff"])
@pytest.mark.parametrize("classify", [False, True])
def test_the_approximations_on_a_device_are_the_cpu_fit(ns, approximation, classify, data,
                                                        to_namespace, to_numpy, monkeypatch):
    """One approximate LS-SVM path (issue 30): on device arrays the estimator runs the CPU
    path's search (``search_approximate``, the feature maps on the device), so it equals the CPU
    fit where the old device path differed: the exact LOO on a subsample of ``n_loo`` rows, and
    the width chosen on ``sigma2_subsample`` rows before the γ path on every row (the old device
    path scored every row and had no width stage).  The fitted model is the CPU path's
    (``coef_``, ``feature_map_``, ``loo_rows_``, ``loo_residuals_``) on the device."""
    import lssvm_cvx.estimators.lssvm_approx as approx

    calls = []
    search = approx.search_approximate
    monkeypatch.setattr(approx, "search_approximate",
                        lambda *a, **k: calls.append(k.get("features")) or search(*a, **k))
    import lssvm_cvx.estimators.lssvm_device as dev
    monkeypatch.setattr(dev, "search_approximate", approx.search_approximate)
    conv = to_namespace(ns)
    X, y = data
    C = LSSVMClassifier if classify else LSSVMRegressor
    yy = (y > 0).astype(np.int64) * 3 + 2 if classify else y
    kw = dict(approximation=approximation, selection="loo", n_components=20, random_state=0,
              n_loo=40, sigma2_subsample=50, sigma2_grid=[0.5, 2.0, 8.0],
              gamma_grid=np.logspace(-1, 3, 5))
    with lssvm_cvx.array_api_dispatch():
        est = C(**kw).fit(conv(X), conv(yy))
        got = est.decision_function(conv(X[:9])) if classify else est.predict(conv(X[:9]))
    ref = C(**kw).fit(X, yy)
    assert calls and calls[0] is dev.device_features
    assert est.best_params_ == ref.best_params_
    assert est.cv_results_["sigma2_subsample_rows"] == ref.cv_results_["sigma2_subsample_rows"] == 50
    np.testing.assert_allclose(est.cv_results_["sigma2_stage"]["mean_test_score"],
                               ref.cv_results_["sigma2_stage"]["mean_test_score"], rtol=1e-9)
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-9)
    np.testing.assert_array_equal(est.loo_rows_, ref.loo_rows_)
    np.testing.assert_allclose(to_numpy(est.loo_residuals_), ref.loo_residuals_, rtol=0, atol=1e-9)
    want = ref.decision_function(X[:9]) if classify else ref.predict(X[:9])
    np.testing.assert_allclose(to_numpy(got), want, rtol=0, atol=1e-9)
    assert est.approximation_ == approximation and est.X_fit_ is None
