"""scikit-learn estimators for the classical LS-SVM (AReg paper eq. 1-2 and 57).

Both estimators solve the dual linear system in closed form (one Cholesky factorization and
the Schur complement for the bias, :func:`lssvm_cvx.linalg.engine.decompose`) and can select
(γ, σ²) by exact leave-one-out, exact k-fold cross-validation or GCV from one decomposition per
σ², without refitting per candidate: they are presets of the composed estimator (Squared +
``RKHSNorm(1/γ)``, :mod:`lssvm_cvx.estimators.regularized_search`).

``gamma`` is the LS-SVM regularization constant and ``sigma2`` the RBF width — see
:mod:`lssvm_cvx.estimators.base` for the correspondence with scikit-learn's names.
"""

from __future__ import annotations

from itertools import combinations
from numbers import Real
from typing import ClassVar, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from ..device.nystroem import NystroemFeatures
from ..device.rff import FourierFeatures
from ..exceptions import HyperparameterError, InputError
from ..linalg.engine import RKHS, decompose
from ..model_selection import CRITERIA
from ..linalg.folds import cv_splits
from ..linalg.streaming import is_dask
from ..selection.heldout import ESTIMANDS
from ..terms import RKHSNorm
from .regularized import RegularizedLSSVMClassifier, RegularizedLSSVMRegressor, fit_arrays
from .regularized_device import fit_regularized_device
from .regularized_search import SEARCHES
from .scoring import best_of, preset_results, selection_scoring
from .base import KernelMixin, check_fitted, checked_groups, encode_labels, sample_weights
from .grids import DEFAULT_GAMMA_GRID  # noqa: F401 (importable here, where it was defined)
from .grids import SIGMA2_GRID, gamma_candidates
from .lssvm_approx import APPROXIMATIONS, approximate_decision, dask_targets, search_approximate
from .lssvm_device import (DeviceModelMixin, check_device_options, decision_device, fit_device,
                           labels_device, uses_device)
from .params import (AT_LEAST_TWO, FOLDS, KERNEL_PARAMS, POSITIVE_GRID, POSITIVE_INT, SCORING,
                     Grid, Interval, StrOptions, validate_params)

__all__ = ["LSSVMRegressor", "LSSVMClassifier"]


class _LSSVMBase(DeviceModelMixin, KernelMixin, BaseEstimator):
    """Fit/select/predict shared by the regressor and the classifier."""

    # fitted attribute read back after it is set (declared for the type checker)
    cv_results_: dict[str, Any] | None
    #: the device approximations' feature maps (a device fit's ``to_numpy()`` copy saves them)
    _saved_records = (NystroemFeatures, FourierFeatures)
    #: scikit-learn's constraints (:mod:`lssvm_cvx.estimators.params`); rules between parameters
    #: and γ's weights vector are checked where they are used
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **KERNEL_PARAMS, "gamma": ["array-like", Interval(Real, 0, None, closed="neither")],
        "selection": [StrOptions(set(CRITERIA)), None], "loo": [StrOptions(set(ESTIMANDS))],
        "scoring": SCORING, "gamma_grid": ["array-like", None],
        "sigma2_grid": [StrOptions({"auto"}), "array-like", None],
        "cv": [*FOLDS, StrOptions({"loo"})], "search": [StrOptions(set(SEARCHES))],
        "random_state": ["random_state"], "approximation": [StrOptions(set(APPROXIMATIONS)), None],
        "n_components": [POSITIVE_INT], "n_loo": [AT_LEAST_TWO],
        "sigma2_subsample": [AT_LEAST_TWO, None], "progress": ["boolean"],
    }
    #: the grids' rules (:func:`~lssvm_cvx.estimators.params.validate_params` checks them)
    _grid_parameters: ClassVar[dict[str, Grid]] = {"gamma_grid": POSITIVE_GRID,
                                                   "sigma2_grid": SIGMA2_GRID}

    def _reset_fitted(self) -> None:
        """Forget a previous fit (a failed refit must not leave a half-updated model)."""
        for k in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, k)

    def _fit_approximate(self, X: Any, y: Any, sample_weight: Any, *, classification: bool,
                         score: str = "mse") -> np.ndarray | None:
        """``approximation="nystroem" | "rff"``: the streamed fit of
        :mod:`lssvm_cvx.estimators.lssvm_approx` (NumPy or dask inputs); returns the classes
        of a classifier."""
        if self._precomputed:
            raise HyperparameterError("approximation needs a kernel on the inputs, not 'precomputed'")
        if self.selection not in (None, "loo", "gcv"):
            raise HyperparameterError("with approximation, selection must be None, 'loo' (exact "
                                      "LOO of the approximate model) or 'gcv' (its generalised "
                                      f"cross-validation), got {self.selection!r}")
        if self.selection == "gcv":
            score = "gcv"
        if sample_weight is not None:
            raise InputError(f"sample_weight is not supported with approximation={self.approximation!r} "
                             "(fit the exact LS-SVM, approximation=None, for weighted data)")
        if classification and getattr(self, "multi_class", "ovr") != "ovr":
            raise HyperparameterError("approximation supports multi_class='ovr' only")
        approx: dict[str, Any] = {"gamma": float(self._gamma()), "make_kernel": self._make_kernel}
        classes = None
        if is_dask(X):
            import dask.array as da

            X = da.asarray(X)
            if X.ndim != 2:
                raise InputError(f"X must be 2-D, got {X.ndim} dimensions")
            X = X.astype(np.float64)
            Y, classes = dask_targets(y, classification)
            self.n_features_in_ = int(X.shape[1])
        else:
            if is_dask(y):
                raise InputError("give X and y both as dask arrays or both in memory")
            if classification:
                X, y = self._validate_fit(X, y)
                classes, Y = encode_labels(y)
            else:
                X, Y = self._validate_fit(X, y, y_numeric=True, multi_output=True)
        search_approximate(self, X, Y if Y.ndim == 2 else Y[:, None], score=score, **approx)
        return classes

    def _solve(self, X: np.ndarray, Y: np.ndarray, sample_weight: Any, *, classification: bool,
               score: str = "mse", groups: Any = None, labels: np.ndarray | None = None) -> None:
        """The exact fit, as a preset of the composition (DESIGN: LS-SVM = Squared +
        ``RKHSNorm`` with weight ``1/γ``): the composed estimator's own fit and search
        (:func:`~lssvm_cvx.estimators.regularized.fit_arrays`) over the weight grid ``1/γ``
        of ``gamma_grid``; a point of weight 0 leaves the model (eq. 74), the others weigh
        the loss.  GCV, a criterion rather than held-out splits, picks (γ, σ²) first."""
        gamma = self._gamma()
        self.approximation_ = self.device_ = None
        for attr in ("best_params_", "best_score_", "best_index_"):
            if hasattr(self, attr):
                delattr(self, attr)
        w, keep = sample_weights(sample_weight, X.shape[0])
        Xk = X[np.ix_(keep, keep)] if self._precomputed else X[keep]
        Yk = Y[keep]
        gammas = gamma_candidates(self)
        scoring = selection_scoring(self, classification)
        cv = self.cv
        if self.selection == "kfold":
            # the splits of every sample (cv's indices, groups, labels are the caller's), of which
            # the points of weight 0 leave the model: indices into the kept points
            at = np.cumsum(keep) - 1
            cv = [(at[tr[keep[tr]]], at[te]) for tr, te in cv_splits(
                self.cv, keep.size, y=Y if Y.ndim == 1 else np.argmax(Y, axis=1),
                groups=checked_groups(groups, keep.size), stratified=classification, random_state=self.random_state,
                labeled=keep)]
        core = self._preset(classification, gamma, self.sigma2, gammas, scoring, cv)
        if classification:
            core.classes_ = self.classes_
        fit_arrays(core, Xk, Yk, w, labels=None if labels is None else labels[keep])
        self._read_preset(core, gamma, gammas, scoring)
        self.support_ = np.flatnonzero(keep)
        self.X_fit_ = Xk if not self._precomputed else None

    def _preset(self, classification: bool, gamma: Any, sigma2: Any, gammas: np.ndarray,
                scoring: Any, cv: Any) -> Any:
        """The composed estimator this LS-SVM is: Squared + ``RKHSNorm(1/γ)``, searched over
        the weights ``1/γ`` of ``gammas`` when ``selection`` is set (held-out splits or GCV)."""
        if np.ndim(gamma):
            raise HyperparameterError(
                "gamma must be a number > 0; per-point constants γ_i = γ w_i (eq. 74) are "
                "given as sample_weight=w")
        return (RegularizedLSSVMClassifier if classification else RegularizedLSSVMRegressor)(
            kernel=self.kernel, sigma2=sigma2, degree=self.degree, t=self.t,
            terms={"rkhs": (RKHSNorm(), 1.0 / float(gamma))}, selection=self.selection,
            loo=self.loo, scoring=scoring, weight_grid={"rkhs": 1.0 / gammas},
            sigma2_grid=self.sigma2_grid if self.selection else None, cv=cv, search=self.search,
            random_state=self.random_state)

    def _read_preset(self, core: Any, gamma: Any, gammas: np.ndarray, scoring: Any) -> None:
        """The fitted preset's model and search in the LS-SVM's words (``gamma_``, the grid view
        of ``cv_results_``: :func:`~lssvm_cvx.estimators.scoring.preset_results`)."""
        results = None
        if self.selection is not None:
            gamma, results = preset_results(core.cv_results_, gammas, scoring.kind,
                                            float(core.sigma2_), self.selection)
            self.best_index_, self.best_params_, self.best_score_ = best_of(results)
        self.kernel_ = core.kernel_
        self.gamma_ = float(gamma)
        self.sigma2_: float = float(core.sigma2_)
        self.cv_results_ = results
        self.dual_coef_ = core.dual_coef_
        self.intercept_ = core.intercept_

    def _fit_device(self, X: Any, y: Any, sample_weight: Any, groups: Any, *,
                    classification: bool) -> Any:
        """Device arrays (:mod:`lssvm_cvx.estimators.lssvm_device`): the approximations on
        their own path; the exact LS-SVM as the same preset on the composed estimator's
        device path (:mod:`lssvm_cvx.estimators.regularized_device`)."""
        self._reset_fitted()
        if self.approximation is not None:      # fit_device checks the options itself
            return fit_device(self, X, y, sample_weight, groups, classification=classification)
        check_device_options(self, sample_weight, groups, classification)
        gammas, scoring, g = gamma_candidates(self), selection_scoring(self, classification), self._gamma()
        core = self._preset(classification, g, self.sigma2, gammas, scoring, self.cv)
        fit_regularized_device(core, X, y, sample_weight, groups, classification=classification)
        self._read_preset(core, g, gammas, scoring)
        self.__dict__.update({a: v for a, v in vars(core).items() if a in (
            "X_fit_", "support_", "device_", "n_features_in_", "classes_", "pairs_")}, approximation_=None)
        return self

    def _decision(self, X: Any) -> np.ndarray:
        check_fitted(self, "intercept_")
        if getattr(self, "device_", None) is not None:  # fitted on a device (lssvm_device)
            return decision_device(self, X)
        if getattr(self, "approximation_", None) is not None:
            return approximate_decision(self, X, self._validate_predict)
        X = self._validate_predict(X)
        K = X[:, self.support_] if self._precomputed else self.kernel_(X, self.X_fit_)
        return K @ self.dual_coef_ + self.intercept_


class LSSVMRegressor(RegressorMixin, _LSSVMBase):
    """LS-SVM regression (AReg paper eq. 1-2), fitted in closed form.

    Parameters
    ----------
    kernel :
        ``"rbf"`` (``exp(-||x-z||²/sigma2)``), ``"linear"``, ``"poly"`` (``(x'z + t)^degree``),
        ``"precomputed"``, a :class:`~lssvm_cvx.kernels.Kernel`, or a callable ``f(X, Z)``.
    sigma2 :
        RBF width σ² > 0 (scikit-learn's RBF ``gamma`` is ``1/sigma2``).
    gamma :
        Regularization constant γ > 0 of eq. (1) — *not* scikit-learn's RBF width.
    degree, t :
        Polynomial kernel degree and offset.
    selection :
        ``None`` (use ``gamma``, ``sigma2`` as given), ``"loo"`` (exact leave-one-out),
        ``"kfold"`` (exact ``cv``-fold cross-validation) or ``"gcv"``: choose γ from
        ``gamma_grid`` (and σ² from ``sigma2_grid`` when given) without refitting per
        candidate.
    loo :
        The estimand, ``"refit"`` (a held-out point leaves the fit, as in
        ``GridSearchCV(est, cv=LeaveOneOut())``) or ``"loss"`` (it leaves the loss only): for
        the LS-SVM the two are the same number (the representer theorem: the point's own basis
        function does not help a fit that ignores it), so both are exact here; the parameter
        is accepted for the estimators' common vocabulary.
    scoring :
        What the search maximises per split (averaged over splits as ``GridSearchCV`` does):
        None is ``neg_mean_squared_error`` (the classifier: ``selection_score``); any
        scikit-learn scorer name or callable ``scorer(estimator, X, y)``
        (:mod:`lssvm_cvx.estimators.scoring`).
    gamma_grid, sigma2_grid :
        γ candidates (default :data:`~lssvm_cvx.estimators.grids.DEFAULT_GAMMA_GRID`); σ²
        candidates: None (``sigma2`` as given: an explicit width is never replaced), ``"auto"``
        (:func:`~lssvm_cvx.estimators.grids.default_sigma2_grid`) or widths; with ``kernel="rbf"`` or, for the exact fit, a
        kernel object that holds widths (``Componentwise(RBF())``, ``RBF() + Linear()``:
        :func:`~lssvm_cvx.estimators.grids.set_width`).
    cv :
        Number of folds (shuffled with ``random_state``), a scikit-learn splitter (``KFold``,
        ``StratifiedKFold``, ``GroupKFold`` with ``fit(..., groups=)``, ``ShuffleSplit``...)
        or an iterable of ``(train, test)`` pairs, for ``selection="kfold"``: test sets that
        partition the data are scored from one factorisation per candidate (exact k-fold),
        others by refitting on each training set (the composed estimator's search).
    search :
        How ``selection="loo"`` covers the RBF grid: ``"grid"`` (exact LOO everywhere: one
        eigendecomposition per σ²), ``"screen"`` (a rank-300 Nyström screen of the whole grid,
        exact LOO around the best screened width, :mod:`lssvm_cvx.selection.screen`; the chosen point
        and its score are exact) or ``"auto"`` (screen above
        :data:`~lssvm_cvx.estimators.regularized_search.SCREEN_MIN_ROWS` rows
        without ``sample_weight``).
    random_state :
        Seed of the fold shuffling, of the screen's landmarks and of the approximation's
        centres / random features.
    approximation :
        ``None`` (the exact dual, eq. 2), ``"nystroem"`` (Nyström feature map of the kernel on
        ``n_components`` random training rows) or ``"rff"`` (random Fourier features, RBF
        only): the LS-SVM on the approximate Gram ``ΦΦ'``, fitted by streaming the features in
        row blocks — never an ``N × m`` array — on NumPy or ``dask.array`` inputs
        (:mod:`lssvm_cvx.estimators.lssvm_approx`).  ``selection`` may then be None,
        ``"loo"`` (exact LOO of the approximate model) or ``"gcv"`` (its generalised
        cross-validation over every row); no ``sample_weight``.
    n_components :
        Number of Nyström centres or random features ``m``.
    sigma2_subsample :
        With ``approximation`` and ``selection="loo"`` or ``"gcv"`` over several σ²: above this
        many rows the width is chosen on a seeded subsample of this many rows (the approximate
        model's criterion there), then γ by the criterion's path on every row at that width
        (one pass over the data instead of one per σ²; ``cv_results_["sigma2_stage"]``).
        None: every σ² on every row.
    n_loo :
        With ``approximation``: the LOO criterion is evaluated on every row up to ``n_loo``
        rows, above that on a seeded uniform subsample of ``n_loo`` rows (``loo_rows_``);
        ``selection="gcv"`` uses every row.
    progress :
        With ``approximation``: tqdm progress bars over the row blocks.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        α of eq. (2); the model is ``f(x) = Σ_i α_i K(x_i, x) + b``.
    intercept_ : float or ndarray
        The bias ``b``.
    gamma_, sigma2_ : float
        The regularization constant and width used (selected ones when ``selection`` is set).
    cv_results_ : dict or None
        When ``selection`` is set, the (σ², γ) grid keyed as ``GridSearchCV.cv_results_``:
        ``params`` (one dict per candidate, σ² outer, γ inner), ``param_sigma2``,
        ``param_gamma``, ``split<k>_test_score``, ``mean_test_score``, ``std_test_score`` and
        ``rank_test_score`` (GCV: no split scores, ``mean_test_score`` is minus the
        criterion; the screen: NaN for the candidates it left unscored); also ``gammas``,
        ``sigma2s``, ``scores`` (the criterion the search minimised as a σ² × γ grid: minus
        ``mean_test_score``, one minus it for accuracy), ``criterion`` and
        ``best_gamma``/``best_sigma2``/``best_score`` (the chosen candidate), after a screen
        ``screen_scores`` and ``n_exact`` (:func:`~lssvm_cvx.estimators.scoring.preset_results`).
    best_params_, best_score_, best_index_ : dict, float, int
        The chosen candidate, its mean test score and its index in ``cv_results_`` (after a
        search).
    kernel_ : Kernel
        The kernel object used.
    X_fit_ : ndarray
        Training inputs (None for a precomputed kernel).
    support_ : ndarray
        Indices of the training points used (those with positive ``sample_weight``).
    approximation_ : str or None
        The approximation fitted (None: the exact dual; then ``coef_`` and ``feature_map_`` are
        not set, and with an approximation ``dual_coef_``, ``X_fit_``, ``support_`` are None).
    coef_ : ndarray of shape (m,) or (m, n_targets)
        θ of the primal ``f(x) = φ(x)'θ + b`` (with ``approximation``).
    feature_map_ : NystroemMap or RandomFourierMap
        The feature map ``φ`` (with ``approximation``).
    loo_residuals_ : ndarray
        Exact LOO residuals of the approximate model on ``loo_rows_`` (with ``approximation``;
        a lazy dask array for dask inputs).

    Notes
    -----
    ``sample_weight`` gives the weighted LS-SVM of eq. (74)-(75) with ``γ_i = γ w_i``: a weight
    of 2 equals repeating the point, a weight of 0 removes it.  Several target columns share one
    factorization.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("lssvm", "weighted_lssvm")

    def __init__(self, kernel: Any = "rbf", sigma2: float = 1.0, gamma: float = 1.0, *,
                 degree: int = 3, t: float = 1.0, selection: str | None = None,
                 loo: str = "refit", scoring: Any = None,
                 gamma_grid: Any = None, sigma2_grid: Any = None, cv: Any = 10,
                 search: str = "auto", random_state: Any = None, approximation: str | None = None,
                 n_components: int = 500, n_loo: int = 20000, sigma2_subsample: int | None = 20000,
                 progress: bool = False):
        self.approximation = approximation
        self.sigma2_subsample = sigma2_subsample
        self.n_components = n_components
        self.n_loo = n_loo
        self.progress = progress
        self.kernel = kernel
        self.sigma2 = sigma2
        self.gamma = gamma
        self.degree = degree
        self.t = t
        self.search = search
        self.selection = selection
        self.loo = loo
        self.scoring = scoring
        self.gamma_grid = gamma_grid
        self.sigma2_grid = sigma2_grid
        self.cv = cv
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None
            ) -> "LSSVMRegressor":
        """Fit on ``X`` (n_samples, n_features) and targets ``y`` (1-D or one column per target);
        ``groups`` are the group labels of a group splitter in ``cv``."""
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        if uses_device(X):  # a GPU tensor (or any array API with array_api_dispatch on)
            return self._fit_device(X, y, sample_weight, groups, classification=False)
        if self.approximation is not None:
            self._reset_fitted()
            try:
                self._fit_approximate(X, y, sample_weight, classification=False)
            except BaseException:
                self._reset_fitted()  # nothing half-fitted
                raise
            return self
        X, y = self._validate_fit(X, y, y_numeric=True, multi_output=True)
        self._solve(X, y, sample_weight, classification=False, groups=groups)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``f(x) = Σ_i α_i K(x_i, x) + b``."""
        return self._decision(X)


class LSSVMClassifier(ClassifierMixin, _LSSVMBase):
    """LS-SVM classifier (AReg paper eq. 57), binary or multiclass, fitted in closed form.

    Parameters
    ----------
    kernel, sigma2, gamma, degree, t, selection, loo, scoring, gamma_grid, sigma2_grid, cv, search, random_state :
        As in :class:`LSSVMRegressor` (γ is the regularization constant, σ² the RBF width);
        with ``scoring=None`` the classifier scores by ``selection_score``.
    approximation, n_components, n_loo, sigma2_subsample, progress :
        As in :class:`LSSVMRegressor` (streamed Nyström / random features, NumPy or dask
        inputs; one-vs-rest only).
    multi_class :
        ``"ovr"`` (one-vs-rest: all classes share one factorization, ±1 target columns) or
        ``"ovo"`` (one binary LS-SVM per pair of classes, majority vote).
    selection_score :
        ``"mse"`` (squared held-out residual on the ±1 targets) or ``"misclassification"``
        (held-out error rate: ``cv_results_`` then scores accuracy) for LOO / k-fold
        selection when ``scoring`` is None.

    Attributes
    ----------
    classes_ : ndarray
        Class labels; for two classes ``classes_[1]`` is the +1 class.
    dual_coef_ : ndarray
        ``α_i y_i`` of eq. (57) (binary), so ``f(x) = Σ_i dual_coef_i K(x_i, x) + b``; one column
        per class for one-vs-rest; for one-vs-one see ``pairs_``.
    intercept_ : float or ndarray
        The bias ``b`` (per column for one-vs-rest).
    alpha_ : ndarray
        The paper's α of eq. (57) for a binary problem (``dual_coef_ * y``).
    pairs_ : list of (int, int)
        Class index pairs of the one-vs-one models (``multi_class="ovo"`` with > 2 classes).

    Notes
    -----
    With labels ``y ∈ {-1, +1}``, eq. (57) is the regression system on the ±1 targets after the
    substitution ``α̃ = y ∘ α`` (see :mod:`lssvm_cvx.formulations.lssvm`); the estimator solves
    that form, which lets one-vs-rest share one Cholesky factorization across classes.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("lssvm_classifier",)

    # fitted attributes read back after they are set (declared for the type checker)
    classes_: np.ndarray
    pairs_: list[tuple[int, int]] | None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_LSSVMBase._parameter_constraints,
        "multi_class": [StrOptions({"ovr", "ovo"})],
        "selection_score": [StrOptions({"mse", "misclassification", "error"})],
    }

    def __init__(self, kernel: Any = "rbf", sigma2: float = 1.0, gamma: float = 1.0, *,
                 degree: int = 3, t: float = 1.0, multi_class: str = "ovr",
                 selection: str | None = None, selection_score: str = "mse",
                 loo: str = "refit", scoring: Any = None,
                 gamma_grid: Any = None, sigma2_grid: Any = None, cv: Any = 10,
                 search: str = "auto", random_state: Any = None, approximation: str | None = None,
                 n_components: int = 500, n_loo: int = 20000, sigma2_subsample: int | None = 20000,
                 progress: bool = False):
        self.approximation = approximation
        self.sigma2_subsample = sigma2_subsample
        self.n_components = n_components
        self.n_loo = n_loo
        self.progress = progress
        self.kernel = kernel
        self.sigma2 = sigma2
        self.gamma = gamma
        self.degree = degree
        self.t = t
        self.search = search
        self.multi_class = multi_class
        self.selection = selection
        self.loo = loo
        self.scoring = scoring
        self.selection_score = selection_score
        self.gamma_grid = gamma_grid
        self.sigma2_grid = sigma2_grid
        self.cv = cv
        self.random_state = random_state

    def fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None
            ) -> "LSSVMClassifier":
        """Fit on ``X`` and labels ``y`` (any hashable labels, at least two classes); ``groups``
        are the group labels of a group splitter in ``cv``."""
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        if uses_device(X):  # a GPU tensor (or any array API with array_api_dispatch on)
            return self._fit_device(X, y, sample_weight, groups, classification=True)
        if self.approximation is not None:
            self._reset_fitted()
            try:
                classes = self._fit_approximate(X, y, sample_weight, classification=True,
                                                score=self.selection_score)
                assert classes is not None  # a classifier's fit always returns its classes
                self.classes_ = classes
            except BaseException:
                self._reset_fitted()  # nothing half-fitted
                raise
            self.pairs_ = None
            return self
        X, y = self._validate_fit(X, y)
        self.classes_, Y = encode_labels(y)
        C = self.classes_.size
        self._solve(X, Y, sample_weight, classification=True, score=self.selection_score,
                    groups=groups, labels=np.asarray(y))
        self.pairs_ = None
        if C == 2:
            self.alpha_ = self.dual_coef_ * Y[self.support_]
        elif self.multi_class == "ovo":
            self._fit_ovo(X, Y.argmax(axis=1)[self.support_], sample_weights(sample_weight, X.shape[0])[0])
        return self

    def _fit_ovo(self, X: np.ndarray, yi: np.ndarray, w: np.ndarray | None) -> None:
        """One binary LS-SVM per class pair at the (γ, σ²) selected on the one-vs-rest coding."""
        Xs = X[np.ix_(self.support_, self.support_)] if self._precomputed else X[self.support_]
        Omega = self._gram(self.kernel_, Xs)
        C = self.classes_.size
        coefs = np.zeros((Omega.shape[0], C * (C - 1) // 2))
        b = np.zeros(coefs.shape[1])
        self.pairs_ = list(combinations(range(C), 2))
        for k, (i, j) in enumerate(self.pairs_):
            idx = np.flatnonzero((yi == i) | (yi == j))
            yy = np.where(yi[idx] == j, 1.0, -1.0)
            g = self.gamma_ if w is None else self.gamma_ * w[idx]
            a, bb = decompose(Omega[np.ix_(idx, idx)], g, {"rkhs": (RKHS, 1.0)}
                              ).system(overwrite_gram=True).solve(yy)
            coefs[idx, k] = a
            b[k] = bb
        self.dual_coef_ = coefs
        self.intercept_ = b

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x)`` (binary: positive means ``classes_[1]``); one column per class otherwise
        (one-vs-one: votes plus a confidence term in (-1/3, 1/3), as scikit-learn does)."""
        F = self._decision(X)
        if self.pairs_ is None:
            return F
        C = self.classes_.size
        votes = np.zeros((F.shape[0], C))
        conf = np.zeros((F.shape[0], C))
        for k, (i, j) in enumerate(self.pairs_):
            votes[:, j] += F[:, k] > 0
            votes[:, i] += F[:, k] <= 0
            conf[:, j] += F[:, k]
            conf[:, i] -= F[:, k]
        return votes + conf / (3 * (np.abs(conf) + 1))

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels (a lazy dask array for a dask ``X``, as ``decision_function``)."""
        F = self.decision_function(X)
        if getattr(self, "device_", None) is not None:
            return labels_device(self, F)
        idx: Any = (F > 0).astype(int) if F.ndim == 1 else F.argmax(axis=1)
        if is_dask(idx):
            classes = self.classes_
            return idx.map_blocks(lambda i: classes[i], dtype=classes.dtype)
        return self.classes_[idx]
