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

import contextvars
import functools
from typing import Any

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from ..checks import check_gamma, check_positive, check_sample_weight, encode_labels, named_message
from ..exceptions import InputError, InputTypeError, LssvmCvxError, NotFittedError, NumericalError
from ..kernels.base import Kernel, Precomputed, check_psd, make_kernel

__all__ = [
    "BestOfSearch",
    "BinaryClassifierMixin",
    "KernelMixin",
    "SaveMixin",
    "input_magnitudes",
    "check_finite_model",
    "check_kernel_param",
    "checked_groups",
    "checked_weights",
    "check_fitted",
    "check_scale",
    "encode_labels",
    "validate_fit_data",
    "validate_predict_data",
]


def _input_error(exc: BaseException, X: Any, *, min_samples: int = 1) -> InputError:
    """scikit-learn's validation error as an :class:`InputError` whose message names the
    argument at fault (``X``, ``y``, or both when their lengths differ; ``X`` is None when
    only ``X`` was validated); a ``TypeError`` (an
    object array of dicts, ...) becomes an :class:`InputTypeError` (also a ``TypeError``),
    sparse input an :class:`InputError` saying the models need dense arrays."""
    msg = str(exc)
    if "inconsistent numbers of samples" in msg:
        return InputError(f"X and y: {msg}")
    if "sparse" in msg.lower():
        return InputError(f"X: sparse input is not supported (the kernel models form dense "
                          f"Gram matrices): {msg}")
    kind = InputTypeError if isinstance(exc, TypeError) else InputError
    if X is None:  # only X was given
        return kind(named_message("X", exc))
    try:
        check_array(X, dtype=np.float64, ensure_min_samples=min_samples, input_name="X")
    except (ValueError, TypeError):
        return kind(named_message("X", exc))
    return kind(named_message("y", exc))


#: largest |x| whose squared distances and inner products (over one feature) stay finite
_SQUARE_LIMIT = float(np.sqrt(np.finfo(np.float64).max / 4.0))


def check_scale(X: np.ndarray, name: str = "X") -> np.ndarray:
    """Refuse inputs whose kernel (squared distances ``||x - z||²``, inner products) or
    standardisation would overflow double precision: every ``|x|`` must stay below
    ``sqrt(max_float / (4 d))`` (about 1.3e154 / √d).  Returns ``X``."""
    if X.size and X.dtype.kind == "f":
        limit = _SQUARE_LIMIT / np.sqrt(max(X.shape[1], 1) if X.ndim == 2 else 1)
        m = float(np.max(np.abs(X)))
        if m > limit:
            raise InputError(
                f"{name} has entries as large as {m:.3g}: the squared distances and inner "
                f"products a kernel needs overflow double precision above about {limit:.3g} "
                f"({X.shape[-1]} features); rescale {name} (e.g. sklearn.preprocessing."
                "StandardScaler)")
    return X


def _refuse_accelerator(est: Any, X: Any) -> None:
    """One line for an array off the CPU given to an estimator that computes with NumPy/cvxpy
    (the device-capable ones, :mod:`lssvm_cvx.estimators.lssvm_device`, branch before this)."""
    from ..device import on_accelerator

    if on_accelerator(X):
        import array_api_compat as aac

        raise InputTypeError(
            f"{type(est).__name__} computes on the CPU (NumPy and cvxpy) but X is a "
            f"{type(X).__module__}.{type(X).__name__} on {aac.device(X)}: convert it (for PyTorch "
            "X.cpu().numpy()); LSSVMRegressor and LSSVMClassifier with kernel='rbf' fit and "
            "predict on the device")


def validate_fit_data(est: Any, X: Any, y: Any, *, check_x_scale: bool = True,
                      **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """``validate_data(est, X, y)`` (float64, at least 2 samples, ``kwargs`` passed on) with
    the package's exceptions naming ``X`` or ``y``; ``y_numeric=True`` also refuses targets
    that are not numbers; ``X`` is checked by :func:`check_scale` unless ``check_x_scale`` is
    False (a precomputed kernel matrix)."""
    _refuse_accelerator(est, X)
    try:
        X, y = validate_data(est, X, y, dtype=np.float64, ensure_min_samples=2, **kwargs)
    except (ValueError, TypeError) as exc:
        raise _input_error(exc, X, min_samples=2) from exc
    if kwargs.get("y_numeric") and y.dtype.kind not in "biuf":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"y: regression targets must be numbers, got {y.dtype} "
                             f"({exc})") from exc
        if not np.all(np.isfinite(y)):
            raise InputError("y contains NaN or inf")
    return (check_scale(X) if check_x_scale else X), y


def validate_predict_data(est: Any, X: Any, *, check_x_scale: bool = True) -> np.ndarray:
    """``validate_data(est, X, reset=False)`` with the package's exceptions naming ``X``."""
    _refuse_accelerator(est, X)
    try:
        X = validate_data(est, X, dtype=np.float64, reset=False)
    except (ValueError, TypeError) as exc:
        raise _input_error(exc, None) from exc
    return check_scale(X) if check_x_scale else X


def check_fitted(est: Any, attributes: Any = None) -> None:
    """``check_is_fitted`` raising the package's :class:`NotFittedError`."""
    try:
        check_is_fitted(est, attributes)
    except Exception as exc:  # sklearn's NotFittedError
        raise NotFittedError(str(exc)) from exc



def check_kernel_param(est: Any) -> None:
    """Raise if ``est``'s kernel parameters do not make a kernel (the model loader's check of a
    saved file's parameters); nothing to check for a precomputed or callable kernel or an
    estimator without kernel parameters."""
    check = getattr(est, "_check_kernel_param", None)
    if check is None or getattr(est, "_precomputed", False) or callable(getattr(est, "kernel", None)):
        return
    check()

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
            raise _input_error(exc, X) from exc

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


#: ids of the estimators whose checked ``fit`` is running in this context (a subclass's
#: ``fit`` calling ``super().fit`` is checked once, by the outermost call)
_IN_FIT: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "lssvm_cvx_in_fit", default=frozenset())


def input_magnitudes(X: Any, y: Any) -> tuple[list[str], str]:
    """``max |X|`` and ``max |y|`` as text, and the cause of a non-finite result they explain:
    an entry too large for double precision to square (``""`` when none is).

    Parameters
    ----------
    X, y : array-like or None
        The inputs and the targets (a dask array's largest entry is computed lazily).

    Returns
    -------
    parts : list of str
        ``"max |X| = ..."`` and ``"max |y| = ..."`` for those with a finite entry.
    cause : str
        The overflow that explains a non-finite result, or ``""``.
    """
    parts, cause = [], ""
    for name, a in (("X", X), ("y", y)):
        try:  # a dask array's largest entry is computed lazily, never gathered
            arr = (np.asarray(abs(a).max().compute(), dtype=np.float64) if hasattr(a, "compute")
                   else np.asarray(a, dtype=np.float64))
        except (TypeError, ValueError):
            continue
        finite = np.abs(arr[np.isfinite(arr)])
        if finite.size:
            m = float(finite.max())
            parts.append(f"max |{name}| = {m:.3g}")
            if m > _SQUARE_LIMIT and not cause:
                cause = (f"{name} is out of the range double precision can square (above about "
                         f"{_SQUARE_LIMIT:.2g}): standardising it, the squared-error loss and "
                         f"the leave-one-out criteria overflow; rescale {name} (e.g. divide by "
                         "its largest value)")
    return parts, cause


def _likely_cause(X: Any, y: Any) -> str:
    parts, cause = input_magnitudes(X, y)
    return (f"({', '.join(parts) or 'inputs finite'}); likely cause: "
            + (cause or "a linear system too ill-conditioned for double precision; rescale the "
               "data or raise the regularisation"))


def check_finite_model(est: Any, X: Any, y: Any = None) -> None:
    """Raise :class:`NumericalError` when the fitted ``est`` gives non-finite decision values
    (``decision_function``, else ``predict``) on the first two rows of its training ``X``,
    naming the likely cause from the magnitudes of ``X`` and ``y``."""
    method = getattr(est, "decision_function", None) or getattr(est, "predict", None)
    if not callable(method):
        return
    try:
        rows = X.iloc[:2] if hasattr(X, "iloc") else X[:2]
    except (TypeError, IndexError, KeyError):
        return
    values = method(rows)
    values = np.asarray(values.compute() if hasattr(values, "compute") else values)
    if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
        raise NumericalError(
            f"{type(est).__name__}.fit produced a model whose {method.__name__} values are "
            f"not finite {_likely_cause(X, y)}")


def _clear_fitted(est: Any) -> None:
    for k in [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]:
        delattr(est, k)


def _checked_fit(fit: Any) -> Any:
    @functools.wraps(fit)
    def checked(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        active = _IN_FIT.get()
        if id(self) in active:
            return fit(self, X, *args, **kwargs)
        token = _IN_FIT.set(active | {id(self)})
        y = args[0] if args else kwargs.get("y")
        try:
            try:
                out = fit(self, X, *args, **kwargs)
            except (np.linalg.LinAlgError, FloatingPointError) as exc:
                raise NumericalError(f"{type(self).__name__}.fit: {type(exc).__name__}: {exc} "
                                     f"{_likely_cause(X, y)}") from exc
            check_finite_model(self, X, y)
        except NumericalError:
            _clear_fitted(self)  # a model that predicts NaN is not left behind to be used
            raise
        finally:
            _IN_FIT.reset(token)
        return out

    checked._checks_result = True  # type: ignore[attr-defined]
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
    :class:`InputError` naming the argument, and every ``fit`` a class defines so that a fit
    whose model is not finite (or whose linear algebra failed) raises :class:`NumericalError`
    naming the likely cause, leaving no fitted attributes (:func:`check_finite_model`).
    """

    _saved_records: tuple[type, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        score = getattr(cls, "score", None)
        if callable(score) and not getattr(score, "_checks_input", False):
            cls.score = _checked_score(score)  # type: ignore[attr-defined]
        fit = cls.__dict__.get("fit")
        if callable(fit) and not getattr(fit, "_checks_result", False):
            cls.fit = _checked_fit(fit)  # type: ignore[attr-defined]
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
        kernel.validate()
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
        X, y = validate_fit_data(self, X, y, check_x_scale=not self._precomputed, **kwargs)
        if self._precomputed:
            if X.shape[0] != X.shape[1]:
                raise InputError(f"a precomputed kernel must be square at fit, got shape {X.shape}")
            check_psd(X, name="precomputed kernel matrix")
        return X, y

    def _validate_predict(self, X: Any) -> np.ndarray:
        return validate_predict_data(self, X, check_x_scale=not self._precomputed)

    def _gram(self, kernel: Kernel, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        K = kernel(X, Z)
        if Z is None and not kernel.psd and not isinstance(kernel, Precomputed):
            check_psd(K, name="kernel matrix of the callable kernel")
        return K

    def _gamma(self) -> float | np.ndarray:
        return check_gamma(self.gamma)


def checked_weights(sample_weight: Any, n: int) -> tuple[np.ndarray | None, np.ndarray]:
    """``sample_weight`` as ``n`` finite weights ``>= 0`` (a scalar broadcast; ``None`` stays
    None) and the mask of the points with a positive weight, of which at least 2 are needed;
    :class:`InputError` otherwise."""
    if sample_weight is None:
        return None, np.ones(n, dtype=bool)
    w = check_sample_weight(sample_weight, n, min_positive=2)
    return w, w > 0


def checked_groups(groups: Any, n: int) -> np.ndarray | None:
    """``groups`` (a group splitter's labels) as one label per sample, None staying None;
    :class:`InputError` otherwise (not an ``IndexError`` inside the splitter)."""
    if groups is None:
        return None
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] != n:
        raise InputError(f"groups must hold one label per sample ({n}), got shape {g.shape}")
    return g


def sample_weights(sample_weight: Any, n: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Per-point weights of the weighted LS-SVM (AReg paper eq. 74, ``γ_i = γ w_i``) for the
    points with ``w_i > 0``, and the mask of those points.

    A weight of 2 is the same as repeating the point (the primal loss is ``γ/2 Σ w_i e_i²``), and
    a weight of 0 removes it.  Returns ``(None, all-True mask)`` when ``sample_weight`` is None.
    """
    w, keep = checked_weights(sample_weight, n)
    return (None, keep) if w is None else (w[keep], keep)
