"""scikit-learn estimators over the composition core
(:class:`lssvm_cvx.formulations.RegularizedLSSVM`): any loss, any weighted terms.

Every term weight is a parameter: ``est.set_params(terms__graph=0.1)`` sets the weight of the
term named ``"graph"`` and ``terms__graph__n_neighbors=5`` a parameter of the term itself, so
``GridSearchCV(est, {"terms__graph": [...]})`` tunes it.  ``selection="loo" | "kfold"`` searches
a grid of weights (``weight_grid``, default the first term over ``10^-5 … 10^3``) and of RBF
widths (``sigma2_grid``) itself, by exact closed-form held-out residuals when the loss is
squared and every term quadratic (one eigendecomposition per σ² for RKHS-only problems), and by
refits of the cached DPP problem otherwise.  ``cv_results_`` has scikit-learn's layout.
A non-convex term (:class:`~lssvm_cvx.terms.SmoothlyThresholding`) is fitted by graduated
non-convexity (:func:`lssvm_cvx.selection.gnc_terms.gnc_fit`), its held-out residuals by refits.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, cast

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import HyperparameterError, InputError, TermError
from ..formulations.regularized import RegularizedLSSVM, check_terms, nonconvex_keys
from ..kernels import Kernel
from ..linalg.folds import heldout_folds
from ..linalg.scores import loo_score
from ..losses import make_loss
from ..selection.gnc_terms import gnc_fit, gnc_kfold_residuals
from ..selection.regularized_screen import screen_landmarks, screen_path
from .base import KernelMixin, check_fitted, encode_labels, sample_weights
from .lssvm import SCREEN_MIN_ROWS, SEARCHES, default_sigma2_grid
from .search_results import search_results

__all__ = ["RegularizedLSSVMRegressor", "RegularizedLSSVMClassifier", "DEFAULT_WEIGHT_GRID"]

#: weights tried for the first term when ``selection`` is set and ``weight_grid`` is None
DEFAULT_WEIGHT_GRID = np.logspace(-5, 3, 17)
SELECTIONS = (None, "loo", "kfold")
#: after the screen, the exact path scores the best screened candidate (σ², other weights) and
#: at most ``SCREEN_SHORTLIST - 1`` more whose screened LOO criterion is within
#: ``SCREEN_RTOL`` of the best (a clear screen winner costs one eigendecomposition)
SCREEN_SHORTLIST = 2
SCREEN_RTOL = 0.05


class _RegularizedBase(KernelMixin, BaseEstimator):
    """Parameters, search and fit shared by the regressor and the classifier."""

    _classification = False

    def __init__(self, kernel: Any = "rbf", sigma2: float = 1.0, *, degree: int = 3,
                 t: float = 1.0, loss: Any = None, terms: Any = None, selection: str | None = None,
                 weight_grid: Any = None, sigma2_grid: Any = None, cv: int = 5,
                 solver: str | None = None, search: str = "auto", random_state: Any = None):
        self.search = search
        self.kernel = kernel
        self.sigma2 = sigma2
        self.degree = degree
        self.t = t
        self.loss = loss
        self.terms = terms
        self.selection = selection
        self.weight_grid = weight_grid
        self.sigma2_grid = sigma2_grid
        self.cv = cv
        self.solver = solver
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
    def _formulation(self, X: np.ndarray, y: np.ndarray, sigma2: float, w: np.ndarray | None,
                     terms: dict) -> RegularizedLSSVM:
        kernel = self._make_kernel(sigma2)
        K = self._gram(kernel, X)
        return RegularizedLSSVM(None if self._precomputed else X, y, kernel=kernel,
                                loss=make_loss(self.loss, sample_weight=w), terms=terms, K=K,
                                gram_owned=K is not X)

    def _folds(self, y_split: np.ndarray) -> list[np.ndarray] | None:
        if self.selection != "kfold":
            return None
        cv = int(self.cv)
        if cv < 2:
            raise HyperparameterError(f"cv must be >= 2, got {self.cv!r}")
        try:
            return heldout_folds(cv, y_split.size, y=y_split, stratified=self._classification,
                                 random_state=self.random_state)
        except ValueError as exc:
            raise InputError(f"cannot split the data into {cv} folds: {exc}") from exc

    def _score(self, R: np.ndarray, Y: np.ndarray) -> float:
        """Held-out score, larger is better: ``-MSE`` (regression) or the accuracy ``1 - error``
        (classification), from the package's one score vocabulary
        (:func:`lssvm_cvx.linalg.scores.loo_score`)."""
        n = Y.shape[0]
        crit = "error" if self._classification else "mse"
        value = float(loo_score(R.reshape(n, -1, 1), Y.reshape(n, -1), crit)[0])
        return 1.0 - value if self._classification else -value

    def _fit_all(self, X: np.ndarray, Y: np.ndarray, sample_weight: Any) -> None:
        if self.selection not in SELECTIONS:
            raise HyperparameterError(f"selection must be one of {SELECTIONS}, got {self.selection!r}")
        terms = check_terms(self.terms)
        loss = make_loss(self.loss)
        task = "classification" if self._classification else "regression"
        if loss.task not in (task, "both"):
            raise TermError(
                f"loss {type(loss).__name__} is a {loss.task} loss; {type(self).__name__} needs "
                f"a {task} or general loss (Loss.task = {task!r} or 'both')")
        w, keep = sample_weights(sample_weight, X.shape[0])
        Xk = X[np.ix_(keep, keep)] if self._precomputed else X[keep]
        Yk = Y[keep]
        sigma2, results = self.sigma2, None
        if self.selection is not None:
            sigma2, terms, results = self._search(Xk, Yk, w, terms)
        form = self._formulation(Xk, Yk if Yk.ndim == 1 else Yk[:, 0], sigma2, w, terms)
        alpha, b = self._solve(form, Yk)
        self.kernel_ = form.kernel
        self.sigma2_ = sigma2
        self.terms_ = terms
        self.cv_results_ = results
        self.support_ = np.flatnonzero(keep)
        self.X_fit_ = None if self._precomputed else Xk
        self.dual_coef_ = alpha
        self.intercept_ = b

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
                sol = f.solve(self.solver or "CLARABEL")
            alphas.append(sol["alpha"])
            bs.append(sol.scalar("b"))
        if nonconvex and not all(converged):
            warnings.warn("graduated non-convexity did not converge for every target column "
                          "(see lssvm_cvx.selection.gnc_terms.gnc_fit)", ConvergenceWarning, stacklevel=3)
        if Y.ndim == 1:
            return alphas[0], bs[0]
        return np.column_stack(alphas), np.array(bs)

    def _search(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray | None, terms: dict):
        grid = self.weight_grid
        if grid is None:
            grid = {next(iter(terms)): DEFAULT_WEIGHT_GRID}
        if not isinstance(grid, dict) or not grid:
            raise HyperparameterError("weight_grid must be a non-empty dict term key -> weights")
        for key, vals in grid.items():
            if key not in terms:
                raise HyperparameterError(f"weight_grid names {key!r}, which is not a term ({sorted(terms)})")
            v = np.asarray(vals, dtype=np.float64).reshape(-1)
            if v.size == 0 or not np.all(np.isfinite(v)) or np.any(v < 0):
                raise HyperparameterError(f"weight_grid[{key!r}] must be finite weights >= 0")
        rbf = isinstance(self.kernel, str) and self.kernel.lower() == "rbf"
        if rbf:
            s2s = (default_sigma2_grid(X) if self.sigma2_grid is None
                   else np.asarray(self.sigma2_grid, float).reshape(-1))
        else:
            s2s = np.array([self.sigma2])
        path_key, *other_keys = list(grid)
        folds = self._folds(Y if Y.ndim == 1 else np.argmax(Y, axis=1))
        if self.search not in SEARCHES:
            raise HyperparameterError(f"search must be one of {SEARCHES}, got {self.search!r}")
        if (rbf and self.selection == "loo" and s2s.size > 1 and self.search != "grid"
                and (self.search == "screen" or X.shape[0] > SCREEN_MIN_ROWS)):
            if make_loss(self.loss).squared and all(t.is_quadratic for t, _ in terms.values()):
                return self._screened_search(X, Y, w, terms, grid, s2s, path_key, other_keys)
        params, scores = [], []
        for s2 in s2s:
            for combo in itertools.product(*(np.asarray(grid[k], float) for k in other_keys)):
                cand = dict(terms)
                cand.update({k: (terms[k][0], float(v)) for k, v in zip(other_keys, combo)})
                form = self._formulation(X, Y if Y.ndim == 1 else Y[:, 0], float(s2), w, cand)
                ws = np.asarray(grid[path_key], float)
                if form.is_quadratic:
                    res = form.path(path_key, ws, folds=folds, Y=Y).residuals
                else:
                    res = np.array([self._refit_residuals(form, path_key, wk, folds, Y) for wk in ws])
                for wk, R in zip(ws, res):
                    p = {f"terms__{k}": float(v) for k, v in zip(other_keys, combo)}
                    p[f"terms__{path_key}"] = float(wk)
                    if rbf:
                        p["sigma2"] = float(s2)
                    params.append(p)
                    scores.append(self._score(R, Y))
        results = search_results(params, scores, lower_is_better=False)
        best = params[int(np.argmax(scores))]  # the first of equal scores, as rank 1
        chosen = {k: (t, float(best.get(f"terms__{k}", wt))) for k, (t, wt) in terms.items()}
        return best.get("sigma2", self.sigma2), chosen, results

    def _screened_search(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray | None, terms: dict,
                         grid: dict, s2s: np.ndarray, path_key: str, other_keys: list[str]):
        """Screen every (σ², other weights) candidate's path by the low-rank LOO of
        :mod:`lssvm_cvx.selection.regularized_screen`, then score the
        :data:`SCREEN_SHORTLIST` best by the exact path; the choice and its score are exact."""
        y0 = Y if Y.ndim == 1 else Y[:, 0]
        ws = np.asarray(grid[path_key], float)
        crit = "error" if self._classification else "mse"
        landmarks = screen_landmarks(X.shape[0], random_state=self.random_state)
        cands = [(float(s2), combo) for s2 in s2s
                 for combo in itertools.product(*(np.asarray(grid[k], float) for k in other_keys))]

        def with_weights(combo: tuple) -> dict:
            cand = dict(terms)
            cand.update({k: (terms[k][0], float(v)) for k, v in zip(other_keys, combo)})
            return cand

        screened = np.array([screen_path(self._formulation(X, y0, s2, w, with_weights(combo)),
                                         path_key, ws, Y, landmarks, crit) for s2, combo in cands])
        best_screen = np.nanmin(screened, axis=1)
        ranked = np.argsort(best_screen, kind="stable")[:SCREEN_SHORTLIST]
        order = [int(c) for c in ranked if best_screen[c] <= (1 + SCREEN_RTOL) * best_screen[ranked[0]]]
        exact = np.full(screened.shape, np.nan)
        for c in order:
            # exact LOO around the screened optimum, widened while the exact optimum sits on
            # the window's edge (a 1-D search along the path term's weight)
            s2, combo = cands[c]
            form = self._formulation(X, y0, s2, w, with_weights(combo))
            j0 = int(np.nanargmin(screened[c]))
            todo = [j for j in (j0 - 1, j0, j0 + 1) if 0 <= j < ws.size]
            while todo:
                for j in todo:
                    exact[c, j] = self._score(form.system({path_key: float(ws[j])}).loo(Y), Y)
                jb = int(np.nanargmax(exact[c]))
                todo = [j for j in (jb - 1, jb + 1) if 0 <= j < ws.size and np.isnan(exact[c, j])]
        params = []
        for s2, combo in cands:
            for wk in ws:
                p = {f"terms__{k}": float(v) for k, v in zip(other_keys, combo)}
                p[f"terms__{path_key}"] = float(wk)
                p["sigma2"] = s2
                params.append(p)
        flat = exact.ravel()
        results = search_results(params, flat, lower_is_better=False,
                                 screen_scores=(1.0 - screened if self._classification
                                                else -screened).ravel(),
                                 search="screen", landmarks=int(landmarks.size))
        best = params[int(np.nanargmax(flat))]
        chosen = {k: (t, float(best.get(f"terms__{k}", wt))) for k, (t, wt) in terms.items()}
        return best["sigma2"], chosen, results

    def _refit_residuals(self, form: RegularizedLSSVM, key: str, weight: float,
                         folds: list[np.ndarray] | None, Y: np.ndarray) -> np.ndarray:
        terms = dict(form.terms_)
        terms[key] = (terms[key][0], weight)
        fl = folds if folds is not None else [np.array([i]) for i in range(Y.shape[0])]
        out = [gnc_kfold_residuals(f, fl, solver=self.solver) if nonconvex_keys(terms)
               else f.kfold_residuals(fl, solver=self.solver or "CLARABEL")
               for f in self._per_column(form, Y, terms)]
        return out[0] if Y.ndim == 1 else np.column_stack(out)

    @staticmethod
    def _per_column(form: RegularizedLSSVM, Y: np.ndarray, terms: Any) -> list[RegularizedLSSVM]:
        """One formulation per target column (one-vs-rest) sharing ``form``'s Gram, for the
        cvxpy paths (the closed form solves all columns with one factorisation)."""
        cols = [Y] if Y.ndim == 1 else [Y[:, j] for j in range(Y.shape[1])]
        return [RegularizedLSSVM(form.X, col, kernel=form.kernel, loss=form.loss, terms=terms,
                                 K=form.context.K) for col in cols]

    def _decision(self, X: Any) -> np.ndarray:
        check_fitted(self, "dual_coef_")
        X = self._validate_predict(X)
        K = X[:, self.support_] if self._precomputed else cast(Kernel, self.kernel_)(X, self.X_fit_)
        return K @ self.dual_coef_ + self.intercept_


class RegularizedLSSVMRegressor(RegressorMixin, _RegularizedBase):
    """Kernel regression with any loss and weighted terms on the expansion coefficients.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly", "precomputed"} or Kernel or callable, default="rbf"
        The kernel (``sigma2`` is the RBF width σ² of ``exp(-||x - z||²/σ²)``).
    sigma2 : float, default=1.0
        RBF width (used unless ``selection`` searches ``sigma2_grid``).
    degree : int, default=3
        Degree of the polynomial kernel ``(x'z + t)^degree``.
    t : float, default=1.0
        Offset of the polynomial kernel.
    loss : Loss or str, default=None
        :mod:`lssvm_cvx.losses` object or name; ``None`` is the squared loss.
    terms : dict of str to (Term, float), default=None
        ``{key: (term, weight)}``; ``None`` is ``{"rkhs": (RKHSNorm(), 1.0)}``, the LS-SVM with
        ``γ = 1``.
    selection : {None, "loo", "kfold"}, default=None
        Search ``weight_grid`` × ``sigma2_grid`` by exact held-out residuals.
    weight_grid : dict of str to array-like, default=None
        Weights per term key to search (default: the first term over ``10^-5 … 10^3``).
    sigma2_grid : array-like, default=None
        RBF widths to search (default: 9 values around the median squared distance).
    cv : int, default=5
        Folds for ``selection="kfold"``.
    solver : str, default=None
        ``None``: closed form when the loss is squared and every term quadratic, else CLARABEL;
        or a cvxpy solver name.
    search : {"auto", "grid", "screen"}, default="auto"
        How ``selection="loo"`` covers the RBF grid when the loss is squared and every term
        quadratic: ``"grid"`` (the exact path for every σ² and weight combination: one
        eigendecomposition each), ``"screen"`` (a subset-of-regressors screen of the whole grid
        with 300 landmarks, then the exact path for the best candidate and the runner-up
        when its screened criterion is within 5 % of the best,
        :mod:`lssvm_cvx.selection.regularized_screen`; the chosen point and its score are
        exact) or ``"auto"`` (screen above 1500 rows).
    random_state : int, default=None
        Fold shuffling and the screen's landmarks.

    Attributes
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
        scikit-learn's layout: ``params``, ``mean_test_score`` (``-MSE``), ``rank_test_score``
        and one ``param_<name>`` array per searched parameter.

    Examples
    --------
    >>> from lssvm_cvx import RegularizedLSSVMRegressor
    >>> from lssvm_cvx.terms import RKHSNorm, GraphLaplacian
    >>> est = RegularizedLSSVMRegressor(sigma2=0.5, terms={
    ...     "rkhs": (RKHSNorm(), 0.1), "graph": (GraphLaplacian(n_neighbors=5), 0.01)})
    """

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> RegularizedLSSVMRegressor:
        """Fit on ``X`` (n, d) and targets ``y`` (n,), optionally weighted.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.
        y : array-like of shape (n,)
            Targets.
        sample_weight : array-like of shape (n,) or None, default=None
            Weights of the observations in the loss.

        Returns
        -------
        RegularizedLSSVMRegressor
            The fitted estimator.
        """
        X, y = self._validate_fit(X, y, y_numeric=True)
        self._fit_all(X, y, sample_weight)
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
    """Kernel classifier with any loss and weighted terms (labels coded ±1; one-vs-rest for
    more than two classes, sharing one factorisation when the problem is quadratic).

    With the default squared loss and terms this is the LS-SVM classifier (AReg paper eq. 57)
    with ``γ = 1``.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly", "precomputed"} or Kernel or callable, default="rbf"
        The kernel (``sigma2`` is the RBF width σ² of ``exp(-||x - z||²/σ²)``).
    sigma2 : float, default=1.0
        RBF width (used unless ``selection`` searches ``sigma2_grid``).
    degree : int, default=3
        Degree of the polynomial kernel ``(x'z + t)^degree``.
    t : float, default=1.0
        Offset of the polynomial kernel.
    loss : Loss or str, default=None
        :mod:`lssvm_cvx.losses` object or name; ``None`` is the squared loss; also a
        classification loss (``"squared_hinge"``: the ℓ2-SVM, ``"hinge"``).
    terms : dict of str to (Term, float), default=None
        ``{key: (term, weight)}``; ``None`` is ``{"rkhs": (RKHSNorm(), 1.0)}``, the LS-SVM with
        ``γ = 1``.
    selection : {None, "loo", "kfold"}, default=None
        Search ``weight_grid`` × ``sigma2_grid`` by exact held-out residuals.
    weight_grid : dict of str to array-like, default=None
        Weights per term key to search (default: the first term over ``10^-5 … 10^3``).
    sigma2_grid : array-like, default=None
        RBF widths to search (default: 9 values around the median squared distance).
    cv : int, default=5
        Folds for ``selection="kfold"``.
    solver : str, default=None
        ``None``: closed form when the loss is squared and every term quadratic, else CLARABEL;
        or a cvxpy solver name.
    search : {"auto", "grid", "screen"}, default="auto"
        How ``selection="loo"`` covers the RBF grid when the loss is squared and every term
        quadratic: ``"grid"`` (the exact path for every σ² and weight combination: one
        eigendecomposition each), ``"screen"`` (a subset-of-regressors screen of the whole grid
        with 300 landmarks, then the exact path for the best candidate and the runner-up
        when its screened criterion is within 5 % of the best,
        :mod:`lssvm_cvx.selection.regularized_screen`; the chosen point and its score are
        exact) or ``"auto"`` (screen above 1500 rows).
    random_state : int, default=None
        Fold shuffling and the screen's landmarks.

    Attributes
    ----------
    classes_ : ndarray
        Labels; for two classes ``classes_[1]`` is the +1 class.
    dual_coef_, intercept_, terms_, sigma2_, cv_results_ :
        As in the regressor (one column per class for more than two classes;
        ``mean_test_score`` is the held-out accuracy).
    """

    _classification = True

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> RegularizedLSSVMClassifier:
        """Fit on ``X`` and labels ``y`` (any hashable labels, at least two classes).

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n_train) for a precomputed kernel
            Inputs.
        y : array-like of shape (n,)
            Labels.
        sample_weight : array-like of shape (n,) or None, default=None
            Weights of the observations in the loss.

        Returns
        -------
        RegularizedLSSVMClassifier
            The fitted estimator.
        """
        X, y = self._validate_fit(X, y)
        self.classes_, Y = encode_labels(y)
        self._fit_all(X, Y, sample_weight)
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
        if F.ndim == 1:
            return self.classes_[(F > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]
