"""Foundation benchmark (b): the estimator's closed-form fit against the bare linear algebra it
has to do.  Claim: ``LSSVMRegressor.fit`` ≤ 1.2 × (RBF Gram + ``cho_factor`` + two
``cho_solve``) at N = 4000, both measured in this process, interleaved, medians."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.linalg as sla
from sklearn.metrics.pairwise import rbf_kernel

from lssvm_cvx import LSSVMRegressor, problems
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register


def baseline_fit(X: np.ndarray, y: np.ndarray, sigma2: float, gamma: float):
    """Gram + Cholesky + two solves + the bias (the least any LS-SVM fit must do).

    The Cholesky factor is computed in the Gram's memory: ``K`` is symmetric, so its
    Fortran-ordered transpose is the same matrix and LAPACK overwrites it.  Until 2026-12-06
    the C-ordered ``K`` was handed to ``cho_factor``, whose wrapper copied it (``overwrite_a``
    cannot act on a C-ordered array): a needless N × N array, freshly allocated at every fit.
    On this host such fresh arrays, with NumPy's huge-page advice, made the baseline several
    times slower in some processes and not in others (``notes/lssvm_speed_baseline.py``), so
    the ratio below measured the copy's page faults rather than the fit.
    """
    K = rbf_kernel(X, gamma=1.0 / sigma2)
    K[np.diag_indices_from(K)] += 1.0 / gamma
    c = sla.cho_factor(K.T, lower=True, overwrite_a=True, check_finite=False)   # in place
    v = sla.cho_solve(c, y, check_finite=False)
    u = sla.cho_solve(c, np.ones_like(y), check_finite=False)
    b = v.sum() / u.sum()
    return v - b * u, b


@register("lssvm_speed", "LS-SVM closed-form fit vs bare Cholesky baseline",
          paper="areg-fusion-pelckmans-2006")
def run(ctx: Context) -> BenchResult:
    sizes = [500, 1000] if ctx.quick else [500, 1000, 2000, 4000]
    reps = ctx.reps(7, 3)
    rows = []
    for n in sizes:
        ds = problems.get_problem("lssvm_regression", n=n, seed=ctx.seed)
        X, y = ds.X, ds.y
        est = LSSVMRegressor(sigma2=1.0, gamma=10.0)
        a_ref, b_ref = baseline_fit(X, y, 1.0, 10.0)
        est.fit(X, y)
        dev = max(np.abs(est.dual_coef_ - a_ref).max() / np.abs(a_ref).max(), abs(est.intercept_ - b_ref))
        t = interleaved_times({"ours": lambda: est.fit(X, y),
                               "baseline": lambda: baseline_fit(X, y, 1.0, 10.0)}, reps)
        ours, base = float(np.median(t["ours"])), float(np.median(t["baseline"]))
        rows.append({"N": n, "LSSVMRegressor.fit [s]": ours, "Gram+cho_factor+2 solves [s]": base,
                     "ratio": ours / base, "min ratio": min(o / b for o, b in zip(t["ours"], t["baseline"])),
                     "max rel dev": dev, "repeats": reps})
    res = BenchResult("lssvm_speed", "LS-SVM closed-form fit vs a bare Cholesky solve")
    res.tables.append(Table("Fit time ratio", pd.DataFrame(rows),
                            "Same data, same (σ²=1, γ=10); our fit includes input validation, the "
                            "Gram, the Cholesky factor with a condition estimate, the bordered "
                            "solve and storing the model.  Median of interleaved repetitions."))
    last = rows[-1]
    res.check(f"fit / baseline at N={last['N']}", last["ratio"], 1.2, unit="×")
    return res
