"""Shared pieces of the AReg paper reproductions (Tables 2-3, Fig. 6B): the Tikhonov LS-SVM
baselines tuned on a validation set (one eigendecomposition, every γ in O(nN)) or by exact
k-fold CV (:func:`lssvm_cvx.model_selection.gamma_sweep`), the AReg methods, input scaling and
the one-off bandwidth tuning.  No benchmark is registered here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from lssvm_cvx.formulations.areg import AReg
from lssvm_cvx.formulations.areg_cv import ARegCV, make_folds
from lssvm_cvx.formulations.areg_fast_cv import ARegFastCV
from lssvm_cvx.formulations.areg_ensemble import (ARegEnsemble, TikhonovNodes, criterion_search,
                                                  simplex_lstsq)
from lssvm_cvx.linalg import SpectralBordered, lssvm_system
from lssvm_cvx.model_selection import gamma_sweep, select_gamma_sigma2

#: γ candidates of the Tikhonov baselines (the paper does not give its grid)
GAMMAS = np.logspace(-3, 5, 41)


def cputime(func: Callable[[], Any]) -> tuple[Any, float]:
    """``(func(), CPU seconds)`` — the paper reports Matlab ``cputime``."""
    t0 = time.process_time()
    out = func()
    return out, time.process_time() - t0


def standardize(fit: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """z-score every array with the mean/std of ``fit`` (constant columns left as they are)."""
    mu, sd = fit.mean(axis=0), fit.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return [(a - mu) / sd for a in (fit, *others)]


def auc(f: np.ndarray, y: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y > 0, f))


def val_scores(pred: np.ndarray, y: np.ndarray, criterion: str) -> float:
    """Validation cost to minimise: squared error, misclassification count, or -AUC."""
    if criterion == "l2":
        return float(np.sum((pred - y) ** 2))
    if criterion == "misclassification":
        return float(np.sum(y * pred <= 0))
    if criterion == "roc":
        return -auc(pred, y)
    raise ValueError(criterion)


def lssvm_val_path(K_tr: np.ndarray, y_tr: np.ndarray, K_va: np.ndarray, gammas: np.ndarray
                   ) -> np.ndarray:
    """Validation predictions of the LS-SVM (eq. 2, ±1 targets for a classifier) for every γ:
    one ``eigh`` of the training Gram, then O(nN) per γ (Appendix B, eq. 72-73)."""
    sp = SpectralBordered(K_tr, np.ones(y_tr.shape[0]))
    VU = K_va @ sp.V
    yt, at = sp.V.T @ y_tr, sp.at
    out = np.empty((gammas.size, K_va.shape[0]))
    for k, g in enumerate(gammas):
        w = 1.0 / (sp.s + 1.0 / g)
        b = float(at @ (w * yt) / (at @ (w * at)))
        out[k] = VU @ (w * (yt - at * b)) + b
    return out


def tune_by_validation(K_tr, y_tr, K_va, y_va, criterion: str = "l2",
                       gammas: np.ndarray = GAMMAS) -> float:
    """γ minimising the validation criterion (ties broken by the squared error)."""
    P = lssvm_val_path(K_tr, y_tr, K_va, gammas)
    keys = [(val_scores(p, y_va, criterion), float(np.sum((p - y_va) ** 2))) for p in P]
    return float(gammas[min(range(len(keys)), key=lambda i: keys[i])])


def tune_by_cv(K, y, folds, gammas: np.ndarray = GAMMAS) -> float:
    """γ minimising the exact k-fold squared error (foundation ``gamma_sweep``)."""
    return gamma_sweep(K, y, gammas, criterion="kfold", folds=folds).best_gamma


def lssvm_fit(K: np.ndarray, y: np.ndarray, gamma: float) -> tuple[np.ndarray, float]:
    return lssvm_system(K, gamma, np.ones(y.shape[0])).solve(y)


def areg_val(K_tr, y_tr, K_va, y_va, K_all, y_all, gammas, criterion: str = "l2",
             classifier: bool = False) -> tuple[np.ndarray, float, np.ndarray]:
    """AReg (Val), §4: λ from the validation set (eq. 28 / 64, or eq. 66 / ROC by search),
    then the nodes retrained on all the data with the same γ_k and λ.  For a classifier the
    arrays are the ±1-target regression form (α̃ = y∘α), so the same code serves both."""
    f = ARegEnsemble.from_gram(K_tr, y_tr, K_va, y_va, gammas=gammas)
    P = f.node_validation_outputs()  # validation predictions of the nodes (±1 form: f_k(x^v))
    if criterion == "l2":
        lam = simplex_lstsq(P, y_va)
    else:
        lam = criterion_search(P, y_va, criterion, lam0=simplex_lstsq(P, y_va)).lam
    nodes = TikhonovNodes(K_all, np.ones(y_all.shape[0]), y_all, gammas)
    return nodes.alphas @ lam, float(nodes.bs @ lam), lam


def areg_cv(K, y, folds, lsqr: int | None = None) -> tuple[np.ndarray, float]:
    """AReg (CV), §5.1-5.2: c from the stacked system (37) — exactly, or by ``lsqr`` CG steps —
    and the final model AReg (9) on all the data with that c."""
    f = ARegCV(None, y, folds=folds, Omega=K)
    sol = f.closed_form() if lsqr is None else f.solve_lsqr(lsqr)
    return f.final_model(sol)


def areg_fast_cv(K, y, folds, xi: float = 1.0, lsqr: int | None = None
                 ) -> tuple[np.ndarray, float]:
    """AReg fast CV, Algorithm 5.1 (eq. 52) — exactly, or by ``lsqr`` CG steps — and the CV
    model (41), the average of the L fold models (``ARegFastCV.model``)."""
    f = ARegFastCV(None, y, folds=folds, xi=xi, Omega=K)
    sol = f.closed_form() if lsqr is None else f.solve_lsqr(lsqr)
    return f.model(sol)


def tune_sigma2(X: np.ndarray, y: np.ndarray, kernel: Callable[[float], Any], seed: int = 0,
                grid: np.ndarray | None = None) -> float:
    """The RBF width, tuned once per task ("the bandwidth was held constant over the
    experiments of a task once it was tuned", §6): joint (γ, σ²) by exact 10-fold CV of the
    LS-SVM on the first repetition's data, σ² around the median squared distance."""
    from lssvm_cvx.kernels import sq_dists

    if grid is None:
        D = sq_dists(X)
        med = float(np.median(D[np.triu_indices_from(D, 1)]))
        grid = med * np.logspace(-2, 1.5, 15)
    folds = make_folds(X.shape[0], 10, seed)
    res = select_gamma_sigma2(X, y, GAMMAS, grid, kernel=kernel, criterion="kfold", folds=folds)
    return res.best_sigma2


__all__ = ["GAMMAS", "cputime", "standardize", "auc", "val_scores", "lssvm_val_path",
           "tune_by_validation", "tune_by_cv", "lssvm_fit", "areg_val", "areg_cv",
           "areg_fast_cv", "tune_sigma2", "AReg"]
