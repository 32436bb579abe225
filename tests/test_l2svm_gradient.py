"""Chapelle et al.'s (2002) gradient-based (σ², λ) selection for the ℓ2-SVM
(lssvm_cvx.selection.l2svm_gradient, ``L2SVMClassifier(sigma_selection="gradient")``):
analytic gradients against central finite differences, the criteria against the path's
independent implementations, the descent, the estimator option, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from lssvm_cvx import L2SVMClassifier, problems
from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations.l2svm_active_set import Hessian, solve_fixed
from lssvm_cvx.kernels import RBF
from lssvm_cvx.kernels.base import sq_dists
from lssvm_cvx.selection.l2svm_criteria import BallOnHessian, span_loo, span_loo_outputs
from lssvm_cvx.selection.l2svm_gradient import (
    radius_margin_gradient,
    rbf_gram_and_derivative,
    select_gradient,
    span_gradient,
)


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] + 0.6 * rng.normal(size=60) > 0, 1.0, -1.0)
    return X, y, sq_dists(X)


def _bound(X, y, D, theta, crit, **kw):
    K, dK = rbf_gram_and_derivative(X, float(np.exp(theta[0])), D)
    fn = span_gradient if crit == "span" else radius_margin_gradient
    return fn(K, dK, y, float(np.exp(theta[1])), **kw)


THETAS = [np.log([2.0, 0.5]), np.log([0.5, 0.05]), np.log([5.0, 3.0])]


@pytest.mark.parametrize("crit", ["span", "radius_margin"])
@pytest.mark.parametrize("theta", THETAS)
def test_gradient_matches_finite_differences(toy, crit, theta):
    X, y, D = toy
    bv = _bound(X, y, D, theta, crit)
    h = 1e-5
    fd = np.zeros(2)
    for k in range(2):
        e = np.zeros(2)
        e[k] = h
        up, dn = _bound(X, y, D, theta + e, crit), _bound(X, y, D, theta - e, crit)
        # the derivative is taken at a fixed active set: the FD step must not change it
        assert np.array_equal(up.state.E, bv.state.E) and np.array_equal(dn.state.E, bv.state.E)
        fd[k] = (up.value - dn.value) / (2 * h)
    np.testing.assert_allclose(bv.grad, fd, rtol=1e-5, atol=1e-9 * max(1.0, abs(bv.value)))
    assert np.all(np.abs(bv.grad) > 0)  # a non-trivial check


def test_span_with_eta_zero_is_the_papers_span(toy):
    """η = 0: S_p² equals Prop. 4's ``1/(A_E(λ)^{-1})_pp`` (the path's criterion code)."""
    X, y, D = toy
    K, dK = rbf_gram_and_derivative(X, 2.0, D)
    bv = span_gradient(K, dK, y, 0.5, eta=0.0)
    st = bv.state
    np.testing.assert_allclose(bv.extra["spans"] * st.alpha_E, 1.0 - span_loo_outputs(st), rtol=1e-9)


def test_sharp_sigmoid_recovers_the_span_count(toy):
    """A steep sigmoid and a tiny η give the paper's span prediction (eq. 16) back."""
    X, y, D = toy
    K, dK = rbf_gram_and_derivative(X, 1.0, D)
    bv = span_gradient(K, dK, y, 0.2, eta=1e-10, A=1e5)
    hess = Hessian(y, K=K)
    assert bv.value == pytest.approx(span_loo(hess, solve_fixed(y, 0.2, hess=hess)), abs=1e-6)


def test_span_smoothing_changes_the_span(toy):
    """η > 0 regularises S̃_p² = 1/(M̃^{-1})_pp - η/α_p (not the unsmoothed value)."""
    X, y, D = toy
    K, dK = rbf_gram_and_derivative(X, 2.0, D)
    s0 = span_gradient(K, dK, y, 0.5, eta=0.0).extra["spans"]
    s1 = span_gradient(K, dK, y, 0.5, eta=0.1).extra["spans"]
    assert np.max(np.abs(s1 - s0)) > 1e-3


def test_radius_margin_matches_path_criterion(toy):
    """(4/m) R² ||w||² against the ball QP of the path (λ as a parameter, K untouched)."""
    X, y, D = toy
    K, dK = rbf_gram_and_derivative(X, 2.0, D)
    bv = radius_margin_gradient(K, dK, y, 0.5)
    R2 = BallOnHessian(Hessian(y, K=K)).radius2(0.5)
    assert bv.extra["R2"] == pytest.approx(R2, rel=1e-6)
    assert bv.value == pytest.approx(4.0 / y.size * R2 * float(np.sum(bv.state.alpha_E)), rel=1e-6)


@pytest.mark.parametrize("crit", ["span", "radius_margin"])
def test_descent_lowers_the_criterion(toy, crit):
    X, y, _ = toy
    r = select_gradient(X, y, sigma2=20.0, lam=5.0, criterion=crit, max_iter=15)
    assert r.value < r.history[0]["value"]
    assert r.value == min(h["value"] for h in r.history)
    assert 1e-6 <= r.lam <= 1e7
    assert np.array_equal(r.state.E, solve_fixed(y, r.lam, K=RBF(r.sigma2)(X)).E)


def test_bad_input(toy):
    X, y, _ = toy
    with pytest.raises(HyperparameterError):
        select_gradient(X, y, sigma2=1.0, lam=1.0, criterion="cv")
    with pytest.raises(HyperparameterError):
        select_gradient(X, y, sigma2=-1.0, lam=1.0)
    with pytest.raises(HyperparameterError):
        select_gradient(X, y, sigma2=1.0, lam=1.0, max_iter=0)
    with pytest.raises(HyperparameterError):
        select_gradient(X, y, sigma2=1.0, lam=1.0, lam_bounds=(1.0, 0.1))
    K, dK = rbf_gram_and_derivative(X, 1.0)
    with pytest.raises(HyperparameterError):
        span_gradient(K, dK, y, 1.0, eta=-1.0)


# ------------------------------------------------------------------------------ estimator
@parametrize_with_checks([L2SVMClassifier(sigma_selection="gradient", gradient_max_iter=3)])
def test_sklearn_compatible_gradient(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def banana():
    from sklearn.preprocessing import StandardScaler

    ds = problems.get_problem("banana")
    tr, te = problems.random_split(ds.n_samples, [150, 300], 3)
    sc = StandardScaler().fit(ds.X[tr])
    return sc.transform(ds.X[tr]), ds.y[tr], sc.transform(ds.X[te]), ds.y[te]


def test_estimator_gradient_fixed(banana):
    X, y, Xt, _ = banana
    est = L2SVMClassifier(lam=1.0, sigma2=2.0, sigma_selection="gradient").fit(X, y)
    g = est.gradient_
    assert est.sigma2_ == g["sigma2"] and est.lam_ == g["lam"]
    assert g["value"] <= g["history"][0]["value"]
    ref = L2SVMClassifier(lam=g["lam"], sigma2=g["sigma2"]).fit(X, y)
    np.testing.assert_allclose(est.decision_function(Xt), ref.decision_function(Xt), atol=1e-8)


def test_estimator_gradient_then_path(banana):
    X, y, Xt, _ = banana
    est = L2SVMClassifier(lam=1.0, sigma2=2.0, sigma_selection="gradient", path=True).fit(X, y)
    assert est.sigma2_ == est.gradient_["sigma2"]
    ref = L2SVMClassifier(sigma2=est.sigma2_, path=True).fit(X, y)
    assert est.lam_ == ref.lam_
    np.testing.assert_allclose(est.decision_function(Xt), ref.decision_function(Xt), atol=1e-8)


def test_estimator_default_unchanged(banana):
    X, y, _, _ = banana
    est = L2SVMClassifier(lam=0.3, sigma2=1.5).fit(X, y)
    assert est.gradient_ is None and est.sigma2_ == 1.5 and est.lam_ == 0.3


def test_estimator_bad_options(banana):
    X, y, _, _ = banana
    with pytest.raises(HyperparameterError):
        L2SVMClassifier(sigma_selection="grid").fit(X, y)
    with pytest.raises(HyperparameterError):
        L2SVMClassifier(sigma_selection="gradient", kernel="linear").fit(X, y)
    with pytest.raises(HyperparameterError):
        L2SVMClassifier(sigma_selection="gradient", gradient_max_iter=0).fit(X, y)
