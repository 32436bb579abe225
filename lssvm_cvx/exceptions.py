"""One exception root for the whole package.

Every error the package raises on purpose derives from :class:`LssvmCvxError`, so callers can
catch the package's errors with one ``except`` clause.  Errors about the *input* (data,
labels, hyperparameters, kernel matrices) also derive from :class:`ValueError`, and errors
about a *computation* (a solver that failed or returned an inaccurate point) from
:class:`RuntimeError`, so code written against the standard exceptions keeps working.

Hierarchy::

    LssvmCvxError
    ├── InputError (ValueError)            bad data: NaN/inf, empty, shapes, one sample
    │   ├── InputTypeError (TypeError)     input of an unconvertible type (an object array of dicts)
    │   ├── LabelError                     labels: one class, more than two where binary
    │   ├── HyperparameterError            gamma <= 0, sigma2 <= 0, unknown option, ...
    │   │   └── ParameterConstraintError   an estimator parameter outside its _parameter_constraints
    │   ├── NotPSDError                    a kernel matrix that is not PSD within tolerance
    │   ├── TermError                      a term or loss that breaks the composition contract
    │   └── SavedFileError                 a model/results file that is missing, corrupt, tampered, too new
    ├── SolverError (RuntimeError)         a solver failed or was inaccurate (carries status)
    ├── SolverNotAvailableError            a named solver is not installed
    ├── NumericalError (ArithmeticError)   a fit produced NaN or inf
    └── NotSupportedError (NotImplementedError)  e.g. closed form of a QP with inequalities

``Interrupted`` (a :class:`KeyboardInterrupt`, not an error) carries what finished when Ctrl-C
stops ``compare``, ``sweep`` or a benchmark.

Warnings derive from :class:`LssvmCvxWarning`; :class:`ConditioningWarning` is emitted when a
linear system is nearly singular (the solve still happens and the estimate of the condition
number is in the message).
"""

from __future__ import annotations

__all__ = [
    "LssvmCvxError",
    "InputError",
    "InputTypeError",
    "LabelError",
    "HyperparameterError",
    "ParameterConstraintError",
    "NotPSDError",
    "TermError",
    "SavedFileError",
    "SolverError",
    "SolverNotAvailableError",
    "NotSupportedError",
    "NotFittedError",
    "LssvmCvxWarning",
    "ConditioningWarning",
    "NumericalError",
    "Interrupted",
    "user_code",
]

import contextlib
from collections.abc import Iterator

from sklearn.exceptions import NotFittedError as _SkNotFittedError
from sklearn.utils._param_validation import InvalidParameterError as _SkInvalidParameterError


class LssvmCvxError(Exception):
    """Root of every exception raised on purpose by :mod:`lssvm_cvx`."""


class InputError(LssvmCvxError, ValueError):
    """Invalid input data (non-finite values, empty arrays, inconsistent shapes, ...)."""


class InputTypeError(InputError, TypeError):
    """Input of a type that cannot be converted (an object array holding dicts, ...): an
    :class:`InputError` that is also the ``TypeError`` scikit-learn's conventions expect."""


class LabelError(InputError):
    """Invalid class labels (a single class, or more than two classes where binary)."""


class HyperparameterError(InputError):
    """A hyperparameter outside its domain (e.g. ``gamma <= 0``) or an unknown option."""


class ParameterConstraintError(HyperparameterError, _SkInvalidParameterError):
    """An estimator's constructor parameter outside its ``_parameter_constraints`` (raised by
    :func:`lssvm_cvx.estimators.params.validate_params` with scikit-learn's message; caught by
    ``except HyperparameterError`` and by scikit-learn's ``InvalidParameterError``)."""


class NotPSDError(InputError):
    """A kernel matrix that is not symmetric positive semi-definite within tolerance."""


class TermError(InputError):
    """A term or loss of a composed formulation breaks its contract: a ``quadratic`` matrix that
    is not symmetric PSD or has the wrong shape, a cvxpy expression that is not convex (DCP) or
    not DPP, a NumPy twin that disagrees with its expression, or an exception raised inside the
    user's ``quadratic``/``expr``/``value``/``epigraph`` (then the original exception is the
    ``__cause__``).  The message names the term or loss and the method."""


class SavedFileError(InputError):
    """A saved model or benchmark-results file that cannot be used: missing, unreadable, empty,
    truncated, corrupt, tampered with, or written by a newer format.  ``path`` and ``field``
    (the header entry or fitted attribute at fault, or ``"file"``) are in the message."""

    def __init__(self, message: str, *, path: object = None, field: str | None = None):
        where = ": ".join(str(x) for x in (path, field) if x is not None)
        super().__init__(f"{where}: {message}" if where else message)
        self.path = path
        self.field = field


class SolverError(LssvmCvxError, RuntimeError):
    """A numerical solve failed or returned an inaccurate point.

    Parameters
    ----------
    message :
        What went wrong.
    solver :
        The solver's name (``"CLARABEL"``, ``"closed_form"``, ...).
    status :
        The status the solver reported (cvxpy's status string where available).
    """

    def __init__(self, message: str, *, solver: str | None = None, status: str | None = None):
        details = ", ".join(
            f"{k}={v!r}" for k, v in (("solver", solver), ("status", status)) if v is not None
        )
        super().__init__(f"{message} ({details})" if details else message)
        self.solver = solver
        self.status = status


class NumericalError(LssvmCvxError, ArithmeticError):
    """A computation produced NaN or inf (e.g. a fit on targets whose scale double precision
    cannot square); the message names the quantity and the likely cause."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during ``compare``, ``sweep`` or a benchmark: a :class:`KeyboardInterrupt` (so it
    stops whatever runs it) that carries what finished (``partial``: the harness report, or the
    sweep's result after its files were written)."""

    def __init__(self, message: str = "interrupted", partial: object = None):
        super().__init__(message)
        self.partial = partial


class SolverNotAvailableError(LssvmCvxError, ValueError):
    """A solver was requested by name but is not installed (or unknown to cvxpy)."""


class NotSupportedError(LssvmCvxError, NotImplementedError):
    """The requested operation does not exist for this formulation (e.g. no closed form)."""


class NotFittedError(LssvmCvxError, _SkNotFittedError):
    """An estimator method that needs a fitted model was called before ``fit``."""


class LssvmCvxWarning(UserWarning):
    """Root of the warnings emitted by :mod:`lssvm_cvx`."""


class ConditioningWarning(LssvmCvxWarning):
    """A linear system is nearly singular; the result may have lost accuracy."""


@contextlib.contextmanager
def user_code(label: str, method: str) -> Iterator[None]:
    """Run user-supplied code (a term's or loss's method) and turn any exception that is not
    the package's own into a :class:`TermError` naming ``label`` and ``method``, with the
    original as ``__cause__``.

    Parameters
    ----------
    label : str
        The term or loss, e.g. ``"term 'smooth' (KNNSmoothness)"``.
    method : str
        The method being called, e.g. ``"quadratic"``.

    Yields
    ------
    None
        The block runs with the guard in place.
    """
    try:
        yield
    except LssvmCvxError:
        raise
    except Exception as exc:
        raise TermError(f"{label}: {method}() raised {type(exc).__name__}: {exc}") from exc
