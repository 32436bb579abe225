"""Every parameter of every estimator, set to a bad value (``-1.0``, NaN, ``"bogus"``), is refused
at ``fit`` with an exception of the package's hierarchy that names the parameter — whether or not
the parameter is used by the configuration (scikit-learn validates every parameter at fit).

On a77d71b (2026-11-30) it fails for four estimators: an unknown ``scoring`` of the composed
estimators without a search and an unknown ``solver`` of the componentwise estimators under the
default penalty passed unsaid.  Grids are lists, which these scalar values do not exercise (the
constraint refuses a scalar): :func:`test_every_bad_grid_is_refused_by_name` sets every grid to
bad lists (on 7822ace it fails for 8 of the 11 estimators: a string or a ragged list crashed in
NumPy, the Auto LS-SVM's messages named its search's ``gamma`` instead of ``kernel_gamma_grid``,
and a grid the default configuration does not search passed unchecked)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx.estimators.areg import METHODS as AREG_METHODS
from lssvm_cvx.exceptions import LssvmCvxError, ParameterConstraintError

ESTIMATORS = [n for n in lssvm_cvx.__all__ if n.endswith(("Regressor", "Classifier"))]
BAD = (-1.0, np.nan, "bogus")


def test_the_fuzz_covers_every_estimator():
    assert len(ESTIMATORS) >= 11


def _data(name):
    X = np.random.default_rng(0).uniform(-2, 2, (30, 2))
    y = np.sin(X[:, 0])
    return X, (np.sign(y) if name.endswith("Classifier") else y)


def _not_refused_by_name(fit, name, label):
    """None when ``fit()`` is refused with an exception of the package naming ``name``
    (scikit-learn's constraint message names it); else what happened (``label`` first)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit()
    except ParameterConstraintError:
        return None
    except LssvmCvxError as exc:
        return None if name in str(exc) else (
            f"{label}: {type(exc).__name__} does not name {name}: {exc}")
    except Exception as exc:     # noqa: BLE001 - the point of the test
        return f"{label}: {type(exc).__module__}.{type(exc).__name__}: {exc}"
    return f"{label}: accepted"


def _bad_param(cls, param, value, X, y):
    return _not_refused_by_name(lambda: cls(**{param: value}).fit(X, y), param,
                                f"{param}={value!r}")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_bad_parameter_is_refused_by_name(name):
    X, y = _data(name)
    cls = getattr(lssvm_cvx, name)
    wrong = [_bad_param(cls, param, bad, X, y)
             for param, default in cls().get_params(deep=False).items() for bad in BAD
             if not (isinstance(default, str) and default == bad)]
    assert not any(wrong), "\n".join(w for w in wrong if w)


#: bad grids: a string among numbers, ragged, empty, a value <= 0, NaN
BAD_GRIDS = ([1.0, "a"], [[1.0, 2.0], [3.0]], [], [-1.0, 1.0], [np.nan])


def _grid_params(cls):
    """The parameters holding grids of values > 0 (``weight_grid`` holds them per term)."""
    params = cls().get_params(deep=False)
    return [p for p in params if (p.endswith("_grid") or p == "gammas")
            and params[p] != "deprecated"]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_bad_grid_is_refused_by_name(name):
    """Every grid parameter (``*_grid``, AReg's ``gammas``) set to a bad list is refused at ``fit``
    by name under the default configuration, whether or not that configuration searches it
    (a NumPy ``ValueError`` for a string or a ragged list, or an unused bad grid passing,
    are defects: until the seventeenth session ``sigma2_grid=[1.0, "a"]`` crashed in NumPy and
    the componentwise ``cv_grid`` was checked only where the penalty searched it)."""
    X, y = _data(name)
    cls = getattr(lssvm_cvx, name)
    wrong = [_bad_param(cls, param, {"rkhs": bad} if param == "weight_grid" else bad, X, y)
             for param in _grid_params(cls) for bad in BAD_GRIDS]
    assert not any(wrong), "\n".join(w for w in wrong if w)


@pytest.mark.parametrize("method", AREG_METHODS)
def test_bad_node_gammas_are_refused_under_every_areg_method(method):
    """AReg's ``gammas`` (the Tikhonov ensemble's nodes) is checked whatever the method (until
    the seventeenth session only ``method="ensemble"`` checked it)."""
    X = np.random.default_rng(0).uniform(-2, 2, (30, 2))
    with pytest.raises(LssvmCvxError, match="gammas"):
        lssvm_cvx.AdditiveRegularizationRegressor(method=method, gammas=[1.0, -1.0]).fit(
            X, np.sin(X[:, 0]))


#: bad sample weights (30 samples)
BAD_WEIGHTS = {"negative": -np.ones(30), "one negative": np.r_[-1.0, np.ones(29)],
               "NaN": np.r_[np.nan, np.ones(29)], "inf": np.r_[np.inf, np.ones(29)],
               "all zero": np.zeros(30), "short": np.ones(5), "2-D": np.ones((30, 2)),
               "strings": np.array(["a"] * 30), "a negative scalar": -1.0}


@pytest.mark.parametrize("name", [n for n in ESTIMATORS if "sample_weight" in
                                  inspect.signature(getattr(lssvm_cvx, n).fit).parameters])
def test_every_bad_sample_weight_is_refused_by_name(name):
    """Bad ``sample_weight`` is refused with an exception of the package naming it (until the
    seventeenth session strings crashed in NumPy: ``could not convert string to float``)."""
    X, y = _data(name)
    cls = getattr(lssvm_cvx, name)
    wrong = [_not_refused_by_name(lambda sw=sw: cls().fit(X, y, sample_weight=sw),
                                  "sample_weight", label) for label, sw in BAD_WEIGHTS.items()]
    assert not any(wrong), "\n".join(w for w in wrong if w)
