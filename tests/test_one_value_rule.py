"""One rule for a list of values, read in the user's words; the PSD check of a term's matrix by
Cholesky; the cvxpy build forming only the matrices it uses (eighteenth session, 2026-11-30).

* :func:`lssvm_cvx.checks.check_grid` is the one rule of a list of candidate values: the
  estimators' grids (``estimators.params.Grid``), the engine's paths
  (``linalg.problem_checks.check_weights_array``), the Auto LS-SVM search's grids, the
  composition's ``path``, the η of the componentwise η model, the ε bounds and weights of the
  scalarisations and the AReg node gammas all call it, each naming its own parameter.
* ``RegularizedLSSVM.path`` cast its folds with ``np.asarray(f, int)``: a boolean mask became
  the indices 0 and 1 and ``1.5`` became ``1``; ``without`` did the same to ``exclude``.  They
  are read by ``linalg.folds.index_set`` now.
* ``check_quadratic`` decides PSD-ness by a Cholesky factorisation of ``P + tol·I``; the
  decision must be the eigenvalue rule's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lssvm_cvx.checks import check_grid
from lssvm_cvx.exceptions import HyperparameterError, InputError, TermError
from lssvm_cvx.formulations.areg_ensemble import check_node_gammas
from lssvm_cvx.formulations.componentwise_eta import ComponentwiseEta
from lssvm_cvx.formulations.regularized import RegularizedLSSVM
from lssvm_cvx.formulations.scalarize import check_eps_values
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.auto import auto_search
from lssvm_cvx.terms import Ridge, RKHSNorm, Term
from lssvm_cvx.terms.base import PSD_RTOL, check_quadratic

BAD_LISTS = [("a string", "abc"), ("a ragged list", [[1.0, 2.0], [3.0]]),
             ("booleans", [True, False]), ("complex values", [1.0 + 2.0j]),
             ("None", [None]), ("nothing", []), ("a NaN", [1.0, np.nan]),
             ("an infinity", [np.inf])]


@pytest.mark.parametrize("what, bad", BAD_LISTS, ids=[b[0] for b in BAD_LISTS])
def test_check_grid_refuses_what_is_not_a_list_of_numbers(what, bad):
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # complex: no ComplexWarning on the way
        with pytest.raises(HyperparameterError, match="^my_grid must be a non-empty list"):
            check_grid(bad, "my_grid", allow_zero=True, flat=True)


def test_check_grid_sign_shape_and_order():
    assert check_grid([3, 1, 2], "g").tolist() == [3.0, 1.0, 2.0]       # order kept
    with pytest.raises(HyperparameterError, match="> 0, got \\[0, 1\\]"):
        check_grid([0, 1], "g")
    assert check_grid([0, 1], "g", allow_zero=True).tolist() == [0.0, 1.0]
    with pytest.raises(HyperparameterError, match="non-empty list"):
        check_grid([[1.0, 2.0]], "g")                                 # 2-D, not flat
    assert check_grid([[1.0, 2.0]], "g", flat=True).tolist() == [1.0, 2.0]
    assert check_grid(2.0, "g", flat=True).tolist() == [2.0]


# each caller names its own parameter (before: NumPy's "could not convert string to float")
CALLERS = [
    ("composition path", lambda bad: _composition().path("rkhs", bad),
     "the values of term 'rkhs'"),
    ("eta", lambda bad: ComponentwiseEta(*_xy(d=2), eta=bad).eta_weights(), "eta"),
    ("eps", lambda bad: check_eps_values(bad, 2), "eps"),
    ("AReg node gammas", lambda bad: check_node_gammas(bad), "gammas"),
    ("Auto search grid", lambda bad: auto_search(None, 10, gamma_grid=bad), "the gamma grid"),
]


@pytest.mark.parametrize("label, call, name", CALLERS, ids=[c[0] for c in CALLERS])
def test_every_caller_names_its_parameter(label, call, name):
    for bad in ("abc", [np.nan], [[1.0], [2.0, 3.0]]):
        with pytest.raises(HyperparameterError, match=f"^{name} must be a non-empty list"):
            call(bad)


def test_eta_keeps_its_shape_rule():
    X, y = _xy(d=3)
    assert ComponentwiseEta(X, y, eta=0.5).eta_weights().tolist() == [0.5] * 3
    for bad in ([1.0], [[1.0, 1.0, 1.0]], np.ones((3, 1))):
        with pytest.raises(HyperparameterError, match="eta must be 3 finite values"):
            ComponentwiseEta(X, y, eta=bad).eta_weights()


def _xy(n: int = 30, d: int = 1):
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (n, d))
    return X, np.sin(X.sum(axis=1)) + 0.1 * rng.normal(size=n)


def _composition(**terms):
    X, y = _xy()
    return RegularizedLSSVM(X, y, kernel=RBF(1.0),
                            terms=terms or {"rkhs": (RKHSNorm(), 0.1), "ridge": (Ridge(), 0.01)})


def test_path_reads_a_boolean_mask_as_the_points_it_marks():
    f = _composition()
    mask = np.zeros(f.n, bool)
    mask[::3] = True
    idx = [np.flatnonzero(mask), np.flatnonzero(~mask)]
    by_mask = f.path("rkhs", [0.1, 1.0], folds=[mask, ~mask])
    by_index = f.path("rkhs", [0.1, 1.0], folds=idx)
    np.testing.assert_array_equal(by_mask.residuals, by_index.residuals)


def test_path_and_without_refuse_indices_that_are_not_whole_numbers():
    f = _composition()
    with pytest.raises(InputError, match="not whole numbers"):
        f.path("rkhs", [0.1], folds=[[0, 1.5], [2, 3]])
    with pytest.raises(InputError, match="exclude .*not whole numbers"):
        f.without([0.5])
    mask = np.zeros(f.n, bool)
    mask[[0, 4]] = True
    assert f.without(mask).n == f.without([0, 4]).n == f.n - 2


# --- the PSD check by Cholesky decides as the eigenvalue rule does ---------------------------

def _with_smallest_eigenvalue(n: int, c: float, seed: int) -> np.ndarray:
    """A symmetric matrix whose smallest eigenvalue is ``-c`` times the check's tolerance."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = rng.uniform(0.5, 1.0, n)
    lam[0] = 0.0
    S = (Q * lam) @ Q.T
    lam[0] = -c * 1e3 * PSD_RTOL * n * np.abs(S).max()
    S = (Q * lam) @ Q.T
    return (S + S.T) / 2


@pytest.mark.parametrize("n", [3, 40, 150])
@pytest.mark.parametrize("c", [0.0, 0.3, 0.9, 1.2, 3.0, 1e4])
def test_cholesky_psd_check_decides_as_the_eigenvalue_rule(n, c):
    for seed in range(3):
        S = _with_smallest_eigenvalue(n, c, seed)
        lmin = np.linalg.eigvalsh(S)[0]
        refused = lmin < -1e3 * PSD_RTOL * n * np.abs(S).max()      # the rule, by eigvalsh
        assert refused == (c > 1)
        if refused:
            with pytest.raises(TermError, match="not positive semi-definite") as info:
                check_quadratic(S, n, name="t")
            reported = float(str(info.value).split("smallest eigenvalue ")[1].split(")")[0])
            assert reported == pytest.approx(lmin, rel=1e-2)
        else:
            np.testing.assert_array_equal(check_quadratic(S, n, name="t"), S)


def test_singular_psd_matrices_pass():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(200, 3))
    for P in (Z @ Z.T, np.zeros((200, 200)), np.diag(np.r_[np.zeros(100), np.ones(100)])):
        check_quadratic(P, 200, name="t")


# --- the cvxpy build forms a term's matrix only where it uses it -----------------------------

class _Counted(Term):
    """A quadratic term (``P = I``) counting its ``quadratic`` calls."""

    calls = 0

    def quadratic(self, ctx):
        type(self).calls += 1
        return np.eye(ctx.n)


class _CountedOwnFactor(_Counted):
    def factor(self, ctx):
        return np.eye(ctx.n)


def test_build_forms_the_matrix_only_of_terms_whose_factor_reads_it():
    for cls, expected in ((_Counted, 1), (_CountedOwnFactor, 0)):
        cls.calls = 0
        _composition(rkhs=(RKHSNorm(), 0.1), t=(cls(), 0.1)).build()
        assert cls.calls == expected, cls.__name__
