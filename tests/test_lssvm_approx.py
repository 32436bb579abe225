"""The LS-SVM estimators with ``approximation="nystroem" | "rff"`` (issue 16): the streamed fit
is the exact LS-SVM on the approximate Gram ΦΦ', its LOO residuals are exact for that model
(brute-force refits), the Dask path equals the in-memory path on a LocalCluster without
gathering anything with N rows, no N × m array is allocated, bad input gets clear errors and
leaves nothing fitted."""

import tracemalloc

import numpy as np
import pytest

from lssvm_cvx import LSSVMClassifier, LSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError, NotFittedError

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


def _data(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(n)
    return X, y


@pytest.mark.parametrize("kind", ["nystroem", "rff"])
def test_approximate_fit_is_the_lssvm_on_the_approximate_gram(kind):
    X, y = _data(200)
    Xt, _ = _data(40, seed=1)
    est = LSSVMRegressor(sigma2=2.0, gamma=10.0, approximation=kind, n_components=50,
                         random_state=1).fit(X, y)
    Phi, Phit = est.feature_map_(X), est.feature_map_(Xt)
    ref = LSSVMRegressor(kernel="precomputed", gamma=10.0).fit(Phi @ Phi.T, y)
    np.testing.assert_allclose(est.predict(Xt), ref.predict(Phit @ Phi.T), atol=1e-8)
    # and the exact LOO residuals of that model, against N brute-force refits
    r = np.empty(len(y))
    for i in range(len(y)):
        k = np.arange(len(y)) != i
        m = LSSVMRegressor(kernel="precomputed", gamma=10.0).fit(Phi[k] @ Phi[k].T, y[k])
        r[i] = y[i] - m.predict(Phi[i:i + 1] @ Phi[k].T)[0]
    np.testing.assert_allclose(est.loo_residuals_, r, atol=1e-8)


def test_nystroem_with_all_rows_as_centres_is_the_exact_lssvm():
    X, y = _data(120)
    Xt, _ = _data(30, seed=2)
    est = LSSVMRegressor(sigma2=3.0, gamma=5.0, approximation="nystroem", n_components=120).fit(X, y)
    exact = LSSVMRegressor(sigma2=3.0, gamma=5.0).fit(X, y)
    np.testing.assert_allclose(est.predict(Xt), exact.predict(Xt), atol=1e-6)


def test_rff_kernel_matches_the_rbf_in_expectation():
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.kernels.features import RandomFourierMap

    X, _ = _data(30)
    fmap = RandomFourierMap(2.0, 3, 20000, random_state=0)
    F = fmap(X)
    assert np.abs(F @ F.T - RBF(2.0)(X)).max() < 0.05      # Monte Carlo error ~ 1/sqrt(m)


def test_loo_selection_picks_the_grid_minimum_of_the_approximate_model():
    X, y = _data(250)
    grid = dict(gamma_grid=[1.0, 10.0, 100.0], sigma2_grid=[0.5, 2.0, 8.0])
    est = LSSVMRegressor(approximation="nystroem", n_components=40, random_state=0,
                         selection="loo", **grid).fit(X, y)
    scores = np.full((3, 3), np.nan)
    for i, s2 in enumerate(grid["sigma2_grid"]):
        for j, g in enumerate(grid["gamma_grid"]):
            m = LSSVMRegressor(approximation="nystroem", n_components=40, random_state=0,
                               sigma2=s2, gamma=g).fit(X, y)
            scores[i, j] = np.mean(m.loo_residuals_ ** 2)
    np.testing.assert_allclose(est.cv_results_["scores"], scores, rtol=1e-8)
    i, j = np.unravel_index(np.argmin(scores), scores.shape)
    assert (est.sigma2_, est.gamma_) == (grid["sigma2_grid"][i], grid["gamma_grid"][j])


def test_classifier_binary_and_multiclass():
    X, y = _data(300)
    yb = y > 0.5
    est = LSSVMClassifier(approximation="nystroem", n_components=60, random_state=0,
                          selection="loo", selection_score="misclassification").fit(X, yb)
    assert est.classes_.tolist() == [False, True] and est.score(X, yb) > 0.9
    y3 = np.digitize(y, [0.0, 1.0])
    est3 = LSSVMClassifier(approximation="rff", n_components=80, sigma2=2.0, gamma=10.0,
                           random_state=0).fit(X, y3)
    assert est3.decision_function(X).shape == (300, 3) and est3.score(X, y3) > 0.8


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def _guard_gathers(monkeypatch, n_rows):
    import dask

    real = dask.compute

    def guarded(*args, **kw):  # nothing with N rows may come back to the client during fit
        out = real(*args, **kw)
        for o in out:
            assert not (hasattr(o, "shape") and len(o.shape) and o.shape[0] == n_rows), o.shape
        return out

    monkeypatch.setattr(dask, "compute", guarded)
    monkeypatch.setattr(da.Array, "__array__", lambda *a, **k: pytest.fail("gathered a dask array"))


@pytest.mark.parametrize("est", [
    LSSVMRegressor(approximation="nystroem", n_components=40, random_state=3, selection="loo",
                   gamma_grid=[1.0, 100.0], sigma2_grid=[0.5, 4.0]),
    LSSVMClassifier(approximation="nystroem", n_components=40, random_state=3, selection="loo",
                    gamma_grid=[1.0, 100.0], sigma2_grid=[0.5, 4.0]),
    LSSVMRegressor(approximation="rff", n_components=40, random_state=3, selection="gcv",
                   gamma_grid=[1.0, 10.0, 100.0], sigma2_grid=[0.5, 4.0]),
])
def test_dask_fit_equals_in_memory_and_gathers_no_n_rows(client, monkeypatch, est):
    from sklearn.base import clone

    X, y = _data(400)
    if isinstance(est, LSSVMClassifier):
        y = np.digitize(y, [0.0, 1.0])
    Xt, _ = _data(50, seed=1)
    ref = clone(est).fit(X, y)
    Xd, yd = da.from_array(X, chunks=(97, 3)), da.from_array(y, chunks=97)
    _guard_gathers(monkeypatch, X.shape[0])
    fitted = clone(est).fit(Xd, yd)
    monkeypatch.undo()
    assert (fitted.gamma_, fitted.sigma2_) == (ref.gamma_, ref.sigma2_)
    f_mem = ref.decision_function(Xt) if hasattr(ref, "classes_") else ref.predict(Xt)
    f_dask = fitted.decision_function(Xt) if hasattr(ref, "classes_") else fitted.predict(Xt)
    # 1e-6 relative to the scale of the predictions, elementwise (block sums differ in order only)
    assert np.max(np.abs(f_dask - f_mem)) <= 1e-6 * np.max(np.abs(f_mem))
    lazy = fitted.predict(da.from_array(Xt, chunks=20))
    if not hasattr(ref, "classes_"):
        # blockwise predict is the same computation on 20-row blocks; BLAS may sum a 20-row and a
        # 50-row product in a different order (on some CPUs the results differ at 1e-14), so
        # equal to rounding, not bit for bit
        f_full = fitted.predict(Xt)
        np.testing.assert_allclose(np.asarray(lazy.compute()), f_full, rtol=0,
                                   atol=1e-12 * np.max(np.abs(f_full)))
    else:  # labels stay lazy too (they were gathered to NumPy before)
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(lazy.compute(), fitted.predict(Xt))


def test_bad_dask_input_clear_errors_nothing_fitted(client):
    X, y = _data(300)
    est = LSSVMRegressor(approximation="nystroem", n_components=30, random_state=0)
    Xu = da.from_array(X, chunks=(100, 3))
    Xu = Xu[Xu[:, 0] > -10]  # unknown chunk sizes
    with pytest.raises(InputError, match="unknown chunk sizes"):
        est.fit(Xu, da.from_array(y, chunks=100))
    with pytest.raises(InputError, match="same row chunks"):
        est.fit(da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=150))
    Xn = X.copy()
    Xn[280, 1] = np.nan  # in the last chunk
    with pytest.raises(InputError, match="NaN"):
        est.fit(da.from_array(Xn, chunks=(100, 3)), da.from_array(y, chunks=100))
    assert not [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]
    est.fit(da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100))
    yn = y.copy()
    yn[290] = np.inf
    with pytest.raises(InputError):
        est.fit(da.from_array(X, chunks=(100, 3)), da.from_array(yn, chunks=100))
    with pytest.raises(NotFittedError):
        est.predict(X)


@pytest.mark.parametrize("kind", ["nystroem", "rff"])
@pytest.mark.parametrize("classify", [False, True])
def test_gcv_selection_is_the_exact_lssvms_gcv_on_the_approximate_gram(kind, classify):
    """``selection="gcv"``: GCV of the approximate model over every row (``n_loo`` does not
    apply), from one eigendecomposition per σ² — the exact (dual) LS-SVM's GCV on the Gram
    ``ΦΦ'`` of the same features, another engine, at every γ."""
    X, y = _data(150)
    grid = np.logspace(-1, 3, 7)
    C = LSSVMClassifier if classify else LSSVMRegressor
    yy = np.digitize(y, [0.3]) if classify else y
    est = C(sigma2=2.0, approximation=kind, n_components=40, random_state=1, selection="gcv",
            gamma_grid=grid, n_loo=20).fit(X, yy)
    Phi = est.feature_map_(X)
    ref = C(kernel="precomputed", selection="gcv", gamma_grid=grid).fit(Phi @ Phi.T, yy)
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-8)
    assert est.gamma_ == ref.gamma_ and est.best_params_["gamma"] == ref.best_params_["gamma"]
    assert est.cv_results_["criterion"] == "gcv (approximate kernel)"
    assert est.loo_rows_.size == 150             # GCV is a criterion of every row


def test_bad_settings_are_named():
    X, y = _data(50)
    with pytest.raises(HyperparameterError, match="approximation"):
        LSSVMRegressor(approximation="svd").fit(X, y)
    with pytest.raises(HyperparameterError, match="rff"):
        LSSVMRegressor(kernel="linear", approximation="rff").fit(X, y)
    with pytest.raises(HyperparameterError, match="selection"):
        LSSVMRegressor(approximation="nystroem", selection="kfold").fit(X, y)
    with pytest.raises(InputError, match="sample_weight"):
        LSSVMRegressor(approximation="nystroem").fit(X, y, sample_weight=np.ones(50))
    with pytest.raises(HyperparameterError, match="n_components"):
        LSSVMRegressor(approximation="nystroem", n_components=0).fit(X, y)
    with pytest.raises(HyperparameterError, match="precomputed"):
        LSSVMRegressor(kernel="precomputed", approximation="nystroem").fit(X @ X.T, y)


def test_streamed_fit_never_allocates_n_by_m(monkeypatch):
    import lssvm_cvx.estimators.lssvm_approx as approx
    import lssvm_cvx.linalg.streaming as streaming

    # blocks of 2000 rows × 200 features, in the fit (the row source) and the prediction
    monkeypatch.setattr(streaming, "CHUNK_ELEMS", 400_000)
    monkeypatch.setattr(approx, "CHUNK_ELEMS", 400_000)
    n, m = 20000, 200
    X, y = _data(n, d=5)
    est = LSSVMRegressor(approximation="nystroem", n_components=m, sigma2=5.0, gamma=100.0,
                         n_loo=2000, random_state=0)
    tracemalloc.start()
    est.fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # N × m float64 is 32 MB; one block is 3.2 MB (a few temporaries of it fit)
    assert peak < 0.4 * n * m * 8, peak
    assert est.loo_rows_.size == 2000 and est.loo_residuals_.shape == (2000,)
    assert np.sqrt(np.mean((est.predict(X[:500]) - y[:500]) ** 2)) < 0.2


_WEIGHT_CHECKS = {c: "sample_weight is refused with an approximation (a clear InputError)" for c in (
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
    "check_sample_weights_list", "check_all_zero_sample_weights_error",
    "check_sample_weights_shape", "check_sample_weights_not_overwritten",
    "check_sample_weight_equivalence_on_dense_data", "check_classifiers_one_label_sample_weights")}


@pytest.mark.parametrize("est", [
    LSSVMRegressor(approximation="nystroem", random_state=0),
    LSSVMRegressor(approximation="rff", n_components=300, random_state=0),
    LSSVMClassifier(approximation="nystroem", random_state=0, selection="loo",
                    gamma_grid=[0.1, 10.0], sigma2_grid=[0.5, 2.0]),
], ids=["nystroem", "rff", "classifier-loo"])
def test_sklearn_compatible_with_approximation(est):
    from sklearn.utils.estimator_checks import check_estimator

    failed = [r for r in check_estimator(est, on_fail=None, expected_failed_checks=_WEIGHT_CHECKS)
              if r["status"] == "failed"]
    assert not failed, [(r["check_name"], str(r["exception"])[:200]) for r in failed]


def test_sigma2_stage_on_a_subsample_then_gamma_on_every_row():
    X, y = _data(400)
    kw = dict(approximation="nystroem", n_components=40, random_state=0, selection="loo",
              gamma_grid=[1.0, 10.0, 100.0], sigma2_grid=[0.5, 2.0, 8.0])
    est = LSSVMRegressor(sigma2_subsample=150, **kw).fit(X, y)
    stage = est.cv_results_["sigma2_stage"]
    assert est.cv_results_["sigma2_subsample_rows"] == 150
    assert est.sigma2_ == stage["best_sigma2"]
    # the width stage is the full selection on the same 150 rows
    rows = np.sort(np.random.default_rng(0).choice(400, 150, replace=False))
    sub = LSSVMRegressor(sigma2_subsample=None, **kw).fit(X[rows], y[rows])
    np.testing.assert_allclose(stage["scores"], sub.cv_results_["scores"], rtol=1e-10)
    # then γ on every row at that width: the one-width search on all rows
    full = LSSVMRegressor(sigma2_subsample=None, **{**kw, "sigma2_grid": [est.sigma2_]}).fit(X, y)
    assert est.gamma_ == full.gamma_
    np.testing.assert_allclose(est.predict(X[:20]), full.predict(X[:20]), rtol=1e-12)


def test_the_width_stage_reports_the_chosen_parameters():
    """With a width stage (more rows than ``sigma2_subsample``) the fit reports
    ``best_params_`` — the (σ², γ) it fitted — as without one (``best_params_`` was unset after
    a width stage before 2026-11-29: ``best_of`` ran only on the single-stage path)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (90, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=90)
    est = LSSVMRegressor(approximation="nystroem", selection="loo", n_components=20,
                         random_state=0, sigma2_subsample=50,
                         sigma2_grid=[0.5, 2.0, 8.0]).fit(X, y)
    assert est.cv_results_["sigma2_subsample_rows"] == 50
    assert est.best_params_ == {"sigma2": est.sigma2_, "gamma": est.gamma_}
    assert est.best_score_ == est.cv_results_["mean_test_score"][est.best_index_]


def test_the_dask_width_stage_gathers_its_rows_in_one_compute(client, monkeypatch):
    """The width stage copies its ``sigma2_subsample`` rows of X and y to the client in one
    ``dask.compute`` (a pipeline behind both runs once), as the LS-SVM estimators always did;
    the stage and the fit equal the in-memory estimator's."""
    import dask

    X, y = _data(400)
    kw = dict(approximation="nystroem", n_components=30, random_state=3, selection="loo",
              gamma_grid=[1.0, 100.0], sigma2_grid=[0.5, 4.0], sigma2_subsample=100)
    ref = LSSVMRegressor(**kw).fit(X, y)
    real, stage = dask.compute, []

    def counted(*args, **k):
        out = real(*args, **k)
        stage.append(sum(getattr(o, "shape", (0,))[:1] == (100,) for o in out))
        return out

    monkeypatch.setattr(dask, "compute", counted)
    est = LSSVMRegressor(**kw).fit(da.from_array(X, chunks=(97, 3)), da.from_array(y, chunks=97))
    monkeypatch.undo()
    assert [c for c in stage if c] == [2]            # X and y rows, one call
    assert est.cv_results_["sigma2_subsample_rows"] == 100
    assert est.best_params_ == ref.best_params_
    np.testing.assert_allclose(est.cv_results_["sigma2_stage"]["mean_test_score"],
                               ref.cv_results_["sigma2_stage"]["mean_test_score"], rtol=1e-9)
