"""scikit-learn estimators for the additive regularization trade-off (AReg) of Pelckmans,
Suykens & De Moor (2006): the regularization constants and the model from one convex
problem (or linear system) that fuses training with validation or cross-validation.

``method`` selects the fusion scheme (the formulations are in
:mod:`lssvm_cvx.formulations.areg`, :mod:`~lssvm_cvx.formulations.areg_ensemble` and
:mod:`~lssvm_cvx.formulations.areg_cv`):

==============  ==========================================================================
``"fusion"``    AReg fused with a validation set (Lemma 3.2, Algorithm 3.1): ``N`` free
                constants ``c``; interpolates unless the validation set is large (Remark 3.3)
``"ensemble"``  convex combination of Tikhonov nodes ``γ_1..γ_m`` tuned on a validation set
                (§4, Algorithm 4.1); the paper's "AReg (Val)" column
``"cv"``        one ``c`` shared by ``L`` cross-validation folds (§5.1-5.2, eq. 37); the
                exact optimum is ill-posed with wide kernels: ``solver="lsqr"`` (early
                stopping, the paper's route) or ``solver="tikhonov"`` (``μ||c||²``, ``μ``
                by GCV of the final model) give a well-posed ``c``
``"fast_cv"``   the fast cross-validation fusion with weight ``ξ`` (Algorithm 5.1, eq. 52),
                model (41)
==============  ==========================================================================

As in §6 of the paper, the validation split (``validation_fraction``, ``random_state``)
only tunes the trade-off: with ``refit=True`` the ensemble is retrained on all the data with
the tuned ``λ`` ("a model computed on the complete dataset with the regularization trade-off
tuned"), and the cross-validation methods use all the data throughout.

``gamma`` in the node list ``gammas`` is the LS-SVM regularization constant and ``sigma2`` the
RBF width (see :mod:`lssvm_cvx.estimators.base`).
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split

from ..exceptions import HyperparameterError, InputError
from ..formulations.areg import AReg, recover_tikhonov_gamma
from ..formulations.areg_cv import ARegCV
from ..formulations.areg_ensemble import CRITERIA, ARegEnsemble, TikhonovNodes, check_node_gammas
from ..formulations.areg_fast_cv import ARegFastCV
from ..formulations.areg_fusion import ARegFusion
from ..linalg.folds import heldout_folds, make_folds
from .base import BinaryClassifierMixin, KernelMixin, check_fitted, encode_labels
from .params import FOLDS, FRACTION, KERNEL_PARAMS, POSITIVE, POSITIVE_INT, StrOptions, validate_params

__all__ = ["AdditiveRegularizationRegressor", "AdditiveRegularizationClassifier", "METHODS",
           "SOLVERS"]

#: the fusion schemes of the estimators
METHODS = ("fusion", "ensemble", "cv", "fast_cv")
#: how the fused least-squares problems are solved (``"tikhonov"``: ``method="cv"`` only)
SOLVERS = ("exact", "lsqr", "tikhonov")


class _ARegEstimator(KernelMixin, BaseEstimator):
    """Fit/predict shared by the regressor and the classifier."""

    _classifier = False
    #: scikit-learn's constraint language (:mod:`lssvm_cvx.estimators.params`); the rules
    #: between parameters are in :meth:`_check_params`
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "method": [StrOptions(set(METHODS))],
        **KERNEL_PARAMS,
        "gammas": ["array-like"],
        "validation_fraction": [FRACTION],
        "cv": FOLDS,
        "xi": [POSITIVE],
        "solver": [StrOptions(set(SOLVERS))],
        "max_iter": [POSITIVE_INT],
        "mu": [StrOptions({"gcv", "gcv_lstsq"}), POSITIVE],
        "refit": ["boolean"],
        "recover_gamma": ["boolean"],
        "random_state": ["random_state"],
    }

    def _check_params(self) -> None:
        validate_params(self, self._parameter_constraints)
        check_node_gammas(self.gammas)      # every method (until 2026-11-30 the ensemble's only)
        if self.solver == "tikhonov" and self.method != "cv":
            raise HyperparameterError("solver='tikhonov' (Tikhonov regularization on c) is "
                                      f"defined for method='cv' only, got {self.method!r}")

    # --- data splits ----------------------------------------------------------------------
    def _split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = y.shape[0]
        if n < 3:
            raise InputError(f"a training/validation split needs at least 3 samples, got {n}")
        idx = np.arange(n)
        n_val = min(max(1, int(round(self.validation_fraction * n))), n - 2)
        strat = y if self._classifier and np.min(np.unique(y, return_counts=True)[1]) >= 2 else None
        try:
            tr, va = train_test_split(idx, test_size=n_val, random_state=self.random_state,
                                      stratify=strat)
        except ValueError:  # too few samples per class to stratify
            tr, va = train_test_split(idx, test_size=n_val, random_state=self.random_state)
        return np.sort(tr), np.sort(va)

    def _folds(self, y: np.ndarray) -> list[np.ndarray]:
        n, cv = y.shape[0], self.cv
        if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
            L = int(min(cv, n - 2)) if n >= 4 else 0
            if L < 2:
                raise InputError(f"{n} samples are too few for cross-validation "
                                 "(each fold must leave at least 2 training points)")
            try:
                tests = heldout_folds(L, n, y=y, stratified=self._classifier,
                                      random_state=self.random_state)
            except ValueError:  # too few samples per class to stratify
                tests = heldout_folds(L, n, random_state=self.random_state)
            return make_folds(n, tests)
        # a splitter's test sets (a group splitter, which AReg gives no groups, is refused as
        # InputError), else the held-out index sets themselves
        return make_folds(n, heldout_folds(cv, n, y=y) if hasattr(cv, "split") else list(cv), name="cv")

    # --- fitting --------------------------------------------------------------------------
    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        """``y`` is the target vector (regression) or the original labels (classifier)."""
        self._check_params()
        kernel = self._make_kernel()
        K = self._gram(kernel, X)
        task = "classification" if self._classifier else "regression"
        n = y.shape[0]
        lam, crit_value, tr, va, folds = None, None, None, None, None
        coef = None
        if self.method in ("fusion", "ensemble"):
            tr, va = self._split(y)
            args = (K[np.ix_(tr, tr)], y[tr], K[np.ix_(va, tr)], y[va])
            if self.method == "fusion":
                f = ARegFusion.from_gram(*args, task=task)
                sol = self._solve(f)
                alpha, b, c, support = sol["alpha"], sol.scalar("b"), sol["c"], tr
                omega_h, a, r = f.omega(), f.border(), f.rhs()
            else:
                f = ARegEnsemble.from_gram(*args, gammas=self.gammas, task=task)
                crit = getattr(self, "criterion", "l2")
                if crit == "l2":
                    sol = f.solve("closed_form")
                else:
                    f.validate()
                    sol = f.search(crit)
                    crit_value = sol.extras["value"]
                lam = sol["lam"]
                if self.refit:
                    full = AReg(None, y, Omega=K, task=task)
                    omega_h, a, r = full.omega(), full.border(), full.rhs()
                    nodes = TikhonovNodes(omega_h, a, r, self.gammas)
                    alpha, b = nodes.alphas @ lam, float(nodes.bs @ lam)
                    c = (nodes.alphas * (1.0 / nodes.gammas - 1.0)) @ lam
                    support = np.arange(n)
                else:
                    alpha, b, c, support = sol["alpha"], sol.scalar("b"), sol["c"], tr
                    omega_h, a, r = f.omega(), f.border(), f.rhs()
        else:
            folds = self._folds(y)
            if self.method == "cv":
                f = ARegCV(None, y, folds=cast(Any, folds), Omega=K, task=task)
                sol = self._solve(f)
                c = sol["c"]
                alpha, b = f.final_model(sol)
            else:
                f = ARegFastCV(None, y, folds=cast(Any, folds), xi=self.xi, Omega=K, task=task)
                sol = self._solve(f)
                alpha, b, c = sol["alpha"], sol.scalar("b"), sol.extras["c"]
                coef = f.model(sol)[0]  # the average of the L fold models, eq. (41)
            support = np.arange(n)
            omega_h, a, r = f.omega(), f.border(), f.rhs()
        self.kernel_ = kernel
        self.alpha_ = np.asarray(alpha)
        self.intercept_ = float(b)
        self.c_ = np.asarray(c)
        self.lambda_ = lam
        self.support_ = support
        self.train_idx_, self.val_idx_, self.folds_ = tr, va, folds
        self.X_fit_ = None if self._precomputed else X[support]
        coef = self.alpha_ if coef is None else np.asarray(coef)
        self.dual_coef_ = coef * (a if self._classifier else 1.0)
        self.criterion_value_ = crit_value
        lstsq = sol.extras.get("lstsq", {}) if self.method != "ensemble" else {}
        self.n_iter_ = int(lstsq.get("iterations", 1))
        self.mu_ = lstsq.get("mu") if self.solver == "tikhonov" else None
        self.gamma_ = None
        if self.recover_gamma:
            rec = recover_tikhonov_gamma(omega_h, r, self.c_, border=a)
            self.gamma_ = rec.gamma
            self.gamma_recovery_ = {"gamma": rec.gamma, "relative_distance": rec.relative_objective,
                                    "at_boundary": rec.at_boundary}

    def _solve(self, f: Any) -> Any:
        """The fused least-squares problem: exactly (closed form), by early-stopped LSQR or
        with Tikhonov regularization on ``c`` (``method="cv"``)."""
        if self.solver == "lsqr":
            return f.solve_lsqr(self.max_iter)
        if self.solver == "tikhonov":
            return f.solve_tikhonov(self.mu)
        return f.solve("closed_form")

    def _decision(self, X: Any) -> np.ndarray:
        check_fitted(self, "dual_coef_")
        X = self._validate_predict(X)
        K = X[:, self.support_] if self._precomputed else self.kernel_(X, self.X_fit_)
        return K @ self.dual_coef_ + self.intercept_


class AdditiveRegularizationRegressor(RegressorMixin, _ARegEstimator):
    """LS-SVM regression with the additive regularization trade-off, tuned by fusion with
    validation or cross-validation (Pelckmans, Suykens & De Moor 2006).

    Parameters
    ----------
    method : str, default="ensemble"
        ``"fusion"`` (Algorithm 3.1), ``"ensemble"`` (Tikhonov nodes, Algorithm 4.1; default),
        ``"cv"`` (full L-fold CV fusion, eq. 37) or ``"fast_cv"`` (Algorithm 5.1, eq. 52).
    kernel : {"rbf", "linear", "poly", "precomputed"}, Kernel or callable, default="rbf"
        Kernel as in :class:`~lssvm_cvx.estimators.lssvm.LSSVMRegressor` (``"rbf"`` with width
        ``sigma2``, ``"linear"``, ``"poly"``, ``"precomputed"``, a Kernel or a callable).
    sigma2 : float, default=1.0
        Width σ² of the RBF kernel ``exp(-||x - z||²/σ²)``.
    degree : int, default=3
        Degree of the polynomial kernel ``(x'z + t)^degree``.
    t : float, default=1.0
        Offset of the polynomial kernel.
    gammas : tuple of float, default=(1.0, 400.0)
        Node regularization constants of the ensemble (``m ≥ 2``; paper Table 2:
        ``(1, 400)``).
    validation_fraction : float, default=1/3
        Share of the data held out for validation by ``"fusion"`` and ``"ensemble"``
        (the paper: one third).
    cv : int, cross-validation splitter or list, default=10
        Folds of ``"cv"`` and ``"fast_cv"``: a number ``L`` (shuffled with ``random_state``),
        a scikit-learn splitter, its ``(train, test)`` pairs (each training set the
        complement of its test set) or the held-out index sets; they must partition the
        samples.
    xi : float, default=1.0
        The weight ``ξ > 0`` of eq. (52) (``"fast_cv"``).
    solver : {"exact", "lsqr", "tikhonov"}, default="exact"
        How ``"fusion"``, ``"cv"`` and ``"fast_cv"`` solve their fused least-squares problem:
        ``"exact"`` (the closed form: the optimum of the convex problem, minimum-norm when not
        unique), ``"lsqr"`` (``max_iter`` conjugate-gradient steps from ``c = 0``, the paper's
        route in Remarks 4.4 and 5.4: the minimiser over the ``max_iter``-dimensional Krylov
        space) or, for ``method="cv"`` only, ``"tikhonov"`` (``min ||Gc - h||² + μ||c||²``
        with ``G, h`` the least-squares problem in ``c`` of the CV fusion,
        :meth:`~lssvm_cvx.formulations.areg_cv.ARegCV.solve_tikhonov`; not in the paper).
        With wide kernels the exact CV fusion is ill-posed (its matrix in ``c`` is numerically
        rank deficient and ``c`` absorbs the regularization) and its optimum can generalize
        badly; both other solvers regularize.  See
        ``benchmarks/results/areg_cv_wellposed.md``.
    max_iter : int, default=20
        LSQR iterations for ``solver="lsqr"`` (Matlab's ``lsqr`` default, 20).
    mu : {"gcv", "gcv_lstsq"} or float, default="gcv"
        Weight of the Tikhonov penalty ``μ||c||²`` for ``solver="tikhonov"``: a number
        ``> 0``, ``"gcv"`` (generalized cross-validation of the final model as a linear
        smoother of ``y``, :meth:`~lssvm_cvx.formulations.areg_cv.ARegCV.final_gcv`) or
        ``"gcv_lstsq"`` (GCV of the least-squares problem in ``c``; it tends to pick no
        regularization, kept for comparison).
    refit : bool, default=True
        Retrain the ensemble on all the data with the tuned ``λ`` (the paper's protocol).
    recover_gamma : bool, default=True
        Also compute the Tikhonov γ closest to the fitted AReg solution (eq. 71-73; one
        eigendecomposition).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the validation split and of the folds.

    Attributes
    ----------
    dual_coef_, intercept_ :
        The model ``f(x) = Σ_i dual_coef_i K(x_i, x) + intercept_`` over the points
        ``support_`` (for ``"fast_cv"`` the average of the ``L`` fold models, eq. 41:
        ``dual_coef_ = ((L-1)/L) α``).
    alpha_ :
        The paper's α (equal to ``dual_coef_`` for regression).
    c_ :
        The additive regularization constants of the fitted model (one per ``support_``
        point; for ``"cv"`` and ``"fast_cv"`` one per sample).
    lambda_ :
        The ensemble weights (``method="ensemble"``), else None.
    gamma_ :
        The recovered Tikhonov γ (``recover_gamma=True``), with details in
        ``gamma_recovery_``.
    train_idx_, val_idx_, folds_ :
        The validation split or the folds used.
    n_iter_ :
        LSQR iterations (``solver="lsqr"``); 1 for a direct solve.
    mu_ :
        The Tikhonov weight used (``solver="tikhonov"``), else None.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = (
        "areg", "areg_cv", "areg_fast_cv", "areg_fusion", "areg_ensemble")

    def __init__(self, method: str = "ensemble", kernel: Any = "rbf", sigma2: float = 1.0, *,
                 degree: int = 3, t: float = 1.0, gammas: Any = (1.0, 400.0),
                 validation_fraction: float = 1 / 3, cv: Any = 10, xi: float = 1.0,
                 solver: str = "exact", max_iter: int = 20, mu: Any = "gcv", refit: bool = True,
                 recover_gamma: bool = True, random_state: Any = None):
        self.method = method
        self.kernel = kernel
        self.sigma2 = sigma2
        self.degree = degree
        self.t = t
        self.gammas = gammas
        self.validation_fraction = validation_fraction
        self.cv = cv
        self.xi = xi
        self.solver = solver
        self.max_iter = max_iter
        self.mu = mu
        self.refit = refit
        self.recover_gamma = recover_gamma
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> AdditiveRegularizationRegressor:
        """Fit on ``X`` (n_samples, n_features) and targets ``y`` (n_samples,)."""
        X, y = self._validate_fit(X, y, y_numeric=True)
        self._fit(X, y)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``f(x) = Σ_i α_i K(x_i, x) + b``."""
        return self._decision(X)


class AdditiveRegularizationClassifier(BinaryClassifierMixin, ClassifierMixin, _ARegEstimator):
    """Binary LS-SVM classifier with the additive regularization trade-off (Appendix A of
    Pelckmans, Suykens & De Moor 2006).

    Parameters
    ----------
    method : str, default="ensemble"
        As in :class:`AdditiveRegularizationRegressor`.
    kernel : {"rbf", "linear", "poly", "precomputed"}, Kernel or callable, default="rbf"
        As in :class:`AdditiveRegularizationRegressor`.
    sigma2 : float, default=1.0
        As in :class:`AdditiveRegularizationRegressor`.
    degree : int, default=3
        As in :class:`AdditiveRegularizationRegressor`.
    t : float, default=1.0
        As in :class:`AdditiveRegularizationRegressor`.
    validation_fraction : float, default=1/3
        As in :class:`AdditiveRegularizationRegressor`.
    cv : int, cross-validation splitter or list, default=10
        As in :class:`AdditiveRegularizationRegressor`.
    xi : float, default=1.0
        As in :class:`AdditiveRegularizationRegressor`.
    solver : str, default="exact"
        As in :class:`AdditiveRegularizationRegressor`.
    max_iter : int, default=20
        As in :class:`AdditiveRegularizationRegressor`.
    mu : {"gcv", "gcv_lstsq"} or float, default="gcv"
        As in :class:`AdditiveRegularizationRegressor`.
    refit : bool, default=True
        As in :class:`AdditiveRegularizationRegressor`.
    recover_gamma : bool, default=True
        As in :class:`AdditiveRegularizationRegressor`.
    random_state : int, numpy.random.Generator or None, default=None
        As in :class:`AdditiveRegularizationRegressor`.
    gammas : tuple of float, default=(1.0, 20.0)
        Node constants of the ensemble (paper Table 3: ``(1, 20)``).
    criterion : str, default="l2"
        Validation criterion of ``method="ensemble"``: ``"l2"`` (the convex 2-norm of eq. 64),
        ``"misclassification"`` (eq. 65-66) or ``"roc"`` (area under the ROC curve, §A.5),
        the last two by the exact line search of
        :func:`~lssvm_cvx.formulations.areg_ensemble.criterion_search` (``m = 2``) or its
        pairwise search (``m > 2``).  The other methods use the 2-norm.

    Attributes
    ----------
    classes_ :
        The two labels; ``classes_[1]`` is the +1 class.
    dual_coef_, intercept_ :
        ``f(x) = Σ_i dual_coef_i K(x_i, x) + intercept_`` with ``dual_coef_ = α ∘ y``.
    alpha_, c_, lambda_, gamma_, criterion_value_ :
        The paper's α and ``c`` (in the ``Ω_y`` form of eq. 59-60), the ensemble weights, the
        recovered γ and the value of the validation criterion (count or AUC).
    n_iter_, mu_ :
        As in :class:`AdditiveRegularizationRegressor`.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = (
        "areg_classifier", "areg_classifier_cv", "areg_classifier_fast_cv",
        "areg_classifier_fusion", "areg_classifier_ensemble")

    _classifier = True

    def __init__(self, method: str = "ensemble", kernel: Any = "rbf", sigma2: float = 1.0, *,
                 degree: int = 3, t: float = 1.0, gammas: Any = (1.0, 20.0),
                 criterion: str = "l2", validation_fraction: float = 1 / 3, cv: Any = 10,
                 xi: float = 1.0, solver: str = "exact", max_iter: int = 20, mu: Any = "gcv",
                 refit: bool = True, recover_gamma: bool = True, random_state: Any = None):
        self.method = method
        self.kernel = kernel
        self.sigma2 = sigma2
        self.degree = degree
        self.t = t
        self.gammas = gammas
        self.criterion = criterion
        self.validation_fraction = validation_fraction
        self.cv = cv
        self.xi = xi
        self.solver = solver
        self.max_iter = max_iter
        self.mu = mu
        self.refit = refit
        self.recover_gamma = recover_gamma
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_ARegEstimator._parameter_constraints,
        "criterion": [StrOptions({"l2", *CRITERIA})],
    }

    def _check_params(self) -> None:
        super()._check_params()
        if self.criterion != "l2" and self.method != "ensemble":
            raise HyperparameterError(
                f"criterion={self.criterion!r} is defined for method='ensemble' only (paper §A.5)")

    def fit(self, X: Any, y: Any) -> AdditiveRegularizationClassifier:
        """Fit on ``X`` and binary labels ``y`` (any two values)."""
        X, y = self._validate_fit(X, y)
        self.classes_ = encode_labels(y, binary=True, model="the AReg classifier (paper Appendix A)")[0]
        self._fit(X, y)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x)``; positive means ``classes_[1]``."""
        return self._decision(X)

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]``."""
        check_fitted(self, "dual_coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
