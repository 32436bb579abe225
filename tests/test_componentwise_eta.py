"""Componentwise regularized LS-SVM (eq. 31-36) and η-fusion (eq. 37-40) by ALS."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx import problems
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations.componentwise import ComponentwiseLSSVM
from lssvm_cvx.formulations.componentwise_eta import ComponentwiseEta, printed_fusion_objective
from lssvm_cvx.selection.eta_als import eta_fusion
from lssvm_cvx.kernels import RBF, Componentwise
from lssvm_cvx.validate import compare


@pytest.fixture(scope="module")
def split():
    ds = problems.get_problem("additive10", n_train=80, n_test=40, seed=7)
    X, y = ds.X, ds.y
    return X[:55], y[:55], X[55:], y[55:], ds.X_test


def test_eta_closed_form_matches_solvers():
    f = ComponentwiseEta.random_instance(35, seed=2)
    rep = compare(f, solvers=["CLARABEL", "SCS", "ECOS"])
    rep.assert_agree()
    assert f.problem.is_dpp()


def test_eta_gamma_ones_is_the_componentwise_lssvm(split):
    """η = γ 1 in eq. (34)-(35) is the componentwise LS-SVM (7)-(8) with α = γ α^η."""
    X, y, _, _, Xt = split
    g = 6.0
    cw = Componentwise(RBF(1.0))
    eta = ComponentwiseEta(X, y, kernel=cw, eta=g)
    se = eta.solve()
    ls = ComponentwiseLSSVM(X, y, kernel=cw, gamma=g)
    sl = ls.solve()
    np.testing.assert_allclose(g * se["alpha"], sl["alpha"], atol=1e-9 * np.abs(sl["alpha"]).max())
    np.testing.assert_allclose(eta.predict(se, Xt), ls.predict(sl, Xt), atol=1e-9)
    # eq. (36) components sum to the training fit
    np.testing.assert_allclose(eta.component_outputs(se["alpha"]).sum(1) + se.scalar("b") + se["e"], y,
                               atol=1e-9)


def test_printed_eq40_objective_is_not_the_validation_error():
    """Eq. (40) scores Ω^(v)α (the plain-kernel AReg dual with the same training fit, eq. 39);
    the η-model's validation prediction is eq. (35).  They coincide for η ∝ 1 and differ
    otherwise (well-conditioned instance, so the difference is not a rounding artefact)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, (10, 3))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1]
    Xv = rng.uniform(0, 10, (6, 3))
    yv = np.sin(Xv[:, 0]) + 0.3 * Xv[:, 1]
    cw = Componentwise(RBF(0.5))

    def both(eta):
        f = ComponentwiseEta(X, y, kernel=cw, eta=eta)
        assert np.linalg.cond(f.Omega) < 1e3
        r = f.predict(f.solve(), Xv) - yv
        return printed_fusion_objective(f, Xv, yv), float(r @ r)

    printed, true = both(np.full(3, 2.0))
    assert printed == pytest.approx(true, rel=1e-9)
    printed, true = both(np.array([2.0, 0.0, 0.0]))
    assert abs(printed - true) > 0.1 * true


def test_eta_fusion_objective_never_increases_and_improves(split):
    X, y, Xv, yv, _ = split
    res = eta_fusion(X, y, Xv, yv, kernel=Componentwise(RBF(1.0)), eta0=50.0)
    obj = res.objectives
    assert len(obj) >= 2
    assert np.all(np.diff(obj) <= 0)
    assert obj[-1] < obj[0]
    assert np.all(res.eta >= 0)
    assert res.converged and res.reason
    # the reported objective is the validation SSE of the η-model at the final η (eq. 38)
    f = ComponentwiseEta(X, y, kernel=Componentwise(RBF(1.0)), eta=res.eta)
    r = f.predict(f.solve(), Xv) - yv
    assert obj[-1] == pytest.approx(float(r @ r), rel=1e-9)


def test_bad_inputs(split):
    X, y, Xv, yv, _ = split
    with pytest.raises(HyperparameterError, match="eta"):
        ComponentwiseEta(X, y, eta=-np.ones(10)).solve()
    with pytest.raises(HyperparameterError, match="eta"):
        ComponentwiseEta(X, y, eta=np.ones(3)).solve()
    with pytest.raises(InputError, match="features"):
        eta_fusion(X, y, Xv[:, :4], yv)
    with pytest.raises(InputError):
        eta_fusion(X, y, Xv, yv[:3])
    with pytest.raises(HyperparameterError):
        eta_fusion(X, y, Xv, yv, max_iter=0)
