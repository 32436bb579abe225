"""The LS-SVM's closed-form selection functions (``lssvm_cvx.model_selection``) and the public
functions of the Pareto, kernel-choice and ℓ2-SVM path modules refuse bad input by name with
the package's exceptions (eighteenth session, 2026-11-30).

Before, on e51cfea: a Gram that is not an array reached ``AttributeError`` (``.shape``),
targets of strings or of the wrong length NumPy's ``ValueError`` or ``IndexError``, a ragged
γ or σ² grid NumPy's ``ValueError`` and a 2-D one was searched row by row, folds that are not
a list a ``TypeError``, an array for ``criterion`` or ``score`` NumPy's "truth value of an
array is ambiguous", and bad ``score_residuals`` weights NumPy's shape error.  The Pareto
selection read a front ``F`` with ``np.asarray`` (a scalar or an empty list was a one-point
front, a string crashed), took negative or NaN explicit weights (falling back to other
weights unsaid), indexed ``F`` by any ``eps0_index``; ``simplest_within_one_se`` and
``loo_factors`` crashed on strings, ``select_model`` and ``regularization_path`` on an array
for an option name, the path on a Gram that is not one.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold

from lssvm_cvx.exceptions import LssvmCvxError
from lssvm_cvx.kernels import RBF
from lssvm_cvx.model_selection import (
    gamma_sweep,
    gcv,
    kfold_residuals,
    loo_residuals,
    score_residuals,
    select_gamma_sigma2,
)
from lssvm_cvx.selection.kernel_choice import loo_factors, simplest_within_one_se
from lssvm_cvx.selection.l2svm_path import regularization_path
from lssvm_cvx.selection.multiobjective import select_model
from lssvm_cvx.selection.pareto import dominated, ideal_point_weights, select_ideal_point

RNG = np.random.default_rng(0)
X = RNG.uniform(-2, 2, (20, 2))
Y = np.sin(X[:, 0])
K = RBF(1.0)(X)
BAD = {"a string": "abc", "a ragged list": [[1.0, 2.0], [3.0]], "-1": -1.0, "NaN": np.nan,
       "nothing": [], "booleans": [True, False], "a 3 x 3 array": np.ones((3, 3))}
CALLS = {
    "loo_residuals(Omega)": lambda b: loo_residuals(b, Y, 1.0),
    "loo_residuals(y)": lambda b: loo_residuals(K, b, 1.0),
    "loo_residuals(gamma)": lambda b: loo_residuals(K, Y, b),
    "gcv(y)": lambda b: gcv(K, b, 1.0),
    "kfold_residuals(folds)": lambda b: kfold_residuals(K, Y, 1.0, b),
    "gamma_sweep(gammas)": lambda b: gamma_sweep(K, Y, b),
    "gamma_sweep(criterion)": lambda b: gamma_sweep(K, Y, [1.0], criterion=b),
    "gamma_sweep(score)": lambda b: gamma_sweep(K, Y, [1.0], score=b),
    "gamma_sweep(method)": lambda b: gamma_sweep(K, Y, [1.0], method=b),
    "gamma_sweep(folds)": lambda b: gamma_sweep(K, Y, [1.0], criterion="kfold", folds=b),
    "select_gamma_sigma2(X)": lambda b: select_gamma_sigma2(b, Y, [1.0], [1.0]),
    "select_gamma_sigma2(gammas)": lambda b: select_gamma_sigma2(X, Y, b, [1.0]),
    "select_gamma_sigma2(sigma2s)": lambda b: select_gamma_sigma2(X, Y, [1.0], b),
    "score_residuals(residuals)": lambda b: score_residuals(b, Y),
    "score_residuals(score)": lambda b: score_residuals(Y, Y, b),
    "score_residuals(weights)": lambda b: score_residuals(Y, Y, "mse", b),
    "select_ideal_point(F)": lambda b: select_ideal_point(b),
    "select_ideal_point(ideal)": lambda b: select_ideal_point(FRONT, b),
    "select_ideal_point(eps0_index)": lambda b: select_ideal_point(FRONT, eps0_index=b),
    "select_ideal_point(weights)": lambda b: select_ideal_point(FRONT, weights=b),
    "ideal_point_weights(kind)": lambda b: ideal_point_weights(FRONT, [0.0, 0.0], 1, b),
    "dominated(F)": lambda b: dominated(b),
    "dominated(tol)": lambda b: dominated(FRONT, tol=b),
    "simplest_within_one_se(losses)": lambda b: simplest_within_one_se(b, [1, 2]),
    "simplest_within_one_se(rule)": lambda b: simplest_within_one_se(np.ones((2, 4)), [1, 2], b),
    "loo_factors(gammas)": lambda b: loo_factors(X, Y, b),
    "loo_factors(y)": lambda b: loo_factors(X, b, [1.0]),
    "select_model(model)": lambda b: select_model(X, Y, model=b),
    "regularization_path(K)": lambda b: regularization_path(np.sign(Y + 0.01), K=b),
    "regularization_path(breakpoints)": lambda b: regularization_path(np.sign(Y + 0.01), K=K,
                                                                      breakpoints=b),
}
#: a front of 5 points in 2 objectives
FRONT = np.c_[np.linspace(0, 1, 5), np.linspace(1, 0, 5)]
#: values that are valid for the argument (a 3 x 3 front, ...)
VALID = {"select_ideal_point(F)": {"a 3 x 3 array"}, "dominated(F)": {"a 3 x 3 array"}}


@pytest.mark.parametrize(("name", "call"), CALLS.items(), ids=CALLS.keys())
def test_bad_input_is_refused_by_the_package(name, call):
    for label, bad in BAD.items():
        if label in VALID.get(name, ()):
            continue
        try:
            call(bad)
        except LssvmCvxError:
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"{label}: {type(exc).__name__}: {exc}")
        pytest.fail(f"{label}: accepted")


def test_messages_name_the_argument():
    with pytest.raises(LssvmCvxError, match="^gammas must be a non-empty list"):
        gamma_sweep(K, Y, [[1.0], [2.0, 3.0]])
    with pytest.raises(LssvmCvxError, match=r"^y must have shape \(20,\) or \(20, T\)"):
        loo_residuals(K, Y[:-1], 1.0)
    with pytest.raises(LssvmCvxError, match="^Omega must be a square matrix"):
        loo_residuals(K[:, :5], Y, 1.0)
    with pytest.raises(LssvmCvxError, match="^criterion must be one of"):
        gamma_sweep(K, Y, [1.0], criterion=np.array(["loo", "gcv"]))


def test_folds_as_pairs_or_a_number_score_as_their_test_sets():
    kf = KFold(4, shuffle=True, random_state=0)
    pairs = list(kf.split(X))
    tests = [te for _, te in pairs]
    ref = kfold_residuals(K, Y, 2.0, tests)
    np.testing.assert_array_equal(kfold_residuals(K, Y, 2.0, pairs), ref)
    np.testing.assert_array_equal(gamma_sweep(K, Y, [2.0], criterion="kfold", folds=pairs).scores,
                                  gamma_sweep(K, Y, [2.0], criterion="kfold", folds=tests).scores)
    assert kfold_residuals(K, Y, 2.0, 4).shape == Y.shape          # 4 shuffled folds


def test_good_input_gives_the_same_numbers_as_before():
    """Scalar grids, several target columns and weights keep their meaning."""
    Y2 = np.c_[Y, -Y]
    np.testing.assert_allclose(loo_residuals(K, Y2, 3.0)[:, 1], -loo_residuals(K, Y, 3.0))
    sweep = gamma_sweep(K, Y, 3.0)
    assert sweep.gammas.tolist() == [3.0]
    w = np.linspace(1.0, 2.0, Y.size)
    r = loo_residuals(K, Y, 3.0)
    assert score_residuals(r, Y, "mse", w) == pytest.approx(np.sum(w * r**2) / np.sum(w))
    res = select_gamma_sigma2(X, Y, [1.0, 10.0], 1.0)
    assert res.scores.shape == (1, 2) and res.best_sigma2 == 1.0
