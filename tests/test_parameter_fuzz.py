"""Every parameter of every estimator, set to a bad value (``-1.0``, NaN, ``"bogus"``), is refused
at ``fit`` with an exception of the package's hierarchy that names the parameter — whether or not
the parameter is used by the configuration (scikit-learn validates every parameter at fit).

On a77d71b (2026-11-30) it fails for four estimators: an unknown ``scoring`` of the composed
estimators without a search and an unknown ``solver`` of the componentwise estimators under the
default penalty passed unsaid.  Grids are lists, which these scalar values do not exercise (the
constraint refuses a scalar): bad grid values are ``tests/test_one_estimator.py``'s and
``tests/test_componentwise_defaults.py``'s, under configurations that search them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx.exceptions import LssvmCvxError, ParameterConstraintError

ESTIMATORS = [n for n in lssvm_cvx.__all__ if n.endswith(("Regressor", "Classifier"))]
BAD = (-1.0, np.nan, "bogus")


def test_the_fuzz_covers_every_estimator():
    assert len(ESTIMATORS) >= 11


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_bad_parameter_is_refused_by_name(name):
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (30, 2))
    y = np.sin(X[:, 0])
    target = np.sign(y) if name.endswith("Classifier") else y
    cls = getattr(lssvm_cvx, name)
    wrong = []
    for param, default in cls().get_params(deep=False).items():
        for bad in BAD:
            if isinstance(default, str) and default == bad:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cls(**{param: bad}).fit(X, target)
            except ParameterConstraintError:
                continue                 # scikit-learn's constraint message names it
            except LssvmCvxError as exc:
                if param not in str(exc):
                    wrong.append(f"{param}={bad!r}: {type(exc).__name__} does not name it: {exc}")
            except Exception as exc:     # noqa: BLE001 - the point of the test
                wrong.append(f"{param}={bad!r}: {type(exc).__module__}.{type(exc).__name__}: {exc}")
            else:
                wrong.append(f"{param}={bad!r}: accepted")
    assert not wrong, "\n".join(wrong)
