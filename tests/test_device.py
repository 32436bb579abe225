"""``lssvm_cvx.device``: the LS-SVM closed form, exact LOO and the LOO γ path on NumPy,
``array-api-strict`` and PyTorch (CPU; CUDA when present) equal the NumPy/SciPy path to 1e-10,
stay in the inputs' namespace and device, and bad input is one line of the project's errors
(issue 31)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.device import (
    check_memory,
    loo_gamma_path,
    lssvm_fit,
    lssvm_loo_residuals,
    namespace_of,
    rbf_gram,
)
from lssvm_cvx.exceptions import HyperparameterError, InputError, InputTypeError
from lssvm_cvx.formulations import LSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.model_selection import gamma_sweep, loo_residuals


def _torch(device: str):
    torch = pytest.importorskip("torch")
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine")
    return lambda a: torch.asarray(a, device=device)


def _namespaces():
    def strict(a):
        xps = pytest.importorskip("array_api_strict")
        return xps.asarray(a)

    return {"numpy": lambda: (lambda a: a), "array_api_strict": lambda: strict,
            "torch-cpu": lambda: _torch("cpu"), "torch-cuda": lambda: _torch("cuda")}


def _to_numpy(a) -> np.ndarray:
    if hasattr(a, "cpu"):
        a = a.cpu()
    return np.asarray(a, dtype=float)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (80, 2))
    y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(80)
    return X, y


@pytest.mark.parametrize("ns", list(_namespaces()))
def test_the_device_path_equals_the_numpy_path(ns, data):
    conv = _namespaces()[ns]()
    X, y = data
    Xd, yd = conv(X), conv(y)
    K = RBF(0.7)(X)
    Kd = rbf_gram(Xd, sigma2=0.7, block_rows=32)                  # three blocks, one partial
    assert type(Kd) is type(Xd)
    assert str(namespace_of(Kd)[1]) == str(namespace_of(Xd)[1])    # stays on the device
    np.testing.assert_allclose(_to_numpy(Kd), K, rtol=0, atol=1e-12)
    sol = LSSVM(X, y, kernel=RBF(0.7), gamma=10.0).solve()
    alpha, b = lssvm_fit(Kd, yd, 10.0)
    assert type(alpha) is type(Xd)
    np.testing.assert_allclose(_to_numpy(alpha), sol["alpha"], rtol=0, atol=1e-10)
    assert abs(float(b) - sol.scalar("b")) < 1e-10
    r = lssvm_loo_residuals(Kd, yd, 10.0)
    np.testing.assert_allclose(_to_numpy(r), loo_residuals(K, y, 10.0), rtol=0, atol=1e-10)
    gammas = np.logspace(-2, 3, 9)
    path = loo_gamma_path(Kd, yd, gammas)
    np.testing.assert_allclose(_to_numpy(path), gamma_sweep(K, y, gammas, criterion="loo").scores,
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


def test_the_device_benchmark_runs_its_timings_on_the_cpu_and_skips_without_cuda(tmp_path):
    """``lssvm-cvx bench --only device``: the timed code runs (here on PyTorch's CPU), and without
    CUDA the benchmark checks nothing and says why."""
    torch = pytest.importorskip("torch")
    from lssvm_cvx.benchmarks import device as bench

    from lssvm_cvx.bench import Context

    row = bench._measure(torch, 200, 8.0, 10.0, np.logspace(-2, 2, 3), cpu=True, device="cpu")
    assert row["N"] == 200 and all(v > 0 for k, v in row.items() if k != "N")
    if not torch.cuda.is_available():
        res = bench.run(Context(quick=True, out=tmp_path))
        assert not res.checks and "no CUDA device" in res.notes
