"""L2SVMClassifier: scikit-learn conformance, fixed-λ fits against CLARABEL, model selection
along the path, low-rank variants, save/load, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import lssvm_cvx
from lssvm_cvx import L2SVMClassifier, problems
from lssvm_cvx.exceptions import HyperparameterError, LabelError, NotPSDError
from lssvm_cvx.formulations.l2svm import L2SVMDual
from lssvm_cvx.kernels import RBF


@parametrize_with_checks([L2SVMClassifier(),
                          L2SVMClassifier(low_rank="nystroem", n_landmarks=5, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def data():
    ds = problems.get_problem("banana")
    tr, te = problems.random_split(ds.n_samples, [150, 500], 4)
    sc = StandardScaler().fit(ds.X[tr])
    return sc.transform(ds.X[tr]), ds.y[tr], sc.transform(ds.X[te]), ds.y[te]


def test_exported_from_package():
    assert lssvm_cvx.L2SVMClassifier is L2SVMClassifier


def test_fixed_lambda_matches_clarabel(data):
    X, y, Xt, yt = data
    est = L2SVMClassifier(lam=0.05, sigma2=0.7).fit(X, y)
    qp = L2SVMDual(X, y, kernel=RBF(0.7), lam=0.05).solve("CLARABEL")
    np.testing.assert_allclose(est.alpha_, qp["alpha"], atol=1e-6 * qp["alpha"].max())
    assert est.intercept_ == pytest.approx(qp.scalar("b"), abs=1e-6)
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    f = RBF(0.7)(Xt, X) @ (qp["alpha"] * ypm) + qp.scalar("b")
    np.testing.assert_allclose(est.decision_function(Xt), f, atol=1e-6)
    assert est.score(Xt, yt) > 0.8
    np.testing.assert_array_equal(est.support_, est.active_set_)


def test_path_selection_span_and_attributes(data):
    X, y, Xt, yt = data
    est = L2SVMClassifier(path=True, sigma2=0.7).fit(X, y)
    P = est.path_
    assert P["criterion_name"] == "span"
    assert P["lambdas"].shape == P["criterion"].shape == P["m_E"].shape
    k = int(np.argmin(P["criterion"]))
    assert est.lam_ == P["lambdas"][k]
    assert P["criterion"][k] == P["criterion"].min()
    assert est.score(Xt, yt) > 0.8
    # the selected classifier is the fixed-λ fit at lam_
    fixed = L2SVMClassifier(lam=est.lam_, sigma2=0.7).fit(X, y)
    np.testing.assert_allclose(est.decision_function(Xt), fixed.decision_function(Xt), atol=1e-6)


def test_path_selection_radius_margin_exact_breakpoints(data):
    X, y, Xt, yt = data
    est = L2SVMClassifier(path=True, criterion="radius_margin", breakpoints="exact", sigma2=0.7,
                          lam_min=1e-3, lam_max=1e3).fit(X[:60], y[:60])
    assert est.path_["criterion_name"] == "radius_margin"
    assert np.all(est.path_["criterion"] > 0)
    assert est.lam_ in est.path_["lambdas"]


@pytest.mark.parametrize("low_rank", ["eigen", "nystroem", "nystroem-density", "icf"])
def test_low_rank_variants(data, low_rank):
    X, y, Xt, yt = data
    est = L2SVMClassifier(path=True, low_rank=low_rank, rank=40, sigma2=0.7, random_state=0).fit(X, y)
    assert est.rank_ <= 40
    assert est.score(Xt, yt) > 0.75
    assert est.dual_coef_.shape[0] == est.support_vectors_.shape[0]


@pytest.mark.parametrize("old", ["nystrom", "nystrom-density"])
def test_the_old_nystrom_spelling_still_fits_the_same_model(data, old):
    X, y, _, _ = data
    kw = dict(lam=0.1, n_landmarks=40, sigma2=0.7, random_state=1)
    with pytest.warns(FutureWarning, match="nystroem"):
        a = L2SVMClassifier(low_rank=old, **kw).fit(X, y)
    b = L2SVMClassifier(low_rank=old.replace("nystrom", "nystroem"), **kw).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert a.intercept_ == b.intercept_


def test_support_expansion(data):
    X, y, Xt, yt = data
    a = L2SVMClassifier(lam=0.1, low_rank="nystroem", n_landmarks=60, sigma2=0.7, random_state=1).fit(X, y)
    b = L2SVMClassifier(lam=0.1, low_rank="nystroem", n_landmarks=60, sigma2=0.7, random_state=1,
                        expansion="support").fit(X, y)
    np.testing.assert_array_equal(b.support_, b.active_set_)
    # both reproduce the approximate classifier on the support vectors
    E = a.active_set_
    np.testing.assert_allclose(a.decision_function(X[E]), b.decision_function(X[E]), atol=1e-4)


def test_precomputed_kernel(data):
    X, y, Xt, yt = data
    K, Kt = RBF(0.7)(X), RBF(0.7)(Xt, X)
    est = L2SVMClassifier(lam=0.05, kernel="precomputed").fit(K, y)
    ref = L2SVMClassifier(lam=0.05, sigma2=0.7).fit(X, y)
    np.testing.assert_allclose(est.decision_function(Kt), ref.decision_function(Xt), atol=1e-8)
    icf = L2SVMClassifier(lam=0.05, kernel="precomputed", low_rank="icf", rank=50).fit(K, y)
    assert icf.score(Kt, yt) > 0.75


def test_save_load_roundtrip(data, tmp_path):
    X, y, Xt, yt = data
    est = L2SVMClassifier(path=True, low_rank="nystroem", rank=30, sigma2=0.7, random_state=0).fit(X, y)
    est.save(tmp_path / "m.npz")
    back = lssvm_cvx.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.decision_function(Xt), est.decision_function(Xt))
    np.testing.assert_array_equal(back.path_["lambdas"], est.path_["lambdas"])


# --------------------------------------------------------------------------- bad input
def test_non_binary_labels(data):
    X, y, _, _ = data
    y3 = y.copy()
    y3[:10] = 5
    with pytest.raises(LabelError, match="Only binary classification"):
        L2SVMClassifier().fit(X, y3)
    with pytest.raises(LabelError, match="only 1 class"):
        L2SVMClassifier().fit(X, np.ones(len(y)))


@pytest.mark.parametrize("lam", [0.0, -0.5, np.inf])
def test_bad_lambda(data, lam):
    X, y, _, _ = data
    with pytest.raises(HyperparameterError, match="lam"):
        L2SVMClassifier(lam=lam).fit(X, y)


def test_rank_larger_than_m(data):
    X, y, _, _ = data
    with pytest.raises(HyperparameterError, match="larger than the number of training points"):
        L2SVMClassifier(low_rank="nystroem", rank=151).fit(X, y)
    with pytest.raises(HyperparameterError, match="needs a low_rank"):
        L2SVMClassifier(rank=10).fit(X, y)


@pytest.mark.parametrize("lam_min, lam_max", [(1.0, 1.0), (10.0, 1.0)])
def test_the_path_range_must_be_increasing(data, lam_min, lam_max):
    """A rule between two parameters, checked by hand beside the constraint language."""
    X, y, _, _ = data
    with pytest.raises(HyperparameterError, match="lam_min must be below lam_max"):
        L2SVMClassifier(path=True, lam_min=lam_min, lam_max=lam_max).fit(X, y)


def test_gram_not_psd(data):
    X, y, _, _ = data
    K = RBF(0.7)(X)
    K[0, 1] = K[1, 0] = 4.0
    with pytest.raises(NotPSDError, match="not positive semi-definite"):
        L2SVMClassifier(kernel="precomputed").fit(K, y)

    def bad(A, B):
        return -np.abs(A[:, :1] - B[:, :1].T) - 0.1

    with pytest.raises(NotPSDError):
        L2SVMClassifier(kernel=bad).fit(X, y)


@pytest.mark.parametrize("param, value", [("criterion", "gcv"), ("low_rank", "svd"), ("breakpoints", "fast"),
                                          ("expansion", "all")])
def test_bad_options(data, param, value):
    X, y, _, _ = data
    with pytest.raises(HyperparameterError, match=param):
        L2SVMClassifier(**{param: value}).fit(X, y)
