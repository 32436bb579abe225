"""Public search attributes a teacher plots from: ``cv_results_`` in scikit-learn's layout on
every estimator that scores candidates, and the ℓ2-SVM's αᵢ(λ) path in ``path_["alpha"]``."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

import lssvm_cvx
from lssvm_cvx import problems
from lssvm_cvx import (AutoLSSVMRegressor, L2SVMClassifier, LSSVMClassifier, LSSVMRegressor,
                       ParetoKernelRidge)
from lssvm_cvx.estimators.search_results import search_results
from lssvm_cvx.formulations.l2svm import L2SVMDual
from lssvm_cvx.kernels import RBF


def _best(res):
    return res["params"][int(np.argmin(res["rank_test_score"]))]


def _check_layout(res, n):
    assert len(res["params"]) == n
    assert res["mean_test_score"].shape == (n,) and res["rank_test_score"].shape == (n,)
    for key in res["params"][0]:
        np.testing.assert_array_equal(res[f"param_{key}"], [p[key] for p in res["params"]])
    # rank 1 is the highest mean_test_score, ranks follow the scores
    order = np.argsort(-res["mean_test_score"], kind="stable")
    assert np.all(np.diff(res["rank_test_score"][order]) >= 0)
    assert res["rank_test_score"].min() == 1


def test_search_results_ranks_ties_and_nan():
    r = search_results([{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}], [0.5, 0.2, 0.2, np.nan])
    np.testing.assert_array_equal(r["rank_test_score"], [3, 1, 1, 4])
    np.testing.assert_array_equal(r["mean_test_score"][:3], [-0.5, -0.2, -0.2])


@pytest.fixture(scope="module")
def sinc():
    return problems.get_problem("sinc", seed=3)


def test_lssvm_cv_results_is_sklearn_layout_and_keeps_the_grid(sinc):
    gammas, s2s = np.logspace(-1, 3, 5), [0.1, 0.5, 2.0]
    m = LSSVMRegressor(selection="loo", gamma_grid=gammas, sigma2_grid=s2s).fit(sinc.X, sinc.y)
    res = m.cv_results_
    _check_layout(res, 15)
    assert _best(res) == {"sigma2": m.sigma2_, "gamma": m.gamma_}
    np.testing.assert_allclose(res["mean_test_score"], -np.ravel(res["scores"]))
    assert res["params"][1] == {"sigma2": 0.1, "gamma": gammas[1]}   # σ² outer, γ inner
    assert res["best_gamma"] == m.gamma_                              # old keys still there


def test_lssvm_classifier_cv_results(sinc):
    y = np.where(sinc.y > 0.2, "a", "b")
    m = LSSVMClassifier(selection="kfold", cv=4, random_state=0, gamma_grid=[0.1, 10.0],
                        sigma2_grid=[0.5]).fit(sinc.X, y)
    _check_layout(m.cv_results_, 2)
    assert _best(m.cv_results_)["gamma"] == m.gamma_


def test_l2svm_alpha_path_and_cv_results():
    ds = problems.get_problem("banana")
    tr, _ = problems.random_split(ds.n_samples, [120, 10], 4)
    X, y = StandardScaler().fit_transform(ds.X[tr]), ds.y[tr]
    est = L2SVMClassifier(path=True, sigma2=0.7).fit(X, y)
    P = est.path_
    A = P["alpha"]
    assert A.shape == (P["lambdas"].size, X.shape[0]) and P["intercept"].shape == P["lambdas"].shape
    np.testing.assert_array_equal((A > 0).sum(axis=1), P["m_E"])
    k = int(np.flatnonzero(P["lambdas"] == est.lam_)[0])
    np.testing.assert_allclose(A[k], est.alpha_, atol=1e-10)
    # a path row is Problem 2's solution at that λ (closed form of the fixed-λ formulation)
    j = len(P["lambdas"]) // 2
    sol = L2SVMDual(X, y, kernel=RBF(0.7), lam=float(P["lambdas"][j])).solve()
    np.testing.assert_allclose(A[j], sol["alpha"], atol=1e-6 * max(1.0, np.abs(A[j]).max()))
    _check_layout(est.cv_results_, P["lambdas"].size)
    assert _best(est.cv_results_) == {"lam": est.lam_}
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], -P["criterion"])
    assert L2SVMClassifier(lam=0.1).fit(X, y).cv_results_ is None


def test_l2svm_alpha_path_round_trips(tmp_path):
    ds = problems.get_problem("banana")
    tr, _ = problems.random_split(ds.n_samples, [80, 10], 1)
    est = L2SVMClassifier(path=True, sigma2=1.0).fit(ds.X[tr], ds.y[tr])
    est.save(tmp_path / "m.npz")
    back = lssvm_cvx.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.path_["alpha"], est.path_["alpha"])
    assert back.cv_results_["params"] == est.cv_results_["params"]


def test_auto_cv_results(sinc):
    m = AutoLSSVMRegressor().fit(sinc.X, sinc.y)
    res = m.cv_results_
    _check_layout(res, len(m.search_["history"]))
    assert _best(res) == {"kernel_gamma": m.kernel_gamma_, "mu": m.mu_, "nu": m.nu_}
    assert set(res["stage"]) <= {"width", "mu", "nu"}


@pytest.mark.parametrize("method", ["cv", "sum"])
def test_pareto_cv_results(sinc, method):
    m = ParetoKernelRidge(method=method, random_state=0).fit(sinc.X, sinc.y)
    res = m.cv_results_
    _check_layout(res, len(res["params"]))
    best = _best(res)
    if method == "cv":
        # the estimator refits through log-parameters: equal to rounding
        assert best == pytest.approx({"sigma2": m.sigma2_, "lam": m.lambda_}, rel=1e-12)
    else:
        assert best == {"weight": m.scores_["weight"]}


def test_pareto_front_method_has_no_candidate_table(sinc):
    m = ParetoKernelRidge(method="modified_eps", n_eps=3).fit(sinc.X, sinc.y)
    assert m.cv_results_ is None and m.front_["index"] < len(m.front_["eps"])
