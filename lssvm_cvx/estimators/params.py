"""Constructor parameters checked by scikit-learn's constraint language (issue 30, item 5).

An estimator declares ``_parameter_constraints`` as scikit-learn's own estimators do (a dict
parameter name -> list of accepted types, :class:`~sklearn.utils._param_validation.Interval`,
:class:`~sklearn.utils._param_validation.StrOptions`, ``"boolean"``, ``"random_state"``,
``"cv_object"``, ...) and calls ``validate_params(self, self._parameter_constraints)`` first
thing in ``fit``; a violation is :class:`~lssvm_cvx.exceptions.ParameterConstraintError` with
scikit-learn's message (which names the parameter, the estimator, what is accepted and what
was given): the package's :class:`~lssvm_cvx.exceptions.HyperparameterError` and
scikit-learn's ``InvalidParameterError`` at once, so ``except HyperparameterError`` and
scikit-learn's own parameter check (``sklearn.utils.estimator_checks.check_param_validation``)
both recognise it.  Rules between
parameters (``solver="tikhonov"`` only with ``method="cv"``, ...) stay hand-written beside the
call: the constraint language checks one parameter at a time.

The shared pieces (:data:`POSITIVE`, :data:`KERNEL_PARAMS`, ...) keep one spelling of the
kernel's and the common numeric parameters' rules across estimators.

A grid (``sigma2_grid``, ``mu_grid``, ...) is ``"array-like"`` to scikit-learn, whose language
cannot say "finite values > 0"; an estimator declares those rules beside its constraints, in
``_grid_parameters`` (name -> :class:`Grid`), which it hands :func:`validate_params` too: every
fit, whether or not the configuration searches the grid.  Until the seventeenth session
(2026-11-30) each search checked its own grid where it used it: a string or a ragged list
crashed inside NumPy (``ValueError``), the Auto LS-SVM's messages named its search's ``gamma``
rather than the ``kernel_gamma_grid`` the user set, and a bad grid that the configuration did
not search passed (``tests/test_parameter_fuzz.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)

from ..checks import check_grid
from ..exceptions import ParameterConstraintError

__all__ = ["validate_params", "ParameterConstraintError", "Interval", "StrOptions", "Hidden",
           "Grid", "POSITIVE_GRID", "NONNEGATIVE_GRID", "WEIGHT_GRID", "DEPRECATED", "POSITIVE",
           "NONNEGATIVE", "POSITIVE_INT", "AT_LEAST_TWO", "FRACTION", "FOLDS", "SCORING", "KERNEL_PARAMS"]



#: the default of a deprecated spelling (accepted, left out of the error messages)
DEPRECATED = Hidden(StrOptions({"deprecated"}))
#: a finite real > 0 (NaN and inf fail)
POSITIVE = Interval(Real, 0, math.inf, closed="neither")
#: a finite real >= 0
NONNEGATIVE = Interval(Real, 0, math.inf, closed="left")
#: an integer >= 1
POSITIVE_INT = Interval(Integral, 1, None, closed="left")
#: an integer >= 2
AT_LEAST_TWO = Interval(Integral, 2, None, closed="left")
#: a share strictly between 0 and 1
FRACTION = Interval(Real, 0, 1, closed="neither")
#: a number of folds (>= 2), a scikit-learn splitter or the splits themselves (a list, tuple or
#: iterator of ``(train, test)`` pairs; not None: scikit-learn's ``"cv_object"`` also takes None,
#: which these estimators give no meaning, and not any string)
FOLDS = [AT_LEAST_TWO, HasMethods(["split", "get_n_splits"]), list, tuple, Iterator]
#: ``scoring=``: None, ``"loss"``, a scikit-learn scorer name or a callable; the name itself is
#: checked where it is resolved (:func:`lssvm_cvx.estimators.scoring.resolve_scoring`, whose
#: message suggests the closest scorer name instead of listing all of them)
SCORING = [str, callable, None]
#: the kernel parameters of :class:`lssvm_cvx.estimators.base.KernelMixin` (``kernel``: a name,
#: a :class:`~lssvm_cvx.kernels.Kernel` or any callable; its name is checked by the mixin)
KERNEL_PARAMS: dict[str, list[Any]] = {
    "kernel": [str, callable],
    "sigma2": [POSITIVE],
    "degree": [POSITIVE_INT],
    "t": [NONNEGATIVE],
}


class Grid:
    """The rule of a grid parameter: a non-empty list of finite values ``> 0`` (``allow_zero``:
    ``>= 0``); ``flat``: an array of any shape, flattened (``sigma2_grid``'s historical
    leniency); ``per_key``: a non-empty dict of such grids (``weight_grid``, per term)."""

    def __init__(self, *, allow_zero: bool = False, flat: bool = False, per_key: bool = False):
        self.allow_zero, self.flat, self.per_key = allow_zero, flat, per_key

    def __str__(self) -> str:
        return f"a non-empty list of finite values {'>= 0' if self.allow_zero else '> 0'}"

    def check(self, value: Any, name: str) -> None:
        """Refuse (:class:`ParameterConstraintError`, naming ``name``) a value that breaks the
        rule."""
        if self.per_key:
            self.per_key_values(value, name)
        else:
            self.values(value, name)

    def per_key_values(self, value: Any, name: str) -> dict[Any, np.ndarray]:
        """A ``per_key`` grid ``value`` as ``{key: float vector}``."""
        if not isinstance(value, dict) or not value:
            raise ParameterConstraintError(f"{name} must be a non-empty dict of key -> "
                                           f"{self}, got {value!r}")
        return {k: self.values(v, f"{name}[{k!r}]") for k, v in value.items()}

    def values(self, value: Any, name: str) -> np.ndarray:
        """``value`` as a float vector, else :class:`ParameterConstraintError` naming the
        parameter ``name``."""
        return check_grid(value, name, allow_zero=self.allow_zero, flat=self.flat,
                          error=ParameterConstraintError)


#: a grid of finite values > 0 (a width, γ, a weight searched on a log scale)
POSITIVE_GRID = Grid()
#: a grid of finite values >= 0 (the Auto LS-SVM's μ)
NONNEGATIVE_GRID = Grid(allow_zero=True)
#: term key -> weights >= 0 (the composed estimators' ``weight_grid``)
WEIGHT_GRID = Grid(allow_zero=True, flat=True, per_key=True)


def validate_params(est: Any, constraints: dict[str, list[Any]],
                    grids: dict[str, Grid] | None = None) -> None:
    """Check ``est``'s constructor parameters against ``constraints`` (the estimator passes its
    own ``_parameter_constraints``).

    Parameters
    ----------
    est : estimator
        With ``get_params``.
    constraints : dict of str to list
        scikit-learn's constraints, one entry per constructor parameter.
    grids : dict of str to Grid or None, default=None
        The rules of the grid parameters (the estimator's ``_grid_parameters``).

    Raises
    ------
    ParameterConstraintError
        The first parameter that violates its constraint, with scikit-learn's message (a
        :class:`~lssvm_cvx.exceptions.HyperparameterError`), or a grid that breaks its rule in
        ``grids`` (a value that is None or a string, such as ``"auto"``, is the constraints'
        to judge).
    """
    params = est.get_params(deep=False)
    try:
        validate_parameter_constraints(constraints, params, caller_name=type(est).__name__)
    except InvalidParameterError as exc:
        raise ParameterConstraintError(str(exc)) from None
    for name, rule in (grids or {}).items():
        if params[name] is not None and not isinstance(params[name], str):
            rule.check(params[name], name)
