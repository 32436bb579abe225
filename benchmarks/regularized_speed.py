"""Composition core (issue 12): the composed LS-SVM costs what the LS-SVM costs.

Claims, measured in one process with interleaved repetitions (medians):

* ``RegularizedLSSVMRegressor`` with ``Squared + {"rkhs": (RKHSNorm(), 1/γ)}`` fits in
  ≤ 1.2 × (RBF Gram + ``cho_factor`` + two ``cho_solve``) at N = 4000 (the same baseline as
  ``lssvm_speed``);
* the composed closed form (``RegularizedLSSVM.solve()``) is ≥ 20× faster than the fastest
  cvxpy solver (compilation + solve) on the same problem at N = 1000, for the RKHS-only problem
  and for RKHS + a kNN-graph Laplacian term (solved on K's range since 2026-11-30, the
  augmented system before; reported, not claimed).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import LSSVMRegressor, RegularizedLSSVMRegressor, problems
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm

from .lssvm_speed import baseline_fit

SIGMA2, GAMMA = 1.0, 10.0


def _fit_ratio(ctx: Context, n: int, reps: int) -> dict:
    ds = problems.get_problem("lssvm_regression", n=n, seed=ctx.seed)
    X, y = ds.X, ds.y
    comp = RegularizedLSSVMRegressor(sigma2=SIGMA2, terms={"rkhs": (RKHSNorm(), 1 / GAMMA)})
    lssvm = LSSVMRegressor(sigma2=SIGMA2, gamma=GAMMA)
    a_ref, b_ref = baseline_fit(X, y, SIGMA2, GAMMA)
    comp.fit(X, y)
    dev = float(np.abs(comp.dual_coef_ - a_ref).max() / np.abs(a_ref).max())
    t = interleaved_times({"composed": lambda: comp.fit(X, y), "lssvm": lambda: lssvm.fit(X, y),
                           "baseline": lambda: baseline_fit(X, y, SIGMA2, GAMMA)}, reps)
    med = {k: float(np.median(v)) for k, v in t.items()}
    return {"N": n, "composed fit [s]": med["composed"], "LSSVMRegressor.fit [s]": med["lssvm"],
            "Gram+cho_factor+2 solves [s]": med["baseline"],
            "composed / baseline": med["composed"] / med["baseline"],
            "LSSVMRegressor / baseline": med["lssvm"] / med["baseline"],
            "max rel dev α": dev, "repeats": reps}


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _solver_ratio(ctx: Context, n: int, terms_name: str, solvers: list[str], reps: int) -> dict:
    ds = problems.get_problem("lssvm_regression", n=n, seed=ctx.seed)
    terms = {"rkhs": (RKHSNorm(), 1 / GAMMA)}
    if terms_name == "rkhs+graph":
        terms["graph"] = (GraphLaplacian(n_neighbors=10), 1e-3)

    def fresh() -> RegularizedLSSVM:
        return RegularizedLSSVM(ds.X, ds.y, kernel=RBF(SIGMA2), terms=terms)

    g = fresh()
    _ = g.context  # the Gram, common to both paths, is not part of either timing
    closed = float(np.median([_time(lambda: g.solve()) for _ in range(reps)]))
    ref = g.solve()
    row = {"N": n, "terms": terms_name, "closed form [s]": closed}
    best = np.inf
    for s in solvers:
        f = fresh()
        _ = f.context  # the Gram, common to both paths, is not part of either timing
        t0 = time.perf_counter()
        sol = f.solve(s, raise_on_failure=False)
        t = time.perf_counter() - t0
        row[f"{s} [s]"] = t
        row[f"{s} status"] = sol.status
        row[f"{s} max|Δf|"] = float(np.abs(sol["f"] - ref["f"]).max()) if "f" in sol else np.nan
        if sol.status == "optimal":  # an inaccurate or failed solve is not a competitor
            best = min(best, t)
    row["best solver / closed form"] = best / closed
    return row


@register("regularized_speed", "Composition core: composed LS-SVM fit and closed form vs cvxpy",
          paper="areg-fusion-pelckmans-2006")
def run(ctx: Context) -> BenchResult:
    res = BenchResult("regularized_speed", "Composition core: fit time and closed form vs cvxpy")
    fit_sizes = [1000] if ctx.quick else [1000, 2000, 4000]
    rows = [_fit_ratio(ctx, n, ctx.reps(7, 3)) for n in fit_sizes]
    res.tables.append(Table("Composed LS-SVM fit vs the bare linear algebra", pd.DataFrame(rows),
                            "RBF σ² = 1, γ = 10 (weight 0.1); medians of interleaved repetitions "
                            "of the composed estimator, LSSVMRegressor and the baseline."))
    last = rows[-1]
    res.check(f"composed fit / baseline at N={last['N']}", last["composed / baseline"], 1.2, unit="×")
    n = 300 if ctx.quick else 1000
    # OSQP is left out of this timing: on the composed LS-SVM at N = 1000 it runs into its
    # iteration limit and stops "optimal_inaccurate" (see lssvm-cvx sweep for its profile)
    solvers = ["CLARABEL", "SCS"]
    srows = [_solver_ratio(ctx, n, name, solvers, ctx.reps(5, 2)) for name in ("rkhs", "rkhs+graph")]
    res.tables.append(Table("Closed form vs cvxpy solvers", pd.DataFrame(srows),
                            "Solver times include cvxpy compilation (a fresh problem); the Gram is "
                            "computed before either timing.  Δf: fitted values vs the closed form."))
    for r in srows[:1]:  # the composed LS-SVM; the graph row is reported, not claimed
        res.check(f"best solver / closed form ({r['terms']}, N={n})", r["best solver / closed form"],
                  20.0, unit="×", higher_is_better=True)
    return res
