"""``lssvm_cvx.device``: the LS-SVM closed form, exact LOO and the LOO γ path on NumPy,
``array-api-strict`` and PyTorch (CPU; CUDA when present) equal the NumPy/SciPy path to 1e-10,
stay in the inputs' namespace and device, and bad input is one line of the project's errors
(issue 31)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.device import (
    check_memory,
    inverse_diagonal,
    loo_gamma_path,
    loo_grid,
    loo_path_residuals,
    lssvm_fit,
    lssvm_loo_residuals,
    namespace_of,
    nystroem_loo_path,
    rbf_gram,
)
from lssvm_cvx.exceptions import HyperparameterError, InputError, InputTypeError
from lssvm_cvx.formulations import LSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.model_selection import gamma_sweep, loo_residuals


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (80, 2))
    y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(80)
    return X, y


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu", "torch-cuda"])
def test_the_device_path_equals_the_numpy_path(ns, data, to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    Xd, yd = conv(X), conv(y)
    K = RBF(0.7)(X)
    Kd = rbf_gram(Xd, sigma2=0.7, block_rows=32)                  # three blocks, one partial
    assert type(Kd) is type(Xd)
    assert str(namespace_of(Kd)[1]) == str(namespace_of(Xd)[1])    # stays on the device
    np.testing.assert_allclose(to_numpy(Kd), K, rtol=0, atol=1e-12)
    sol = LSSVM(X, y, kernel=RBF(0.7), gamma=10.0).solve()
    alpha, b = lssvm_fit(Kd, yd, 10.0)
    assert type(alpha) is type(Xd)
    np.testing.assert_allclose(to_numpy(alpha), sol["alpha"], rtol=0, atol=1e-10)
    assert abs(float(b) - sol.scalar("b")) < 1e-10
    r = lssvm_loo_residuals(Kd, yd, 10.0)
    np.testing.assert_allclose(to_numpy(r), loo_residuals(K, y, 10.0), rtol=0, atol=1e-10)
    gammas = np.logspace(-2, 3, 9)
    path = loo_gamma_path(Kd, yd, gammas)
    np.testing.assert_allclose(to_numpy(path), gamma_sweep(K, y, gammas, criterion="loo").scores,
                               rtol=1e-10)


def test_loo_residuals_equal_brute_force_refits(data):
    """The device LOO against refits without each point (the independent reference)."""
    X, y = data
    K = rbf_gram(X, sigma2=0.7)
    r = lssvm_loo_residuals(K, y, 5.0)
    for i in (0, 31, 79):
        keep = np.arange(len(y)) != i
        a, b = lssvm_fit(K[np.ix_(keep, keep)], y[keep], 5.0)
        assert abs(r[i] - (y[i] - (K[i, keep] @ a + b))) < 1e-10


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu", "torch-cuda"])
@pytest.mark.parametrize("method", ["eigh", "cholesky"])
def test_the_loo_path_residuals_equal_brute_force_refits(ns, method, to_namespace, to_numpy):
    """Every γ of the path, by either method, against refits without each point (plain NumPy
    solves of the bordered system, the independent reference): what the estimators' device
    searches score."""
    conv = to_namespace(ns)
    rng = np.random.default_rng(4)
    X = rng.uniform(-2, 2, (25, 3))
    y = X[:, 0] - np.cos(X[:, 1]) + 0.1 * rng.standard_normal(25)
    K = RBF(1.3)(X)
    gammas = [0.05, 1.0, 40.0, 1e4]
    r = to_numpy(loo_path_residuals(conv(K), conv(y), gammas, method=method))
    assert r.shape == (len(gammas), len(y))
    for g, row in zip(gammas, r):
        for i in range(len(y)):
            keep = np.arange(len(y)) != i
            n = keep.sum()
            A = np.block([[np.zeros((1, 1)), np.ones((1, n))],
                          [np.ones((n, 1)), K[np.ix_(keep, keep)] + np.eye(n) / g]])
            sol = np.linalg.solve(A, np.concatenate([[0.0], y[keep]]))
            refit = y[i] - (K[i, keep] @ sol[1:] + sol[0])
            assert abs(row[i] - refit) < 1e-8 * max(1.0, abs(refit)), (g, i)


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu", "torch-cuda"])
@pytest.mark.parametrize("block", [1, 7, 32, 80, 4096])
def test_the_inverse_diagonal_by_column_blocks_equals_a_dense_inverse(ns, block, data,
                                                                      to_namespace, to_numpy):
    """``diag(H⁻¹)`` from the trailing-block solves against ``np.linalg.inv`` (blocks that divide
    N, that do not, of one column, and one block for all)."""
    conv = to_namespace(ns)
    X, _ = data
    H = RBF(0.7)(X) + np.eye(len(X)) / 3.0
    Ld = conv(np.linalg.cholesky(H))
    xp, device = namespace_of(Ld)
    got = inverse_diagonal(xp, device, Ld, block=block)
    assert type(got) is type(Ld)
    np.testing.assert_allclose(to_numpy(got), np.diag(np.linalg.inv(H)), rtol=1e-10)


@pytest.mark.parametrize("block", [0, -3, 2.5, True, "64"])
def test_a_bad_block_of_the_inverse_diagonal_is_a_one_line_error(block, data):
    """``block=0`` was a ``range`` error deep inside and a negative block a silent empty
    diagonal; now both (and non-integers) are the project's error."""
    X, _ = data
    L = np.linalg.cholesky(RBF(0.7)(X) + np.eye(len(X)))
    xp, device = namespace_of(L)
    with pytest.raises(HyperparameterError, match="block must be an integer >= 1"):
        inverse_diagonal(xp, device, L, block=block)


def test_float32_is_accepted_and_close(data):
    torch = pytest.importorskip("torch")
    X, y = data
    K64 = rbf_gram(torch.asarray(X), sigma2=0.7)
    K32 = K64.to(torch.float32)
    a32, _ = lssvm_fit(K32, torch.asarray(y, dtype=torch.float32), 1.0)
    a64, _ = lssvm_fit(K64, torch.asarray(y), 1.0)
    assert a32.dtype == torch.float32
    assert float(torch.max(torch.abs(a32.double() - a64))) < 1e-3 * float(torch.max(torch.abs(a64)))


# ------------------------------------------------------------------------------ bad input
def test_mixed_namespaces_are_one_line_errors(data):
    torch = pytest.importorskip("torch")
    X, y = data
    K = RBF(0.7)(X)
    with pytest.raises(InputTypeError, match="arrays of one library"):
        lssvm_fit(K, torch.asarray(y), 1.0)


def test_mixed_devices_are_one_line_errors(data):
    torch = pytest.importorskip("torch")
    X, y = data
    with pytest.raises(InputError, match="different devices"):
        lssvm_fit(torch.asarray(RBF(0.7)(X)), torch.empty(len(y), device="meta"), 1.0)


@pytest.mark.parametrize("dtype", ["float16", "int64"])
def test_dtypes_that_cannot_be_factorised(dtype, data):
    torch = pytest.importorskip("torch")
    X, y = data
    K = torch.asarray(RBF(0.7)(X)).to(getattr(torch, dtype))
    with pytest.raises(InputTypeError, match="float32 or float64"):
        lssvm_fit(K, torch.asarray(y).to(getattr(torch, dtype)), 1.0)


def test_shapes_values_and_gamma(data):
    X, y = data
    K = RBF(0.7)(X)
    with pytest.raises(InputError, match="square"):
        lssvm_fit(K[:, :5], y, 1.0)
    with pytest.raises(InputError, match="length 80"):
        lssvm_fit(K, y[:5], 1.0)
    bad = y.copy()
    bad[3] = np.nan
    with pytest.raises(InputError, match="finite"):
        lssvm_loo_residuals(K, bad, 1.0)
    for g in (0.0, -1.0, float("inf"), "a"):
        with pytest.raises(HyperparameterError, match="gamma"):
            lssvm_fit(K, y, g)


def test_too_large_for_the_device_names_the_n_that_fits():
    xp = namespace_of(np.zeros(3))[0]
    with pytest.raises(InputError, match=r"N = 100000 needs .* at most N ≈ 11585"):
        check_memory(100_000, 8, 1.0, xp, "cpu", free=2**30)
    check_memory(1000, 8, 1.0, xp, "cpu", free=2**30)           # fits: no error
    # a dtype in place of the item size: float64 8 bytes, float32 4 (twice the N that fits)
    with pytest.raises(InputError, match=r"at most N ≈ 11585"):
        check_memory(100_000, xp.float64, 1.0, xp, "cpu", free=2**30)
    with pytest.raises(InputError, match=r"at most N ≈ 16384"):
        check_memory(100_000, xp.float32, 1.0, xp, "cpu", free=2**30)


def test_the_device_benchmark_runs_its_timings_on_the_cpu_and_skips_without_cuda(tmp_path):
    """``lssvm-cvx bench --only device``: every timed table runs (here on PyTorch's CPU, small
    N), the grid's two methods agree, and without CUDA the benchmark checks nothing and says
    why."""
    torch = pytest.importorskip("torch")
    from lssvm_cvx.benchmarks import device as bench

    from lssvm_cvx.bench import Context

    d = bench._Dev(torch, "cpu")
    row = bench.measure_fit(d, 200, cpu=True)
    assert row["N"] == 200 and all(v > 0 for k, v in row.items() if k != "N")
    assert bench.measure_path(d, 150)["N"] == 150
    grid = bench.measure_grid(d, 120)
    assert grid["pairs"] == 105 and grid["same (σ², γ) chosen"]
    assert grid["max relative difference of the two methods' scores"] < 1e-8
    agree = bench.measure_agreement(d, 300)
    assert max(v for k, v in agree.items() if k != "N") < 1e-9
    nys = bench.measure_nystroem(d, 3000, 40, 1024)
    assert nys["rank"] <= 40 and nys["path / bare pass"] > 0
    auto = bench.measure_auto(d, 160, 120, eigh_s=0.01)
    assert auto["same (γ, μ, ν)"] and auto["predictions: max relative difference"] < 1e-8
    assert auto["decompositions of the search"] > 0 and auto["fit / (decompositions × bare eigh)"] > 0
    auto_nys = bench.measure_auto_nystroem(d, 1500, 1200)
    assert auto_nys["same (γ, μ, ν)"] and auto_nys["predictions: max relative difference"] < 1e-8
    if not torch.cuda.is_available():
        res = bench.run(Context(quick=True, out=tmp_path))
        assert not res.checks and "no CUDA device" in res.notes


# ------------------------------------------------------------------------------ the (γ, σ²) grid
@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu", "torch-cuda"])
def test_the_loo_grid_equals_the_numpy_path_by_either_method(ns, data, to_namespace, to_numpy):
    """Every pair of the grid against ``gamma_sweep``'s exact LOO on the NumPy Gram."""
    conv = to_namespace(ns)
    X, y = data
    gammas, sigma2s = np.logspace(-1, 3, 5), (0.4, 1.5)
    ref = np.array([gamma_sweep(RBF(s2)(X), y, gammas, criterion="loo").scores for s2 in sigma2s])
    for method in ("cholesky", "eigh"):
        got = loo_grid(conv(X), conv(y), gammas, sigma2s, method=method, block_rows=50)
        assert type(got) is type(conv(X))
        np.testing.assert_allclose(to_numpy(got), ref, rtol=1e-9)
    with pytest.raises(HyperparameterError, match="method"):
        loo_grid(X, y, gammas, sigma2s, method="lu")


# ------------------------------------------------------------------------------ Nyström, streamed
def _nystroem_reference(X, y, Z, sigma2, gammas):
    """Dense NumPy: the package's Nyström features (``NystroemMap``), the centred ridge and its
    full hat matrix ``11ᵀ/N + Φ̃(Φ̃ᵀΦ̃ + I/γ)⁻¹Φ̃ᵀ``; the LOO residuals ``(y - Hy)/(1 - H_ii)``."""
    from lssvm_cvx.kernels.features import NystroemMap

    Phi = NystroemMap(RBF(sigma2), Z)(X)
    n, r = Phi.shape
    Pc = Phi - Phi.mean(axis=0)
    scores, fits = [], []
    for g in gammas:
        A = Pc.T @ Pc + np.eye(r) / g
        H = np.full((n, n), 1.0 / n) + Pc @ np.linalg.solve(A, Pc.T)
        res = (y - H @ y) / (1.0 - np.diag(H))
        scores.append(np.mean(res ** 2))
        fits.append(H @ y)
    return np.array(scores), fits


@pytest.mark.parametrize("ns", ["numpy", "array_api_strict", "torch-cpu", "torch-cuda"])
def test_nystroem_loo_path_equals_the_dense_hat_matrix(ns, data, to_namespace, to_numpy):
    conv = to_namespace(ns)
    X, y = data
    Z = X[::4]
    gammas = np.logspace(-2, 3, 7)
    path = nystroem_loo_path(conv(X), conv(y), conv(Z), sigma2=0.7, gammas=gammas, block_rows=23)
    ref, fits = _nystroem_reference(X, y, Z, 0.7, gammas)
    np.testing.assert_allclose(to_numpy(path.scores), ref, rtol=1e-10)
    j = int(np.argmin(ref))
    assert path.gamma == gammas[j] and path.rank == Z.shape[0]
    pred = path.predict(conv(X), conv(Z), sigma2=0.7, block_rows=30)
    assert type(pred) is type(conv(X))
    np.testing.assert_allclose(to_numpy(pred), fits[j], rtol=0, atol=1e-10)


def test_nystroem_loo_residual_equals_a_brute_force_refit(data):
    """The LOO score at one γ against N refits without each point (the independent reference)."""
    from lssvm_cvx.kernels.features import NystroemMap

    X, y = data
    Z = X[::5]
    Phi = NystroemMap(RBF(0.7), Z)(X)
    path = nystroem_loo_path(X, y, Z, sigma2=0.7, gammas=[3.0])
    res = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        P, t = Phi[keep], y[keep]
        mu = P.mean(axis=0)
        theta = np.linalg.solve((P - mu).T @ (P - mu) + np.eye(P.shape[1]) / 3.0,
                                (P - mu).T @ (t - t.mean()))
        res.append(y[i] - (Phi[i] @ theta + t.mean() - mu @ theta))
    assert abs(float(path.scores[0]) - np.mean(np.square(res))) < 1e-10 * np.mean(np.square(res))


def test_nystroem_keeps_the_eigenpairs_numpy_keeps_and_float32_features_stay_close(data):
    """Duplicated centres: a rank-deficient ``K_ZZ``, the same kept rank as ``psd_eigh``;
    float32 rows give float32 features with float64 accumulation, close to the float64 run."""
    torch = pytest.importorskip("torch")
    from lssvm_cvx.kernels.psd import psd_eigh

    X, y = data
    Z = np.vstack([X[:10], X[:10]])
    path = nystroem_loo_path(X, y, Z, sigma2=0.7, gammas=[1.0, 10.0])
    assert path.rank == psd_eigh(RBF(0.7)(Z))[0].size
    p64 = nystroem_loo_path(torch.asarray(X), torch.asarray(y), torch.asarray(X[::4]),
                            sigma2=0.7, gammas=[1.0, 10.0])
    p32 = nystroem_loo_path(*(torch.asarray(a, dtype=torch.float32) for a in (X, y, X[::4])),
                            sigma2=0.7, gammas=[1.0, 10.0])
    assert p32.scores.dtype == torch.float64
    np.testing.assert_allclose(p32.scores.numpy(), p64.scores.numpy(), rtol=1e-3)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
def test_one_psd_cutoff_rule_on_every_namespace(ns, data, to_namespace, to_numpy):
    """``psd_eigh`` takes its namespace from its input: the same kept eigenvalues (descending,
    the cut-off and ``rank`` as NumPy's) and eigenvectors up to sign; the device Nyström map
    calls it (until 2026-11-29 it wrote the rule again, in ascending order), so its features
    are :class:`~lssvm_cvx.kernels.features.NystroemMap`'s, column for column."""
    from lssvm_cvx.device import NystroemFeatures
    from lssvm_cvx.kernels.features import NystroemMap
    from lssvm_cvx.kernels.psd import psd_eigh

    conv = to_namespace(ns)
    X, _ = data
    Z = np.vstack([X[:12], X[:12]])                 # duplicated centres: rank 12 of 24
    K = RBF(0.7)(Z)
    for rank in (None, 5):
        s, V = psd_eigh(K, rank=rank)
        s_d, V_d = psd_eigh(conv(K), rank=rank)
        assert s.size == (12 if rank is None else 5)
        np.testing.assert_allclose(to_numpy(s_d), s, rtol=1e-10)
        np.testing.assert_allclose(np.abs(to_numpy(V_d).T @ V), np.eye(s.size), atol=1e-8)
    s32, _ = psd_eigh(conv(K.astype(np.float32)))
    assert str(s32.dtype).endswith("float64") and s32.shape[0] == 12   # float64, as on NumPy
    if ns == "array_api_strict":                    # a Dask Gram is gathered, as before
        da = pytest.importorskip("dask.array")
        s_dask, V_dask = psd_eigh(da.from_array(K, chunks=8))
        np.testing.assert_array_equal(s_dask, psd_eigh(K)[0])
    Phi = NystroemMap(RBF(0.7), Z)(X)
    Phi_d = to_numpy(NystroemFeatures.fit(conv(Z), 0.7)(conv(X)))
    assert Phi_d.shape == Phi.shape
    np.testing.assert_allclose(Phi_d * np.sign(np.sum(Phi_d * Phi, axis=0)), Phi,
                               atol=1e-8 * np.abs(Phi).max())


@pytest.mark.parametrize("sigma2, rtol32", [(0.7, 1e-3), (5.0, 1e-3), (50.0, 1e-2)])
def test_nystroem_scores_stay_accurate_at_large_gamma_and_wide_widths(sigma2, rtol32, data):
    """The whole γ grid up to 10⁴ against the dense float64 hat matrix: float64 rows to 1e-6,
    float32 rows to 1e-3 (1e-2 at σ² = 50, where the float32 kernel values' own rounding,
    amplified by the projection ``P = V s^{-1/2}``, is 5e-3).  The two-pass solver this path
    had before it ran on the CPU engine (``StreamingPenalizedLS``) formed its normal
    equations and leverages in the rows' dtype: here its float32 scores were 158 times off
    (relative) at γ ≥ 10² with σ² = 5, its float64 ones 8e-5 off with σ² = 50."""
    torch = pytest.importorskip("torch")
    X, y = data
    Z = X[::4]
    gammas = np.logspace(-2, 4, 9)
    ref, _ = _nystroem_reference(X, y, Z, sigma2, gammas)
    p64 = nystroem_loo_path(X, y, Z, sigma2=sigma2, gammas=gammas)
    np.testing.assert_allclose(np.asarray(p64.scores), ref, rtol=1e-6)
    p32 = nystroem_loo_path(*(torch.asarray(a, dtype=torch.float32) for a in (X, y, Z)),
                            sigma2=sigma2, gammas=gammas)
    np.testing.assert_allclose(p32.scores.numpy(), ref, rtol=rtol32)


def test_nystroem_bad_input_is_one_line(data):
    X, y = data
    with pytest.raises(InputError, match="same columns"):
        nystroem_loo_path(X, y, X[:5, :1], sigma2=1.0, gammas=[1.0])
    with pytest.raises(InputError, match="length 80"):
        nystroem_loo_path(X, y[:5], X[:5], sigma2=1.0, gammas=[1.0])
    with pytest.raises(HyperparameterError, match="at least one"):
        nystroem_loo_path(X, y, X[:5], sigma2=1.0, gammas=[])
    with pytest.raises(HyperparameterError, match="sigma2"):
        nystroem_loo_path(X, y, X[:5], sigma2=-1.0, gammas=[1.0])


def test_a_tall_gram_is_checked_by_its_own_size():
    """``rbf_gram`` of many rows against few centres needs N × m, not max(N, m)² memory."""
    xp = namespace_of(np.zeros(3))[0]
    check_memory(1_000_000, 8, 1.0, xp, "cpu", free=2**30, cols=100)       # 0.75 GiB fits
    with pytest.raises(InputError, match=r"N × 100 arrays .* at most N ≈ 1342177"):
        check_memory(2_000_000, 8, 1.0, xp, "cpu", free=2**30, cols=100)
