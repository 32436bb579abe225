"""Bad input gets a clear exception from the package's hierarchy (foundation issue, item 9)."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor
from lssvm_cvx.exceptions import (ConditioningWarning, HyperparameterError, InputError, LabelError,
                                  LssvmCvxError, NotFittedError, NotPSDError, SolverError,
                                  SolverNotAvailableError)
from lssvm_cvx.formulations import LSSVM, LSSVMClassification
from lssvm_cvx.kernels import RBF
from lssvm_cvx.model_selection import loo_residuals
from lssvm_cvx.solvers import solve_problem
from lssvm_cvx.validate import compare

X = np.random.default_rng(0).normal(size=(20, 3))
y = X[:, 0] + 0.1
labels = np.where(X[:, 1] > 0, 1, 0)


def test_hierarchy():
    for exc in (InputError, LabelError, HyperparameterError, NotPSDError):
        assert issubclass(exc, LssvmCvxError) and issubclass(exc, ValueError)
    assert issubclass(SolverError, RuntimeError) and issubclass(SolverError, LssvmCvxError)


@pytest.mark.parametrize("Est,target", [(LSSVMRegressor, y), (LSSVMClassifier, labels)])
@pytest.mark.parametrize("bad,match", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_non_finite_inputs(Est, target, bad, match):
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(InputError, match=match):
        Est().fit(Xb, target)
    with pytest.raises(InputError, match=match):
        Est().fit(X, target).predict(Xb)


def test_non_finite_targets_and_formulation_inputs():
    yb = y.copy()
    yb[0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        LSSVMRegressor().fit(X, yb)
    with pytest.raises(InputError, match="NaN"):
        LSSVM(X, yb).solve()
    Xb = X.copy()
    Xb[0, 0] = np.inf
    with pytest.raises(InputError, match="infinity"):
        LSSVM(Xb, y).solve()


@pytest.mark.parametrize("Est,target", [(LSSVMRegressor, y), (LSSVMClassifier, labels)])
def test_empty_and_one_sample(Est, target):
    with pytest.raises(InputError, match="0 sample"):
        Est().fit(X[:0], target[:0])
    with pytest.raises(InputError, match="1 sample"):
        Est().fit(X[:1], target[:1])
    with pytest.raises(InputError, match="1 sample"):
        LSSVM(X[:1], y[:1]).solve()


def test_class_counts():
    with pytest.raises(LabelError, match="1 class"):
        LSSVMClassifier().fit(X, np.ones(20))
    with pytest.raises(LabelError, match="1 class"):
        LSSVMClassification(X, np.ones(20)).solve()
    with pytest.raises(LabelError, match="3 classes"):
        LSSVMClassification(X, np.arange(20) % 3).solve()
    with pytest.raises(LabelError, match="Unknown label type"):
        LSSVMClassifier().fit(X, y)  # continuous targets


def test_shape_mismatch():
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        LSSVMRegressor().fit(X, y[:-1])
    with pytest.raises(InputError, match="entries"):
        LSSVM(X, y[:-1]).solve()
    m = LSSVMRegressor().fit(X, y)
    with pytest.raises(InputError, match="features"):
        m.predict(X[:, :2])


@pytest.mark.parametrize("gamma", [0.0, -1.0, np.nan, "big"])
def test_bad_gamma(gamma):
    with pytest.raises(HyperparameterError, match="gamma"):
        LSSVMRegressor(gamma=gamma).fit(X, y)
    with pytest.raises(HyperparameterError, match="gamma"):
        LSSVM(X, y, gamma=gamma).solve()
    with pytest.raises(HyperparameterError, match="gamma"):
        loo_residuals(RBF()(X), y, gamma)


@pytest.mark.parametrize("sigma2", [0.0, -2.0, np.inf])
def test_bad_sigma2(sigma2):
    with pytest.raises(HyperparameterError, match="sigma2"):
        LSSVMRegressor(sigma2=sigma2).fit(X, y)
    with pytest.raises(HyperparameterError, match="sigma2"):
        LSSVM(X, y, kernel=RBF(sigma2)).solve()


def test_bad_options():
    with pytest.raises(HyperparameterError, match="selection"):
        LSSVMRegressor(selection="aic").fit(X, y)
    with pytest.raises(HyperparameterError, match="multi_class"):
        LSSVMClassifier(multi_class="crammer").fit(X, labels)


def test_gram_not_psd():
    K = RBF()(X)
    K[0, 1] = K[1, 0] = 5.0  # breaks positive semi-definiteness
    with pytest.raises(NotPSDError, match="not positive semi-definite"):
        LSSVMRegressor(kernel="precomputed").fit(K, y)
    with pytest.raises(NotPSDError, match="not positive semi-definite"):
        LSSVMRegressor(kernel=lambda A, B: -RBF()(A, B)).fit(X, y)
    with pytest.raises(NotPSDError, match="not positive definite"):
        LSSVM.from_gram(-10 * RBF()(X), y, gamma=100.0).solve()


def test_nearly_singular_system_warns_and_still_solves():
    Xd = np.repeat(X[:5], 2, axis=0)  # duplicated points: a singular Gram
    yd = np.repeat(y[:5], 2)
    with pytest.warns(ConditioningWarning, match="condition"):
        sol = LSSVM(Xd, yd, kernel=RBF(50.0), gamma=1e15).solve()
    assert np.all(np.isfinite(sol["alpha"]))


def test_solver_failures_report_status():
    f = LSSVM.random_instance(40, seed=0)
    with pytest.raises(SolverError) as info:
        f.solve("OSQP", options={"max_iter": 2, "eps_abs": 1e-12, "eps_rel": 1e-12})
    assert info.value.status is not None and "OSQP" in str(info.value)
    sol = f.solve("OSQP", options={"max_iter": 2}, raise_on_failure=False)
    assert not sol.ok or sol.status == "optimal_inaccurate"
    x = cp.Variable()
    with pytest.raises(SolverError, match="infeasible"):
        solve_problem(cp.Problem(cp.Minimize(x), [x >= 1, x <= 0]), "CLARABEL")
    with pytest.raises(SolverNotAvailableError, match="not installed"):
        f.solve("NO_SUCH_SOLVER")
    with pytest.raises(SolverNotAvailableError):
        compare(f, solvers=["NO_SUCH_SOLVER"])


def test_not_fitted_and_bad_model_files(tmp_path):
    with pytest.raises(NotFittedError):
        LSSVMRegressor().predict(X)
    with pytest.raises(NotFittedError):
        LSSVMRegressor().save(tmp_path / "m.npz")
    np.savez(tmp_path / "other.npz", a=np.zeros(2))
    with pytest.raises(InputError, match="not an lssvm_cvx model"):
        lssvm_cvx.load(tmp_path / "other.npz")


def test_model_files_never_instantiate_foreign_classes():
    """Saved dataclasses and estimator classes are looked up only inside lssvm_cvx."""
    from lssvm_cvx.io import decode, encode

    with pytest.raises(InputError, match="refusing"):
        decode({"__dataclass__": "subprocess:Popen", "fields": {"__dict__": {}}}, {})
    with pytest.raises(InputError, match="refusing"):  # a prefix is not a submodule
        decode({"__dataclass__": "lssvm_cvx_plugin:Thing", "fields": {"__dict__": {}}}, {})
    with pytest.raises(InputError, match="not a dataclass"):
        decode({"__dataclass__": "lssvm_cvx.estimators.lssvm:LSSVMRegressor", "fields": {"__dict__": {}}}, {})
    import dataclasses

    @dataclasses.dataclass
    class Outside:
        a: int = 1

    with pytest.raises(InputError, match="without pickle"):
        encode(Outside(), {})


def test_no_warning_on_well_conditioned_fit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LSSVMRegressor(gamma=10.0).fit(X, y)


@pytest.mark.parametrize("value", [True, "2.0", np.array([2.0]), 0.0, -1.0, np.inf, np.nan, None])
def test_check_positive_rejects_non_scalars_and_non_positive(value):
    from lssvm_cvx.checks import check_positive

    with pytest.raises(HyperparameterError, match="sigma2"):
        check_positive(value, "sigma2")
    assert check_positive(np.float32(2.0), "sigma2") == 2.0
