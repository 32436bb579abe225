"""The five fits behind :class:`~lssvm_cvx.ComponentwiseLSSVMRegressor` and
:class:`~lssvm_cvx.ComponentwiseLSSVMClassifier`, one function per algorithm (componentwise
LS-SVM chapter):

====================== ============================================================
``penalty``            function (algorithm)
====================== ============================================================
``None``               :func:`fit_lssvm`: the dual linear system, eq. (7) / (16)
``"l1"``               :func:`fit_l1`: the L1 component QP, eq. (20)-(22)
``"stp"``              :func:`fit_stp`: the smoothly thresholding penalty (25) by
                       weighted GNC, then the pruning of overlapping candidates
``"fusion_areg"``      :func:`fit_fusion_areg`: fusion with validation inputs, QP (30)
``"fusion_eta"``       :func:`fit_fusion_eta`: η-fusion (38) by alternating least squares
====================== ============================================================

The estimator picks one from :data:`FITS` by its ``penalty`` and copies the returned
:class:`ComponentFit` onto itself; each function reads the estimator's settings from one
:class:`FitSettings` record, so no algorithm reads another's options.  The classifier's fits are
the regression fits on the ±1 coded labels (see :mod:`lssvm_cvx.estimators.componentwise`).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..exceptions import HyperparameterError, InputError, SolverError
from ..formulations.componentwise import check_component_inputs, component_kernels
from ..formulations.componentwise_eta import ComponentwiseEta
from ..formulations.componentwise_gnc import ComponentwiseSTP, kernel_dof_weights
from ..formulations.componentwise_sparse import ComponentwiseFusion, ComponentwiseL1, selected_components
from ..kernels.base import Componentwise
from ..selection.eta_als import eta_fusion
from ..selection.gnc import gnc, prune_overlaps
from ..terms import RKHSNorm
from .regularized import RegularizedLSSVMRegressor, fit_arrays

__all__ = ["FitSettings", "ComponentFit", "FITS", "fit_lssvm", "fit_l1", "fit_stp",
           "fit_fusion_areg", "fit_fusion_eta"]

#: GNC settings of the STP fit: the last stage runs to relative stationarity 1e-6
GNC_DEFAULTS = {"max_inner": 30, "max_final": 5000, "tol_stationarity": 1e-6}


@dataclass(frozen=True)
class FitSettings:
    """What the fits read from the estimator: its constructor parameters after the
    hyperparameter search (``gamma`` and ``reg``, the chosen ξ or λ) and the component layout.

    Attributes
    ----------
    gamma : float
        γ of the componentwise LS-SVM (and the η-fusion's start).
    reg : float or None
        ξ (L1, fusion) or λ (STP).
    groups : list of list of int
        Candidate components that share an input column (several kernels per column).
    classification : bool
        The targets are ±1 labels (the classifier).
    lssvm : RegularizedLSSVMRegressor or None
        The componentwise LS-SVM already fitted at (``gamma``, the kernel's σ²) by the
        hyperparameter search, which :func:`fit_lssvm` then reuses (None: it fits one).
    """

    gamma: float
    reg: float | None
    a: float
    solver: str
    rank_tol: float
    selection_tol: float
    gnc_start: str
    gnc_options: dict[str, Any] | None
    start_weights: Any
    validation_fraction: float
    random_state: Any
    groups: list[list[int]] = field(default_factory=list)
    classification: bool = False
    lssvm: Any = None


@dataclass
class ComponentFit:
    """One fit's result: the coefficients of every component on ``X_fit``
    (``component_coef_``, shape ``(n_fit, P)``), the bias, the selected components, the
    training rows and targets the kernel choice refits on, and the fitted attributes that only
    some algorithms have (``history_``, ``eta_``, ``prune_log_``, ...)."""

    coef: np.ndarray
    intercept: float
    selected: np.ndarray
    X_fit: np.ndarray
    Y_fit: np.ndarray
    converged: bool = True
    n_iter: int = 0
    history: Any = None
    attrs: dict[str, Any] = field(default_factory=dict)


def _scale(y: np.ndarray) -> float:
    return float(np.linalg.norm(y - y.mean()))


def _solve_qp(f: Any, solver: str):
    """Solve a sparse componentwise QP (``f`` with a ``basis``) with ``solver`` and, if it
    fails, with the other installed default solvers (an estimator should not fail where another
    backend succeeds), each on a fresh shallow copy of the unsolved ``f`` (so a failed solver's
    problem is not reused; the component basis, computed once first, is shared by the copies);
    the error of the requested solver is raised when all fail."""
    from ..solvers import DEFAULT_SOLVERS, available_solvers

    f.basis  # noqa: B018 (computed once, before the copies)

    first_error = None
    names = [solver] + [s for s in DEFAULT_SOLVERS if s != str(solver).upper() and s in available_solvers()]
    for name in names:
        try:
            return copy.copy(f).solve(name, accept_inaccurate=True)
        except SolverError as exc:
            first_error = first_error or exc
    if first_error is None:  # (unreachable: the requested solver is always tried)
        raise SolverError("no solver was tried", solver=str(solver))
    raise first_error


def fit_lssvm(X: np.ndarray, Y: np.ndarray, cw: Componentwise, s: FitSettings) -> ComponentFit:
    """The componentwise LS-SVM, eq. (7) (regression) or eq. (16) (classifier, after
    ``α̃ = y ∘ α`` the regression system on the ±1 targets): every component shares the dual
    coefficients.  A preset of the composition, Squared + ``RKHSNorm`` with weight ``1/γ`` on
    the componentwise kernel (the search's fit when it made one, :attr:`FitSettings.lssvm`)."""
    est = s.lssvm
    if est is None:
        est = RegularizedLSSVMRegressor(kernel=cw, terms={"rkhs": (RKHSNorm(), 1.0 / s.gamma)})
        fit_arrays(est, X, Y, None)
    P = len(component_kernels(cw, X.shape[1]))
    return ComponentFit(np.repeat(np.asarray(est.dual_coef_)[:, None], P, axis=1),
                        float(est.intercept_), np.arange(P), X, Y)


def fit_l1(X: np.ndarray, Y: np.ndarray, cw: Componentwise, s: FitSettings) -> ComponentFit:
    """L1 component regularization, the QP (20)-(22), with a solver fallback."""
    f = ComponentwiseL1(X, Y, kernel=cw, xi=s.reg, rank_tol=s.rank_tol)
    sol = _solve_qp(f, s.solver)
    return ComponentFit(f.basis.coef(sol["z"]), sol.scalar("b"),
                        selected_components(sol["yhat"], s.selection_tol, scale=_scale(Y)), X, Y)


def _gnc_start_weights(start_weights: Any, basis: Any, cw: Componentwise, n_features: int,
                      rank_tol: float) -> np.ndarray | None:
    """``w_d`` of the GNC start from the estimator's ``start_weights``: None for equal weights,
    :func:`~lssvm_cvx.formulations.componentwise_gnc.kernel_dof_weights` for
    ``"kernel_dof"``, or the given array (checked: one finite positive weight per component)."""
    if start_weights is None or (isinstance(start_weights, str) and start_weights == "equal"):
        return None
    if isinstance(start_weights, str):
        if start_weights != "kernel_dof":
            raise HyperparameterError("start_weights must be 'kernel_dof', 'equal', None "
                                      f"or an array, got {start_weights!r}")
        return kernel_dof_weights(basis, [lab[1] for lab in cw.labels(n_features)], rank_tol)
    w = np.asarray(start_weights, dtype=np.float64).reshape(-1)
    if w.shape != (basis.P,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise HyperparameterError(f"start_weights must be {basis.P} finite positive numbers")
    return w


def fit_stp(X: np.ndarray, Y: np.ndarray, cw: Componentwise, s: FitSettings) -> ComponentFit:
    """The smoothly thresholding penalty (25) by weighted GNC (``GNC_DEFAULTS`` under the
    estimator's ``gnc_options``), then :func:`~lssvm_cvx.selection.gnc.prune_overlaps` where
    candidates share an input; warns with :class:`ConvergenceWarning` when GNC stops early."""
    if s.reg is None:
        raise HyperparameterError("the STP penalty needs lam")
    stp = ComponentwiseSTP(X, Y, kernel=cw, lam=s.reg, a=s.a, rank_tol=s.rank_tol)
    w = _gnc_start_weights(s.start_weights, stp.basis, cw, X.shape[1], s.rank_tol)
    stp.start_weights = w
    opts = {**GNC_DEFAULTS, **(s.gnc_options or {})}
    res = gnc(stp, start=s.gnc_start, **opts)
    prune_log: list[dict[str, Any]] = []
    if s.groups:
        res, prune_log = prune_overlaps(stp, res, s.groups, max_final=opts["max_final"],
                                        tol_stationarity=opts["tol_stationarity"])
    if not res.converged:
        warnings.warn(f"GNC stopped after {len(res.history)} steps at relative "
                      f"stationarity {res.stationarity:.2e} > "
                      f"{opts['tol_stationarity']:.0e} (raise gnc_options"
                      "['max_final'])", ConvergenceWarning, stacklevel=5)
    sol = res.solution
    weights = np.ones(stp.n_components) if w is None else w
    return ComponentFit(stp.basis.coef(sol["z"]), sol.scalar("b"),
                        selected_components(sol["yhat"], s.selection_tol, scale=_scale(Y)), X, Y,
                        converged=bool(res.converged), n_iter=len(res.history),
                        history=res.history,
                        attrs={"start_weights_": weights, "prune_log_": prune_log})


def _validation_split(n: int, validation_fraction: float, random_state: Any
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Training / validation indices of the fusion penalties (§4): ``validation_fraction`` of
    the ``n`` points, shuffled with ``random_state``."""
    n_val = int(round(validation_fraction * n))
    if n_val < 1 or n - n_val < 2:
        raise InputError(f"{n} samples are too few to hold out a validation set "
                         f"(validation_fraction={validation_fraction})")
    perm = check_random_state(random_state).permutation(n)
    return np.sort(perm[n_val:]), np.sort(perm[:n_val])


def _fusion_split(X: np.ndarray, cw: Componentwise, s: FitSettings):
    tr, va = _validation_split(X.shape[0], s.validation_fraction, s.random_state)
    check_component_inputs(X[tr], cw, min_components=2)
    return tr, va


def fit_fusion_areg(X: np.ndarray, Y: np.ndarray, cw: Componentwise, s: FitSettings
                    ) -> ComponentFit:
    """Fusion with validation inputs, the QP (30), on the training part of the split."""
    tr, va = _fusion_split(X, cw, s)
    fus = ComponentwiseFusion(X[tr], Y[tr], X[va], kernel=cw, xi=s.reg, rank_tol=s.rank_tol)
    sol = _solve_qp(fus, s.solver)
    return ComponentFit(fus.basis.coef(sol["z"]), sol.scalar("b"),
                        selected_components(sol["yhat"], s.selection_tol, scale=_scale(Y[tr])),
                        X[tr], Y[tr], attrs={"validation_indices_": va})


def fit_fusion_eta(X: np.ndarray, Y: np.ndarray, cw: Componentwise, s: FitSettings
                   ) -> ComponentFit:
    """η-fusion (38) by alternating least squares from η = γ, on the training part of the
    split; the selected components are those with non-negligible outputs."""
    tr, va = _fusion_split(X, cw, s)
    eres = eta_fusion(X[tr], Y[tr], X[va], Y[va], kernel=cw, eta0=s.gamma)
    alpha = eres.solution["alpha"]
    out = ComponentwiseEta(X[tr], Y[tr], kernel=cw, eta=eres.eta).component_outputs(alpha)
    return ComponentFit(np.outer(alpha, eres.eta), eres.solution.scalar("b"),
                        selected_components(out, s.selection_tol, scale=_scale(Y[tr])),
                        X[tr], Y[tr], history=eres.history,
                        attrs={"eta_": eres.eta, "validation_indices_": va})


#: the fit of each ``penalty``
FITS: dict[str | None, Callable[[np.ndarray, np.ndarray, Componentwise, FitSettings],
                                ComponentFit]] = {
    None: fit_lssvm, "l1": fit_l1, "stp": fit_stp, "fusion_areg": fit_fusion_areg,
    "fusion_eta": fit_fusion_eta}
