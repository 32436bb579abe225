"""ParetoKernelRidge / ParetoKernelPCR: scikit-learn conformance, fitted attributes, and the
bad-input battery (degree < 1, r outside (0, 1], s <= 0, unknown method/kernel/complexity)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from lssvm_cvx import ParetoKernelPCR, ParetoKernelRidge
from lssvm_cvx.exceptions import HyperparameterError, InputError


@parametrize_with_checks([ParetoKernelRidge(), ParetoKernelPCR()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = np.sinc(X[:, 0]) + 0.5 * X[:, 1] + 0.05 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("cls", [ParetoKernelRidge, ParetoKernelPCR])
@pytest.mark.parametrize("method", ["modified_eps", "eps", "cv", "gcv"])
def test_methods_fit_and_attributes(cls, method):
    X, y = data()
    est = cls(method=method).fit(X, y)
    assert est.sigma2_ > 0 and est.degree_ is None
    if cls is ParetoKernelRidge:
        assert 1e-5 * (1 - 1e-9) <= est.lambda_ <= 1e4 * (1 + 1e-9)
    else:
        assert 0.8 - 1e-9 <= est.r_ <= 1.0 and est.n_components_ >= 1
    assert np.isfinite(est.E_f_) and np.isfinite(est.E_c_)
    if method in ("modified_eps", "eps"):
        fr = est.front_
        assert len(fr["E_f"]) == est.n_eps and 0 <= fr["index"] < est.n_eps
        assert fr["E_f"][fr["index"]] == pytest.approx(est.E_f_, rel=1e-9)
    assert est.score(X, y) > 0.5


def test_poly_degree_enumeration_and_l2():
    X, y = data()
    est = ParetoKernelRidge(kernel="poly", degrees=(1, 2, 3), complexity="l2").fit(X, y)
    assert est.degree_ in (1, 2, 3) and est.sigma2_ is None
    assert est.score(X, y) > 0.3


def test_fixed_hyperparameters_match_krr():
    from sklearn.kernel_ridge import KernelRidge

    X, y = data()
    est = ParetoKernelRidge(method=None, sigma2=2.0, lam=0.1).fit(X, y)
    Z = (X - X.mean(0)) / X.std(0)
    ref = KernelRidge(alpha=0.1, kernel="rbf", gamma=1 / 2.0).fit(Z, (y - y.mean()) / y.std())
    assert np.allclose(est.predict(X), ref.predict(Z) * y.std() + y.mean(), atol=1e-8)


@pytest.mark.parametrize("kw", [dict(kernel="poly", degree=0, method=None),
                                dict(kernel="poly", degree=-2, method=None),
                                dict(kernel="poly", degrees=(0, 1)), dict(s=0.0), dict(s=-1.0),
                                dict(method="bogus"), dict(kernel="linear"), dict(complexity="l1"),
                                dict(method=None, lam=0.0)])
def test_bad_input_ridge(kw):
    X, y = data(20)
    with pytest.raises(HyperparameterError):
        ParetoKernelRidge(**kw).fit(X, y)


@pytest.mark.parametrize("r", [0.0, -0.5, 1.2, np.nan])
def test_bad_r(r):
    X, y = data(20)
    with pytest.raises(HyperparameterError, match=r"'r' parameter of ParetoKernelPCR .* range \(0.0, 1.0\]"):
        ParetoKernelPCR(method=None, r=r).fit(X, y)


def test_bad_data():
    X, y = data(20)
    X[0, 0] = np.nan
    with pytest.raises(InputError):
        ParetoKernelRidge().fit(X, y)


@pytest.mark.parametrize("cls", [ParetoKernelRidge, ParetoKernelPCR])
@pytest.mark.parametrize("method", ["modified_eps", "product", "gcv"])
def test_save_load_round_trip(cls, method, tmp_path):
    """The fitted Selection record (a dataclass) and the front survive save/load without
    pickle; the loaded model predicts bit for bit."""
    import lssvm_cvx

    X, y = data()
    est = cls(method=method, n_eps=3).fit(X, y)
    est.save(tmp_path / "m.npz")
    back = lssvm_cvx.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert type(back.selection_) is type(est.selection_)
    assert back.selection_.method == est.selection_.method
