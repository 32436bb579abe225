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
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from numbers import Integral, Real
from typing import Any

from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)

from ..exceptions import ParameterConstraintError

__all__ = ["validate_params", "ParameterConstraintError", "Interval", "StrOptions", "Hidden",
           "DEPRECATED", "POSITIVE",
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


def validate_params(est: Any, constraints: dict[str, list[Any]]) -> None:
    """Check ``est``'s constructor parameters against ``constraints`` (the estimator passes its
    own ``_parameter_constraints``).

    Parameters
    ----------
    est : estimator
        With ``get_params``.
    constraints : dict of str to list
        scikit-learn's constraints, one entry per constructor parameter.

    Raises
    ------
    ParameterConstraintError
        The first parameter that violates its constraint, with scikit-learn's message (a
        :class:`~lssvm_cvx.exceptions.HyperparameterError`).
    """
    try:
        validate_parameter_constraints(constraints, est.get_params(deep=False),
                                       caller_name=type(est).__name__)
    except InvalidParameterError as exc:
        raise ParameterConstraintError(str(exc)) from None
