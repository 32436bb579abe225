"""``to_numpy()`` of the estimators that fit on device arrays (issue 31): the copy predicts NumPy
inputs on the CPU as the device model predicts its own, saves and loads with
:mod:`lssvm_cvx.io` (the exact models and the approximations, whose device feature maps are
records), and leaves the device model as it was."""

from __future__ import annotations

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor, RegularizedLSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.exceptions import InputError, NotFittedError

DEVICE_NS = ["array_api_strict", "torch-cpu", "torch-cuda"]

CASES = {
    "lssvm": (LSSVMRegressor, dict(selection="loo", sigma2_grid=[0.5, 2.0]), False),
    "lssvm_nystroem": (LSSVMRegressor, dict(approximation="nystroem", n_components=30,
                                            random_state=0, selection="loo"), False),
    "lssvm_classifier": (LSSVMClassifier, dict(selection="kfold", cv=4, random_state=0), True),
    "regularized": (RegularizedLSSVMRegressor, dict(selection="loo"), False),
    "regularized_classifier": (RegularizedLSSVMClassifier, {}, True),
}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(80, 3))
    y = np.sin(2 * X.sum(1)) + 0.05 * rng.standard_normal(80)
    return X, y, np.where(y > np.median(y), 5, 2)


@pytest.mark.parametrize("ns", DEVICE_NS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_numpy_copy_predicts_saves_and_loads_as_the_device_model(ns, case, data, tmp_path,
                                                                     to_namespace, to_numpy):
    conv = to_namespace(ns)
    cls, kw, classifier = CASES[case]
    X, y, labels = data
    target = labels if classifier else y
    with lssvm_cvx.array_api_dispatch():
        est = cls(**kw).fit(conv(X), conv(target))
        on_device = est.predict(conv(X[:11]))
    copy = est.to_numpy()
    got = copy.predict(X[:11])
    assert isinstance(got, np.ndarray) and copy.device_ is None
    np.testing.assert_allclose(got, to_numpy(on_device), rtol=0, atol=1e-10)
    if classifier:
        np.testing.assert_allclose(copy.decision_function(X), to_numpy(
            est.decision_function(conv(X))), rtol=0, atol=1e-10)
    path = tmp_path / "model.lssvm"
    lssvm_cvx.io.save(copy, path)
    np.testing.assert_allclose(lssvm_cvx.io.load(path).predict(X[:11]), got, rtol=0, atol=0)
    assert est.device_ is not None                        # the device model is unchanged
    assert est.cv_results_ is None or copy.cv_results_ is not est.cv_results_   # not shared
    assert type(est.predict(conv(X[:2]))) is type(conv(X[:2]))


def test_the_rff_copy_predicts_on_the_cpu_and_saves(data, tmp_path, to_numpy):
    """The device approximations' feature maps are records the files hold (the CPU fit's
    NystroemMap and RandomFourierMap are not: their models refuse to save, as before)."""
    torch = pytest.importorskip("torch")
    X, y, _ = data
    kw = dict(approximation="rff", n_components=30, random_state=0)
    with lssvm_cvx.array_api_dispatch():
        est = LSSVMRegressor(**kw).fit(torch.asarray(X), torch.asarray(y))
    copy = est.to_numpy()
    cpu = LSSVMRegressor(**kw).fit(X, y)
    np.testing.assert_allclose(copy.predict(X), cpu.predict(X), rtol=0, atol=1e-10)
    lssvm_cvx.io.save(copy, tmp_path / "m.lssvm")
    np.testing.assert_array_equal(lssvm_cvx.io.load(tmp_path / "m.lssvm").predict(X),
                                  copy.predict(X))
    with pytest.raises(InputError, match="feature_map_"):
        lssvm_cvx.io.save(cpu, tmp_path / "cpu.lssvm")


def test_a_numpy_fit_comes_back_as_a_copy_and_an_unfitted_model_raises(data):
    X, y, _ = data
    est = LSSVMRegressor().fit(X, y)
    copy = est.to_numpy()
    assert copy is not est and copy.dual_coef_ is not est.dual_coef_
    np.testing.assert_array_equal(copy.predict(X), est.predict(X))
    with pytest.raises(NotFittedError):
        LSSVMRegressor().to_numpy()
