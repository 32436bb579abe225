"""The Cholesky factor's condition estimate and its one-column solve (2026-12-07).

``Cholesky.factor`` used LAPACK ``dpocon`` until 2026-12-07 and now runs the same algorithm
(``dlacn2``) on BLAS ``dtrsv`` solves (:func:`lssvm_cvx.linalg.cholesky.inverse_one_norm`):
the reciprocal condition it reports must be ``dpocon``'s, to rounding, on both triangles the
factor can hold, and a nearly singular matrix must still warn.  One right-hand side is
solved by two ``dtrsv``; it must answer what ``cho_solve`` answers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg as sla
from scipy.linalg import lapack

from lssvm_cvx.exceptions import ConditioningWarning, InputError, NotPSDError
from lssvm_cvx.linalg.cholesky import (
    _TRSV_ORDER,
    COND_WARN,
    RIDGES,
    Cholesky,
    inverse_one_norm,
    one_norm,
)


def _spectrum(n: int, decades: float, seed: int) -> np.ndarray:
    U, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    return (U * np.logspace(0, -decades, n)) @ U.T


def _catalogue() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    out = {}
    for n in (1, 2, 3, 5, 17, 120):
        A = rng.standard_normal((n, n + 2))
        out[f"wishart{n}"] = A @ A.T + 1e-3 * np.eye(n)
        X = rng.standard_normal((n, 3))
        d = ((X[:, None] - X[None]) ** 2).sum(-1)
        out[f"rbf{n}"] = np.exp(-d / 4.0) + 1e-8 * np.eye(n)
    for n in (4, 8, 11):
        out[f"hilbert{n}"] = sla.hilbert(n)
    for k in (1, 6, 11, 14):
        out[f"spectrum1e-{k}"] = _spectrum(60, k, k)
    # from order _TRSV_ORDER the factor runs inverse_one_norm itself
    out["spectrum1e-9_n520"] = _spectrum(_TRSV_ORDER + 20, 9, 3)
    X = rng.standard_normal((_TRSV_ORDER + 100, 3))
    out[f"rbf{_TRSV_ORDER + 100}"] = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)) + 1e-6 * np.eye(
        _TRSV_ORDER + 100)
    return {k: (H + H.T) / 2 for k, H in out.items()}


CASES = _catalogue()


def _dpocon(chol: Cholesky, H: np.ndarray) -> float:
    """LAPACK's estimate on the same factor."""
    return float(lapack.dpocon(chol.c, one_norm(H), uplo="L" if chol.lower else "U")[0])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("order", ["C", "F"])
def test_rcond_is_dpocons_on_either_triangle(name, order):
    """A C-ordered ``H`` factorised in place holds ``U`` (its transpose is handed to
    LAPACK); any other holds ``L``: :func:`inverse_one_norm` on either must give ``dpocon``'s
    estimate, and so must the factor (which runs it from order ``_TRSV_ORDER``)."""
    H = np.array(CASES[name], order=order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConditioningWarning)
        chol = Cholesky.factor(H.copy(order="K"), overwrite=True)
    assert chol.lower == (order == "F" or H.shape[0] == 1)
    ref = _dpocon(chol, CASES[name])
    ours = 1.0 / inverse_one_norm(chol.solve, chol.n) / one_norm(CASES[name])
    assert ours == pytest.approx(ref, rel=1e-10, abs=0.0)
    assert chol.rcond == pytest.approx(ref, rel=1e-10, abs=0.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_estimate_is_a_lower_bound_of_the_exact_norm(name):
    """The estimate never exceeds ``‖H⁻¹‖₁`` (computed from the explicit inverse), so the
    reported reciprocal condition is never below the true one: the warning errs on the
    side of silence only as ``dpocon``'s does (Higham 1988)."""
    H = CASES[name]
    chol = Cholesky.factor(H, check_cond=False)
    exact = np.abs(np.linalg.inv(H)).sum(axis=0).max()
    est = inverse_one_norm(chol.solve, H.shape[0])
    # both are computed in floating point: relative errors up to about κ u
    kappa_u = exact * one_norm(H) * np.finfo(float).eps
    assert est <= exact * (1 + max(1e-12, 100 * kappa_u))
    assert est >= exact / (3 * H.shape[0])


def test_nearly_singular_matrices_still_warn():
    H = sla.hilbert(11)
    with pytest.warns(ConditioningWarning, match="nearly singular"):
        chol = Cholesky.factor(H)
    assert chol.rcond < COND_WARN
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConditioningWarning)
        assert Cholesky.factor(sla.hilbert(4)).rcond > COND_WARN


def test_an_overflowing_estimate_reports_zero_and_warns():
    """Where a solve overflows (``dpocon`` would scale it), the estimate is infinite, the
    reciprocal condition 0, and the matrix warns."""
    for H in (np.diag([1.0, 1e-320]), np.diag([1e-320, 1.0, 2.0]),
              np.diag(np.r_[np.ones(_TRSV_ORDER), 1e-320])):
        with pytest.warns(ConditioningWarning):
            chol = Cholesky.factor(H)
        assert chol.rcond == 0.0
        assert inverse_one_norm(chol.solve, H.shape[0]) == np.inf


@pytest.mark.parametrize("n", [0, -1])
def test_an_empty_order_is_refused(n):
    """There is no inverse of an empty matrix to estimate: the package's own exception, not a
    ``ZeroDivisionError`` from the first test vector ``1/n`` (a direct caller's mistake;
    ``Cholesky.factor`` never asks at n = 0)."""
    with pytest.raises(InputError, match="order"):
        inverse_one_norm(lambda v: v, n)


def test_factor_ridged_adds_no_ridge_to_a_definite_matrix():
    H = _spectrum(30, 6, 3)
    a, b = Cholesky.factor_ridged(H), Cholesky.factor(H, check_cond=False)
    np.testing.assert_array_equal(a.c, b.c)


def test_factor_ridged_regularises_a_singular_psd_matrix():
    """A rank-deficient PSD matrix (flat directions) gets the smallest ridge of ``RIDGES``
    that factorises; the solve is then the ridge's: its backward error on
    ``H + r·max|diag|·I`` for that ``r`` is at rounding level (the system's condition is
    about 1e12, so the solutions themselves differ from a dense solve's in their third
    digit)."""
    A = np.random.default_rng(0).standard_normal((40, 5))
    H = A @ A.T                                     # rank 5 of 40
    with pytest.raises(NotPSDError):
        Cholesky.factor(H, check_cond=False)
    chol = Cholesky.factor_ridged(H)
    scale = float(np.abs(np.diag(H)).max())
    L = chol.L
    ridge = (np.diag(L @ L.T) - np.diag(H)).mean() / scale
    assert any(np.isclose(ridge, r, rtol=1e-3) for r in RIDGES)
    b = np.arange(40.0)
    Hr, x = H + ridge * scale * np.eye(40), chol.solve(b)
    assert np.linalg.norm(Hr @ x - b) / (np.linalg.norm(Hr, 2) * np.linalg.norm(x)) < 1e-14
    np.testing.assert_array_equal(H, A @ A.T)           # the caller's matrix is untouched


def test_factor_ridged_refuses_an_indefinite_matrix():
    with pytest.raises(NotPSDError, match="even with a ridge"):
        Cholesky.factor_ridged(np.diag([1.0, -1.0]), name="M")
    with pytest.raises(NotPSDError, match="not positive definite"):
        Cholesky.factor_ridged(np.diag([1.0, -1.0]), ridges=())


def test_unchecked_factor_reports_one():
    assert Cholesky.factor(sla.hilbert(11), check_cond=False).rcond == 1.0


@pytest.mark.parametrize("order", ["C", "F"])
def test_one_column_solve_matches_cho_solve(order):
    """Two ``dtrsv`` (one right-hand side) answer ``cho_solve``'s, on either triangle, for a
    strided or integer ``B``, and leave ``B`` untouched."""
    H = np.array(CASES["wishart120"], order=order)
    chol = Cholesky.factor(H.copy(order="K"), overwrite=True)
    ref = sla.cho_factor(H, lower=True)
    rng = np.random.default_rng(3)
    for B in (rng.standard_normal(120), rng.standard_normal(240)[::2], np.arange(120)):
        before = B.copy()
        x = chol.solve(B)
        np.testing.assert_allclose(x, sla.cho_solve(ref, B), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(x, chol.solve(B[:, None])[:, 0], rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(B, before)


def test_one_column_solve_of_the_wrong_length_is_refused_as_before():
    chol = Cholesky.factor(CASES["wishart17"])
    with pytest.raises(ValueError):
        chol.solve(np.ones(16))


def test_squared_distances_are_never_negative():
    """``sq_dists`` relies on scikit-learn's clipping (its own ``np.maximum`` pass went on
    2026-12-07): near-duplicate points far from the origin, whose expansion
    ``‖x‖² + ‖z‖² − 2x'z`` cancels, give no negative distance, and the diagonal is 0."""
    from lssvm_cvx.kernels.base import sq_dists

    rng = np.random.default_rng(0)
    base = 1e4 + rng.standard_normal((1, 5))
    X = base + 1e-9 * rng.standard_normal((300, 5))
    expanded = (X**2).sum(1)[:, None] + (X**2).sum(1)[None, :] - 2 * X @ X.T
    assert expanded.min() < 0           # the cancellation this guards against happens
    for Z in (None, X[:50].copy()):
        D = sq_dists(X, Z)
        assert D.min() >= 0.0
    assert np.all(np.diagonal(sq_dists(X)) == 0.0)
