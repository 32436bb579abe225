"""Shared helpers of the ℓ2-SVM benchmarks (Bonidal, Tindel & Guermeur 2013; no benchmark is
registered here).

Conventions (stated in every result file):

* data are standardized on the training split (§4.1: "Each data set is standardized");
* the paper's "Gaussian (σ)" kernel is read as ``exp(-||x - z||²/(2σ²))``, i.e. our
  ``RBF(sigma2=2σ²)`` (the paper does not print its parametrisation);
* the width heuristic of Table 4 (the paper's ref. [33], Zhang, Tsang & Kwok 2008): "σ equal to
  the square root of the mean distance of each point to the centre of mass"; we read distance as
  *squared* distance, i.e. ``sigma2 = mean_i ||x_i - x̄||²`` in our ``exp(-||x - z||²/σ²)``
  (for standardized data ``sigma2 = d``);
* all linear algebra runs with one BLAS thread (:func:`one_thread`): the path, CLARABEL and
  libsvm are single-threaded solvers, and on the shared 2-core machine OpenBLAS threads make
  small factorizations erratic.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any

import numpy as np
from sklearn.preprocessing import StandardScaler

from lssvm_cvx import problems
from lssvm_cvx.formulations.l2svm_active_set import Hessian, solve_fixed

PAPER = "l2svm-regularization-path-bonidal-2013"

#: Rätsch sets: our problem name and kwargs, and how realisations are drawn
RAETSCH: dict[str, dict[str, Any]] = {
    "banana": {"problem": "banana"},
    "breast_cancer": {"problem": "breast_cancer"},
    "diabetis": {"problem": "diabetis"},
    "flare_solar": {"problem": "flare_solar"},
    "german": {"problem": "german"},
    "heart": {"problem": "heart"},
    "image": {"problem": "image"},
    "ringnorm": {"problem": "ringnorm_keel"},
    "splice": {"problem": "splice"},
    "thyroid": {"problem": "thyroid"},
    "titanic": {"problem": "titanic"},
    "twonorm": {"problem": "twonorm_keel"},
    "waveform": {"problem": "waveform", "generator": True},
}

#: the paper's number of realisations (Table 1)
PAPER_REALISATIONS = {"image": 20, "ringnorm": 20, "splice": 20}


def paper_realisations(name: str) -> int:
    """The paper's number of realisations of a Rätsch set (Table 1: 100 unless listed)."""
    return PAPER_REALISATIONS.get(name, 100)


@contextmanager
def one_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def pm1(y: np.ndarray) -> np.ndarray:
    """Two labels to ±1 (sorted order; the second class is +1)."""
    c = np.unique(y)
    if c.size != 2:
        raise ValueError(f"need two classes, got {c}")
    return np.where(y == c[1], 1.0, -1.0)


def standardize(Xtr: np.ndarray, Xte: np.ndarray | None = None):
    sc = StandardScaler().fit(Xtr)
    Xs = sc.transform(Xtr)
    # constant columns give 0 after centring; StandardScaler leaves scale 1 for them
    return Xs, None if Xte is None else sc.transform(Xte)


def sigma2_heuristic(X: np.ndarray) -> float:
    """Table 4's width (ref. [33]): mean squared distance to the centre of mass."""
    return float(np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))


def gaussian_sigma2(sigma: float) -> float:
    """The paper's Gaussian(σ) = exp(-||x-z||²/(2σ²)) as our sigma2."""
    return 2.0 * sigma * sigma


def raetsch_split(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One seeded realisation of a Rätsch set at the standard sizes, standardized."""
    spec = RAETSCH[name]
    if spec.get("generator"):
        ds = problems.get_problem(spec["problem"], seed=seed)
        Xtr, ytr, Xte, yte = ds.X, ds.y, ds.X_test, ds.y_test
    else:
        ds = problems.get_problem(spec["problem"])
        ntr, nte = ds.meta["raetsch_sizes"]
        tr, te = problems.random_split(ds.n_samples, [ntr, nte], seed)
        Xtr, ytr, Xte, yte = ds.X[tr], ds.y[tr], ds.X[te], ds.y[te]
    Xtr, Xte = standardize(np.asarray(Xtr, float), np.asarray(Xte, float))
    classes = np.unique(ytr)
    return Xtr, np.where(ytr == classes[1], 1.0, -1.0), Xte, np.where(yte == classes[1], 1.0, -1.0)


def cv_grid_l2svm(X: np.ndarray, y: np.ndarray, kernel, lams: np.ndarray, *, n_folds: int = 5,
                  seed: int = 0) -> tuple[float, np.ndarray]:
    """5-fold CV grid search over λ for the ℓ2-SVM on the exact kernel (the baseline of
    Tables 3-4): each fold is solved at every λ of the grid, in decreasing order, each solve
    warm-started from the previous active set.  Returns ``(λ*, cv errors)``; ties go to the
    largest λ."""
    lams = np.sort(np.asarray(lams, float))[::-1]
    K = kernel(X)
    errs = np.zeros(lams.size)
    for f in problems.kfold_indices(len(y), n_folds, seed):
        tr = np.setdiff1d(np.arange(len(y)), f)
        hess = Hessian(y[tr], K=K[np.ix_(tr, tr)])
        E = None
        for j, lam in enumerate(lams):
            st = solve_fixed(y[tr], lam, hess=hess, E0=E)
            E = st.E
            dec = K[np.ix_(f, tr[st.E])] @ (y[tr][st.E] * st.alpha_E) + st.alpha0
            errs[j] += np.sum(np.where(dec > 0, 1.0, -1.0) != y[f])
    errs /= len(y)
    j = int(np.flatnonzero(errs <= errs.min())[0])
    return float(lams[j]), errs


def fixed_fit_error(X, y, Xte, yte, kernel, lam) -> float:
    st = solve_fixed(y, lam, K=kernel(X))
    dec = kernel(Xte, X[st.E]) @ (y[st.E] * st.alpha_E) + st.alpha0
    return float(np.mean(np.where(dec > 0, 1.0, -1.0) != yte))


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def mean_sd(v) -> str:
    v = np.asarray(v, float)
    return f"{100 * v.mean():.2f} ({100 * v.std(ddof=1) if v.size > 1 else 0.0:.2f})"
