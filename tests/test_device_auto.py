"""The Auto LS-SVM on a device (issue 31, item 2): the penalised least-squares engine on device
arrays (:class:`lssvm_cvx.linalg.penalized.PenalizedLS`) against the same engine on NumPy and
against brute-force refits, and ``AutoLSSVMRegressor`` on device arrays against the same
estimator on NumPy (selection, coefficients, LOO residuals, predictions, intervals), under
``array-api-strict`` and PyTorch on the CPU (CUDA skips without a device)."""

from __future__ import annotations

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import AutoLSSVMClassifier, AutoLSSVMRegressor
from lssvm_cvx.exceptions import HyperparameterError, InputError, InputTypeError, LabelError
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.linalg.refits import brute_force_loo
from lssvm_cvx.terms.gradient_basis import exact_basis

DEVICE_NS = ["array_api_strict", "torch-cpu", "torch-cuda"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    X = rng.uniform(-2, 2, (60, 3))
    y = np.sinc(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.standard_normal(60)
    return X, y


def _basis(X: np.ndarray, margin: str):
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    return exact_basis(Xs, 2.0, p=X.shape[1], c=X.shape[1], margin=margin)


@pytest.mark.parametrize("margin", ["alpha", "rkhs"])
@pytest.mark.parametrize("ns", ["numpy", *DEVICE_NS])
def test_the_device_engine_equals_the_numpy_engine(ns, margin, data, to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    B = _basis(X, margin)
    Y = np.column_stack([y, np.cos(X[:, 2])])               # two targets share the paths
    cpu = PenalizedLS(B.Phi, Y, B.G, B.R)
    dev = PenalizedLS(conv(B.Phi), conv(Y), conv(B.G), None if B.R is None else conv(B.R),
                            block_rows=25)                  # several row blocks
    mus, nus = np.r_[0.0, np.logspace(-3, 3, 7)], np.logspace(-3, 3, 7)
    for criterion in ("mse", "mae"):
        np.testing.assert_allclose(dev.mu_path(mus, 0.1, criterion).scores,
                                   cpu.mu_path(mus, 0.1, criterion).scores, rtol=1e-8)
        np.testing.assert_allclose(dev.nu_path(nus, 0.5, criterion).scores,
                                   cpu.nu_path(nus, 0.5, criterion).scores, rtol=1e-8)
    fc, fd = cpu.fit(0.5, 0.1), dev.fit(0.5, 0.1)
    scale = np.abs(fc.theta).max()
    np.testing.assert_allclose(to_numpy(fd.theta), fc.theta, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(to_numpy(fd.b), fc.b, rtol=0, atol=1e-9)
    np.testing.assert_allclose(to_numpy(fd.loo), fc.loo, rtol=0, atol=1e-10)
    np.testing.assert_allclose(to_numpy(fd.leverage), fc.leverage, rtol=0, atol=1e-10)
    Q = fc.jackknife_influence()
    np.testing.assert_allclose(to_numpy(fd.jackknife_influence()), Q, rtol=0,
                               atol=1e-9 * np.abs(Q).max())
    assert dev.paper_weights(0.5, 0.1) == pytest.approx(cpu.paper_weights(0.5, 0.1), rel=1e-12)
    # off NumPy the exact 1-norm reciprocal condition number, at most LAPACK's estimate (its
    # upper bound), which NumPy inputs get
    A = cpu.matrix(0.5, 0.1)
    exact = 1.0 / (np.abs(A).sum(axis=0).max() * np.abs(np.linalg.inv(A)).sum(axis=0).max())
    if ns == "numpy":
        assert fd.rcond == pytest.approx(fc.chol.rcond, rel=1e-8)   # blocks of 25 rows here
    else:
        assert fd.rcond == pytest.approx(exact, rel=1e-6) and fd.rcond <= fc.chol.rcond * (1 + 1e-9)


@pytest.mark.parametrize("ns", ["numpy", "torch-cpu"])
def test_the_device_loo_residuals_equal_brute_force_refits(ns, data, to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    B = _basis(X, "rkhs")
    dev = PenalizedLS(conv(B.Phi), conv(y), conv(B.G), conv(B.R))
    np.testing.assert_allclose(to_numpy(dev.loo_residuals(0.3, 0.2)),
                               brute_force_loo(B.Phi, y, B.G, 0.3, 0.2, B.R), rtol=0, atol=1e-8)


def test_the_device_engine_reports_a_singular_path_as_the_cpu_does(data, to_namespace):
    """A ν path whose margin matrix is not positive definite scores ``inf`` on both engines."""
    conv = to_namespace("torch-cpu")
    X, y = data
    B = _basis(X, "alpha")
    R = -np.eye(B.m)
    cpu, dev = PenalizedLS(B.Phi, y, B.G, np.eye(B.m)), PenalizedLS(
        conv(B.Phi), conv(y), conv(B.G), conv(np.eye(B.m)))
    dev.P["nu"] = conv(R)
    cpu.P["nu"] = R
    assert np.isinf(dev.nu_path([0.1, 1.0], 0.5).scores).all()
    assert np.isinf(cpu.nu_path([0.1, 1.0], 0.5).scores).all()


@pytest.mark.parametrize("ns", DEVICE_NS)
def test_the_auto_regressor_on_a_device_equals_the_numpy_fit(ns, data, to_namespace, to_numpy,
                                                             tmp_path):
    conv = to_namespace(ns)
    X, y = data
    rng = np.random.default_rng(1)
    X_new = rng.uniform(-2, 2, (25, 3))
    # n_subsample < N: the width stage runs on the seeded subsample, as on the CPU
    params = dict(n_subsample=40, mu_grid=np.r_[0.0, np.logspace(-3, 3, 13)])
    cpu = AutoLSSVMRegressor(**params).fit(X, y)
    with lssvm_cvx.array_api_dispatch():
        dev = AutoLSSVMRegressor(**params).fit(conv(X), conv(y))
        pred = dev.predict(conv(X_new))
        iv = dev.predict_interval(conv(X_new), coverage=0.8)
    assert dev.device_ is not None and type(pred) is type(conv(X_new))
    assert (dev.kernel_gamma_, dev.mu_, dev.nu_) == (cpu.kernel_gamma_, cpu.mu_, cpu.nu_)
    assert (dev.p_, dev.c_, dev.n_basis_) == (cpu.p_, cpu.c_, cpu.n_basis_)
    assert dev.loo_score_ == pytest.approx(cpu.loo_score_, rel=1e-9)
    assert [h["stage"] for h in dev.search_["history"]] == \
        [h["stage"] for h in cpu.search_["history"]]
    np.testing.assert_allclose(dev.cv_results_["mean_test_score"],
                               cpu.cv_results_["mean_test_score"], rtol=1e-8)
    np.testing.assert_allclose(to_numpy(dev.loo_residuals_), cpu.loo_residuals_, atol=1e-10)
    np.testing.assert_allclose(to_numpy(pred), cpu.predict(X_new), atol=1e-10)
    np.testing.assert_allclose(to_numpy(iv), cpu.predict_interval(X_new, coverage=0.8),
                               atol=1e-10)
    host = dev.to_numpy()                                    # NumPy copy: predicts and saves
    assert host.device_ is None and isinstance(host.basis_params_["centres"], np.ndarray)
    np.testing.assert_allclose(host.predict(X_new), cpu.predict(X_new), atol=1e-10)
    host.save(str(tmp_path / "auto.npz"))
    np.testing.assert_allclose(lssvm_cvx.load(str(tmp_path / "auto.npz")).predict(X_new),
                               cpu.predict(X_new), atol=1e-10)
    cpu_again = dev.fit(X, y)                                # a NumPy refit leaves the device
    assert getattr(cpu_again, "device_", None) is None
    np.testing.assert_allclose(cpu_again.predict(X_new), cpu.predict(X_new), atol=1e-12)


@pytest.mark.parametrize("params", [
    dict(approximation="nystroem", n_components=40),                 # every row: jackknife+
    dict(approximation="nystroem", n_components=40, n_loo=150, n_subsample=120),
    dict(max_exact=100, n_components=40, n_loo=150, margin="alpha")])  # "auto" above max_exact
@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu"])
def test_the_nystroem_auto_regressor_on_a_device_equals_the_numpy_fit(ns, params, to_namespace,
                                                                     to_numpy):
    """The streamed Nyström basis (centres, width-stage subsample, LOO rows) as on the CPU."""
    conv = to_namespace(ns)
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, (300, 3))
    y = np.sinc(X[:, 0]) + 0.1 * X[:, 1] + 0.1 * rng.standard_normal(300)
    cpu = AutoLSSVMRegressor(**params).fit(X, y)
    with lssvm_cvx.array_api_dispatch():
        dev = AutoLSSVMRegressor(**params).fit(conv(X), conv(y))
        pred, iv = dev.predict(conv(X[:40])), dev.predict_interval(conv(X[:40]))
    assert dev.approximation_ == cpu.approximation_ == "nystroem"
    assert (dev.kernel_gamma_, dev.mu_, dev.nu_) == (cpu.kernel_gamma_, cpu.mu_, cpu.nu_)
    assert (cpu.jackknife_Q_ is None) == (dev.jackknife_Q_ is None)
    assert (cpu.loo_rows_ is None and dev.loo_rows_ is None) or \
        np.array_equal(cpu.loo_rows_, dev.loo_rows_)
    np.testing.assert_allclose(to_numpy(dev.basis_params_["centres"]),
                               cpu.basis_params_["centres"], atol=1e-14)
    np.testing.assert_allclose(to_numpy(dev.loo_residuals_), cpu.loo_residuals_, atol=1e-10)
    np.testing.assert_allclose(to_numpy(pred), cpu.predict(X[:40]), atol=1e-10)
    np.testing.assert_allclose(to_numpy(iv), cpu.predict_interval(X[:40]), atol=1e-10)
    assert dev.rcond_ <= cpu.rcond_ * (1 + 1e-9)       # exact, at most LAPACK's estimate


def test_each_nystroem_problem_forms_the_centres_gram_once(monkeypatch, to_namespace):
    """Each problem of the Nyström search computes the centres' distances ``||z_i - z_j||²``
    once: the streamed all-rows problem's ``K(Z, Z)`` serves both the margin matrix and the
    design's column means (it was formed twice), a subsample problem's serves its margin
    matrix; the design's rows are distances to the centres, never centres to centres."""
    from lssvm_cvx.terms import gradient_norm

    conv = to_namespace("array_api_strict")
    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, (200, 2))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(200)
    centres, problems = [], []

    def counting(real, log, test=lambda *a, **k: True):
        def wrapped(*args, **kw):
            if test(*args, **kw):
                log.append(None)
            return real(*args, **kw)
        return wrapped

    # the bases (terms/gradient_basis, one definition for the CPU and the device since
    # 2026-11-29) form every distance on a device through this one function
    monkeypatch.setattr(gradient_norm, "sq_dists", counting(
        gradient_norm.sq_dists, centres,
        lambda A, B=None, **kw: not isinstance(A, np.ndarray) and (B is None or A is B)))
    # the problems are built by the CPU path's builder (auto_stream.problem_factory, one for
    # both since 2026-11-30)
    from lssvm_cvx.estimators import auto_stream

    for name in ("PenalizedLS", "StreamingPenalizedLS"):
        monkeypatch.setattr(auto_stream, name, counting(getattr(auto_stream, name), problems))
    with lssvm_cvx.array_api_dispatch():
        AutoLSSVMRegressor(approximation="nystroem", n_components=30,
                           n_subsample=120).fit(conv(X), conv(y))
    assert len(problems) >= 2 and len(centres) == len(problems)


@pytest.mark.parametrize("n_classes, params", [
    (2, {}), (3, {}), (2, dict(approximation="nystroem", n_components=40))])
@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu"])
def test_the_auto_classifier_on_a_device_equals_the_numpy_fit(ns, n_classes, params,
                                                              to_namespace, to_numpy):
    """Labels on the device (binary: one ±1 column, more: one per class), the same selection,
    predictions and calibrated probabilities.  The classifier's final system is much worse
    conditioned than the regressor's here (rcond ≈ 1e-12), so the LOO decision values and
    probabilities are compared with the round-off of the problem itself: the spread of two
    NumPy fits that differ only in the order of the rows."""
    conv = to_namespace(ns)
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (150, 2))
    u = X[:, 0] + 0.5 * rng.standard_normal(150)
    y = np.where(u > 0, 7, 3) if n_classes == 2 else np.digitize(u, [-1.0, 1.0])
    cpu = AutoLSSVMClassifier(**params).fit(X, y)
    perm = rng.permutation(150)
    spread = AutoLSSVMClassifier(**params).fit(X[perm], y[perm])
    with lssvm_cvx.array_api_dispatch():
        dev = AutoLSSVMClassifier(**params).fit(conv(X), conv(y))
        labels, proba = dev.predict(conv(X)), dev.predict_proba(conv(X))
        log_proba = dev.predict_log_proba(conv(X))
    assert (dev.kernel_gamma_, dev.mu_, dev.nu_) == (cpu.kernel_gamma_, cpu.mu_, cpu.nu_)
    assert type(labels) is type(conv(X))
    np.testing.assert_array_equal(to_numpy(dev.classes_), cpu.classes_)
    np.testing.assert_array_equal(to_numpy(labels), cpu.predict(X))
    tol = 10 * np.abs(spread.loo_decision_ - cpu.loo_decision_[perm]).max() + 1e-12
    assert np.abs(to_numpy(dev.loo_decision_) - cpu.loo_decision_).max() <= tol
    tol_p = 10 * np.abs(spread.predict_proba(X) - cpu.predict_proba(X)).max() + 1e-12
    assert np.abs(to_numpy(proba) - cpu.predict_proba(X)).max() <= tol_p
    np.testing.assert_allclose(np.exp(to_numpy(log_proba)), to_numpy(proba), atol=1e-12)
    np.testing.assert_allclose(to_numpy(proba).sum(axis=1), 1.0)
    host = dev.to_numpy()
    np.testing.assert_array_equal(host.predict(X), cpu.predict(X))


def test_float32_inputs_are_fitted_in_float64(data, to_namespace, to_numpy):
    torch = pytest.importorskip("torch")
    conv = to_namespace("torch-cpu")
    X, y = data
    with lssvm_cvx.array_api_dispatch():
        d64 = AutoLSSVMRegressor().fit(conv(X), conv(y))
        d32 = AutoLSSVMRegressor().fit(conv(X).to(torch.float32), conv(y).to(torch.float32))
    assert d32.coef_.dtype == torch.float64
    X32, y32 = X.astype(np.float32).astype(np.float64), y.astype(np.float32).astype(np.float64)
    cpu = AutoLSSVMRegressor().fit(X32, y32)                 # the same rounded inputs on NumPy
    assert (d32.kernel_gamma_, d32.mu_, d32.nu_) == (cpu.kernel_gamma_, cpu.mu_, cpu.nu_)
    np.testing.assert_allclose(to_numpy(d32.loo_residuals_), cpu.loo_residuals_, atol=1e-10)
    assert d64.device_ == d32.device_


def test_constant_inputs_give_the_constant_model_on_a_device(to_namespace, to_numpy):
    conv = to_namespace("torch-cpu")
    X, y = np.ones((12, 2)), np.arange(12.0)
    cpu = AutoLSSVMRegressor().fit(X, y)
    with lssvm_cvx.array_api_dispatch():
        dev = AutoLSSVMRegressor().fit(conv(X), conv(y))
        pred = dev.predict(conv(X[:3]))
    np.testing.assert_allclose(to_numpy(pred), cpu.predict(X[:3]))
    np.testing.assert_allclose(to_numpy(dev.loo_residuals_), cpu.loo_residuals_)
    assert dev.loo_score_ == pytest.approx(cpu.loo_score_)


def test_what_the_device_does_not_cover_is_a_one_line_error(data, to_namespace):
    conv = to_namespace("torch-cpu")
    X, y = data
    Xd, yd = conv(X), conv(y)
    with lssvm_cvx.array_api_dispatch():
        with pytest.raises(HyperparameterError, match="approximation='rff'"):
            AutoLSSVMRegressor(approximation="rff").fit(Xd, yd)
        with pytest.raises(InputError, match="sample_weight"):
            AutoLSSVMRegressor().fit(Xd, yd, sample_weight=np.ones(len(y)))
        with pytest.raises(LabelError, match="only 1 class"):
            AutoLSSVMClassifier().fit(Xd, conv(np.ones(len(y))))
        with pytest.raises(InputError, match="sample_weight"):
            AutoLSSVMClassifier().fit(Xd, conv(np.sign(y)), sample_weight=np.ones(len(y)))
        with pytest.raises(InputTypeError, match="one library"):
            AutoLSSVMRegressor().fit(Xd, y)
        with pytest.raises(InputError, match="finite"):
            AutoLSSVMRegressor().fit(conv(np.where(X > 1.9, np.nan, X)), yd)
        model = AutoLSSVMRegressor(kernel_gamma=1.0, mu=0.1, nu=0.1).fit(Xd, yd)
        with pytest.raises(InputError, match=r"X must be \(n, 3\)"):
            model.predict(conv(X[:, :2]))


def test_an_exact_basis_too_large_for_the_device_is_a_one_line_error(data, to_namespace,
                                                                     monkeypatch):
    """The memory check runs before the first N × N array: the error names the N that fits."""
    import lssvm_cvx.linalg.arrays as arrays

    conv = to_namespace("torch-cpu")
    X, y = data
    monkeypatch.setattr(arrays, "free_bytes", lambda xp, device: 10 * 8 * 40 * 40)
    with lssvm_cvx.array_api_dispatch(), pytest.raises(InputError, match="at most N ≈ 40 fits") as e:
        AutoLSSVMRegressor().fit(conv(X), conv(y))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("ns", ["numpy", "dask", "array_api_strict", "torch-cpu", "torch-cuda"])
def test_one_standardisation_for_every_kind_of_input(ns, to_namespace, to_numpy):
    """``input_stats``: NumPy, a dask array and an array on a device give the same mean, scale,
    informative columns ``p`` and affine dimension ``c`` — the definitions
    (``n_informative_columns`` and ``affine_dim`` of the standardised inputs, which takes at most
    4000 seeded rows) — with a constant column, a column that is an affine function of two
    others, and more than 4000 rows."""
    from lssvm_cvx.estimators.auto_stream import input_stats
    from lssvm_cvx.terms.gradient_norm import affine_dim, n_informative_columns

    rng = np.random.default_rng(5)
    X = rng.normal(size=(4500, 5))
    X[:, 1] = 3.0                                      # constant: not informative
    X[:, 4] = 2 * X[:, 0] - X[:, 2] + 1.0              # affine: c = 3
    mean, std = X.mean(axis=0), X.std(axis=0)
    Xs = (X - mean) / np.where(std > 0, std, 1.0)
    if ns == "dask":
        da = pytest.importorskip("dask.array")
        st = input_stats(da.from_array(X, chunks=(1000, 5)))
        assert st["Xs"] is None
    else:
        st = input_stats(to_namespace(ns)(X))
        np.testing.assert_allclose(to_numpy(st["Xs"]), Xs, rtol=1e-12, atol=1e-12)
    assert (st["p"], st["c"], st["constant"]) == (n_informative_columns(Xs), affine_dim(Xs), False)
    assert (st["p"], st["c"]) == (4, 3)
    np.testing.assert_allclose(to_numpy(st["mean"]), mean, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(st["scale"]), np.where(std > 0, std, 1.0), rtol=1e-12)
    one = input_stats(to_namespace("numpy" if ns == "dask" else ns)(np.ones((7, 3))))
    assert (one["p"], one["constant"]) == (1, True)


@pytest.mark.parametrize("klass", [AutoLSSVMRegressor, AutoLSSVMClassifier])
def test_the_device_fit_runs_the_cpu_fits_search(monkeypatch, data, to_namespace, klass):
    """One Auto estimator path (issue 30): a device fit calls the estimator module's own
    search, as the CPU fit does, and the problems it builds hold the inputs' device arrays (a
    device fit with a search of its own would leave the spy uncalled)."""
    import lssvm_cvx.estimators.auto as auto_module

    conv = to_namespace("torch-cpu")
    X, y = data
    if klass is AutoLSSVMClassifier:
        y = np.where(y > np.median(y), 1, -1)
    calls = []
    search = auto_module.auto_search

    def spy(make_problem, n, **kw):
        res = search(make_problem, n, **kw)
        calls.append(type(make_problem(res.gamma, None).Phi).__module__.split(".")[0])
        return res

    monkeypatch.setattr(auto_module, "auto_search", spy)
    cpu = klass().fit(X, y)
    with lssvm_cvx.array_api_dispatch():
        dev = klass().fit(conv(X), conv(y))
    assert calls == ["numpy", "torch"]
    assert dev.kernel_gamma_ == cpu.kernel_gamma_ and dev.mu_ == cpu.mu_
