"""Auto LS-SVM formulations (note eq. 8-9, §1.1 item 1b): closed form against an independent
dense solve of the unreduced normal equations, against every cvxpy solver through the harness,
DPP re-solves, the normalised-to-paper weight map, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, InputError, LabelError, NotPSDError
from lssvm_cvx.formulations import get_formulation
from lssvm_cvx.formulations.auto import AutoLSSVM, AutoLSSVMClassification
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.terms.gradient_norm import gradient_norm_gram, model_kernel
from lssvm_cvx.validate import compare


def dense_normal_equations(K, G, t, mu, nu, R=None):
    """Independent reference: stationarity of ||t - Kα - b||² + μα'Gα + να'Rα in (α, b) as one
    (N+1)-square system, by numpy.linalg.solve (no elimination of b)."""
    n = len(t)
    A = np.zeros((n + 1, n + 1))
    A[:n, :n] = K.T @ K + mu * G + nu * (np.eye(n) if R is None else R)
    A[:n, n] = K.T @ np.ones(n)
    A[n, :n] = np.ones(n) @ K
    A[n, n] = n
    z = np.linalg.solve(A, np.r_[K.T @ t, t.sum()])
    return z[:n], z[n]


@pytest.mark.parametrize("form,margin", [("normalized", "alpha"), ("exact", "alpha"),
                                         ("normalized", "rkhs")])
def test_regression_closed_form(form, margin, rng):
    X = rng.normal(size=(35, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=35)
    f = AutoLSSVM(X, y, gamma=0.7, mu=0.3, nu=0.05, form=form, margin=margin)
    sol = f.solve()
    R = None if margin == "alpha" else f.K + 1e-6 * np.eye(35)  # α'Kα with the tuner's jitter
    a, b = dense_normal_equations(f.K, f.G, y, 0.3, 0.05, R)
    np.testing.assert_allclose(sol["alpha"], a, rtol=1e-7, atol=1e-9 * np.abs(a).max())
    assert sol.scalar("b") == pytest.approx(b, rel=1e-8, abs=1e-10)
    np.testing.assert_allclose(sol["e"], y - f.K @ sol["alpha"] - sol.scalar("b"), atol=1e-12)
    # model and regularizer of the form: eq. (4)/(41) or eq. (44)/normalised
    np.testing.assert_allclose(f.K, model_kernel(X, gamma=0.7, form=form))
    np.testing.assert_allclose(f.G, gradient_norm_gram(X, gamma=0.7, form=form), atol=1e-14)
    assert f.kkt_residuals(sol)["stationarity"] < 1e-8


def test_classifier_is_regression_on_pm1_labels(rng):
    X = rng.normal(size=(30, 2))
    labels = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, "yes", "no")
    c = AutoLSSVMClassification(X, labels, gamma=1.0, mu=0.2, nu=0.1, margin="rkhs")
    sol = c.solve()
    ypm = np.where(labels == "yes", 1.0, -1.0)
    np.testing.assert_array_equal(c.classes, ["no", "yes"])
    r = AutoLSSVM(X, ypm, gamma=1.0, mu=0.2, nu=0.1, margin="rkhs").solve()
    np.testing.assert_allclose(sol["alpha"], r["alpha"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["e"], ypm * r["e"], atol=1e-12)  # e_cls = y ∘ e_reg
    f_train = c.decision_function(sol, X)
    np.testing.assert_allclose(1 - ypm * f_train, sol["e"], atol=1e-10)


@pytest.mark.parametrize("name,margin", [("auto_lssvm", "alpha"), ("auto_lssvm", "rkhs"),
                                         ("auto_lssvm_classifier", "rkhs")])
def test_every_solver_agrees_with_closed_form(name, margin, solver):
    f = get_formulation(name).random_instance(40, seed=3, margin=margin)
    report = compare(f, [solver])
    report.assert_agree()
    assert report[solver].agrees
    assert report["closed_form"].kkt["stationarity"] < 1e-7


def test_dpp_resolve_tracks_parameters():
    f = AutoLSSVM.random_instance(30, seed=1)
    assert f.problem.is_dpp()
    assert set(f.problem.params) == {"mu", "nu"}
    f.solve("CLARABEL")
    compiled = f.problem._cache.param_prog  # the DPP-compiled program (not a wall-clock bound)
    for mu, nu in [(0.5, 2.0), (5.0, 0.3)]:
        f.mu, f.nu = mu, nu
        s = f.solve("CLARABEL")
        c = f.solve("closed_form")
        assert f.problem._cache.param_prog is compiled  # re-solved without recompiling
        np.testing.assert_allclose(s["alpha"], c["alpha"], rtol=1e-5, atol=1e-6 * np.abs(c["alpha"]).max())


@pytest.mark.parametrize("margin", ["alpha", "rkhs"])
def test_from_normalized_equals_normalised_problem(margin, rng):
    """The formulation with from_normalized weights solves the normalised problem (N1) of
    lssvm_cvx.linalg.penalized: same α, b."""
    X = rng.normal(size=(40, 2))
    y = X[:, 0] ** 2 + 0.1 * rng.normal(size=40)
    f = AutoLSSVM.from_normalized(X, y, gamma=2.0, mu=3.0, nu=0.5, margin=margin)
    sol = f.solve()
    fit = PenalizedLS(f.K, y, f.G, None if margin == "alpha" else f.R).fit(3.0, 0.5)
    np.testing.assert_allclose(sol["alpha"], fit.theta[:, 0], rtol=1e-7,
                               atol=1e-9 * np.abs(sol["alpha"]).max())
    assert sol.scalar("b") == pytest.approx(float(fit.b[0]), rel=1e-8)


def test_eq44_builder_refuses_indefinite_gram():
    X = np.random.default_rng(0).normal(size=(120, 4))
    y = X[:, 0]
    with pytest.raises(NotPSDError, match="indefinite"):
        AutoLSSVM(X, y, gamma=1.0, form="eq44").build()
    AutoLSSVM(X, y, gamma=1.0, form="normalized").build()


def test_bad_input():
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = X[:, 0]
    with pytest.raises(HyperparameterError, match="mu"):
        AutoLSSVM(X, y, mu=-1).solve()
    with pytest.raises(HyperparameterError, match="nu"):
        AutoLSSVM(X, y, nu=0).solve()
    with pytest.raises(HyperparameterError, match="gamma"):
        AutoLSSVM(X, y, gamma=0).solve()
    with pytest.raises(HyperparameterError, match="form"):
        AutoLSSVM(X, y, form="eq99").solve()
    with pytest.raises(HyperparameterError, match="margin"):
        AutoLSSVM(X, y, margin="l1").solve()
    with pytest.raises(InputError, match="NaN"):
        AutoLSSVM(X, np.r_[np.nan, y[1:]]).solve()
    with pytest.raises(InputError, match="1 sample"):
        AutoLSSVM(X[:1], y[:1]).solve()
    with pytest.raises(InputError, match="entries"):
        AutoLSSVM(X, y[:-1]).solve()
    with pytest.raises(LabelError, match="1 class"):
        AutoLSSVMClassification(X, np.ones(20)).solve()
    with pytest.raises(LabelError, match="3 classes"):
        AutoLSSVMClassification(X, np.arange(20) % 3).solve()
