"""Held-out residuals of the paper formulations through the composition core's system (issue
30, step 2): ``loo_residuals()`` and ``kfold_residuals(folds)`` of the LS-SVM (regression,
weighted, classifier: AReg paper eq. 2, 75, 57) and the Auto LS-SVM (note eq. 9) against
brute-force refits, and a clear refusal where a formulation has no factorised system."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import InputError
from lssvm_cvx.formulations import get_formulation
from lssvm_cvx.formulations.auto import AutoLSSVM, AutoLSSVMClassification
from lssvm_cvx.formulations.lssvm import LSSVM, LSSVMClassification, WeightedLSSVM
from lssvm_cvx.kernels import RBF

FOLDS = [np.array([0, 7, 11]), np.array([3]), np.array([1, 2, 4, 19])]


def _data(n=20, seed=0, classification=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.sin(X[:, 0]) + 0.2 * rng.normal(size=n)
    return X, (np.where(y > 0, "a", "b") if classification else y)


def _lssvm_refit(cls, X, y, V, **kw):
    """Targets minus the predictions at V of the formulation refitted without V (the
    representer theorem: for the RKHS norm alone, leaving the loss = leaving the data)."""
    keep = np.setdiff1d(np.arange(len(y)), V)
    gamma = kw.pop("gamma")
    g = gamma[keep] if np.ndim(gamma) else gamma
    f = cls(X[keep], y[keep], gamma=g, **kw)
    sol = f.closed_form()
    K = f.kernel(X[V], X[keep])
    t = f.targets()           # ±1 for the classifier (coded on the kept labels)
    coef = sol["alpha"] * (t if f.classification else 1.0)
    full = cls(X, y, gamma=gamma, **kw).targets()
    return full[V] - (K @ coef + sol.scalar("b"))


@pytest.mark.parametrize("cls,classification,gamma", [
    (LSSVM, False, 7.0), (WeightedLSSVM, False, np.linspace(1.0, 30.0, 20)),
    (LSSVMClassification, True, 4.0)])
def test_lssvm_heldout_residuals_are_the_refits(cls, classification, gamma):
    X, y = _data(classification=classification)
    f = cls(X, y, kernel=RBF(0.8), gamma=gamma)
    loo = f.loo_residuals()
    brute = np.array([_lssvm_refit(cls, X, y, np.array([i]), gamma=gamma, kernel=RBF(0.8))[0]
                      for i in range(20)])
    np.testing.assert_allclose(loo, brute, rtol=1e-8, atol=1e-10)
    kf = f.kfold_residuals(FOLDS)
    for V in FOLDS:
        np.testing.assert_allclose(kf[V], _lssvm_refit(cls, X, y, V, gamma=gamma, kernel=RBF(0.8)),
                                   rtol=1e-8, atol=1e-10)
    covered = np.concatenate(FOLDS)
    assert np.isnan(np.delete(kf, covered)).all()          # a point in no fold: NaN
    # one-point folds are the leave-one-out residuals
    np.testing.assert_allclose(f.kfold_residuals([[i] for i in range(20)]), loo, rtol=1e-12)


def _auto_refit(f, V):
    """Eq. (9) with the rows V out of the fit term (the basis K(·, x_j) and G, R keep every
    point), by a dense solve of its stationarity conditions."""
    n, t = f.n, f.rhs()
    keep = np.setdiff1d(np.arange(n), V)
    mu, nu = f.parameter_values().values()
    Kk = f.K[keep]
    A = np.zeros((n + 1, n + 1))
    A[:n, :n] = Kk.T @ Kk + mu * f.G + nu * f.R
    A[:n, n] = A[n, :n] = Kk.sum(axis=0)
    A[n, n] = keep.size
    z = np.linalg.solve(A, np.r_[Kk.T @ t[keep], t[keep].sum()])
    return t[V] - (f.K[V] @ z[:n] + z[n])


@pytest.mark.parametrize("cls,classification", [(AutoLSSVM, False), (AutoLSSVMClassification, True)])
def test_auto_heldout_residuals_are_the_refits(cls, classification):
    X, y = _data(classification=classification)
    f = cls(X, y, gamma=0.7, mu=0.3, nu=0.05)
    loo = f.loo_residuals()
    brute = np.array([_auto_refit(f, np.array([i]))[0] for i in range(20)])
    np.testing.assert_allclose(loo, brute, rtol=1e-7, atol=1e-9)
    kf = f.kfold_residuals(FOLDS)
    for V in FOLDS:
        np.testing.assert_allclose(kf[V], _auto_refit(f, V), rtol=1e-7, atol=1e-9)


def test_only_formulations_with_a_system_have_the_methods():
    """The methods exist where a factorised system gives them (no method that always raises);
    the catalogue lists them for exactly those classes."""
    from lssvm_cvx.catalogue import catalogue

    with_methods = {n for n, e in catalogue().items()
                    if "loo_residuals" in e["methods"]}
    assert {"lssvm", "weighted_lssvm", "lssvm_classifier", "componentwise_lssvm",
            "componentwise_lssvm_classifier", "auto_lssvm", "auto_lssvm_classifier",
            "regularized_lssvm", "regularized_lssvm_l1"} == with_methods
    assert not hasattr(get_formulation("l2svm_dual").random_instance(20, seed=0), "loo_residuals")


@pytest.mark.parametrize("folds", [[], [[0, 1], [1, 2]], [[0], []], [[25]], [[-1]]])
def test_bad_folds_are_refused(folds):
    X, y = _data()
    with pytest.raises(InputError, match="disjoint, non-empty"):
        LSSVM(X, y, gamma=2.0).kfold_residuals(folds)


def test_componentwise_lssvm_inherits_the_lssvm_heldout_residuals():
    """The componentwise LS-SVM (eq. 3-11) is the LS-SVM with the summed kernel (eq. 12): its
    held-out residuals are the refits of the componentwise model without each point."""
    cls = get_formulation("componentwise_lssvm")
    f = cls.random_instance(18, seed=1)
    X, y = f.X, f.y
    loo = f.loo_residuals()
    for i in (0, 5, 17):
        keep = np.setdiff1d(np.arange(18), [i])
        g = cls(X[keep], y[keep], kernel=f.kernel, gamma=f.gamma)
        sol = g.closed_form()
        pred = f.kernel(X[[i]], X[keep]) @ sol["alpha"] + sol.scalar("b")
        assert loo[i] == pytest.approx(y[i] - pred[0], rel=1e-8, abs=1e-10)
