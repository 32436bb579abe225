"""The primal engine with named penalties (issue 30, step 1): ``PenalizedLS(Φ, Y,
penalties={...})`` — any number of named quadratic penalties, each with the normaliser
``ρ_k = tr C / (W tr P_k)``, a path of any one weight from one decomposition (ν's form for a
penalty declared positive definite, μ's form otherwise), exact LOO — checked against dense
solves and brute-force refits written here, and the Auto note's μ / ν kept bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, InputError, NotPSDError
from lssvm_cvx.linalg.penalized import PenalizedLS

DEVICE_NS = ["array_api_strict", "torch-cpu", "torch-cuda"]


@pytest.fixture
def problem():
    rng = np.random.default_rng(3)
    n, m = 40, 6
    Phi = rng.normal(size=(n, m))
    y = Phi @ rng.normal(size=m) + 0.3 * rng.normal(size=n) + 1.5
    D = np.diff(np.eye(m), axis=0)            # a roughness penalty: PSD, singular
    return Phi, y, {"ridge": None, "rough": D.T @ D}, rng.uniform(0.5, 2.0, n)


def _penalty(P: np.ndarray | None, m: int) -> np.ndarray:
    return np.eye(m) if P is None else P


def _dense(Phi, y, pens, weights, s=None):
    """(N1) solved from its definition: min (1/W) Σ s_i r_i² + Σ w_k ρ_k θ'P_kθ over (θ, b),
    ρ_k = tr C / (W tr P_k), C the weighted covariance of the design."""
    n, m = Phi.shape
    s = np.ones(n) if s is None else s
    W = s.sum()
    Pc = Phi - (s @ Phi) / W
    trC = np.sum(s[:, None] * Pc**2) / W
    pen = sum(w * trC / (W * np.trace(_penalty(pens[k], m))) * _penalty(pens[k], m)
              for k, w in weights.items())
    Z = np.hstack([np.ones((n, 1)), Phi])
    M = Z.T @ (s[:, None] * Z) / W
    M[1:, 1:] += pen
    return Z, M, pen, W


def _brute_loo(Phi, y, pens, weights, s=None):
    """N refits, observation i out of the fit term, the penalties (and their ρ) kept."""
    n = Phi.shape[0]
    s = np.ones(n) if s is None else s
    Z, _, pen, W = _dense(Phi, y, pens, weights, s)
    out = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        M = Z[keep].T @ (s[keep, None] * Z[keep])
        M[1:, 1:] += W * pen
        beta = np.linalg.solve(M, Z[keep].T @ (s[keep] * y[keep]))
        out[i] = y[i] - Z[i] @ beta
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_named_penalties_fit_and_loo_equal_the_definition(problem, weighted):
    Phi, y, pens, s = problem
    s = s if weighted else None
    weights = {"ridge": 0.3, "rough": 2.0}
    pr = PenalizedLS(Phi, y, penalties=pens, sample_weight=s)
    fit = pr.fit(**weights)
    Z, M, _, W = _dense(Phi, y, pens, weights, s)
    sw = np.ones(len(y)) if s is None else s
    beta = np.linalg.solve(M, Z.T @ (sw * y) / W)
    np.testing.assert_allclose(fit.theta[:, 0], beta[1:], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fit.b[0], beta[0], rtol=1e-9)
    np.testing.assert_allclose(pr.loo_residuals(**weights), _brute_loo(Phi, y, pens, weights, s),
                               rtol=1e-8, atol=1e-10)
    assert fit.weights == weights and pr.names == ["ridge", "rough"]
    # positional weights follow the order of the penalties
    np.testing.assert_array_equal(pr.fit(0.3, 2.0).theta, fit.theta)


@pytest.mark.parametrize("name", ["ridge", "rough"])
def test_a_path_of_any_named_weight_equals_fits_at_each_value(problem, name):
    """The identity is definite (ν's form: ``eig(C + others, I)``); the roughness penalty is
    singular (μ's form: ``eig(ρP, C + others)``); either path's LOO MSE equals a fit's."""
    Phi, y, pens, _ = problem
    pr = PenalizedLS(Phi, y, penalties=pens)
    fixed = {"ridge": 0.2, "rough": 0.7}
    fixed.pop(name)
    values = [0.01, 0.3, 5.0, 100.0]
    res = pr.path(name, values, fixed)
    assert res.name == name and res.fixed == fixed
    direct = [np.mean(pr.loo_residuals(**fixed, **{name: v}) ** 2) for v in values]
    np.testing.assert_allclose(res.scores, direct, rtol=1e-9)


def test_the_auto_notes_mu_and_nu_are_two_named_penalties_bit_for_bit(problem):
    """``PenalizedLS(Φ, y, G, R)`` is ``penalties={"mu": G, "nu": R}, definite=["nu"]``: the μ
    and ν paths, the fit and the normalisers are the same numbers."""
    Phi, y, pens, _ = problem
    G, R = pens["rough"] + 0.1 * np.eye(6), np.diag(np.linspace(1, 2, 6))
    auto = PenalizedLS(Phi, y, G, R)
    named = PenalizedLS(Phi, y, penalties={"mu": G, "nu": R}, definite=["nu"])
    assert auto.rho == named.rho
    np.testing.assert_array_equal(auto.mu_path([0.1, 1.0, 10.0], 0.5).scores,
                                  named.path("mu", [0.1, 1.0, 10.0], {"nu": 0.5}).scores)
    np.testing.assert_array_equal(auto.nu_path([0.1, 1.0, 10.0], 0.5).scores,
                                  named.path("nu", [0.1, 1.0, 10.0], {"mu": 0.5}).scores)
    np.testing.assert_array_equal(auto.fit(0.5, 0.2).loo, named.fit(mu=0.5, nu=0.2).loo)
    assert auto.fit(0.5, 0.2).mu == 0.5


@pytest.mark.parametrize("ns", DEVICE_NS)
def test_named_penalties_on_other_namespaces_equal_numpy(problem, ns, to_namespace, to_numpy):
    conv = to_namespace(ns)
    Phi, y, pens, _ = problem
    cpu = PenalizedLS(Phi, y, penalties=pens)
    dev = PenalizedLS(conv(Phi), conv(y), penalties={k: None if P is None else conv(P)
                                                      for k, P in pens.items()})
    np.testing.assert_allclose(to_numpy(dev.loo_residuals(ridge=0.3, rough=2.0)),
                               cpu.loo_residuals(ridge=0.3, rough=2.0), rtol=1e-9, atol=1e-12)
    for name, fixed in (("rough", {"ridge": 0.3}), ("ridge", {"rough": 2.0})):
        np.testing.assert_allclose(dev.path(name, [0.1, 3.0], fixed).scores,
                                   cpu.path(name, [0.1, 3.0], fixed).scores, rtol=1e-9)


def test_bad_penalties_and_weights_are_refused_by_name(problem):
    Phi, y, pens, _ = problem
    with pytest.raises(InputError, match="not both"):
        PenalizedLS(Phi, y, np.eye(6), penalties=pens)
    with pytest.raises(InputError, match="not penalties"):
        PenalizedLS(Phi, y, penalties=pens, definite=["rough", "typo"])
    with pytest.raises(InputError, match="P_rough must be 6 × 6"):
        PenalizedLS(Phi, y, penalties={"rough": np.eye(5)})
    with pytest.raises(InputError, match="G \\(the Auto"):
        PenalizedLS(Phi, y)
    with pytest.raises(NotPSDError, match="P_zero \\(zero\\) has non-positive trace"):
        PenalizedLS(Phi, y, penalties={"zero": np.zeros((6, 6))})
    pr = PenalizedLS(Phi, y, penalties=pens)
    with pytest.raises(HyperparameterError, match="^penalty must be one of .*, got 'lam'"):
        pr.fit(lam=1.0)
    with pytest.raises(HyperparameterError, match="^penalty must be one of .*, got 'lam'"):
        pr.path("lam", [1.0])
    with pytest.raises(HyperparameterError, match="need ridge > 0 and rough >= 0"):
        pr.fit(ridge=0.0, rough=1.0)
    with pytest.raises(HyperparameterError, match="3 weights for the 2 penalties"):
        pr.fit(1.0, 2.0, 3.0)


def test_the_guide_example_runs_and_its_path_equals_fits():
    """The guide's primal engine example (docs/guide.rst, "The closed-form engine") runs, and
    the roughness weight its path picks is the one fits at each weight pick."""
    import re
    import textwrap
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "guide.rst").read_text(encoding="utf-8")
    block = re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)",
                      text[text.index("PenalizedLS(Φ, y, penalties={...})"):]).group(1)
    ns: dict = {}
    exec(compile(textwrap.dedent(block), "guide-primal", "exec"), ns)
    pr, grid = ns["pr"], np.logspace(-3, 3, 13)
    scores = [np.mean(pr.loo_residuals(ridge=0.01, rough=w) ** 2) for w in grid]
    assert ns["best_rough"] == grid[int(np.argmin(scores))]
    np.testing.assert_allclose(ns["best_mse"], min(scores), rtol=1e-9)


def test_lists_are_float64_and_one_normaliser_serves_every_engine(problem):
    """The named penalties become NumPy float64 in the one place every constructor goes
    through (lists included, for the in-memory and the streamed engines), and the Auto note's
    :func:`normalizers` is the engines' ``ρ_k = tr C / (W tr P_k)``."""
    from lssvm_cvx.linalg.penalties import normalizers
    from lssvm_cvx.linalg.streaming import ArraySource, StreamingPenalizedLS

    Phi, y, pens, s = problem
    rough = pens["rough"]
    a = PenalizedLS(Phi, y, penalties={"ridge": None, "rough": rough.tolist()}, definite=["ridge"])
    b = PenalizedLS(Phi, y, penalties=pens, definite=["ridge"])
    assert a.P["rough"].dtype == np.float64
    np.testing.assert_array_equal(a.fit(ridge=0.1, rough=0.2).theta, b.fit(ridge=0.1, rough=0.2).theta)
    stream = StreamingPenalizedLS(ArraySource(Phi, y[:, None], block_rows=7), lambda x: x, None,
                                  None, np.arange(len(y)), Phi.mean(axis=0),
                                  penalties={"ridge": None, "rough": rough.tolist()},
                                  definite=["ridge"])
    np.testing.assert_allclose(stream.fit(ridge=0.1, rough=0.2).theta.ravel(),
                               b.fit(ridge=0.1, rough=0.2).theta.ravel(), rtol=1e-10)
    G = rough + np.eye(Phi.shape[1])
    auto = PenalizedLS(Phi, y, G, None, s)
    assert normalizers(Phi, G, None, s) == (auto.rho["mu"], auto.rho["nu"])
    with pytest.raises(NotPSDError, match="G \\(mu\\) has non-positive trace"):
        normalizers(Phi, -np.eye(Phi.shape[1]))
