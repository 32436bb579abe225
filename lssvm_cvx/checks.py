"""Input checks shared by formulations and estimators.

They delegate to scikit-learn's ``check_array``/``check_X_y`` (which already say what is wrong:
NaN, inf, empty, one sample, wrong dimension) and re-raise as the package's
:class:`~lssvm_cvx.exceptions.InputError` so callers see one exception hierarchy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from numbers import Integral
from typing import Any, TypeVar

import numpy as np
from sklearn.utils import check_array

from .exceptions import HyperparameterError, InputError, LabelError, LssvmCvxError

__all__ = ["as_float64", "as_matrix", "as_gram", "as_targets", "check_same_features", "check_sample_weight",
           "binary_labels", "encode_labels",
           "check_gamma", "check_number", "check_positive", "check_integer", "check_grid", "check_option",
           "named_message"]


def named_message(name: str, exc: BaseException) -> str:
    """``str(exc)``, prefixed with ``name + ": "`` unless it already names the argument."""
    msg = str(exc)
    return msg if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", msg) else f"{name}: {msg}"


def as_float64(value: Any, name: str, *, finite: bool = False, copy: bool | None = None,
               error: type[LssvmCvxError] = InputError) -> np.ndarray:
    """``value`` as a float64 array of any shape (``finite``: without NaN or inf), else
    ``error`` naming ``name``: the one rule of "numbers, not a string or a ragged list".

    Until the twenty-fifth session (2026-12-06) each of its callers (the sample weights, the
    design and penalties of :class:`~lssvm_cvx.linalg.penalized.PenalizedLS`, the bordered
    system's Ω, the loss weights, the Pareto NLP's inputs) wrote the ``try`` itself.

    Parameters
    ----------
    value : array-like
        The numbers.
    name : str
        The argument's name, for the message.
    finite : bool, default=False
        Refuse NaN and inf too.
    copy : bool or None, default=None
        As :func:`numpy.array`'s ``copy`` (``None``: only when the conversion needs one).
    error : type, default=InputError
        The exception raised.

    Returns
    -------
    numpy.ndarray
    """
    try:
        a = np.array(value, dtype=np.float64, copy=copy)
    except (TypeError, ValueError):         # strings, a ragged list: not NumPy's message
        raise error(f"{name} must be numbers, got a {type(value).__name__}") from None
    if finite and not np.all(np.isfinite(a)):
        raise error(f"{name} must be finite (NaN or inf found)")
    return a


def as_matrix(X: Any, *, name: str = "X", min_samples: int = 1) -> np.ndarray:
    """2-D float64 array with finite entries and at least ``min_samples`` rows."""
    try:
        return check_array(X, dtype=np.float64, ensure_min_samples=min_samples, input_name=name)
    except (ValueError, TypeError) as exc:
        raise InputError(named_message(name, exc)) from exc


def as_gram(K: Any, *, name: str = "Omega", finite: bool = True, min_samples: int = 2
            ) -> np.ndarray:
    """A given (precomputed) Gram as a square float64 matrix of at least ``min_samples`` rows
    with finite entries (``finite=False``: not checked, for a Gram the package computed from
    checked inputs); else :class:`InputError` naming it.  Until the eighteenth session (2026-11-30)
    the formulations read a given Gram with ``np.asarray(K, dtype=np.float64)``: a string or a
    ragged list crashed inside NumPy and a scalar reached an ``IndexError``."""
    try:
        K = check_array(K, dtype=np.float64, ensure_min_samples=min_samples,
                        ensure_min_features=min(min_samples, 1), ensure_all_finite=finite,
                        input_name=name)
    except (ValueError, TypeError) as exc:
        raise InputError(named_message(name, exc)) from exc
    if K.shape[0] != K.shape[1]:
        raise InputError(f"{name} must be a square matrix, got shape {K.shape}")
    return K


def as_targets(y: Any, n: int | None, *, name: str = "y", columns: bool = False) -> np.ndarray:
    """Float64 targets with finite entries: a vector of length ``n`` (any length for None; a
    single column is flattened), or with ``columns`` of shape ``(n,)`` or ``(n, T)`` (several
    target columns that share a factorisation); else :class:`InputError` naming ``name``."""
    try:
        y = check_array(y, dtype=np.float64, ensure_2d=False, input_name=name)
    except (ValueError, TypeError) as exc:
        raise InputError(named_message(name, exc)) from exc
    if columns:
        if y.ndim not in (1, 2) or (n is not None and y.shape[0] != n):
            raise InputError(f"{name} must have shape ({n or 'N'},) or ({n or 'N'}, T), got {y.shape}")
        return y
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {y.shape}")
    if n is not None and y.shape[0] != n:
        raise InputError(f"{name} has {y.shape[0]} entries but X has {n} samples")
    return y


def check_sample_weight(sample_weight: Any, n: int, *, min_positive: int = 1) -> np.ndarray:
    """``sample_weight`` as ``n`` finite float64 weights ``>= 0`` (a scalar is broadcast), at
    least ``min_positive`` of them ``> 0``; else :class:`InputError`.  The one rule of a loss's
    weights (:meth:`lssvm_cvx.losses.Loss.weights`, ``min_positive=1``) and of an estimator's
    ``fit(..., sample_weight=...)`` (``min_positive=2``: a fit needs two points); until the
    twenty-fourth session each wrote it.  ``None`` is the caller's to interpret.

    Parameters
    ----------
    sample_weight : float or array-like of shape (n,)
        The weights.
    n : int
        The number of observations.
    min_positive : int, default=1
        The fewest weights that must be positive.

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    w = as_float64(sample_weight, "sample_weight")
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise InputError(f"sample_weight must have shape ({n},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InputError("sample_weight must be finite and >= 0")
    k = int(np.count_nonzero(w > 0))
    if k < min_positive:
        raise InputError(("sample_weight is zero everywhere" if k == 0 else
                          f"sample_weight is zero for all but {k} samples")
                         + (f"; at least {min_positive} need a positive weight"
                            if min_positive > 1 else ""))
    return w


def check_same_features(X: np.ndarray, n_features: int, *, name: str = "X") -> None:
    """Raise `InputError` unless ``X`` has ``n_features`` columns."""
    if X.shape[1] != n_features:
        raise InputError(f"{name} has {X.shape[1]} features, but the model was built with {n_features}")


def binary_labels(y: Any, classes: Any = None, *, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Map two labels to ``{-1, +1}`` (sorted order: the first class is -1): the package's one
    ±1 coder (multi-class one-vs-rest coding: :func:`encode_labels`).

    Returns ``(y_pm, classes)``.  Without ``classes`` there must be exactly two distinct labels
    (:class:`LabelError` for one or more than two); with ``classes`` (the two training classes,
    e.g. to code a validation set) every label must be one of them.
    """
    try:
        y = np.asarray(y)
    except (TypeError, ValueError):             # a ragged list
        raise InputError(f"{name} must be a 1-D array of labels, got {type(y).__name__}") from None
    if y.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {y.shape}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise InputError(f"{name} contains NaN or inf")
    if classes is not None:
        classes = np.asarray(classes)
        bad = ~np.isin(y, classes)
        if bad.any():
            raise LabelError(f"{name} has labels {np.unique(y[bad]).tolist()[:5]} outside the two "
                             f"training classes {classes.tolist()}")
        return np.where(y == classes[1], 1.0, -1.0), classes
    classes, inv = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise LabelError(f"{name} has only 1 class ({classes.tolist()}); a binary formulation "
                         "needs exactly two classes")
    if classes.size > 2:
        raise LabelError(
            f"{name} has {classes.size} classes; this binary formulation needs exactly two classes "
            "(the estimators handle more with one-vs-rest or one-vs-one)"
        )
    return np.where(inv == 1, 1.0, -1.0), classes


def encode_labels(y: np.ndarray, *, binary: bool = False, model: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Classes and the ±1 coding of classification targets ``y`` (the estimators' coder).

    Returns ``(classes, Y)``: ``Y`` is a vector (``classes[1]`` is +1, as in
    :func:`binary_labels`) for two classes and an (n, C) one-vs-rest ±1 matrix for more.
    ``binary=True``: more than two classes raise :class:`LabelError` with scikit-learn's wording
    ("Only binary classification is supported"), naming ``model``.
    """
    from sklearn.utils.multiclass import check_classification_targets

    try:
        check_classification_targets(y)
    except ValueError as exc:
        hint = (" (labels must be all numbers or all strings; None and mixed types have no "
                "order)") if "unknown" in str(exc) else ""
        raise LabelError(f"y: {exc}{hint}") from exc
    classes, yi = np.unique(y, return_inverse=True)
    C = classes.size
    if C < 2:
        raise LabelError(f"y has only 1 class ({classes.tolist()}); a classifier needs two")
    if binary and C != 2:
        raise LabelError(f"Only binary classification is supported: y has {C} classes "
                         f"{classes.tolist()[:5]}, and {model or 'this model'} needs exactly two")
    if C == 2:
        return classes, np.where(yi == 1, 1.0, -1.0)
    return classes, np.where(yi[:, None] == np.arange(C)[None, :], 1.0, -1.0)


def check_positive(value: Any, name: str, *, allow_zero: bool = False,
                   error: type[LssvmCvxError] = HyperparameterError) -> float:
    """``float(value)`` if it is a finite number > 0 (``allow_zero``: >= 0; not a bool or a
    string), else ``error`` (default :class:`HyperparameterError`) naming ``name``."""
    bound = ">= 0" if allow_zero else "> 0"
    v = check_number(value, name, error=error, bound=bound)
    if v < 0 or (v == 0 and not allow_zero):
        raise error(f"{name} must be a finite number {bound}, got {value!r}")
    return v


def check_number(value: Any, name: str, *, error: type[LssvmCvxError] = HyperparameterError,
                 bound: str = "") -> float:
    """``float(value)`` if it is one finite real number (not a bool, a string or an array),
    else ``error`` naming ``name`` (``bound``, e.g. ``"> 0"``, is added to the message)."""
    what = f"number {bound}".rstrip()
    try:
        if isinstance(value, (bool, np.bool_, str, bytes)) or np.ndim(value) > 0:
            raise ValueError  # a ragged list raises it in np.ndim
        v = float(value)
    except (TypeError, ValueError):
        raise error(f"{name} must be a {what}, got {value!r}") from None
    if not np.isfinite(v):
        raise error(f"{name} must be a finite {what}, got {value!r}")
    return v


def check_integer(value: Any, name: str, *, low: int = 1,
                  error: type[LssvmCvxError] = HyperparameterError) -> int:
    """``int(value)`` if it is an integer ``>= low`` (a Python or NumPy integer, not a bool
    and not a float such as ``1.5`` or ``2.0``), else ``error`` naming ``name``: the one rule of
    a count (a degree, a number of neighbours, of iterations, a block size).

    Until the nineteenth session (2026-11-30) the rule was written at ten places, one of
    which took ``True`` for 1 (the GNC fit's iteration counts), and the graph terms cast
    ``n_neighbors`` with ``int()`` (``1.5`` silently became 1, a string or an array crashed
    inside the term).
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < low:
        raise error(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_grid(values: Any, name: str, *, allow_zero: bool = False, flat: bool = False,
               error: type[HyperparameterError] = HyperparameterError) -> np.ndarray:
    """``values`` as a non-empty float vector of finite numbers ``> 0`` (``allow_zero``:
    ``>= 0``), else ``error`` naming ``name``: the one rule of a list of candidate values (an
    estimator's grid, a weight's path, a search's grid), each caller naming its own parameter.

    Parameters
    ----------
    values : array-like
        The values.
    name : str
        What the message calls them (``"sigma2_grid"``, ``"the values of term 'rkhs'"``).
    allow_zero : bool, default=False
        Accept ``0``.
    flat : bool, default=False
        Accept any shape (a scalar too), flattened; else a 1-D list is required.
    error : type, default=HyperparameterError
        The exception raised (a subclass of :class:`HyperparameterError`).

    Returns
    -------
    numpy.ndarray of shape (k,)
        The values, in the given order.
    """
    try:                                        # booleans, complex, strings, dates: none
        g = np.asarray(values)
        g = np.zeros(0) if g.dtype.kind in "bcSUVmM" else np.asarray(g, dtype=np.float64)
    except (TypeError, ValueError):             # a ragged list
        g = np.zeros(0)
    if flat:
        g = g.reshape(-1)
    if g.ndim != 1 or g.size == 0 or not np.all(
            np.isfinite(g) & ((g >= 0) if allow_zero else (g > 0))):
        raise error(f"{name} must be a non-empty list of finite values "
                    f"{'>= 0' if allow_zero else '> 0'}, got {values!r}")
    return g


_Name = TypeVar("_Name", bound="str | None")


def check_option(value: Any, options: Iterable[_Name], name: str, *,
                 error: type[LssvmCvxError] = HyperparameterError) -> _Name:
    """``value`` if it is one of ``options`` (names, and None where None is one), else
    ``error`` naming ``name``: the one rule of an option given by name.  The option returned
    is the entry of ``options`` (a ``str``, where ``value`` may be a ``numpy.str_``).

    Until the nineteenth session (2026-11-30) some thirty sites wrote ``value not in NAMES``,
    which a NumPy array answers with NumPy's "truth value of an array is ambiguous"
    (``tests/test_formulation_fuzz.py``); an unhashable value raised a ``TypeError`` where the
    names were a set or a dict.
    """
    opts = tuple(options)
    if (value is None or isinstance(value, str)) and value in opts:
        return opts[opts.index(value)]
    raise error(f"{name} must be one of {opts}, got {value!r}")


def check_gamma(gamma: Any, n: int | None = None, *, name: str = "gamma") -> float | np.ndarray:
    """γ > 0 as a float, or a vector of ``n`` positive weights (weighted LS-SVM)."""
    try:                        # not as_float64: a hyperparameter's message names its range
        g = np.asarray(gamma, dtype=np.float64)
    except (TypeError, ValueError):
        raise HyperparameterError(f"{name} must be a number > 0, got {gamma!r}") from None
    if g.ndim == 0:
        if not np.isfinite(g) or g <= 0:
            raise HyperparameterError(f"{name} must be a finite number > 0, got {gamma!r}")
        return float(g)
    if g.ndim != 1 or (n is not None and g.shape[0] != n):
        raise HyperparameterError(f"{name} must be a scalar or a vector of {n} weights, got shape {g.shape}")
    if not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise HyperparameterError(f"every entry of {name} must be finite and > 0")
    return g
