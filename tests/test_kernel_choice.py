"""Kernel type per selected input by paired k-fold CV (lssvm_cvx.selection.kernel_choice) and
the componentwise estimators' ``kernel_choice`` option: the CV numbers against brute-force
refits, the paired one-SE rule, and the refitted model against a direct LS-SVM solve."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from lssvm_cvx import ComponentwiseLSSVMClassifier, ComponentwiseLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations.componentwise import component_kernels
from lssvm_cvx.kernels import RBF, Componentwise, Linear
from lssvm_cvx.linalg.folds import make_folds
from lssvm_cvx.selection.kernel_choice import choose_kernels, loo_factors, simplest_within_one_se
from lssvm_cvx.selection.lssvm import gamma_sweep, loo_residuals

GAMMAS = np.logspace(-2, 3, 6)


@pytest.fixture(scope="module")
def curved():
    """x1 strongly curved, x2 linear, x3 irrelevant (N = 80, noise 0.3)."""
    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, (80, 3))
    y = 2 * np.sin(2 * np.pi * X[:, 0]) + 3 * X[:, 1] + 0.3 * rng.normal(size=80)
    return X, y


def lssvm_fit_predict(K_tr, y_tr, K_te, gamma):
    """LS-SVM (eq. 16) by a dense solve of the full KKT system (independent of the package)."""
    n = len(y_tr)
    M = np.zeros((n + 1, n + 1))
    M[0, 1:] = M[1:, 0] = 1.0
    M[1:, 1:] = K_tr + np.eye(n) / gamma
    sol = np.linalg.solve(M, np.r_[0.0, y_tr])
    return K_te @ sol[1:] + sol[0], sol[1:], sol[0]


def brute_cv(X, y, comps, S, folds):
    """Mean k-fold CV error at the best γ of GAMMAS, by refitting on every training part."""
    K = sum(c[0](X[:, list(c[1])]) for c in (comps[d] for d in S))
    best = np.inf
    for g in GAMMAS:
        sq = np.zeros(len(y))
        for f in folds:
            tr = np.setdiff1d(np.arange(len(y)), f)
            sq[f] = (lssvm_fit_predict(K[np.ix_(tr, tr)], y[tr], K[np.ix_(f, tr)], g)[0] - y[f]) ** 2
        best = min(best, sq.mean())
    return best


def test_cv_errors_equal_brute_force_refits(curved):
    X, y = curved
    comps = component_kernels(Componentwise([RBF(0.5), Linear()]), 3)   # 0-2 RBF, 3-5 linear
    folds = make_folds(len(y), 5, 0)
    kc = choose_kernels(X, y, comps, [3, 4], gammas=GAMMAS, folds=folds)
    assert kc.log, "both selected inputs have two candidates"
    current = {tuple(comps[d][1]): d for d in [3, 4]}
    for rec in kc.log:                  # replay the visits: the other inputs keep their choice
        g = tuple(rec["columns"])
        others = [d for h, d in current.items() if h != g]
        for c, m in zip(rec["candidates"], rec["mean"]):
            assert m == pytest.approx(brute_cv(X, y, comps, sorted(others + [c]), folds), rel=1e-8)
        current[g] = rec["chosen"]
    assert sorted(current.values()) == kc.selected.tolist()
    assert kc.cv_mse == pytest.approx(brute_cv(X, y, comps, kc.selected.tolist(), folds), rel=1e-8)


@pytest.mark.parametrize("method", ["dense", "factors"])
def test_leave_one_out_equals_brute_force_refits(curved, method):
    """Exact LOO by the dense system and by the component factors (low rank), both against
    refits on N - 1 points."""
    X, y = curved
    comps = component_kernels(Componentwise([RBF(0.5), Linear()]), 3)
    kc = choose_kernels(X, y, comps, [0, 4], gammas=GAMMAS, method=method)   # folds=None: LOO
    loo = [np.array([i]) for i in range(len(y))]
    first = kc.log[0]                                                 # input x1, x2 at linear
    for c, m in zip(first["candidates"], first["mean"]):
        assert m == pytest.approx(brute_cv(X, y, comps, sorted([4, c]), loo), rel=1e-7)
    assert kc.cv_mse == pytest.approx(brute_cv(X, y, comps, kc.selected.tolist(), loo), rel=1e-7)


def test_loo_factors_equals_the_dense_closed_form():
    rng = np.random.default_rng(3)
    F = rng.normal(size=(50, 6))
    y = F @ rng.normal(size=6) + 0.5 * rng.normal(size=50)
    g, sq = loo_factors(F, y, GAMMAS)
    sweep = gamma_sweep(F @ F.T, y, GAMMAS, criterion="loo")
    assert g == sweep.best_gamma
    np.testing.assert_allclose(sq, loo_residuals(F @ F.T, y, g) ** 2, rtol=1e-9, atol=1e-12)
    with pytest.raises(HyperparameterError):
        loo_factors(F, y, [])


def test_curved_input_gets_rbf_linear_input_gets_linear(curved):
    X, y = curved
    comps = component_kernels(Componentwise([RBF(0.5), Linear()]), 3)
    for folds in (make_folds(len(y), 10, 0), None):
        for start in ([0, 1], [3, 4], [0, 4]):
            kc = choose_kernels(X, y, comps, start, gammas=GAMMAS, folds=folds)
            assert kc.selected.tolist() == [0, 4], start
            assert kc.changed == (start != [0, 4])
            assert kc.initial.tolist() == start and kc.to_dict()["initial"] == start
    folds = make_folds(len(y), 10, 0)
    # inputs the sparse fit did not select stay out, and are not visited
    kc = choose_kernels(X, y, comps, [4], gammas=GAMMAS, folds=folds)
    assert {comps[d][1] for d in kc.selected} == {(1,)} and all(r["columns"] == [1] for r in kc.log)
    empty = choose_kernels(X, y, comps, [], gammas=GAMMAS, folds=folds)
    assert empty.selected.size == 0 and not empty.changed


def test_paired_one_se_rule():
    rng = np.random.default_rng(0)
    base = rng.exponential(3.0, 400)        # large per-point spread shared by both candidates
    complex_ = base
    simple_close = base + 0.001 + 0.05 * rng.normal(size=400)    # within one paired SE
    simple_far = base + 0.10 + 0.05 * rng.normal(size=400)      # far beyond it
    for simple, expect in ((simple_close, 1), (simple_far, 0)):
        L = np.stack([complex_, simple])
        k, mean, se = simplest_within_one_se(L, [10.0, 1.0])
        d = simple - complex_
        assert se[1] == pytest.approx(d.std(ddof=1) / np.sqrt(400))
        assert se[0] == 0.0 and k == expect
        # the minimum ignores simplicity
        assert simplest_within_one_se(L, [10.0, 1.0], "min")[0] == int(np.argmin(mean))
    # an unpaired SE (the spread of the best candidate's losses) would have accepted the far
    # candidate: the pairing is what keeps the better, more complex one
    far = simple_far - complex_
    assert far.mean() < complex_.std(ddof=1) / np.sqrt(400)
    # ties in complexity: the lower mean
    L = np.stack([base + 0.001, base, base + 0.002])
    assert simplest_within_one_se(L, [1.0, 1.0, 1.0])[0] == 1


def test_bad_arguments(curved):
    X, y = curved
    comps = component_kernels(Componentwise([RBF(0.5), Linear()]), 3)
    folds = make_folds(len(y), 5, 0)
    with pytest.raises(HyperparameterError):
        choose_kernels(X, y, comps, [0], gammas=GAMMAS, folds=folds, rule="best")
    with pytest.raises(InputError):
        choose_kernels(X, y, comps, [7], gammas=GAMMAS, folds=folds)
    with pytest.raises(HyperparameterError):
        choose_kernels(X, y, comps, [0], gammas=GAMMAS, method="eigh")
    for bad in ([], [1.0, -1.0], [np.nan]):
        with pytest.raises(HyperparameterError):
            choose_kernels(X, y, comps, [0], gammas=bad)
    with pytest.raises(InputError):
        choose_kernels(X, y[:-1], comps, [0], gammas=GAMMAS)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(InputError):
        choose_kernels(Xn, y, comps, [0], gammas=GAMMAS)
    with pytest.raises(InputError):
        simplest_within_one_se(np.ones((2, 5)), [1.0])
    with pytest.raises(InputError):
        simplest_within_one_se(np.ones(5), [1.0])
    with pytest.raises(HyperparameterError):
        ComponentwiseLSSVMRegressor(penalty="stp", kernel=["rbf", "linear"],
                                    kernel_choice="gcv").fit(X, y)


def fit_quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


def test_estimator_refits_on_the_chosen_components(curved):
    X, y = curved
    ss = float(np.sum((y - y.mean()) ** 2))
    kw = dict(penalty="stp", kernel=["rbf", "linear"], sigma2=0.5, lam=0.2 * ss)
    est = fit_quiet(ComponentwiseLSSVMRegressor(**kw), X, y)
    raw = fit_quiet(ComponentwiseLSSVMRegressor(**kw, kernel_choice=None), X, y)
    assert raw.kernel_choice_ is None
    kc = est.kernel_choice_
    assert est.selected_labels() == [((0,), "RBF"), ((1,), "Linear")]
    assert est.selected_components_.tolist() == kc["selected"]
    # the sparse fit's own selection is recorded: it is the model without the kernel choice
    assert kc["initial"] == raw.selected_components_.tolist()
    # inputs are the sparse fit's; only their kernels may change
    assert ({c[0] for c, _ in raw.selected_labels()} == {c[0] for c, _ in est.selected_labels()})
    # the model is the LS-SVM on the chosen components at the CV's γ (independent dense solve)
    comps = component_kernels(est.kernel_, 3)
    K = lambda A, B: sum(comps[d][0](A[:, list(comps[d][1])], B[:, list(comps[d][1])])  # noqa: E731
                         for d in kc["selected"])
    Xt = np.random.default_rng(1).uniform(0, 1, (15, 3))
    ref, _, _ = lssvm_fit_predict(K(X, X), y, K(Xt, X), kc["gamma"])
    np.testing.assert_allclose(est.predict(Xt), ref, rtol=1e-8, atol=1e-8)
    F = est.predict_components(Xt)
    np.testing.assert_allclose(F.sum(1) + est.intercept_, est.predict(Xt), atol=1e-10)
    # one kernel per input: nothing to choose, the sparse fit is the model
    one = fit_quiet(ComponentwiseLSSVMRegressor(penalty="stp", sigma2=0.5, lam=kw["lam"]), X, y)
    assert one.kernel_choice_ is None


def test_classifier_kernel_choice(curved):
    X, y = curved
    lab = np.where(y > np.median(y), 1, 0)
    est = fit_quiet(ComponentwiseLSSVMClassifier(penalty="stp", kernel=["rbf", "linear"], sigma2=0.5,
                                                 lam=5.0), X, lab)
    assert est.kernel_choice_ is not None
    assert {c[0] for c, _ in est.selected_labels()} >= {0}
    assert est.score(X, lab) > 0.8
