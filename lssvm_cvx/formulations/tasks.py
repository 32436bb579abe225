"""The task of a formulation: regression or classification, in one place (issue 30, step 3).

A paper's classifier is its regression formulation with the targets coded ±1 (AReg paper
Appendix A, the componentwise paper eq. 15-17, the Auto LS-SVM note §1.1 item 1b): the task is
an instance attribute ``task`` of the regression class, read by its hooks (targets, Gram block,
border, right-hand side; :class:`~lssvm_cvx.formulations.lssvm.KernelFormulation`), and
:func:`task_targets` is the one place where formulations code labels (through
:func:`lssvm_cvx.checks.binary_labels`).

The registry (:data:`lssvm_cvx.formulations.FORMULATIONS`) maps names to classes, so each
classifier name (``lssvm_classifier``, ``areg_classifier_cv``, ...) holds a *preset*: the
class :func:`classifier_preset` generates from the regression class with ``task`` defaulting
to ``"classification"``, the classifier's registry name, reference and docstring, and no
body of its own (``LSSVMClassification(X, y)`` is ``LSSVM(X, y, task="classification")``
with the classifier's name).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from ..checks import as_targets, binary_labels, check_option
from ..exceptions import HyperparameterError, InputError, NotSupportedError
from .base import Formulation, Reference

__all__ = ["TASKS", "check_task", "task_targets", "task_method", "classifier_preset",
           "PRESET_KEYS"]

#: the tasks a formulation's hooks know
TASKS = ("regression", "classification")
#: the class attributes a preset sets (nothing else: no methods)
PRESET_KEYS = frozenset({"__module__", "__qualname__", "__doc__", "name", "reference",
                         "default_task", "preset_of"})

F = TypeVar("F", bound=Formulation)
M = TypeVar("M", bound=Callable[..., Any])


def check_task(task: Any) -> str:
    """``task`` when it is one of :data:`TASKS`, else :class:`HyperparameterError`.

    Parameters
    ----------
    task : str
        ``"regression"`` or ``"classification"``.

    Returns
    -------
    str
        The task.
    """
    return check_option(task, TASKS, "task")


def task_targets(y: Any, n: int, task: str, *, classes: Any = None,
                 name: str = "y") -> tuple[np.ndarray, np.ndarray | None]:
    """The validated targets of a task: ``y`` (regression) or the labels coded ±1.

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets or labels.
    n : int
        The number of entries ``y`` must have.
    task : str
        ``"regression"`` or ``"classification"``.
    classes : array-like of shape (2,) or None, default=None
        The training classes (to code a validation set with them); None: the two labels of
        ``y`` (sorted, the first is -1).
    name : str, default="y"
        The argument's name in error messages.

    Returns
    -------
    targets : numpy.ndarray of shape (n,)
        Float targets, or ±1 labels.
    classes : numpy.ndarray of shape (2,) or None
        The original labels (classification), None for regression.
    """
    if check_task(task) == "regression":
        return as_targets(y, n, name=name), None
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InputError(f"{name} must be 1-D with {n} entries, got shape {arr.shape}")
    return binary_labels(arr, classes, name=name)


def task_method(task: str) -> Callable[[M], M]:
    """Mark a method as one task's (a classifier's ``decision_function``, a regression's
    ``predict``): on an instance of the other task it raises :class:`NotSupportedError`, and
    the catalogue (``lssvm-cvx formulations``) lists it only for the classes of ``task``.

    Parameters
    ----------
    task : str
        ``"regression"`` or ``"classification"``.

    Returns
    -------
    callable
        The decorator; the method it returns has ``only_task = task``.
    """
    check_task(task)

    def mark(fn: M) -> M:
        @functools.wraps(fn)
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self.task != task:
                raise NotSupportedError(f"{self.name}: {fn.__name__} is the {task} task's "
                                        f"(this instance has task={self.task!r})")
            return fn(self, *args, **kwargs)

        method.only_task = task  # type: ignore[attr-defined]
        return cast(M, method)

    return mark


def classifier_preset(base: type[F], qualname: str, *, name: str, reference: Reference,
                      doc: str) -> type[F]:
    """The registered classifier of the regression formulation ``base``.

    A generated subclass whose only attributes are its registry ``name``, ``reference``,
    docstring and ``default_task = "classification"`` (so ``cls(X, y, ...)`` is
    ``base(X, y, ..., task="classification")``); every method, ``random_instance`` included,
    is ``base``'s, reading the instance's ``task``.  Assign it to ``qualname`` in ``base``'s
    module (pickling and the documentation find it there).

    Parameters
    ----------
    base : type
        A regression formulation with a ``default_task`` of ``"regression"``.
    qualname : str
        The class name (``"LSSVMClassification"``).
    name : str
        The registry name (``"lssvm_classifier"``).
    reference : Reference
        The classifier's equations.
    doc : str
        Its docstring.

    Returns
    -------
    type
        The preset class.
    """
    if getattr(base, "default_task", None) != "regression":
        raise HyperparameterError(f"{base.__name__} is not a regression formulation with a task")
    attrs = {"__module__": base.__module__, "__qualname__": qualname, "__doc__": doc,
             "name": name, "reference": reference, "default_task": "classification",
             "preset_of": base}
    return cast("type[F]", type(qualname, (base,), attrs))
