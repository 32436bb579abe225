"""scikit-learn estimators for multiobjective model selection (You, Benitez-Quiroz & Martinez
2014): :class:`ParetoKernelRidge` (KRR, eq. 33) and :class:`ParetoKernelPCR` (KPCR, eq. 35).

Both select the kernel width σ² (RBF) or the degree (polynomial, enumerated) together with the
ridge λ (KRR) or the kept variance share r (KPCR) by one of

* ``"modified_eps"`` — Algorithm 1: the modified ε-constraint (eq. 26) over θ solved by SLSQP
  along an ε sweep, ε* by the ideal-point rule (eq. 27-28);
* ``"eps"`` — the plain ε-constraint (eq. 24) with the same ε* rule;
* ``"sum"`` / ``"product"`` — the criteria of eq. (29) / (30-31), ν or γ by 5-fold CV;
* ``"cv"`` / ``"gcv"`` — the 10-fold CV and GCV grid baselines of §V;
* ``None`` — no selection: fit with the given ``sigma2``, ``lam``/``r`` and ``degree``.

The model complexity is the roughness ``E_c`` (eq. 16-17, ``complexity="roughness"``) or the L2
norm ``α'Kα`` (eq. 22, ``"l2"``).  Inputs are standardised (the paper assumes standardised
vectors; for the polynomial kernel the standardised inputs are further divided by ``√p`` so that
``x'z = O(1)`` for every degree) and the target is standardised for the selection; predictions
are on the original scale.  ``sigma2`` refers to the standardised inputs, in the package's
convention ``exp(-||x - z||²/σ²)`` (the paper's ``σ²_paper = σ²/2``).
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from ..exceptions import HyperparameterError
from ..formulations.multiobjective import METHODS, check_lam, check_r, make_objectives
from ..selection.multiobjective import Selection, finish_selection, select_model
from .base import BestOfSearch, KernelMixin, check_fitted
from .params import (
    FOLDS,
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    Interval,
    StrOptions,
    validate_params,
)
from .search_results import search_results

__all__ = ["ParetoKernelRidge", "ParetoKernelPCR"]


class _ParetoBase(BestOfSearch, KernelMixin, RegressorMixin, BaseEstimator):
    _model: str = "krr"
    _saved_records = (Selection,)

    #: scikit-learn's constraint language (:mod:`lssvm_cvx.estimators.params`); the kernel's
    #: name is matched without case in :meth:`_check`
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "method": [StrOptions(set(METHODS)), None],
        "complexity": [StrOptions({"roughness", "l2"})],
        "kernel": [str],
        "sigma2": [POSITIVE],
        "degree": [POSITIVE_INT],
        "t": [NONNEGATIVE],
        "degrees": ["array-like", None],
        "s": [POSITIVE],
        "n_eps": [POSITIVE_INT],
        "weights": [StrOptions({"normalized", "paper"})],
        "nlp_maxiter": [POSITIVE_INT],
        "cv": FOLDS,
        "random_state": ["random_state"],
    }

    def _check(self) -> None:
        validate_params(self, self._parameter_constraints)
        if self.kernel.lower() not in ("rbf", "poly", "polynomial"):
            raise HyperparameterError(f"kernel must be 'rbf' or 'poly', got {self.kernel!r}")
        self._make_kernel()  # validates sigma2 / degree / t

    def fit(self, X: Any, y: Any) -> _ParetoBase:
        """Select the hyperparameters by ``method`` and fit on ``X``, ``y`` (1-D targets)."""
        self._check()
        X, y = self._validate_fit(X, y, y_numeric=True)
        kernel = "rbf" if self.kernel.lower() == "rbf" else "poly"
        mu, sd = X.mean(0), X.std(0)
        sd = np.where(sd > 0, sd, 1.0)
        self.x_mean_, self.x_scale_ = mu, sd * (np.sqrt(X.shape[1]) if kernel == "poly" else 1.0)
        ym, ys = float(y.mean()), float(y.std())
        ys = ys if ys > 0 else 1.0
        self.y_mean_, self.y_scale_ = ym, ys
        Z, t = (X - self.x_mean_) / self.x_scale_, (y - ym) / ys
        common = dict(model=self._model, kernel=kernel, complexity=self.complexity,
                      t=float(self.t), seed=0 if self.random_state is None else int(self.random_state))
        if self.method is None:
            sel = self._fixed(Z, t, kernel, common)
        else:
            degrees = (self.degrees if self.degrees is not None else (1, 2, 3, 4, 5, 6))
            sel = select_model(Z, t, method=self.method, degrees=tuple(degrees), s=self.s,
                               n_eps=int(self.n_eps), weights=self.weights, cv=int(self.cv),
                               nlp_maxiter=int(self.nlp_maxiter),
                               **common)
        self.selection_ = sel
        self.X_fit_ = Z
        self.dual_coef_ = sel.coef
        self.intercept_ = sel.intercept
        self.kernel_ = sel.make_kernel()
        self.sigma2_ = sel.sigma2
        self.degree_ = sel.degree
        self.E_f_ = sel.E_f
        self.E_c_ = sel.E_c
        self.front_ = sel.front
        self.scores_ = sel.scores
        self.cv_results_ = _cv_results(sel.scores, self._model, kernel)
        self._set_selected(sel)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predictions on the original scale of ``y``."""
        check_fitted(self, "dual_coef_")
        X = self._validate_predict(X)
        Z = (X - self.x_mean_) / self.x_scale_
        f = self.kernel_(Z, self.X_fit_) @ self.dual_coef_ + self.intercept_
        return f * self.y_scale_ + self.y_mean_


class ParetoKernelRidge(_ParetoBase):
    """Kernel ridge regression (eq. 33) with multiobjective model selection.

    Parameters
    ----------
    method : str or None, default="modified_eps"
        ``"modified_eps"`` (default), ``"eps"``, ``"sum"``, ``"product"``, ``"cv"``, ``"gcv"``
        or ``None`` (use ``sigma2``, ``lam``, ``degree`` as given).
    complexity : str, default="roughness"
        ``"roughness"`` (eq. 16-17) or ``"l2"`` (eq. 22).
    kernel : {"rbf", "poly"}, default="rbf"
        ``"rbf"`` (``exp(-||x-z||²/sigma2)`` on standardised inputs) or ``"poly"``
        (``(x'z + t)^degree``).
    sigma2 : float, default=1.0
        RBF width used when ``method=None``.
    lam : float, default=1.0
        Ridge λ used when ``method=None``.
    degree : int, default=2
        Polynomial degree used when ``method=None``.
    t : float, default=1.0
        Polynomial offset used when ``method=None``.
    degrees : sequence of int or None, default=None
        Degrees enumerated for the polynomial kernel (default 1..6, §V).
    nlp_maxiter : int, default=300
        Iteration limit of every SLSQP solve of the ε sweep in θ space (SLSQP normally stops
        earlier on its own test; each solve's status, iterations and KKT residuals are in
        ``selection_.front["convergence"]``).
    s : float, default=0.001
        Constant of eq. (25).
    n_eps : int, default=6
        Number of ε values of the sweep.
    weights : str, default="normalized"
        The ideal-point weights (``"normalized"`` or ``"paper"``: eq. 28 as printed — see
        :func:`~lssvm_cvx.formulations.multiobjective.select_model`).
    cv : int or cross-validation splitter, default=10
        Folds of the ``"cv"`` baseline.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the fold shuffling (``"cv"``, ``"sum"``, ``"product"``).

    Attributes
    ----------
    sigma2_, lambda_, degree_ :
        Selected hyperparameters (``sigma2_`` is None for the polynomial kernel, ``degree_``
        None for the RBF).
    E_f_, E_c_ :
        Model fit (eq. 12) and complexity of the selected model on the standardised data.
    front_ :
        The traced front (``eps``, ``E_f``, ``E_c``, ``theta``, ``ideal``, ``index``) for the
        ε-constraint methods, else None.
    cv_results_ :
        For the methods that score a set of candidates (``"cv"``, ``"gcv"``: the (σ², λ) or
        (degree, λ) grid; ``"sum"``, ``"product"``: the weights × degrees), the candidates in
        scikit-learn's layout (``params``, ``param_*``, ``mean_test_score`` = minus the CV/GCV
        criterion, ``rank_test_score``); None for the ε-constraint methods, whose selected
        point is ``front_["index"]`` on the traced front and for ``method=None``.
    dual_coef_, intercept_ :
        ``f(z) = intercept_ + Σ_m dual_coef_m k(z_m, z)`` on the standardised scale.
    selection_ :
        The :class:`~lssvm_cvx.formulations.multiobjective.Selection` record.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = (
        "pareto_krr_alpha", "pareto_krr_alpha_eps", "pareto_krr_sum")

    _model = "krr"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_ParetoBase._parameter_constraints, "lam": [POSITIVE]}

    def __init__(self, method: str | None = "modified_eps", complexity: str = "roughness",
                 kernel: str = "rbf", *, sigma2: float = 1.0, lam: float = 1.0, degree: int = 2,
                 t: float = 1.0, degrees: Any = None, s: float = 1e-3, n_eps: int = 6,
                 weights: str = "normalized", nlp_maxiter: int = 300, cv: int = 10,
                 random_state: Any = None):
        self.method = method
        self.complexity = complexity
        self.kernel = kernel
        self.sigma2 = sigma2
        self.lam = lam
        self.degree = degree
        self.t = t
        self.degrees = degrees
        self.s = s
        self.n_eps = n_eps
        self.weights = weights
        self.nlp_maxiter = nlp_maxiter
        self.cv = cv
        self.random_state = random_state

    def _fixed(self, Z, t, kernel, common):
        return _fixed_fit(Z, t, kernel, "krr", common, sigma2=self.sigma2,
                          lam=check_lam(self.lam), degree=self.degree)

    def _set_selected(self, sel) -> None:
        self.lambda_ = sel.lam


class ParetoKernelPCR(_ParetoBase):
    """Kernel principal component regression (eq. 35) with multiobjective model selection.

    Parameters are those of :class:`ParetoKernelRidge` with ``r`` (the share of the centred
    Gram's trace kept, ``0 < r ≤ 1``; searched in ``[0.8, 1]``) in place of ``lam``.  KPCR
    depends on r only through the step function m(r), so the multiobjective fronts are
    computed exactly over a (σ², r) grid (``select_pareto``'s ``kpcr_search="grid"``), not by
    SLSQP on the paper's central-difference gradient; ``nlp_maxiter`` is unused here.

    Attributes
    ----------
    sigma2_, r_, degree_, n_components_ :
        Selected width, variance share, degree and the number of components ``m(r)``.
    E_f_, E_c_, front_, dual_coef_, intercept_, selection_ :
        As in :class:`ParetoKernelRidge`.
    """

    #: the registered formulations (:data:`lssvm_cvx.formulations.FORMULATIONS`) of the
    #: model this estimator fits; their pages on the site link back here
    formulations: ClassVar[tuple[str, ...]] = ()

    _model = "kpcr"

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_ParetoBase._parameter_constraints, "r": [Interval(Real, 0, 1, closed="right")]}

    def __init__(self, method: str | None = "modified_eps", complexity: str = "roughness",
                 kernel: str = "rbf", *, sigma2: float = 1.0, r: float = 0.95, degree: int = 2,
                 t: float = 1.0, degrees: Any = None, s: float = 1e-3, n_eps: int = 5,
                 weights: str = "normalized", nlp_maxiter: int = 5, cv: int = 10,
                 random_state: Any = None):
        self.method = method
        self.complexity = complexity
        self.kernel = kernel
        self.sigma2 = sigma2
        self.r = r
        self.degree = degree
        self.t = t
        self.degrees = degrees
        self.s = s
        self.n_eps = n_eps
        self.weights = weights
        self.nlp_maxiter = nlp_maxiter
        self.cv = cv
        self.random_state = random_state

    def _check(self) -> None:
        super()._check()
        check_r(self.r)

    def _fixed(self, Z, t, kernel, common):
        return _fixed_fit(Z, t, kernel, "kpcr", common, sigma2=self.sigma2, r=check_r(self.r),
                          degree=self.degree)

    def _set_selected(self, sel) -> None:
        self.r_ = sel.r
        self.n_components_ = sel.m


def _fixed_fit(Z, t, kernel, model, common, *, sigma2, degree, lam=None, r=None):
    yc = t - t.mean()
    obj = make_objectives(model, Z, yc, kernel, int(degree), common["t"], common["complexity"])
    th = obj.theta(lam=lam, sigma2=sigma2) if model == "krr" else obj.theta(r=r, sigma2=sigma2)
    ev = obj.evaluate(th)
    return finish_selection(model, kernel, "fixed", common["complexity"], Z, float(t.mean()), obj, ev,
                   degree=int(degree), t=common["t"])


def _cv_results(scores: Any, model: str, kernel: str) -> dict[str, Any] | None:
    """``Selection.scores`` as ``cv_results_`` (see :mod:`._search`)."""
    if not scores:
        return None
    value = "lam" if model == "krr" else "r"
    if "grid" in scores:        # cv / gcv: kernels (σ², degree) × values (λ or r)
        params, crit = [], []
        for (s2, d), row in zip(scores["grid"], scores["scores"]):
            head = {"sigma2": float(s2)} if kernel == "rbf" else {"degree": int(d)}
            for v, c in zip(scores["values"], row):
                params.append({**head, value: float(v)})
                crit.append(c)
        return search_results(params, np.where(np.isfinite(crit), crit, np.nan))
    if "cv_mse" in scores:      # sum / product: degrees × weights by k-fold CV
        params, crit = [], []
        for d, row in zip(scores["degrees"], scores["cv_mse"]):
            for w, c in zip(scores["weights"], row):
                params.append(({"degree": int(d)} if kernel != "rbf" else {}) | {"weight": float(w)})
                crit.append(c)
        return search_results(params, crit)
    return None
