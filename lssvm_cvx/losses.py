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

import copy
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator

from .checks import check_positive, check_sample_weight
from .exceptions import HyperparameterError, InputError, TermError, user_code

__all__ = ["Loss", "Squared", "SquaredHinge", "Hinge", "Huber", "Absolute", "LOSSES", "make_loss",
           "loss_pieces", "probe_weights"]

Pieces = tuple[cp.Expression, dict[str, cp.Constraint], dict[str, cp.Variable]]


class Loss(BaseEstimator):
    """Base class: weights ``sample_weight`` (``None`` = all ones) and the two forms.

    Parameters
    ----------
    sample_weight : array-like of shape (N,), float or None, default=None
        Weights ``s_i ≥ 0`` of the observations in the loss (``None``: all ones).
    """

    #: ``"regression"``, ``"classification"`` or ``"both"``
    task: ClassVar[str] = "both"
    #: whether the loss is ``½ Σ s_i (y_i - f_i)²`` (closed form, exact LOO)
    squared: ClassVar[bool] = False

    def __init__(self, sample_weight: Any = None):
        self.sample_weight = sample_weight

    def weights(self, n: int) -> np.ndarray:
        """The weights ``s`` as a checked ``(n,)`` array (finite, ``≥ 0``, not all zero).

        Parameters
        ----------
        n : int
            Number of observations.

        Returns
        -------
        numpy.ndarray of shape (n,)
            The weights.
        """
        if self.sample_weight is None:
            return np.ones(n)
        return check_sample_weight(self.sample_weight, n)

    def check_targets(self, y: np.ndarray) -> None:
        """Classification losses need targets in ``{-1, +1}``.

        Parameters
        ----------
        y : numpy.ndarray of shape (N,)
            Targets.
        """
        if self.task == "classification" and not np.all(np.isin(y, (-1.0, 1.0))):
            raise InputError(f"{type(self).__name__} is a classification loss: y must be coded "
                             "-1/+1 (the classifier estimators do this)")

    def epigraph(self, y: np.ndarray, f: cp.Expression, s: Any) -> Pieces:
        """``(objective piece, named constraints, named auxiliary variables)``.

        Parameters
        ----------
        y : numpy.ndarray of shape (N,)
            Targets.
        f : cvxpy.Expression of shape (N,)
            Fitted values ``Kα + b`` (affine in the variables).
        s : array-like of shape (N,) or cvxpy.Parameter
            Observation weights.

        Returns
        -------
        tuple
            ``(cvxpy.Expression, dict[str, cvxpy.Constraint], dict[str, cvxpy.Variable])``.
        """
        raise NotImplementedError

    def value(self, y: np.ndarray, f: np.ndarray) -> float:
        """NumPy twin of the loss at fitted values ``f``.

        Parameters
        ----------
        y : numpy.ndarray of shape (N,)
            Targets.
        f : numpy.ndarray of shape (N,)
            Fitted values.

        Returns
        -------
        float
            The weighted loss.
        """
        raise NotImplementedError


def _weighted_sum(s: Any, v: cp.Expression) -> cp.Expression:
    return cp.sum(cp.multiply(s, v))


class Squared(Loss):
    """``½ Σ s_i (y_i - f_i)²`` with residuals ``e = y - f`` named as in the LS-SVM papers.

    Parameters
    ----------
    sample_weight : array-like of shape (N,), float or None, default=None
        Weights of the observations (``None``: all ones).
    """

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
    """``½ Σ s_i max(0, 1 - y_i f_i)²``: the ℓ2-SVM loss (Bonidal et al. 2013, problem 1).

    Parameters
    ----------
    sample_weight : array-like of shape (N,), float or None, default=None
        Weights of the observations (``None``: all ones).
    """

    task = "classification"

    def epigraph(self, y, f, s):
        xi, cons = _margin_slack(y, f)
        return 0.5 * _weighted_sum(s, cp.square(xi)), cons, {"xi": xi}

    def value(self, y, f):
        m = np.maximum(0.0, 1.0 - np.asarray(y) * np.asarray(f))
        return float(0.5 * np.sum(self.weights(m.shape[0]) * m * m))


class Hinge(Loss):
    """``Σ s_i max(0, 1 - y_i f_i)``: the SVM loss.

    Parameters
    ----------
    sample_weight : array-like of shape (N,), float or None, default=None
        Weights of the observations (``None``: all ones).
    """

    task = "classification"

    def epigraph(self, y, f, s):
        xi, cons = _margin_slack(y, f)
        return _weighted_sum(s, xi), cons, {"xi": xi}

    def value(self, y, f):
        m = np.maximum(0.0, 1.0 - np.asarray(y) * np.asarray(f))
        return float(np.sum(self.weights(m.shape[0]) * m))


class Huber(Loss):
    """``Σ s_i huber(y_i - f_i; M)`` (cvxpy's ``huber``: quadratic inside ``|r| ≤ M``).

    Parameters
    ----------
    M : float, default=1.0
        Threshold ``M > 0`` between the quadratic and the linear parts.
    sample_weight : array-like of shape (N,), float or None, default=None
        Weights of the observations (``None``: all ones).
    """

    task = "regression"

    def __init__(self, M: float = 1.0, sample_weight: Any = None):
        self.M = M
        self.sample_weight = sample_weight

    def _M(self) -> float:
        return check_positive(self.M, "Huber threshold M")

    def epigraph(self, y, f, s):
        e = cp.Variable(y.shape[0], name="e")
        return _weighted_sum(s, cp.huber(e, self._M())), {"fit": e == y - f}, {"e": e}

    def value(self, y, f):
        r = np.abs(np.asarray(y) - np.asarray(f))
        M = self._M()
        h = np.where(r <= M, r * r, 2 * M * r - M * M)
        return float(np.sum(self.weights(r.shape[0]) * h))


class Absolute(Loss):
    """``Σ s_i |y_i - f_i|``, written as ``-t ≤ y - f ≤ t``.

    Parameters
    ----------
    sample_weight : array-like of shape (N,), float or None, default=None
        Weights of the observations (``None``: all ones).
    """

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
    ``sample_weight`` given, a copy of the loss carrying those weights.

    Parameters
    ----------
    loss : None, str or Loss, default=None
        The loss or its name.
    sample_weight : array-like of shape (N,) or None, default=None
        Observation weights given to the returned loss.

    Returns
    -------
    Loss
        A new loss object (the argument is not modified).
    """
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


def _label(loss: Loss) -> str:
    return f"loss {type(loss).__name__}"


def loss_pieces(loss: Loss, y: np.ndarray, f: cp.Expression, s: cp.Parameter) -> Pieces:
    """``loss.epigraph(y, f, s)``, checked: a convex scalar, DCP constraints, and the weights
    ``s`` used (refits that set ``s_i = 0`` are how observation ``i`` leaves the loss).

    Parameters
    ----------
    loss : Loss
        The loss (built-in or a user's subclass).
    y : numpy.ndarray of shape (N,)
        Targets.
    f : cvxpy.Expression of shape (N,)
        Fitted values, affine in the variables.
    s : cvxpy.Parameter of shape (N,)
        The observation weights.

    Returns
    -------
    tuple
        ``(objective piece, named constraints, named auxiliary variables)``.

    Raises
    ------
    TermError
        Naming the loss: the method raised, the piece is not a convex scalar, a constraint is
        not DCP, or ``s`` appears nowhere.
    """
    label = _label(loss)
    with user_code(label, "epigraph"):
        piece, cons, aux = loss.epigraph(y, f, s)
    if not (isinstance(piece, cp.Expression) and piece.is_scalar()):
        raise TermError(f"{label}: epigraph() must return a scalar cvxpy expression first, got "
                        f"{type(piece).__name__}")
    if not piece.is_convex():
        raise TermError(f"{label}: its cvxpy expression is not convex (cvxpy's DCP rules); "
                        f"curvature {piece.curvature}")
    bad = [k for k, c in dict(cons).items() if not c.is_dcp()]
    if bad:
        raise TermError(f"{label}: its epigraph constraint(s) {bad} are not DCP")
    params = {p.id for p in piece.parameters()}
    for c in dict(cons).values():
        params |= {p.id for p in c.parameters()}
    if s.id not in params:
        raise TermError(f"{label}: epigraph() ignores its weights s (the third argument); "
                        "leave-one-out and k-fold refits remove a point by setting its weight "
                        "to 0, so they would silently equal the training fit: multiply each "
                        "point's loss by s, e.g. cp.sum(cp.multiply(s, ...))")
    return piece, dict(cons), dict(aux)


def probe_weights(loss: Loss, y: np.ndarray) -> None:
    """Check that a loss's NumPy twin and its cvxpy epigraph agree under two weight vectors.

    On a few of the training targets, at fitted values where every point has a positive loss,
    the twin ``value`` (with ``sample_weight`` set to ``s``) is compared with the epigraph's
    value minimised over its auxiliary variables (a tiny CLARABEL solve, 10 s limit), for
    ``s = 1`` and for weights that differ per point with the first one 0.  A twin that ignores
    ``sample_weight``, an epigraph that misuses ``s`` or two forms of different losses are
    caught here instead of as wrong leave-one-out residuals or a wrong objective.

    Parameters
    ----------
    loss : Loss
        The loss to probe.
    y : numpy.ndarray of shape (N,)
        Training targets (``±1`` for a classification loss).

    Raises
    ------
    TermError
        Naming the loss and what disagrees.
    """
    m = int(min(len(y), 6))
    if m == 0:
        return
    yv = np.asarray(y[:m], dtype=np.float64)
    i = np.arange(m)
    sign = np.where(i % 2 == 0, 1.0, -1.0)
    if loss.task == "classification":
        f = yv * np.where(i % 2 == 0, -0.5, 0.5)  # margins -0.5 and 0.5: every point inside
    else:
        f = yv + 0.5 * sign * (1 + i / m)
    weights = [np.ones(m), (1.0 + i) / m]
    weights[1][0] = 0.0
    label = _label(loss)
    twin, cvx = [], []
    for s in weights:
        probe = copy.copy(loss)
        probe.sample_weight = s
        with user_code(label, "value"):
            twin.append(float(probe.value(yv, f)))
        sp = cp.Parameter(m, nonneg=True, value=s)
        with user_code(label, "epigraph"):
            piece, cons, aux = loss.epigraph(yv, cp.Constant(f), sp)
        if aux or cons:
            prob = cp.Problem(cp.Minimize(piece), list(dict(cons).values()))
            try:
                prob.solve(solver="CLARABEL", time_limit=10.0)
            except Exception:  # the probe is evidence, not a gate: no verdict without it
                return
            if prob.status != "optimal":
                return
            cvx.append(float(prob.value))
        else:
            cvx.append(float(np.asarray(piece.value, dtype=np.float64).reshape(())))
    ok = [abs(t - c) <= 1e-6 * max(1.0, abs(c)) for t, c in zip(twin, cvx)]
    if all(ok):
        return
    if ok[0] and abs(twin[1] - twin[0]) <= 1e-12 * max(1.0, abs(twin[0])):
        why = ("value() ignores sample_weight (read the weights with self.weights(n)): with "
               f"weights {np.round(weights[1], 3).tolist()} it gives {twin[1]:.6g}, the "
               f"epigraph {cvx[1]:.6g}")
    elif ok[0] and abs(cvx[1] - cvx[0]) <= 1e-12 * max(1.0, abs(cvx[0])):
        why = ("epigraph() ignores its weights s: with weights "
               f"{np.round(weights[1], 3).tolist()} it gives {cvx[1]:.6g}, value() {twin[1]:.6g}")
    else:
        k = 0 if not ok[0] else 1
        why = (f"value() and epigraph() disagree: {twin[k]:.6g} vs {cvx[k]:.6g} at weights "
               f"{np.round(weights[k], 3).tolist()} (y = {np.round(yv, 3).tolist()}, "
               f"f = {np.round(f, 3).tolist()})")
    raise TermError(f"{label}: {why}")
