"""No silent NaN (issue 27, item 5): a fit whose model is not finite raises NumericalError
naming the likely cause and leaves nothing fitted; inputs double precision cannot square are
refused naming the argument; linear-algebra failures inside a fit become NumericalError."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx.estimators.base import check_finite_model
from lssvm_cvx.exceptions import InputError, NotFittedError, NumericalError

rng = np.random.default_rng(7)
X = rng.normal(size=(30, 2))
y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=30)
yc = np.where(X[:, 0] + 0.2 * X[:, 1] > 0, 1, -1)

REGRESSORS = ["LSSVMRegressor", "AdditiveRegularizationRegressor", "ComponentwiseLSSVMRegressor",
              "ParetoKernelRidge", "ParetoKernelPCR", "AutoLSSVMRegressor",
              "RegularizedLSSVMRegressor"]
CLASSIFIERS = ["LSSVMClassifier", "AdditiveRegularizationClassifier", "L2SVMClassifier",
               "ComponentwiseLSSVMClassifier", "AutoLSSVMClassifier",
               "RegularizedLSSVMClassifier"]


def _fit(name, XX, yy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lssvm_cvx, name)().fit(XX, yy)


@pytest.mark.parametrize("name", ["AutoLSSVMRegressor", "ParetoKernelRidge", "ParetoKernelPCR",
                                  "AdditiveRegularizationRegressor"])
def test_targets_too_large_to_square_raise_numerical_error(name):
    """The issue's cases: these predicted NaN with only a RuntimeWarning (or raised NumPy's
    LinAlgError) on y × 1e300."""
    est = getattr(lssvm_cvx, name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = f"{np.abs(y * 1e300).max():.3g}".replace("+", r"\+")
        with pytest.raises(NumericalError, match=rf"max \|y\| = {big}\).*rescale y"):
            est.fit(X, y * 1e300)
    with pytest.raises(NotFittedError):  # nothing half-fitted is left to predict or save
        est.predict(X)


@pytest.mark.parametrize("name", REGRESSORS)
def test_every_regressor_is_finite_or_refuses(name):
    """Every regressor on y × 1e300: finite predictions (models linear in y never square it)
    or NumericalError naming y — never NaN."""
    try:
        est = _fit(name, X, y * 1e300)
    except NumericalError as exc:
        assert "y" in str(exc)
        return
    assert np.all(np.isfinite(est.predict(X)))


@pytest.mark.parametrize("name", REGRESSORS + CLASSIFIERS)
def test_inputs_too_large_for_a_kernel_are_refused_naming_x(name):
    yy = y if name in REGRESSORS else yc
    with pytest.raises(InputError, match=r"^X has entries as large as 1(\.\d+)?e\+300"):
        _fit(name, X * 1e300 / np.abs(X).max(), yy)
    est = _fit(name, X, yy)
    with pytest.raises(InputError, match=r"^X has entries"):
        est.predict(X * 1e300)


def test_the_limit_is_where_squares_overflow():
    """Just below the limit a fit is finite; the limit itself is where ``4 d max|x|²`` reaches
    the largest double (so squared distances cannot overflow)."""
    from lssvm_cvx.estimators.base import check_scale

    d = X.shape[1]
    limit = np.sqrt(np.finfo(float).max / (4 * d))
    Z = X / np.abs(X).max() * limit * 0.99
    check_scale(Z)
    diff = (Z[:, None, :] - Z[None, :, :]) ** 2
    assert np.all(np.isfinite(diff.sum(-1)))
    with pytest.raises(InputError):
        check_scale(X / np.abs(X).max() * limit * 1.01)


class NaNIntercept(lssvm_cvx.LSSVMRegressor):
    """A user's subclass whose fit breaks the model: the check applies to it too."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight=sample_weight)
        self.calls = getattr(self, "calls", 0)
        self.intercept_ = np.nan * np.asarray(self.intercept_)
        return self


def test_user_subclass_with_nan_model_raises():
    est = NaNIntercept()
    with pytest.raises(NumericalError, match="NaNIntercept.fit produced a model whose predict"):
        est.fit(X, y)
    assert not hasattr(est, "intercept_")


def test_probe_runs_once_for_a_subclass_calling_super_fit(monkeypatch):
    """The outermost fit is checked; the ``super().fit`` inside it is not checked again."""
    calls = []

    class Counting(lssvm_cvx.LSSVMRegressor):
        def fit(self, X, y, sample_weight=None):
            return super().fit(X, y, sample_weight=sample_weight)

        def predict(self, X):
            calls.append(len(X))
            return super().predict(X)

    Counting().fit(X, y)
    assert calls == [2]


def test_check_finite_model_names_the_method():
    est = lssvm_cvx.LSSVMClassifier().fit(X, yc)
    check_finite_model(est, X, yc)  # finite: nothing raised
    est.intercept_ = np.nan
    with pytest.raises(NumericalError, match="decision_function values are not finite"):
        check_finite_model(est, X, yc)
