"""Bad input to the closed-form engine (:func:`lssvm_cvx.linalg.engine.decompose`, both
representations) is refused by name with an exception of the project's hierarchy
(:mod:`lssvm_cvx.linalg.problem_checks`), never a crash inside NumPy or a silent wrong answer.

Until the sixteenth session (2026-11-30) a negative or NaN weight and negative loss weights
returned a solution, a non-symmetric term matrix a wrong one, and a term object, a wrong shape or
wrong-length targets crashed inside NumPy (``TypeError``, ``ValueError``)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, InputError, InputTypeError, LssvmCvxError, TermError
from lssvm_cvx.formulations.regularized import RegularizedLSSVM
from lssvm_cvx.linalg.engine import RKHS, FittedTerm, decompose
from lssvm_cvx.terms import RKHSNorm, Term


def _problem(n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(-2, 2, n))
    K = np.exp(-((X[:, None] - X[None, :]) ** 2))
    y = np.sin(2 * X) + 0.1 * rng.standard_normal(n)
    return K, y


K, Y = _problem()
N = K.shape[0]
OK = {"rkhs": (RKHS, 0.1)}

#: (label, callable, exception, message pattern)
DUAL = [
    ("a term object of lssvm_cvx.terms", lambda: decompose(K, 1.0, {"r": (RKHSNorm(), 0.1)}),
     InputTypeError, "term 'r': its matrix must be .* got a RKHSNorm .*RegularizedLSSVM"),
    ("a string for a matrix", lambda: decompose(K, 1.0, {"r": ("rkhs", 0.1)}),
     InputTypeError, "got a str"),
    ("no weight", lambda: decompose(K, 1.0, {"r": RKHS}), InputTypeError,
     r"term 'r': give \(matrix, weight\)"),
    ("a weight of None", lambda: decompose(K, 1.0, {"r": (RKHS, None)}), HyperparameterError,
     "weight of term 'r' must be a number"),
    ("a negative weight", lambda: decompose(K, 1.0, {"r": (RKHS, -0.1)}), HyperparameterError,
     "weight of term 'r' must be a finite number >= 0, got -0.1"),
    ("a NaN weight", lambda: decompose(K, 1.0, {"r": (RKHS, np.nan)}), HyperparameterError,
     "weight of term 'r' must be a finite number >= 0, got nan"),
    ("an infinite weight", lambda: decompose(K, 1.0, {"r": (RKHS, np.inf)}),
     HyperparameterError, "weight of term 'r' must be a finite number >= 0, got inf"),
    ("a negative override", lambda: decompose(K, 1.0, OK).solve(Y, {"rkhs": -1.0}),
     HyperparameterError, "weight of term 'rkhs' must be a finite number >= 0"),
    ("a negative path value", lambda: decompose(K, 1.0, OK).path("rkhs", [0.1, -1.0], Y),
     HyperparameterError, "values of term 'rkhs' must be a non-empty list of finite values >= 0"),
    ("a NaN path value (systems)", lambda: list(decompose(K, 1.0, OK).systems("rkhs", [np.nan])),
     HyperparameterError, "values of term 'rkhs'"),
    ("a rectangular K", lambda: decompose(K[:, :5], 1.0, OK), InputError,
     r"K must be a square matrix, got shape \(12, 5\)"),
    ("a vector K", lambda: decompose(K[0], 1.0, OK), InputError, "K must be a square matrix"),
    ("a nested list for K", lambda: decompose(K.tolist(), 1.0, OK), InputTypeError,
     r"K must be an array \(NumPy or of an array-API namespace\), got a list"),
    ("a non-symmetric K", lambda: decompose(np.triu(K), 1.0, OK), InputError,
     "K must be a finite symmetric matrix"),
    ("a NaN in K", lambda: decompose(np.where(np.eye(N) > 0, np.nan, K), 1.0, OK), InputError,
     "finite symmetric"),
    ("loss weights of the wrong length", lambda: decompose(K, np.ones(5), OK), InputError,
     r"the loss weights must be a scalar or 12 values, got shape \(5,\)"),
    ("a negative loss weight", lambda: decompose(K, -np.ones(N), OK), InputError,
     "loss weights must be finite and >= 0"),
    ("all loss weights 0", lambda: decompose(K, np.zeros(N), OK), InputError, "one or more > 0"),
    ("a NaN loss weight", lambda: decompose(K, np.r_[np.nan, np.ones(N - 1)], OK), InputError,
     "loss weights must be finite"),
    ("a term matrix of the wrong shape",
     lambda: decompose(K, 1.0, {**OK, "p": (np.eye(5), 0.1)}).solve(Y), InputError,
     r"term 'p': its matrix must be 12 × 12, got shape \(5, 5\)"),
    ("a term matrix with NaN",
     lambda: decompose(K, 1.0, {**OK, "p": (np.full((N, N), np.nan), 0.1)}).solve(Y),
     InputError, "term 'p': its matrix must be finite"),
    ("a fitted-values matrix of the wrong shape",
     lambda: decompose(K, 1.0, {**OK, "g": (FittedTerm(np.eye(3)), 0.1)}).solve(Y),
     InputError, "term 'g': its matrix must be 12 × 12"),
    ("a fitted-values matrix of the wrong shape, augmented",
     lambda: decompose(K, 1.0, {**OK, "g": (FittedTerm(np.eye(3)), 0.1),
                                "p": (np.eye(N), 0.1)}).solve(Y),
     InputError, "term 'g': its matrix must be 12 × 12"),
    ("targets of the wrong length", lambda: decompose(K, 1.0, OK).solve(Y[:5]), InputError,
     r"Y must be \(N,\) or \(N, T\) with N = 12, got shape \(5,\)"),
    ("NaN targets (LOO)", lambda: decompose(K, 1.0, OK).loo(Y * np.nan), InputError,
     "Y must be finite"),
    ("NaN targets (path)", lambda: decompose(K, 1.0, OK).path("rkhs", [0.1], Y * np.nan),
     InputError, "Y must be finite"),
    ("3-D targets", lambda: decompose(K, 1.0, OK).kfold(Y[:, None, None], [np.arange(3)]),
     InputError, "Y must be"),
]


PHI = np.column_stack([np.linspace(-1, 1, N), np.linspace(-1, 1, N) ** 2])

DESIGN = [
    ("a term object", lambda: decompose(PHI, 1.0, {"r": (RKHSNorm(), 0.1)}, design=True),
     InputTypeError, "got a RKHSNorm"),
    ("a vector design", lambda: decompose(PHI[:, 0], 1.0, OK, design=True), InputError,
     r"the design must be an \(N, m\) matrix"),
    ("a NaN in the design", lambda: decompose(PHI * np.nan, 1.0, OK, design=True), InputError,
     "the design must be finite"),
    ("a negative weight", lambda: decompose(PHI, 1.0, {"r": (RKHS, -1.0)}, design=True),
     HyperparameterError, "weight of term 'r' must be a finite number >= 0"),
    ("NaN targets", lambda: decompose(PHI, 1.0, OK, design=True).solve(Y * np.nan), InputError,
     "Y must be finite"),
    ("NaN targets (score path)",
     lambda: decompose(PHI, 1.0, OK, design=True).score_path("rkhs", [0.1], Y * np.nan),
     InputError, "Y must be finite"),
]


@pytest.mark.parametrize("label, call, exc, match", DUAL + DESIGN,
                         ids=[f"dual: {d[0]}" for d in DUAL] + [f"primal: {d[0]}" for d in DESIGN])
def test_bad_input_to_the_engine_is_refused_by_name(label, call, exc, match):
    with pytest.raises(exc, match=match) as info:
        call()
    assert isinstance(info.value, LssvmCvxError)


def _cvxpy_minimum(P, w, s, c=0.1):
    """(Q) solved by cvxpy with the objective written with ``P`` as given: ``α'Pα`` through
    ``(P + P')/2``, which is the same function of ``α``."""
    alpha, b = cp.Variable(N), cp.Variable()
    obj = 0.5 * cp.sum(cp.multiply(s, cp.square(Y - K @ alpha - b)))
    obj += 0.5 * c * cp.quad_form(alpha, cp.psd_wrap(K)) + 0.5 * w * cp.quad_form(
        alpha, cp.psd_wrap((P + P.T) / 2))
    cp.Problem(cp.Minimize(obj)).solve(solver=cp.CLARABEL)
    return alpha.value, float(b.value)


def _objective(alpha, b, P, w, s, c=0.1):
    """(Q)'s NumPy twin evaluated with ``P`` as given (no symmetrisation)."""
    r = Y - K @ alpha - b
    return 0.5 * s @ r**2 + 0.5 * c * alpha @ K @ alpha + 0.5 * w * alpha @ P @ alpha


def test_a_non_symmetric_term_matrix_is_its_symmetric_part():
    """``½α'Pα`` sees ``(P + P')/2`` only.  Until the sixteenth session the augmented system
    solved with ``P`` itself: for ``P = triu(1)`` its objective was far above the minimum (this
    test fails there); now the solution is that of ``(P + P')/2`` to the bit and its objective
    (evaluated with ``P`` as given) is cvxpy's to 1e-7."""
    P = np.triu(np.ones((N, N))) + np.eye(N)
    s = np.linspace(0.5, 1.5, N)
    alpha, b = decompose(K, s, {**OK, "p": (P, 0.05)}).solve(Y)
    alpha_sym, b_sym = decompose(K, s, {**OK, "p": ((P + P.T) / 2, 0.05)}).solve(Y)
    np.testing.assert_array_equal(alpha, alpha_sym)
    assert b == b_sym
    ref = _cvxpy_minimum(P, 0.05, s)
    f, f_ref = _objective(alpha, b, P, 0.05, s), _objective(*ref, P, 0.05, s)
    assert f <= f_ref + 1e-7 * abs(f_ref)
    assert f == pytest.approx(f_ref, rel=1e-6)


@pytest.mark.parametrize("namespace", ["array_api_strict", "torch"])
def test_the_checks_run_in_any_namespace(namespace):
    """The checks use the inputs' namespace: good arrays pass, a non-symmetric Gram, NaN
    targets and negative loss weights are refused there too."""
    xp = pytest.importorskip(namespace)
    Kx, yx = xp.asarray(K), xp.asarray(Y)
    alpha, _ = decompose(Kx, xp.asarray(np.ones(N)), OK).solve(yx)
    ref, _ = decompose(K, np.ones(N), OK).solve(Y)
    np.testing.assert_allclose(np.asarray(alpha), ref, rtol=1e-9, atol=1e-12)
    with pytest.raises(InputError, match="finite symmetric"):
        decompose(xp.asarray(np.triu(K)), 1.0, OK)
    with pytest.raises(InputError, match="Y must be finite"):
        decompose(Kx, 1.0, OK).solve(xp.asarray(Y * np.nan))
    with pytest.raises(InputError, match="loss weights"):
        decompose(Kx, xp.asarray(-np.ones(N)), OK)


@pytest.mark.parametrize(("terms", "exc", "match"), [
    ({"x": (np.eye(N), 1.0)}, TermError,
     r"terms\['x'\]: a ndarray of shape \(12, 12\) is not a lssvm_cvx.terms.Term \(a matrix P "
     r"goes in as Quadratic\(P\)"),
    ({"x": (np.eye(N).tolist(), 1.0)}, TermError, r"a list is not .*Quadratic\(P\)"),
    ({"x": np.eye(N)}, HyperparameterError,
     r"must be a \(Term, weight\) pair, got a ndarray of shape \(12, 12\)$"),
    ({"x": ("rkhs", 1.0)}, TermError, "a str is not a lssvm_cvx.terms.Term$"),
    ({"x": (RKHSNorm(), -1.0)}, HyperparameterError, "weight of term 'x' must be a finite number >= 0"),
])
def test_a_users_raw_matrix_for_a_term_is_named_not_printed(terms, exc, match):
    """What a researcher composing a term gets for a matrix where a ``Term`` belongs: its type
    and shape and the way to pass it (``Quadratic(P)``), never the array's repr (until the
    seventeenth session the message held the matrix's repr: 684 characters for this 12 × 12
    identity, and no word of ``Quadratic``)."""
    X = np.linspace(-1, 1, N)[:, None]
    with pytest.raises(exc, match=match) as info:
        RegularizedLSSVM(X, Y, terms=terms).solve()
    assert len(str(info.value)) < 200


class _WrongShape(Term):
    def quadratic(self, ctx):
        return np.eye(3)


class _FittedWrongShape(Term):
    def fitted_quadratic(self, ctx):
        return np.eye(2)


@pytest.mark.parametrize(("term", "method"), [(_WrongShape(), "quadratic"),
                                              (_FittedWrongShape(), "fitted_quadratic")])
@pytest.mark.parametrize("how", ["closed_form", "CLARABEL", "build"])
def test_a_users_bad_term_matrix_is_named_by_its_key_and_method_on_every_path(term, method, how):
    """Until the seventeenth session the cvxpy builder named the term by its class
    (``term '_WrongShape'``) where the closed form named its key, and a wrong
    ``fitted_quadratic`` reached the builder as NumPy's ``matmul`` mismatch."""
    X = np.linspace(-1, 1, N)[:, None]
    form = RegularizedLSSVM(X, Y, terms={"rkhs": (RKHSNorm(), 0.1), "u": (term, 0.1)})
    with pytest.raises(TermError, match=rf"^term 'u': {method}\(\) must return an \(12, 12\) "
                                        r"matrix, got \(\d, \d\)$"):
        form.build() if how == "build" else form.solve(how)
