"""Generalised cross-validation from the engine's one factorisation (issue 30, item 2): the
bordered and the augmented systems, the composed formulation and the paper formulations with a
system, against the hat matrix built column by column from a dense solve of the stationarity
conditions (independent of the engine), and the LS-SVM selection's GCV through it."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.formulations import FORMULATIONS, RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.linalg.engine import RKHS, decompose
from lssvm_cvx.model_selection import gamma_sweep
from lssvm_cvx.selection.lssvm import gcv as lssvm_gcv
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm


def _problem(n: int = 24, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 2, n))
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(2 * x) + 0.1 * rng.standard_normal(n)
    D = np.diff(np.eye(n), 2, axis=0)
    return K, y, rng.uniform(0.5, 2.0, n), D.T @ D


def _fitted(K, s, P, y, bias=True):
    """``ŷ`` of ½Σ s_i (y_i - (Kα)_i - b)² + ½α'Pα as the stacked least-squares problem
    ``min ||[S^½K, S^½1; L', 0] θ - [S^½y; 0]||`` with ``P = LL'`` (QR, no squared condition;
    α may not be identifiable, the fitted values are)."""
    n = len(y)
    lam, V = np.linalg.eigh((P + P.T) / 2)
    L = V * np.sqrt(np.clip(lam, 0.0, None))
    r = np.sqrt(s)
    B = np.c_[K, np.ones(n)] if bias else K
    A = np.r_[r[:, None] * B, np.c_[L.T, np.zeros((n, 1))] if bias else L.T]
    theta = np.linalg.lstsq(A, np.r_[r * y, np.zeros(n)], rcond=None)[0]
    return B @ theta


def _dense_gcv(K, s, P, y, bias=True):
    """GCV over the points in the loss (``s > 0``; since the fifteenth session — before, a point
    of weight 0 counted its residual and 1 in the trace): their targets to their fits."""
    on = s > 0
    H = np.column_stack([_fitted(K, s, P, e, bias) for e in np.eye(len(y))])[np.ix_(on, on)]
    r = y[on] - H @ y[on]
    return on.sum() * (r @ r) / np.trace(np.eye(on.sum()) - H) ** 2


def _exact_gcv(K, P, y, dps=30, labelled=None):
    """GCV of ½||y - Kα - b1||² + ½α'Pα from its stationarity conditions solved in ``dps``
    digits (mpmath): ``Pα + Kμ = 0``, ``1'μ = 0``, ``Kα + b1 - μ = y`` give ``ŷ = y + μ``,
    so the hat matrix is ``I + Z`` with ``Z`` the μμ block of the inverse — accurate where
    α is not identifiable in double precision and a least-squares reference is not.
    ``labelled`` (bool mask): only those points in the loss (the others' rows ``-μ_i = 0``),
    the GCV of their targets and fits."""
    import mpmath as mp

    n = len(y)
    on = np.ones(n, bool) if labelled is None else np.asarray(labelled)
    with mp.workdps(dps):
        A = mp.zeros(2 * n + 1)
        for i in range(n):
            for j in range(n):
                A[i, j] = (P[i, j] + P[j, i]) / 2
                A[n + 1 + i, j] = A[j, n + 1 + i] = K[i, j] * on[i]
            A[n + 1 + i, n] = A[n, n + 1 + i] = int(on[i])
            A[n + 1 + i, n + 1 + i] = -1
        Ainv = mp.inverse(A)
        Z = np.array([[float(Ainv[n + 1 + i, n + 1 + j]) for j in range(n)] for i in range(n)])
    Z = Z[np.ix_(on, on)]
    r = -Z @ y[on]
    return on.sum() * (r @ r) / np.trace(-Z) ** 2


CASES = {
    # (terms, zero a loss weight, bias): the bordered representation, weighted or not, with
    # and without the bias; the augmented one, with a point of loss weight 0
    "rkhs": ({"rkhs": (RKHS, 0.3)}, False, True),
    "rkhs, no bias": ({"rkhs": (RKHS, 0.3)}, False, False),
    "rkhs + roughness": ({"rkhs": (RKHS, 0.3), "rough": ("R", 0.05)}, False, True),
    "roughness + ridge, a zero weight": ({"rough": ("R", 0.05), "ridge": ("I", 1e-2)}, True,
                                         True),
}


def _case(case, unit):
    """``(K, y, loss weights, terms, bias)`` of a case of :data:`CASES`."""
    K, y, s, R = _problem()
    spec, zero, bias = CASES[case]
    if unit:
        s = np.ones_like(s)
    if zero:
        s[4] = 0.0
    mats = {"R": R, "I": np.eye(len(y))}
    return K, y, s, {k: (RKHS if P is RKHS else mats[P], w) for k, (P, w) in spec.items()}, bias


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("unit", [True, False])
def test_gcv_equals_the_dense_hat_matrix(case, unit):
    K, y, s, terms, bias = _case(case, unit)
    dec = decompose(K, s, terms, bias=bias)
    P = sum(w * (K if P is RKHS else P) for P, w in terms.values())
    assert dec.representation() == ("augmented" if "rough" in case else "bordered")
    np.testing.assert_allclose(dec.gcv(y), _dense_gcv(K, s, P, y, bias), rtol=1e-8)


def test_no_bias_needs_the_rkhs_norm_and_positive_loss_weights():
    K, y, s, R = _problem()
    with pytest.raises(HyperparameterError, match="no bias"):
        decompose(K, s, {"rough": (R, 1.0)}, bias=False)
    s[2] = 0.0
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3)}, bias=False)
    with pytest.raises(HyperparameterError, match="no bias"):
        dec.gcv(y)
    with pytest.raises(HyperparameterError, match="without the bias"):
        dec.path("rkhs", [0.1, 1.0], y)


def test_a_composed_formulation_has_the_gcv_of_its_closed_form():
    """What a user composes gets GCV for free: the formulation's ``gcv()`` is the dense hat
    matrix's for the Gram, loss weights and terms it builds."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, (30, 2))
    y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(30)
    graph = GraphLaplacian(n_neighbors=5)
    f = RegularizedLSSVM(X, y, kernel=RBF(1.0),
                         terms={"rkhs": (RKHSNorm(), 0.1), "graph": (graph, 0.05)})
    K = RBF(1.0)(X)
    P = 0.1 * K + 0.05 * graph.matrix(f.context)
    # the composed problem's terms are ½ w α'Pα against ½ Σ s_i r_i²: (Q) with s = 1
    np.testing.assert_allclose(f.gcv(), _dense_gcv(K, np.ones(30), P, y), rtol=1e-8)


@pytest.mark.parametrize("gamma", [0.5, 20.0])
def test_the_lssvm_formulation_and_the_selection_share_one_gcv(gamma):
    """The LS-SVM formulation's ``gcv()`` (through its system), the selection's ``gcv`` and the
    γ sweep (per-γ factorisation and eigendecomposition) agree with the dense hat matrix; the
    classifier's is the regression's on its ±1 targets (the border ``y`` permutes signs only)."""
    f = FORMULATIONS["lssvm"].random_instance(25, seed=3, gamma=gamma)
    Omega, y = f.omega(), f.targets()
    # (Q) with s = γ and P = K: ½γ Σ r_i² + ½ α'Kα, the LS-SVM of eq. (1) scaled by γ
    want = _dense_gcv(Omega, np.full(25, gamma), Omega, y)
    np.testing.assert_allclose(f.gcv(), want, rtol=1e-8)
    np.testing.assert_allclose(lssvm_gcv(Omega, y, gamma), want, rtol=1e-8)
    for method in ("cholesky", "eigh"):
        sweep = gamma_sweep(Omega, y, [gamma, 2 * gamma], criterion="gcv", method=method)
        np.testing.assert_allclose(sweep.scores[0], want, rtol=1e-8)
    c = FORMULATIONS["lssvm_classifier"].random_instance(25, seed=3, gamma=gamma)
    t = c.targets()
    reg = FORMULATIONS["lssvm"](c.X, t, kernel=c.kernel, gamma=gamma)
    np.testing.assert_allclose(c.gcv(), reg.gcv(), rtol=1e-10)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("unit", [True, False])
def test_a_gcv_path_equals_gcv_at_each_weight(case, unit):
    """Long paths of the RKHS norm come from one eigendecomposition (weighted or not, with or
    without the bias), the others from a factorisation per value: each value's GCV is the
    dense hat matrix's."""
    from lssvm_cvx.linalg.spectral import EIGH_BREAK_EVEN

    K, y, s, terms, bias = _case(case, unit)
    name = next(iter(terms))
    values = np.logspace(-2, 1, max(EIGH_BREAK_EVEN, 3))
    got = decompose(K, s, terms, bias=bias).gcv_path(name, values, y)
    for v, g in zip(values, got):
        P = sum((v if k == name else w) * (K if M is RKHS else M) for k, (M, w) in terms.items())
        np.testing.assert_allclose(g, _dense_gcv(K, s, P, y, bias), rtol=1e-8)


def test_the_composed_estimator_selects_by_gcv():
    """``selection="gcv"`` on what a user composes: every candidate's ``mean_test_score`` is
    minus the dense hat matrix's GCV, the choice is its minimiser and the model is refitted
    there; what has no closed form is refused in one line."""
    from lssvm_cvx import RegularizedLSSVMRegressor
    from lssvm_cvx.terms import L1

    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, (24, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(24)
    graph = GraphLaplacian(n_neighbors=4)
    terms = {"rkhs": (RKHSNorm(), 0.1), "graph": (graph, 0.01)}
    grid = {"graph": [1e-3, 1e-1, 10.0], "rkhs": [0.01, 1.0]}   # α not identifiable at 0.01
    est = RegularizedLSSVMRegressor(terms=terms, selection="gcv", weight_grid=grid,
                                    sigma2_grid=[0.5, 2.0]).fit(X, y)
    res = est.cv_results_
    assert len(res["params"]) == 12 and res["criterion"] == "gcv"
    for p, score in zip(res["params"], res["mean_test_score"]):
        f = RegularizedLSSVM(X, y, kernel=RBF(p["sigma2"]), terms=terms)
        P = p["terms__rkhs"] * RBF(p["sigma2"])(X) + p["terms__graph"] * graph.matrix(f.context)
        np.testing.assert_allclose(-score, _exact_gcv(RBF(p["sigma2"])(X), P, y), rtol=1e-6)
    best = res["params"][int(np.argmax(res["mean_test_score"]))]
    assert est.best_params_ == best and est.sigma2_ == best["sigma2"]
    assert est.terms_["graph"][1] == best["terms__graph"]
    with pytest.raises(HyperparameterError, match="closed form"):
        RegularizedLSSVMRegressor(terms={"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.1)},
                                  selection="gcv").fit(X, y)
    with pytest.raises(HyperparameterError, match="closed form"):
        RegularizedLSSVMRegressor(loss="huber", selection="gcv").fit(X, y)
    # unlabelled points (weight 0; refused until the fifteenth session): the GCV of the labelled ones
    w = np.ones(24)
    w[::4] = 0.0
    est = RegularizedLSSVMRegressor(terms=terms, selection="gcv", weight_grid=grid,
                                    sigma2_grid=[0.5]).fit(X, y, sample_weight=w)
    for p, score in zip(est.cv_results_["params"], est.cv_results_["mean_test_score"]):
        f = RegularizedLSSVM(X, y, kernel=RBF(0.5), terms=terms)
        P = p["terms__rkhs"] * RBF(0.5)(X) + p["terms__graph"] * graph.matrix(f.context)
        np.testing.assert_allclose(-score, _exact_gcv(RBF(0.5)(X), P, y, labelled=w > 0),
                                   rtol=1e-6)


def test_the_lssvm_estimators_gcv_is_the_gamma_sweeps():
    """The LS-SVM estimators' ``selection="gcv"`` runs the composed search on their preset; its
    scores are the LS-SVM γ sweep's GCV (per σ², one eigendecomposition) and the classifier's
    are the mean of its one-vs-rest columns' (the definition for several target columns)."""
    from lssvm_cvx import LSSVMClassifier, LSSVMRegressor, RegularizedLSSVMClassifier

    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, (40, 2))
    y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(40)
    gammas, widths = np.logspace(-1, 3, 8), [0.5, 2.0]
    est = LSSVMRegressor(selection="gcv", gamma_grid=gammas, sigma2_grid=widths).fit(X, y)
    want = np.concatenate([gamma_sweep(RBF(s2)(X), y, gammas, criterion="gcv").scores
                           for s2 in widths])
    np.testing.assert_allclose(-est.cv_results_["mean_test_score"], want, rtol=1e-10)
    assert (est.gamma_, est.sigma2_) == (est.cv_results_["best_gamma"],
                                         est.cv_results_["best_sigma2"])
    labels = np.digitize(y, [-0.3, 0.3])
    clf = LSSVMClassifier(selection="gcv", gamma_grid=gammas, sigma2=1.0).fit(X, labels)
    Y = np.where(labels[:, None] == np.arange(3)[None, :], 1.0, -1.0)   # one-vs-rest ±1
    per_column = [gamma_sweep(RBF(1.0)(X), Y[:, j], gammas, criterion="gcv").scores
                  for j in range(3)]
    np.testing.assert_allclose(-clf.cv_results_["mean_test_score"], np.mean(per_column, axis=0),
                               rtol=1e-10)
    comp = RegularizedLSSVMClassifier(selection="gcv", sigma2=1.0,
                                      weight_grid={"rkhs": 1.0 / gammas}).fit(X, labels)
    np.testing.assert_allclose(comp.cv_results_["mean_test_score"],
                               clf.cv_results_["mean_test_score"], rtol=1e-10)
