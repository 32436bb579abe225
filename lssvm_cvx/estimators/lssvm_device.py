"""``LSSVMRegressor`` and ``LSSVMClassifier`` (binary) on device arrays (issue 31): the fit, the
exact (γ, σ²) leave-one-out search and ``predict`` run in the inputs' array namespace and on
their device (:mod:`lssvm_cvx.device`), and the fitted model stays there.

Which inputs take this path (:func:`uses_device`): arrays of an array-API library other than
NumPy (PyTorch, CuPy, ``array-api-strict``; not dask, lists or pandas) that live off the CPU, or
any of them inside ``with lssvm_cvx.array_api_dispatch():`` (the package's own switch,
:func:`lssvm_cvx.device.array_api_dispatch`) or while
scikit-learn's ``array_api_dispatch`` is on (``sklearn.set_config(array_api_dispatch=True)``,
which needs ``SCIPY_ARRAY_API=1`` set before scipy is imported).  A PyTorch CPU tensor without a
switch is converted to NumPy as before.

What it covers: the RBF kernel; ``selection=None``, ``"loo"``, ``"kfold"`` or ``"gcv"`` (the
exact model).  The exact
LS-SVM is the preset Squared + ``RKHSNorm(1/γ)`` on the composed estimator's device path
(:mod:`lssvm_cvx.estimators.regularized_device`, as on the CPU: one code for both estimators):
exact LOO over the γ path of each σ² from one ``eigh`` (or one Cholesky per γ on CUDA), the
CPU path's folds of ``cv`` and ``random_state`` for k-fold, and the CPU path's scoring (the
default, ``selection_score``, or a ``scoring`` of one's own, scored on held-out residuals
copied to the CPU).  The approximations (``approximation="nystroem"`` or ``"rff"``) are the
CPU fit too (:func:`~lssvm_cvx.estimators.lssvm_approx.search_approximate`: the engine's
streamed design, exact LOO over γ of the approximate model on the CPU path's ``n_loo`` rows or
generalised cross-validation with ``selection="gcv"``, the width chosen on
``sigma2_subsample`` rows first when there are more) with the feature maps on the inputs'
device (:func:`device_features`: the CPU path's centres and random draws), scored by the mean
squared LOO residual; the fitted model is the CPU path's (``coef_``, ``feature_map_``,
``loo_rows_``, ``loo_residuals_``), on the device.  Anything else (another
kernel, ``sample_weight``, multiclass, k-fold or a scorer with an approximation) is a one-line
:class:`~lssvm_cvx.exceptions.HyperparameterError` that names the CPU path.  ``search`` is
ignored: the exact device search scores the whole grid exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..device import (
    dispatching,
    float_dtype,
    foreign_array,
    namespace_of,
    on_accelerator,
    rbf_gram,
)
from ..device.nystroem import NystroemFeatures
from ..device.rff import FourierFeatures
from ..device.streamed import DeviceFeatures
from ..exceptions import HyperparameterError, InputError, LabelError
from ..kernels import RBF
from ..kernels.features import RandomFourierMap
from ..linalg.arrays import check_finite
from ..linalg.arrays import to_numpy as to_cpu
from ..linalg.folds import cv_splits
from .auto_stream import pick_centres
from .base import check_fitted, check_gamma
from .lssvm_approx import search_approximate

__all__ = ["DeviceModelMixin", "uses_device", "check_device_options", "device_features",
           "fit_device", "device_targets",
           "device_folds", "to_cpu", "decision_device", "labels_device"]


def uses_device(X: Any) -> bool:
    """Whether ``X`` takes the device path (module docstring)."""
    from sklearn import get_config

    return on_accelerator(X) or (foreign_array(X) and (
        dispatching() or bool(get_config().get("array_api_dispatch"))))


def check_device_options(est: Any, sample_weight: Any, groups: Any, classification: bool) -> None:
    """Refuse what the device paths of the LS-SVM estimators do not cover (module docstring),
    in one line that names the CPU path."""
    cpu = ("; convert the inputs to NumPy (for PyTorch: X.cpu().numpy()) for the CPU path, "
           "which has it")
    if not (isinstance(est.kernel, str) and est.kernel.lower() == "rbf"):
        raise HyperparameterError(f"on a device the kernel must be 'rbf', got {est.kernel!r}{cpu}")
    if est.approximation not in (None, "nystroem", "rff"):
        raise HyperparameterError(f"on a device approximation must be None, 'nystroem' or "
                                  f"'rff', got {est.approximation!r}{cpu}")
    if est.approximation is not None and est.selection == "kfold":
        raise HyperparameterError(f"on a device the approximate model is selected by exact LOO "
                                  f"(selection='loo') or GCV (selection='gcv'), not k-fold{cpu}")
    if est.approximation is not None and (getattr(est, "scoring", None) is not None or (
            classification and getattr(est, "selection_score", "mse") != "mse")):
        raise HyperparameterError(f"on a device the approximations score the mean squared LOO "
                                  f"residual only (scoring=None, selection_score='mse'){cpu}")
    if sample_weight is not None or groups is not None:
        raise InputError(f"sample_weight and groups are not supported on a device{cpu}")


def device_targets(est: Any, X: Any, y: Any, classification: bool, *,
                   multiclass: bool = False) -> tuple[Any, Any, Any]:
    """The checked device inputs' namespace, device and fitted targets: ``y`` in ``X``'s float
    dtype, or for a classifier the ±1 coding of its labels, which sets ``est.classes_``: the
    coding of :func:`~lssvm_cvx.checks.encode_labels` (two classes: one column,
    ``classes_[1]`` is +1; more, with ``multiclass``: one column per class).  Without
    ``multiclass`` the classifier is binary and ``est.pairs_`` is set to None.  Shapes and a
    multiclass ``y`` the model cannot fit and NaN or inf in ``X`` or the targets are one-line
    errors (:class:`~lssvm_cvx.exceptions.InputError`)."""
    xp, device = namespace_of(X, y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or X.shape[0] < 2:
        raise InputError(f"on a device X must be (n, d) and y (n,) with n >= 2, got shapes "
                         f"{tuple(X.shape)} and {tuple(y.shape)}")
    dtype = float_dtype(xp, X)
    if classification:
        classes = xp.unique_values(y)
        C = int(classes.shape[0])
        if C != 2 and not multiclass:
            raise InputError(f"on a device the classifier is binary, got {C} classes (convert "
                             "to NumPy for multiclass)")
        if C < 2:
            raise LabelError(f"y has only {C} class; a classifier needs two")
        one = xp.asarray(1.0, dtype=dtype, device=device)
        cols = [xp.where(y == classes[k], one, -one) for k in range(1 if C == 2 else 0, C)]
        Y = cols[0] if C == 2 else xp.stack(cols, axis=1)
        est.classes_ = classes
        if not multiclass:
            est.pairs_ = None
    else:
        float_dtype(xp, y)
        Y = xp.astype(y, dtype)
    check_finite(xp, "X and y", X, Y)
    return xp, device, Y


def device_features(kind: str, kernel: Any, X: Any, m: int, random_state: Any) -> Any:
    """The CPU path's feature map (:func:`~lssvm_cvx.estimators.lssvm_approx.fit_approximate`'s
    ``features``) on ``X``'s device: the Nyström map on the rows the CPU path (and
    scikit-learn's ``Nystroem``) picks as centres, or the CPU path's random Fourier draws."""
    if kind == "nystroem":
        return NystroemFeatures.fit(pick_centres(X, 0.0, 1.0, m, random_state), kernel.sigma2)
    return FourierFeatures.like(RandomFourierMap(kernel.sigma2, int(X.shape[1]), m, random_state), X)


def fit_device(est: Any, X: Any, y: Any, sample_weight: Any = None, groups: Any = None, *,
               classification: bool = False) -> Any:
    """Fit ``est`` with ``approximation="nystroem" | "rff"`` on device arrays ``X``, ``y``
    (module docstring; the exact LS-SVM is the composed estimator's device path): the CPU
    path's fit and search (:func:`~lssvm_cvx.estimators.lssvm_approx.search_approximate`) with
    the feature maps on the inputs' device (:func:`device_features`); returns ``est``."""
    check_device_options(est, sample_weight, groups, classification)
    xp, device, Y = device_targets(est, X, y, classification)
    search_approximate(est, X, xp.astype(Y, xp.float64)[:, None],
                       score="gcv" if est.selection == "gcv" else "mse",
                       gamma=float(check_gamma(est.gamma)), features=device_features,
                       make_kernel=lambda s2: RBF(est.sigma2 if s2 is None else s2))
    dt = float_dtype(xp, X)
    est.coef_ = xp.astype(est.coef_, dt)                  # the inputs' float dtype, on the device
    est.intercept_ = xp.asarray(est.intercept_, dtype=dt, device=device)
    if est.cv_results_ is not None:
        est.cv_results_["device"] = str(device)
    est.device_ = str(device)
    est.n_features_in_ = int(X.shape[1])
    return est


def device_folds(est: Any, ycpu: np.ndarray, classification: bool) -> list[np.ndarray]:
    """The test sets of the CPU search's splits of ``est.cv`` and ``est.random_state``
    (stratified on the ±1 targets for a classifier), for the device searches' k-fold."""
    return [te for _, te in cv_splits(est.cv, int(ycpu.shape[0]), y=ycpu,
                                      stratified=classification,
                                      random_state=est.random_state) if te.size]


class DeviceModelMixin:
    """``to_numpy()`` for the estimators that fit on device arrays."""

    device_: str | None  # set by fit: the device of a device fit, else None
    feature_map_: Any    # set by an approximate fit: its feature map

    def to_numpy(self) -> Any:
        """A copy of the fitted estimator with every fitted array as a NumPy array.

        A model fitted on device arrays (``device_`` set) predicts device arrays on its device;
        the copy predicts NumPy inputs on the CPU, as a model fitted on NumPy does, and saves
        with :func:`lssvm_cvx.io.save` (the approximate models excepted, as on the CPU).  A
        model fitted on NumPy comes back as a plain copy.

        Returns
        -------
        estimator
            The copy (``device_`` None); the estimator itself is unchanged.
        """
        import copy

        import array_api_compat as aac

        check_fitted(self, "intercept_")
        if getattr(self, "device_", None) is None:
            return copy.deepcopy(self)
        def host(value: Any) -> Any:            # device arrays copied over, the rest deep
            if aac.is_array_api_obj(value) and not isinstance(value, np.ndarray):
                a = to_cpu(value)
                return float(a) if a.ndim == 0 else a
            if isinstance(value, DeviceFeatures):
                return value.to_numpy()
            if isinstance(value, dict):             # e.g. the Auto LS-SVM's basis parameters
                return {k: host(v) for k, v in value.items()}
            return copy.deepcopy(value)

        out = copy.copy(self)
        for key, value in vars(self).items():
            vars(out)[key] = host(value)
        out.device_ = None
        return out


def decision_device(est: Any, X: Any) -> Any:
    """``f(x) = k(x, X_fit) α + b`` (``φ(x)ᵀθ + b`` for the approximations) for the rows of
    ``X`` on the fitted model's device."""
    approximate = getattr(est, "approximation_", None) is not None
    namespace_of(X, est.coef_ if approximate else est.dual_coef_)
    if X.ndim != 2 or int(X.shape[1]) != est.n_features_in_:
        raise InputError(f"X must be (n, {est.n_features_in_}), got shape {tuple(X.shape)}")
    if approximate:
        return est.feature_map_.decision(X, est.coef_, est.intercept_)
    return rbf_gram(X, est.X_fit_, sigma2=est.sigma2_) @ est.dual_coef_ + est.intercept_


def labels_device(est: Any, F: Any) -> Any:
    """The binary classifier's labels ``classes_[f(x) > 0]``, on the device."""
    xp, _ = namespace_of(F, est.classes_)
    return xp.take(est.classes_, xp.astype(F > 0, xp.int64), axis=0)
