"""``RegularizedLSSVMRegressor`` and ``RegularizedLSSVMClassifier`` (binary) on device arrays
(issue 31, item 2): the composition core with the squared loss and quadratic terms fits, searches
its term weights by exact leave-one-out and predicts in the inputs' array namespace and on their
device (the engine, :func:`lssvm_cvx.linalg.engine.decompose`, on the inputs' namespace); the
fitted model stays there.

Which inputs take this path: those of :func:`lssvm_cvx.estimators.lssvm_device.uses_device`
(arrays of an array-API library other than NumPy off the CPU, or any of them with
``lssvm_cvx.array_api_dispatch()`` or scikit-learn's ``array_api_dispatch`` on).

What it covers: the RBF kernel; the squared loss; quadratic terms, whose weighted sum ``P``
enters the augmented system :class:`~lssvm_cvx.linalg.quadratic.AugmentedSystem` (the RKHS norm
alone is the LS-SVM: one Cholesky factor, :class:`~lssvm_cvx.linalg.quadratic.RKHSSystem`).  The RKHS
norm's matrix is the device Gram; **every other term's matrix is built by NumPy on the CPU from
a copy of the inputs and moved to the device** (the terms are NumPy code).  ``selection=None``,
``"loo"`` or ``"kfold"`` with the estimand ``loo="loss"`` (or the RKHS norm alone, where the two
estimands coincide): every candidate of the CPU search's grid (``weight_grid``, ``sigma2_grid``,
in the same order) scored by its exact held-out residuals (leave-one-out: ``μ_i / (√s_i Z_ii)``,
and for the RKHS norm alone the LS-SVM's γ path of each σ² from one ``eigh``, or one Cholesky
per weight on CUDA up to :data:`GRID_METHOD_MAX_GAMMAS`; k-fold: the CPU search's folds of
``cv`` and ``random_state``, stratified for the classifier, ``S_V^{-½} Z_VV⁻¹ μ_V`` per fold),
with the CPU path's scoring (the default, ``neg_mean_squared_error`` for the regressor and
the accuracy of the held-out predictions for the classifier, or any ``scoring``, applied to
the held-out predictions copied to the CPU), so ``cv_results_`` matches the CPU path's.
``selection="gcv"``: every candidate's generalised cross-validation on the device, as on the
CPU (the RKHS norm alone: the weight path of each σ² from one ``eigh``; other terms: one
factorisation per candidate, :meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.gcv`).  The
exact LS-SVM estimators run this path as their preset Squared + ``RKHSNorm(1/γ)``.  Anything
else (another kernel or loss, a non-quadratic term, the ``"refit"`` estimand with
data-dependent terms, ``sample_weight``, groups, a cvxpy ``solver``, multiclass) is a one-line
:class:`~lssvm_cvx.exceptions.HyperparameterError` or :class:`~lssvm_cvx.exceptions.InputError`
that names the CPU path.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..device import check_system_inputs, loo_path_residuals, namespace_of, rbf_gram
from ..exceptions import HyperparameterError, InputError
from ..formulations.regularized import RegularizedLSSVM, check_terms
from ..kernels import RBF
from ..linalg.arrays import check_memory
from ..linalg.engine import RKHS, decompose
from ..losses import make_loss
from ..terms import RKHSNorm
from .grids import sigma2_candidates
from .lssvm_device import device_folds, device_targets, to_cpu
from .regularized_search import best_candidate, candidate_params, weight_grid
from .scoring import Scoring, cv_results, resolve_scoring
from .search_results import search_results

__all__ = ["fit_regularized_device"]

_CPU = ("; convert the inputs to NumPy (for PyTorch: X.cpu().numpy()) for the CPU path, which "
        "has it")
#: the leave-one-out path of the RKHS norm alone by one Cholesky per weight up to this many
#: weights per σ² on CUDA, by one ``eigh`` per σ² above (on an H100 at N = 20 000 one ``eigh``
#: cost 24 Cholesky + triangular inverses: benchmarks/results/device.md); elsewhere always by
#: ``eigh``
GRID_METHOD_MAX_GAMMAS = 20


def _refuse(est: Any, terms: dict, sample_weight: Any, groups: Any) -> None:
    if not (isinstance(est.kernel, str) and est.kernel.lower() == "rbf"):
        raise HyperparameterError(f"on a device the kernel must be 'rbf', got {est.kernel!r}{_CPU}")
    if not make_loss(est.loss).squared:
        raise HyperparameterError(f"on a device the loss must be squared, got {est.loss!r}{_CPU}")
    rough = [k for k, (t, _) in terms.items() if not t.is_quadratic]
    if rough:
        raise HyperparameterError(f"on a device every term must be quadratic; {rough} are "
                                  f"not{_CPU}")
    rkhs_only = all(isinstance(t, RKHSNorm) for t, _ in terms.values())
    if est.selection in ("loo", "kfold") and est.loo != "loss" and not rkhs_only:
        raise HyperparameterError(f"on a device the held-out estimand is 'loss' (the basis "
                                  f"and the terms keep the held-out points); loo={est.loo!r} "
                                  f"with terms other than the RKHS norm refits{_CPU}")
    if est.solver is not None:
        raise HyperparameterError(f"on a device the fit is the closed form (solver=None), got "
                                  f"solver={est.solver!r}{_CPU}")
    if sample_weight is not None or groups is not None:
        raise InputError(f"sample_weight and groups are not supported on a device{_CPU}")


class _Problem:
    """One σ²'s device Gram and the terms' device matrices as a decomposition of the engine
    (:func:`lssvm_cvx.linalg.engine.decompose`, which picks the representation for each weight
    choice and solves, holds out and sweeps it), after the device checks of the inputs, once
    (:func:`lssvm_cvx.device.check_system_inputs`; the memory of the augmented system is
    checked when a weight choice needs it)."""

    def __init__(self, X: Any, Xcpu: np.ndarray, ycpu: np.ndarray, Y: Any, sigma2: float,
                 terms: dict) -> None:
        self.xp, self.device = namespace_of(X, Y)
        self.Y = Y
        self.K = rbf_gram(X, sigma2=sigma2)
        mats: dict[str, Any] = {}
        ctx = None
        for key, (term, weight) in terms.items():
            if isinstance(term, RKHSNorm):
                mats[key] = (RKHS, weight)
                continue
            if ctx is None:   # the terms are NumPy code: their matrices come from the CPU
                ctx = RegularizedLSSVM(Xcpu, ycpu, kernel=RBF(sigma2), terms=terms).context
            mats[key] = (self.xp.asarray(np.ascontiguousarray(term.matrix(ctx, name=key)),
                                         dtype=self.K.dtype, device=self.device), weight)
        # the bordered system's I, H, L and L⁻¹; the terms' matrices finite as K and y
        check_system_inputs(self.K, Y, 4.0, *(P for P, _ in mats.values() if P is not RKHS))
        self.dec = decompose(self.K, 1.0, mats)

    def _representation(self, weights: dict[str, float]) -> str:
        """What the engine factorises at ``weights`` (one host synchronisation): the bordered
        system of order N + 1 where every weighted term is the RKHS norm (a device needs a
        positive total weight, ``P = cK``, ``γ = 1/c``), else the augmented one of order
        2N + 1, whose 20 N × N arrays must fit."""
        rep = self.dec.representation(weights)
        if rep == "augmented":
            if self.dec.rkhs_only:
                _positive_sum(sum(weights.values()))          # raises: a device needs c > 0
            check_memory(int(self.K.shape[0]), self.K.dtype, 20.0, self.xp, self.device)
        return rep

    def _system(self, weights: dict[str, float], rep: str | None = None) -> Any:
        """The engine's factorised system at ``weights`` (``rep``: its representation, when
        already known)."""
        return self.dec.system(weights, representation=rep or self._representation(weights))

    def fit(self, weights: dict[str, float]) -> tuple[Any, Any]:
        return self._system(weights).solve(self.Y)

    def loo_path(self, path: list[dict[str, float]]) -> list[Any]:
        """Leave-one-out residuals of each weight choice of ``path``: where the engine solves
        the bordered system (``P = cK``, ``γ = 1/c``) the LS-SVM's path from one ``eigh`` (or
        one Cholesky per choice on CUDA, :data:`GRID_METHOD_MAX_GAMMAS`), else
        ``μ_i / (√s_i Z_ii)`` of the augmented system per choice."""
        reps = [self._representation(w) for w in path]
        if "augmented" in reps:                         # one P of order N at a time
            return [self._system(w, rep).loo(self.Y) for w, rep in zip(path, reps)]
        gammas = [1.0 / sum(w.values()) for w in path]
        method = ("cholesky" if "cuda" in str(self.device)
                  and len(gammas) <= GRID_METHOD_MAX_GAMMAS else "eigh")
        r = loo_path_residuals(self.K, self.Y, gammas, method=method)
        return [r[i, ...] for i in range(len(gammas))]

    def kfold(self, weights: dict[str, float], folds: list[np.ndarray]) -> Any:
        """Held-out residuals of the folds (a partition of the points)."""
        return self._system(weights).kfold(self.Y, folds, cover=True)

    def gcv_path(self, path: list[dict[str, float]]) -> list[float]:
        """Generalised cross-validation of each weight choice of ``path``: where the engine
        solves the bordered system, the path of the total weight ``c`` of the RKHS norm
        (:meth:`~lssvm_cvx.linalg.engine.Decomposition.gcv_path`: one eigendecomposition from
        :data:`~lssvm_cvx.linalg.spectral.EIGH_BREAK_EVEN` choices on), else one factorisation
        of the augmented system per choice."""
        reps = [self._representation(w) for w in path]
        if "augmented" in reps:
            return [self._system(w, rep).gcv(self.Y) for w, rep in zip(path, reps)]
        rkhs = decompose(self.K, 1.0, {"rkhs": (RKHS, 1.0)})
        return list(rkhs.gcv_path("rkhs", [sum(w.values()) for w in path], self.Y))


def _split_scores(scoring: Scoring, ycpu: np.ndarray, r: np.ndarray,
                  folds: list[np.ndarray] | None, classification: bool) -> Any:
    """One candidate's split scores from its held-out residuals ``r`` (copied to the CPU), as
    the CPU search scores them: the held-out predictions ``y - r`` of each fold (``folds``
    None: the leave-one-out splits, one point each) by ``scoring`` (a classifier's on the ±1
    targets)."""
    tests = folds if folds is not None else list(np.arange(ycpu.shape[0])[:, None])
    return scoring.split_scores(ycpu, ycpu - r, tests, targets=ycpu,
                                classes=np.array([-1.0, 1.0]) if classification else None)


def _positive_sum(c: float) -> float:
    if not c > 0:
        raise HyperparameterError(f"the RKHS norm's weight must be positive on a device, got {c}")
    return float(c)


def fit_regularized_device(est: Any, X: Any, y: Any, sample_weight: Any = None, groups: Any = None,
                           *, classification: bool = False) -> Any:
    """Fit ``est`` on device arrays ``X``, ``y`` (module docstring); returns ``est``."""
    terms = check_terms(est.terms)
    _refuse(est, terms, sample_weight, groups)
    scoring = resolve_scoring(est.scoring, classifier=classification, loss=make_loss(est.loss))
    xp, device, Y = device_targets(est, X, y, classification)
    Xcpu = to_cpu(X)
    ycpu = to_cpu(Y)
    s2s, searched = sigma2_candidates(est, Xcpu)
    weights = {k: float(w) for k, (_, w) in terms.items()}
    sigma2, results = float(s2s[0]), None
    if est.selection is not None:
        grid = weight_grid(est, terms)
        path_key, *other_keys = list(grid)
        folds = device_folds(est, ycpu, classification) if est.selection == "kfold" else None
        params, rows = [], []
        for s2 in s2s:                       # the CPU search's order of candidates
            prob = _Problem(X, Xcpu, ycpu, Y, float(s2), terms)
            for combo in itertools.product(*(grid[k] for k in other_keys)):
                fixed = {**weights, **dict(zip(other_keys, map(float, combo)))}
                path = [{**fixed, path_key: float(wk)} for wk in grid[path_key]]
                held = (prob.loo_path(path) if est.selection == "loo"
                        else prob.gcv_path(path) if est.selection == "gcv"
                        else [prob.kfold(cand, folds or []) for cand in path])
                for wk, r in zip(grid[path_key], held):
                    rows.append(r if est.selection == "gcv" else
                                _split_scores(scoring, ycpu, to_cpu(r), folds, classification))
                    params.append(candidate_params(other_keys, combo, path_key, wk,
                                                   s2 if searched else None))
        results = (search_results(params, rows, criterion="gcv", device=str(device))
                   if est.selection == "gcv" else
                   cv_results(params, np.array(rows), estimand=est.loo, scoring=scoring.name,
                              n_splits=len(rows[0]), search="grid", device=str(device)))
        est.best_index_, best, est.best_score_ = best_candidate(results, Xcpu, ycpu, scoring)
        est.best_params_ = best
        sigma2 = float(best.get("sigma2", s2s[0]))
        weights.update({k: float(best[f"terms__{k}"]) for k in terms if f"terms__{k}" in best})
    prob = _Problem(X, Xcpu, ycpu, Y, sigma2, terms)
    est.dual_coef_, est.intercept_ = prob.fit(weights)
    est.terms_ = {k: (t, weights[k]) for k, (t, _) in terms.items()}
    est.sigma2_ = sigma2
    est.kernel_ = RBF(sigma2)
    est.cv_results_ = results
    est.X_fit_ = X
    est.support_ = None
    est.device_ = str(device)
    est.n_features_in_ = int(X.shape[1])
    return est
