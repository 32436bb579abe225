"""Issue 30, step 4: the LS-SVM estimators are presets of the composed estimator.

``LSSVMRegressor(gamma=γ)`` is ``RegularizedLSSVMRegressor(terms={"rkhs": (RKHSNorm(), 1/γ)})``
(the squared loss and the RKHS norm, DESIGN.md): both run
:func:`lssvm_cvx.estimators.regularized.fit_arrays` — the same fit and the same held-out search
(the γ grid is the weight grid ``1/γ``).  Checked here: the call itself, equal fits and equal
searches to 1e-10 (LOO, k-fold, the screen, weights, classifiers, a precomputed Gram), the LS-SVM's
grid view (``scores``, ``best_gamma``) agreeing with what the search chose, and the composed
screen (RKHS norms from the landmark kernel alone, seeded by default) against the screen of the
formulation.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold

import lssvm_cvx.estimators.lssvm as lssvm_module
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor, RegularizedLSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.screen import screen_landmarks, screen_path
from lssvm_cvx.terms import RKHSNorm

GAMMAS = np.logspace(-2, 3, 7)
RTOL = 1e-10


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 3))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=70)
    labels = np.digitize(X[:, 0] + 0.2 * rng.normal(size=70), [-0.4, 0.4])
    w = rng.uniform(0.5, 2.0, size=70)
    return X, y, labels, w


def _core(cls, gamma, **kw):
    return cls(terms={"rkhs": (RKHSNorm(), 1.0 / gamma)}, **kw)


def test_the_lssvm_fit_runs_the_composed_fit(data, spy):
    """The LS-SVM's exact fit is a call of the composed estimator's fit, not a copy of it."""
    X, y, _, _ = data
    calls = spy(lssvm_module, "fit_arrays")
    m = LSSVMRegressor(gamma=5.0, selection="loo", gamma_grid=GAMMAS).fit(X, y)
    assert len(calls) == 1 and isinstance(calls[0], RegularizedLSSVMRegressor)
    assert set(calls[0].terms) == {"rkhs"} and isinstance(calls[0].terms["rkhs"][0], RKHSNorm)
    np.testing.assert_array_equal(calls[0].weight_grid["rkhs"], 1.0 / GAMMAS)
    np.testing.assert_array_equal(m.dual_coef_, calls[0].dual_coef_)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
def test_regressor_fits_agree(data, weighted, kernel):
    X, y, _, w = data
    sw = w if weighted else None
    Xin = RBF(2.0)(X) if kernel == "precomputed" else X
    a = LSSVMRegressor(kernel=kernel, sigma2=2.0, gamma=7.0).fit(Xin, y, sample_weight=sw)
    b = _core(RegularizedLSSVMRegressor, 7.0, kernel=kernel, sigma2=2.0).fit(
        Xin, y, sample_weight=sw)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(a.predict(Xin[:9]), b.predict(Xin[:9]), rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_fits_agree(data, n_classes):
    X, _, labels, _ = data
    lab = labels if n_classes == 3 else (labels > 0).astype(int)
    a = LSSVMClassifier(sigma2=1.5, gamma=3.0).fit(X, lab)
    b = _core(RegularizedLSSVMClassifier, 3.0, sigma2=1.5).fit(X, lab)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=RTOL,
                               atol=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("selection, cv", [("loo", None), ("kfold", KFold(4, shuffle=True,
                                                                           random_state=0))])
def test_searches_agree(data, selection, cv):
    X, y, _, w = data
    kw = dict(selection=selection, sigma2_grid=[0.5, 2.0], **({"cv": cv} if cv else {}))
    for sw in (None, w):
        a = LSSVMRegressor(gamma_grid=GAMMAS, **kw).fit(X, y, sample_weight=sw)
        b = RegularizedLSSVMRegressor(weight_grid={"rkhs": 1.0 / GAMMAS}, **kw).fit(
            X, y, sample_weight=sw)
        np.testing.assert_allclose(a.cv_results_["mean_test_score"],
                                   b.cv_results_["mean_test_score"], rtol=RTOL)
        assert a.best_index_ == b.best_index_
        assert a.gamma_ == GAMMAS[a.best_index_ % GAMMAS.size]
        assert a.sigma2_ == b.sigma2_
        np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=RTOL, atol=1e-12)


def test_screened_searches_agree(data):
    X, y, _, _ = data
    kw = dict(selection="loo", search="screen", sigma2_grid="auto")
    a = LSSVMRegressor(gamma_grid=GAMMAS, **kw).fit(X, y)
    b = RegularizedLSSVMRegressor(weight_grid={"rkhs": 1.0 / GAMMAS}, **kw).fit(X, y)
    np.testing.assert_allclose(a.cv_results_["mean_test_score"],
                               b.cv_results_["mean_test_score"], rtol=RTOL)
    assert a.best_index_ == b.best_index_
    assert a.cv_results_["n_exact"] == int(np.isfinite(b.cv_results_["mean_test_score"]).sum())
    np.testing.assert_allclose(np.ravel(a.cv_results_["screen_scores"]),
                               -np.asarray(b.cv_results_["screen_scores"]), rtol=RTOL)


@pytest.mark.parametrize("scoring", ["neg_mean_absolute_error", None])
def test_the_grid_view_agrees_with_the_choice(data, scoring):
    """``cv_results_["scores"]`` is the criterion the search minimised and ``best_gamma`` the γ it
    chose (before the presets, ``scores`` was the LOO MSE whatever the scoring, and its
    ``best_gamma`` could differ from ``best_params_["gamma"]``)."""
    X, y, _, _ = data
    m = LSSVMRegressor(selection="loo", gamma_grid=GAMMAS, sigma2_grid=[0.5, 2.0],
                       scoring=scoring).fit(X, y)
    res = m.cv_results_
    scores = np.asarray(res["scores"])
    assert scores.shape == (2, GAMMAS.size)
    np.testing.assert_array_equal(scores.ravel(), -res["mean_test_score"])
    assert res["best_gamma"] == m.best_params_["gamma"] == m.gamma_
    assert res["best_sigma2"] == m.best_params_["sigma2"] == m.sigma2_
    assert res["best_score"] == np.nanmin(scores)


def test_the_grid_view_of_accuracy_is_the_error_rate(data):
    X, _, labels, _ = data
    m = LSSVMClassifier(selection="loo", gamma_grid=GAMMAS, scoring="accuracy").fit(X, labels)
    np.testing.assert_allclose(np.ravel(m.cv_results_["scores"]),
                               1.0 - m.cv_results_["mean_test_score"], rtol=RTOL)


def test_a_vector_gamma_is_refused_with_a_pointer_to_sample_weight(data):
    X, y, _, _ = data
    with pytest.raises(HyperparameterError, match="sample_weight"):
        LSSVMRegressor(gamma=np.full(X.shape[0], 2.0)).fit(X, y)


@pytest.mark.parametrize("estimator", [LSSVMRegressor, LSSVMClassifier])
@pytest.mark.parametrize("grid", [[-1.0, 1.0], [0.0, 1.0], [np.inf], [np.nan], [], [[1.0]],
                                  ["a"]])
def test_a_bad_gamma_grid_is_named_in_the_users_words(data, estimator, grid):
    """The LS-SVM presets search ``1/γ`` as the composition's ``weight_grid['rkhs']``; a bad
    ``gamma_grid`` is refused as ``gamma_grid`` (it named ``weight_grid['rkhs']`` before)."""
    X, _, labels, _ = data
    with pytest.raises(HyperparameterError, match=r"^gamma_grid must be a non-empty list of finite values"):
        estimator(selection="loo", gamma_grid=grid).fit(X, labels)


def test_the_default_screen_is_reproducible():
    """``random_state=None`` seeds the screen's landmarks with 0 (the LS-SVM estimators always
    did; the composed ones drew them from the global generator)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 2))   # more rows than the screen's 300 landmarks
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=400)
    fits = [RegularizedLSSVMRegressor(selection="loo", search="screen",
                                      sigma2_grid=[0.5, 2.0]).fit(X, y) for _ in range(2)]
    np.testing.assert_array_equal(fits[0].cv_results_["screen_scores"],
                                  fits[1].cv_results_["screen_scores"])


@pytest.mark.parametrize("terms, grid", [
    ({"rkhs": (RKHSNorm(), 1.0)}, {"rkhs": 1.0 / GAMMAS}),
    ({"r1": (RKHSNorm(), 0.1), "r2": (RKHSNorm(), 0.3)}, {"r1": 1.0 / GAMMAS, "r2": [0.05, 0.5]}),
])
def test_the_rkhs_screen_from_the_landmarks_equals_the_formulations_screen(data, terms, grid):
    """The screen of RKHS norms alone uses the kernel at the landmarks only; it must equal the
    screen computed from each candidate's formulation (the full Gram)."""
    X, y, _, _ = data
    s2s = [0.5, 2.0]
    m = RegularizedLSSVMRegressor(terms=terms, weight_grid=grid, selection="loo",
                                  search="screen", sigma2_grid=s2s, random_state=3).fit(X, y)
    L = screen_landmarks(X.shape[0], random_state=3)
    keys = list(grid)
    others = grid[keys[1]] if len(keys) > 1 else [None]
    expected = []
    for s2 in s2s:
        for v in others:
            cand = dict(terms)
            if v is not None:
                cand[keys[1]] = (terms[keys[1]][0], float(v))
            form = RegularizedLSSVM(X, y, kernel=RBF(s2), terms=cand)
            expected.append(screen_path(form, keys[0], grid[keys[0]], y, L, "mse"))
    np.testing.assert_allclose(m.cv_results_["screen_scores"], -np.ravel(expected), rtol=1e-8)


def test_any_splitter_is_scored_as_gridsearchcv_scores_it(data):
    """Test sets that do not partition the data (``ShuffleSplit``) are scored by refits, as the
    composed search does (the LS-SVM's k-fold used to refuse them); the scores are those of
    ``GridSearchCV`` refitting the LS-SVM on every training set."""
    from sklearn.model_selection import GridSearchCV, ShuffleSplit

    X, y, _, _ = data
    cv = ShuffleSplit(4, test_size=0.2, random_state=0)
    m = LSSVMRegressor(sigma2=2.0, selection="kfold", cv=cv, gamma_grid=GAMMAS).fit(X, y)
    ref = GridSearchCV(LSSVMRegressor(sigma2=2.0), {"gamma": GAMMAS}, cv=cv,
                       scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(m.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-8)
    assert m.best_params_ == ref.best_params_


def test_groups_are_the_kept_points_groups(data):
    """A point of weight 0 leaves the LS-SVM (eq. 74) and the splitter: the group split of the
    weighted fit is the group split of the data without those points."""
    from sklearn.model_selection import GroupKFold

    X, y, _, w = data
    groups = np.arange(X.shape[0]) % 7
    w0 = w.copy()
    w0[::9] = 0.0
    keep = w0 > 0
    kw = dict(selection="kfold", cv=GroupKFold(3), gamma_grid=GAMMAS)
    a = LSSVMRegressor(**kw).fit(X, y, sample_weight=w0, groups=groups)
    b = LSSVMRegressor(**kw).fit(X[keep], y[keep], sample_weight=w0[keep], groups=groups[keep])
    np.testing.assert_allclose(a.cv_results_["mean_test_score"],
                               b.cv_results_["mean_test_score"], rtol=RTOL)
    for est in (LSSVMRegressor(**kw), RegularizedLSSVMRegressor(selection="kfold",
                                                              cv=GroupKFold(3))):
        with pytest.raises(InputError, match="groups"):   # was an IndexError in the splitter
            est.fit(X, y, groups=groups[:-1])


def test_overlapping_test_sets_are_scored_by_refits():
    """``ShuffleSplit`` trains each split on the complement of its test set, but the test sets
    overlap: the composed search used the path there, whose held-out residuals keep one value
    per point (the last fold's), and scored every earlier split wrongly (3.7 % off
    GridSearchCV at e232253).  Overlapping test sets now go to refits."""
    from sklearn.model_selection import GridSearchCV, ShuffleSplit

    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 3))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=70)
    cv = ShuffleSplit(4, test_size=0.2, random_state=0)
    m = RegularizedLSSVMRegressor(sigma2=2.0, selection="kfold", cv=cv,
                                  weight_grid={"rkhs": 1.0 / GAMMAS}).fit(X, y)
    ref = GridSearchCV(LSSVMRegressor(sigma2=2.0), {"gamma": GAMMAS}, cv=cv,
                       scoring="neg_mean_squared_error").fit(X, y)
    for j in range(4):
        np.testing.assert_allclose(m.cv_results_[f"split{j}_test_score"],
                                   ref.cv_results_[f"split{j}_test_score"], rtol=1e-8)


def test_the_screened_fit_solves_with_the_searchs_factorisation(monkeypatch):
    """Factorise once: the screen's exact step factorised the chosen system; the final fit
    solves with it (no Gram, no factorisation after the search) and equals a plain fit at the
    chosen (γ, σ²) bit for bit."""
    import lssvm_cvx.estimators.regularized as regularized
    import lssvm_cvx.estimators.regularized_search as rs

    rng = np.random.default_rng(6)
    X = rng.uniform(-3, 3, (400, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.normal(size=400)
    built = []
    real = regularized.RegularizedLSSVMRegressor._formulation

    def spy(self, *args, **kwargs):
        built.append(args[2])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(regularized.RegularizedLSSVMRegressor, "_formulation", spy)
    m = LSSVMRegressor(selection="loo", search="screen", sigma2_grid="auto").fit(X, y)
    # the shortlist's screened candidates scored exactly (one: widths of the RKHS norm alone),
    # no refit
    assert len(built) == rs.SCREEN_SHORTLIST_WIDTHS == m.cv_results_["n_exact"] // 3 == 1
    plain = LSSVMRegressor(sigma2=m.sigma2_, gamma=m.gamma_).fit(X, y)
    np.testing.assert_array_equal(m.dual_coef_, plain.dual_coef_)
    assert m.intercept_ == plain.intercept_
