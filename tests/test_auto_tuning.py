"""Closed-form leave-one-out of the Auto LS-SVM (normalised eq. 9) against brute-force refits,
for the dual, Nyström and random-Fourier bases; the μ and ν sweeps against per-value solves;
the random-feature gradient penalty against finite differences; the search bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

import lssvm_cvx.selection.auto as at
from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.linalg.refits import brute_force_loo
from lssvm_cvx.selection.auto import auto_search
from lssvm_cvx.terms.gradient_basis import choose_centres, exact_basis, nystroem_basis, rff_basis
from lssvm_cvx.terms.gradient_norm import exact_diagonal


def _data(rng, n=40, d=2):
    X = rng.normal(size=(n, d))
    y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("kind,margin", [("exact", "alpha"), ("exact", "rkhs"), ("nystroem", "alpha"),
                                         ("nystroem", "rkhs"), ("rff", "alpha")])
@pytest.mark.parametrize("mu,nu", [(0.0, 1.0), (3.0, 1e-2), (30.0, 1e3)])
def test_loo_matches_brute_force(kind, margin, mu, nu, rng):
    X, y = _data(rng)
    if kind == "exact":
        B = exact_basis(X, 1.5, p=2, c=2, margin=margin)
    elif kind == "nystroem":
        B = nystroem_basis(X, 1.5, p=2, c=2, centres=choose_centres(X, 15, 0), margin=margin)
    else:
        B = rff_basis(X, 1.5, p=2, n_components=25, random_state=0)
    fast = PenalizedLS(B.Phi, y, B.G, B.R).loo_residuals(mu, nu)
    slow = brute_force_loo(B.Phi, y, B.G, mu, nu, B.R)
    np.testing.assert_allclose(fast, slow, rtol=1e-7, atol=1e-9 * np.abs(slow).max())


def test_loo_several_targets_share_the_factorisation(rng):
    X, y = _data(rng, 30)
    Y = np.column_stack([y, np.sign(y), X[:, 1]])
    B = exact_basis(X, 1.0, p=2, c=2)
    fast = PenalizedLS(B.Phi, Y, B.G).loo_residuals(1.0, 1.0)
    np.testing.assert_allclose(fast, brute_force_loo(B.Phi, Y, B.G, 1.0, 1.0), rtol=1e-7, atol=1e-10)


@pytest.mark.filterwarnings("ignore::lssvm_cvx.exceptions.ConditioningWarning")
def test_paths_match_per_value_solves(rng):
    X, y = _data(rng, 50)
    B = exact_basis(X, 2.0, p=2, c=2)
    pr = PenalizedLS(B.Phi, y, B.G)
    mus = [0.0, 0.1, 1.0, 10.0, 1e3]
    path = pr.mu_path(mus, 0.5)
    direct = [np.mean(pr.loo_residuals(m, 0.5) ** 2) for m in mus]
    np.testing.assert_allclose(path.scores, direct, rtol=1e-6)
    nus = [1e-3, 1.0, 1e3]
    path = pr.nu_path(nus, 2.0, criterion="mae")
    direct = [np.mean(np.abs(pr.loo_residuals(2.0, v))) for v in nus]
    np.testing.assert_allclose(path.scores, direct, rtol=1e-6)
    # with the RKHS margin the ν path is a generalised eigendecomposition w.r.t. R = K + 1e-6 I
    Bk = exact_basis(X, 2.0, p=2, c=2, margin="rkhs")
    prk = PenalizedLS(Bk.Phi, y, Bk.G, Bk.R)
    path = prk.nu_path(nus, 2.0)
    np.testing.assert_allclose(path.scores, [np.mean(prk.loo_residuals(2.0, v) ** 2) for v in nus], rtol=1e-6)
    path = prk.mu_path(mus, 0.5)
    np.testing.assert_allclose(path.scores, [np.mean(prk.loo_residuals(m, 0.5) ** 2) for m in mus], rtol=1e-6)


def test_classification_criteria(rng):
    X, y = _data(rng, 40)
    t = np.where(y > 0, 1.0, -1.0)
    B = exact_basis(X, 1.0, p=2, c=2)
    pr = PenalizedLS(B.Phi, t, B.G)
    r = pr.loo_residuals(1.0, 1.0)
    f_loo = t - r
    h2 = pr.mu_path([1.0], 1.0, criterion="hinge2").scores[0]
    assert h2 == pytest.approx(np.mean(np.maximum(0, 1 - t * f_loo) ** 2), rel=1e-6)
    err = pr.mu_path([1.0], 1.0, criterion="error").scores[0]
    assert err == pytest.approx(np.mean(t * f_loo <= 0))
    with pytest.raises(HyperparameterError, match="criterion"):
        pr.mu_path([1.0], 1.0, criterion="auc")


def test_chunking_gives_the_same_numbers(rng, monkeypatch):
    X, y = _data(rng, 60)
    B = exact_basis(X, 1.0, p=2, c=2)
    full = PenalizedLS(B.Phi, y, B.G)
    ref = (full.mu_path([0.5, 5.0], 1.0).scores, full.loo_residuals(0.5, 1.0))
    import lssvm_cvx.linalg.penalized as pen

    monkeypatch.setattr(pen, "CHUNK_ELEMS", 7 * 60)  # 7-row chunks
    small = PenalizedLS(B.Phi, y, B.G)
    np.testing.assert_allclose(small.mu_path([0.5, 5.0], 1.0).scores, ref[0], rtol=1e-10)
    np.testing.assert_allclose(small.loo_residuals(0.5, 1.0), ref[1], rtol=1e-10, atol=1e-13)


def test_rff_penalty_is_data_averaged_gradient_norm(rng):
    X, _ = _data(rng, 25, 3)
    B = rff_basis(X, 2.0, p=3, n_components=40, random_state=1)
    theta = rng.normal(size=40)
    h = 1e-6
    grads = np.column_stack([(B.transform(X + h * e) - B.transform(X - h * e)) @ theta / (2 * h)
                             for e in np.eye(3)])
    assert theta @ B.G @ theta == pytest.approx(np.mean(np.sum(grads ** 2, axis=1)), rel=1e-6)


def test_nystroem_penalty_is_normalised_gradient_integral(rng):
    """f = Σ_j β_j k(·, z_j) in 1-D: β'Gβ = ∫||∇f||² / ∫||∇k||² (normalised form, c = p = 1)."""
    X = rng.uniform(-2, 2, (50, 1))
    Z = choose_centres(X, 6, 0)
    B = nystroem_basis(X, 3.0, p=1, c=1, centres=Z)
    beta = rng.normal(size=6)

    def grad2(t):
        k = np.exp(-3.0 * (t - Z[:, 0]) ** 2)
        return (-2 * 3.0 * np.sum(beta * k * (t - Z[:, 0]))) ** 2

    val, _ = integrate.quad(grad2, -np.inf, np.inf, epsabs=0, epsrel=1e-12, limit=400)
    assert beta @ B.G @ beta == pytest.approx(val / exact_diagonal(3.0, 1), rel=1e-8)


def test_search_bookkeeping(rng):
    X, y = _data(rng, 60)

    def make(g, rows):
        Xr, yr = (X, y) if rows is None else (X[rows], y[rows])
        B = exact_basis(Xr, g, p=2, c=2)
        return PenalizedLS(B.Phi, yr, B.G)

    res = auto_search(make, 60, gamma_grid=[0.3, 1.0, 3.0])
    widths = [h for h in res.history if h["stage"] == "width"]
    assert len(widths) == 5  # 3 grid widths + 2 refinements around the best
    assert res.n_decompositions <= len(widths) + 3
    # the reported score is the LOO MSE of the final fit at the selected point
    pr = make(res.gamma, None)
    assert res.score == pytest.approx(np.mean(pr.loo_residuals(res.mu, res.nu) ** 2), rel=1e-6)
    # the selected μ is the best of the μ path at the selected (γ, ν)
    path = pr.mu_path(at.DEFAULT_MU_GRID, res.nu)
    assert res.score == pytest.approx(path.scores.min(), rel=1e-9)
    # a subsample is used for the width stage above n_subsample rows
    res2 = auto_search(make, 60, gamma_grid=[0.3, 1.0, 3.0], n_subsample=30)
    assert {h["rows"] for h in res2.history if h["stage"] == "width"} == {30}
    # with μ fixed the width stage scores each width by its ν path
    no_grad = auto_search(make, 60, mu=0.0, gamma_grid=[0.3, 1.0, 3.0])
    assert no_grad.mu == 0.0 and all(np.isfinite(h["score"]) for h in no_grad.history)
    fixed = auto_search(make, 60, gamma=1.0, mu=2.0, nu=1.0)
    assert (fixed.gamma, fixed.mu, fixed.nu) == (1.0, 2.0, 1.0) and fixed.n_decompositions == 0
    with pytest.raises(HyperparameterError, match="grid"):
        auto_search(make, 60, gamma_grid=[-1.0])
    with pytest.raises(HyperparameterError, match="criterion"):
        auto_search(make, 60, criterion="r2")
