"""Warm re-solves (issue 14, item 5): where the time of a DPP re-solve goes.

* LS-SVM (eq. 1, feature-map builder) at N = 500: first solve (build + compile + solve of a new
  problem) against a re-solve after ``gamma`` changes (cached DPP program, solver warm-started
  where cvxpy supports it: OSQP, SCS, PIQP, QPALM, PROXQP), per solver, with the re-solve split
  into cvxpy's parameter application, the solver's own time, and the rest (unpacking).
* The 50-ε Pareto sweep: the closed-form spectral path against one first cvxpy solve.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.solvers import available_solvers

SOLVERS = ("CLARABEL", "OSQP", "SCS", "PIQP", "QPALM", "PROXQP", "ECOS")


def _first(make, solver):
    f = make()
    t0 = time.perf_counter()
    s = f.solve(solver, accept_inaccurate=True)
    return time.perf_counter() - t0, s, f


def _resolve(f, solver, gamma):
    f.gamma = gamma
    t0 = time.perf_counter()
    s = f.solve(solver, accept_inaccurate=True)
    return time.perf_counter() - t0, s


@register("harness_warm", "Warm re-solves: DPP gamma change and the 50-eps sweep, with a time profile",
          paper=None)
def run(ctx: Context) -> BenchResult:
    from lssvm_cvx.formulations import LSSVM, get_formulation

    n = 200 if ctx.quick else 500
    reps = ctx.reps(5, 3)
    inst = set(available_solvers())
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = LSSVM.random_instance(n, seed=ctx.seed)

        def make():
            return LSSVM(base.X, base.y, kernel=base.kernel, gamma=10.0)

        for solver in [s for s in SOLVERS if s in inst]:
            firsts, res, comp, stime = [], [], [], []
            f = None
            for k in range(reps):  # interleave first solve and re-solve
                t, s1, f = _first(make, solver)
                firsts.append(t)
                t2, s2 = _resolve(f, solver, 10.0 * (2.0 if k % 2 == 0 else 0.5))
                res.append(t2)
                comp.append(s2.compile_time)
                own = s2.extras.get("solver_time")
                setup = s2.extras.get("solver_setup_time") or 0.0
                stime.append(own + setup if own else np.nan)  # PIQP/PROXQP report none
            ft, rt = float(np.median(firsts)), float(np.median(res))
            ct, st = float(np.median(comp)), float(np.nanmedian(stime))
            rows.append({"solver": solver, "N": n, "first solve [s]": ft, "re-solve [s]": rt,
                         "first / re-solve": ft / rt,
                         "re-solve: parameter application [s]": ct,
                         "re-solve: solver's own time (setup + solve) [s]": st,
                         "re-solve: rest (cvxpy unpack, python) [s]": max(rt - ct - st, 0.0),
                         "solver share of re-solve": st / rt,
                         "bound first/re-solve if the solver time stays": ft / max(st, 1e-12),
                         "status": s2.status})
        # the 50-eps sweep: closed form (spectral path) vs one first cvxpy solve
        pf = get_formulation("pareto_krr_alpha").random_instance(120 if ctx.quick else 240)
        eps = np.linspace(0.2, 5.0, 50) * float(pf.eps)
        t_first = []
        t_closed = []
        for _ in range(reps):
            pf._built = None
            t0 = time.perf_counter()
            pf.solve("CLARABEL", accept_inaccurate=True)
            t_first.append(time.perf_counter() - t0)
            pf._path = None
            t0 = time.perf_counter()
            for e in eps:
                pf.eps = float(e)
                pf.solve("closed_form")
            t_closed.append(time.perf_counter() - t0)
    df = pd.DataFrame(rows)
    best = df.loc[df["first / re-solve"].idxmax()]
    res = BenchResult("harness_warm", "Warm re-solves: where the time goes")
    res.check(f"DPP re-solve speed-up after a gamma change at N={n} (best: {best['solver']})",
              float(best["first / re-solve"]), 5.0, higher_is_better=True, unit="×")
    sweep_ratio = float(np.median(t_closed) / np.median(t_first))
    res.check("50-ε sweep (closed-form spectral path, the default path) / one first cvxpy solve",
              sweep_ratio, 3.0, unit="×")
    res.tables.append(Table("DPP re-solve after a gamma change (LS-SVM eq. 1)", df,
                            caption=f"Medians of {reps} interleaved first solves and re-solves."))
    res.tables.append(Table("50-ε sweep", pd.DataFrame([{
        "n": len(pf.y), "r (whitened dimension)": pf.whitening().shape[1], "first CLARABEL solve [s]": np.median(t_first),
        "50-ε closed-form sweep [s]": np.median(t_closed), "sweep / first": sweep_ratio}])))
    res.notes = (
        "Why the DPP re-solve cannot reach 5× through cvxpy: gamma multiplies a block of the "
        "KKT matrix (the quadratic term gamma/2 ||e||^2, or equivalently gamma e = alpha), and "
        "the LS-SVM solution alpha(gamma) = (K + I/gamma)^{-1}(y - b) is rational, not affine, "
        "in gamma, so no re-parametrisation moves gamma into the vectors q/b only: every "
        "re-solve must factorize a new KKT matrix with the dense N x r feature block.  That "
        "factorization (once for OSQP/QPALM/PROXQP after a matrix update, once per iteration "
        "for the interior-point solvers, which cannot warm-start) is the solver's own time in "
        "the table, and it is most of the first solve too: the first solve adds only build + "
        "compile.  The column 'bound first/re-solve if the solver time stays' is the best "
        "speed-up any cvxpy-side saving could give.  The closed form reaches the target "
        "instead: one eigendecomposition serves every gamma (lssvm_cvx.linalg spectral "
        "sweeps), and every modified ε-constraint solution lies on the weighted-sum path "
        "(SpectralPath), which is the 50-ε sweep measured above.")
    return res
