"""The LS-SVM's closed-form selection functions (``lssvm_cvx.model_selection``) refuse bad
input by name with the package's exceptions (eighteenth session, 2026-11-30).

Before, on e51cfea: a Gram that is not an array reached ``AttributeError`` (``.shape``),
targets of strings or of the wrong length NumPy's ``ValueError`` or ``IndexError``, a ragged
γ or σ² grid NumPy's ``ValueError`` and a 2-D one was searched row by row, folds that are not
a list a ``TypeError``, an array for ``criterion`` or ``score`` NumPy's "truth value of an
array is ambiguous", and bad ``score_residuals`` weights NumPy's shape error.
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
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_bad_input_is_refused_by_the_package(call):
    for label, bad in BAD.items():
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
    with pytest.raises(LssvmCvxError, match="^unknown criterion"):
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
