"""The engine's primal representation (issue 30, item 1): ``decompose(Φ, s, terms,
design=True)`` (:class:`~lssvm_cvx.linalg.engine.DesignDecomposition`) solves problem (Q')
``½ Σ s_i (y_i - φ_i'θ - b)² + ½ Σ w_k θ'P_kθ`` as a dense solve of its normal equations
does, its held-out residuals are refits with the set removed from the loss, its GCV is the
dense hat matrix's, and for a feature map (``ΦΦ' = K``) it is the dual engine's (Q) with the
RKHS term: the same fits, LOO, k-fold and GCV from two different factorisations."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, NotSupportedError
from lssvm_cvx.linalg.engine import RKHS, decompose


def _data(n: int = 31, m: int = 6, T: int = 1, seed: int = 7):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(n, m))
    Y = Phi @ rng.normal(size=(m, T)) + 0.3 * rng.normal(size=(n, T)) - 1.0
    D = np.diff(np.eye(m), axis=0)
    return Phi, (Y[:, 0] if T == 1 else Y), D.T @ D, rng.uniform(0.5, 2.0, n)


def _normal_equations(Phi, s, pen):
    """``X = [1, Φ]``, ``M = X'SX + diag(0, Σ w_k P_k)`` of (Q') from its definition."""
    n = Phi.shape[0]
    s = np.broadcast_to(np.asarray(s, dtype=float), (n,))
    X = np.hstack([np.ones((n, 1)), Phi])
    M = X.T @ (s[:, None] * X)
    M[1:, 1:] += pen
    return X, M, s


@pytest.mark.parametrize("s_kind", ["one", "scalar", "vector"])
@pytest.mark.parametrize("T", [1, 3])
def test_solve_loo_kfold_gcv_are_the_definitions(s_kind, T):
    Phi, Y, R, sv = _data(T=T)
    s = {"one": 1.0, "scalar": 2.5, "vector": sv}[s_kind]
    terms = {"ridge": (RKHS, 0.7), "rough": (lambda: R, 2.0)}
    dec = decompose(Phi, s, terms, design=True)
    X, M, sw = _normal_equations(Phi, s, 0.7 * np.eye(6) + 2.0 * R)
    Y2 = Y.reshape(31, -1)
    beta = np.linalg.solve(M, X.T @ (sw[:, None] * Y2))
    theta, b = dec.solve(Y)
    np.testing.assert_allclose(np.reshape(theta, (6, -1)), beta[1:], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.reshape(b, -1), beta[0], rtol=1e-10, atol=1e-12)
    assert isinstance(b, float) == (T == 1)
    folds = [np.arange(0, 31, 3), np.array([1, 2, 4, 5]), np.array([29, 10])]
    want = np.full(Y2.shape, np.nan)
    for V in folds:       # the set leaves the loss: refit from the definition
        bV = np.linalg.solve(M - X[V].T @ (sw[V, None] * X[V]),
                             X.T @ (sw[:, None] * Y2) - X[V].T @ (sw[V, None] * Y2[V]))
        want[V] = Y2[V] - X[V] @ bV
    got = dec.kfold(Y, folds)
    assert np.shape(got) == np.shape(Y)
    np.testing.assert_allclose(np.reshape(got, (31, -1)), want, rtol=1e-9, atol=1e-11,
                               equal_nan=True)
    loo = np.empty_like(Y2)
    for i in range(31):
        bi = np.linalg.solve(M - sw[i] * np.outer(X[i], X[i]),
                             X.T @ (sw[:, None] * Y2) - sw[i] * np.outer(X[i], Y2[i]))
        loo[i] = Y2[i] - X[i] @ bi
    np.testing.assert_allclose(np.reshape(dec.loo(Y), (31, -1)), loo, rtol=1e-9, atol=1e-11)
    H = X @ np.linalg.solve(M, X.T * sw[None, :])
    gcv = 31 * np.mean(np.sum(((np.eye(31) - H) @ Y2) ** 2, axis=0)) / (31 - np.trace(H)) ** 2
    assert dec.gcv(Y) == pytest.approx(gcv, rel=1e-10)


@pytest.mark.parametrize("s_kind", ["scalar", "vector"])
def test_a_feature_map_gives_the_dual_engines_answers(s_kind):
    """``Φ Φ' = K``: the primal (order m) and the dual (order N + 1) of the same (Q)."""
    Phi, y, _, sv = _data(n=25, m=8)
    s = 1.7 if s_kind == "scalar" else sv
    K = Phi @ Phi.T
    primal = decompose(Phi, s, {"rkhs": (RKHS, 0.4)}, design=True)
    dual = decompose(K, s, {"rkhs": (RKHS, 0.4)})
    theta, b = primal.solve(y)
    alpha, b_dual = dual.solve(y)
    assert b == pytest.approx(b_dual, rel=1e-9)
    np.testing.assert_allclose(Phi @ theta, K @ alpha, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(primal.loo(y), dual.loo(y), rtol=1e-9, atol=1e-10)
    folds = [np.arange(k, 25, 4) for k in range(4)]
    np.testing.assert_allclose(primal.kfold(y, folds), dual.kfold(y, folds), rtol=1e-9,
                               atol=1e-10)
    assert primal.gcv(y) == pytest.approx(dual.gcv(y), rel=1e-9)
    values = [0.05, 0.4, 3.0]
    np.testing.assert_allclose(primal.gcv_path("rkhs", values, y),
                               dual.gcv_path("rkhs", values, y), rtol=1e-9)
    for r_p, r_d in zip(primal.path("rkhs", values, y)[2], dual.path("rkhs", values, y)[2]):
        np.testing.assert_allclose(r_p, r_d, rtol=1e-9, atol=1e-10)


def test_path_and_systems_are_one_system_per_value():
    Phi, Y, R, sv = _data(T=2)
    dec = decompose(Phi, sv, {"ridge": (None, 0.1), "rough": (R, 1.0)}, design=True)
    values = [0.0, 0.3, 5.0]
    thetas, bs, res = dec.path("rough", values, Y)
    kth, _, kres = dec.path("rough", values, Y, folds=[np.arange(0, 31, 2)])
    for v, th, b, r, kr, sysm in zip(values, thetas, bs, res, kres,
                                     dec.systems("rough", values)):
        one = dec.system({"rough": v})
        np.testing.assert_array_equal(th, one.solve(Y)[0])
        np.testing.assert_array_equal(b, one.solve(Y)[1])
        np.testing.assert_array_equal(r, one.loo(Y))
        np.testing.assert_array_equal(kr, one.kfold(Y, [np.arange(0, 31, 2)]))
        np.testing.assert_array_equal(sysm.loo(Y), r)
        assert np.isnan(kr[1]).all()
    assert dec.representation() == "primal"
    assert dec.system().diagnostics(Y)["rcond"] > 0


def test_a_path_binds_the_targets_once_per_value(monkeypatch):
    """The design is decomposed once; a path binds the targets (one O(N m) pass) once per value,
    not once per question, and the GCV path's fallback (a singular ``C``) once in all."""
    from lssvm_cvx.linalg.penalized import PenalizedLS

    calls = []
    bind = PenalizedLS.bind
    monkeypatch.setattr(PenalizedLS, "bind", lambda self, Y: calls.append(1) or bind(self, Y))
    Phi, Y, R, sv = _data(m=40, T=2)
    # no ridge and m > N: C is singular, so the GCV path's pencil is not definite (it falls
    # back to one factor per value), while C + w (R + I) is positive definite for w > 0
    dec = decompose(Phi, sv, {"ridge": (None, 0.0), "rough": (R + np.eye(40), 1.0)},
                    design=True)
    values = [0.3, 1.0, 5.0]
    pencil = dec.problem.bind(Y).path("rough", values, {"ridge": 0.0}, criterion="gcv").scores
    assert not np.any(np.isfinite(pencil))
    calls.clear()
    dec.path("rough", values, Y)
    dec.path("rough", values, Y, folds=[np.arange(0, 31, 2)])
    assert len(calls) == 2 * len(values)
    calls.clear()
    scores = dec.gcv_path("rough", values, Y)
    assert len(calls) == 1
    np.testing.assert_allclose(scores, [dec.system({"rough": v}).gcv(Y) for v in values],
                               rtol=1e-8)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
def test_another_namespace_gives_the_numpy_answers(ns, to_namespace, to_numpy):
    conv = to_namespace(ns)
    Phi, Y, R, sv = _data(T=2)
    terms = {"ridge": (None, 0.3), "rough": (R, 1.0)}
    ref = decompose(Phi, sv, terms, design=True)
    dev = decompose(conv(Phi), conv(sv), {"ridge": (None, 0.3), "rough": (conv(R), 1.0)},
                    design=True)
    theta, b = dev.solve(conv(Y))
    assert type(theta) is type(conv(Phi))
    np.testing.assert_allclose(to_numpy(theta), ref.solve(Y)[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(b), ref.solve(Y)[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(dev.loo(conv(Y))), ref.loo(Y), rtol=1e-9, atol=1e-11)
    folds = [np.arange(k, 31, 3) for k in range(3)]
    np.testing.assert_allclose(to_numpy(dev.kfold(conv(Y), folds)), ref.kfold(Y, folds),
                               rtol=1e-9, atol=1e-11)
    assert dev.gcv(conv(Y)) == pytest.approx(ref.gcv(Y), rel=1e-10)


def test_bad_input_is_refused_by_name():
    Phi, y, R, _ = _data()
    dec = decompose(Phi, 1.0, {"ridge": (None, 0.1)}, design=True)
    with pytest.raises(HyperparameterError, match="^term must be one of"):
        dec.solve(y, {"rough": 1.0})
    with pytest.raises(HyperparameterError, match=">= 0"):
        dec.solve(y, {"ridge": -1.0})
    with pytest.raises(NotSupportedError, match="top right-hand side"):
        dec.system().solve(y, top=1.0)
    with pytest.raises(HyperparameterError, match="positive"):
        decompose(Phi, 0.0, {"ridge": (None, 0.1)}, design=True)
    with pytest.raises(HyperparameterError, match="takes no"):
        decompose(Phi, 1.0, {"ridge": (None, 0.1)}, design=True, bias=False)


@pytest.mark.parametrize("m", [6, 40])
def test_the_gcv_path_is_gcv_at_every_value(m):
    """One generalised eigendecomposition for the whole path (m = 40 > N: ``C`` singular,
    where a pencil may not be definite and the path falls back to one factor per value)."""
    Phi, Y, R, sv = _data(m=m, T=2)
    dec = decompose(Phi, sv, {"ridge": (None, 0.1), "rough": (R, 1.0)}, design=True)
    for name, values in (("rough", [0.0, 0.3, 5.0]), ("ridge", [0.01, 0.1, 2.0])):
        np.testing.assert_allclose(dec.gcv_path(name, values, Y),
                                   [dec.system({name: v}).gcv(Y) for v in values], rtol=1e-8)
    with pytest.raises(HyperparameterError, match=">= 0"):
        dec.gcv_path("rough", [-1.0], Y)


@pytest.mark.parametrize("ridge", [None, "matrix"])
@pytest.mark.parametrize("criterion", ["mse", "mae"])
def test_the_loo_score_path_is_the_loo_at_every_value_when_c_is_singular(ridge, criterion,
                                                                          monkeypatch):
    """m = 40 > N = 31: ``C`` is singular, the ridge (the identity, or the same matrix given
    explicitly) is definite but not declared so: its path's pencil (μ's form) is singular and
    the LOO path is one factorisation per value, the LOO of that value's system.  (Until the
    ninth session, 2026-11-29, it was ``inf`` at every value: this test was a strict xfail.)
    Declared ``definite``, the same scores come from one eigendecomposition in ν's form, with
    no factorisation per value."""
    from lssvm_cvx.linalg.penalized import PenalizedLS

    Phi, Y, R, sv = _data(m=40)
    P = None if ridge is None else np.eye(40)
    values = [0.01, 0.1, 2.0]
    fits = []
    real_fit = PenalizedLS.fit
    monkeypatch.setattr(PenalizedLS, "fit", lambda self, *a, **k: fits.append(1) or real_fit(
        self, *a, **k))
    for definite, per_value in (((), len(values)), (("ridge",), 0)):
        dec = decompose(Phi, sv, {"ridge": (P, 0.1), "rough": (R, 0.0)}, design=True,
                        definite=definite)
        fits.clear()
        got = dec.score_path("ridge", values, Y, criterion=criterion)
        assert len(fits) == per_value
        r = [dec.system({"ridge": v}).loo(Y) for v in values]
        want = [float(np.mean(x ** 2) if criterion == "mse" else np.mean(np.abs(x))) for x in r]
        np.testing.assert_allclose(got, want, rtol=1e-8)


@pytest.mark.parametrize("source_kind", ["numpy", "dask"])
def test_a_streamed_path_over_a_singular_c_falls_back_too(source_kind):
    """A streamed design of 12 rows and 20 features (``C`` singular): the path of an undeclared
    definite matrix term is one factorisation per value on the source, and equals the
    in-memory design's LOO at every value (so does the declared term's one
    eigendecomposition)."""
    from lssvm_cvx.linalg.streaming import row_source

    rng = np.random.default_rng(1)
    X, Z = rng.uniform(-2, 2, (12, 2)), rng.uniform(-2, 2, (20, 2))
    y = np.sin(X[:, 0])

    def phi(xb):
        return np.exp(-((xb[:, None, :] - Z[None]) ** 2).sum(-1))

    if source_kind == "dask":
        da = pytest.importorskip("dask.array")
        source = row_source(da.from_array(X, chunks=(5, 2)),
                            da.from_array(y[:, None], chunks=(5, 1)), 20)
    else:
        source = row_source(X, y[:, None], 20)
    terms = {"d": (np.diag(np.linspace(1.0, 2.0, 20)), 0.1)}
    ws = [0.01, 0.1, 1.0]
    want = [np.mean(decompose(phi(X), 1.0, terms, design=True).loo(y, {"d": w}) ** 2)
            for w in ws]
    for definite in ((), ("d",)):
        dec = decompose(source, 1.0, terms, design=True, features=phi,
                        shift=phi(Z).mean(axis=0), definite=definite)
        np.testing.assert_allclose(dec.score_path("d", ws), want, rtol=1e-10)


def test_a_declared_definite_term_is_checked():
    """``definite`` names terms (else refused by name), and a declared term's weights must be
    positive (ν's form divides by them)."""
    Phi, Y, R, _ = _data(m=40)
    with pytest.raises(HyperparameterError, match=r"definite names \['rough'\] are not"):
        decompose(Phi, 1.0, {"ridge": (None, 0.1)}, design=True, definite=["rough"])
    dec = decompose(Phi, 1.0, {"ridge": (None, 0.1), "rough": (R, 0.0)}, design=True,
                    definite=["ridge"])
    with pytest.raises(HyperparameterError, match=r"need ridge > 0, got ridge=array\(\[0\., 1\.\]"):
        dec.score_path("ridge", [0.0, 1.0], Y)
    with pytest.raises(HyperparameterError, match="need ridge > 0"):   # the mechanism's own check
        dec.problem.path("ridge", [-1.0, 1.0])
    with pytest.raises(HyperparameterError, match="ridge > 0"):
        dec.solve(Y, {"ridge": 0.0})
    # the facade's system is checked when it is made, in the user's weights (not (N1)'s)
    with pytest.raises(HyperparameterError, match=r"need ridge > 0 and rough >= 0, got "
                                                  r"ridge=0\.0, rough=0\.0"):
        dec.system({"ridge": 0.0})
    with pytest.raises(HyperparameterError, match=r"term 'rough' must be a finite number >= 0, got "
                                                  r"-2\.0"):     # the weights' own check
        dec.system({"rough": -2.0})
    # an undeclared identity keeps weight 0 (C of an m < N design is definite)
    Phi6, y6, _, _ = _data()
    theta, _ = decompose(Phi6, 1.0, {"ridge": (None, 0.0)}, design=True).solve(y6)
    X = np.hstack([np.ones((Phi6.shape[0], 1)), Phi6])
    np.testing.assert_allclose(theta, np.linalg.lstsq(X, y6, rcond=None)[0][1:], rtol=1e-9)


def test_the_guide_example_runs_and_equals_the_definition():
    """The guide's primal example (docs/guide.rst, "The closed-form engine", after the dual
    one whose ``x`` and ``y`` it reuses) runs, and its fit and GCV path are the definition's."""
    import re
    import textwrap
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "guide.rst").read_text(encoding="utf-8")
    blocks = [textwrap.dedent(b) for b in re.findall(
        r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)",
        text[text.index("The closed-form engine\n"):text.index("Underneath is")])]
    ns: dict = {}
    for b in blocks[:2]:
        exec(compile(b, "guide-design", "exec"), ns)
    Phi, y = ns["Phi"], ns["y"]
    X, M, _ = _normal_equations(Phi, 1.0, 0.1 * np.eye(3))
    beta = np.linalg.solve(M, X.T @ y)
    np.testing.assert_allclose(np.r_[ns["b"], ns["theta"]], beta, rtol=1e-10, atol=1e-12)
    grid = np.logspace(-3, 1, 9)
    np.testing.assert_allclose(ns["gcvs"], [ns["dec"].gcv(y, {"ridge": w}) for w in grid],
                               rtol=1e-9)
    np.testing.assert_allclose(ns["loos"], [np.mean(ns["dec"].loo(y, {"ridge": w}) ** 2)
                                            for w in grid], rtol=1e-9)


@pytest.mark.parametrize("approximation", ["nystroem", "rff"])
def test_an_approximate_lssvm_is_the_primal_engine_on_its_features(approximation):
    """The approximate LS-SVM at γ solves (Q') on its features with ``s = 1`` and the ridge
    ``w = 1/γ`` (``PenalizedLS.normalised``): the same θ and b as the engine's dense primal
    solve, and the LOO-path's choice of γ is the γ of the smallest engine LOO."""
    from lssvm_cvx import LSSVMRegressor

    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, (60, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    for gamma in (0.5, 20.0):
        est = LSSVMRegressor(approximation=approximation, n_components=15, gamma=gamma,
                             random_state=0).fit(X, y)
        theta, b = decompose(est.feature_map_(X), 1.0, {"rkhs": (RKHS, 1.0 / gamma)},
                             design=True).solve(y)
        np.testing.assert_allclose(est.coef_, theta, rtol=1e-8, atol=1e-10)
        assert est.intercept_ == pytest.approx(b, rel=1e-8, abs=1e-10)
    gammas = np.logspace(-1, 3, 7)
    est = LSSVMRegressor(approximation=approximation, n_components=15, selection="loo",
                         gamma_grid=gammas, n_loo=60, random_state=0).fit(X, y)
    dec = decompose(est.feature_map_(X), 1.0, {"rkhs": (RKHS, 1.0)}, design=True)
    loo = [np.mean(dec.loo(y, {"rkhs": 1.0 / g}) ** 2) for g in gammas]
    assert est.gamma_ == pytest.approx(gammas[int(np.argmin(loo))])


@pytest.mark.parametrize("source_kind", ["memory", "dask"])
def test_a_streamed_design_answers_as_the_in_memory_one(source_kind):
    """``decompose(row source, 1, terms, design=True, features=φ, shift=...)`` streams the design
    (the approximate LS-SVMs' representation): its fit, LOO residuals (on its LOO rows) and
    score paths equal the in-memory design's at 1e-10, for the source's own targets
    (``Y=None``); a Dask source's LOO residuals stay lazy."""
    from lssvm_cvx.linalg.streaming import row_source

    rng = np.random.default_rng(11)
    X = rng.uniform(-2, 2, (90, 2))
    Y = np.c_[np.sin(X[:, 0]), X[:, 1] ** 2] + 0.1 * rng.normal(size=(90, 2))
    Z = X[:9]

    def phi(xb):
        return np.exp(-((xb[:, None, :] - Z[None]) ** 2).sum(-1))

    if source_kind == "dask":
        da = pytest.importorskip("dask.array")
        source = row_source(da.from_array(X, chunks=(25, 2)), da.from_array(Y, chunks=(25, 2)), 9)
    else:
        source = row_source(X, Y, 9)
    rows = np.arange(0, 90, 3)
    R = np.diag(np.linspace(1.0, 2.0, 9))
    terms = {"ridge": (RKHS, 0.2), "rough": (R, 0.5)}
    streamed = decompose(source, 1.0, terms, design=True, features=phi,
                         shift=phi(Z).mean(axis=0), loo_rows=rows)
    dense = decompose(phi(X), 1.0, terms, design=True)
    theta, b, loo = streamed.system().fit(None)
    assert type(loo).__module__.startswith("dask" if source_kind == "dask" else "numpy")
    t0, b0, r0 = dense.system().fit(Y)
    np.testing.assert_allclose(theta, t0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, b0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(loo), r0[rows], rtol=1e-10, atol=1e-12)
    ws = [0.01, 0.2, 3.0]
    want = [np.mean(dense.loo(Y, {"ridge": w})[rows] ** 2) for w in ws]
    np.testing.assert_allclose(streamed.score_path("ridge", ws), want, rtol=1e-10)
    np.testing.assert_allclose(streamed.score_path("rough", ws, criterion="mse"),
                               [np.mean(dense.loo(Y, {"rough": w})[rows] ** 2) for w in ws],
                               rtol=1e-10)
    with pytest.raises(NotSupportedError, match="Y=None"):
        streamed.solve(Y)
    with pytest.raises(NotSupportedError, match="Y=None"):
        dense.solve(None)
    with pytest.raises(NotSupportedError, match="scalar loss weight"):
        decompose(source, np.ones(90), terms, design=True, features=phi, shift=np.zeros(9))


def test_the_approximate_lssvms_fit_through_the_engine(monkeypatch):
    """The approximate LS-SVMs (CPU and the device paths) score their γ path and fit through
    the engine's streamed design (``DesignDecomposition.score_path`` and its system), not a
    representation of their own: fails on 70b32c7, where they called ``StreamingPenalizedLS``."""
    from lssvm_cvx import LSSVMRegressor
    from lssvm_cvx.device.rff import FourierFeatures, rff_loo_path
    from lssvm_cvx.kernels.features import RandomFourierMap
    from lssvm_cvx.linalg.engine import DesignDecomposition

    calls = []
    path = DesignDecomposition.score_path
    monkeypatch.setattr(DesignDecomposition, "score_path",
                        lambda self, *a, **k: calls.append(self.streamed) or path(self, *a, **k))
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, (80, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=80)
    for appr in ("nystroem", "rff"):
        LSSVMRegressor(approximation=appr, selection="loo", n_components=12,
                       random_state=0).fit(X, y)
    rff_loo_path(X, y, FourierFeatures.like(RandomFourierMap(1.0, 2, 12, 0), X),
                 gammas=[0.1, 1.0], block_rows=32)
    assert calls and all(calls)
    assert len(calls) > 2
