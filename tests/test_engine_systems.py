"""The engine's systems beyond ``solve``/``loo``/``kfold`` (issue 30, item 1, 2026-11-29): a
top right-hand side on the border row, the bordered inverse's blocks and a path of systems,
each against an independent dense reference.  They are what moved AReg CV and fusion, the
Tikhonov ensemble's nodes, the componentwise smoother and the LS-SVM γ sweep onto
:func:`~lssvm_cvx.linalg.engine.decompose`."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, InputError, NotSupportedError
from lssvm_cvx.linalg.engine import RKHS, decompose


def _problem(n: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 2, n))
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(2 * x) + 0.1 * rng.standard_normal(n)
    return K, y, rng.uniform(0.5, 2.0, n), np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)


def _bordered_matrix(K, s, c, a):
    """``[[0, a'], [a, K + c S⁻¹]]`` written out (the reference every test solves densely)."""
    return np.block([[np.zeros((1, 1)), a[None, :]], [a[:, None], K + np.diag(c / s)]])


CASES = {"unit weights, border 1": (False, False), "weights, border 1": (True, False),
         "unit weights, border y": (False, True), "weights, border y": (True, True)}


def _case(name):
    K, y, s, a = _problem()
    weighted, border = CASES[name]
    s = s if weighted else np.ones(len(y))
    return K, y, s, (a if border else None)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("spectral", [False, True])
def test_a_top_right_hand_side_equals_a_dense_solve(case, spectral):
    """``solve(r, top=t)`` solves ``[[0, a'], [a, K + cS⁻¹]] [b; α] = [t; r]`` (the fused AReg
    problems' duals) from one Cholesky and from a shared eigendecomposition, for one and for
    several right-hand sides; ``top=0`` is the LS-SVM's solve."""
    K, y, s, a = _case(case)
    border = np.ones(len(y)) if a is None else a
    c = 0.3
    sysm = next(decompose(K, s, {"rkhs": (RKHS, 1.0)}, border=a).systems(
        "rkhs", [c], spectral=spectral))
    M = _bordered_matrix(K, s, c, border)
    for t in (0.0, 0.7, -2.5):
        alpha, b = sysm.solve(y, top=t)
        want = np.linalg.solve(M, np.r_[t, y])
        np.testing.assert_allclose(np.r_[b, alpha], want, rtol=1e-9, atol=1e-10)
    R = np.column_stack([y, np.cos(y)])
    alpha, b = sysm.solve(R, top=0.4)
    want = np.linalg.solve(M, np.vstack([np.full((1, 2), 0.4), R]))
    np.testing.assert_allclose(np.vstack([b[None, :], alpha]), want, rtol=1e-9, atol=1e-10)


def test_a_top_right_hand_side_needs_the_border():
    K, y, s, _ = _problem()
    for spectral in (False, True):
        sysm = next(decompose(K, s, {"rkhs": (RKHS, 1.0)}, bias=False).systems(
            "rkhs", [0.3], spectral=spectral))
        with pytest.raises(InputError, match="border"):
            sysm.solve(y, top=1.0)
        sysm.solve(y, top=0.0)
    aug = decompose(K, s, {"ridge": (np.eye(len(y)), 0.1)}).system()
    with pytest.raises(NotSupportedError, match="bordered"):
        aug.solve(y, top=1.0)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_inverse_blocks_equal_a_dense_inverse(case):
    """``inverse()``: ``(C, g)`` are the α-block and the bias row of the dense inverse of the
    bordered matrix (so ``α = C r``, ``b = g'r``); without the bias ``C = (K + cS⁻¹)⁻¹`` and
    ``g = 0``.  The augmented representation has none and says so."""
    K, y, s, a = _case(case)
    border = np.ones(len(y)) if a is None else a
    C, g = decompose(K, s, {"rkhs": (RKHS, 0.3)}, border=a).system().inverse()
    Minv = np.linalg.inv(_bordered_matrix(K, s, 0.3, border))
    np.testing.assert_allclose(C, Minv[1:, 1:], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(g, Minv[0, 1:], rtol=1e-9, atol=1e-12)
    C0, g0 = decompose(K, s, {"rkhs": (RKHS, 0.3)}, bias=False).system().inverse()
    np.testing.assert_allclose(C0, np.linalg.inv(K + np.diag(0.3 / s)), rtol=1e-9, atol=1e-10)
    assert not np.any(g0)
    with pytest.raises(NotSupportedError, match="inverse"):
        decompose(K, s, {"ridge": (np.eye(len(y)), 0.1)}).system().inverse()


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("bias", [True, False])
def test_a_path_of_systems_from_one_eigendecomposition_equals_one_factorisation_each(case, bias):
    """``systems(name, values)``: the views of one eigendecomposition answer ``solve``,
    ``loo``, ``kfold`` and ``gcv`` as a Cholesky factorisation per value does (weighted or
    not, border ``1`` or ``y``, with or without the bias), and ``path`` keeps the border (its
    residuals equal the factorised system's at each value)."""
    K, y, s, a = _case(case)
    if a is not None and not bias:
        pytest.skip("a border needs the bias")
    dec = decompose(K, s, {"rkhs": (RKHS, 1.0)}, border=a, bias=bias)
    cs = [0.05, 0.3, 2.0]
    folds = [np.arange(i, len(y), 4) for i in range(4)]
    spectral = list(dec.systems("rkhs", cs, spectral=True))
    chol = list(dec.systems("rkhs", cs, spectral=False))
    _, bs, loos = dec.path("rkhs", cs, y)
    for sp, ch, b_path, loo_path in zip(spectral, chol, bs, loos):
        (a1, b1), (a2, b2) = sp.solve(y), ch.solve(y)
        np.testing.assert_allclose(a1, a2, rtol=1e-9, atol=1e-11)
        assert b1 == pytest.approx(b2, rel=1e-9, abs=1e-12)
        assert b_path == pytest.approx(b2, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(sp.loo(y), ch.loo(y), rtol=1e-9)
        np.testing.assert_allclose(loo_path, ch.loo(y), rtol=1e-9)
        np.testing.assert_allclose(sp.kfold(y, folds, cover=True), ch.kfold(y, folds),
                                   rtol=1e-9)
        assert sp.gcv(y) == pytest.approx(ch.gcv(y), rel=1e-10)


def test_a_spectral_path_of_another_term_is_refused():
    """One eigendecomposition serves the RKHS norm's weight only; the default falls back to a
    factorisation per value there, an explicit ``spectral=True`` is an error."""
    K, y, s, _ = _problem()
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3), "ridge": (np.eye(len(y)), 0.1)})
    assert len(list(dec.systems("ridge", np.logspace(-3, 1, 8)))) == 8
    with pytest.raises(HyperparameterError, match="eigendecomposition"):
        dec.systems("ridge", [0.1, 1.0], spectral=True)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
def test_gcv_on_another_namespace_equals_numpy(ns, to_namespace):
    """GCV of the bordered system (one Cholesky, or the views of one eigendecomposition) and of
    the augmented one, on PyTorch or ``array-api-strict`` arrays: NumPy's to 1e-10 (what the
    device estimators' ``selection="gcv"`` scores)."""
    conv = to_namespace(ns)
    K, y, s, _ = _problem()
    rough = np.diff(np.eye(len(y)), 2, axis=0)
    for terms in ({"rkhs": (RKHS, 0.3)}, {"rkhs": (RKHS, 0.3), "rough": (rough.T @ rough, 0.05)}):
        dec = decompose(K, s, terms)
        ddec = decompose(conv(K), conv(s), {k: (P if P is RKHS else conv(P), w)
                                              for k, (P, w) in terms.items()})
        assert ddec.gcv(conv(y)) == pytest.approx(dec.gcv(y), rel=1e-10)
        for spectral in ((False, True) if len(terms) == 1 else (False,)):
            got = [g.gcv(conv(y)) for g in ddec.systems("rkhs", [0.1, 1.0], spectral=spectral)]
            want = [g.gcv(y) for g in dec.systems("rkhs", [0.1, 1.0], spectral=spectral)]
            np.testing.assert_allclose(got, want, rtol=1e-10)
