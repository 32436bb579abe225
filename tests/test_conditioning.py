"""Ill-conditioning is visible (issue 15, item 3): a ConditioningWarning carrying the condition
estimate when a Gram system is nearly singular, an estimate that is right, and an answer that is
still as accurate as that estimate promises — checked against an exact rational-arithmetic
solution of the same float64 system."""

from __future__ import annotations

import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import LSSVMRegressor
from lssvm_cvx.exceptions import ConditioningWarning
from lssvm_cvx.kernels import RBF

EPS = np.finfo(np.float64).eps
rng = np.random.default_rng(1)
_x = np.sort(rng.uniform(-1, 1, 10))
X = np.r_[_x, _x + 1e-6][:, None]  # ten pairs of near-duplicate points: a nearly singular Gram
Y = np.sinc(3 * X[:, 0]) + 0.01 * rng.normal(size=20)
SIGMA2 = 0.5
XT = np.linspace(-1, 1, 40)[:, None]


def exact_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Gaussian elimination in exact rational arithmetic on the float64 entries of ``A``, ``b``
    (the reference has no rounding error at all), rounded to float64 at the end."""
    n = len(b)
    M = [[Fraction(float(v)) for v in row] + [Fraction(float(r))] for row, r in zip(A, b)]
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(M[i][k]))
        M[k], M[p] = M[p], M[k]
        for i in range(k + 1, n):
            f = M[i][k] / M[k][k]
            if f:
                for j in range(k, n + 1):
                    M[i][j] -= f * M[k][j]
    x = [Fraction(0)] * n
    for i in range(n - 1, -1, -1):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return np.array([float(v) for v in x])


def reference(gamma: float) -> tuple[np.ndarray, float, np.ndarray]:
    """Exact ``(alpha, b)`` of the LS-SVM dual system (AReg paper eq. 2) and the exact 1-norm
    condition number of ``Omega + I/gamma``."""
    n = len(Y)
    H = RBF(SIGMA2)(X) + np.eye(n) / gamma
    A = np.zeros((n + 1, n + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = H
    sol = exact_solve(A, np.r_[0.0, Y])
    return sol[1:], float(sol[0]), np.linalg.cond(H, 1)


def fit_recording(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    return est, [str(w.message) for w in caught if issubclass(w.category, ConditioningWarning)]


@pytest.mark.parametrize("gamma", [1e11, 1e12, 1e13])
def test_warning_estimate_and_accuracy_against_an_exact_reference(gamma):
    model, messages = fit_recording(LSSVMRegressor(gamma=gamma, sigma2=SIGMA2), X, Y)
    assert messages, "a nearly singular system must warn"
    match = re.search(r"condition ≈ ([0-9.e+-]+)", messages[0])
    assert match, messages[0]
    estimate = float(match.group(1))
    alpha_ref, b_ref, cond = reference(gamma)
    assert cond / 3 <= estimate <= cond * 3, (estimate, cond)  # the estimate is right
    # the answer is as accurate as the estimate promises (forward error <= cond * eps, with a
    # factor 10 for the size of the system), against the exact solution of the same system
    rel = np.linalg.norm(model.dual_coef_ - alpha_ref) / np.linalg.norm(alpha_ref)
    assert rel <= 10 * estimate * EPS, (rel, estimate * EPS)
    f_ref = RBF(SIGMA2)(XT, X) @ alpha_ref + b_ref
    err = np.abs(model.predict(XT) - f_ref).max()
    assert err <= 10 * estimate * EPS * np.abs(f_ref).max(), (err, estimate * EPS)


def test_well_conditioned_fits_do_not_warn_and_are_exact():
    model, messages = fit_recording(LSSVMRegressor(gamma=1e4, sigma2=SIGMA2), X, Y)
    assert messages == []
    alpha_ref, b_ref, cond = reference(1e4)
    assert cond < 1e10
    np.testing.assert_allclose(model.dual_coef_, alpha_ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,kw", [
    ("LSSVMRegressor", {"gamma": 1e13, "sigma2": SIGMA2}),
    ("LSSVMRegressor", {"gamma_grid": [1e13], "sigma2_grid": [SIGMA2], "selection": "loo"}),
    ("AdditiveRegularizationRegressor", {"sigma2": SIGMA2, "gammas": (1e12, 1e13), "random_state": 0}),
    ("ComponentwiseLSSVMRegressor", {"gamma": 1e13, "sigma2": SIGMA2}),
    ("ParetoKernelRidge", {"method": None, "lam": 1e-13, "sigma2": SIGMA2}),
    ("AutoLSSVMRegressor", {"kernel_gamma": 1e13, "mu": 0.0, "nu": 1e-13}),
    ("RegularizedLSSVMRegressor", {"sigma2": SIGMA2}),
])
def test_every_solver_path_warns_with_the_estimate(name, kw):
    if name == "RegularizedLSSVMRegressor":
        from lssvm_cvx import terms

        kw = {**kw, "terms": {"rkhs": (terms.RKHSNorm(), 1e-13)}}
    model, messages = fit_recording(getattr(lssvm_cvx, name)(**kw), X, Y)
    assert any(re.search(r"condition ≈ [0-9.]+e\+1[2-9]", m) for m in messages), messages
    assert np.all(np.isfinite(model.predict(XT)))
