"""Model selection that means what it says (issue 26): the estimand of leave-one-out and
k-fold, scoring matched to the loss, any scikit-learn splitter, GridSearchCV's results layout,
solver control, explicit settings kept, semi-supervised zero weights, constraint-only terms.

The reference for every "exact" claim is scikit-learn's own GridSearchCV over the same
estimator with the same splits: it refits the estimator on every training set."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import make_scorer, mean_pinball_loss
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, LeaveOneOut, ShuffleSplit

from lssvm_cvx import LSSVMClassifier, LSSVMRegressor, RegularizedLSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError, LssvmCvxWarning, SolverError
from lssvm_cvx.losses import Loss
from lssvm_cvx.terms import L1, GradientNorm, GraphLaplacian, Quadratic, Ridge, RKHSNorm, Roughness, Term


def _data(n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


class SecondDifference(Term):
    """A user's quadratic term: ½||D₂ K α||² on the fitted values in input order."""

    def quadratic(self, ctx):
        order = np.argsort(ctx.X[:, 0])
        D = np.diff(np.eye(ctx.n), 2, axis=0)[:, np.argsort(order)]
        return ctx.K @ D.T @ D @ ctx.K


#: (terms, the key searched, its weights).  RKHSNorm, Ridge, the gradient norms and the graph
#: Laplacian go through the closed-form deletion (the graph with its low-rank change), the
#: others through refits.  The gradient norms run at σ² = 0.1: at σ² = 1 their Gram is
#: singular to round-off (30 points on [-3, 3]), the augmented system needs its ridge, and
#: held-out values of *any* method (GridSearchCV's refits included) are then accurate to
#: about 1e-6, not 1e-8
SIGMA2 = {"GradientNorm_exact": 0.1, "GradientNorm": 0.1}
CASES = {
    "RKHSNorm": ({"rkhs": (RKHSNorm(), 0.1)}, "rkhs", [0.01, 0.1, 1.0]),
    "Ridge": ({"rkhs": (RKHSNorm(), 0.1), "ridge": (Ridge(), 0.01)}, "ridge", [1e-3, 1e-2, 0.1]),
    "GraphLaplacian": ({"rkhs": (RKHSNorm(), 0.1), "g": (GraphLaplacian(n_neighbors=5), 0.01)},
                       "g", [1e-3, 1e-2, 0.1]),
    "GradientNorm": ({"rkhs": (RKHSNorm(), 0.1), "g": (GradientNorm(), 0.01)}, "g",
                     [1e-3, 1e-2, 0.1]),
    "GradientNorm_exact": ({"rkhs": (RKHSNorm(), 0.1), "g": (GradientNorm("exact"), 0.1)}, "g",
                           [0.1, 1.0]),
    "Roughness": ({"rkhs": (RKHSNorm(), 0.1), "r": (Roughness(), 0.01)}, "r", [1e-3, 1e-2, 0.1]),
    "L1": ({"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.01)}, "l1", [1e-3, 1e-2]),
    "user quadratic": ({"rkhs": (RKHSNorm(), 0.1), "d2": (SecondDifference(), 1e-3)}, "d2",
                       [1e-4, 1e-3, 1e-2]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refit_loo_equals_gridsearchcv_leave_one_out_per_candidate(case):
    terms, key, ws = CASES[case]
    X, y = _data(25 if case == "L1" else 30)
    s2 = SIGMA2.get(case, 1.0)
    ours = RegularizedLSSVMRegressor(sigma2=s2, terms=terms, selection="loo",
                                     weight_grid={key: ws}).fit(X, y)
    gs = GridSearchCV(RegularizedLSSVMRegressor(sigma2=s2, terms=terms), {f"terms__{key}": ws},
                      cv=LeaveOneOut(), scoring="neg_mean_squared_error").fit(X, y)
    a, b = ours.cv_results_, gs.cv_results_
    assert [p[f"terms__{key}"] for p in a["params"]] == ws
    np.testing.assert_allclose(a["mean_test_score"], b["mean_test_score"], rtol=0, atol=1e-8)
    for k in range(len(X)):
        np.testing.assert_allclose(a[f"split{k}_test_score"], b[f"split{k}_test_score"],
                                   rtol=0, atol=1e-8)
    assert ours.best_params_ == gs.best_params_
    assert ours.best_score_ == pytest.approx(gs.best_score_, abs=1e-8)
    assert a["estimand"] == "refit"


def test_the_loss_estimand_is_another_number_for_a_data_dependent_term():
    terms, key, ws = CASES["GraphLaplacian"]
    X, y = _data()
    refit = RegularizedLSSVMRegressor(terms=terms, selection="loo", weight_grid={key: ws}).fit(X, y)
    loss = RegularizedLSSVMRegressor(terms=terms, selection="loo", loo="loss",
                                     weight_grid={key: ws}).fit(X, y)
    gap = np.abs(refit.cv_results_["mean_test_score"] - loss.cv_results_["mean_test_score"])
    assert gap.max() > 1e-4  # the basis and the graph keep the point under "loss"
    # ... and for the RKHS norm alone both are the same number (representer theorem)
    terms, key, ws = CASES["RKHSNorm"]
    a = RegularizedLSSVMRegressor(terms=terms, selection="loo", weight_grid={key: ws}).fit(X, y)
    b = RegularizedLSSVMRegressor(terms=terms, selection="loo", loo="loss",
                                  weight_grid={key: ws}).fit(X, y)
    np.testing.assert_allclose(a.cv_results_["mean_test_score"],
                               b.cv_results_["mean_test_score"], atol=1e-12)


def test_kfold_with_the_same_splitter_picks_what_gridsearchcv_picks():
    terms, key, ws = CASES["GraphLaplacian"]
    X, y = _data(60, seed=1)
    cv = KFold(5, shuffle=True, random_state=0)
    ours = RegularizedLSSVMRegressor(terms=terms, selection="kfold", cv=cv,
                                     weight_grid={key: ws}).fit(X, y)
    gs = GridSearchCV(RegularizedLSSVMRegressor(terms=terms), {f"terms__{key}": ws}, cv=cv,
                      scoring="neg_mean_squared_error").fit(X, y)
    assert ours.best_params_ == gs.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], atol=1e-8)
    np.testing.assert_allclose(ours.cv_results_["std_test_score"],
                               gs.cv_results_["std_test_score"], atol=1e-8)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  gs.cv_results_["rank_test_score"])


def test_cv_results_read_like_gridsearchcv_in_pandas():
    X, y = _data(40)
    est = RegularizedLSSVMRegressor(selection="kfold", cv=KFold(4, shuffle=True, random_state=0),
                                    weight_grid={"rkhs": [0.01, 0.1, 1.0]},
                                    sigma2_grid=[0.5, 2.0]).fit(X, y)
    df = pd.DataFrame(est.cv_results_)
    for col in ("params", "param_sigma2", "param_terms__rkhs", "split0_test_score",
                "split3_test_score", "mean_test_score", "std_test_score", "rank_test_score"):
        assert col in df.columns
    assert len(df) == 6 and est.best_index_ == int(df["rank_test_score"].idxmin())
    assert est.best_params_ == df["params"][est.best_index_]
    assert est.best_score_ == df["mean_test_score"].max()


@pytest.mark.parametrize("splitter", [ShuffleSplit(4, test_size=0.25, random_state=0),
                                      GroupKFold(3), "iterable"])
def test_any_splitter_and_groups(splitter):
    X, y = _data(36)
    groups = np.repeat(np.arange(6), 6)
    if splitter == "iterable":
        splitter = [(np.arange(18, 36), np.arange(18)), (np.arange(18), np.arange(18, 36))]
    terms, key, ws = CASES["GraphLaplacian"]
    ours = RegularizedLSSVMRegressor(terms=terms, selection="kfold", cv=splitter,
                                     weight_grid={key: ws}).fit(X, y, groups=groups)
    gs = GridSearchCV(RegularizedLSSVMRegressor(terms=terms), {f"terms__{key}": ws}, cv=splitter,
                      scoring="neg_mean_squared_error").fit(X, y, groups=groups)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], atol=1e-8)


class Pinball(Loss):
    task = "regression"

    def __init__(self, tau=0.9, sample_weight=None):
        self.tau = tau
        self.sample_weight = sample_weight

    def epigraph(self, y, f, s):
        r = y - f
        return cp.sum(cp.multiply(s, self.tau * cp.pos(r) + (1 - self.tau) * cp.pos(-r))), {}, {}

    def value(self, y, f):
        r = np.asarray(y) - np.asarray(f)
        return float(np.sum(self.weights(r.size) * np.where(r > 0, self.tau * r,
                                                             (self.tau - 1) * r)))


def test_a_pinball_loss_is_scored_by_pinball_loss_by_default():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (40, 1))
    y = np.sinc(X[:, 0]) + 0.3 * rng.standard_exponential(40)
    ws = [1e-3, 1e-2, 1e-1, 1.0]
    cv = KFold(4, shuffle=True, random_state=0)
    ours = RegularizedLSSVMRegressor(loss=Pinball(0.9), selection="kfold", cv=cv,
                                     weight_grid={"rkhs": ws}).fit(X, y)
    assert ours.cv_results_["scoring"] == "loss (Pinball)"
    pinball = make_scorer(mean_pinball_loss, alpha=0.9, greater_is_better=False)
    gs = GridSearchCV(RegularizedLSSVMRegressor(loss=Pinball(0.9)), {"terms__rkhs": ws}, cv=cv,
                      scoring=pinball).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], atol=1e-7)
    assert ours.best_params_ == gs.best_params_
    mse = RegularizedLSSVMRegressor(loss=Pinball(0.9), selection="kfold", cv=cv,
                                    scoring="neg_mean_squared_error",
                                    weight_grid={"rkhs": ws}).fit(X, y)
    assert mse.cv_results_["scoring"] == "neg_mean_squared_error"


def test_scorer_names_and_callables_for_a_classifier():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, "a", "b")
    for scoring in ("roc_auc", "balanced_accuracy", make_scorer(lambda t, p: np.mean(t == p))):
        est = RegularizedLSSVMClassifier(selection="kfold", cv=3, scoring=scoring,
                                         weight_grid={"rkhs": [0.1, 1.0]}).fit(X, y)
        assert np.isfinite(est.best_score_)
    acc = RegularizedLSSVMClassifier(selection="kfold", cv=3, weight_grid={"rkhs": [0.1, 1.0]})
    assert acc.fit(X, y).cv_results_["scoring"] == "accuracy"


def test_an_inaccurate_refit_is_scored_and_marked_not_an_abort():
    X, y = _data(20)
    est = RegularizedLSSVMRegressor(terms={"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.01)},
                                    selection="kfold", cv=3, solver="SCS",
                                    solver_options={"max_iters": 30}, accept_inaccurate=True,
                                    weight_grid={"l1": [1e-3, 1e-2]})
    with pytest.warns(LssvmCvxWarning, match="inaccurate"):
        est.fit(X, y)
    assert "inaccurate" in set(est.cv_results_["status"])
    assert np.all(np.isfinite(est.cv_results_["mean_test_score"]))


def test_a_failed_candidate_scores_nan_ranks_last_and_every_failure_is_an_error():
    X, y = _data(20)
    terms = {"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.01)}
    est = RegularizedLSSVMRegressor(terms=terms, selection="kfold", cv=3, solver="CLARABEL",
                                    solver_options={"max_iter": 1}, weight_grid={"l1": [1e-3]})
    with pytest.raises(SolverError, match="every fit failed"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
    from lssvm_cvx.estimators.scoring import cv_results

    res = cv_results([{"a": 1}, {"a": 2}], np.array([[-1.0, -2.0], [np.nan, np.nan]]),
                     status=["ok", "failed"], reasons=["", "CLARABEL: status max_iter"])
    assert list(res["rank_test_score"]) == [1, 2] and np.isnan(res["mean_test_score"][1])


def test_an_explicit_width_is_used_as_given():
    X, y = _data(40)
    est = RegularizedLSSVMRegressor(sigma2=1.0, selection="loo").fit(X, y)
    assert est.sigma2_ == 1.0 and "param_sigma2" not in est.cv_results_
    auto = RegularizedLSSVMRegressor(sigma2=1.0, selection="loo", sigma2_grid="auto").fit(X, y)
    assert auto.cv_results_["param_sigma2"].size > 1
    ls = LSSVMRegressor(sigma2=1.0, selection="loo").fit(X, y)
    assert ls.sigma2_ == 1.0 and "param_sigma2" not in ls.cv_results_
    assert LSSVMRegressor(selection="loo", sigma2_grid="auto").fit(X, y).cv_results_[
        "param_sigma2"].size > 1


def test_lssvm_estimators_take_the_same_vocabulary():
    X, y = _data(40)
    cv = KFold(4, shuffle=True, random_state=0)
    ls = LSSVMRegressor(selection="kfold", cv=cv, gamma_grid=[1.0, 10.0, 100.0]).fit(X, y)
    gs = GridSearchCV(LSSVMRegressor(), {"gamma": [1.0, 10.0, 100.0]}, cv=cv,
                      scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(ls.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], atol=1e-8)
    assert ls.best_params_ == gs.best_params_
    loo = LSSVMRegressor(selection="loo", gamma_grid=[1.0, 10.0]).fit(X, y)
    gsl = GridSearchCV(LSSVMRegressor(), {"gamma": [1.0, 10.0]}, cv=LeaveOneOut(),
                       scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(loo.cv_results_["mean_test_score"],
                               gsl.cv_results_["mean_test_score"], atol=1e-10)
    clf = LSSVMClassifier(selection="kfold", cv=3, scoring="roc_auc",
                          gamma_grid=[0.1, 10.0]).fit(X, (y > 0.3).astype(int))
    assert clf.cv_results_["scoring"] == "roc_auc" and np.isfinite(clf.best_score_)


# --- semi-supervised: weight 0 keeps a point in the basis and the terms -----------------------
def test_laplacian_rls_zero_weights_stay_in_the_graph_and_match_cvxpy():
    from sklearn.datasets import make_moons

    from lssvm_cvx.formulations import RegularizedLSSVM
    from lssvm_cvx.kernels import RBF

    X, y = make_moons(120, noise=0.08, random_state=0)
    labeled = np.zeros(120)
    labeled[np.r_[np.flatnonzero(y == 0)[:5], np.flatnonzero(y == 1)[:5]]] = 1.0
    terms = {"rkhs": (RKHSNorm(), 1e-2), "graph": (GraphLaplacian(n_neighbors=6), 0.1)}
    est = RegularizedLSSVMClassifier(sigma2=0.1, terms=terms).fit(X, y, sample_weight=labeled)
    assert est.dual_coef_.shape == (120,)  # every point in the basis
    assert est.score(X, y) > 0.95  # ten labels, the graph carries them along the moons
    sup = RegularizedLSSVMClassifier(sigma2=0.1, terms={"rkhs": (RKHSNorm(), 1e-2)})
    assert est.score(X, y) > sup.fit(X, y, sample_weight=labeled).score(X, y) + 0.1
    # the fast path against a cvxpy solve of the same composition
    from lssvm_cvx.losses import Squared

    f = RegularizedLSSVM(X, np.where(y == 1, 1.0, -1.0), kernel=RBF(0.1), terms=terms,
                         loss=Squared(sample_weight=labeled))
    cf, cl = f.solve(), f.solve("CLARABEL")
    assert np.abs(cf["f"] - cl["f"]).max() < 1e-5 * np.abs(cl["f"]).max()
    np.testing.assert_allclose(est.decision_function(X), cf["f"], atol=1e-8)


@pytest.mark.parametrize("loo", ["loss", "refit"])
def test_a_laplacian_rls_search_scores_what_refits_of_the_labelled_points_score(loo):
    """Laplacian RLS (a third of the points unlabelled) searched by leave-one-out: each
    candidate's score is the mean squared error of refits that drop one labelled point —
    from the loss only (``loo="loss"``: a weight of 0, the graph and basis keep it; the
    closed-form path, in the range of K since the fifteenth session) or from the data
    (``loo="refit"``: the estimator refitted without the row, GridSearchCV's estimand)."""
    X, y = _data(30, seed=4)
    w = np.ones(30)
    w[::3] = 0.0
    grid = [1e-3, 1e-1, 10.0]
    terms = {"rkhs": (RKHSNorm(), 1e-2), "graph": (GraphLaplacian(n_neighbors=5), 0.1)}
    est = RegularizedLSSVMRegressor(sigma2=0.5, terms=terms, selection="loo", loo=loo,
                                    weight_grid={"graph": grid}).fit(X, y, sample_weight=w)
    labelled = np.flatnonzero(w > 0)
    for g, score in zip(grid, est.cv_results_["mean_test_score"]):
        fixed = {"rkhs": terms["rkhs"], "graph": (GraphLaplacian(n_neighbors=5), g)}
        errs = []
        for i in labelled:
            if loo == "loss":
                wi = w.copy()
                wi[i] = 0.0
                m = RegularizedLSSVMRegressor(sigma2=0.5, terms=fixed).fit(X, y, sample_weight=wi)
            else:
                keep = np.setdiff1d(np.arange(30), [i])
                m = RegularizedLSSVMRegressor(sigma2=0.5, terms=fixed).fit(
                    X[keep], y[keep], sample_weight=w[keep])
            errs.append((y[i] - m.predict(X[i:i + 1])[0]) ** 2)
        assert score == pytest.approx(-np.mean(errs), rel=1e-7)


def test_zero_weight_points_are_never_held_out():
    X, y = _data(30)
    w = np.ones(30)
    w[:10] = 0.0
    est = RegularizedLSSVMRegressor(terms=CASES["GraphLaplacian"][0], selection="loo",
                                    weight_grid={"g": [1e-3, 1e-2]}).fit(X, y, sample_weight=w)
    assert est.cv_results_["n_splits"] == 20


# --- bad input: one line naming the argument --------------------------------------------------
def test_bad_selection_arguments_are_named():
    X, y = _data(20)
    with pytest.raises(HyperparameterError, match="scoring='neg_mse'.*did you mean"):
        RegularizedLSSVMRegressor(selection="loo", scoring="neg_mse").fit(X, y)
    with pytest.raises(InputError, match="cv: split 0 has an empty test set|no labelled test"):
        RegularizedLSSVMRegressor(selection="kfold", cv=[(np.arange(10, 20), np.array([], int))]
                                  ).fit(X, y)
    with pytest.raises(HyperparameterError, match="'loo' parameter of RegularizedLSSVMRegressor"):
        RegularizedLSSVMRegressor(selection="loo", loo="exact").fit(X, y)
    with pytest.raises(HyperparameterError, match="'cv' parameter of RegularizedLSSVMRegressor"):
        RegularizedLSSVMRegressor(selection="kfold", cv="five").fit(X, y)
    with pytest.raises(HyperparameterError, match="sigma2_grid"):
        RegularizedLSSVMRegressor(kernel="linear", selection="loo", sigma2_grid="auto").fit(X, y)

    class BoundToTheTrainingSet(Term):
        supports_refit = False

        def quadratic(self, ctx):
            return np.eye(ctx.n)

    with pytest.raises(HyperparameterError, match="loo='refit'.*BoundToTheTrainingSet.*loo='loss'"):
        RegularizedLSSVMRegressor(terms={"rkhs": (RKHSNorm(), 0.1),
                                         "bound": (BoundToTheTrainingSet(), 0.1)},
                                  selection="loo", weight_grid={"bound": [0.1]}).fit(X, y)


@pytest.mark.parametrize("estimator", [RegularizedLSSVMRegressor, RegularizedLSSVMClassifier,
                                       LSSVMRegressor, LSSVMClassifier])
def test_an_unknown_scorer_is_refused_with_or_without_a_search(estimator):
    """As the LS-SVM estimators always did; the composed ones passed it unsaid without a
    search until 2026-11-30 (it would only fail once ``selection`` was set)."""
    X, y = _data(20)
    with pytest.raises(HyperparameterError, match="scoring='neg_mse'"):
        estimator(scoring="neg_mse").fit(X, np.sign(y))


def test_a_fixed_matrix_term_restricts_to_the_remaining_points():
    X, y = _data(20)
    rng = np.random.default_rng(0)
    G = rng.standard_normal((20, 20))
    terms = {"rkhs": (RKHSNorm(), 0.1), "q": (Quadratic(G @ G.T / 20), 0.1)}
    ours = RegularizedLSSVMRegressor(terms=terms, selection="loo",
                                     weight_grid={"q": [0.1, 1.0]}).fit(X, y)
    brute = []
    for i in range(3):  # refit without point i: its row and column of P leave too
        keep = np.setdiff1d(np.arange(20), [i])
        sub = {"rkhs": (RKHSNorm(), 0.1), "q": (Quadratic((G @ G.T / 20)[np.ix_(keep, keep)]), 0.1)}
        m = RegularizedLSSVMRegressor(terms=sub).fit(X[keep], y[keep])
        brute.append(-(y[i] - m.predict(X[i:i + 1])[0]) ** 2)
    np.testing.assert_allclose([ours.cv_results_[f"split{i}_test_score"][0] for i in range(3)],
                               brute, atol=1e-10)


def test_a_constraint_only_term_is_refused_not_silently_weightless():
    from lssvm_cvx.exceptions import TermError
    from lssvm_cvx.formulations import RegularizedLSSVM

    class Monotone(Term):
        """f' ≥ 0 between neighbouring training points, as hard constraints only."""

        def expr(self, alpha, ctx):
            return cp.Constant(0.0)

        def value(self, alpha, ctx):
            return 0.0

        def epigraph(self, alpha, ctx):
            order = np.argsort(ctx.X[:, 0])
            D = np.diff(np.eye(ctx.n)[order], axis=0)
            return cp.Constant(0.0), {"increasing": D @ ctx.K @ alpha >= 0}, {}

    X, y = _data(20)
    f = RegularizedLSSVM(X, y, terms={"rkhs": (RKHSNorm(), 0.1), "mono": (Monotone(), 5.0)})
    with pytest.raises(TermError, match="term 'mono' .*only constraints.*no weight"):
        f.build()


@pytest.mark.parametrize("graph", [GraphLaplacian(n_neighbors=4),
                                   GraphLaplacian(n_neighbors=4, sigma2=0.5),
                                   GraphLaplacian(n_neighbors=4, normalized=True)])
@pytest.mark.parametrize("removed", [[3], [0, 5, 11]])
def test_graph_refit_change_is_the_recomputed_term(graph, removed):
    """P on the remaining points = P[keep, keep] + U C U' (one neighbour search serves every
    refit), against the term recomputed from scratch on those points."""
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.terms import Context

    X, _ = _data(25)
    K = RBF(0.5)(X)
    ctx = Context(K=K, X=X, kernel=RBF(0.5))
    keep = np.setdiff1d(np.arange(25), removed)
    U, C = graph.refit_change(ctx, keep)
    P = graph.quadratic(ctx)
    fresh = graph.quadratic(Context(K=K[np.ix_(keep, keep)], X=X[keep], kernel=RBF(0.5)))
    np.testing.assert_allclose(P[np.ix_(keep, keep)] + U @ C @ U.T, fresh, atol=1e-12)
    if len(removed) == 1 and not graph.normalized:
        assert U.shape[1] <= 3 * 4  # the point, its neighbours and those taking new ones


@pytest.mark.parametrize("cv", [LeaveOneOut(), KFold(7, shuffle=True, random_state=0)])
def test_roughness_refit_is_one_factorisation_per_fold_size_and_equals_refits(cv):
    """The roughness is a mean over the training points: on fewer points the rescaled matrix
    plus a rank-(p m) change (Roughness.refit_change); one factorisation per distinct fold size
    (KFold(7) on 30 points: sizes 5 and 4), equal to brute-force refits to 1e-8."""
    from lssvm_cvx.formulations import RegularizedLSSVM
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.heldout import heldout_predictions

    X, y = _data(30)
    X2 = np.c_[X, np.random.default_rng(5).uniform(-3, 3, size=len(X))]  # p = 2 per point
    form = RegularizedLSSVM(X2, y, kernel=RBF(1.0),
                            terms={"rkhs": (RKHSNorm(), 0.1), "r": (Roughness(), 0.05)})
    splits = [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(X2)]
    got = heldout_predictions(form, splits)
    assert "closed form" in got.method and "low-rank" in got.method, got.method
    K = form.context.K
    for (train, test), pred in zip(splits, got.predictions):
        f = form.without(np.setdiff1d(np.arange(len(y)), train))
        f.y = y[train]
        sol = f.solve("closed_form")
        ref = K[np.ix_(test, train)] @ sol["alpha"] + sol.scalar("b")
        np.testing.assert_allclose(pred, ref, rtol=0, atol=1e-8)
