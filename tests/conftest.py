"""Shared fixtures: every solver test runs once per installed cvxpy solver with that solver's
tolerance profile (OSQP-style generation; tolerances live in lssvm_cvx.solvers.PROFILES)."""

from __future__ import annotations

import os

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
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
