"""The low-rank screens (:mod:`lssvm_cvx.selection.screen`): one LOO formula serves the
composed estimators' (σ², weight) search (issue 16), of which the LS-SVM's (γ, σ²) search is a
preset.  The screen
is the exact LOO of the subset-of-regressors model (checked against the exact path when every row
is a landmark, and against brute-force refits of that restricted model, for both searches), its
two decompositions (the SVD of the features, the generalised eigenproblem) agree, and the search
is exact at its choice: every score it reports as exact equals the exhaustive grid's score
there."""

import numpy as np
import pytest

from lssvm_cvx import LSSVMRegressor, RegularizedLSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import Squared
from lssvm_cvx.selection.screen import (
    nystroem_features,
    screen_landmarks,
    screen_loo,
    screen_path,
    widen,
)
from lssvm_cvx.terms import GraphLaplacian, Quadratic, Ridge, RKHSNorm


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    return X, np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("terms,key,rtol", [
    ({"rkhs": (RKHSNorm(), 0.1), "ridge": (Ridge(), 0.01)}, "ridge", 1e-10),
    ({"rkhs": (RKHSNorm(), 0.1)}, "rkhs", 1e-5),
    ({"rkhs": (RKHSNorm(), 0.1), "g": (GraphLaplacian(n_neighbors=5), 0.01)}, "g", 1e-5),
])
def test_screen_with_every_row_a_landmark_is_the_exact_path(weighted, terms, key, rtol):
    X, y = _data()
    s = np.random.default_rng(1).uniform(0.5, 2.0, y.size) if weighted else None
    f = RegularizedLSSVM(X, y, kernel=RBF(0.5), loss=Squared(sample_weight=s), terms=terms)
    ws = np.logspace(-3, 1, 5)
    exact = [np.mean(r ** 2) for r in f.path(key, ws).residuals]
    # eigenvalues of K_LL below 1e-10 λ_max are dropped by the screen: RKHS paths agree to ~1e-7
    np.testing.assert_allclose(screen_path(f, key, ws, y, np.arange(y.size), "mse"), exact, rtol=rtol)


def test_screen_is_the_exact_loo_of_the_restricted_model():
    """Brute force: α restricted to the landmark columns, observation i removed from the loss."""
    X, y = _data(60)
    L = screen_landmarks(60, 15, random_state=0)
    f = RegularizedLSSVM(X, y, kernel=RBF(0.1), terms={"rkhs": (RKHSNorm(), 0.05)})
    K = f.context.K
    w = 0.05
    r = np.empty(y.size)
    for i in range(y.size):
        k = np.arange(y.size) != i
        Z = np.hstack([np.ones((k.sum(), 1)), K[np.ix_(k, L)]])
        M = Z.T @ Z
        M[1:, 1:] += w * K[np.ix_(L, L)] + 1e-12 * np.eye(L.size)
        beta = np.linalg.solve(M, Z.T @ y[k])
        r[i] = y[i] - (beta[0] + K[i, L] @ beta[1:])
    screened = screen_path(f, "rkhs", [w], y, L, "mse")[0]
    assert screened == pytest.approx(np.mean(r ** 2), rel=1e-6)


@pytest.mark.parametrize("terms,grid", [
    (None, None),
    ({"rkhs": (RKHSNorm(), 0.1), "ridge": (Ridge(), 0.01)},
     {"ridge": [1e-3, 1e-1, 10.0], "rkhs": [0.01, 1.0]}),
])
def test_screened_search_is_exact_at_its_choice(terms, grid):
    X, y = _data(150)
    # the screen covers the "loss" estimand (for the RKHS norm alone it equals "refit")
    kw = dict(selection="loo", loo="loss", terms=terms, weight_grid=grid,
              sigma2_grid=[0.1, 0.5, 2.0, 8.0], random_state=0)
    scr = RegularizedLSSVMRegressor(search="screen", **kw).fit(X, y)
    full = RegularizedLSSVMRegressor(search="grid", **kw).fit(X, y)
    a, b = scr.cv_results_, full.cv_results_
    assert a["params"] == b["params"]
    done = np.isfinite(a["mean_test_score"])
    assert 0 < done.sum() < done.size                      # a short list, not the whole grid
    np.testing.assert_allclose(a["mean_test_score"][done], b["mean_test_score"][done], rtol=1e-8)
    best = int(np.nanargmax(a["mean_test_score"]))
    assert scr.sigma2_ == a["params"][best]["sigma2"]
    assert np.isfinite(a["screen_scores"]).all()


@pytest.mark.parametrize("terms,grid,classify,shortlist", [
    (None, None, False, "SCREEN_SHORTLIST_WIDTHS"),
    (None, None, True, "SCREEN_SHORTLIST_WIDTHS"),
    ({"rkhs": (RKHSNorm(), 0.1), "ridge": (Ridge(), 0.01)},
     {"rkhs": np.logspace(-4, 2, 7), "ridge": [1e-3, 1e-1]}, False, "SCREEN_SHORTLIST"),
    # widths only, but a term other than the RKHS norm: the composed screen, two
    ({"rkhs": (RKHSNorm(), 0.1), "ridge": (Ridge(), 0.01)}, None, False, "SCREEN_SHORTLIST"),
])
def test_the_shortlist_is_one_width_for_rkhs_norms_alone_else_two(terms, grid, classify,
                                                                 shortlist):
    """The exact step scores the windows of the best :data:`SCREEN_SHORTLIST_WIDTHS` (= 1)
    screened widths when every term is an RKHS norm and only σ² is screened (the LS-SVM's
    search), else of the best :data:`SCREEN_SHORTLIST` (= 2) screened (σ², other weights)
    candidates; ``n_exact`` counts the candidates scored exactly, in the composed results as
    in the LS-SVM's."""
    import lssvm_cvx.estimators.regularized_search as rs

    X, y = _data(150)
    cls = RegularizedLSSVMClassifier if classify else RegularizedLSSVMRegressor
    target = (y > np.median(y)).astype(int) if classify else y
    est = cls(selection="loo", loo="loss", search="screen", terms=terms, weight_grid=grid,
              sigma2_grid=[0.1, 0.5, 2.0, 8.0], random_state=0).fit(X, target)
    res = est.cv_results_
    done = np.isfinite(res["mean_test_score"])
    scored = {tuple((k, v) for k, v in p.items() if k != "terms__rkhs")
              for p, d in zip(res["params"], done) if d}
    assert len(scored) == getattr(rs, shortlist) == (1 if "WIDTHS" in shortlist else 2)
    assert res["n_exact"] == done.sum() >= 2       # a window around each screened optimum


def test_screen_for_a_classifier_and_bad_search():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    est = RegularizedLSSVMClassifier(selection="loo", search="screen", random_state=0,
                                     sigma2_grid=[0.5, 2.0, 8.0]).fit(X, y)
    assert est.score(X, y) > 0.8
    with pytest.raises(HyperparameterError, match="search"):
        RegularizedLSSVMRegressor(selection="loo", search="fast").fit(X, y.astype(float))


def _nystroem_lssvm_loo(K_XL, K_LL, y, gamma):
    """Brute force: the LS-SVM with the Gram ``K_XL K_LL^+ K_LX`` refitted without each point
    (its dual system, solved densely), the residual at the point left out."""
    Kt = K_XL @ np.linalg.pinv(K_LL, rcond=1e-10, hermitian=True) @ K_XL.T
    n = y.size
    r = np.empty(n)
    for i in range(n):
        k = np.arange(n) != i
        m = int(k.sum())
        A = np.zeros((m + 1, m + 1))
        A[0, 1:] = A[1:, 0] = 1.0
        A[1:, 1:] = Kt[np.ix_(k, k)] + np.eye(m) / gamma
        sol = np.linalg.solve(A, np.r_[0.0, y[k]])
        r[i] = y[i] - (Kt[i, k] @ sol[1:] + sol[0])
    return r


@pytest.mark.parametrize("gamma", [0.1, 10.0])
def test_the_lssvm_screen_is_the_exact_loo_of_the_nystroem_lssvm(gamma):
    X, y = _data(50)
    kern = RBF(0.5)
    Z = X[screen_landmarks(50, 12, random_state=3)]
    F, _ = nystroem_features(kern(X, Z), kern(Z))
    r = _nystroem_lssvm_loo(kern(X, Z), kern(Z), y, gamma)
    assert screen_loo(F, y, [1.0 / gamma], "mse")[0] == pytest.approx(np.mean(r ** 2), rel=1e-8)
    labels = np.sign(y - np.median(y))
    r = _nystroem_lssvm_loo(kern(X, Z), kern(Z), labels, gamma)
    assert screen_loo(F, labels, [1.0 / gamma], "misclassification")[0] == \
        pytest.approx(np.mean(labels * (labels - r) <= 0))


@pytest.mark.parametrize("weighted", [False, True])
def test_the_svd_and_the_generalised_eigenproblem_give_one_screen(weighted):
    """``key=None`` (the identity) takes the SVD of the features, an explicit identity the
    generalised eigenproblem: the same criterion."""
    X, y = _data(70)
    kern = RBF(0.3)
    Z = X[screen_landmarks(70, 20, random_state=1)]
    F, _ = nystroem_features(kern(X, Z), kern(Z))
    s = np.random.default_rng(2).uniform(0.5, 2.0, y.size) if weighted else None
    ws = np.logspace(-4, 1, 6)
    Y = np.column_stack([y, np.cos(X[:, 0])])
    svd = screen_loo(F, Y, ws, "mse", sample_weight=s)
    eig = screen_loo(F, Y, ws, "mse", sample_weight=s, key=np.eye(F.shape[1]))
    np.testing.assert_allclose(svd, eig, rtol=1e-7)


def test_the_lssvm_search_is_exact_at_its_choice_and_reproducible():
    """Every exact score of the LS-SVM's screened (γ, σ²) search (the composed search with the
    RKHS weight 1/γ) is the exhaustive grid's LOO MSE there, and the default
    ``random_state=None`` gives the same landmarks each time."""
    from lssvm_cvx.selection.lssvm import select_gamma_sigma2

    X, y = _data(400)
    gammas, s2s = np.logspace(-2, 3, 6), [0.1, 0.5, 2.0]
    a, b = (LSSVMRegressor(selection="loo", search="screen", gamma_grid=gammas,
                           sigma2_grid=s2s).fit(X, y).cv_results_ for _ in range(2))
    np.testing.assert_array_equal(a["screen_scores"], b["screen_scores"])
    full = select_gamma_sigma2(X, y, gammas, s2s, criterion="loo")
    scores = np.asarray(a["scores"])
    done = np.isfinite(scores)
    assert 0 < done.sum() < done.size and a["n_exact"] == done.sum()
    np.testing.assert_allclose(scores[done], np.asarray(full.scores)[done], rtol=1e-10)


@pytest.mark.parametrize("j0, window", [(0, 1), (9, 1), (5, 0), (3, 2)])
def test_widen_walks_to_the_exact_optimum_of_a_unimodal_row(j0, window):
    """The exact evaluations follow the criterion from the screened optimum to the exact one,
    each grid point at most once, and stop when the optimum has both neighbours evaluated."""
    curve = (np.arange(10) - 6.0) ** 2
    seen: list[int] = []

    def evaluate(todo):
        seen.extend(todo)
        return curve[todo]

    row = np.full(10, np.nan)
    n = widen(evaluate, row, j0, window)
    assert n == len(seen) == len(set(seen))
    assert int(np.nanargmin(row)) == 6 and {5, 6, 7} <= set(seen)
    np.testing.assert_array_equal(row[seen], curve[seen])
    assert np.isnan(row).sum() == 10 - n


def _graph_matrix(ctx):
    """The graph term's ``K L K`` as a plain matrix (not declared on the fitted values)."""
    return ctx.K @ GraphLaplacian(n_neighbors=5).laplacian(ctx) @ ctx.K


@pytest.mark.parametrize("est,name,term,whole", [
    (RegularizedLSSVMRegressor, "ridge", Ridge(), True),
    (RegularizedLSSVMRegressor, "g", GraphLaplacian(n_neighbors=5), True),
    (RegularizedLSSVMRegressor, "q", Quadratic(_graph_matrix), False),
    (RegularizedLSSVMClassifier, "ridge", Ridge(), True),
    (RegularizedLSSVMClassifier, "g", GraphLaplacian(n_neighbors=5), True)])
def test_the_exact_step_scores_a_whole_path_where_one_eigendecomposition_serves(est, name,
                                                                              term, whole):
    """A term other than the RKHS norm makes the exact system another than the bordered one;
    where one eigendecomposition serves the path — a definite generalised pencil (the ridge),
    or K's for the range of K (the graph term, on the fitted values, since the thirteenth
    session) — the exact step scores each shortlisted candidate's whole path from it, as the
    grid does; where none does (the same graph matrix given as a plain ``Quadratic``: the
    pencils are refused) it scores a widened window, one system per weight.  The choice, its
    scores and the final fit are the grid's either way, for a regressor and a three-class
    classifier (accuracy: the screen's error-rate criterion, one column of ±1 targets per
    class)."""
    classifier = est is RegularizedLSSVMClassifier
    X, y = _data(150, seed=1 if classifier else 0)
    target = np.digitize(y, [0.1, 0.5]) if classifier else y
    kw = dict(selection="loo", loo="loss", terms={"rkhs": (RKHSNorm(), 0.1), name: (term, 0.01)},
              weight_grid={"rkhs": np.logspace(-4, 2, 7), name: [1e-3, 1e-1]},
              sigma2_grid=[0.1, 0.5, 2.0, 8.0], random_state=0)
    scr = est(search="screen", **kw).fit(X, target)
    full = est(search="grid", **kw).fit(X, target)
    a, b = scr.cv_results_, full.cv_results_
    per_candidate = np.isfinite(a["mean_test_score"]).reshape(-1, 7).sum(axis=1)
    assert sorted(per_candidate[per_candidate > 0]) == ([7, 7] if whole else [3, 3])
    done = np.isfinite(a["mean_test_score"])
    np.testing.assert_allclose(a["mean_test_score"][done], b["mean_test_score"][done], rtol=1e-12)
    assert scr.best_params_ == full.best_params_
    if classifier:
        np.testing.assert_array_equal(scr.predict(X), full.predict(X))
    else:
        np.testing.assert_allclose(scr.predict(X), full.predict(X), rtol=1e-10, atol=1e-12)
