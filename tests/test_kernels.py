"""Kernels: values against scikit-learn's pairwise kernels and brute force, algebra, factor,
componentwise sums (componentwise paper eq. 12), cloning and serialisation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from lssvm_cvx.exceptions import HyperparameterError, InputError, NotPSDError
from lssvm_cvx.kernels import (RBF, CallableKernel, Componentwise, Linear, Polynomial, Precomputed,
                               Sum, check_psd, kernel_from_dict, make_kernel, sq_dists)


@pytest.fixture
def XZ(rng):
    return rng.normal(size=(17, 4)), rng.normal(size=(9, 4))


def test_sq_dists_matches_brute_force(XZ):
    X, Z = XZ
    brute = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(sq_dists(X, Z), brute, rtol=1e-12, atol=1e-12)
    D = sq_dists(X)
    assert np.all(np.diag(D) == 0) and np.all(D >= 0)


def test_rbf_is_lssvmlab_convention(XZ):
    X, Z = XZ
    # exp(-||x-z||^2 / sigma2) == sklearn rbf_kernel with gamma = 1/sigma2
    np.testing.assert_allclose(RBF(2.5)(X, Z), rbf_kernel(X, Z, gamma=1 / 2.5), rtol=1e-12)
    x, z = X[0], Z[0]
    assert RBF(2.5)(x[None], z[None])[0, 0] == pytest.approx(np.exp(-np.sum((x - z) ** 2) / 2.5))
    np.testing.assert_array_equal(RBF(3.0).diag(X), np.ones(len(X)))


def test_linear_and_polynomial(XZ):
    X, Z = XZ
    np.testing.assert_allclose(Linear()(X, Z), X @ Z.T)
    np.testing.assert_allclose(Polynomial(3, 0.5)(X, Z),
                               polynomial_kernel(X, Z, degree=3, gamma=1.0, coef0=0.5), rtol=1e-12)
    np.testing.assert_allclose(Polynomial(2, 1.0).diag(X), np.diag(Polynomial(2, 1.0)(X)))


def test_algebra(XZ):
    X, Z = XZ
    k = RBF(1.0) + Linear()
    assert isinstance(k, Sum)
    np.testing.assert_allclose(k(X, Z), RBF(1.0)(X, Z) + X @ Z.T)
    np.testing.assert_allclose((2.0 * RBF(1.0))(X, Z), 2 * RBF(1.0)(X, Z))
    np.testing.assert_allclose((RBF(1.0) * Linear())(X, Z), RBF(1.0)(X, Z) * (X @ Z.T))


def test_componentwise_sums_per_column_kernels(XZ):
    X, Z = XZ
    k = Componentwise(RBF(0.7))
    comps = k.components(X, Z)
    assert len(comps) == X.shape[1]
    for j, C in enumerate(comps):
        np.testing.assert_allclose(C, RBF(0.7)(X[:, [j]], Z[:, [j]]))
    np.testing.assert_allclose(k(X, Z), sum(comps))
    mixed = Componentwise([RBF(0.7), Linear()], columns=[0, (1, 2)])
    assert mixed.labels(4) == [((0,), "RBF"), ((1, 2), "RBF"), ((0,), "Linear"), ((1, 2), "Linear")]
    np.testing.assert_allclose(mixed.components(X)[3], X[:, [1, 2]] @ X[:, [1, 2]].T)
    with pytest.raises(InputError, match="out of range"):
        Componentwise(RBF(), columns=[7]).components(X)


@pytest.mark.parametrize("kernel", [RBF(0.5), Linear(), Polynomial(2, 1.0)])
def test_factor_reproduces_gram(kernel, rng):
    X = rng.normal(size=(30, 3))
    L = kernel.factor(X)
    np.testing.assert_allclose(L @ L.T, kernel(X), atol=1e-9 * np.abs(kernel(X)).max())


def test_clone_params_and_serialisation():
    k = Componentwise([RBF(0.3), Polynomial(2, 0.5)], columns=[0, (1, 2)]) + Linear()
    k2 = clone(k)
    assert k2.get_params()["kernels"][0].get_params()["kernel"][0].sigma2 == 0.3
    back = kernel_from_dict(k.to_dict())
    X = np.random.default_rng(0).normal(size=(6, 3))
    np.testing.assert_array_equal(back(X), k(X))
    r = RBF(1.0)
    r.set_params(sigma2=4.0)
    assert r.sigma2 == 4.0


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf, "x"])
def test_rbf_rejects_bad_sigma2(bad):
    with pytest.raises(HyperparameterError, match="sigma2"):
        RBF(bad)(np.zeros((2, 1)))


@pytest.mark.parametrize("kw,match", [({"degree": 0}, "degree"), ({"degree": 1.5}, "degree"),
                                      ({"t": -1.0}, "t must")])
def test_polynomial_rejects_bad_params(kw, match):
    with pytest.raises(HyperparameterError, match=match):
        Polynomial(**kw)(np.zeros((2, 1)))


def test_shape_mismatch_and_make_kernel():
    with pytest.raises(InputError, match="features"):
        RBF()(np.zeros((3, 2)), np.zeros((3, 3)))
    assert isinstance(make_kernel("rbf", sigma2=2.0), RBF)
    assert isinstance(make_kernel("poly", degree=2), Polynomial)
    assert isinstance(make_kernel("precomputed"), Precomputed)
    assert isinstance(make_kernel(lambda A, B: A @ B.T), CallableKernel)
    with pytest.raises(HyperparameterError, match="unknown kernel"):
        make_kernel("sigmoid")


def test_check_psd():
    A = np.random.default_rng(1).normal(size=(5, 5))
    check_psd(A @ A.T)
    with pytest.raises(NotPSDError, match="not positive semi-definite"):
        check_psd(np.diag([1.0, -1.0, 2.0]))
    with pytest.raises(NotPSDError, match="not symmetric"):
        check_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
