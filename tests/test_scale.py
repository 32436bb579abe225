"""Model selection at scale (issue 16): the Dask path equals the in-memory path on a
LocalCluster, the streamed path never allocates an N × m array, bad Dask input gets clear
errors and leaves nothing fitted, and the screened LS-SVM search is exact at its choice."""

import tracemalloc

import numpy as np
import pytest

from lssvm_cvx import AutoLSSVMRegressor, LSSVMRegressor
from lssvm_cvx.exceptions import InputError
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.lssvm import gamma_sweep

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


def _data(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(n)
    return X, y


KW = dict(approximation="nystroem", n_components=40, n_subsample=150, random_state=3,
          kernel_gamma_grid=[0.3, 3.0], mu_grid=[0.0, 1.0], nu_grid=[1e-3, 1e-1])


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_dask_fit_equals_in_memory_and_gathers_no_n_rows(client, monkeypatch):
    X, y = _data(400)
    Xt, _ = _data(50, seed=1)
    ref = AutoLSSVMRegressor(**KW).fit(X, y)
    Xd, yd = da.from_array(X, chunks=(97, 3)), da.from_array(y, chunks=97)
    import dask

    real = dask.compute

    def guarded(*args, **kw):  # nothing with N rows may come back to the client during fit
        out = real(*args, **kw)
        for o in out:
            assert not (hasattr(o, "shape") and len(o.shape) and o.shape[0] == X.shape[0]), o.shape
        return out

    monkeypatch.setattr(dask, "compute", guarded)
    monkeypatch.setattr(da.Array, "__array__", lambda *a, **k: pytest.fail("gathered a dask array"))
    est = AutoLSSVMRegressor(**KW).fit(Xd, yd)
    monkeypatch.undo()
    assert est.approximation_ == "nystroem" and est.kernel_gamma_ == ref.kernel_gamma_
    assert (est.mu_, est.nu_) == (ref.mu_, ref.nu_)
    def rel(a, b):  # norm-wise relative difference (block sums differ in order only)
        return np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b)

    assert rel(est.predict(Xt), ref.predict(Xt)) < 1e-6
    assert rel(est.loo_residuals_, ref.loo_residuals_) < 1e-5  # small numbers: looser
    assert rel(est.predict(da.from_array(Xt, chunks=20)).compute(), est.predict(Xt)) < 1e-12


def test_bad_dask_input_clear_errors_nothing_fitted(client):
    X, y = _data(300)
    est = AutoLSSVMRegressor(**KW)
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
    # a failing refit of a fitted estimator leaves it unfitted too
    est.fit(da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100))
    yn = y.copy()
    yn[290] = np.inf
    with pytest.raises(InputError):
        est.fit(da.from_array(X, chunks=(100, 3)), da.from_array(yn, chunks=100))
    assert not hasattr(est, "coef_")


def test_streamed_fit_never_allocates_n_by_m(monkeypatch):
    import lssvm_cvx.estimators.auto_stream as stream
    import lssvm_cvx.linalg.streaming as streaming

    # blocks of 2000 rows × 200 features, in the row source and the estimator's own passes
    monkeypatch.setattr(streaming, "CHUNK_ELEMS", 400_000)
    monkeypatch.setattr(stream, "CHUNK_ELEMS", 400_000)
    n, m = 20000, 200
    X, y = _data(n, d=5)
    est = AutoLSSVMRegressor(approximation="nystroem", n_components=m, kernel_gamma=1.0,
                             mu_grid=[0.0, 1.0], nu_grid=[1e-2, 1.0], n_loo=2000, random_state=0)
    tracemalloc.start()
    est.fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # N × m float64 is 32 MB; one block is 3.2 MB (a few temporaries of it fit)
    assert peak < 0.4 * n * m * 8, peak
    assert est.loo_rows_.size == 2000 and est.loo_residuals_.shape == (2000,)
    assert np.sqrt(np.mean((est.predict(X[:500]) - y[:500]) ** 2)) < 0.2


def test_the_screened_loo_search_peaks_near_two_n_by_n_arrays():
    """Peak traced memory of one screened LOO fit (``LSSVMRegressor``, the sinc data of
    ``benchmarks/scaling.py``, N = 600, after a warm-up fit) in units of one N × N float64
    array.  At the peak the search holds the Gram and one copy of it, in which every exact
    weight is factorised and its ``L⁻¹`` built (``Decomposition.path(...,
    one_decomposition=False)``), and the screen's low-rank features (a larger share at
    N = 600 than at 3000).  ``python notes/loo_fit_peak.py 600`` gives 6.4 on ffe8246 (the
    kept factor held its ``L⁻¹``), 5.3 on fd63446 (it kept the factor, each weight made a copy,
    an ``L⁻¹`` and a temporary ``|H|`` for its 1-norm, and the LOO splits held N(N − 1)
    indices) and 2.5 since the twenty-seventh session (2.06 at N = 3000)."""
    n = 600
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (n, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
    est = LSSVMRegressor(selection="loo", search="screen", random_state=0, sigma2_grid="auto")
    est.fit(X, y)
    tracemalloc.start()
    try:
        est.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / (8 * n * n) < 2.9


def test_screened_search_is_exact_at_its_choice():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (400, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(400)
    grid_g, grid_s = np.logspace(-2, 4, 7), np.logspace(-2, 1, 5)
    scr = LSSVMRegressor(selection="loo", search="screen", gamma_grid=grid_g, sigma2_grid=grid_s,
                         random_state=0).fit(X, y)
    full = LSSVMRegressor(selection="loo", search="grid", gamma_grid=grid_g, sigma2_grid=grid_s).fit(X, y)
    exact = gamma_sweep(RBF(scr.sigma2_)(X), y, [scr.gamma_]).scores[0]
    assert scr.cv_results_["best_score"] == pytest.approx(exact, rel=1e-10)
    assert exact <= 1.05 * full.cv_results_["best_score"]
    assert np.isnan(scr.cv_results_["scores"]).sum() > 0  # not every point evaluated exactly
