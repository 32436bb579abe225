"""Kernel functions ``k(X, Z) -> Gram`` and their algebra.

Conventions follow LS-SVMlab and the papers, not scikit-learn:

* :class:`RBF` is ``k(x, z) = exp(-||x - z||^2 / sigma2)`` (AReg paper, §2.1).  scikit-learn's
  ``rbf_kernel(gamma=g)`` is the same function with ``g = 1 / sigma2``.
* :class:`Polynomial` is ``k(x, z) = (x'z + t)^degree``.
* :class:`Componentwise` is the ANOVA-type sum of one kernel per input column (componentwise
  LS-SVM paper, eq. 12) and returns the per-column Grams through :meth:`Componentwise.components`.

Every kernel is a scikit-learn ``BaseEstimator`` so ``get_params``/``set_params``/``clone`` work
inside estimators and ``GridSearchCV``.  Kernels add (``k1 + k2``) and multiply (``k1 * k2``,
``2.0 * k``) as functions do.  One routine, :func:`sq_dists`, computes squared Euclidean
distances for every distance-based kernel in the package.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from numbers import Real
from typing import Any, cast

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.metrics.pairwise import euclidean_distances

from ..checks import as_gram, check_integer, check_positive
from ..exceptions import HyperparameterError, InputError, NotPSDError
from .psd import PSD_FACTOR_RTOL, psd_factor

__all__ = [
    "sq_dists",
    "Kernel",
    "RBF",
    "Linear",
    "Polynomial",
    "Sum",
    "Product",
    "Scaled",
    "Precomputed",
    "CallableKernel",
    "Componentwise",
    "make_kernel",
    "kernel_from_dict",
    "check_psd",
]


def sq_dists(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances ``D[i, j] = ||X[i] - Z[j]||^2``.

    The one pairwise-distance routine of the package (RBF, componentwise, roughness and
    gradient-norm Grams all call it).  Uses scikit-learn's ``euclidean_distances`` (the
    ``||x||^2 + ||z||^2 - 2 x'z`` expansion with an exact zero diagonal when ``Z is None``),
    which clips the tiny negative values that cancellation can leave itself; until 2026-12-07
    a second ``np.maximum`` pass here clipped them again (124 ms with it, 103 ms without, at
    N = 4000: ``notes/condition_estimate_cost.py 4000 9``; ``tests/test_cholesky_condition.py``
    checks that no negative distance is left).
    """
    try:                    # scikit-learn validates (NaN, strings, shapes): its words, ours
        return euclidean_distances(X, X if Z is None else Z, squared=True)
    except (TypeError, ValueError) as exc:
        raise InputError(f"sq_dists: {exc}") from None


def _as_2d(X: Any, name: str = "X") -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise InputError(f"{name} must be a 2-D array, got shape {X.shape}")
    return X


class Kernel(BaseEstimator, ABC):
    """Abstract kernel: ``k(X, Z)`` returns the Gram matrix ``K[i, j] = k(X[i], Z[j])``.

    Subclasses implement :meth:`_gram`; input conversion and hyperparameter validation happen
    here so that every kernel raises the package's errors on bad input.
    """

    #: whether the kernel is positive semi-definite for every admissible hyperparameter
    psd: bool = True

    def __call__(self, X: Any, Z: Any | None = None) -> np.ndarray:
        self._validate()
        X = _as_2d(X, "X")
        Zc = None if Z is None else _as_2d(Z, "Z")
        if Zc is not None and Zc.shape[1] != X.shape[1] and not isinstance(self, Precomputed):
            raise InputError(
                f"X has {X.shape[1]} features but Z has {Zc.shape[1]}; they must match"
            )
        return self._gram(X, Zc)

    @abstractmethod
    def _gram(self, X: np.ndarray, Z: np.ndarray | None) -> np.ndarray: ...

    def validate(self) -> None:
        """Raise :class:`HyperparameterError` if a hyperparameter is outside its domain (the
        kernel's own check, :meth:`_validate`, which a subclass overrides)."""
        self._validate()

    def _validate(self) -> None:
        """The subclass hook of :meth:`validate` (nothing to check here)."""

    def diag(self, X: Any) -> np.ndarray:
        """Diagonal ``k(x_i, x_i)`` without forming the Gram (overridden where cheaper)."""
        X = _as_2d(X)
        return np.array([self(X[i : i + 1])[0, 0] for i in range(X.shape[0])])

    def factor(self, X: Any, *, rank: int | None = None, rtol: float = PSD_FACTOR_RTOL) -> np.ndarray:
        """A factor ``L`` with ``k(X, X) ≈ L L'`` (:func:`~lssvm_cvx.kernels.psd.psd_factor`).

        The default uses the eigendecomposition of the Gram, keeps eigenvalues above
        ``rtol * max eigenvalue`` (at most ``rank`` of them) and returns
        ``V * sqrt(s)`` (shape ``(n, r)``).  Builders use the factor to write ``α'Kα`` as
        ``||L'α||^2``, which keeps cvxpy problems DPP with γ as a parameter.
        """
        return psd_factor(self(X), rtol=rtol, rank=rank)

    # --- algebra -------------------------------------------------------------------------
    def __add__(self, other: Kernel) -> Sum:
        if not isinstance(other, Kernel):
            return NotImplemented
        return Sum([self, other])

    def __mul__(self, other: Any) -> Kernel:
        if isinstance(other, Kernel):
            return Product([self, other])
        if isinstance(other, Real):
            return Scaled(self, float(other))
        return NotImplemented

    __rmul__ = __mul__

    # --- serialisation (no pickle) ---------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable description; :func:`kernel_from_dict` inverts it."""
        params = {}
        for key, value in self.get_params(deep=False).items():
            if isinstance(value, Kernel):
                value = value.to_dict()
            elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Kernel) for v in value):
                value = [v.to_dict() for v in value]
            elif isinstance(value, (list, tuple)):
                value = [list(v) if isinstance(v, (list, tuple)) else v for v in value]
            elif isinstance(value, np.generic):
                value = value.item()
            params[key] = value
        return {"kernel": type(self).__name__, "params": params}


class RBF(Kernel):
    """Gaussian kernel ``k(x, z) = exp(-||x - z||^2 / sigma2)`` (LS-SVMlab convention).

    Parameters
    ----------
    sigma2 : float, default=1.0
        The squared bandwidth σ² > 0 (AReg paper §2.1).  scikit-learn's RBF width is
        ``gamma = 1 / sigma2``.
    """

    def __init__(self, sigma2: float = 1.0):
        self.sigma2 = sigma2

    def _validate(self) -> None:
        check_positive(self.sigma2, "sigma2")

    def _gram(self, X, Z):
        D = sq_dists(X, Z)
        D *= -1.0 / float(self.sigma2)
        return np.exp(D, out=D)

    def diag(self, X):
        return np.ones(_as_2d(X).shape[0])


class Linear(Kernel):
    """Linear kernel ``k(x, z) = x'z``; its exact factor is ``X`` itself."""

    def _gram(self, X, Z):
        return X @ (X if Z is None else Z).T

    def diag(self, X):
        X = _as_2d(X)
        return np.einsum("ij,ij->i", X, X)

    def factor(self, X, *, rank=None, rtol=PSD_FACTOR_RTOL):
        X = _as_2d(X)
        if rank is None or rank >= X.shape[1]:
            return X.copy()
        return super().factor(X, rank=rank, rtol=rtol)


class Polynomial(Kernel):
    """Polynomial kernel ``k(x, z) = (x'z + t)^degree``.

    Parameters
    ----------
    degree : int, default=2
        Integer degree ≥ 1.
    t : float, default=1.0
        Offset ``t ≥ 0`` (a negative offset does not give a PSD kernel in general).
    """

    def __init__(self, degree: int = 2, t: float = 1.0):
        self.degree = degree
        self.t = t

    def _validate(self) -> None:
        check_integer(self.degree, "degree")
        check_positive(self.t, "t", allow_zero=True)

    def _gram(self, X, Z):
        G = X @ (X if Z is None else Z).T
        G += float(self.t)
        return G ** int(self.degree)

    def diag(self, X):
        X = _as_2d(X)
        return (np.einsum("ij,ij->i", X, X) + float(self.t)) ** int(self.degree)


def _check_kernels(kernels: Any, owner: str) -> None:
    """Refuse (:class:`HyperparameterError`) ``kernels`` unless it is a non-empty list or tuple
    of :class:`Kernel` objects, each valid: the members of a composite kernel (``Sum``,
    ``Product``, ``Scaled``, ``Componentwise``).  Until the nineteenth session (2026-11-30) a
    member that is not a kernel reached ``AttributeError: ... has no attribute '_validate'``
    and a number where the list belongs ``TypeError: ... has no len()``."""
    if not isinstance(kernels, (list, tuple)) or not kernels:
        raise HyperparameterError(f"{owner} needs a non-empty list of kernels, got {kernels!r}")
    for k in kernels:
        if not isinstance(k, Kernel):
            raise HyperparameterError(f"{owner}: every kernel must be a Kernel object, got {k!r}")
        k._validate()


class Sum(Kernel):
    """Sum of kernels ``k(x, z) = Σ_j k_j(x, z)`` (also written ``k1 + k2``)."""

    def __init__(self, kernels: Sequence[Kernel] = ()):
        self.kernels = kernels

    def _validate(self):
        _check_kernels(self.kernels, "Sum")

    def _gram(self, X, Z):
        out = self.kernels[0]._gram(X, Z)
        for k in self.kernels[1:]:
            out = out + k._gram(X, Z)
        return out

    def diag(self, X):
        return sum(k.diag(X) for k in self.kernels)

    def __add__(self, other):
        if isinstance(other, Kernel):
            return Sum([*self.kernels, other])
        return NotImplemented


class Product(Kernel):
    """Elementwise product of kernels (Schur product theorem keeps it PSD)."""

    def __init__(self, kernels: Sequence[Kernel] = ()):
        self.kernels = kernels

    def _validate(self):
        _check_kernels(self.kernels, "Product")

    def _gram(self, X, Z):
        out = self.kernels[0]._gram(X, Z)
        for k in self.kernels[1:]:
            out = out * k._gram(X, Z)
        return out


class Scaled(Kernel):
    """A kernel times a positive constant, ``scale * k(x, z)``."""

    def __init__(self, kernel: Kernel | None = None, scale: float = 1.0):
        self.kernel = kernel
        self.scale = scale

    def _validate(self):
        _check_kernels([self.kernel], "Scaled")
        check_positive(self.scale, "scale")

    def _gram(self, X, Z):
        return float(self.scale) * self.kernel._gram(X, Z)

    def diag(self, X):
        return float(self.scale) * self.kernel.diag(X)


class Precomputed(Kernel):
    """``X`` *is* the Gram: ``k(K, None) = K`` (square) and ``k(K_new, ...) = K_new``."""

    psd = False  # unknown: callers check with :func:`check_psd`

    def __call__(self, X, Z=None):
        return np.asarray(X, dtype=np.float64)

    def _gram(self, X, Z):  # pragma: no cover - __call__ is overridden
        return X

    def diag(self, X):
        return np.diag(np.asarray(X, dtype=np.float64)).copy()


class CallableKernel(Kernel):
    """Wrap a user function ``f(X, Z) -> Gram``; PSD-ness is checked by the caller."""

    psd = False

    def __init__(self, func=None):
        self.func = func

    def _validate(self):
        if not callable(self.func):
            raise HyperparameterError(f"kernel function must be callable, got {self.func!r}")

    def _gram(self, X, Z):
        G = np.asarray(self.func(X, X if Z is None else Z), dtype=np.float64)
        expected = (X.shape[0], (X if Z is None else Z).shape[0])
        if G.shape != expected:
            raise InputError(f"kernel function returned shape {G.shape}, expected {expected}")
        return G

    def to_dict(self):
        raise InputError("a CallableKernel wraps arbitrary code and cannot be serialised")


class Componentwise(Kernel):
    """Sum of one kernel per input column (or column group): the componentwise kernel.

    ``K = Σ_p K^p`` with ``K^p[i, j] = k_p(x_i^{(c_p)}, x_j^{(c_p)})`` where ``c_p`` is the
    column (group) of component ``p``; componentwise LS-SVM paper, eq. (12).  With several base
    kernels every column gets one component per kernel (e.g. an RBF *and* a linear component
    for each input, as in the paper's "STP with RBF and lin" experiment).

    Parameters
    ----------
    kernel : Kernel, list of Kernel or None, default=None
        One :class:`Kernel` or a list of them, applied to every column group.
    columns : list of int or tuple of int, or None, default=None
        ``None`` (each input column its own component) or a list whose entries are a column
        index or a tuple of column indices (a group, for interaction components).
    """

    def __init__(self, kernel: Kernel | Sequence[Kernel] | None = None, columns: Sequence[Any] | None = None):
        self.kernel = kernel
        self.columns = columns

    def base_kernels(self) -> list[Kernel]:
        """The base kernels applied per component (the kernel's list; ``[RBF()]`` for ``None``)."""
        k = RBF() if self.kernel is None else self.kernel
        return list(k) if isinstance(k, (list, tuple)) else [cast(Kernel, k)]

    def _validate(self):
        _check_kernels(self.base_kernels(), "Componentwise")

    def _groups(self, n_features: int) -> list[tuple[int, ...]]:
        if self.columns is None:
            return [(j,) for j in range(n_features)]
        if not isinstance(self.columns, (list, tuple, np.ndarray)) or isinstance(self.columns, str):
            raise InputError(f"columns must be None or a list of column indices or tuples of them, "
                             f"got {self.columns!r}")
        groups = []
        for c in self.columns:
            g = tuple(check_integer(v, "a component's column", low=0, error=InputError)
                      for v in (c if isinstance(c, (list, tuple, np.ndarray)) else (c,)))
            if not g or max(g) >= n_features:
                raise InputError(
                    f"component column(s) {c!r} out of range for data with {n_features} features"
                )
            groups.append(g)
        return groups

    def labels(self, n_features: int) -> list[tuple[tuple[int, ...], str]]:
        """``(columns, kernel name)`` of every component, in the order of :meth:`components`."""
        return [(g, type(k).__name__) for k in self.base_kernels() for g in self._groups(n_features)]

    def components(self, X: Any, Z: Any | None = None) -> list[np.ndarray]:
        """Per-component Grams ``[K^1, ..., K^P]`` (componentwise paper eq. 12)."""
        self._validate()
        X = _as_2d(X)
        Zc = None if Z is None else _as_2d(Z, "Z")
        if Zc is not None and Zc.shape[1] != X.shape[1]:
            raise InputError(f"X has {X.shape[1]} features but Z has {Zc.shape[1]}")
        out = []
        for k in self.base_kernels():
            for g in self._groups(X.shape[1]):
                cols = list(g)
                out.append(k._gram(X[:, cols], None if Zc is None else Zc[:, cols]))
        return out

    def _gram(self, X, Z):
        comps = self.components(X, Z)
        out = comps[0].copy()
        for C in comps[1:]:
            out += C
        return out


_NAMED = {"RBF": RBF, "Linear": Linear, "Polynomial": Polynomial, "Sum": Sum, "Product": Product,
          "Scaled": Scaled, "Precomputed": Precomputed, "Componentwise": Componentwise}


def register_kernel(cls: type[Kernel]) -> type[Kernel]:
    """Make a kernel class known to :func:`kernel_from_dict` (for saving and loading models)."""
    _NAMED[cls.__name__] = cls
    return cls


def kernel_from_dict(d: dict[str, Any]) -> Kernel:
    """Inverse of :meth:`Kernel.to_dict`."""
    try:
        cls = _NAMED[d["kernel"]]
    except KeyError as exc:
        raise InputError(f"unknown kernel in saved description: {d!r}") from exc
    params = {}
    for key, value in d.get("params", {}).items():
        if isinstance(value, dict) and "kernel" in value:
            value = kernel_from_dict(value)
        elif isinstance(value, list) and value and all(isinstance(v, dict) and "kernel" in v for v in value):
            value = [kernel_from_dict(v) for v in value]
        elif key == "columns" and isinstance(value, list):
            value = [tuple(v) if isinstance(v, list) else v for v in value]
        params[key] = value
    return cls(**params)


def make_kernel(kernel: Any = "rbf", *, sigma2: float = 1.0, degree: int = 3, t: float = 1.0) -> Kernel:
    """Kernel object from an estimator's ``kernel`` parameter.

    ``kernel`` is a name (``"rbf"``, ``"linear"``, ``"poly"``/``"polynomial"``,
    ``"precomputed"``), a :class:`Kernel` (used as is; ``sigma2``/``degree``/``t`` ignored) or a
    callable ``f(X, Z) -> Gram``.
    """
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, str):
        name = kernel.lower()
        if name == "rbf":
            return RBF(sigma2=sigma2)
        if name == "linear":
            return Linear()
        if name in ("poly", "polynomial"):
            return Polynomial(degree=degree, t=t)
        if name == "precomputed":
            return Precomputed()
        raise HyperparameterError(
            f"unknown kernel {kernel!r}; use 'rbf', 'linear', 'poly', 'precomputed', a Kernel or a callable"
        )
    if callable(kernel):
        return CallableKernel(kernel)
    raise HyperparameterError(f"kernel must be a name, a Kernel or a callable, got {kernel!r}")


def check_psd(K: np.ndarray, *, rtol: float = 1e-8, name: str = "kernel matrix") -> None:
    """Raise :class:`NotPSDError` unless ``K`` is symmetric PSD within ``rtol * ||K||``.

    Costs one symmetric eigenvalue computation; the built-in kernels skip it (they are PSD by
    construction) and estimators call it for precomputed Grams and user callables.
    """
    K = as_gram(K, name=name, min_samples=1)
    scale = max(np.abs(K).max(), np.finfo(float).tiny)
    asym = np.abs(K - K.T).max()
    if asym > rtol * scale:
        raise NotPSDError(f"{name} is not symmetric: max |K - K'| = {asym:.3g} (scale {scale:.3g})")
    lmin = np.linalg.eigvalsh((K + K.T) / 2)[0]
    if lmin < -rtol * scale * K.shape[0]:
        raise NotPSDError(
            f"{name} is not positive semi-definite: smallest eigenvalue {lmin:.3g} "
            f"(tolerance {-rtol * scale * K.shape[0]:.3g})"
        )
