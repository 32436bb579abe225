"""scikit-learn estimator for the ℓ2-SVM of Bonidal, Tindel & Guermeur (2013): a fixed-λ fit
(Problem 2 by the active-set iteration) or model selection along the regularization path with
the span leave-one-out test error prediction or the radius-margin bound (§3), optionally after
Chapelle et al.'s (2002) gradient-based selection of the RBF width (§4.4, Tables 3 and 6).

``lam`` is the paper's regularization coefficient λ (Problem 1: ``||ξ||² + (λ/2)||h̄||²``); in
scikit-learn's ``SVC(loss="squared_hinge")`` terms ``C = 1/λ`` up to the factor of the loss
(Problem 1 is ``C' Σ ξ_i² + ½||h̄||²`` with ``C' = 1/λ``).  ``sigma2`` is the RBF width in
``exp(-||x - z||²/σ²)`` (see :mod:`lssvm_cvx.estimators.base`).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ..exceptions import HyperparameterError
from ..formulations.l2svm_active_set import solve_fixed
from ..kernels.base import Kernel
from ..kernels.factors import LOW_RANK_METHODS, OLD_SPELLINGS, LowRankFactor, low_rank_method, make_factor
from ..selection.l2svm_gradient import select_gradient
from ..selection.l2svm_path import Expandable, expand, regularization_path
from .base import BestOfSearch, BinaryClassifierMixin, KernelMixin, check_fitted, encode_labels
from .params import KERNEL_PARAMS, NONNEGATIVE, POSITIVE, POSITIVE_INT, StrOptions, validate_params
from .search_results import search_results

__all__ = ["L2SVMClassifier"]


class L2SVMClassifier(BestOfSearch, BinaryClassifierMixin, KernelMixin, ClassifierMixin,
                      BaseEstimator):
    """Binary ℓ2-SVM (squared hinge loss), Bonidal et al. (2013) Problems 1-2.

    Parameters
    ----------
    lam : float, default=1.0
        Regularization coefficient λ > 0 (used when ``path=False``).
    path : bool, default=False
        Fit the whole regularization path from ``lam_max`` down to ``lam_min`` (Fig. 1) and keep
        the λ minimising ``criterion`` (Fig. 2).
    criterion : str, default="span"
        ``"span"`` (span leave-one-out test error prediction, Proposition 4) or
        ``"radius_margin"`` (Theorem 1; one enclosing-ball QP per path point).
    rank : int or None, default=None
        Maximum rank of the Hessian approximation (``low_rank`` methods); ``rank`` larger than
        the number of training points is an error.
    low_rank : str or None, default=None
        ``None`` (exact Gram), ``"eigen"`` (truncated eigendecomposition; with ``rank`` and
        ``threshold`` None it keeps the numerical rank and is exact up to rounding),
        ``"nystroem"`` (uniform landmarks), ``"nystroem-density"`` (k-means landmarks with
        density weights, Zhang & Kwok 2009) or ``"icf"`` (pivoted incomplete Cholesky); the
        old spellings ``"nystrom"`` and ``"nystrom-density"`` are accepted with a FutureWarning.
    kernel : {"rbf", "linear", "poly", "precomputed"}, Kernel or callable, default="rbf"
        Kernel as in the other estimators (``"rbf"`` is ``exp(-||x-z||²/sigma2)``, ``"poly"`` is
        ``(x'z + t)^degree``, ``"linear"``, ``"precomputed"``, a Kernel or a callable).
    sigma2 : float, default=1.0
        Width of the RBF kernel.
    degree : int, default=3
        Degree of the polynomial kernel.
    t : float, default=1.0
        Offset of the polynomial kernel.
    threshold : float or None, default=None
        Eigenvalue threshold of the approximation (§2.7.1; None: no threshold).
    n_landmarks : int or None, default=None
        Nyström landmarks (default 60% of the training set, §4.4).
    breakpoints : str, default="paper"
        ``"paper"`` (the 2% rule of §2.5) or ``"exact"`` (every breakpoint by root finding).
    lam_min : float, default=1e-06
        Range of the path (the paper's 1e-6 and 1e7).
    lam_max : float, default=1e7
        Range of the path (the paper's 1e-6 and 1e7).
    expansion : str, default="landmarks"
        ``"landmarks"`` (exact expansion of the approximate classifier on the landmarks) or
        ``"support"`` (the paper's §2.7.3 expansion on ``E``); irrelevant for the exact Gram.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the Nyström landmark draw / k-means.
    sigma_selection : {None, "gradient"}, default=None
        ``"gradient"``: before the fit, select ``(σ², λ)`` jointly by Chapelle et al.'s (2002)
        gradient descent on ``criterion`` (the smoothed span estimate or the radius-margin
        bound, with their analytic gradients; :func:`~lssvm_cvx.selection.l2svm_gradient.select_gradient`),
        started from ``(sigma2, lam)`` on the exact Gram.  With ``path=False`` the machine is
        then fitted at the selected ``(σ², λ)`` (the "Gradient" columns of Bonidal et al.'s
        Tables 3-6); with ``path=True`` only σ² is kept and λ is selected along the path (the
        "Path" column of Table 3).  Needs ``kernel="rbf"``.
    gradient_max_iter : int, default=50
        Iterations of the gradient method (``sigma_selection="gradient"``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the +1 class.
    lam_ : float
        The λ used (the selected one when ``path=True``).
    alpha_ : ndarray (n_samples,)
        The multipliers α of Problem 2 on the training points.
    active_set_ : ndarray
        ``E``: indices of the support vectors (``α_i > 0``).
    intercept_ : float
        ``α_0 = b``.
    dual_coef_ : ndarray
        Expansion coefficients γ: ``h(x) = Σ_j γ_j k(z_j, x) + b``.
    support_vectors_ : ndarray
        The expansion points ``z_j`` (training points ``x_E`` for the exact Gram, the landmarks
        otherwise); None for a precomputed kernel (then ``support_`` indexes the columns).
    support_ : ndarray or None
        Indices of the expansion points in the training set when they are training points.
    rank_ : int or None
        Rank of the Hessian approximation.
    sigma2_ : float or None
        The RBF width used (the selected one with ``sigma_selection="gradient"``; None for a
        non-RBF kernel).
    gradient_ : dict or None
        With ``sigma_selection="gradient"``: ``sigma2``, ``lam`` and ``value`` (criterion) at
        the selected point, ``history`` (one dict per evaluation), ``n_evals``, ``n_iter``,
        ``converged``, ``message`` and ``time`` (seconds).
    path_ : dict or None
        With ``path=True``: ``lambdas`` (the path points, decreasing), ``alpha`` (array of
        shape ``(n_lambdas, n_samples)``: row ``k`` holds the multipliers ``α_i(λ_k)`` of
        Problem 2, zero off the active set — the αᵢ(λ) path; one dense row per point, so
        ``8 · n_lambdas · n_samples`` bytes), ``intercept`` (``α_0(λ_k)``), ``criterion`` (its
        values at the path points), ``criterion_name``, ``m_E`` (``|E|`` at each point),
        ``breakpoints`` and ``timing`` (seconds: ``factor``, ``path``, ``span`` or
        ``radius_margin``, ``expansion``).
    cv_results_ : dict or None
        With ``path=True``: the path points as candidates in scikit-learn's layout
        (``params`` = ``[{"lam": λ_k}, ...]``, ``param_lam``, ``mean_test_score`` = minus the
        criterion, ``rank_test_score``) and ``criterion`` (its name).
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("l2svm_dual", "l2svm_radius")

    # fitted attributes that may be None (documented above)
    path_: dict[str, Any] | None
    cv_results_: dict[str, Any] | None
    support_: np.ndarray | None

    def __init__(self, lam: float = 1.0, *, path: bool = False, criterion: str = "span",
                 rank: int | None = None, low_rank: str | None = None, kernel: Any = "rbf",
                 sigma2: float = 1.0, degree: int = 3, t: float = 1.0,
                 threshold: float | None = None, n_landmarks: int | None = None,
                 breakpoints: str = "paper", lam_min: float = 1e-6, lam_max: float = 1e7,
                 expansion: str = "landmarks", random_state: Any = None,
                 sigma_selection: str | None = None, gradient_max_iter: int = 50):
        self.lam = lam
        self.path = path
        self.criterion = criterion
        self.rank = rank
        self.low_rank = low_rank
        self.kernel = kernel
        self.sigma2 = sigma2
        self.degree = degree
        self.t = t
        self.threshold = threshold
        self.n_landmarks = n_landmarks
        self.breakpoints = breakpoints
        self.lam_min = lam_min
        self.lam_max = lam_max
        self.expansion = expansion
        self.random_state = random_state
        self.sigma_selection = sigma_selection
        self.gradient_max_iter = gradient_max_iter

    #: scikit-learn's constraint language (:mod:`lssvm_cvx.estimators.params`); the rules
    #: between parameters (``rank`` within the training set and only with a ``low_rank``
    #: method, ``lam_min < lam_max``, the gradient selection only for the RBF kernel) are
    #: checked by hand in :meth:`_check_params`
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **KERNEL_PARAMS,
        "lam": [POSITIVE],
        "path": ["boolean"],
        "criterion": [StrOptions({"span", "radius_margin"})],
        "rank": [POSITIVE_INT, None],
        "low_rank": [StrOptions({m for m in LOW_RANK_METHODS if m is not None} | set(OLD_SPELLINGS),
                                deprecated=set(OLD_SPELLINGS)), None],
        "threshold": [NONNEGATIVE, None],
        "n_landmarks": [POSITIVE_INT, None],
        "breakpoints": [StrOptions({"paper", "exact"})],
        "lam_min": [POSITIVE],
        "lam_max": [POSITIVE],
        "expansion": [StrOptions({"landmarks", "support"})],
        "random_state": ["random_state"],
        "sigma_selection": [StrOptions({"gradient"}), None],
        "gradient_max_iter": [POSITIVE_INT],
    }

    def _check_params(self, m: int) -> None:
        validate_params(self, self._parameter_constraints)
        if self.rank is not None:
            if self.low_rank is None:
                raise HyperparameterError("rank needs a low_rank method ('eigen', 'nystroem', "
                                          "'nystroem-density' or 'icf')")
            if self.rank > m:
                raise HyperparameterError(
                    f"rank = {self.rank} is larger than the number of training points m = {m}")
        if not self.lam_min < self.lam_max:
            raise HyperparameterError(f"lam_min must be below lam_max, got lam_min = "
                                      f"{self.lam_min!r} and lam_max = {self.lam_max!r}")
        if self.sigma_selection == "gradient" and not (isinstance(self.kernel, str)
                                                       and self.kernel.lower() == "rbf"):
            raise HyperparameterError("sigma_selection='gradient' needs kernel='rbf'")

    def fit(self, X: Any, y: Any) -> L2SVMClassifier:
        """Fit on ``X`` (n_samples, n_features) and two-class labels ``y``."""
        X, y = self._validate_fit(X, y)
        self.classes_, ypm = encode_labels(y, binary=True, model="the ℓ2-SVM")
        m = X.shape[0]
        self._check_params(m)
        lam = float(self.lam)
        self.gradient_ = None
        if self.sigma_selection == "gradient":
            g = select_gradient(X, ypm, sigma2=float(self.sigma2), lam=lam,
                                criterion=self.criterion, max_iter=int(self.gradient_max_iter),
                                lam_bounds=(self.lam_min, self.lam_max))
            self.gradient_ = {"sigma2": g.sigma2, "lam": g.lam, "value": g.value, "history": g.history,
                              "n_evals": g.n_evals, "n_iter": g.n_iter, "converged": g.converged,
                              "message": g.message, "time": g.time}
            kernel = self._make_kernel(g.sigma2)
            lam = g.lam
        else:
            kernel = self._make_kernel()
        self.sigma2_ = float(kernel.sigma2) if hasattr(kernel, "sigma2") else None
        pre = self._precomputed
        K, factor = None, None
        low_rank = low_rank_method(self.low_rank, stacklevel=4)
        if low_rank is None:
            K = self._gram(kernel, X)
        else:
            if pre and low_rank in ("nystroem", "nystroem-density"):
                raise HyperparameterError("Nyström needs a kernel function, not a precomputed Gram")
            Kfull = self._gram(kernel, X) if (pre or low_rank == "eigen" or not kernel.psd) else None
            factor = make_factor(low_rank, None if pre else X, kernel, K=Kfull, rank=self.rank,
                                 threshold=self.threshold, n_landmarks=self.n_landmarks,
                                 random_state=self.random_state)
        self.rank_ = None if factor is None else int(factor.rank)
        if self.path:
            P = regularization_path(ypm, K=K, factor=factor, lam_min=self.lam_min, lam_max=self.lam_max,
                                    breakpoints=self.breakpoints, X=None if pre else X, kernel=kernel)
            lam_sel, lams, vals = P.select(self.criterion)
            st = P.state_at(lam_sel)
            alphas = np.zeros((len(P.lambdas), m))
            for k, (E, a) in enumerate(zip(P.active_sets, P.alphas)):
                alphas[k, E] = a
            self.path_ = {"lambdas": np.asarray(lams), "criterion": np.asarray(vals),
                          "criterion_name": self.criterion, "m_E": P.m_E(),
                          "alpha": alphas, "intercept": np.asarray(P.alpha0, dtype=np.float64),
                          "breakpoints": np.asarray(P.breakpoints),
                          "timing": {k: float(v) for k, v in P.timing.items()}}
            self.cv_results_ = search_results([{"lam": float(v)} for v in lams], vals,
                                              criterion=self.criterion)
            self.lam_ = float(lam_sel)
            source: Expandable = P
        else:
            source = _FixedPath(ypm, K, factor, None if pre else X, kernel)
            st = solve_fixed(ypm, lam, hess=source.hess)
            self.path_ = None
            self.cv_results_ = None
            self.lam_ = lam
        t0 = time.perf_counter()
        Z, coef, b = expand(source, st, expansion=self.expansion)
        if self.path_ is not None:
            self.path_["timing"]["expansion"] = time.perf_counter() - t0
        self.alpha_ = st.alpha(m)
        self.active_set_ = st.E
        self.intercept_ = float(b)
        self.dual_coef_ = np.asarray(coef, dtype=np.float64)
        exact = factor is None or factor.info.get("numerically_exact", False)
        if factor is None or exact or self.expansion == "support":  # (factor is None: exact)
            self.support_ = st.E
        else:  # landmarks: training points except for k-means centres
            self.support_ = None if factor.method == "nystroem-density" else factor.landmark_index
        if pre:
            self.support_ = np.asarray(Z)
            self.support_vectors_ = None
        else:
            self.support_vectors_ = np.asarray(Z)
        self.kernel_ = kernel
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``h(x) = Σ_j γ_j k(z_j, x) + b`` (positive means ``classes_[1]``)."""
        check_fitted(self, "dual_coef_")
        X = self._validate_predict(X)
        if self._precomputed:
            Kn = X[:, self.support_]
        else:
            Kn = self.kernel_(X, self.support_vectors_)
        return Kn @ self.dual_coef_ + self.intercept_

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        check_fitted(self, "dual_coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class _FixedPath:
    """The minimal path-like object :func:`~lssvm_cvx.l2svm_path.expand` needs for a fixed-λ fit."""

    def __init__(self, y: np.ndarray, K: np.ndarray | None, factor: LowRankFactor | None, X: Any,
                 kernel: Kernel | None):
        from ..formulations.l2svm_active_set import Hessian

        self.y = y
        self.hess = Hessian(y, K=K, factor=factor)
        self.X = X
        self.kernel = kernel
