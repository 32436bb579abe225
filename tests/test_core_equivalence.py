"""The papers' formulations whose math fits the composition core give the same model through
it (issue 12 item 4).  Each reference is the paper formulation's own closed form."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.formulations.auto import AutoLSSVM
from lssvm_cvx.formulations.l2svm import L2SVMPrimal
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import SquaredHinge
from lssvm_cvx.terms import GradientNorm, Quadratic, Ridge, RKHSNorm


@pytest.mark.parametrize("lam", [0.05, 1.0])
def test_l2svm_primal_is_squared_hinge_plus_rkhs(lam):
    """Problem 1, ||ξ||² + (λ/2)||h̄||², is twice ½Σξ² + (λ/2)·½α'Kα."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(50) > 0, 1.0, -1.0)
    ref = L2SVMPrimal(X, y, kernel=RBF(1.0), lam=lam)
    sol = ref.closed_form()
    K = RBF(1.0)(X)
    f_ref = K @ (ref.labels * sol["alpha"]) + sol.scalar("b")
    core = RegularizedLSSVM(X, ref.labels, kernel=RBF(1.0), loss=SquaredHinge(),
                            terms={"rkhs": (RKHSNorm(), lam / 2)})
    got = core.solve("CLARABEL")
    np.testing.assert_allclose(got["f"], f_ref, atol=1e-6)
    assert abs(2 * got.objective - ref.objective(sol.values)) < 1e-6 * ref.objective(sol.values)


@pytest.mark.parametrize("mu, nu", [(0.5, 0.1), (0.0, 1.0)])
def test_auto_lssvm_objective_9_is_squared_plus_gradient_norm_plus_ridge(mu, nu):
    """Eq. (9), ||r||² + μα'Gα + να'α, is twice the squared loss with weights μ, ν; the
    normalised model kernel exp(-(γ/p)||x - z||²) is RBF(σ² = p/γ)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, (40, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(40)
    gamma = 2.0
    ref = AutoLSSVM(X, y, gamma=gamma, mu=mu, nu=nu, form="normalized", margin="alpha")
    sol = ref.closed_form()
    core = RegularizedLSSVM(X, y, kernel=RBF(X.shape[1] / gamma),
                            terms={"grad": (GradientNorm("normalized"), mu), "ridge": (Ridge(), nu)})
    got = core.solve()
    np.testing.assert_allclose(got["alpha"], sol["alpha"], atol=1e-8)
    np.testing.assert_allclose(core.context.K, ref.K, atol=1e-14)
    # the same G through the generic Quadratic term
    quad = RegularizedLSSVM(X, y, kernel=RBF(X.shape[1] / gamma),
                            terms={"grad": (Quadratic(ref.G), mu), "ridge": (Ridge(), nu)})
    np.testing.assert_allclose(quad.solve()["f"], got["f"], atol=1e-10)
