"""The closed-form engine (:func:`lssvm_cvx.linalg.engine.decompose`, issue 30 item 1): for
named terms a user composes, the solution equals an independent dense solve of the optimality
conditions, the held-out residuals equal brute-force refits (the observation or set leaves the
loss; the basis and the terms keep it), a path equals solves at each weight, and the engine
picks the representation by the terms' structure."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.linalg.engine import RKHS, decompose


def _problem(n: int = 25, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 2, n))
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(2 * x) + 0.1 * rng.standard_normal(n)
    D = np.diff(np.eye(n), 2, axis=0)               # second differences: a roughness term
    s = rng.uniform(0.5, 2.0, n)
    return K, y, s, D.T @ D


def _dense(K, s, P, y):
    """``(α, b)`` of ½Σ s_i (y_i - (Kα)_i - b)² + ½α'Pα from its stationarity conditions
    (least squares: α may not be identifiable, the fitted values are)."""
    n = len(y)
    S = np.diag(s)
    one = np.ones(n)
    A = np.block([[K @ S @ K + P, (K @ S @ one)[:, None]],
                  [(one @ S @ K)[None, :], np.array([[one @ S @ one]])]])
    sol = np.linalg.lstsq(A, np.r_[K @ S @ y, one @ S @ y], rcond=None)[0]
    return sol[:n], sol[n]


def _refit_residuals(K, s, P, y, folds):
    """Brute force: each set leaves the loss (weight 0), the basis and the terms keep it."""
    r = np.full(len(y), np.nan)
    for V in folds:
        sv = s.copy()
        sv[V] = 0.0
        a, b = _dense(K, sv, P, y)
        r[V] = y[V] - (K[V] @ a + b)
    return r


TERMS = {
    "rkhs only": lambda K, R: {"rkhs": (RKHS, 0.3)},
    "rkhs + roughness": lambda K, R: {"rkhs": (RKHS, 0.3), "rough": (R, 0.05)},
    "roughness + ridge": lambda K, R: {"rough": (R, 0.05), "ridge": (np.eye(len(K)), 1e-2)},
}


@pytest.mark.parametrize("case", sorted(TERMS))
def test_solve_loo_kfold_equal_dense_solves_and_refits(case):
    K, y, s, R = _problem()
    terms = TERMS[case](K, R)
    dec = decompose(K, s, terms)
    assert dec.representation() == ("bordered" if case == "rkhs only" else "augmented")
    P = sum(w * (K if M is RKHS else M) for M, w in terms.values())
    a, b = dec.solve(y)
    a0, b0 = _dense(K, s, P, y)
    np.testing.assert_allclose(K @ a + b, K @ a0 + b0, atol=1e-8)
    n = len(y)
    np.testing.assert_allclose(dec.loo(y), _refit_residuals(K, s, P, y, [[i] for i in range(n)]),
                               atol=1e-7)
    folds = np.array_split(np.random.default_rng(1).permutation(n), 5)
    np.testing.assert_allclose(dec.kfold(y, folds), _refit_residuals(K, s, P, y, folds), atol=1e-7)


@pytest.mark.parametrize("case", sorted(TERMS))
def test_a_path_equals_solves_at_each_weight(case):
    K, y, s, R = _problem(seed=2)
    dec = decompose(K, s, TERMS[case](K, R))
    name = dec.names[0]
    ws = [1e-3, 0.1, 10.0]
    alphas, bs, loos = dec.path(name, ws, y)
    for w, a, b, r in zip(ws, alphas, bs, loos):
        a1, b1 = dec.solve(y, {name: w})
        np.testing.assert_allclose(K @ a + b, K @ a1 + b1, atol=1e-8)
        np.testing.assert_allclose(r, dec.loo(y, {name: w}), atol=1e-7)


def test_a_term_matrix_is_formed_once_and_only_when_weighted():
    K, y, s, R = _problem()
    calls = []

    def rough():
        calls.append(1)
        return R

    dec = decompose(K, s, {"rkhs": (RKHS, 0.3), "rough": (rough, 0.0)})
    dec.solve(y)
    assert calls == [] and dec.representation() == "bordered"   # the weight-0 term is not formed
    dec.solve(y, {"rough": 0.1})
    dec.loo(y, {"rough": 0.2})
    assert calls == [1]


def test_bad_names_and_borders_are_refused():
    K, y, s, R = _problem()
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3)})
    with pytest.raises(HyperparameterError, match="unknown term 'ridge'"):
        dec.solve(y, {"ridge": 1.0})
    with pytest.raises(HyperparameterError, match="unknown term"):
        dec.path("ridge", [1.0], y)
    with pytest.raises(HyperparameterError, match="RKHS norm"):
        decompose(K, s, {"rough": (R, 1.0)}, border=np.sign(y))


def test_a_zero_loss_weight_takes_the_augmented_representation():
    """A point of loss weight 0 stays in the basis and the terms (semi-supervised): the
    bordered system (which divides by s) cannot take it, the augmented one does."""
    K, y, s, R = _problem()
    s[3] = 0.0
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3)})
    assert dec.representation() == "augmented"
    a, b = dec.solve(y)
    a0, b0 = _dense(K, s, 0.3 * K, y)
    np.testing.assert_allclose(K @ a + b, K @ a0 + b0, atol=1e-8)


def test_the_guide_section_runs_and_its_path_equals_solves():
    """The guide's engine example (docs/guide.rst, "The closed-form engine") runs, and the
    weight it picks from the path is the one per-weight solves pick."""
    import re
    import textwrap
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "guide.rst").read_text(encoding="utf-8")
    section = re.search(r"\nThe closed-form engine\n-+\n(.*?)\n[^\n]+\n-{4,}\n", text, re.S).group(1)
    code = textwrap.dedent(re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)",
                                     section).group(1))
    ns: dict = {}
    exec(compile(code, "guide-engine", "exec"), ns)
    dec, y, grid = ns["dec"], ns["y"], np.logspace(-3, 1, 9)
    assert dec.representation() == "bordered" and dec.representation({"rough": 0.05}) == "augmented"
    scores = [np.mean(dec.loo(y, {"rough": w}) ** 2) for w in grid]
    assert ns["best"] == grid[int(np.argmin(scores))]


# ---------------------------------------------------------------- any array namespace (step 5)
@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
@pytest.mark.parametrize("case", sorted(TERMS))
def test_the_engine_on_another_namespace_equals_numpy(ns, case, to_namespace, to_numpy):
    """The same decomposition on PyTorch or ``array-api-strict`` arrays (issue 30, step 5: the
    bordered system, its spectral path and the augmented system factorise in the inputs'
    namespace, where the device module had its own twins): the representation, the solution,
    the LOO and k-fold residuals and a path of the first weight equal NumPy's to 1e-9 and stay
    in the inputs' namespace."""
    conv = to_namespace(ns)
    K, y, s, R = _problem()
    terms = TERMS[case](K, R)
    dec = decompose(K, s, terms)
    ddec = decompose(conv(K), conv(s), {k: (P if P is RKHS else conv(P), w)
                                          for k, (P, w) in terms.items()})
    assert ddec.representation() == dec.representation()
    folds = [np.arange(i, len(y), 5) for i in range(5)]
    a, b = dec.solve(y)
    da, db = ddec.solve(conv(y))
    assert type(da) is type(conv(y))
    np.testing.assert_allclose(to_numpy(da), a, rtol=1e-9, atol=1e-9 * np.abs(a).max())
    assert abs(float(db) - b) < 1e-9 * max(1.0, abs(b))
    for got, want in ((ddec.loo(conv(y)), dec.loo(y)),
                      (ddec.kfold(conv(y), folds, cover=True), dec.kfold(y, folds))):
        assert type(got) is type(conv(y))
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-9, atol=1e-12)
    key = next(iter(terms))
    ws = [0.01, 0.3, 3.0]
    _, _, want = dec.path(key, ws, y)
    _, _, got = ddec.path(key, ws, conv(y))
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu"])
def test_the_array_cholesky_blocks_equal_a_dense_inverse(ns, to_namespace, to_numpy):
    """``ArrayCholesky.inv_diag`` / ``inv_block`` (the held-out denominators off NumPy) against
    ``np.linalg.inv``; ``rcond`` against the exact 1-norm condition number."""
    from lssvm_cvx.linalg.arrays import factor_spd, namespace_of

    conv = to_namespace(ns)
    K, _, _, _ = _problem()
    H = K + 0.1 * np.eye(len(K))
    Hinv = np.linalg.inv(H)
    chol = factor_spd(namespace_of(conv(H))[0], conv(H))
    np.testing.assert_allclose(to_numpy(chol.inv_diag()), np.diag(Hinv), rtol=1e-10)
    idx = np.array([3, 0, 17, 9])
    np.testing.assert_allclose(to_numpy(chol.inv_block(idx)), Hinv[np.ix_(idx, idx)],
                               rtol=1e-10, atol=1e-12)
    assert chol.rcond == pytest.approx(1.0 / (np.linalg.norm(H, 1) * np.linalg.norm(Hinv, 1)),
                                       rel=1e-8)


def test_a_known_representation_is_not_asked_again_and_a_wrong_one_is_refused(monkeypatch):
    """``system(representation=...)``: a caller that asked :meth:`representation` (one host
    synchronisation on a device) passes it on; the same system comes back, and a bordered
    representation where a weighted term is not the RKHS norm is refused (it would drop the
    term: a silent wrong answer)."""
    K, y, s, R = _problem()
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3), "rough": (R, 0.0)})
    want = dec.solve(y)
    asked = []
    monkeypatch.setattr(type(dec), "representation",
                        lambda self, w=None: asked.append(w) or "bordered")
    for rep in ("bordered", "augmented"):
        a, b = dec.system(representation=rep).solve(y)
        np.testing.assert_allclose(K @ a + b, K @ want[0] + want[1], atol=1e-9)
    assert asked == []
    with pytest.raises(HyperparameterError, match="representation 'bordered'"):
        dec.system({"rough": 0.05}, representation="bordered")
    with pytest.raises(HyperparameterError, match="representation 'lu'"):
        dec.system(representation="lu")
