"""scikit-learn estimators over the composition core
(:class:`lssvm_cvx.formulations.RegularizedLSSVM`): any loss, any weighted terms.

Every term weight is a parameter: ``est.set_params(terms__graph=0.1)`` sets the weight of the
term named ``"graph"`` and ``terms__graph__n_neighbors=5`` a parameter of the term itself, so
``GridSearchCV(est, {"terms__graph": [...]})`` tunes it.  ``selection="loo" | "kfold"`` searches
a grid of weights (``weight_grid``, default the first term over ``10^-5 … 10^3``) and, when
asked (``sigma2_grid``), of RBF widths itself (also the widths inside a kernel object:
``Componentwise(RBF())``, ``RBF() + Linear()``; :func:`~lssvm_cvx.estimators.grids.set_width`),
scoring every candidate on every split with
``scoring`` (:mod:`lssvm_cvx.estimators.scoring`) under the estimand ``loo``: ``"refit"`` (the
default: a point leaves the loss, the basis and every term, as in
``GridSearchCV(est, cv=LeaveOneOut())``) or ``"loss"`` (it leaves the loss only).  Exact closed
forms where the algebra allows, refits otherwise (:mod:`lssvm_cvx.selection.heldout`);
``cv_results_``, ``best_params_``, ``best_score_`` and ``best_index_`` read as
``GridSearchCV``'s (:mod:`lssvm_cvx.estimators.regularized_search`).  A point of
``sample_weight`` 0 stays in the basis and in the terms (semi-supervised learning: Laplacian
RLS).  A non-convex term (:class:`~lssvm_cvx.terms.SmoothlyThresholding`) is fitted by
graduated non-convexity (:func:`lssvm_cvx.selection.gnc_terms.gnc_fit`).
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any, ClassVar, cast

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import HyperparameterError, TermError
from ..formulations.regularized import RegularizedLSSVM, check_terms, nonconvex_keys
from ..kernels import Kernel
from ..losses import Loss, make_loss
from ..selection.gnc_terms import gnc_fit
from ..selection.heldout import ESTIMANDS
from .base import KernelMixin, check_fitted, checked_groups, checked_weights, encode_labels
from .grids import SIGMA2_GRID, set_width
from .lssvm_device import DeviceModelMixin, decision_device, labels_device, uses_device
from .params import FOLDS, KERNEL_PARAMS, SCORING, WEIGHT_GRID, Grid, StrOptions, validate_params
from .regularized_device import fit_regularized_device
from .regularized_search import DEFAULT_WEIGHT_GRID, SEARCHES, search
from .scoring import best_of, resolve_scoring

__all__ = ["RegularizedLSSVMRegressor", "RegularizedLSSVMClassifier", "DEFAULT_WEIGHT_GRID",
           "fit_arrays"]

SELECTIONS = (None, "loo", "kfold", "gcv")
#: weights tried for the first term when ``selection`` is set and ``weight_grid`` is None
#: (:mod:`lssvm_cvx.estimators.regularized_search`)
DEFAULT_WEIGHT_GRID = DEFAULT_WEIGHT_GRID


def _loss_weights(sample_weight: Any, n: int) -> tuple[np.ndarray | None, np.ndarray]:
    """The loss weights (``None``: all ones) and the mask of the labelled points (weight
    ``> 0``).  A point of weight 0 stays in the basis and in every term and leaves the loss:
    semi-supervised learning (its target is ignored)."""
    return checked_weights(sample_weight, n)


class _RegularizedBase(DeviceModelMixin, KernelMixin, BaseEstimator):
    """Parameters, search and fit shared by the regressor and the classifier."""

    _classification = False
    #: scikit-learn's constraint language (:mod:`lssvm_cvx.estimators.params`); the terms, the
    #: loss and the weight grid are checked by :func:`check_terms`, :func:`make_loss` and the
    #: search
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **KERNEL_PARAMS,
        "loss": [str, Loss, None],
        "terms": [dict, None],
        "selection": [StrOptions({s for s in SELECTIONS if s}), None],
        "loo": [StrOptions(set(ESTIMANDS))],
        "scoring": SCORING,
        "weight_grid": [dict, None],
        "sigma2_grid": [StrOptions({"auto"}), "array-like", None],
        "cv": [*FOLDS, StrOptions({"loo"})],
        "solver": [str, None],
        "solver_options": [dict, None],
        "accept_inaccurate": ["boolean"],
        "n_jobs": [Integral, None],
        "search": [StrOptions(set(SEARCHES))],
        "random_state": ["random_state"],
    }
    #: the grids' rules (:func:`~lssvm_cvx.estimators.params.validate_params` checks them)
    _grid_parameters: ClassVar[dict[str, Grid]] = {"sigma2_grid": SIGMA2_GRID,
                                                   "weight_grid": WEIGHT_GRID}

    def __init__(self, kernel: Any = "rbf", sigma2: float = 1.0, *, degree: int = 3,
                 t: float = 1.0, loss: Any = None, terms: Any = None, selection: str | None = None,
                 loo: str = "refit", scoring: Any = None, weight_grid: Any = None,
                 sigma2_grid: Any = None, cv: Any = 5, solver: str | None = None,
                 solver_options: dict | None = None, accept_inaccurate: bool = False,
                 n_jobs: int | None = None, search: str = "auto", random_state: Any = None):
        self.search = search
        self.kernel = kernel
        self.sigma2 = sigma2
        self.degree = degree
        self.t = t
        self.loss = loss
        self.terms = terms
        self.selection = selection
        self.loo = loo
        self.scoring = scoring
        self.weight_grid = weight_grid
        self.sigma2_grid = sigma2_grid
        self.cv = cv
        self.solver = solver
        self.solver_options = solver_options
        self.accept_inaccurate = accept_inaccurate
        self.n_jobs = n_jobs
        self.random_state = random_state

    # --- term weights as parameters ----------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        out = super().get_params(deep=deep)
        terms = self.terms if isinstance(self.terms, dict) else {}
        if deep:
            for key, entry in terms.items():
                if not (isinstance(entry, tuple) and len(entry) == 2 and hasattr(entry[0], "get_params")):
                    continue  # invalid terms are reported by fit, not by get_params
                term, w = entry
                out[f"terms__{key}"] = w
                for p, v in term.get_params(deep=False).items():
                    out[f"terms__{key}__{p}"] = v
        return out

    def set_params(self, **params: Any) -> _RegularizedBase:
        nested = {k: v for k, v in params.items() if k.startswith("terms__")}
        if nested:
            terms = {k: (v[0], v[1]) for k, v in check_terms(params.pop("terms", self.terms)).items()}
            for name, value in nested.items():
                params.pop(name)
                key, _, sub = name[len("terms__"):].partition("__")
                if key not in terms:
                    raise HyperparameterError(f"no term named {key!r} (terms: {sorted(terms)})")
                term, w = terms[key]
                if sub:
                    term = type(term)(**{**term.get_params(deep=False), sub: value})
                else:
                    w = value
                terms[key] = (term, w)
            params["terms"] = terms
        return super().set_params(**params)

    # --- fitting ------------------------------------------------------------------------------
    def _kernel_at(self, sigma2: float) -> Kernel:
        """The kernel at width ``sigma2``; a kernel object gets the width set inside it when
        ``sigma2_grid`` searches widths (and is used as given otherwise)."""
        kernel = self._make_kernel(sigma2)
        if self.sigma2_grid is not None and isinstance(self.kernel, Kernel):
            kernel = set_width(kernel, sigma2)
        return kernel

    def _formulation(self, X: np.ndarray, y: np.ndarray, sigma2: float, w: np.ndarray | None,
                     terms: dict) -> RegularizedLSSVM:
        kernel = self._kernel_at(sigma2)
        K = self._gram(kernel, X)
        return RegularizedLSSVM(None if self._precomputed else X, y, kernel=kernel,
                                loss=make_loss(self.loss, sample_weight=w), terms=terms, K=K,
                                gram_owned=K is not X)

    def _landmark_gram(self, sigma2: float, L: np.ndarray, X: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
        """The kernel between the rows of ``X`` and the landmarks ``L``, and the landmarks'
        Gram, without the full Gram (the screen of RKHS-only terms)."""
        if self._precomputed:
            return X[:, L], X[np.ix_(L, L)]
        kernel = self._kernel_at(sigma2)
        return kernel(X, X[L]), kernel(X[L])

    def _classes(self) -> np.ndarray | None:
        return getattr(self, "classes_", None) if self._classification else None

    def _solve(self, form: RegularizedLSSVM, Y: np.ndarray) -> tuple[np.ndarray, Any]:
        if form.is_quadratic and self.solver is None:
            return form.system(overwrite_gram=True).solve(Y)
        nonconvex = bool(nonconvex_keys(form.terms_))
        alphas, bs, converged = [], [], []
        for f in self._per_column(form, Y, form.terms):
            if nonconvex:  # graduated non-convexity (each step a convex composition)
                fit = gnc_fit(f, solver=self.solver)
                sol = fit.solution
                converged.append(fit.converged)
            else:
                sol = f.solve(self.solver or "CLARABEL", options=self.solver_options,
                              accept_inaccurate=self.accept_inaccurate)
            alphas.append(sol["alpha"])
            bs.append(sol.scalar("b"))
        if nonconvex and not all(converged):
            warnings.warn("graduated non-convexity did not converge for every target column "
                          "(see lssvm_cvx.selection.gnc_terms.gnc_fit)", ConvergenceWarning, stacklevel=3)
        if Y.ndim == 1:
            return alphas[0], bs[0]
        return np.column_stack(alphas), np.array(bs)

    @staticmethod
    def _per_column(form: RegularizedLSSVM, Y: np.ndarray, terms: Any) -> list[RegularizedLSSVM]:
        """One formulation per target column (one-vs-rest) sharing ``form``'s Gram, for the
        cvxpy paths (the closed form solves all columns with one factorisation)."""
        cols = [Y] if Y.ndim == 1 else [Y[:, j] for j in range(Y.shape[1])]
        return [RegularizedLSSVM(form.X, col, kernel=form.kernel, loss=form.loss, terms=terms,
                                 K=form.context.K, gram_owned=True) for col in cols]

    def _fit_device(self, X: Any, y: Any, sample_weight: Any, groups: Any) -> bool:
        """Check the parameters, then fit on device arrays
        (:mod:`lssvm_cvx.estimators.regularized_device`) when ``X`` is one; whether it was."""
        validate_params(self, self._parameter_constraints, self._grid_parameters)
        if not uses_device(X):
            return False
        for attr in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, attr)       # nothing of an earlier fit survives a failed one
        fit_regularized_device(self, X, y, sample_weight, groups,
                               classification=self._classification)
        return True

    def _decision(self, X: Any) -> np.ndarray:
        check_fitted(self, "dual_coef_")
        if getattr(self, "device_", None) is not None:
            return decision_device(self, X)
        X = self._validate_predict(X)
        K = X[:, self.support_] if self._precomputed else cast(Kernel, self.kernel_)(X, self.X_fit_)
        return K @ self.dual_coef_ + self.intercept_


#: the parameters both estimators document, before and after ``loss`` (whose text differs)
_DOC_KERNEL = """
    kernel : {"rbf", "linear", "poly", "precomputed"} or Kernel or callable, default="rbf"
        The kernel (``sigma2`` is the RBF width σ² of ``exp(-||x - z||²/σ²)``).
    sigma2 : float, default=1.0
        RBF width (used as given unless ``sigma2_grid`` asks for a search).
    degree : int, default=3
        Degree of the polynomial kernel ``(x'z + t)^degree``.
    t : float, default=1.0
        Offset of the polynomial kernel.
"""
_DOC_SEARCH = """
    terms : dict of str to (Term, float), default=None
        ``{key: (term, weight)}``; ``None`` is ``{"rkhs": (RKHSNorm(), 1.0)}``, the LS-SVM with
        ``γ = 1``.
    selection : {None, "loo", "kfold", "gcv"}, default=None
        Search ``weight_grid`` (× ``sigma2_grid`` when given) by held-out error: leave-one-out,
        or the splits of ``cv``; or by generalised cross-validation of the closed form (the
        squared loss and quadratic terms: ``N ||y - ŷ||² / tr(I - H)²`` over the points of
        positive ``sample_weight``, no held-out fits; ``mean_test_score`` is minus it).
        ``None``: fit with the weights and width as given.
    loo : {"refit", "loss"}, default="refit"
        The estimand of the held-out error.  ``"refit"``: a held-out point leaves the loss,
        the kernel basis and every term (a kNN graph is rebuilt without it) — what
        ``GridSearchCV(est, cv=LeaveOneOut())`` (or ``cv=`` the same splitter) computes, to
        round-off.  ``"loss"``: it leaves the loss only; basis and terms keep every point (the
        classical closed-form LOO).  The two coincide for the RKHS norm alone.  Exact closed
        forms where the algebra allows (squared loss, quadratic terms; for ``"refit"``, terms
        that do not depend on the data, ``Term.depends_on_data``), refits otherwise
        (:mod:`lssvm_cvx.selection.heldout`).
    scoring : None, "loss", str or callable, default=None
        What the search maximises, per split then averaged as ``GridSearchCV`` does: None is
        ``neg_mean_squared_error`` for the squared loss and ``"loss"`` (minus the mean
        held-out loss, e.g. the pinball loss at its τ) for any other loss; any scikit-learn
        scorer name or callable ``scorer(estimator, X, y)``
        (:mod:`lssvm_cvx.estimators.scoring`).
    weight_grid : dict of str to array-like, default=None
        Weights per term key to search (default: the first term over ``10^-5 … 10^3``).
    sigma2_grid : None, "auto" or array-like, default=None
        RBF widths to search.  ``None``: ``sigma2`` is used as given (an explicit width is
        never replaced); ``"auto"``: 9 values around the median squared distance.  With
        ``kernel="rbf"`` or a kernel object that holds widths (``Componentwise(RBF())``,
        ``RBF() + Linear()``, a kernel of your own with a ``sigma2`` parameter): each candidate
        sets every width inside it (:func:`~lssvm_cvx.estimators.grids.set_width`).
    cv : int, splitter or iterable, default=5
        For ``selection="kfold"``: a number of folds (shuffled with ``random_state``), any
        scikit-learn splitter (``KFold``, ``GroupKFold`` with ``fit(..., groups=)``,
        ``ShuffleSplit``, ...) or an iterable of ``(train, test)`` index pairs.
    solver : str, default=None
        ``None``: closed form when the loss is squared and every term quadratic, else CLARABEL;
        or a cvxpy solver name.
    solver_options : dict or None, default=None
        Options passed to that solver (fit and refits).
    accept_inaccurate : bool, default=False
        Accept a final fit that stops ``optimal_inaccurate`` without a certificate (else
        :class:`~lssvm_cvx.exceptions.SolverError`).  During a search an inaccurate refit is
        scored either way, with a warning, and marked in ``cv_results_["status"]``; a failed
        one scores NaN and ranks last, with the reason in ``cv_results_["reason"]``.
    n_jobs : int or None, default=None
        Parallel refits of a search (joblib).
    search : {"auto", "grid", "screen"}, default="auto"
        How ``selection="loo"`` covers an RBF grid when the loss is squared, every term
        quadratic and the estimand is ``"loss"`` (or the terms are the RKHS norm alone):
        ``"grid"`` (the exact path for every σ² and weight combination), ``"screen"`` (a
        subset-of-regressors screen of the whole grid with 300 landmarks, then the exact path
        around the screened optima of the best two candidates, or of the best width when
        the terms are RKHS norms alone and only σ² is screened,
        :mod:`lssvm_cvx.selection.screen`; only candidates scored exactly have a
        ``mean_test_score``) or ``"auto"`` (screen above 1500 rows).
    random_state : int, default=None
        Fold shuffling and the screen's landmarks (None: the landmarks of seed 0, so that
        the default gives a reproducible screen).

"""


def fit_arrays(est: _RegularizedBase, X: np.ndarray, Y: np.ndarray, sample_weight: Any,
               groups: Any = None, labels: np.ndarray | None = None) -> None:
    """Fit ``est`` (a composed estimator) on validated arrays: the search when ``selection``
    is set, then the fit at the chosen candidate; what ``fit`` runs after validating and
    encoding, and what the LS-SVM estimators run as presets of the composition
    (:mod:`lssvm_cvx.estimators.lssvm`).

    Parameters
    ----------
    est : RegularizedLSSVMRegressor or RegularizedLSSVMClassifier
        The estimator (its parameters define the model and the search; fitted in place).
    X : numpy.ndarray
        Validated inputs (or the precomputed Gram).
    Y : numpy.ndarray of shape (N,) or (N, C)
        Targets (``±1`` columns for a classifier, whose ``classes_`` is set).
    sample_weight : array-like of shape (N,) or None
        Loss weights (0: the point stays in the basis and the terms, out of the loss).
    groups : array-like or None, default=None
        Group labels for a group splitter.
    labels : numpy.ndarray or None, default=None
        What the scorer compares with (a classifier's original labels); None: ``Y``.
    """
    terms = check_terms(est.terms)
    loss = make_loss(est.loss)
    task = "classification" if est._classification else "regression"
    if loss.task not in (task, "both"):
        raise TermError(
            f"loss {type(loss).__name__} is a {loss.task} loss; {type(est).__name__} needs "
            f"a {task} or general loss (Loss.task = {task!r} or 'both')")
    # checked with or without a search, as the LS-SVM estimators do (until 2026-11-30 an
    # unknown scorer passed unsaid when selection was None)
    resolve_scoring(est.scoring, classifier=est._classification, loss=loss)
    w, labeled = _loss_weights(sample_weight, X.shape[0])
    groups = checked_groups(groups, X.shape[0])
    sigma2, results = est.sigma2, None
    keep: dict[str, Any] = {}   # the search's solution (α, b) at its choice
    for attr in ("best_params_", "best_score_", "best_index_"):
        if hasattr(est, attr):
            delattr(est, attr)
    if est.selection is not None:
        sigma2, terms, results = search(
            est, X, Y, Y if labels is None else labels, w, labeled, terms, groups,
            classification=est._classification, formulation=est._formulation,
            classes=est._classes(),
            landmark_gram=lambda s2, L: est._landmark_gram(s2, L, X), keep=keep)
        est.best_index_, est.best_params_, est.best_score_ = best_of(results)
    if keep and est.solver is None:   # the chosen weights' solution, found by the screen
        (alpha, b), kernel, X_form = keep["solution"], keep["kernel"], keep["X"]
    else:
        form = est._formulation(X, Y if Y.ndim == 1 else Y[:, 0], sigma2, w, terms)
        (alpha, b), kernel, X_form = est._solve(form, Y), form.kernel, form.X
    est.device_ = None
    est.kernel_ = kernel
    est.sigma2_ = sigma2
    est.terms_ = terms
    est.cv_results_ = results
    est.support_ = np.arange(X.shape[0])
    est.X_fit_ = None if X_form is None else X.copy(order="C")  # None: a precomputed Gram
    est.dual_coef_ = alpha
    est.intercept_ = b


class RegularizedLSSVMRegressor(RegressorMixin, _RegularizedBase):
    __doc__ = ("""Kernel regression with any loss and weighted terms on the expansion coefficients.

    Parameters
    ----------""" + _DOC_KERNEL + """    loss : Loss or str, default=None
        :mod:`lssvm_cvx.losses` object or name; ``None`` is the squared loss."""
        + _DOC_SEARCH + """    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_support,)
        α, so that ``f(x) = Σ_i dual_coef_i k(x_i, x) + intercept_``.
    intercept_ : float
        The bias b.
    terms_ : dict
        The terms with the weights used (selected ones when ``selection`` is set).
    sigma2_ : float
        The RBF width used.
    cv_results_ : dict or None
        As ``GridSearchCV.cv_results_`` (``pandas.DataFrame(est.cv_results_)`` works):
        ``params``, ``param_<name>``, ``split<k>_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, ``mean_fit_time``; also ``status`` and
        ``reason`` per candidate, ``estimand``, ``scoring`` and ``n_splits``.
    best_params_, best_score_, best_index_ : dict, float, int
        The chosen candidate (the first of rank 1), its mean test score and its index, as
        ``GridSearchCV``'s (only after a search).

    Examples
    --------
    >>> from lssvm_cvx import RegularizedLSSVMRegressor
    >>> from lssvm_cvx.terms import RKHSNorm, GraphLaplacian
    >>> est = RegularizedLSSVMRegressor(sigma2=0.5, terms={
    ...     "rkhs": (RKHSNorm(), 0.1), "graph": (GraphLaplacian(n_neighbors=5), 0.01)})
    """)

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("regularized_lssvm", "regularized_lssvm_l1")

    def fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None
            ) -> RegularizedLSSVMRegressor:
        """Fit on ``X`` (n, d) and targets ``y`` (n,), optionally weighted.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.
        y : array-like of shape (n,)
            Targets.
        sample_weight : array-like of shape (n,) or None, default=None
            Weights of the observations in the loss; a point of weight 0 stays in the basis
            and in the terms (semi-supervised; its target is ignored).
        groups : array-like of shape (n,) or None, default=None
            Group labels for a group splitter in ``cv`` (``GroupKFold``, ...).

        Returns
        -------
        RegularizedLSSVMRegressor
            The fitted estimator.
        """
        if self._fit_device(X, y, sample_weight, groups):
            return self
        X, y = self._validate_fit(X, y, y_numeric=True)
        fit_arrays(self, X, y, sample_weight, groups)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``f(x) = Σ_i α_i k(x_i, x) + b``.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.

        Returns
        -------
        numpy.ndarray of shape (n,)
            Predicted values.
        """
        return self._decision(X)


class RegularizedLSSVMClassifier(ClassifierMixin, _RegularizedBase):
    __doc__ = ("""Kernel classifier with any loss and weighted terms (labels coded ±1; one-vs-rest for
    more than two classes, sharing one factorisation when the problem is quadratic).

    With the default squared loss and terms this is the LS-SVM classifier (AReg paper eq. 57)
    with ``γ = 1``.

    Parameters
    ----------""" + _DOC_KERNEL + """    loss : Loss or str, default=None
        :mod:`lssvm_cvx.losses` object or name; ``None`` is the squared loss; also a
        classification loss (``"squared_hinge"``: the ℓ2-SVM, ``"hinge"``)."""
        + _DOC_SEARCH + """    Attributes
    ----------
    classes_ : ndarray
        Labels; for two classes ``classes_[1]`` is the +1 class.
    dual_coef_, intercept_, terms_, sigma2_, cv_results_, best_params_, best_score_ :
        As in the regressor (one column per class for more than two classes; by default
        ``mean_test_score`` is the held-out accuracy: ``scoring=None`` scores a classifier by
        accuracy whatever its loss, ``scoring="loss"`` by its loss).
    """)

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ("regularized_lssvm", "regularized_lssvm_l1")

    _classification = True

    def fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None
            ) -> RegularizedLSSVMClassifier:
        """Fit on ``X`` and labels ``y`` (any hashable labels, at least two classes).

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.
        y : array-like of shape (n,)
            Labels.
        sample_weight : array-like of shape (n,) or None, default=None
            Weights of the observations in the loss; a point of weight 0 stays in the basis
            and in the terms (semi-supervised: give it any of the labels, it is ignored).
        groups : array-like of shape (n,) or None, default=None
            Group labels for a group splitter in ``cv`` (``GroupKFold``, ...).

        Returns
        -------
        RegularizedLSSVMClassifier
            The fitted estimator.
        """
        if self._fit_device(X, y, sample_weight, groups):
            return self
        X, y = self._validate_fit(X, y)
        self.classes_, Y = encode_labels(y)
        fit_arrays(self, X, Y, sample_weight, groups, labels=np.asarray(y))
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x)`` (binary: positive means ``classes_[1]``), one column per class otherwise.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.

        Returns
        -------
        numpy.ndarray of shape (n,) or (n, n_classes)
            Decision values.
        """
        return self._decision(X)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.

        Returns
        -------
        numpy.ndarray of shape (n,)
            Labels from ``classes_``.
        """
        F = self.decision_function(X)
        if getattr(self, "device_", None) is not None:
            return labels_device(self, F)
        if F.ndim == 1:
            return self.classes_[(F > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]
