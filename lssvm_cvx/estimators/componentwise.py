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

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state

from ..exceptions import HyperparameterError, InputError, SolverError
from ..checks import check_positive
from ..formulations.componentwise import (ComponentwiseLSSVM, ComponentwiseLSSVMClassification,
                                          component_columns_gram, as_componentwise,
                                          check_component_inputs, component_kernels)
from ..formulations.componentwise_eta import ComponentwiseEta
from ..selection.eta_als import eta_fusion
from ..formulations.componentwise_gnc import ComponentwiseSTP
from ..selection.gnc import gnc
from ..formulations.componentwise_sparse import ComponentwiseFusion, ComponentwiseL1, selected_components
from ..kernels.base import Componentwise, Kernel, make_kernel
from ..linalg.threads import small_system_blas
from .base import BinaryClassifierMixin, KernelMixin, check_fitted, encode_labels

__all__ = ["ComponentwiseLSSVMRegressor", "ComponentwiseLSSVMClassifier", "PENALTIES"]

PENALTIES = (None, "l1", "stp", "fusion_areg", "fusion_eta")


class _ComponentwiseBase(KernelMixin, BaseEstimator):
    """Fit / predict / component access shared by the regressor and the classifier."""

    # the regressor and the classifier take the same parameters (documented on each class)
    def __init__(self, kernel: Any = "rbf", sigma2: float = 1.0, gamma: float = 1.0, *,
                 degree: int = 3, t: float = 1.0, penalty: str | None = None, xi: float = 1.0,
                 lam: float = 1.0, a: float = 3.7, validation_fraction: float = 0.3,
                 solver: str = "CLARABEL", rank_tol: float = 1e-10, selection_tol: float = 1e-4,
                 gnc_start: str = "l2", gnc_options: dict | None = None,
                 random_state: Any = None):
        self.kernel = kernel
        self.sigma2 = sigma2
        self.gamma = gamma
        self.degree = degree
        self.t = t
        self.penalty = penalty
        self.xi = xi
        self.lam = lam
        self.a = a
        self.validation_fraction = validation_fraction
        self.solver = solver
        self.rank_tol = rank_tol
        self.selection_tol = selection_tol
        self.gnc_start = gnc_start
        self.gnc_options = gnc_options
        self.random_state = random_state

    # --- configuration -------------------------------------------------------------------
    def _componentwise_kernel(self) -> Componentwise:
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
                kk = make_kernel(item, sigma2=self.sigma2, degree=self.degree, t=self.t)
                kk._validate()
                bases.append(kk)
            return Componentwise(bases)
        if callable(k) and not isinstance(k, (str, Kernel)):
            raise HyperparameterError("a componentwise model needs a Kernel object or a name, not a callable")
        return as_componentwise(self._make_kernel())

    def _check_params(self) -> None:
        if self.penalty not in PENALTIES:
            raise HyperparameterError(f"penalty must be one of {PENALTIES}, got {self.penalty!r}")
        if self.penalty in ("l1", "fusion_areg"):
            check_positive(self.xi, "xi")
        if self.penalty == "stp":
            check_positive(self.lam, "lam")
            check_positive(self.a, "a")
        if self.penalty in (None, "fusion_eta"):
            self._gamma()
        if self.penalty in ("fusion_areg", "fusion_eta"):
            vf = self.validation_fraction
            if not isinstance(vf, (float, int)) or not 0 < vf < 1:
                raise HyperparameterError(f"validation_fraction must be in (0, 1), got {vf!r}")
        check_positive(self.rank_tol, "rank_tol")
        check_positive(self.selection_tol, "selection_tol")

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
        cw = self._componentwise_kernel()
        min_c = 1 if self.penalty is None else 2
        X = check_component_inputs(X, cw, min_components=min_c)
        comps = component_kernels(cw, X.shape[1])
        P = len(comps)
        self.kernel_ = cw
        self.component_labels_ = cw.labels(X.shape[1])
        self.history_ = None
        if self.penalty is None:
            if classification:
                f = ComponentwiseLSSVMClassification(X, Y, kernel=cw, gamma=self.gamma)
                sol = f.closed_form()
                coef = sol["alpha"] * f._targets()
            else:
                f = ComponentwiseLSSVM(X, Y, kernel=cw, gamma=self.gamma)
                sol = f.closed_form()
                coef = sol["alpha"]
            A = np.repeat(coef[:, None], P, axis=1)
            b = sol.scalar("b")
            Xfit = X
            selected = np.arange(P)
        elif self.penalty in ("l1", "stp"):
            if self.penalty == "l1":
                f = ComponentwiseL1(X, Y, kernel=cw, xi=self.xi, rank_tol=self.rank_tol)
                sol = _solve_qp(f, self.solver)
            else:
                f = ComponentwiseSTP(X, Y, kernel=cw, lam=self.lam, a=self.a, rank_tol=self.rank_tol)
                opts = {"max_inner": 30, "max_final": 500, "tol_stationarity": 1e-6,
                        **(self.gnc_options or {})}
                res = gnc(f, start=self.gnc_start, **opts)
                sol = res.solution
                self.history_ = res.history
            A, b, Xfit = f.basis.coef(sol["z"]), sol.scalar("b"), X
            yh = sol["yhat"]
            selected = selected_components(yh, self.selection_tol, scale=_scale(Y))
        else:
            tr, va = self._split(X.shape[0])
            Xfit = X[tr]
            check_component_inputs(Xfit, cw, min_components=2)
            if self.penalty == "fusion_areg":
                f = ComponentwiseFusion(Xfit, Y[tr], X[va], kernel=cw, xi=self.xi,
                                        rank_tol=self.rank_tol)
                sol = _solve_qp(f, self.solver)
                A, b = f.basis.coef(sol["z"]), sol.scalar("b")
                selected = selected_components(sol["yhat"], self.selection_tol, scale=_scale(Y[tr]))
            else:
                res = eta_fusion(Xfit, Y[tr], X[va], Y[va], kernel=cw, eta0=self._gamma())
                A = np.outer(res.solution["alpha"], res.eta)
                b = res.solution.scalar("b")
                self.eta_ = res.eta
                self.history_ = res.history
                f = ComponentwiseEta(Xfit, Y[tr], kernel=cw, eta=res.eta)
                out = f.component_outputs(res.solution["alpha"])
                selected = selected_components(out, self.selection_tol, scale=_scale(Y[tr]))
            self.validation_indices_ = va
        self.X_fit_ = Xfit
        self.component_coef_ = A
        self.intercept_ = float(b)
        self.selected_components_ = np.asarray(selected, dtype=int)
        self.n_components_ = P

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
    raise first_error


def _scale(y: np.ndarray) -> float:
    return float(np.linalg.norm(y - y.mean()))


_DOC_PARAMS = """
    kernel :
        ``"rbf"`` (``exp(-||x-z||²/sigma2)`` per column), ``"linear"``, ``"poly"``, a
        :class:`~lssvm_cvx.kernels.Kernel` (applied to every column), a list of those (one
        candidate component per column *and* kernel, e.g. ``["rbf", "linear"]``), or a
        :class:`~lssvm_cvx.kernels.Componentwise` (used as is, e.g. with column groups).
    sigma2 :
        RBF width σ² > 0 (the same for every component, as in the chapter).
    gamma :
        Regularization constant γ > 0 of eq. (4) (``penalty=None``); the start ``η = γ 1`` of
        ``"fusion_eta"``.
    degree, t :
        Polynomial kernel degree and offset.
    penalty :
        ``None``, ``"l1"``, ``"stp"``, ``"fusion_areg"`` or ``"fusion_eta"`` (module table).
    xi :
        Trade-off ξ > 0 of eq. (20) / (30).
    lam, a :
        λ > 0 and a > 0 of the smoothly thresholding penalty (24) (a = 3.7 in the chapter).
    validation_fraction :
        Share of the data held out as validation set by the fusion penalties.
    solver :
        cvxpy solver of the QPs (``"l1"``, ``"fusion_areg"``).
    rank_tol :
        Truncation of the component Grams for the sparse formulations
        (:class:`~lssvm_cvx.formulations.componentwise.ComponentBasis`).
    selection_tol :
        A component is selected when ``||Ŷ^d||_2 > selection_tol · ||y - mean(y)||_2`` (eq. 22).
    gnc_start :
        First GNC stage: ``"l2"`` (default; Algorithm 1 literally: least squares) or ``"l1"``
        (the penalty's convex tangent at 0, slope ``λa``); see
        :func:`~lssvm_cvx.formulations.componentwise_gnc.gnc` for how they differ.
    gnc_options :
        Extra keyword arguments of :func:`~lssvm_cvx.formulations.componentwise_gnc.gnc`
        (defaults here: ``max_inner=30, max_final=500, tol_stationarity=1e-6``).
    random_state :
        Seed of the validation split.
"""

_DOC_ATTRS = """
    component_coef_ : ndarray of shape (n_fit, P)
        Coefficient vector of every component: ``f^d(x) = Σ_k component_coef_[k, d]
        K^d(x_k^d, x^d)`` (all columns equal α for ``penalty=None``, eq. 8).
    intercept_ : float
        The bias ``b``.
    selected_components_ : ndarray of int
        ``S_D`` (eq. 22): indices into :attr:`component_labels_`.
    component_labels_ : list of (columns, kernel name)
        What each component is (input column(s) and kernel type).
    kernel_ : Componentwise
        The componentwise kernel used.
    X_fit_ : ndarray
        Training inputs the components expand on (the training part for fusion).
    history_ : list of dict or None
        GNC history (``"stp"``) or η-fusion history (``"fusion_eta"``).
    eta_ : ndarray
        Final η (``"fusion_eta"`` only).
"""


class ComponentwiseLSSVMRegressor(RegressorMixin, _ComponentwiseBase):
    __doc__ = ("""Componentwise LS-SVM regression with optional structure detection (componentwise
    LS-SVM chapter, eq. 3-9, 20-22, 25, 30, 38).

    Parameters
    ----------""" + _DOC_PARAMS + """
    Attributes
    ----------""" + _DOC_ATTRS + """
    Examples
    --------
    >>> from lssvm_cvx import problems
    >>> from lssvm_cvx import ComponentwiseLSSVMRegressor
    >>> ds = problems.get_problem("additive10", seed=0)
    >>> est = ComponentwiseLSSVMRegressor(sigma2=1.0, penalty="stp", lam=1.0).fit(ds.X, ds.y)
    >>> est.selected_labels()                     # doctest: +SKIP
    [((0,), 'RBF'), ((1,), 'RBF'), ((2,), 'RBF'), ((3,), 'RBF')]
    """)

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
    ----------""" + _DOC_PARAMS + """
    Attributes
    ----------""" + _DOC_ATTRS + """
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    """)

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
