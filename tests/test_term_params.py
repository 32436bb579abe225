"""The built-in terms', losses' and composite kernels' own parameters, and counts, by one rule
each (nineteenth session, 2026-11-30): :func:`lssvm_cvx.checks.check_integer`, ``check_positive`` and
``check_option``.

Before (a4c47df), a fuzz of every constructor parameter of the built-in terms and losses,
composed on :class:`RegularizedLSSVM` and solved, found: ``GraphLaplacian(n_neighbors=1.5)``
and ``TotalVariation(n_neighbors=1.5)`` solved with 1 neighbour, ``n_neighbors=True`` with 1,
``GraphLaplacian(sigma2=-1)`` with weights ``exp(+d²)``, ``normalized="no"`` normalised, and
``Huber(M=True)`` used ``M = 1``, all silently; a string or an array there crashed inside the
term and was reported as the *user's* code failing ("fitted_quadratic() raised TypeError:
unhashable type"), as was a ragged ``Quadratic(P)`` and an array ``GradientNorm(form)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.checks import check_integer
from lssvm_cvx.exceptions import HyperparameterError, InputError, LssvmCvxError
from lssvm_cvx.formulations.regularized import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import Huber
from lssvm_cvx.terms import GradientNorm, GraphLaplacian, Quadratic, RKHSNorm, TotalVariation
from lssvm_cvx.terms.quadratic import knn_laplacian

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (12, 2))
Y = np.sin(X[:, 0])


def _fit(term=None, loss=None):
    terms = {"rkhs": (RKHSNorm(), 1.0)}
    if term is not None:
        terms["t"] = (term, 0.5)
    return RegularizedLSSVM(X, Y, kernel=RBF(1.0), terms=terms, loss=loss).solve()


FORM = "^GradientNorm: form must be one of"
INT = "^n_neighbors must be an integer >= 1"
BAD_TERMS = {
    "GraphLaplacian(n_neighbors=1.5)": (GraphLaplacian(n_neighbors=1.5), INT),
    "GraphLaplacian(n_neighbors=True)": (GraphLaplacian(n_neighbors=True), INT),
    "GraphLaplacian(n_neighbors='abc')": (GraphLaplacian(n_neighbors="abc"), INT),
    "GraphLaplacian(n_neighbors=[3])": (GraphLaplacian(n_neighbors=[3]), INT),
    "GraphLaplacian(sigma2=-1)": (GraphLaplacian(sigma2=-1.0), "^sigma2 must be a finite number > 0"),
    "GraphLaplacian(sigma2='abc')": (GraphLaplacian(sigma2="abc"), "^sigma2 must be a number > 0"),
    "GraphLaplacian(normalized='no')": (GraphLaplacian(normalized="no"), "^normalized must be True or False"),
    "GraphLaplacian(normalized=2)": (GraphLaplacian(normalized=2), "^normalized must be True or False"),
    "TotalVariation(n_neighbors=1.5)": (TotalVariation(n_neighbors=1.5), INT),
    "TotalVariation(n_neighbors=np.ones(2))": (TotalVariation(n_neighbors=np.ones(2)), INT),
    "GradientNorm(form=array)": (GradientNorm(form=np.array(["exact"])), FORM),
    "GradientNorm(form='eq42')": (GradientNorm(form="eq42"), FORM),
    "Quadratic(ragged)": (Quadratic([[1.0, 0.0], [0.0]]), "^Quadratic: P"),
}


@pytest.mark.parametrize("label", list(BAD_TERMS))
def test_a_bad_term_parameter_is_refused_by_name_not_as_user_code(label):
    term, message = BAD_TERMS[label]
    with pytest.raises(LssvmCvxError, match=message) as info:
        _fit(term)
    assert " raised " not in str(info.value)
    assert isinstance(info.value, InputError)


@pytest.mark.parametrize("M", [True, "abc", np.ones(2), -1.0, np.nan, 0.0])
def test_a_bad_huber_threshold_is_refused(M):
    with pytest.raises(HyperparameterError, match="^Huber threshold M must be"):
        _fit(loss=Huber(M=M))


def test_good_parameters_still_give_the_same_graph():
    """The checked values are the ones used: NumPy integers and booleans are accepted."""
    ref = knn_laplacian(X, 4, sigma2=0.5, normalized=True)
    assert np.array_equal(knn_laplacian(X, np.int64(4), sigma2=np.float32(0.5), normalized=np.bool_(True)),
                          ref)
    for t in (GraphLaplacian(n_neighbors=np.int64(4), sigma2=0.5, normalized=np.True_),
              TotalVariation(n_neighbors=np.int32(3)), GradientNorm(form="exact")):
        assert _fit(t).status == "optimal"


def test_check_integer():
    assert check_integer(np.int64(3), "k") == 3 and type(check_integer(np.int64(3), "k")) is int
    assert check_integer(0, "seed", low=0) == 0
    for bad in (True, np.True_, 1.5, 2.0, "2", [2], np.ones(1), None, 0, -3):
        with pytest.raises(HyperparameterError, match="^k must be an integer >= 1, got"):
            check_integer(bad, "k")


def _kernels():
    from lssvm_cvx.kernels import Componentwise, Polynomial, Product, Scaled, Sum

    return {
        "Sum([RBF, 'linear'])": (Sum([RBF(1.0), "linear"]), "^Sum: every kernel must be a Kernel object"),
        "Sum(1.0)": (Sum(1.0), "^Sum needs a non-empty list of kernels"),
        "Product([])": (Product([]), "^Product needs a non-empty list of kernels"),
        "Scaled('rbf')": (Scaled("rbf"), "^Scaled: every kernel must be a Kernel object"),
        "Scaled()": (Scaled(), "^Scaled: every kernel must be a Kernel object, got None"),
        "Componentwise(columns=[0, 1.5])": (Componentwise(RBF(1.0), columns=[0, 1.5]),
                                            "^a component's column must be an integer >= 0, got 1.5"),
        "Componentwise(columns=0)": (Componentwise(RBF(1.0), columns=0), "^columns must be None or a list"),
        "Polynomial(t=True)": (Polynomial(t=True), "^t must be a number >= 0"),
        "Polynomial(t=-1)": (Polynomial(t=-1.0), "^t must be a finite number >= 0"),
    }


@pytest.mark.parametrize("label", list(_kernels()))
def test_a_bad_composite_kernel_is_refused_by_name(label):
    """Before (a4c47df): a member that is not a kernel reached ``AttributeError: ... has no
    attribute '_validate'``, a number where the list belongs ``TypeError: ... has no len()``,
    ``columns=[0, 1.5]`` used column 1 and ``Polynomial(t=True)`` the offset 1, silently."""
    kernel, message = _kernels()[label]
    with pytest.raises(InputError, match=message):
        RegularizedLSSVM(X, Y, kernel=kernel, terms={"rkhs": (RKHSNorm(), 1.0)}).solve()
