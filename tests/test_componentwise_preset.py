"""Issue 30, step 4: the componentwise LS-SVM (its fit and its (γ, σ²) search) is a preset of
the composed estimator, and the composed search sets the widths inside a kernel object.

The references are written as a user would: ``GridSearchCV`` over explicit kernels and the
composed estimator fitted at the chosen point.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold

import lssvm_cvx.estimators.componentwise_fits as fits_module
from lssvm_cvx import (
    ComponentwiseLSSVMClassifier,
    ComponentwiseLSSVMRegressor,
    LSSVMRegressor,
    RegularizedLSSVMRegressor,
)
from lssvm_cvx.estimators.componentwise import GAMMA_GRID
from lssvm_cvx.estimators.grids import has_width, set_width
from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.kernels import RBF, Componentwise, Linear, Polynomial, Scaled
from lssvm_cvx.linalg.folds import make_folds
from lssvm_cvx.selection.componentwise_cv import default_sigma2_grid
from lssvm_cvx.terms import RKHSNorm


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1.5, 1.5, size=(61, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.2 * rng.normal(size=61)
    return X, y


def test_set_width_reaches_every_width_and_leaves_the_kernel_given():
    k = Componentwise([RBF(1.0), Linear()])
    got = set_width(k, 3.0)
    assert got.kernel[0].sigma2 == 3.0 and isinstance(got.kernel[1], Linear)
    assert k.kernel[0].sigma2 == 1.0                      # not changed in place
    s = set_width(Scaled(RBF(1.0) + Polynomial(2), 2.0), 0.5)
    assert s.kernel.kernels[0].sigma2 == 0.5 and s.scale == 2.0
    assert has_width(k) and not has_width(Linear()) and not has_width(Componentwise(Linear()))
    assert set_width(Linear(), 2.0) is not None


def test_the_composed_search_sets_the_widths_inside_a_kernel_object(data):
    """``sigma2_grid`` on ``Componentwise(RBF())`` scores what ``GridSearchCV`` scores over
    the explicit kernels ``Componentwise(RBF(σ²))``."""
    X, y = data
    s2s, weights = [0.3, 1.0, 3.0], [0.01, 0.1, 1.0]
    cv = KFold(5, shuffle=True, random_state=0)
    est = RegularizedLSSVMRegressor(kernel=Componentwise(RBF()), sigma2_grid=s2s,
                                    weight_grid={"rkhs": weights}, selection="kfold",
                                    cv=cv).fit(X, y)
    ref = GridSearchCV(RegularizedLSSVMRegressor(),
                       {"kernel": [Componentwise(RBF(v)) for v in s2s], "terms__rkhs": weights},
                       cv=cv, scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-9)
    assert est.kernel_.kernel.sigma2 == ref.best_params_["kernel"].kernel.sigma2
    np.testing.assert_allclose(est.predict(X[:7]), ref.predict(X[:7]), rtol=1e-9, atol=1e-12)
    # the LS-SVM preset (exact LOO and GCV) searches it too
    for selection in ("loo", "gcv"):
        m = LSSVMRegressor(kernel=Componentwise(RBF()), sigma2_grid=s2s, gamma_grid=[1, 10],
                           selection=selection).fit(X, y)
        assert m.kernel_.kernel.sigma2 == m.sigma2_ in s2s


def test_a_grid_over_a_kernel_without_width_is_refused(data):
    X, y = data
    with pytest.raises(HyperparameterError, match="has none"):
        RegularizedLSSVMRegressor(kernel=Componentwise(Linear()), sigma2_grid=[1.0, 2.0],
                                  selection="loo").fit(X, y)
    with pytest.raises(HyperparameterError, match="has none"):   # approximations: names only
        LSSVMRegressor(kernel=Componentwise(RBF()), sigma2_grid=[1.0, 2.0], selection="loo",
                       approximation="nystroem").fit(X, y)


def test_the_componentwise_fit_runs_the_composed_fit(data, spy):
    """The componentwise LS-SVM's fit is a call of the composed estimator's fit."""
    X, y = data
    calls = spy(fits_module, "fit_arrays")
    m = ComponentwiseLSSVMRegressor(sigma2=2.0, gamma=5.0).fit(X, y)
    assert len(calls) == 1 and isinstance(calls[0], RegularizedLSSVMRegressor)
    assert isinstance(calls[0].terms["rkhs"][0], RKHSNorm)
    assert calls[0].terms["rkhs"][1] == pytest.approx(1 / 5.0)
    np.testing.assert_array_equal(m.component_coef_[:, 0], calls[0].dual_coef_)


@pytest.mark.parametrize("cv", [5, 4])
def test_the_componentwise_search_is_gridsearchcv_over_the_preset(data, cv):
    """The (γ, σ²) k-fold search scores what ``GridSearchCV`` scores for the preset on the
    same folds (also with folds of unequal sizes: N = 61), and the model is the preset's fit
    at the choice."""
    X, y = data
    m = ComponentwiseLSSVMRegressor(cv=cv, random_state=2).fit(X, y)
    folds = make_folds(len(y), cv, 2)
    splits = [(np.setdiff1d(np.arange(len(y)), f), f) for f in folds]
    s2s = default_sigma2_grid(X)
    ref = GridSearchCV(
        RegularizedLSSVMRegressor(),
        {"kernel": [Componentwise(RBF(v)) for v in s2s], "terms__rkhs": list(1 / GAMMA_GRID)},
        cv=splits, scoring="neg_mean_squared_error").fit(X, y)
    res = m.cv_results_["gamma_sigma2"]
    np.testing.assert_allclose(np.ravel(res["scores"]), -ref.cv_results_["mean_test_score"],
                               rtol=1e-9)
    best = ref.best_params_
    assert m.sigma2_ == best["kernel"].kernel.sigma2
    assert m.gamma_ == pytest.approx(1 / best["terms__rkhs"])
    np.testing.assert_allclose(m.predict(X[:9]), ref.predict(X[:9]), rtol=1e-9, atol=1e-12)


def test_no_width_is_searched_without_a_named_rbf(data):
    """``kernel="linear"`` or a kernel object (used with its own widths): the search is over γ
    alone (it used to repeat it for five widths that changed nothing and report one of them
    as ``sigma2_``)."""
    X, y = data
    for kernel in ("linear", RBF(2.0), Componentwise(RBF(2.0))):
        m = ComponentwiseLSSVMRegressor(kernel=kernel).fit(X, y)
        res = m.cv_results_["gamma_sigma2"]
        assert np.shape(res["scores"]) == (1, GAMMA_GRID.size)
        assert m.sigma2_ == 1.0
    fixed = ComponentwiseLSSVMRegressor(kernel=RBF(2.0), gamma=m.gamma_).fit(X, y)
    ref = ComponentwiseLSSVMRegressor(sigma2=2.0, gamma=m.gamma_).fit(X, y)
    np.testing.assert_allclose(fixed.predict(X), ref.predict(X), rtol=1e-12)


def test_a_named_rbf_beside_a_kernel_with_its_own_width_is_refused(data):
    X, y = data
    with pytest.raises(HyperparameterError, match="name every RBF"):
        ComponentwiseLSSVMRegressor(kernel=["rbf", RBF(2.0)]).fit(X, y)
    m = ComponentwiseLSSVMRegressor(kernel=["rbf", RBF(2.0)], sigma2=1.0, gamma=3.0).fit(X, y)
    assert m.n_components_ == 2 * X.shape[1]


def test_the_classifier_searches_on_the_coded_labels(data):
    """The classifier's search is the regression preset's on the ±1 labels."""
    X, y = data
    labels = np.where(y > np.median(y), "b", "a")
    c = ComponentwiseLSSVMClassifier().fit(X, labels)
    r = ComponentwiseLSSVMRegressor().fit(X, np.where(labels == "b", 1.0, -1.0))
    assert (c.sigma2_, c.gamma_) == (r.sigma2_, r.gamma_)
    np.testing.assert_allclose(c.decision_function(X[:9]), r.predict(X[:9]), rtol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("make", [
    lambda: ComponentwiseLSSVMRegressor(), lambda: LSSVMRegressor(selection="loo"),
    lambda: LSSVMRegressor(selection="kfold"), lambda: RegularizedLSSVMRegressor(selection="loo")])
def test_a_search_whose_scores_overflow_names_y(data, make):
    """Targets too large to square: every held-out score is infinite though every fit ran.
    That is a NumericalError naming y, not a solver failure with an empty reason (as it was
    for the LS-SVM's search) nor an arbitrary candidate (as it was for the componentwise one)."""
    from lssvm_cvx.exceptions import NumericalError

    X, y = data
    with pytest.raises(NumericalError, match=r"max \|y\| = .*rescale"):
        make().fit(X, y * 1e300)


@pytest.mark.parametrize("make", [lambda s: LSSVMRegressor(selection="kfold", scoring=s),
                                  lambda s: RegularizedLSSVMRegressor(selection="kfold", scoring=s)])
def test_a_scorer_that_gives_no_finite_value_is_named_not_y(data, make):
    """A user's scorer returning NaN on every split, with data of ordinary size: the error
    names the scorer, and does not blame y (as it did before, for any non-finite score)."""
    from sklearn.metrics import make_scorer

    from lssvm_cvx.exceptions import NumericalError

    X, y = data
    with pytest.raises(NumericalError, match=r"scoring=make_scorer\(nan_score.*check the scorer"
                       ) as info:
        make(make_scorer(nan_score)).fit(X, y)
    assert "rescale" not in str(info.value)


def nan_score(y_true, y_pred):
    return float("nan")


def test_a_kernel_of_ones_own_with_a_sigma2_parameter_is_searched(data):
    """The docs' claim, with code a user would write: a Laplacian kernel of one's own with a
    ``sigma2`` parameter, inside a sum with a linear kernel, searched by ``sigma2_grid``."""
    from scipy.spatial.distance import cdist

    from lssvm_cvx.kernels import Kernel

    class Laplacian(Kernel):
        def __init__(self, sigma2=1.0):
            self.sigma2 = sigma2

        def _gram(self, X, Z):
            return np.exp(-cdist(X, X if Z is None else Z, "cityblock") / self.sigma2)

    X, y = data
    s2s, weights = [0.5, 2.0, 8.0], [0.01, 1.0]
    est = RegularizedLSSVMRegressor(kernel=Laplacian() + Linear(), sigma2_grid=s2s,
                                    weight_grid={"rkhs": weights}, selection="loo").fit(X, y)
    ref = GridSearchCV(RegularizedLSSVMRegressor(),
                       {"kernel": [Laplacian(v) + Linear() for v in s2s], "terms__rkhs": weights},
                       cv=len(y), scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-8)
    assert isinstance(est.kernel_.kernels[0], Laplacian)
    assert est.kernel_.kernels[0].sigma2 == est.sigma2_ == ref.best_params_["kernel"].kernels[0].sigma2
