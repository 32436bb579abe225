"""Foundation benchmark (c): exact leave-one-out for one γ and for a 50-value γ grid, against
brute-force refits and against an eigendecomposition baseline; and the measured break-even
number of γ values between per-γ Cholesky and one ``eigh`` (``EIGH_BREAK_EVEN``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lssvm_cvx import problems
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register
from lssvm_cvx.kernels import RBF
from lssvm_cvx.linalg import lssvm_system
from lssvm_cvx.model_selection import EIGH_BREAK_EVEN, gamma_sweep, kfold_residuals, loo_residuals


def brute_force_loo(K: np.ndarray, y: np.ndarray, gamma: float) -> np.ndarray:
    """N refits, each without one point (the definition of leave-one-out)."""
    n = len(y)
    r = np.empty(n)
    for i in range(n):
        m = np.arange(n) != i
        a, b = lssvm_system(K[np.ix_(m, m)], gamma, np.ones(n - 1)).solve(y[m])
        r[i] = y[i] - (K[i, m] @ a + b)
    return r


def eig_baseline_loo(K: np.ndarray, y: np.ndarray, gammas) -> np.ndarray:
    """Independent baseline: LOO from the explicit inverse of the full bordered matrix built
    from one eigendecomposition (numpy only), per γ."""
    s, V = np.linalg.eigh(K)
    out = []
    for g in np.atleast_1d(gammas):
        Hinv = (V / (s + 1.0 / g)) @ V.T
        u = Hinv.sum(axis=1)
        C = Hinv - np.outer(u, u) / u.sum()
        alpha = C @ y
        out.append(np.mean((alpha / np.diag(C)) ** 2))
    return np.asarray(out)


def accuracy_case(seed: int) -> dict:
    """One random problem: max |closed-form − brute-force| for LOO and for 5-fold residuals."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    ds = problems.get_problem("lssvm_regression", n=n, seed=seed)
    g = float(10 ** rng.uniform(-2, 4))
    K, y = RBF(float(10 ** rng.uniform(-0.5, 0.5)))(ds.X), ds.y
    loo = float(np.abs(loo_residuals(K, y, g) - brute_force_loo(K, y, g)).max())
    folds = np.array_split(rng.permutation(n), 5)
    brute = np.empty(n)
    for f in folds:
        m = np.setdiff1d(np.arange(n), f)
        a, b = lssvm_system(K[np.ix_(m, m)], g, np.ones(m.size)).solve(y[m])
        brute[f] = y[f] - (K[np.ix_(f, m)] @ a + b)
    kf = float(np.abs(kfold_residuals(K, y, g, folds) - brute).max())
    return {"seed": seed, "n": n, "gamma": g, "max |LOO − brute|": loo, "max |5-fold − brute|": kf}


@register("lssvm_loo", "LS-SVM exact LOO: one γ and a 50-value γ grid vs brute force and eigh",
          paper="areg-fusion-pelckmans-2006", headline=True)
def run(ctx: Context) -> BenchResult:
    res = BenchResult("lssvm_loo", "LS-SVM exact leave-one-out: closed form vs brute force vs eigh baseline")
    reps = ctx.reps(5, 2)
    gammas = np.logspace(-2, 4, 50)
    rows = []
    sizes = [100, 300] if ctx.quick else [100, 300, 1000]
    for n in sizes:
        ds = problems.get_problem("lssvm_regression", n=n, seed=ctx.seed)
        K, y = RBF(1.0)(ds.X), ds.y
        # accuracy against brute force (one γ) and against the eig baseline (grid)
        r_cf = loo_residuals(K, y, 10.0)
        bf_ok = n <= 300
        err_bf = float(np.abs(r_cf - brute_force_loo(K, y, 10.0)).max()) if bf_ok else float("nan")
        sweep = gamma_sweep(K, y, gammas, method="eigh")
        err_grid = float(np.max(np.abs(sweep.scores - eig_baseline_loo(K, y, gammas)) / eig_baseline_loo(K, y, gammas)))
        funcs = {
            "closed form, 1 γ": lambda: loo_residuals(K, y, 10.0),
            "grid 50 γ, eigh": lambda: gamma_sweep(K, y, gammas, method="eigh"),
            "grid 50 γ, cholesky": lambda: gamma_sweep(K, y, gammas, method="cholesky"),
            "grid 50 γ, eig baseline (explicit inverse)": lambda: eig_baseline_loo(K, y, gammas),
        }
        if n <= 300:
            funcs["brute force, 1 γ"] = lambda: brute_force_loo(K, y, 10.0)
        t = interleaved_times(funcs, reps if n < 1000 else max(1, reps // 2))
        med = {k: float(np.median(v)) for k, v in t.items()}
        for k, v in med.items():
            rows.append({"N": n, "method": k, "time [s]": v,
                         "ratio to closed form 1 γ": v / med["closed form, 1 γ"]})
        rows.append({"N": n, "method": "max |LOO closed form − brute force|", "time [s]": err_bf,
                     "ratio to closed form 1 γ": float("nan")})
        rows.append({"N": n, "method": "max rel |grid score − eig baseline|", "time [s]": err_grid,
                     "ratio to closed form 1 γ": float("nan")})
    res.tables.append(Table("LOO timings and accuracy", pd.DataFrame(rows),
                            "Median of interleaved repetitions; the last two rows per N are errors, "
                            "not times.  Brute force refits N LS-SVMs of size N-1."))
    # break-even between per-γ Cholesky and one eigh
    be_rows = []
    for n in ([300, 1000] if ctx.quick else [300, 1000, 2000]):
        ds = problems.get_problem("lssvm_regression", n=n, seed=ctx.seed)
        K, y = RBF(1.0)(ds.X), ds.y
        t = interleaved_times({"eigh, 50 γ": lambda: gamma_sweep(K, y, gammas, method="eigh"),
                               "cholesky, 1 γ": lambda: gamma_sweep(K, y, gammas[:1], method="cholesky"),
                               "eigh, 1 γ": lambda: gamma_sweep(K, y, gammas[:1], method="eigh")},
                              ctx.reps(5, 2))
        e1, e50, c1 = (float(np.median(t[k])) for k in ("eigh, 1 γ", "eigh, 50 γ", "cholesky, 1 γ"))
        per_gamma_eig = max((e50 - e1) / 49, 0.0)
        breakeven = (e1 - per_gamma_eig) / max(c1 - per_gamma_eig, 1e-12)
        be_rows.append({"N": n, "cholesky per γ [s]": c1, "eigh setup + 1 γ [s]": e1,
                        "eigh per extra γ [s]": per_gamma_eig, "break-even #γ": breakeven,
                        "EIGH_BREAK_EVEN (library)": EIGH_BREAK_EVEN})
    res.tables.append(Table("Break-even number of γ values (per-γ Cholesky vs one eigh)",
                            pd.DataFrame(be_rows),
                            "gamma_sweep(method='auto') switches to eigh from EIGH_BREAK_EVEN "
                            "values on."))
    cases = pd.DataFrame(ctx.map(accuracy_case, range(ctx.seed, ctx.seed + ctx.reps(50, 8)),
                                 desc="LOO/k-fold vs brute force"))
    res.tables.append(Table("Closed form vs brute-force refits on random problems", cases,
                            "Random N in [20, 80), γ in [1e-2, 1e4], σ² in [0.3, 3]; residuals "
                            "of the closed forms against N (LOO) or 5 (k-fold) refits."))
    max_err = max(cases["max |LOO − brute|"].max(), cases["max |5-fold − brute|"].max())
    res.check(f"max |closed form − brute force| over {len(cases)} random problems (LOO and 5-fold)",
              max_err, 1e-8)
    return res
