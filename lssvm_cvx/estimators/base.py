"""Shared machinery of the scikit-learn estimators: kernel parameters, input validation that
raises the package's exceptions, the precomputed-kernel tag, and saving without pickle.

Naming: in the LS-SVM papers **γ (``gamma``) is the regularization constant** (large γ = weak
regularization) and **σ² (``sigma2``) the RBF width** in ``exp(-||x - z||²/σ²)``.  In
scikit-learn, ``gamma`` is the RBF width parameter ``exp(-gamma ||x - z||²)``.  The estimators of
this package follow the papers:

===================================  =======================================
lssvm_cvx                            scikit-learn equivalent
===================================  =======================================
``gamma`` (regularization)           ``KernelRidge(alpha=1/gamma)`` (no bias)
``sigma2`` (RBF width)               ``gamma = 1 / sigma2`` (``rbf_kernel``)
``degree``, ``t`` (polynomial)       ``degree``, ``coef0`` with ``gamma=1``
===================================  =======================================
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from ..checks import check_gamma, check_positive, encode_labels, named_message
from ..exceptions import InputError, LssvmCvxError, NotFittedError
from ..kernels.base import Kernel, Precomputed, check_psd, make_kernel

__all__ = [
    "BestOfSearch",
    "BinaryClassifierMixin",
    "KernelMixin",
    "SaveMixin",
    "check_fitted",
    "encode_labels",
    "input_error",
]


def input_error(exc: BaseException, X: Any, *, min_samples: int = 1) -> InputError:
    """scikit-learn's validation error as an :class:`InputError` whose message names the
    argument at fault (``X``, ``y``, or both when their lengths differ)."""
    msg = str(exc)
    if "inconsistent numbers of samples" in msg:
        return InputError(f"X and y: {msg}")
    try:
        check_array(X, dtype=np.float64, ensure_min_samples=min_samples, input_name="X")
    except (ValueError, TypeError):
        return InputError(named_message("X", exc))
    return InputError(named_message("y", exc))


def check_fitted(est: Any, attributes: Any = None) -> None:
    """``check_is_fitted`` raising the package's :class:`NotFittedError`."""
    try:
        check_is_fitted(est, attributes)
    except Exception as exc:  # sklearn's NotFittedError
        raise NotFittedError(str(exc)) from exc


class BinaryClassifierMixin:
    """Tags a two-class-only classifier for scikit-learn (put it first among the bases); its
    ``fit`` calls :func:`encode_labels` with ``binary=True``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _checked_score(score: Any) -> Any:
    @functools.wraps(score)
    def checked(self: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
        check_fitted(self)
        yy = np.asarray(y)
        try:
            n = len(X)
        except TypeError:
            n = None
        if yy.ndim == 0 or (n is not None and yy.shape[0] != n):
            raise InputError(f"y has {yy.size if yy.ndim == 0 else yy.shape[0]} entries but X has "
                             f"{n} rows")
        if yy.dtype.kind in "fc" and not np.all(np.isfinite(yy)):
            raise InputError("y contains NaN or inf")
        try:
            return score(self, X, y, sample_weight=sample_weight)
        except LssvmCvxError:
            raise
        except ValueError as exc:  # TypeError stays (scikit-learn's check_dtype_object)
            raise input_error(exc, X) from exc

    checked._checks_input = True  # type: ignore[attr-defined]
    # scikit-learn's docstring links labels of its own documentation; state ours
    checked.__doc__ = ("Score of the predictions on ``X`` against ``y`` (R² for regressors, "
                       "accuracy for classifiers, as in scikit-learn); bad ``X``/``y`` raise "
                       ":class:`~lssvm_cvx.exceptions.InputError`.\n\n"
                       "Parameters\n----------\n"
                       "X : array-like of shape (n, d)\n    Inputs.\n"
                       "y : array-like of shape (n,)\n    True targets or labels.\n"
                       "sample_weight : array-like of shape (n,) or None, default=None\n"
                       "    Weights of the samples.\n\n"
                       "Returns\n-------\nfloat\n    The score.\n")
    return checked


class BestOfSearch:
    """``best_index_``, ``best_params_`` and ``best_score_`` (``GridSearchCV``'s names) read
    from ``cv_results_`` after a fit that searched: the first candidate of rank 1."""

    def _searched(self) -> tuple[int, dict[str, Any], float]:
        from .scoring import best_of

        res = getattr(self, "cv_results_", None)
        if not isinstance(res, dict) or "rank_test_score" not in res:
            raise AttributeError("best_index_, best_params_ and best_score_ exist after a fit "
                                 "that searched (cv_results_)")
        return best_of(res)

    @property
    def best_index_(self) -> int:
        """Index of the chosen candidate in ``cv_results_``."""
        return self._searched()[0]

    @property
    def best_params_(self) -> dict[str, Any]:
        """Parameters of the chosen candidate."""
        return self._searched()[1]

    @property
    def best_score_(self) -> float:
        """Mean test score of the chosen candidate (higher is better)."""
        return self._searched()[2]


class SaveMixin:
    """``save(path)`` for a fitted estimator, and registration with :mod:`lssvm_cvx.io`.

    Every public subclass defined inside :mod:`lssvm_cvx` registers itself with the loader
    (:func:`lssvm_cvx.io.register_estimator`) under its class name when its module is imported;
    subclasses defined elsewhere are not loadable until registered explicitly.  A class stores
    dataclass records among its fitted attributes only if it lists them in ``_saved_records``.
    The inherited scikit-learn ``score`` is wrapped so that bad ``X``/``y`` raise
    :class:`InputError` naming the argument.
    """

    _saved_records: tuple[type, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        score = getattr(cls, "score", None)
        if callable(score) and not getattr(score, "_checks_input", False):
            cls.score = _checked_score(score)  # type: ignore[attr-defined]
        if (cls.__module__.startswith("lssvm_cvx.") and not cls.__name__.startswith("_")
                and callable(getattr(cls, "fit", None))):  # estimators, not mixins
            from ..io import register_estimator

            register_estimator(cls, records=tuple(cls._saved_records))

    def save(self, path: Any, key: Any = None) -> None:
        """Write the fitted model to ``path`` (``.npz`` + JSON header, no pickle), atomically.

        Load it with :func:`lssvm_cvx.load`; see :mod:`lssvm_cvx.io` for the format and the
        checks the loader makes.  With ``key`` (bytes or str) the file is signed
        (HMAC-SHA256): ``lssvm_cvx.load(path, key=key)`` refuses a file not written with it.
        """
        from ..io import save

        check_fitted(self)
        save(self, path, key=key)


class KernelMixin(SaveMixin):
    """Kernel handling for estimators with ``kernel``, ``sigma2``, ``degree``, ``t`` parameters."""

    # constructor parameters of the estimators using the mixin (declared for the type checker)
    kernel: Any
    sigma2: float
    gamma: Any

    def _check_kernel_param(self) -> None:
        """Raise if the kernel parameters do not make a kernel (used by the model loader)."""
        self._make_kernel()

    def _make_kernel(self, sigma2: float | None = None) -> Kernel:
        s2 = self.sigma2 if sigma2 is None else sigma2
        if isinstance(self.kernel, str) and self.kernel.lower() == "rbf":
            s2 = check_positive(s2, "sigma2")
        kernel = make_kernel(self.kernel, sigma2=s2, degree=getattr(self, "degree", 3),
                             t=getattr(self, "t", 1.0))
        kernel._validate()
        return kernel

    @property
    def _precomputed(self) -> bool:
        return isinstance(self.kernel, str) and self.kernel == "precomputed" or isinstance(
            self.kernel, Precomputed)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed
        return tags

    def _validate_fit(self, X: Any, y: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        try:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, **kwargs)
        except ValueError as exc:  # TypeError stays (scikit-learn's check_dtype_object)
            raise input_error(exc, X, min_samples=2) from exc
        if self._precomputed:
            if X.shape[0] != X.shape[1]:
                raise InputError(f"a precomputed kernel must be square at fit, got shape {X.shape}")
            check_psd(X, name="precomputed kernel matrix")
        return X, y

    def _validate_predict(self, X: Any) -> np.ndarray:
        try:
            X = validate_data(self, X, dtype=np.float64, reset=False)
        except ValueError as exc:  # TypeError stays (scikit-learn's check_dtype_object)
            raise InputError(named_message("X", exc)) from exc
        return X

    def _gram(self, kernel: Kernel, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        K = kernel(X, Z)
        if Z is None and not kernel.psd and not isinstance(kernel, Precomputed):
            check_psd(K, name="kernel matrix of the callable kernel")
        return K

    def _gamma(self) -> float | np.ndarray:
        return check_gamma(self.gamma)


def sample_weights(sample_weight: Any, n: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Per-point weights of the weighted LS-SVM (AReg paper eq. 74, ``γ_i = γ w_i``) for the
    points with ``w_i > 0``, and the mask of those points.

    A weight of 2 is the same as repeating the point (the primal loss is ``γ/2 Σ w_i e_i²``), and
    a weight of 0 removes it.  Returns ``(None, all-True mask)`` when ``sample_weight`` is None.
    """
    if sample_weight is None:
        return None, np.ones(n, dtype=bool)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise InputError(f"sample_weight must have shape ({n},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InputError("sample_weight must be finite and >= 0")
    keep = w > 0
    if keep.sum() < 2:
        raise InputError(
            f"sample_weight is zero for all but {int(keep.sum())} samples; at least 2 need a "
            "positive weight")
    return w[keep], keep
