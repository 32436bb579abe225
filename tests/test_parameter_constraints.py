"""scikit-learn's constraint language on the estimators (issue 30, item 5): every estimator
that declares ``_parameter_constraints`` passes scikit-learn's own ``check_param_validation``
(a constraint for each constructor parameter, an informative error for a bad type and for a bad
value of each), the error is the package's ``HyperparameterError``, and the estimators still
without constraints are listed here, a ratchet to burn down."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import check_param_validation

import lssvm_cvx
from lssvm_cvx.estimators import params as params_module
from lssvm_cvx.exceptions import HyperparameterError, ParameterConstraintError

ESTIMATORS = sorted(n for n in lssvm_cvx.__all__
                    if inspect.isclass(getattr(lssvm_cvx, n))
                    and issubclass(getattr(lssvm_cvx, n), BaseEstimator))
#: estimators whose parameters are still checked by hand only (the ratchet: remove a name when
#: its estimator declares ``_parameter_constraints``; never add one)
PENDING: frozenset[str] = frozenset()


def _declares(name: str) -> bool:
    return any("_parameter_constraints" in vars(c) for c in getattr(lssvm_cvx, name).__mro__
               if c.__module__.startswith("lssvm_cvx"))


def test_the_pending_list_is_exactly_the_estimators_without_constraints():
    assert len(ESTIMATORS) == 13
    assert {n for n in ESTIMATORS if not _declares(n)} == PENDING


@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n not in PENDING])
def test_scikit_learns_param_validation(name):
    est = getattr(lssvm_cvx, name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_param_validation(name, est)


@pytest.mark.parametrize("name, params", [
    ("ParetoKernelRidge", dict(n_eps=0)),          # was NumPy's "need at least one array"
    ("ParetoKernelRidge", dict(n_eps=1.5)),        # was accepted
    ("ParetoKernelRidge", dict(nlp_maxiter=0)),    # was accepted
    ("ParetoKernelRidge", dict(random_state="x")),  # was int()'s ValueError
    ("ParetoKernelPCR", dict(cv=None)),
    ("AdditiveRegularizationRegressor", dict(refit="yes")),        # was accepted
    ("AdditiveRegularizationRegressor", dict(random_state="x")),   # was train_test_split's
    ("AdditiveRegularizationClassifier", dict(criterion="auc")),
    ("LSSVMRegressor", dict(n_loo=1)),
    ("AdditiveRegularizationRegressor", dict(mu=float("inf"), method="cv", solver="tikhonov")),
    ("LSSVMClassifier", dict(multi_class="ova")),
    ("RegularizedLSSVMRegressor", dict(cv=None, selection="kfold")),
    ("RegularizedLSSVMRegressor", dict(accept_inaccurate="no")),    # was accepted
    ("AutoLSSVMRegressor", dict(progress="yes")),                  # was accepted
    ("AutoLSSVMRegressor", dict(mu=-1.0)),
    ("AutoLSSVMClassifier", dict(gamma=0.0)),                      # the deprecated spelling too
    ("AutoLSSVMClassifier", dict(n_loo=2.5)),
    ("L2SVMClassifier", dict(criterion="gacv")),
    ("L2SVMClassifier", dict(path="yes")),                         # was accepted
    ("L2SVMClassifier", dict(n_landmarks=0)),                      # was make_factor's error
    ("L2SVMClassifier", dict(lam_min=-1.0)),                       # was the path's error
])
def test_a_bad_parameter_is_the_packages_error_naming_it(name, params):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    key = next(iter(params))
    with pytest.raises(HyperparameterError, match=f"'{key}' parameter of {name}") as e:
        getattr(lssvm_cvx, name)(**params).fit(X, y)
    assert isinstance(e.value, ParameterConstraintError) and "\n" not in str(e.value)
    assert params_module.ParameterConstraintError is ParameterConstraintError  # one class
