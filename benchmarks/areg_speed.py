"""Cost of the AReg closed forms at N = 2000 against one LS-SVM closed-form fit (same data,
same process, interleaved medians).  The issue's claim: closed-form fusion ≤ 2× one LS-SVM
fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from lssvm_cvx import LSSVMRegressor, problems
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register
from lssvm_cvx.formulations.areg_ensemble import ARegEnsemble
from lssvm_cvx.formulations.areg_fast_cv import ARegFastCV
from lssvm_cvx.formulations.areg_fusion import ARegFusion
from lssvm_cvx.kernels import RBF


@register("areg_speed", "AReg closed forms at N = 2000 vs one LS-SVM fit",
          paper="areg-fusion-pelckmans-2006")
def run(ctx: Context) -> BenchResult:
    N = 1000 if ctx.quick else 2000
    n = N // 2
    reps = ctx.reps(3, 1)
    ds = problems.get_problem("lssvm_regression", n=N + n, seed=ctx.seed)
    X, y = ds.X, ds.y
    Xt, yt, Xv, yv = X[:N], y[:N], X[N:], y[N:]
    rows, info = [], {}
    with threadpool_limits(limits=1):
        for s2, regime in ((1.0, "σ² = 1 (the lssvm_speed instance)"),
                           (0.02, "σ² = 0.02 (well-conditioned M)")):
            def lssvm():
                LSSVMRegressor(sigma2=s2, gamma=10.0).fit(Xt, yt)

            def fusion():
                sol = ARegFusion(Xt, yt, Xv, yv, kernel=RBF(s2)).closed_form()
                info["fusion " + regime] = sol.extras["lstsq"]["method"]

            def ensemble():
                ARegEnsemble(Xt, yt, Xv, yv, kernel=RBF(s2)).closed_form()

            def fast_cv():
                sol = ARegFastCV(Xt, yt, folds=10, kernel=RBF(s2)).closed_form()
                info["fast_cv " + regime] = sol.extras["lstsq"]["method"]

            def fast_cv_lsqr():
                ARegFastCV(Xt, yt, folds=10, kernel=RBF(s2)).solve_lsqr(20)

            funcs = {"LS-SVM fit (LSSVMRegressor)": lssvm, "fusion (Alg. 3.1)": fusion,
                     "ensemble m=2 (Alg. 4.1)": ensemble, "fast CV (eq. 52)": fast_cv,
                     "fast CV, 20 LSQR steps": fast_cv_lsqr}
            t = interleaved_times(funcs, reps, warmup=0 if not ctx.quick else 0)
            base = float(np.median(t["LS-SVM fit (LSSVMRegressor)"]))
            for name, ts in t.items():
                med = float(np.median(ts))
                rows.append({"regime": regime, "method": name, "N": N, "n_val": n,
                             "median [s]": med, "ratio to LS-SVM fit": med / base,
                             "least-squares path": info.get(
                                 ("fusion " if name.startswith("fusion") else "fast_cv ") + regime, "")
                             if name.startswith(("fusion", "fast CV (")) else "",
                             "repeats": reps})
        # the two operations the argument in the notes counts, timed in the same process
        rng = np.random.default_rng(ctx.seed)
        M = rng.standard_normal((N + n, N + 1))
        S = M[:N, :N] @ M[:N, :N].T + N * np.eye(N)
        ops = interleaved_times({"form M'M ((N + n) x (N + 1))": lambda: M.T @ M,
                                 "Cholesky of an N x N matrix": lambda: np.linalg.cholesky(S)},
                                reps, warmup=0)
    op_rows = [{"operation": k, "N": N, "n_val": n, "median [s]": float(np.median(v))}
               for k, v in ops.items()]
    t_mtm, t_chol = (r["median [s]"] for r in op_rows)
    df = pd.DataFrame(rows)
    res = BenchResult("areg_speed", "AReg closed forms vs one LS-SVM closed-form fit")
    res.tables.append(Table("Cost ratios", df,
                            f"lssvm_regression (d = 3), N = {N} training points, n = {n} "
                            "validation points; every time includes the Gram matrices; one BLAS "
                            "thread; medians of interleaved repetitions.", floatfmt=".4g"))
    for regime in df["regime"].unique():
        r = df[(df.regime == regime) & (df.method == "fusion (Alg. 3.1)")]["ratio to LS-SVM fit"]
        res.check(f"closed-form fusion / one LS-SVM fit at N={N}, {regime}", float(r.iloc[0]), 2.0,
                  unit="×")
    res.tables.append(Table("Operation costs behind the argument in the notes", pd.DataFrame(op_rows),
                            "One BLAS thread, medians of interleaved repetitions.", floatfmt=".4g"))
    res.notes = NOTES.format(measured=f"measured in this run: {t_mtm:.3g} s against {t_chol:.3g} s "
                                      f"for the Cholesky at N = {N} with one thread, "
                                      f"{t_mtm / t_chol:.2g}×")
    return res


NOTES = """
Why the fusion closed form cannot meet 2×.  One LS-SVM fit is the Gram plus one Cholesky
factorisation of an N × N matrix (N³/3 flops).  Algorithm 3.1 is a least-squares problem with
the (N + n) × (N + 1) matrix M of eq. (17); its cheapest exact solution is the paper's own
(eq. 19): form M'M (N²(N + n) flops = 1.5 N³ for n = N/2, i.e. 4.5 Cholesky factorisations'
worth; {measured}) and
factor it (one more Cholesky), on top of a 1.5× larger Gram.  So even the well-conditioned
regime (σ² = 0.02, where our closed form takes exactly that path) costs about 3× a fit, and
any QR-based solve costs more.  When M'M is not numerically positive definite (RBF Grams are
singular to working precision: the σ² = 1 regime), the minimum-norm fallback adds an
eigendecomposition of M'M (several Cholesky factorisations' worth).  The fast CV fusion
(eq. 52) is a least-squares problem of the same kind with 2N rows.  The fusion scheme that does
cost about one fit per node is the two-layer ensemble (m = 2: two Cholesky factorisations plus
O(nN) for the validation outputs and the multipliers), the scheme the paper times as
"AReg (Val)" in Tables 2-3; and the paper's CG route (Remark 5.4, O(lN²) for l steps: the
"20 LSQR steps" row) is cheap once the matrices exist — but it stops short of the optimum.
"""
