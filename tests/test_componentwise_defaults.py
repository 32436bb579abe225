"""Hyperparameter selection of the componentwise estimators (§5: 10-fold CV, one-SE option)
and structure detection at the defaults on the §5.2 additive example."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from lssvm_cvx import ComponentwiseLSSVMRegressor, problems
from lssvm_cvx.exceptions import HyperparameterError, SolverNotAvailableError
from lssvm_cvx.selection.componentwise_cv import (cv_path, default_lam_grid, default_xi_grid,
                                                  one_se_index)


def test_one_se_index_picks_most_regularized_within_one_se():
    mean = np.array([3.0, 2.05, 2.0, 1.9, 2.5])
    se = np.array([0.1, 0.1, 0.1, 0.2, 0.1])
    assert one_se_index(mean, se) == 1          # 2.05 <= 1.9 + 0.2, 3.0 is not
    assert one_se_index(mean, np.zeros(5)) == 3
    with pytest.raises(HyperparameterError):
        one_se_index(np.full(3, np.inf), np.zeros(3))


def test_cv_path_rules_and_failures():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=40)

    def fit_predict(Xa, ya, shrink, Xb):        # ridge-like shrinkage of the OLS slope
        if shrink > 50:
            raise ValueError("fails")
        beta = np.linalg.lstsq(Xa, ya, rcond=None)[0] / (1 + shrink)
        return Xb @ beta

    grid = [100.0, 3.0, 1.0, 0.1, 0.0]
    p = cv_path(X, y, grid, fit_predict, folds=5, rule="one_se")
    q = cv_path(X, y, grid, fit_predict, folds=5, rule="min")
    assert np.isinf(p.mean[0])                  # the failing value scores +inf
    assert q.index == q.index_min == int(np.argmin(q.mean))
    assert p.index <= q.index                   # one-SE is at least as regularized
    assert p.mean[p.index] <= p.mean[p.index_min] + p.se[p.index_min]
    with pytest.raises(HyperparameterError):
        cv_path(X, y, grid, fit_predict, rule="bogus")


def test_default_grids_scale_with_the_data():
    y = np.random.default_rng(1).normal(size=50)
    assert np.allclose(default_lam_grid(10 * y), 100 * default_lam_grid(y))
    assert np.allclose(default_xi_grid(10 * y), default_xi_grid(y) / 10)
    assert np.all(np.diff(default_lam_grid(y)) < 0) and np.all(np.diff(default_xi_grid(y)) > 0)


def test_stp_cv_small_grid_reports_choice_and_convergence():
    ds = problems.get_problem("additive10", n_train=60, n_test=0, seed=3)
    ss = float(np.sum((ds.y - ds.y.mean()) ** 2))
    est = ComponentwiseLSSVMRegressor(penalty="stp", sigma2=1.0, cv=3,
                                      cv_grid=[0.003 * ss, 0.3 * ss]).fit(ds.X, ds.y)
    cvr = est.cv_results_["lam"]
    assert cvr["grid"][0] > cvr["grid"][1]      # most regularized first
    assert est.reg_ == cvr["grid"][cvr["index"]]
    assert est.converged_ and est.n_iter_ == len(est.history_)
    assert est.sigma2_ == 1.0 and "gamma_sigma2" not in est.cv_results_


def test_sigma2_and_gamma_by_cv_for_the_plain_model():
    ds = problems.get_problem("additive10", n_train=60, n_test=0, seed=4)
    est = ComponentwiseLSSVMRegressor(cv=5).fit(ds.X, ds.y)
    res = est.cv_results_["gamma_sigma2"]
    assert est.sigma2_ > 0 and est.gamma_ > 0 and res
    fixed = ComponentwiseLSSVMRegressor(sigma2=est.sigma2_, gamma=est.gamma_).fit(ds.X, ds.y)
    assert np.allclose(fixed.predict(ds.X[:5]), est.predict(ds.X[:5]))
    assert fixed.cv_results_ == {}


def test_unconverged_gnc_warns_and_says_so():
    ds = problems.get_problem("additive10", n_train=40, n_test=0, seed=5)
    est = ComponentwiseLSSVMRegressor(penalty="stp", sigma2=1.0, lam=100.0,
                                      gnc_options={"max_inner": 1, "max_final": 1,
                                                   "tol_stationarity": 1e-14})
    with pytest.warns(ConvergenceWarning):
        est.fit(ds.X, ds.y)
    assert est.converged_ is False


def test_bad_cv_rule_raises():
    ds = problems.get_problem("additive10", n_train=30, n_test=0, seed=0)
    with pytest.raises(HyperparameterError):
        ComponentwiseLSSVMRegressor(penalty="stp", cv_rule="median").fit(ds.X, ds.y)


@pytest.mark.parametrize("penalty", ["l1", "stp"])
@pytest.mark.parametrize("grid", [[-1.0, 1.0], [0.0], [np.nan], [], [[1.0, 2.0]], ["a"]])
def test_a_bad_cv_grid_is_refused_before_any_fit(penalty, grid):
    """ξ and λ are > 0; until 2026-11-30 a value <= 0 failed in every fold and the search went
    on without it (and ``["a"]`` was NumPy's ValueError)."""
    ds = problems.get_problem("additive10", n_train=30, n_test=0, seed=0)
    with pytest.raises(HyperparameterError, match=r"^cv_grid must be a non-empty list of finite values > 0"):
        ComponentwiseLSSVMRegressor(penalty=penalty, cv_grid=grid, cv=3).fit(ds.X, ds.y)


def test_an_unknown_solver_is_refused_whatever_the_penalty():
    """The default penalty solves no QP; an unknown ``solver`` passed unsaid there until
    2026-11-30."""
    ds = problems.get_problem("additive10", n_train=30, n_test=0, seed=0)
    with pytest.raises(SolverNotAvailableError, match="solver 'bogus' is not installed"):
        ComponentwiseLSSVMRegressor(solver="bogus").fit(ds.X, ds.y)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2000, 2001, 2002])
def test_stp_defaults_recover_the_additive_structure(seed):
    """§5.2 at N = 100: the STP estimator with nothing set keeps exactly x1..x4."""
    ds = problems.get_problem("additive10", n_train=100, n_test=0, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = ComponentwiseLSSVMRegressor(penalty="stp").fit(ds.X, ds.y)
    assert est.selected_components_.tolist() == [0, 1, 2, 3]
    assert est.converged_
