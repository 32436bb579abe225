"""Candidate kernels of different types competing in the STP (componentwise LS-SVM chapter,
§5.2 "STP with RBF and lin"): degrees-of-freedom start weights of GNC and the support moves
that leave the plateau where one effect is split over overlapping candidates."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from lssvm_cvx import ComponentwiseLSSVMRegressor, problems
from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations.componentwise_gnc import (ComponentwiseSTP, component_dimensions,
                                                      kernel_dof_weights)
from lssvm_cvx.kernels import RBF, Componentwise, Linear
from lssvm_cvx.selection.gnc import gnc, prune_overlaps


@pytest.fixture(scope="module")
def data():
    ds = problems.get_problem("additive10", n_train=60, n_test=10, seed=3)
    return ds.X, ds.y


def names(p):
    return [lab[1] for lab in p.labels()]


def test_dimensions_against_centred_gram_eigenvalues(data):
    """component_dimensions = rank of the centred component Gram (independent: eigvalsh)."""
    X, y = data
    p = ComponentwiseSTP(X, y, kernel=Componentwise([RBF(1.0), Linear()]))
    dims = component_dimensions(p.basis)
    H = np.eye(len(y)) - 1.0 / len(y)
    for d, G in enumerate(p.cw.components(X)):
        ev = np.linalg.eigvalsh(H @ G @ H)
        # the basis truncates at 1e-10 of the largest eigenvalue of the *uncentred* Gram
        ref = np.sum(ev > 1e-10 * np.linalg.eigvalsh(G).max())
        assert abs(dims[d] - max(ref, 1)) <= 1
    assert np.all(dims[10:] == 1)                     # linear components: one direction
    assert np.all(dims[:10] >= 3)                     # 1-D RBF: several


def test_kernel_dof_weights(data):
    X, y = data
    single = ComponentwiseSTP(X, y, kernel=Componentwise(RBF(1.0)))
    assert np.array_equal(kernel_dof_weights(single.basis, names(single)), np.ones(10))
    mixed = ComponentwiseSTP(X, y, kernel=Componentwise([RBF(1.0), Linear()]))
    w = kernel_dof_weights(mixed.basis, names(mixed))
    dims = component_dimensions(mixed.basis)
    assert np.all(w[:10] == 1.0)
    assert w[10:] == pytest.approx(np.full(10, 1.0 / dims[:10].mean()))
    with pytest.raises(HyperparameterError):
        kernel_dof_weights(mixed.basis, names(mixed)[:5])


def test_start_weights_leave_eq25_unchanged_and_gradient_is_exact(data):
    X, y = data
    cw = Componentwise([RBF(1.0), Linear()])
    w = np.r_[np.ones(10), np.full(10, 0.2)]
    p0 = ComponentwiseSTP(X, y, kernel=cw, lam=2.0)
    p1 = ComponentwiseSTP(X, y, kernel=cw, lam=2.0, start_weights=w)
    B = p1.basis
    rng = np.random.default_rng(1)
    z = B.project(rng.normal(size=B.R) * 2)
    b = 0.3
    # ζ = 0 is eq. (25): the start weights do not enter it
    assert p1.relaxed_objective(z, b, 0.0) == pytest.approx(p0.relaxed_objective(z, b, 0.0))
    # at ζ = 1 the start is ½ρ Σ_d w_d ||Ŷ^d||² + ½||e||² (independent evaluation)
    Yh = B.outputs(z)
    e = y - Yh.sum(1) - b
    ref = 0.5 * np.sum(w * np.sum(Yh * Yh, axis=0)) + 0.5 * e @ e
    assert p1.relaxed_objective(z, b, 1.0) == pytest.approx(ref)
    assert p1.relaxed_objective(z, b, 1.0) != pytest.approx(p0.relaxed_objective(z, b, 1.0))
    for zeta in (0.3, 1.0):
        g = p1.gradient(z, zeta)
        for _ in range(3):
            v = B.project(rng.normal(size=B.R))
            h = 1e-6

            def J(zz):
                bb = float(np.mean(y - B.outputs(zz).sum(1)))
                return p1.relaxed_objective(zz, bb, zeta)

            assert g @ v == pytest.approx((J(z + h * v) - J(z - h * v)) / (2 * h), rel=1e-5, abs=1e-6)
    with pytest.raises(HyperparameterError):
        ComponentwiseSTP(X, y, kernel=cw, start_weights=np.ones(3)).validate()
    with pytest.raises(HyperparameterError):
        ComponentwiseSTP(X, y, kernel=cw, start_weights=-np.ones(20)).validate()


def test_prune_overlaps_only_lowers_eq25(data):
    X, y = data
    cw = Componentwise([RBF(1.0), Linear()])
    p = ComponentwiseSTP(X, y, kernel=cw, lam=0.05 * float(np.sum((y - y.mean()) ** 2)))
    res = gnc(p, max_final=3000, tol_stationarity=1e-6)
    groups = [[d, d + 10] for d in range(10)]
    out, log = prune_overlaps(p, res, groups, max_final=3000, tol_stationarity=1e-6)
    assert out.solution.objective <= res.solution.objective * (1 + 1e-12)
    for rec in log:
        assert rec["accepted"] == (rec["after"] < rec["before"] - 1e-9 * abs(rec["before"]))
    if any(r["accepted"] for r in log):
        assert out.solution.objective < res.solution.objective
    # a move is tried for every input with two selected candidates, until none improves
    sel = set(out.selected.tolist())
    for g in groups:
        if set(g) <= sel:
            assert any(r["group"] == g and not r["accepted"] for r in log)


def test_estimator_start_weights_option(data):
    X, y = data
    est = ComponentwiseLSSVMRegressor(penalty="stp", kernel=["rbf", "linear"], sigma2=1.0,
                                      lam=50.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
        assert est.start_weights_[0] == 1.0 and est.start_weights_[10] < 1.0
        eq = ComponentwiseLSSVMRegressor(penalty="stp", kernel=["rbf", "linear"], sigma2=1.0,
                                         lam=50.0, start_weights="equal").fit(X, y)
        assert np.all(eq.start_weights_ == 1.0)
        one = ComponentwiseLSSVMRegressor(penalty="stp", sigma2=1.0, lam=50.0).fit(X, y)
        assert np.all(one.start_weights_ == 1.0) and one.prune_log_ == []
    with pytest.raises(HyperparameterError):
        ComponentwiseLSSVMRegressor(penalty="stp", sigma2=1.0, lam=5.0, start_weights="dof").fit(X, y)
    with pytest.raises(HyperparameterError):
        ComponentwiseLSSVMRegressor(penalty="stp", sigma2=1.0, lam=5.0, start_weights=[1.0, 2.0]).fit(X, y)


@pytest.mark.slow
def test_rbf_and_linear_candidates_at_the_defaults():
    """§5.2 "STP with RBF and lin" at the defaults (start weights, support moves and the kernel
    choice by paired CV): RBF for x1, x2 and linear for x3, x4 in at least 4 of 5 seeds."""
    right = 0
    for seed in range(2000, 2005):
        ds = problems.get_problem("additive10", n_train=100, n_test=0, seed=seed)
        est = ComponentwiseLSSVMRegressor(penalty="stp", kernel=["rbf", "linear"]).fit(ds.X, ds.y)
        right += est.selected_components_.tolist() == [0, 1, 12, 13]
    assert right >= 4
