"""The augmented system (A) factorised in its own memory (twenty-eighth session, 2026-12-06).

``AugmentedSystem`` assembles (A) Fortran-ordered and lets LAPACK's LU overwrite it; its
condition estimate's 1-norm is read in place by :func:`~lssvm_cvx.linalg.cholesky.one_norm`
(the one 1-norm of the package, for every array namespace), and the ridged re-factorisation
assembles (A) again in the same memory.  Each answer is checked against an independent one (a
dense least-squares solve of the stationarity conditions, a weighted least-squares fit), and
each saving by ``tracemalloc``: the bounds fail on the code before this session (numbers in
the docstrings)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lssvm_cvx.exceptions import ConditioningWarning
from lssvm_cvx.linalg.cholesky import one_norm
from lssvm_cvx.linalg.quadratic import AugmentedSystem


def _problem(n: int, width: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / width)
    s = rng.uniform(0.5, 2.0, n)
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
    return K, s, y


def _fitted(K, s, P, y):
    """``Kα + b`` of ½Σ s_i (y_i - (Kα)_i - b)² + ½α'Pα: the minimum-norm least-squares
    solution (SVD) of its optimality system (A), written out here (the fitted values are
    identifiable even where α is not)."""
    n, r = len(K), np.sqrt(s)
    A = np.block([[P, np.zeros((n, 1)), K * r[None, :]],
                  [np.zeros((1, n + 1)), r[None, :]],
                  [r[:, None] * K, r[:, None], -np.eye(n)]])
    sol = np.linalg.lstsq(A, np.concatenate([np.zeros(n + 1), r * y]), rcond=None)[0]
    return K @ sol[:n] + sol[n]


@pytest.mark.parametrize("case", ["well_conditioned", "ridged"])
def test_the_augmented_system_is_factorised_in_its_own_memory(case, peak_memory):
    """Peak of building the system: at most 1.3 arrays of order 2N + 1 (on the code before this
    session 2.0 for a well-conditioned system, the assembled (A) and LAPACK's copy, and 3.0
    where the ridge was needed, with an ``|A|`` temporary beside both)."""
    n = 300
    K, s, y = _problem(n, width=1.0 if case == "well_conditioned" else 3.0)
    P = (0.1 * np.eye(n) + 0.01 * K) if case == "well_conditioned" else 1e-2 * K
    system, peak = peak_memory(lambda: AugmentedSystem(K, s, P))
    assert (system.jitter > 0) == (case == "ridged")      # each case takes its own path
    assert peak / ((2 * n + 1) ** 2 * 8) < 1.3
    alpha, b = system.solve(y)
    ref = _fitted(K, s, P, y)
    assert np.abs(K @ alpha + b - ref).max() <= 1e-6 * np.abs(ref).max()


def test_the_pseudo_inverse_fallback_assembles_the_ridged_system_again():
    """Where even the ridged LU is singular in double precision (a ridge of 1e-30 here, with no
    penalty and a rank-3 linear kernel), NumPy falls back to the pseudo-inverse of the ridged
    (A), which the LU overwrote: the fitted values are the weighted least-squares fit on the
    kernel's features and the intercept."""
    rng = np.random.default_rng(1)
    n = 40
    X = rng.standard_normal((n, 3))
    K, s = X @ X.T, rng.uniform(0.5, 2.0, n)
    y = X @ np.array([1.0, -2.0, 0.5]) + 3.0 + 0.1 * rng.standard_normal(n)
    with pytest.warns(ConditioningWarning, match="pseudo-inverse"):
        system = AugmentedSystem(K, s, np.zeros((n, n)), ridge=1e-30)
    alpha, b = system.solve(y)
    F = np.column_stack([X, np.ones(n)]) * np.sqrt(s)[:, None]
    coef = np.linalg.lstsq(F, np.sqrt(s) * y, rcond=None)[0]
    ref = np.column_stack([X, np.ones(n)]) @ coef
    assert np.abs(K @ alpha + b - ref).max() <= 1e-8 * np.abs(ref).max()


def test_a_ridged_system_answers_as_the_dense_solve_in_either_order_of_its_inputs():
    """The inputs' memory order does not matter (the system is assembled, not viewed; α moves
    with rounding in the directions the ridge picks, the fitted values do not)."""
    n = 80
    K, s, y = _problem(n, width=20.0, seed=2)
    P = 1e-3 * K
    ref = _fitted(K, s, P, y)
    for Kx, Px in ((K, P), (np.asfortranarray(K), np.asfortranarray(P))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")       # no fallback: the ridge serves
            system = AugmentedSystem(Kx, s, Px)
        alpha, b = system.solve(y)
        assert system.jitter > 0
        assert np.abs(K @ alpha + b - ref).max() <= 1e-6 * np.abs(ref).max()


def test_one_norm_of_other_array_namespaces():
    """The same number on ``array-api-strict`` and PyTorch (CPU) arrays, in their namespace."""
    A = np.random.default_rng(5).standard_normal((7, 5))
    expected = float(np.abs(A).sum(axis=0).max())
    xps = pytest.importorskip("array_api_strict")
    assert one_norm(xps.asarray(A)) == pytest.approx(expected, rel=1e-14)
    torch = pytest.importorskip("torch")
    assert one_norm(torch.asarray(A)) == pytest.approx(expected, rel=1e-14)
