"""Pareto-front tracing cost (multiobjective paper §III, our convex α-space front).

Claim of the issue: a Pareto sweep of 50 ε values re-solves without recompiling (DPP) and costs
≤ 3× the first solve.  Measured on the modified ε-constraint over α (``ParetoAlphaKRR``: KRR
roughness majorant, RBF kernel) for a Boston training subset, in this process, interleaved
(medians):

* "first solve": build the cvxpy problem, compile, solve (CLARABEL);
* "cvxpy sweep": 50 further solves of the same problem after changing the DPP parameter ε
  (no recompilation: cvxpy's cached parametrised program is reused — checked);
* "closed-form sweep": the same 50 points from the spectral path (one ``eigh``, then O(n) per ε).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lssvm_cvx.benchmarks.pareto_common import load
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register
from lssvm_cvx.formulations.alpha_krr import ParetoAlphaKRR
from lssvm_cvx.kernels import RBF
from lssvm_cvx.pareto import trace_front
from lssvm_cvx.solvers import solve_problem


@register("pareto_sweep", "Pareto sweep of 50 ε values: DPP re-solves vs the first solve",
          paper="multiobjective-model-selection-you-2014")
def run(ctx: Context) -> BenchResult:
    from threadpoolctl import threadpool_limits

    X, y = load("boston")
    sizes = [60, 120] if ctx.quick else [60, 120, 240]
    reps = ctx.reps(5, 2)
    rows = []
    with threadpool_limits(1):
        for n in sizes:
            rng = np.random.default_rng(ctx.seed)
            idx = rng.permutation(len(y))[:n]
            sd = X[idx].std(0)
            Xs = (X[idx] - X[idx].mean(0)) / np.where(sd > 0, sd, 1.0)
            ys = (y[idx] - y[idx].mean()) / y[idx].std()
            form = ParetoAlphaKRR(Xs, ys, kernel=RBF(2.0 * Xs.shape[1]), eps=1.0, s=1e-3)
            sp = form.path()
            lo, hi = sp.E_c(1e6), sp.E_c(1e-8)
            bounds = lo + (hi - lo) * np.logspace(-3, 0, 51)
            eps = bounds / 1e-3
            state = {}

            def first():
                form._built = None
                form.eps = float(eps[0])
                b = form.problem
                solve_problem(b, "CLARABEL", accept_inaccurate=True)
                state["b"] = b

            def sweep():
                trace_front(state["b"], eps[1:], solver="CLARABEL")

            def closed():
                for e in eps[1:]:
                    nu = max(1e-3 / e, sp.nu_for_bound(1e-3 * e))
                    sp.c(nu)

            first()
            fr = trace_front(state["b"], eps[1:], solver="CLARABEL")
            t = interleaved_times({"first": first, "sweep": sweep, "closed": closed}, reps)
            f, s_, c = (float(np.median(t[k])) for k in ("first", "sweep", "closed"))
            # agreement of the cvxpy and closed-form fronts
            Fc = np.array([[sp.E_f(max(1e-3 / e, sp.nu_for_bound(1e-3 * e))),
                            sp.E_c(max(1e-3 / e, sp.nu_for_bound(1e-3 * e)))] for e in eps[1:]])
            dev = float(np.nanmax(np.abs(fr.F[:, 0] - Fc[:, 0]) / np.maximum(np.abs(Fc[:, 0]), 1e-12)))
            rows.append({"n": n, "first solve [s]": f, "50-ε cvxpy sweep [s]": s_,
                         "sweep / first": s_ / f, "recompiled": fr.recompiled,
                         "50-ε closed-form sweep [s]": c, "closed sweep / first": c / f,
                         "max rel |ΔE_f| cvxpy vs closed": dev,
                         "statuses": ",".join(sorted(set(fr.status)))})
    res = BenchResult("pareto_sweep", "Pareto sweep of 50 ε values vs the first solve")
    res.tables.append(Table("Sweep cost", pd.DataFrame(rows),
                            "Medians of interleaved repetitions in one process (CLARABEL, single-threaded BLAS)."))
    last = rows[-1]
    res.check(f"cvxpy sweep recompiled (n={last['n']}; 0 = no)", float(last["recompiled"]), 0.0)
    res.check(f"50-ε cvxpy sweep / first solve (n={last['n']})", last["sweep / first"], 3.0, unit="×")
    res.check(f"50-ε closed-form sweep / first solve (n={last['n']})", last["closed sweep / first"], 3.0, unit="×")
    res.notes = ("The DPP sweep never recompiles (cvxpy's cached parametrised program is reused), but each "
                 "CLARABEL re-solve of this dense second-order-cone program costs about as much as the "
                 "solve inside the first call, so 50 re-solves cost far more than 3× the first solve: "
                 "compilation is only a fraction of the first call here.  The ≤ 3× target is met by the "
                 "closed form: every modified ε-constraint solution lies on the weighted-sum path, which "
                 "one eigendecomposition gives for all ε (SpectralPath).")
    return res
