"""scikit-learn estimators for componentwise LS-SVMs and structure detection (Pelckmans et
al., componentwise LS-SVM chapter).

The model is additive, ``f(x) = Σ_d f^d(x^d) + b`` (eq. 1), one component per input column
(and per kernel when several are given, e.g. ``kernel=["rbf", "linear"]``).  ``penalty``
chooses how it is fitted:

================== ================================================ ====================
``penalty``        method                                           hyperparameters
================== ================================================ ====================
``None``           componentwise LS-SVM, dual system (7) / (16)     ``gamma``
``"l1"``           L1 component regularization, QP (20)-(22)        ``xi``
``"stp"``          smoothly thresholding penalty (25) by weighted   ``lam``, ``a``
                   GNC
``"fusion_areg"``  fusion with validation inputs, QP (30)           ``xi``
``"fusion_eta"``   η-fusion (38) by alternating least squares       (``gamma`` starts η)
================== ================================================ ====================

The fusion penalties hold out ``validation_fraction`` of the training data (shuffled with
``random_state``) as the validation set of §4.

The classifier fits the same formulations on the ±1 coded labels: the LS-SVM classifier (16)
is the regression system on ±1 targets after ``α̃ = y ∘ α`` (``Ω_y α + y b + e = 1`` times
``diag(y)``), and the same substitution maps the classifier's AReg conditions, component
outputs (``Ω_y^d α = y ∘ Ω^d α̃``, equal L1 norms) and errors onto the regression ones, so
eq. (20), (25), (30) and (38) for classification are the regression problems on ±1 targets.
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar, Any

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import HyperparameterError, InputError
from ..formulations.componentwise import (column_groups, component_columns_gram, as_componentwise,
                                          check_component_inputs, component_kernels)
from ..kernels.base import Componentwise, Kernel, make_kernel
from ..terms import RKHSNorm
from ..linalg.folds import make_folds
from ..selection.componentwise_cv import (RULES, cv_path, default_lam_grid, default_sigma2_grid,
                                          default_xi_grid)
from ..selection.kernel_choice import choose_kernels
from ..linalg.engine import RKHS, decompose
from ..linalg.threads import small_system_blas
from ..selection.gnc import STARTS
from ..solvers import check_solver
from .componentwise_docs import DOC_ATTRS, DOC_PARAMS
from .componentwise_fits import FITS, FitSettings
from .componentwise_fits import GNC_DEFAULTS  # noqa: F401 (the benchmarks read it here)
from .base import BinaryClassifierMixin, KernelMixin, check_fitted, encode_labels
from .grids import has_width
from .regularized import RegularizedLSSVMRegressor, fit_arrays
from .scoring import preset_results
from .params import (
    FRACTION, KERNEL_PARAMS, POSITIVE, POSITIVE_GRID, Grid, Interval, StrOptions, validate_params)

__all__ = ["ComponentwiseLSSVMRegressor", "ComponentwiseLSSVMClassifier", "PENALTIES"]

PENALTIES = (None, "l1", "stp", "fusion_areg", "fusion_eta")
#: values of ``kernel_choice``
KERNEL_CHOICES = ("cv", None)
#: γ grid of the (γ, σ²) search (exact k-fold CV of the componentwise LS-SVM)
GAMMA_GRID = np.logspace(-2, 4, 13)


def _seed(random_state: Any) -> int | None:
    return int(random_state) if isinstance(random_state, (int, np.integer)) else 0


class _ComponentwiseBase(KernelMixin, BaseEstimator):
    """Fit / predict / component access shared by the regressor and the classifier."""

    prune_log_: list[dict[str, Any]]  # set by fit (STP): the overlap pruning steps
    kernel_choice_: dict[str, Any] | None  # set by fit: the kernel choice by paired CV

    #: scikit-learn's constraint language (:mod:`lssvm_cvx.estimators.params`): ``kernel`` also
    #: takes a list of kernels (one component per input and kernel); ``cv`` is a number of folds
    #: or the test index sets of a partition (:func:`lssvm_cvx.linalg.folds.make_folds`)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **KERNEL_PARAMS,
        "kernel": [str, callable, list, tuple],
        "sigma2": [POSITIVE, None],
        "gamma": [POSITIVE, None],
        "penalty": [StrOptions({p for p in PENALTIES if p is not None}), None],
        "xi": [POSITIVE, None],
        "lam": [POSITIVE, None],
        "a": [POSITIVE],
        "cv": [Interval(Integral, 2, None, closed="left"), list, tuple],
        "cv_rule": [StrOptions(set(RULES))],
        "cv_grid": ["array-like", None],
        "validation_fraction": [FRACTION],
        "solver": [str],
        "rank_tol": [POSITIVE],
        "selection_tol": [POSITIVE],
        "gnc_start": [StrOptions(set(STARTS))],
        "gnc_options": [dict, None],
        "random_state": ["random_state"],
        "start_weights": [StrOptions({"kernel_dof", "equal"}), "array-like", None],
        "kernel_choice": [StrOptions({c for c in KERNEL_CHOICES if c is not None}), None],
    }
    #: the grids' rules (:func:`~lssvm_cvx.estimators.params.validate_params` checks them)
    _grid_parameters: ClassVar[dict[str, Grid]] = {"cv_grid": POSITIVE_GRID}

    # the regressor and the classifier take the same parameters (documented on each class)
    def __init__(self, kernel: Any = "rbf", sigma2: float | None = None,
                 gamma: float | None = None, *, degree: int = 3, t: float = 1.0,
                 penalty: str | None = None, xi: float | None = None, lam: float | None = None,
                 a: float = 3.7, cv: int = 10, cv_rule: str = "one_se", cv_grid: Any = None,
                 validation_fraction: float = 0.3, solver: str = "CLARABEL",
                 rank_tol: float = 1e-10, selection_tol: float = 1e-4, gnc_start: str = "l2",
                 gnc_options: dict | None = None, random_state: Any = None,
                 start_weights: Any = "kernel_dof", kernel_choice: str | None = "cv"):
        self.kernel = kernel
        self.sigma2 = sigma2  # type: ignore[assignment]  # None: by CV (KernelMixin's is a float)
        self.gamma = gamma
        self.degree = degree
        self.t = t
        self.penalty = penalty
        self.xi = xi
        self.lam = lam
        self.a = a
        self.cv = cv
        self.cv_rule = cv_rule
        self.cv_grid = cv_grid
        self.validation_fraction = validation_fraction
        self.solver = solver
        self.rank_tol = rank_tol
        self.selection_tol = selection_tol
        self.gnc_start = gnc_start
        self.gnc_options = gnc_options
        self.random_state = random_state
        self.start_weights = start_weights
        self.kernel_choice = kernel_choice

    # --- configuration -------------------------------------------------------------------
    def _make_kernel(self, sigma2: float | None = None) -> Kernel:
        # sigma2=None means "chosen by CV": the kernel form is checked at a placeholder width
        if sigma2 is None and self.sigma2 is None:
            sigma2 = getattr(self, "sigma2_", 1.0)
        return super()._make_kernel(sigma2)

    def _check_kernel_param(self) -> None:
        """The kernel parameter's form (lists of kernels allowed), for the model loader."""
        self._componentwise_kernel()

    def _componentwise_kernel(self, sigma2: float | None = None) -> Componentwise:
        s2 = getattr(self, "sigma2_", self.sigma2) if sigma2 is None else sigma2
        s2 = 1.0 if s2 is None else s2
        k = self.kernel
        if isinstance(k, Componentwise):
            return k
        if isinstance(k, str) and k.lower() == "precomputed":
            raise HyperparameterError("a componentwise model needs the inputs, not a precomputed kernel")
        if isinstance(k, (list, tuple)):
            if not k:
                raise HyperparameterError("kernel list is empty")
            bases = []
            for item in k:
                kk = make_kernel(item, sigma2=s2, degree=self.degree, t=self.t)
                kk.validate()
                bases.append(kk)
            return Componentwise(bases)
        if callable(k) and not isinstance(k, (str, Kernel)):
            raise HyperparameterError("a componentwise model needs a Kernel object or a name, not a callable")
        return as_componentwise(self._make_kernel(s2))

    def _check_params(self) -> None:
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        check_solver(self.solver)    # whatever the penalty (an unused 'bogus' passed unsaid)

    # --- hyperparameters by 10-fold CV (§5) ---------------------------------------------------
    def _searches_width(self) -> bool:
        """Whether σ² is chosen by CV: ``sigma2=None`` and the estimator builds an RBF from the
        name ``"rbf"`` (a kernel object keeps its own widths)."""
        k = self.kernel
        items = list(k) if isinstance(k, (list, tuple)) else [k]
        named = any(isinstance(i, str) and i.lower() == "rbf" for i in items)
        if self.sigma2 is not None or not named:
            return False
        if any(isinstance(i, Kernel) and has_width(i) for i in items):
            raise HyperparameterError(
                "kernel mixes 'rbf' (whose width sigma2=None chooses by CV) with kernel objects "
                "that hold their own width; give sigma2, or name every RBF 'rbf'")
        return True

    def _folds(self, n: int) -> Any:
        """``cv`` folds, at most one per point pair (small data sets)."""
        cv = self.cv
        return min(int(cv), max(2, n // 2)) if isinstance(cv, (int, np.integer)) else cv

    def _select_hyperparameters(self, X: np.ndarray, Y: np.ndarray) -> Any:
        """σ² (and γ) by exact k-fold CV of the componentwise LS-SVM; λ / ξ by k-fold CV of
        the penalty itself.  Returns the componentwise LS-SVM fitted at the chosen (γ, σ²)
        when the search ran (None otherwise).

        The (γ, σ²) search is a preset of the composed estimator (as ``LSSVMRegressor``'s):
        Squared + ``RKHSNorm`` with weight ``1/γ`` on the componentwise kernel, its weight
        grid ``1/γ`` of :data:`GAMMA_GRID`, the widths set inside the kernel
        (:func:`~lssvm_cvx.estimators.grids.set_width`), scored by ``neg_mean_squared_error``
        per fold and averaged over folds as ``GridSearchCV`` does; every γ of a width from one
        factorisation (:func:`~lssvm_cvx.estimators.regularized.fit_arrays`)."""
        self.cv_results_ = {}
        s2, g = self.sigma2, self.gamma
        needs_gamma = g is None and self.penalty in (None, "fusion_eta")
        searched = self._searches_width()
        lssvm = None
        if searched or needs_gamma:
            gs = GAMMA_GRID if g is None else np.array([float(g)])
            n = len(Y)
            folds = make_folds(n, self._folds(n), _seed(self.random_state))
            lssvm = RegularizedLSSVMRegressor(
                kernel=self._componentwise_kernel(1.0 if s2 is None else s2),
                terms={"rkhs": (RKHSNorm(), 1.0 / gs[0])}, weight_grid={"rkhs": 1.0 / gs},
                sigma2_grid=default_sigma2_grid(X) if searched else None, selection="kfold",
                cv=[(np.setdiff1d(np.arange(n), f), f) for f in folds],
                scoring="neg_mean_squared_error")
            fit_arrays(lssvm, X, Y, None)
            s2 = float(lssvm.sigma2_) if searched else s2
        self.sigma2_ = 1.0 if s2 is None else float(s2)        # unused without named RBFs
        if lssvm is not None:
            g, self.cv_results_["gamma_sigma2"] = preset_results(
                lssvm.cv_results_, gs, "mse", self.sigma2_, "kfold")
        self.gamma_ = 1.0 if g is None else float(g)
        self.reg_ = None
        names: dict[str | None, str] = {"l1": "xi", "fusion_areg": "xi", "stp": "lam"}
        name = names.get(self.penalty)
        if name is None:
            return lssvm
        value = getattr(self, name)
        if value is None:
            if self.cv_grid is None:
                grid: Any = default_lam_grid(Y) if name == "lam" else default_xi_grid(Y)
            else:           # until 2026-11-30 a value <= 0 failed every fold, unsaid
                grid = POSITIVE_GRID.values(self.cv_grid, "cv_grid")
            if name == "lam":                      # most regularized first
                grid = np.sort(grid)[::-1]
            else:
                grid = np.sort(grid)
            # the penalty's own CV path: the inner fits stop at the sparse fit (no kernel choice)
            params = {**self.get_params(), "sigma2": self.sigma2_, "gamma": self.gamma_,
                      "kernel_choice": None}

            def fit_predict(Xa, ya, v, Xb):
                est = ComponentwiseLSSVMRegressor(**{**params, name: v})
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    est.fit(Xa, ya)
                return est.predict(Xb), {"n_selected": int(est.selected_components_.size),
                                         "converged": est.converged_}

            path = cv_path(X, Y, grid, fit_predict, folds=self._folds(len(Y)), rule=self.cv_rule,
                           seed=_seed(self.random_state))
            value = path.best
            self.cv_results_[name] = path.to_dict()
            self.cv_results_[name]["n_selected"] = [
                float(np.mean([e.get("n_selected", np.nan) for e in ex])) for ex in path.extras]
        self.reg_ = float(value)
        return lssvm

    # --- fitting (regression machinery on targets Y) ------------------------------------------
    def _fit_targets(self, X: np.ndarray, Y: np.ndarray, *, classification: bool = False) -> None:
        # small dense systems run faster single-threaded on a loaded machine
        with small_system_blas(X.shape[0]):
            self._fit_impl(X, Y, classification=classification)

    def _fit_impl(self, X: np.ndarray, Y: np.ndarray, *, classification: bool = False) -> None:
        for attr in ("sigma2_", "gamma_"):
            self.__dict__.pop(attr, None)
        min_c = 1 if self.penalty is None else 2
        X = check_component_inputs(X, self._componentwise_kernel(), min_components=min_c)
        lssvm = self._select_hyperparameters(X, Y)
        cw = self._componentwise_kernel(self.sigma2_)
        comps = component_kernels(cw, X.shape[1])
        # candidate kernels that share an input (several kernels per column)
        groups = [g for g in column_groups(comps).values() if len(g) > 1]
        self.kernel_ = cw
        self.component_labels_ = cw.labels(X.shape[1])
        settings = FitSettings(
            gamma=self.gamma_, reg=self.reg_, a=self.a, solver=self.solver,
            rank_tol=self.rank_tol, selection_tol=self.selection_tol, gnc_start=self.gnc_start,
            gnc_options=self.gnc_options, start_weights=self.start_weights,
            validation_fraction=self.validation_fraction, random_state=self.random_state,
            groups=groups, classification=classification, lssvm=lssvm)
        fit = FITS[self.penalty](X, Y, cw, settings)
        self.converged_, self.n_iter_, self.history_ = fit.converged, fit.n_iter, fit.history
        for name, value in fit.attrs.items():
            setattr(self, name, value)
        A, b, selected = fit.coef, fit.intercept, fit.selected
        self.kernel_choice_ = None
        if self.penalty is not None and self.kernel_choice == "cv" and groups:
            A, b, selected = self._choose_kernels(fit.X_fit, fit.Y_fit, comps, selected)
        self.X_fit_ = fit.X_fit
        self.component_coef_ = A
        self.intercept_ = float(b)
        self.selected_components_ = np.asarray(selected, dtype=int)
        self.n_components_ = len(comps)

    def _choose_kernels(self, X: np.ndarray, Y: np.ndarray, comps: list, selected: Any
                        ) -> tuple[np.ndarray, float, np.ndarray]:
        """Kernel type of every selected input by paired exact leave-one-out
        (``kernel_choice="cv"``, :func:`~lssvm_cvx.selection.kernel_choice.choose_kernels`),
        then the componentwise LS-SVM (eq. 16) on the chosen components at the γ of that CV."""
        kc = choose_kernels(X, Y, comps, selected, gammas=GAMMA_GRID, folds=None,
                            rule=self.cv_rule, rank_tol=self.rank_tol)
        self.kernel_choice_ = kc.to_dict()
        A = np.zeros((X.shape[0], len(comps)))
        if kc.selected.size == 0:
            return A, float(np.mean(Y)), kc.selected
        Omega = np.add.reduce([component_columns_gram(kd, cols, X)
                               for kd, cols in (comps[d] for d in kc.selected)])
        alpha, b = decompose(Omega, kc.gamma, {"rkhs": (RKHS, 1.0)}).system(overwrite_gram=True).solve(Y)
        A[:, kc.selected] = alpha[:, None]
        return A, float(b), kc.selected

    # --- evaluation ------------------------------------------------------------------------------
    def _contributions(self, X: Any, components: Any = None) -> np.ndarray:
        check_fitted(self, "component_coef_")
        X = self._validate_predict(X)
        P = self.n_components_
        idx = np.arange(P) if components is None else np.atleast_1d(np.asarray(components))
        if idx.dtype.kind not in "iu" or idx.size and (idx.min() < 0 or idx.max() >= P):
            raise InputError(f"component indices {np.asarray(components).tolist()} out of range "
                             f"[0, {P - 1}]")
        comps = component_kernels(self.kernel_, X.shape[1])
        sel = set(self.selected_components_.tolist())
        out = np.zeros((X.shape[0], idx.size))
        for j, d in enumerate(idx):
            if d not in sel:
                continue
            a = self.component_coef_[:, d]
            nz = np.flatnonzero(a)
            if nz.size:
                kd, cols = comps[d]
                out[:, j] = component_columns_gram(kd, cols, X, self.X_fit_[nz]) @ a[nz]
        return out

    def predict_components(self, X: Any, components: Any = None) -> np.ndarray:
        """Per-component contributions ``f^d(x^d)`` (eq. 9), shape ``(n_samples, P)``.

        Components outside :attr:`selected_components_` are 0 (eq. 22 predicts with the
        selected ones only), so ``predict_components(X).sum(1) + intercept_`` is the latent
        prediction.  ``components`` restricts the output to those indices.
        """
        return self._contributions(X, components)

    def _latent(self, X: Any) -> np.ndarray:
        return self._contributions(X).sum(axis=1) + self.intercept_

    def selected_labels(self) -> list[tuple[tuple[int, ...], str]]:
        """``(input columns, kernel name)`` of every selected component."""
        check_fitted(self, "component_coef_")
        return [self.component_labels_[d] for d in self.selected_components_]

    def plot_components(self, components: Any = None, *, ax: Any = None, grid: int = 200,
                        feature_names: Any = None, data: bool = True, center: bool = True):
        """Draw each selected component function ``f^d`` over the range of its input column.

        Parameters
        ----------
        components :
            Component indices (default: the selected ones).  Indices out of range raise
            :class:`~lssvm_cvx.exceptions.InputError`.
        ax :
            A matplotlib Axes or array of Axes (one per component); created if None.
        grid :
            Number of evaluation points per component.
        feature_names :
            Names of the input columns for the titles.
        data :
            Mark the training inputs along the horizontal axis.
        center :
            Subtract each component's mean over the training inputs (default).  Constant
            offsets of the components are not identified separately from ``b`` (eq. 1), and the
            sparse formulations can leave large ones, so centred curves show the shapes.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib.pyplot as plt

        check_fitted(self, "component_coef_")
        idx = self.selected_components_ if components is None else np.atleast_1d(np.asarray(components))
        P = self.n_components_
        if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= P):
            raise InputError(f"component indices {np.asarray(components).tolist()} out of range [0, {P - 1}]")
        if idx.size == 0:
            fig, ax0 = plt.subplots(figsize=(4, 3)) if ax is None else (ax.figure, ax)
            ax0.text(0.5, 0.5, "no component selected", ha="center", va="center")
            return fig
        n = idx.size
        if ax is None:
            ncol = min(n, 4)
            nrow = int(np.ceil(n / ncol))
            fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.6 * nrow), squeeze=False)
            axes = axes.ravel()
            for extra in axes[n:]:
                extra.set_visible(False)
        else:
            axes = np.atleast_1d(ax).ravel()
            fig = axes[0].figure
        Xf = self.X_fit_
        ref = Xf.mean(axis=0)
        for a, d in zip(axes, idx):
            cols, kname = self.component_labels_[d]
            if len(cols) != 1:
                a.text(0.5, 0.5, f"component {d}: columns {cols}", ha="center", va="center")
                continue
            j = cols[0]
            g = np.linspace(Xf[:, j].min(), Xf[:, j].max(), grid)
            Xg = np.tile(ref, (grid, 1))
            Xg[:, j] = g
            f = self._contributions(Xg, [d])[:, 0]
            if center:
                f = f - self._contributions(Xf, [d])[:, 0].mean()
            a.plot(g, f, lw=1.8)
            if data:
                a.plot(Xf[:, j], np.full(Xf.shape[0], f.min()), "|", color="0.5", ms=6)
            name = feature_names[j] if feature_names is not None else f"x{j + 1}"
            a.set_title(f"f^{d + 1}({name}) [{kname}]", fontsize=9)
            a.axhline(0.0, color="0.8", lw=0.8, zorder=0)
        fig.tight_layout()
        return fig


class ComponentwiseLSSVMRegressor(RegressorMixin, _ComponentwiseBase):
    __doc__ = ("""Componentwise LS-SVM regression with optional structure detection (componentwise
    LS-SVM chapter, eq. 3-9, 20-22, 25, 30, 38).

    Parameters
    ----------""" + DOC_PARAMS + """
    Attributes
    ----------""" + DOC_ATTRS + """
    Examples
    --------
    >>> from lssvm_cvx import problems
    >>> from lssvm_cvx import ComponentwiseLSSVMRegressor
    >>> ds = problems.get_problem("additive10", seed=0)
    >>> est = ComponentwiseLSSVMRegressor(penalty="stp").fit(ds.X, ds.y)  # doctest: +SKIP
    >>> est.selected_labels()                     # doctest: +SKIP
    [((0,), 'RBF'), ((1,), 'RBF'), ((2,), 'RBF'), ((3,), 'RBF')]
    """)
    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = (
        "componentwise_lssvm", "componentwise_l1", "componentwise_fusion", "componentwise_stp",
        "componentwise_eta")

    def fit(self, X: Any, y: Any) -> "ComponentwiseLSSVMRegressor":
        """Fit on ``X`` (n_samples, n_features) and targets ``y``."""
        self._check_params()
        X, y = self._validate_fit(X, y, y_numeric=True)
        self._fit_targets(X, y)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``Σ_{d ∈ S_D} f^d(x^d) + b`` (eq. 8 / 22)."""
        return self._latent(X)


class ComponentwiseLSSVMClassifier(BinaryClassifierMixin, ClassifierMixin, _ComponentwiseBase):
    __doc__ = ("""Componentwise LS-SVM classifier (eq. 14-17) with optional structure detection
    (binary labels; the sparse penalties act on the ±1 coded problem, see the module docstring).

    Parameters
    ----------""" + DOC_PARAMS + """
    Attributes
    ----------""" + DOC_ATTRS + """
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    """)
    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("componentwise_lssvm_classifier",)

    def fit(self, X: Any, y: Any) -> "ComponentwiseLSSVMClassifier":
        """Fit on ``X`` and two-class labels ``y``."""
        self._check_params()
        X, y = self._validate_fit(X, y)
        self.classes_, Y = encode_labels(y, binary=True, model="the componentwise classifier (eq. 14-17)")
        self._fit_targets(X, Y, classification=True)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Latent ``Σ_{d ∈ S_D} f^d(x^d) + b`` (eq. 17 before the sign); > 0 means ``classes_[1]``."""
        return self._latent(X)

    def predict(self, X: Any) -> np.ndarray:
        F = self.decision_function(X)
        return self.classes_[(F > 0).astype(int)]
