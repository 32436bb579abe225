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

from typing import ClassVar, Any

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..exceptions import HyperparameterError, InputError, SolverError
from ..checks import check_positive
from ..formulations.componentwise import (ComponentwiseLSSVM, ComponentwiseLSSVMClassification,
                                          column_groups, component_columns_gram, as_componentwise,
                                          check_component_inputs, component_kernels)
from ..formulations.componentwise_eta import ComponentwiseEta
from ..selection.eta_als import eta_fusion
from ..formulations.componentwise_gnc import ComponentwiseSTP, kernel_dof_weights
from ..selection.gnc import gnc, prune_overlaps
from ..formulations.componentwise_sparse import ComponentwiseFusion, ComponentwiseL1, selected_components
from ..kernels.base import RBF, Componentwise, Kernel, make_kernel
from ..linalg.folds import make_folds
from ..selection.componentwise_cv import (RULES, cv_path, default_lam_grid, default_sigma2_grid,
                                          default_xi_grid)
from ..selection.kernel_choice import choose_kernels
from ..selection.lssvm import select_gamma_sigma2
from ..linalg.bordered import lssvm_system
from ..linalg.threads import small_system_blas
from .componentwise_docs import DOC_ATTRS, DOC_PARAMS
from .base import BinaryClassifierMixin, KernelMixin, check_fitted, encode_labels

__all__ = ["ComponentwiseLSSVMRegressor", "ComponentwiseLSSVMClassifier", "PENALTIES"]

PENALTIES = (None, "l1", "stp", "fusion_areg", "fusion_eta")
#: values of ``kernel_choice``
KERNEL_CHOICES = ("cv", None)
#: γ grid of the (γ, σ²) search (exact k-fold CV of the componentwise LS-SVM)
GAMMA_GRID = np.logspace(-2, 4, 13)
#: GNC settings of the STP fit: the last stage runs to relative stationarity 1e-6
GNC_DEFAULTS = {"max_inner": 30, "max_final": 5000, "tol_stationarity": 1e-6}


def _seed(random_state: Any) -> int | None:
    return int(random_state) if isinstance(random_state, (int, np.integer)) else 0


class _ComponentwiseBase(KernelMixin, BaseEstimator):
    """Fit / predict / component access shared by the regressor and the classifier."""

    prune_log_: list[dict[str, Any]]  # set by fit (STP): the overlap pruning steps
    kernel_choice_: dict[str, Any] | None  # set by fit: the kernel choice by paired CV

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
        if self.penalty not in PENALTIES:
            raise HyperparameterError(f"penalty must be one of {PENALTIES}, got {self.penalty!r}")
        for name in ("sigma2", "gamma", "xi", "lam"):
            if getattr(self, name) is not None:
                check_positive(getattr(self, name), name)
        check_positive(self.a, "a")
        if self.cv_rule not in RULES:
            raise HyperparameterError(f"cv_rule must be one of {RULES}, got {self.cv_rule!r}")
        if self.penalty in ("fusion_areg", "fusion_eta"):
            vf = self.validation_fraction
            if not isinstance(vf, (float, int)) or not 0 < vf < 1:
                raise HyperparameterError(f"validation_fraction must be in (0, 1), got {vf!r}")
        check_positive(self.rank_tol, "rank_tol")
        check_positive(self.selection_tol, "selection_tol")
        if self.kernel_choice not in KERNEL_CHOICES:
            raise HyperparameterError(f"kernel_choice must be one of {KERNEL_CHOICES}, "
                                      f"got {self.kernel_choice!r}")

    # --- hyperparameters by 10-fold CV (§5) ---------------------------------------------------
    def _has_rbf(self) -> bool:
        k = self._componentwise_kernel(1.0).kernel
        return any(isinstance(b, RBF) for b in (k if isinstance(k, (list, tuple)) else [k]))

    def _folds(self, n: int) -> Any:
        """``cv`` folds, at most one per point pair (small data sets)."""
        cv = self.cv
        return min(int(cv), max(2, n // 2)) if isinstance(cv, (int, np.integer)) else cv

    def _select_hyperparameters(self, X: np.ndarray, Y: np.ndarray) -> None:
        """σ² (and γ) by exact k-fold CV of the componentwise LS-SVM (closed form, all γ
        from one eigendecomposition per σ²); λ / ξ by k-fold CV of the penalty itself."""
        self.cv_results_ = {}
        s2, g = self.sigma2, self.gamma
        needs_gamma = g is None and self.penalty in (None, "fusion_eta")
        if (s2 is None and self._has_rbf()) or needs_gamma:
            s2s = default_sigma2_grid(X) if s2 is None else np.array([float(s2)])
            gs = GAMMA_GRID if g is None else np.array([float(g)])
            folds = make_folds(len(Y), self._folds(len(Y)), _seed(self.random_state))
            res = select_gamma_sigma2(X, Y, gs, s2s, kernel=self._componentwise_kernel,
                                      criterion="kfold", folds=folds)
            s2, g = float(res.best_sigma2), float(res.best_gamma)
            self.cv_results_["gamma_sigma2"] = res.to_dict()
        self.sigma2_ = 1.0 if s2 is None else float(s2)        # unused without RBF components
        self.gamma_ = 1.0 if g is None else float(g)
        self.reg_ = None
        names: dict[str | None, str] = {"l1": "xi", "fusion_areg": "xi", "stp": "lam"}
        name = names.get(self.penalty)
        if name is None:
            return
        value = getattr(self, name)
        if value is None:
            grid = self.cv_grid
            if grid is None:
                grid = default_lam_grid(Y) if name == "lam" else default_xi_grid(Y)
            grid = np.asarray(grid, dtype=np.float64).reshape(-1)
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

    def _start_weights(self, basis: Any, cw: Componentwise, n_features: int) -> Any:
        """``w_d`` of the GNC start (:func:`~lssvm_cvx.formulations.componentwise_gnc.kernel_dof_weights`)."""
        cwt = self.start_weights
        if cwt is None or (isinstance(cwt, str) and cwt == "equal"):
            return None
        if isinstance(cwt, str):
            if cwt != "kernel_dof":
                raise HyperparameterError("start_weights must be 'kernel_dof', 'equal', None "
                                          f"or an array, got {cwt!r}")
            return kernel_dof_weights(basis, [lab[1] for lab in cw.labels(n_features)],
                                      self.rank_tol)
        w = np.asarray(cwt, dtype=np.float64).reshape(-1)
        if w.shape != (basis.P,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise HyperparameterError(f"start_weights must be {basis.P} finite positive numbers")
        return w

    def _split(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Training / validation indices for the fusion penalties (§4)."""
        n_val = int(round(self.validation_fraction * n))
        if n_val < 1 or n - n_val < 2:
            raise InputError(f"{n} samples are too few to hold out a validation set "
                             f"(validation_fraction={self.validation_fraction})")
        perm = check_random_state(self.random_state).permutation(n)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])

    # --- fitting (regression machinery on targets Y) ------------------------------------------
    def _fit_targets(self, X: np.ndarray, Y: np.ndarray, *, classification: bool = False) -> None:
        # small dense systems run faster single-threaded on a loaded machine
        with small_system_blas(X.shape[0]):
            self._fit_impl(X, Y, classification=classification)

    def _fit_impl(self, X: np.ndarray, Y: np.ndarray, *, classification: bool = False) -> None:
        self._check_params()
        for attr in ("sigma2_", "gamma_"):
            self.__dict__.pop(attr, None)
        min_c = 1 if self.penalty is None else 2
        X = check_component_inputs(X, self._componentwise_kernel(), min_components=min_c)
        self._select_hyperparameters(X, Y)
        cw = self._componentwise_kernel(self.sigma2_)
        self.converged_ = True
        self.n_iter_ = 0
        comps = component_kernels(cw, X.shape[1])
        # candidate kernels that share an input (several kernels per column)
        groups = [g for g in column_groups(comps).values() if len(g) > 1]
        P = len(comps)
        self.kernel_ = cw
        self.component_labels_ = cw.labels(X.shape[1])
        self.history_ = None
        Yfit = Y
        if self.penalty is None:
            if classification:
                fc = ComponentwiseLSSVMClassification(X, Y, kernel=cw, gamma=self.gamma_)
                sol = fc.closed_form()
                coef = sol["alpha"] * fc._targets()
            else:
                sol = ComponentwiseLSSVM(X, Y, kernel=cw, gamma=self.gamma_).closed_form()
                coef = sol["alpha"]
            A = np.repeat(coef[:, None], P, axis=1)
            b = sol.scalar("b")
            Xfit = X
            selected = np.arange(P)
        elif self.penalty in ("l1", "stp"):
            f: ComponentwiseL1 | ComponentwiseSTP
            if self.penalty == "l1":
                f = ComponentwiseL1(X, Y, kernel=cw, xi=self.reg_, rank_tol=self.rank_tol)
                sol = _solve_qp(f, self.solver)
            else:
                if self.reg_ is None:  # (set by _select_hyperparameters for the STP penalty)
                    raise HyperparameterError("the STP penalty needs lam")
                f = stp = ComponentwiseSTP(X, Y, kernel=cw, lam=self.reg_, a=self.a, rank_tol=self.rank_tol)
                stp.start_weights = self._start_weights(stp.basis, cw, X.shape[1])
                self.start_weights_ = stp._ws()
                opts = {**GNC_DEFAULTS, **(self.gnc_options or {})}
                res = gnc(stp, start=self.gnc_start, **opts)
                self.prune_log_ = []
                if groups:
                    res, self.prune_log_ = prune_overlaps(
                        stp, res, groups, max_final=opts["max_final"],
                        tol_stationarity=opts["tol_stationarity"])
                sol = res.solution
                self.history_ = res.history
                self.converged_, self.n_iter_ = bool(res.converged), len(res.history)
                if not res.converged:
                    warnings.warn(f"GNC stopped after {len(res.history)} steps at relative "
                                  f"stationarity {res.stationarity:.2e} > "
                                  f"{opts['tol_stationarity']:.0e} (raise gnc_options"
                                  "['max_final'])", ConvergenceWarning, stacklevel=4)
            A, b, Xfit = f.basis.coef(sol["z"]), sol.scalar("b"), X
            yh = sol["yhat"]
            selected = selected_components(yh, self.selection_tol, scale=_scale(Y))
        else:
            tr, va = self._split(X.shape[0])
            Xfit, Yfit = X[tr], Y[tr]
            check_component_inputs(Xfit, cw, min_components=2)
            if self.penalty == "fusion_areg":
                fus = ComponentwiseFusion(Xfit, Y[tr], X[va], kernel=cw, xi=self.reg_,
                                          rank_tol=self.rank_tol)
                sol = _solve_qp(fus, self.solver)
                A, b = fus.basis.coef(sol["z"]), sol.scalar("b")
                selected = selected_components(sol["yhat"], self.selection_tol, scale=_scale(Y[tr]))
            else:
                eres = eta_fusion(Xfit, Y[tr], X[va], Y[va], kernel=cw, eta0=self.gamma_)
                A = np.outer(eres.solution["alpha"], eres.eta)
                b = eres.solution.scalar("b")
                self.eta_ = eres.eta
                self.history_ = eres.history
                feta = ComponentwiseEta(Xfit, Y[tr], kernel=cw, eta=eres.eta)
                out = feta.component_outputs(eres.solution["alpha"])
                selected = selected_components(out, self.selection_tol, scale=_scale(Y[tr]))
            self.validation_indices_ = va
        self.kernel_choice_ = None
        if self.penalty is not None and self.kernel_choice == "cv" and groups:
            A, b, selected = self._choose_kernels(Xfit, Yfit, comps, selected)
        self.X_fit_ = Xfit
        self.component_coef_ = A
        self.intercept_ = float(b)
        self.selected_components_ = np.asarray(selected, dtype=int)
        self.n_components_ = P

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
        alpha, b = lssvm_system(Omega, kc.gamma, np.ones(len(Y))).solve(Y)
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


def _solve_qp(f: Any, solver: str):
    """Solve a QP formulation with ``solver`` and, if it fails, with the other installed
    default solvers (an estimator should not fail where another backend succeeds); the error
    of the requested solver is raised when all fail."""
    from ..solvers import DEFAULT_SOLVERS, available_solvers

    first_error = None
    names = [solver] + [s for s in DEFAULT_SOLVERS if s != str(solver).upper() and s in available_solvers()]
    for name in names:
        try:
            return f.solve(name, accept_inaccurate=True)
        except SolverError as exc:
            first_error = first_error or exc
            f._built = None
    if first_error is None:  # (unreachable: the requested solver is always tried)
        raise SolverError("no solver was tried", solver=str(solver))
    raise first_error


def _scale(y: np.ndarray) -> float:
    return float(np.linalg.norm(y - y.mean()))


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
