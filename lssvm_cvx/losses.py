"""Losses ``L(y, f)`` of a composed formulation, with ``f = Kα + b`` at the training points.

Every loss carries optional per-point weights ``s_i ≥ 0`` and has

* :meth:`Loss.epigraph` — its cvxpy form: an objective piece, named constraints and named
  auxiliary variables, written with smooth pieces (a residual ``e == y - f`` or slacks
  ``ξ ≥ 1 - y∘f``) so that KKT stationarity is checkable and the weights ``s`` can be a
  nonnegative cvxpy Parameter (DPP: refits with one weight set to 0 reuse the compilation);
* :meth:`Loss.value` — its NumPy twin.

======================  ===================================  ==============  =====================
loss                    ``L(y, f)``                          task            reference
======================  ===================================  ==============  =====================
:class:`Squared`        ``½ Σ s_i (y_i - f_i)²``             both            LS-SVM, AReg eq. (1)
:class:`SquaredHinge`   ``½ Σ s_i max(0, 1 - y_i f_i)²``     classification  ℓ2-SVM, Bonidal eq. 1
:class:`Hinge`          ``Σ s_i max(0, 1 - y_i f_i)``        classification  the SVM
:class:`Huber`          ``Σ s_i huber(y_i - f_i; M)``        regression      robust regression
:class:`Absolute`       ``Σ s_i |y_i - f_i|``                regression      least absolute dev.
======================  ===================================  ==============  =====================

``huber(r; M) = r²`` for ``|r| ≤ M`` and ``2M|r| - M²`` otherwise (cvxpy's definition).
Classification losses take labels coded ``±1``; :class:`Squared` serves both (the LS-SVM
classifier is the squared loss on ``±1`` targets, AReg paper eq. 57).  Only :class:`Squared`
is quadratic, so only it gives the closed form.
"""

from __future__ import annotations

from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator

from .exceptions import HyperparameterError, InputError

__all__ = ["Loss", "Squared", "SquaredHinge", "Hinge", "Huber", "Absolute", "LOSSES", "make_loss"]

Pieces = tuple[cp.Expression, dict[str, cp.Constraint], dict[str, cp.Variable]]


class Loss(BaseEstimator):
    """Base class: weights ``sample_weight`` (``None`` = all ones) and the two forms."""

    #: ``"regression"``, ``"classification"`` or ``"both"``
    task: ClassVar[str] = "both"
    #: whether the loss is ``½ Σ s_i (y_i - f_i)²`` (closed form, exact LOO)
    squared: ClassVar[bool] = False

    def __init__(self, sample_weight: Any = None):
        self.sample_weight = sample_weight

    def weights(self, n: int) -> np.ndarray:
        """The weights ``s`` as a checked ``(n,)`` array (finite, ``≥ 0``, not all zero)."""
        if self.sample_weight is None:
            return np.ones(n)
        try:
            s = np.asarray(self.sample_weight, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"sample_weight must be numeric: {exc}") from exc
        if s.ndim == 0:
            s = np.full(n, float(s))
        if s.shape != (n,):
            raise InputError(f"sample_weight must have shape ({n},), got {s.shape}")
        if not np.all(np.isfinite(s)) or np.any(s < 0):
            raise InputError("sample_weight must be finite and >= 0")
        if not np.any(s > 0):
            raise InputError("sample_weight is zero everywhere")
        return s

    def check_targets(self, y: np.ndarray) -> None:
        """Classification losses need targets in ``{-1, +1}``."""
        if self.task == "classification" and not np.all(np.isin(y, (-1.0, 1.0))):
            raise InputError(f"{type(self).__name__} is a classification loss: y must be coded "
                             "-1/+1 (the classifier estimators do this)")

    def epigraph(self, y: np.ndarray, f: cp.Expression, s: Any) -> Pieces:
        """``(objective piece, named constraints, named auxiliary variables)``."""
        raise NotImplementedError

    def value(self, y: np.ndarray, f: np.ndarray) -> float:
        """NumPy twin of the loss at fitted values ``f``."""
        raise NotImplementedError


def _weighted_sum(s: Any, v: cp.Expression) -> cp.Expression:
    return cp.sum(cp.multiply(s, v))


class Squared(Loss):
    """``½ Σ s_i (y_i - f_i)²`` with residuals ``e = y - f`` named as in the LS-SVM papers."""

    squared = True

    def epigraph(self, y, f, s):
        e = cp.Variable(y.shape[0], name="e")
        return 0.5 * _weighted_sum(s, cp.square(e)), {"fit": e == y - f}, {"e": e}

    def value(self, y, f):
        r = np.asarray(y) - np.asarray(f)
        return float(0.5 * np.sum(self.weights(r.shape[0]) * r * r))


def _margin_slack(y, f) -> tuple[cp.Variable, dict[str, cp.Constraint]]:
    xi = cp.Variable(y.shape[0], name="xi")
    return xi, {"margin": xi >= 1 - cp.multiply(y, f), "slack": xi >= 0}


class SquaredHinge(Loss):
    """``½ Σ s_i max(0, 1 - y_i f_i)²``: the ℓ2-SVM loss (Bonidal et al. 2013, problem 1)."""

    task = "classification"

    def epigraph(self, y, f, s):
        xi, cons = _margin_slack(y, f)
        return 0.5 * _weighted_sum(s, cp.square(xi)), cons, {"xi": xi}

    def value(self, y, f):
        m = np.maximum(0.0, 1.0 - np.asarray(y) * np.asarray(f))
        return float(0.5 * np.sum(self.weights(m.shape[0]) * m * m))


class Hinge(Loss):
    """``Σ s_i max(0, 1 - y_i f_i)``: the SVM loss."""

    task = "classification"

    def epigraph(self, y, f, s):
        xi, cons = _margin_slack(y, f)
        return _weighted_sum(s, xi), cons, {"xi": xi}

    def value(self, y, f):
        m = np.maximum(0.0, 1.0 - np.asarray(y) * np.asarray(f))
        return float(np.sum(self.weights(m.shape[0]) * m))


class Huber(Loss):
    """``Σ s_i huber(y_i - f_i; M)`` (cvxpy's ``huber``: quadratic inside ``|r| ≤ M``)."""

    task = "regression"

    def __init__(self, M: float = 1.0, sample_weight: Any = None):
        self.M = M
        self.sample_weight = sample_weight

    def _M(self) -> float:
        M = float(self.M)
        if not (np.isfinite(M) and M > 0):
            raise HyperparameterError(f"Huber threshold M must be > 0, got {self.M!r}")
        return M

    def epigraph(self, y, f, s):
        e = cp.Variable(y.shape[0], name="e")
        return _weighted_sum(s, cp.huber(e, self._M())), {"fit": e == y - f}, {"e": e}

    def value(self, y, f):
        r = np.abs(np.asarray(y) - np.asarray(f))
        M = self._M()
        h = np.where(r <= M, r * r, 2 * M * r - M * M)
        return float(np.sum(self.weights(r.shape[0]) * h))


class Absolute(Loss):
    """``Σ s_i |y_i - f_i|``, written as ``-t ≤ y - f ≤ t``."""

    task = "regression"

    def epigraph(self, y, f, s):
        t = cp.Variable(y.shape[0], name="t_fit")
        cons = {"fit_pos": y - f <= t, "fit_neg": f - y <= t}
        return _weighted_sum(s, t), cons, {"t_fit": t}

    def value(self, y, f):
        r = np.abs(np.asarray(y) - np.asarray(f))
        return float(np.sum(self.weights(r.shape[0]) * r))


#: loss names accepted wherever a loss is given as a string
LOSSES: dict[str, type[Loss]] = {"squared": Squared, "squared_hinge": SquaredHinge,
                                 "hinge": Hinge, "huber": Huber, "absolute": Absolute}


def make_loss(loss: Any = None, *, sample_weight: Any = None) -> Loss:
    """A :class:`Loss` from ``None`` (squared), a name in :data:`LOSSES` or a ``Loss``; with
    ``sample_weight`` given, a copy of the loss carrying those weights."""
    if loss is None:
        loss = "squared"
    if isinstance(loss, str):
        if loss not in LOSSES:
            raise HyperparameterError(f"unknown loss {loss!r}; use one of {sorted(LOSSES)} or a "
                                      "lssvm_cvx.losses.Loss")
        obj: Loss = LOSSES[loss]()
    elif isinstance(loss, Loss):
        obj = loss
    else:
        raise HyperparameterError(f"loss must be a name in {sorted(LOSSES)} or a Loss, got {loss!r}")
    if sample_weight is not None:
        obj = obj.set_params(sample_weight=sample_weight) if obj is not loss else \
            type(obj)(**{**obj.get_params(), "sample_weight": sample_weight})
    return obj
