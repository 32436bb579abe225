"""Fit-and-forget Auto LS-SVM estimators (Sorber 2017): gradient-norm regularised RBF models,
tuned by exact leave-one-out, with prediction intervals and calibrated probabilities.

>>> from lssvm_cvx import AutoLSSVMRegressor
>>> model = AutoLSSVMRegressor().fit(X, y)                   # doctest: +SKIP
>>> model.predict_interval(X_new, coverage=0.9)              # doctest: +SKIP

What ``fit`` does (no parameter needs setting):

1. standardises every input column and (regression) the targets, so rescaling either changes
   nothing; constant columns drop out of the eq. (44) width ``γ/p``;
2. builds the basis: the dual (centres = training rows, note eq. 8) up to ``max_exact`` rows,
   above that ``n_components`` Nyström centres (``approximation="auto"`` or ``"nystroem"``: the
   same objective with the centres restricted to a subset, the note's exact gradient integral)
   or random Fourier features (``"rff"``, gradient norm averaged over the data, since its
   integral over ``R^d`` diverges for a sum of cosines): both the primal problem (N1) of
   :mod:`lssvm_cvx.linalg.penalized`, with the same formulas; memory O(N·m) (the design stored
   once, the rest formed in row chunks).
   Nyström is the default because it was the more accurate of the two on Friedman #1 at
   N = 10⁴ and 10⁵ and on par on abalone (``benchmarks/results/auto_large.md``);
3. chooses (γ, μ, ν) by exact leave-one-out (:func:`lssvm_cvx.selection.auto.auto_search`: one
   decomposition per width, every μ and ν from it) unless given;
4. solves the normalised objective (9) by one Cholesky factorisation and keeps the exact LOO
   residuals, which give the prediction intervals (jackknife+, Barber et al. 2021) and the
   probability calibration (temperature scaling of the LOO decision values).

Hyperparameters are the normalised ones of §1.3 (see :mod:`lssvm_cvx.linalg.penalized`):
``kernel_gamma`` (formerly ``gamma``) is the width of ``exp(-(γ/p)||x - z||²)`` on standardised inputs, ``mu`` the weight of the
gradient-norm term relative to the data-fit curvature, ``nu`` that of the L2 (margin) term; the
equivalent raw weights of eq. (9) are stored as ``mu_paper_`` and ``nu_paper_``.
"""

from __future__ import annotations

import warnings
from typing import ClassVar, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from ..selection.auto import CRITERIA, auto_search
from ..terms.gradient_basis import MARGINS, basis_transform
from ..linalg.threads import small_system_blas
from ..checks import check_positive
from ..exceptions import ConditioningWarning, HyperparameterError, InputError
from .auto_device import (auto_calibration_targets, auto_decision_device,
                          auto_interval_device, auto_labels_device, auto_proba_device,
                          constant_model, device_basis, device_fit_inputs, record_fit)
from .auto_stream import (check_dask_target, input_stats, is_dask, pick_centres,
                          problem_factory)
from .base import (BestOfSearch, SaveMixin, check_fitted, encode_labels, sample_weights,
                   validate_fit_data, validate_predict_data)
from .params import (AT_LEAST_TWO, DEPRECATED, NONNEGATIVE, NONNEGATIVE_GRID, POSITIVE,
                     POSITIVE_GRID, POSITIVE_INT, Grid, StrOptions, validate_params)
from ..device import namespace_of
from ..linalg.arrays import take_rows
from ..linalg.streaming import row_source
from .lssvm_device import DeviceModelMixin, uses_device

__all__ = ["AutoLSSVMRegressor", "AutoLSSVMClassifier"]

_APPROX = ("auto", "exact", "nystroem", "rff")


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def _order_stat(A: np.ndarray, k: int, axis: int = -1) -> np.ndarray:
    """The ``k``-th smallest (1-based) along ``axis``."""
    return np.partition(A, k - 1, axis=axis).take(k - 1, axis=axis)


class _AutoBase(BestOfSearch, SaveMixin, BaseEstimator):
    """Shared fit machinery: validation, standardisation, basis, search, solve."""

    _task = "regression"
    #: extra keyword arguments of :func:`~lssvm_cvx.selection.auto.auto_search` (for experiments)
    _search_options: dict[str, Any] = {}
    #: set by ``fit``: jackknife influence of the exact regression fit, else None
    jackknife_Q_: np.ndarray | None
    #: scikit-learn's constraint language (:mod:`lssvm_cvx.estimators.params`); a grid's values
    #: are checked where it is read (:func:`lssvm_cvx.selection.auto.auto_search`)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "kernel_gamma": [POSITIVE, None], "mu": [NONNEGATIVE, None], "nu": [POSITIVE, None],
        "margin": [StrOptions(set(MARGINS))], "approximation": [StrOptions(set(_APPROX))],
        "n_components": [POSITIVE_INT], "max_exact": [AT_LEAST_TWO],
        "kernel_gamma_grid": ["array-like", None], "mu_grid": ["array-like", None],
        "nu_grid": ["array-like", None], "criterion": [StrOptions(set(CRITERIA)), None],
        "n_subsample": [AT_LEAST_TWO], "random_state": ["random_state"],
        "gamma": [DEPRECATED, POSITIVE, None], "gamma_grid": [DEPRECATED, "array-like", None],
        "n_loo": [AT_LEAST_TWO], "progress": ["boolean"],
    }
    #: the grids' rules (:func:`~lssvm_cvx.estimators.params.validate_params` checks them)
    _grid_parameters: ClassVar[dict[str, Grid]] = {
        "kernel_gamma_grid": POSITIVE_GRID, "mu_grid": NONNEGATIVE_GRID, "nu_grid": POSITIVE_GRID,
        "gamma_grid": POSITIVE_GRID}

    def __init__(self, kernel_gamma: float | None = None, mu: float | None = None,
                 nu: float | None = None, *, margin: str = "rkhs", approximation: str = "auto",
                 n_components: int = 500, max_exact: int = 1000,
                 kernel_gamma_grid: Any = None, mu_grid: Any = None, nu_grid: Any = None,
                 criterion: str | None = None, n_subsample: int = 1000, random_state: Any = 0,
                 gamma: Any = "deprecated", gamma_grid: Any = "deprecated", n_loo: int = 20000,
                 progress: bool = False):
        self.kernel_gamma = kernel_gamma
        self.kernel_gamma_grid = kernel_gamma_grid
        self.gamma = gamma
        self.mu = mu
        self.nu = nu
        self.margin = margin
        self.approximation = approximation
        self.n_components = n_components
        self.max_exact = max_exact
        self.gamma_grid = gamma_grid
        self.mu_grid = mu_grid
        self.nu_grid = nu_grid
        self.criterion = criterion
        self.n_subsample = n_subsample
        self.random_state = random_state
        self.n_loo = n_loo
        self.progress = progress

    def _clear_fitted(self) -> None:
        """Remove every fitted attribute (a failed fit leaves nothing half-fitted)."""
        for k in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, k)

    def save(self, path: str, key: Any = None) -> None:
        """Write the fitted model to ``path`` (``.npz`` + JSON header, no pickle); load it with
        :func:`lssvm_cvx.load` (``key``: sign it, see :meth:`SaveMixin.save`)."""
        from ..io import save

        check_fitted(self, "coef_")
        save(self, path, key=key)

    # validation ------------------------------------------------------------------------
    def _validate_fit(self, X: Any, y: Any, **kw: Any) -> tuple[np.ndarray, np.ndarray]:
        return validate_fit_data(self, X, y, **kw)

    def _validate_predict(self, X: Any) -> np.ndarray:
        return validate_predict_data(self, X)

    def _check_params(self, n: int) -> tuple[str, float | None, float | None, float | None]:
        """The basis kind for ``n`` rows and the fixed (γ, μ, ν) (None: tuned), after the
        constraints (``fit`` checks them first; this also serves direct callers)."""
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        kind = self.approximation
        if kind == "auto":
            kind = "exact" if n <= self.max_exact else "nystroem"
        width = self._renamed("gamma", "kernel_gamma")
        return kind, _float_or_none(width), _float_or_none(self.mu), _float_or_none(self.nu)

    def _renamed(self, old: str, new: str) -> Any:
        """The value of ``new``, or of its deprecated spelling ``old`` with a FutureWarning
        (``gamma`` is the LS-SVM regularization everywhere else in the package)."""
        old_value, value = getattr(self, old), getattr(self, new)
        if isinstance(old_value, str) and old_value == "deprecated":
            return value
        if value is not None:
            raise HyperparameterError(f"give {new} only ({old} is its deprecated spelling)")
        warnings.warn(f"AutoLSSVM's {old!r} is renamed {new!r} (the kernel width γ of "
                      f"exp(-(γ/p)||x - z||²)); {old!r} will be removed in the next release",
                      FutureWarning, stacklevel=4)
        return old_value

    def _search_settings(self) -> dict[str, Any]:
        """:func:`~lssvm_cvx.selection.auto.auto_search`'s grids, criterion, subsample, seed."""
        seed = int(self.random_state) if isinstance(self.random_state, (int, np.integer)) else 0
        return dict(gamma_grid=self._renamed("gamma_grid", "kernel_gamma_grid"),
                    mu_grid=self.mu_grid, nu_grid=self.nu_grid, criterion=self._criterion(),
                    n_subsample=self.n_subsample, random_state=seed, **self._search_options)

    def _criterion(self) -> str:
        return self.criterion if self.criterion is not None else (
            "mse" if self._task == "regression" else "hinge2")

    # fitting -----------------------------------------------------------------------------
    def _fit_targets(self, X: Any, Y: Any, w: np.ndarray | None = None) -> None:
        """Standardise, search, solve; ``Y`` is (N,) or (N, T) in the model's target units
        (``X``, ``Y`` NumPy, dask arrays — :mod:`lssvm_cvx.estimators.auto_stream` — or
        float64 arrays of another namespace, checked by
        :func:`~lssvm_cvx.estimators.auto_device.device_fit_inputs`: the fit then runs on
        their device); ``w`` positive sample weights of the fit term (the exact basis only)."""
        n = X.shape[0]
        kind, gamma, mu, nu = self._check_params(n)
        dask_in = is_dask(X)
        guard = None
        if dask_in or isinstance(X, np.ndarray):
            self.__dict__.pop("device_", None)  # a CPU fit
        else:
            xp, device = namespace_of(X, Y)
            self.device_: str | None = str(device)
            guard = device_basis(self, kind, xp, device)
        if w is not None and (dask_in or kind != "exact"):
            raise InputError(f"sample_weight needs the exact basis (at most max_exact={self.max_exact} "
                             "rows in memory, approximation='auto' or 'exact'); the streamed "
                             f"{'dask ' if dask_in else ''}Nyström / random-feature fits are unweighted")
        if dask_in:
            if self.approximation == "auto":
                kind = "nystroem"
            if kind == "exact":
                raise HyperparameterError("approximation='exact' needs X in memory (N x N Gram)")
        st = input_stats(X, w)
        self.x_mean_, self.x_scale_, self.p_, self.c_ = st["mean"], st["scale"], st["p"], st["c"]
        Xs = st["Xs"]
        self.approximation_ = kind
        if st["constant"]:  # all inputs identical: the constant model
            constant_model(self, Y)
            self._record_held_out(Y)
            return
        centres = None
        if kind == "nystroem":
            centres = pick_centres(X, self.x_mean_, self.x_scale_, self.n_components, self.random_state)
        m_est = n if kind == "exact" else min(self.n_components, n)
        seed = int(self.random_state) if isinstance(self.random_state, (int, np.integer)) else 0
        Y2 = Y if dask_in or Y.ndim == 2 else Y[:, None]
        if dask_in and Y2.ndim == 1:
            Y2 = Y2[:, None]
        source = row_source(X, Y2, m_est, progress=bool(self.progress)) if kind != "exact" else None

        make_problem = problem_factory(
            kind, source, mean=self.x_mean_, scale=self.x_scale_, p=self.p_, c=self.c_,
            margin=self.margin, centres=centres, n_components=self.n_components, seed=seed,
            n_loo=self.n_loo, Xs=Xs, Y=Y, w=w, X_mem=X if not dask_in else None,
            vector=not dask_in and Y.ndim == 1, guard=guard)

        with small_system_blas(m_est):
            res = auto_search(make_problem, n, gamma=gamma, mu=mu, nu=nu,
                              **self._search_settings())
            pr = res.problem if res.problem is not None else make_problem(res.gamma, None)
            basis = pr.basis
            with warnings.catch_warnings():
                # the LOO search already judged this (μ, ν); the condition number is recorded
                warnings.simplefilter("ignore", ConditioningWarning)
                fit = pr.fit(res.mu, res.nu)
            record_fit(self, res, fit, basis.kind, dict(basis.params),
                       jackknife=(self._task == "regression" and n <= self.max_exact
                                  and not dask_in and w is None))
        self._record_held_out(Y)

    def _record_held_out(self, Y: Any) -> None:
        """The regressor's LOO residuals in the units of ``y``, or the classifier's exact LOO
        decision values ``y - r`` (on the LOO rows), from the fit's ``loo_std_`` and the
        model's targets ``Y`` (any namespace)."""
        if self._task == "regression":
            self.loo_residuals_ = self.loo_std_[:, 0] * self.y_scale_
            return
        xp, _ = namespace_of(Y)
        F = take_rows(xp, Y[:, None] if Y.ndim == 1 else Y, self.loo_rows_) - self.loo_std_
        self.loo_decision_ = F[:, 0] if int(F.shape[1]) == 1 else F

    def _design(self, X: np.ndarray) -> np.ndarray:
        Xs = (X - self.x_mean_) / self.x_scale_
        if self.basis_kind_ == "constant":
            return np.zeros((X.shape[0], 0))
        return basis_transform(self.basis_kind_, self.basis_params_, Xs)

    def _raw_decision(self, X: Any) -> np.ndarray:
        """``Φ(x)θ + b`` in standardised target units, shape (n, T)."""
        check_fitted(self, "coef_")
        if getattr(self, "device_", None) is not None:  # fitted on a device (auto_device)
            return auto_decision_device(self, X)
        X = self._validate_predict(X)
        with small_system_blas(self.n_basis_):
            Phi = self._design(X)
            return Phi @ self.coef_ + self.intercept_


class AutoLSSVMRegressor(DeviceModelMixin, RegressorMixin, _AutoBase):
    """Auto LS-SVM regression (Sorber 2017, eq. 8-9, §1.3), tuned by exact leave-one-out.

    Parameters
    ----------
    kernel_gamma, mu, nu :
        Normalised hyperparameters (module docstring): ``kernel_gamma`` is the kernel width γ
        of ``exp(-(γ/p)||x - z||²)`` (not the LS-SVM regularization ``gamma`` of the other
        estimators); ``None`` (default) tunes them.
    margin :
        The L2 term: ``"rkhs"`` (default, ``α'Kα = ||w||²``, the LS-SVM margin) or ``"alpha"``
        (eq. 9's ``||α||²`` as printed).  The default rests on a development comparison over
        ten data sets that is not a committed benchmark (``"rkhs"`` had the lower test error on
        more of them than ``"alpha"``); it is not a measured claim of this package.
    approximation :
        ``"auto"`` (dual up to ``max_exact`` rows, Nyström centres above),
        ``"exact"``, ``"nystroem"`` (centres picked by scikit-learn's ``Nystroem``) or ``"rff"``
        (``RBFSampler`` features with the data-averaged gradient penalty).
    n_components :
        Nyström centres / random features for the approximate paths.
    max_exact :
        Largest training set solved exactly in the dual.
    kernel_gamma_grid, mu_grid, nu_grid :
        Search grids (defaults in :mod:`lssvm_cvx.selection.auto`).
    gamma, gamma_grid :
        Deprecated spellings of ``kernel_gamma`` and ``kernel_gamma_grid`` (FutureWarning; removed
        in the next release).
    criterion :
        LOO criterion, ``"mse"`` (default) or ``"mae"``.
    n_subsample :
        Rows used to choose the width when there are more.
    random_state :
        Seed for the subsample, Nyström centres and random features.
    n_loo :
        Above ``max_exact`` rows the design is streamed in blocks (never ``N × m`` in memory)
        and the exact LOO criterion and ``loo_residuals_`` use at most this many rows (a seeded
        subsample, ``loo_rows_``; all rows when there are fewer).
    progress :
        Show tqdm progress bars for the passes over the data (off by default; the CLI turns
        it on).

    Attributes
    ----------
    kernel_gamma_, mu_, nu_ : float
        Selected (or given) normalised hyperparameters (``gamma_``: deprecated alias of
        ``kernel_gamma_``).
    mu_paper_, nu_paper_ : float
        The equivalent raw weights of eq. (9) (targets standardised).
    loo_residuals_ : ndarray of shape (n_samples,)
        Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)`` of the final model (on the rows
        ``loo_rows_`` when that is not None; a lazy dask array for dask inputs).
    loo_rows_ : ndarray or None
        Rows of ``loo_residuals_`` when a subsample (more than ``n_loo`` streamed rows).
    loo_score_ : float
        Its selection criterion (standardised units).
    search_ : dict
        The search record (every path evaluated).
    cv_results_ : dict
        The evaluated candidates in scikit-learn's layout, one per entry of
        ``search_["history"]`` (the best point of each width, μ-path and ν-path stage):
        ``params`` (``kernel_gamma``, ``mu``, ``nu``: the estimator's parameter names), ``param_*``, ``mean_test_score`` (minus the
        LOO criterion, standardised units), ``rank_test_score``, ``stage`` and ``n_rows`` (rows
        used: the width stage may subsample).
    approximation_ : str
        The basis used (``"exact"``, ``"nystroem"`` or ``"rff"``).
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("auto_lssvm",)

    _task = "regression"

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "AutoLSSVMRegressor":
        """Standardise, tune (γ, μ, ν) by exact LOO, solve; returns ``self``.

        ``X`` and ``y`` may be dask arrays (same row chunks): every pass then runs on the
        current Dask client (:mod:`lssvm_cvx.estimators.auto_stream`).  ``sample_weight``
        weights the fit term ``Σ s_i r_i²`` through the whole search (weighted standardisation,
        weighted exact LOO: observation i leaves the fit term; a weight of 0 drops the row);
        the exact basis only, and :meth:`predict_interval` is then unavailable (jackknife+
        assumes exchangeable, unweighted observations)."""
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        self.sample_weighted_ = sample_weight is not None
        try:
            if uses_device(X) or uses_device(y):      # lssvm_cvx.estimators.auto_device
                X, Y = device_fit_inputs(self, X, y, sample_weight)
                self._fit_targets(X, Y)
                return self
            if sample_weight is not None:
                if is_dask(X) or is_dask(y):
                    raise InputError("sample_weight is not supported with dask inputs (the "
                                     "streamed fits are unweighted)")
                X, y = self._validate_fit(X, y, y_numeric=True)
                w, keep = sample_weights(sample_weight, X.shape[0])
                X, y = X[keep], y[keep]
                mean = float(np.average(y, weights=w))
                sd = float(np.sqrt(np.average((y - mean) ** 2, weights=w)))
                self.y_mean_ = mean
                self.y_scale_ = sd if sd > 0 else 1.0
                self._fit_targets(X, (y - self.y_mean_) / self.y_scale_, w)
                self.support_ = np.flatnonzero(keep)
                return self
            if is_dask(X) or is_dask(y):
                import dask

                y = check_dask_target(X, y)
                if X.shape[0] != y.shape[0]:
                    raise InputError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
                self.n_features_in_ = int(X.shape[1])
                mean, sd = dask.compute(y.mean(), y.std())
                if not (np.isfinite(mean) and np.isfinite(sd)):
                    raise InputError("y contains NaN or inf")
                sd = float(sd)
            else:
                X, y = self._validate_fit(X, y, y_numeric=True)
                mean, sd = y.mean(), float(y.std())
            self.y_mean_ = float(mean)
            self.y_scale_ = sd if sd > 0 else 1.0
            self._fit_targets(X, (y - self.y_mean_) / self.y_scale_)
        except BaseException:
            self._clear_fitted()
            raise
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``f(x) = Φ(x)θ + b`` in the units of ``y`` (a dask array for a dask ``X``)."""
        if is_dask(X):
            return X.map_blocks(lambda xb: self.predict(np.asarray(xb)), drop_axis=1,
                                dtype=np.float64)
        return self._raw_decision(X)[:, 0] * self.y_scale_ + self.y_mean_

    def predict_interval(self, X: Any, coverage: float = 0.9) -> np.ndarray:
        """Prediction intervals from the exact LOO residuals, shape (n, 2): ``[lower, upper]``.

        Jackknife+ (Barber, Candès, Ramdas & Tibshirani 2021): with ``R_i = |y_i - f^{(-i)}(x_i)|``
        and the LOO models at the new point ``f^{(-i)}(x) = f(x) - r_i/N - φ_c(x)'Q_i`` (exact,
        Sherman-Morrison on the normalised objective), the interval is
        ``[q⁻_α{f^{(-i)}(x) - R_i}, q⁺_{1-α}{f^{(-i)}(x) + R_i}]`` with ``α = 1 - coverage`` and
        the finite-sample order statistics ``⌊α(N+1)⌋`` and ``⌈(1-α)(N+1)⌉``.  Above
        ``max_exact`` rows, where ``f^{(-i)}(x) - f(x) = O(1/N)``, the jackknife interval
        ``f(x) ± q⁺_{1-α}{R_i}`` is used (no N × n matrix).  The guarantee of jackknife+ is
        ``1 - 2α`` in the worst case; its usual coverage is ``1 - α`` (measured in
        ``benchmarks/results/auto_sinc.md``).  The LOO models keep the basis function
        centred at ``x_i`` (only ``y_i`` is left out).
        """
        check_fitted(self, "coef_")
        cov = check_positive(coverage, "coverage")
        if not cov < 1:
            raise HyperparameterError(f"coverage must be in (0, 1), got {coverage!r}")
        if getattr(self, "sample_weighted_", False):
            raise InputError("predict_interval assumes exchangeable, unweighted observations "
                             "(jackknife+); this model was fitted with sample_weight")
        if getattr(self, "device_", None) is not None:  # fitted on a device (auto_device)
            return auto_interval_device(self, X, cov)
        X = self._validate_predict(X)
        r = np.asarray(self.loo_std_[:, 0])  # computes a lazy (dask) residual vector here
        n = r.shape[0]
        alpha = 1.0 - cov
        k_hi = int(np.ceil((1 - alpha) * (n + 1)))
        k_lo = int(np.floor(alpha * (n + 1)))
        with small_system_blas(self.n_basis_):
            Phi = self._design(X)
            f = (Phi @ self.coef_ + self.intercept_)[:, 0]
            R = np.abs(r)
            if self.jackknife_Q_ is None:
                q = _order_stat(R, k_hi) if k_hi <= n else np.inf
                lo, hi = f - q, f + q
            else:
                lo = np.empty_like(f)
                hi = np.empty_like(f)
                step = max(1, 2_000_000 // max(n, 1))
                for s in range(0, f.shape[0], step):
                    D = (Phi[s:s + step] - self.phi_mean_) @ self.jackknife_Q_  # (rows, N)
                    F = f[s:s + step, None] - r[None, :] / n - D
                    hi[s:s + step] = _order_stat(F + R, k_hi) if k_hi <= n else np.inf
                    lo[s:s + step] = _order_stat(F - R, k_lo) if k_lo >= 1 else -np.inf
        return np.column_stack([lo, hi]) * self.y_scale_ + self.y_mean_


class AutoLSSVMClassifier(DeviceModelMixin, ClassifierMixin, _AutoBase):
    """Auto LS-SVM classifier (Sorber 2017, §1.1 item 1b): LS-SVM fit on ±1 targets, gradient
    norm of the decision function and the L2 margin term, tuned by exact leave-one-out.

    Binary problems use one ±1 target; more classes use one-vs-rest columns that share every
    decomposition.  ``predict_proba`` is calibrated by temperature scaling of the exact LOO
    decision values: ``p = σ(a f)`` (binary) or ``softmax(a F)`` with the ``a > 0`` that
    minimises the LOO log-loss, so the predicted class is unchanged.

    Parameters
    ----------
    kernel_gamma, mu, nu, approximation, n_components, max_exact, kernel_gamma_grid, mu_grid, nu_grid,
    n_subsample, random_state, gamma, gamma_grid, n_loo, progress :
        As in :class:`AutoLSSVMRegressor`.
    criterion :
        LOO criterion: ``"hinge2"`` (default: squared hinge ``max(0, 1 - y f^{(-i)})²`` of the
        LOO decision values, which does not penalise confident correct points), ``"mse"``
        (squared LOO residual on the ±1 targets) or ``"error"`` (LOO misclassification).

    Attributes
    ----------
    classes_ : ndarray
        Class labels (binary: ``classes_[1]`` is the +1 class).
    temperature_ : float
        The calibration factor ``a``.
    loo_decision_ : ndarray
        Exact LOO decision values (binary: (n,), else (n, n_classes)).
    kernel_gamma_, mu_, nu_, mu_paper_, nu_paper_, loo_score_, search_, cv_results_, approximation_ :
        As in :class:`AutoLSSVMRegressor`.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("auto_lssvm_classifier",)

    _task = "classification"

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "AutoLSSVMClassifier":
        """Fit on labels ``y`` (any hashable labels, at least two classes); ``sample_weight``
        weights the fit term through the whole search (the exact basis only; see
        :meth:`AutoLSSVMRegressor.fit`)."""
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        if is_dask(X) or is_dask(y):
            raise InputError("AutoLSSVMClassifier takes in-memory arrays; dask arrays are "
                             "supported by AutoLSSVMRegressor")
        try:
            if uses_device(X) or uses_device(y):      # lssvm_cvx.estimators.auto_device
                X, Y = device_fit_inputs(self, X, y, sample_weight, classification=True)
                w = None
            else:
                X, y = self._validate_fit(X, y)
                w = None
                if sample_weight is not None:
                    w, keep = sample_weights(sample_weight, X.shape[0])
                    X, y = X[keep], y[keep]
                self.classes_, Y = encode_labels(y)
            self._fit_targets(X, Y, w)
        except BaseException:
            self._clear_fitted()
            raise
        self.temperature_ = self._calibrate(*auto_calibration_targets(self))
        return self

    @staticmethod
    def _calibrate(F: np.ndarray, yi: np.ndarray) -> float:
        """Temperature ``a`` minimising the log-loss of ``σ(a f)`` / ``softmax(a F)`` on the
        LOO decision values (bounded to [1e-2, 1e3] so probabilities stay monotone in f)."""
        from scipy.optimize import minimize_scalar
        from scipy.special import log_softmax

        Z = np.column_stack([-F[:, 0] / 2, F[:, 0] / 2]) if F.shape[1] == 1 else F
        # binary: softmax([-f/2, f/2]) = σ(f) for the +1 class

        def loss(log_a: float) -> float:
            return float(-np.mean(log_softmax(np.exp(log_a) * Z, axis=1)[np.arange(len(yi)), yi]))

        res = minimize_scalar(loss, bounds=(np.log(1e-2), np.log(1e3)), method="bounded",
                              options={"xatol": 1e-4})
        return float(np.exp(res.x))

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x)`` (binary: > 0 means ``classes_[1]``), else one column per class."""
        F = self._raw_decision(X)
        return F[:, 0] if int(self.classes_.shape[0]) == 2 else F

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        F = self.decision_function(X)
        if getattr(self, "device_", None) is not None:
            return auto_labels_device(self, F)
        if F.ndim == 1:
            return self.classes_[(F > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Calibrated class probabilities (temperature scaling of the LOO decision values)."""
        from scipy.special import softmax

        F = self.decision_function(X)
        if getattr(self, "device_", None) is not None:
            return auto_proba_device(self, F)
        Z = np.column_stack([-F / 2, F / 2]) if F.ndim == 1 else F
        return softmax(self.temperature_ * Z, axis=1)

    def predict_log_proba(self, X: Any) -> np.ndarray:
        from scipy.special import log_softmax

        F = self.decision_function(X)
        if getattr(self, "device_", None) is not None:
            return auto_proba_device(self, F, log=True)
        Z = np.column_stack([-F / 2, F / 2]) if F.ndim == 1 else F
        return log_softmax(self.temperature_ * Z, axis=1)

