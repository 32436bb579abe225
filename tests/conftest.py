"""Shared fixtures: every solver test runs once per installed cvxpy solver with that solver's
tolerance profile (OSQP-style generation; tolerances live in lssvm_cvx.solvers.PROFILES)."""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest

from lssvm_cvx.solvers import DEFAULT_SOLVERS, available_solvers, profile

os.environ.setdefault("MPLBACKEND", "Agg")

SOLVERS = [s for s in DEFAULT_SOLVERS if s in available_solvers()]


@pytest.fixture(autouse=True, scope="session")
def one_blas_thread():
    """Tests solve many small dense systems: one BLAS thread avoids oversubscription (on a
    shared 2-core machine multithreaded OpenBLAS made small solves ~100x slower)."""
    from threadpoolctl import threadpool_limits

    # LSSVM_CVX_TEST_BLAS_THREADS=2 runs the suite with two threads (no test may depend on it)
    with threadpool_limits(limits=int(os.environ.get("LSSVM_CVX_TEST_BLAS_THREADS", "1")),
                           user_api="blas"):
        yield


@pytest.fixture(params=SOLVERS)
def solver(request) -> str:
    """Each installed default cvxpy solver (CLARABEL, OSQP, ECOS, SCS)."""
    return request.param


@pytest.fixture
def tol(solver):
    """The tolerance profile of ``solver``."""
    return profile(solver).tol


@pytest.fixture
def spy(monkeypatch):
    """``spy(module, name)`` replaces the function ``module.name`` by a wrapper that calls it
    and records its first argument; returns the list of those arguments (one per call)."""

    def install(module, name: str) -> list:
        calls: list = []
        real = getattr(module, name)

        def wrapper(first, *args, **kwargs):
            calls.append(first)
            return real(first, *args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)
        return calls

    return install


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


# ------------------------------------------------------------------ array namespaces (issue 31)
#: the array libraries the device tests run under, beside NumPy (``torch-cuda`` skips without a
#: CUDA device, a library that is not installed skips its cases)
DEVICE_NAMESPACES = ("array_api_strict", "torch-cpu", "torch-cuda")


def _converter(ns: str):
    if ns == "numpy":
        return np.asarray
    if ns == "array_api_strict":
        return pytest.importorskip("array_api_strict").asarray
    torch = pytest.importorskip("torch")
    device = ns.removeprefix("torch-")
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine")
    return lambda a: torch.asarray(a, device=device)


def _as_numpy(a) -> np.ndarray:
    if hasattr(a, "cpu"):
        a = a.cpu()
    return a if isinstance(a, np.ndarray) else np.from_dlpack(a)


@pytest.fixture
def to_namespace():
    """``to_namespace(ns)``: a converter from NumPy arrays to namespace ``ns`` (``"numpy"`` or one
    of :data:`DEVICE_NAMESPACES`); the test skips where that library or device is absent."""
    return _converter


@pytest.fixture
def to_numpy():
    """``to_numpy(a)``: any array (a tensor on any device, an ``array_api_strict`` array) as a
    NumPy array."""
    return _as_numpy


def _traced_peak(fn):
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        return out, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.fixture
def peak_memory():
    """``peak_memory(fn)``: ``(fn(), peak traced bytes above the start)``, by ``tracemalloc``."""
    return _traced_peak
