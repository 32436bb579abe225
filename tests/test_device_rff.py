"""Random Fourier features on a device (issue 31, item 2: the approximate paths on device
arrays): :func:`lssvm_cvx.device.rff_loo_path`'s exact LOO residuals against brute-force refits
of the primal ridge without each point, its fit against the CPU path's, and the classifier
with ``approximation="rff"`` on device arrays against the NumPy classifier."""

from __future__ import annotations

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor
from lssvm_cvx.device import FourierFeatures, rff_loo_path
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.kernels.features import RandomFourierMap

DEVICE_NS = ["array_api_strict", "torch-cpu", "torch-cuda"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    X = rng.uniform(-2, 2, (70, 3))
    y = np.cos(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(70)
    return X, y


def _ridge(Phi: np.ndarray, y: np.ndarray, gamma: float) -> tuple[np.ndarray, float]:
    """min ½||θ||² + γ/2 Σ (y - Φθ - b)², b free: the normal equations of [Φ 1] with the bias
    unpenalised (an independent reference: no centring, no eigendecomposition)."""
    A = np.column_stack([Phi, np.ones(len(y))])
    R = np.diag(np.r_[np.full(Phi.shape[1], 1.0 / gamma), 0.0])
    w = np.linalg.solve(A.T @ A + R, A.T @ y)
    return w[:-1], float(w[-1])


@pytest.mark.parametrize("ns", ["numpy", *DEVICE_NS])
def test_the_loo_residuals_equal_brute_force_refits(ns, data, to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    fmap = RandomFourierMap(1.5, X.shape[1], 30, random_state=0)
    gammas = [0.3, 10.0, 1e3]
    path = rff_loo_path(conv(X), conv(y), FourierFeatures.like(fmap, conv(X)), gammas=gammas,
                        block_rows=16)                               # several blocks
    Phi = fmap(X)
    for k, g in enumerate(gammas):
        r = np.empty(len(y))
        for i in range(len(y)):
            keep = np.arange(len(y)) != i
            theta, b = _ridge(Phi[keep], y[keep], g)
            r[i] = y[i] - Phi[i] @ theta - b
        np.testing.assert_allclose(to_numpy(path.scores)[k], np.mean(r * r), rtol=1e-9)
    theta, b = _ridge(Phi, y, path.gamma)
    np.testing.assert_allclose(to_numpy(path.coef), theta, rtol=0, atol=1e-9)
    np.testing.assert_allclose(float(path.intercept), b, rtol=0, atol=1e-9)


@pytest.mark.parametrize("ns", DEVICE_NS)
def test_the_rff_classifier_on_a_device_equals_the_numpy_classifier(ns, data, to_namespace,
                                                                    to_numpy):
    conv = to_namespace(ns)
    X, y = data
    labels = np.where(y > np.median(y), 7, 3)                         # +1 is classes_[1] = 7
    kw = dict(approximation="rff", n_components=40, random_state=2, selection="loo",
              sigma2_grid=[0.5, 2.0], gamma_grid=np.logspace(-1, 3, 5))
    with lssvm_cvx.array_api_dispatch():
        est = LSSVMClassifier(**kw).fit(conv(X), conv(labels))
        got, F = est.predict(conv(X)), est.decision_function(conv(X))
    ref = LSSVMClassifier(**kw).fit(X, labels)
    assert est.best_params_ == ref.best_params_ and est.approximation_ == "rff"
    np.testing.assert_allclose(to_numpy(F), ref.decision_function(X), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(to_numpy(got), ref.predict(X))


def test_bad_input_is_a_one_line_error(data):
    X, y = data
    fm = FourierFeatures.like(RandomFourierMap(1.0, 3, 10, random_state=0), X)
    with pytest.raises(InputError, match="3 columns"):
        rff_loo_path(X[:, :2], y, fm, gammas=[1.0])
    with pytest.raises(InputError, match="finite"):
        rff_loo_path(np.where(X > 1.9, np.nan, X), y, fm, gammas=[1.0])
    with pytest.raises(HyperparameterError):
        rff_loo_path(X, y, fm, gammas=[])
    torch = pytest.importorskip("torch")
    with lssvm_cvx.array_api_dispatch(), pytest.raises(HyperparameterError, match="not k-fold"):
        LSSVMRegressor(approximation="rff", selection="kfold").fit(torch.asarray(X),
                                                                   torch.asarray(y))


@pytest.mark.parametrize("approximation", ["nystroem", "rff"])
def test_float32_approximate_models_predict_in_float32(approximation, data):
    """The approximate paths keep the inputs' dtype: their coefficients were float64 for
    float32 inputs, and the Nyström model's predict failed in PyTorch (a float32 Gram times a
    float64 vector) before the two paths shared one streamed solver
    (:func:`lssvm_cvx.device.streamed.ridge_loo_path` now)."""
    torch = pytest.importorskip("torch")
    X, y = data
    X32, y32 = torch.asarray(X, dtype=torch.float32), torch.asarray(y, dtype=torch.float32)
    kw = dict(approximation=approximation, n_components=30, random_state=0, selection="loo")
    with lssvm_cvx.array_api_dispatch():
        est = LSSVMRegressor(**kw).fit(X32, y32)
        pred = est.predict(X32[:9])
    ref = LSSVMRegressor(**kw).fit(X, y)
    assert pred.dtype == torch.float32
    np.testing.assert_allclose(pred.numpy(), ref.predict(X[:9]), rtol=0, atol=1e-3)
