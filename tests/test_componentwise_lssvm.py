"""Componentwise LS-SVM (eq. 3-17), the AReg substrate (eq. 18-19) and the component basis."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import problems
from lssvm_cvx import LSSVMRegressor
from lssvm_cvx.exceptions import InputError
from lssvm_cvx.formulations import LSSVM, LSSVMClassification
from lssvm_cvx.formulations.componentwise_basis import ComponentBasis
from lssvm_cvx.formulations.componentwise import (ComponentwiseAReg, ComponentwiseLSSVM,
                                                  ComponentwiseLSSVMClassification,
                                                  component_kernels)
from lssvm_cvx.kernels import RBF, Componentwise, Linear, Polynomial
from lssvm_cvx.linalg import lssvm_system
from lssvm_cvx.validate import compare


@pytest.fixture(scope="module")
def data():
    ds = problems.get_problem("additive10", n_train=40, n_test=30, seed=2)
    return ds.X, ds.y, ds.X_test


def test_component_kernels_follow_the_kernel_order(data):
    X = data[0][:, :3]
    cw = Componentwise([RBF(0.7), Linear()])
    comps = cw.components(X)
    mine = [k(X[:, list(c)]) for k, c in component_kernels(cw, 3)]
    assert len(mine) == 6
    for a, b in zip(comps, mine):
        np.testing.assert_array_equal(a, b)


def test_componentwise_equals_summed_kernel_lssvm_to_1e10(data):
    """The chapter's remark after eq. (11): eq. (7) is the LS-SVM with the kernel (12)."""
    X, y, Xt = data
    cw = Componentwise([RBF(0.5), Linear()])
    f = ComponentwiseLSSVM(X, y, kernel=cw, gamma=7.0)
    sol = f.solve()
    # independent: the foundation's LS-SVM on the Componentwise kernel's own Gram sum, and the
    # estimator with that kernel object
    ref = LSSVM.from_gram(cw(X), y, gamma=7.0).solve()
    np.testing.assert_allclose(sol["alpha"], ref["alpha"], rtol=0, atol=1e-10 * np.abs(ref["alpha"]).max())
    assert abs(sol.scalar("b") - ref.scalar("b")) <= 1e-10 * max(1.0, abs(ref.scalar("b")))
    est = LSSVMRegressor(kernel=cw, gamma=7.0).fit(X, y)
    pred = f.predict(sol, Xt)
    np.testing.assert_allclose(pred, est.predict(Xt), rtol=0, atol=1e-10 * np.abs(pred).max())
    # eq. (8) = row sums of eq. (9) + b
    np.testing.assert_allclose(f.component_outputs(sol["alpha"], Xt).sum(1) + sol.scalar("b"), pred,
                               atol=1e-12 * np.abs(pred).max())


def test_componentwise_builder_matches_closed_form(data):
    X, y, _ = data
    f = ComponentwiseLSSVM(X, y, kernel=Componentwise(RBF(1.0)), gamma=10.0)
    rep = compare(f, solvers=["CLARABEL", "SCS", "ECOS"])
    rep.assert_agree()
    assert f.problem.is_dpp()
    # DPP re-solve after changing gamma
    f.gamma = 3.0
    again = f.solve("CLARABEL")
    np.testing.assert_allclose(again["alpha"], f.solve()["alpha"], atol=1e-6)


def test_smoother_matrices(data):
    X, y, _ = data
    f = ComponentwiseLSSVM(X, y, kernel=Componentwise(RBF(1.0)), gamma=5.0)
    sol = f.solve()
    fitted = f.Omega @ sol["alpha"] + sol.scalar("b")
    S = f.smoother()
    np.testing.assert_allclose(S @ y, fitted, atol=1e-9)
    # per-component smoothers: Ŷ^d = S^d Y
    Sd = f.smoother(components=True)
    np.testing.assert_allclose(np.einsum("dij,j->id", Sd, y), f.component_outputs(sol["alpha"]), atol=1e-9)
    # eq. (11) as printed is the model without bias
    a0, _ = lssvm_system(f.Omega, 5.0, None).solve(y)
    np.testing.assert_allclose(f.smoother(bias=False) @ y, f.Omega @ a0, atol=1e-9)


def test_classifier_matches_regression_on_pm1_targets(data):
    X, y, Xt = data
    lab = np.where(y > np.median(y), "spam", "ham")
    f = ComponentwiseLSSVMClassification(X, lab, kernel=Componentwise(RBF(1.0)), gamma=3.0)
    sol = f.solve()
    ypm = np.where(lab == "spam", 1.0, -1.0)
    reg = ComponentwiseLSSVM(X, ypm, kernel=Componentwise(RBF(1.0)), gamma=3.0).solve()
    np.testing.assert_allclose(sol["alpha"] * ypm, reg["alpha"], atol=1e-10)
    ref = LSSVMClassification.from_gram(Componentwise(RBF(1.0))(X), lab, gamma=3.0).solve()
    np.testing.assert_allclose(sol["alpha"], ref["alpha"], atol=1e-10)
    rep = compare(f, solvers=["CLARABEL", "SCS", "ECOS"])
    rep.assert_agree()
    dec = f.decision_function(sol, Xt)
    np.testing.assert_allclose(dec, f.component_outputs(sol["alpha"], Xt).sum(1) + sol.scalar("b"))


def test_areg_substrate_closed_form_and_lssvm_special_case(data):
    X, y, _ = data
    f = ComponentwiseAReg.random_instance(40, seed=3)
    rep = compare(f, solvers=["CLARABEL", "OSQP", "SCS"])
    rep.assert_agree()
    assert f.problem.is_dpp()
    # eq. (19) with c = (1/γ - 1) α reproduces the LS-SVM of eq. (7) (§3.1)
    g = 4.0
    ls = ComponentwiseLSSVM(X, y, kernel=Componentwise(RBF(1.0)), gamma=g).solve()
    ar = ComponentwiseAReg(X, y, kernel=Componentwise(RBF(1.0)), c=(1 / g - 1) * ls["alpha"]).solve()
    np.testing.assert_allclose(ar["alpha"], ls["alpha"], atol=1e-9)
    np.testing.assert_allclose(ar["e"], ls["e"], atol=1e-9)


def test_areg_bad_c(data):
    X, y, _ = data
    with pytest.raises(InputError, match="c must"):
        ComponentwiseAReg(X, y, c=np.ones(3)).solve()


@pytest.mark.parametrize("kernel", [RBF(0.6), Polynomial(2, 1.0)], ids=["rbf", "poly"])
def test_component_basis_reproduces_components(data, kernel):
    X, _, Xt = data
    cw = Componentwise([kernel, Linear()])
    B = ComponentBasis.build(X, component_kernels(cw, X.shape[1]), rank_tol=1e-12)
    comps = cw.components(X)
    rng = np.random.default_rng(0)
    for d, (V, lam) in enumerate(zip(B.V, B.lam)):
        np.testing.assert_allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-10)
        # truncated Gram within the stated tolerance
        G = (V * lam) @ V.T
        assert np.abs(G - comps[d]).max() <= 1e-9 * max(1.0, np.abs(comps[d]).max())
    # a random coupled z: training outputs = kernel expansion on the pivots = Ω̃^d α
    z = B.project(rng.normal(size=B.R))
    A = B.coef(z)
    Yh = B.outputs(z)
    for d in range(B.P):
        np.testing.assert_allclose(comps[d] @ A[:, d], Yh[:, d], atol=1e-7 * np.abs(Yh).max())
    alpha = B.alpha(z)
    assert abs(alpha.sum()) <= 1e-8 * np.abs(alpha).max()
    for d in range(B.P):
        G = (B.V[d] * B.lam[d]) @ B.V[d].T
        np.testing.assert_allclose(G @ alpha, Yh[:, d], atol=1e-6 * np.abs(Yh).max())
    # new points: features E_d z_d = K^d(X_new, X) A[:, d]
    E = B.features(Xt)
    Kt = cw.components(Xt, X)
    for d, zd in enumerate(B.blocks(z)):
        np.testing.assert_allclose(E[d] @ zd, Kt[d] @ A[:, d], atol=1e-8 * np.abs(Yh).max())


def test_bad_inputs(data):
    X, y, _ = data
    Xc = X.copy()
    Xc[:, 4] = 2.0
    with pytest.raises(InputError, match=r"column\(s\) \[4\].*constant"):
        ComponentwiseLSSVM(Xc, y).solve()
    with pytest.raises(InputError, match="out of range"):
        ComponentwiseLSSVM(X, y, kernel=Componentwise(RBF(), columns=[0, 12])).solve()
    f = ComponentwiseLSSVM(X, y)
    with pytest.raises(InputError, match="component index 10 out of range"):
        f.component_gram(10)
    with pytest.raises(InputError):
        ComponentwiseLSSVM(X[:1], y[:1]).solve()
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(InputError):
        ComponentwiseLSSVM(Xn, y).solve()
