"""Harness verdicts against an independent check (issues 25 and 28): no false NO, and every
failure attributed to its cause.

Every registered formulation at N = 60 and N = 300 (its random instance, seed 0) goes through
``compare`` with every installed solver at the three tolerance profiles (high, default, low;
``--quick``: high), as ``lssvm-cvx sweep`` runs it (its files, with the qpbenchmark-style report,
land in ``sweep/``).  Each row whose verdict is NO *and* that has a point
is checked independently of the harness: the solver is re-run in this process with the same
profile (the same point: the runs are deterministic), CLARABEL is run at tolerances 1e-12,
and the point passes when it is primal feasible and its objective (the NumPy twin) and its
fitted values are within the row's tolerance of the tight CLARABEL solve's.  A NO whose point
passes is a *false NO*; the claim is that there are none.  Rows without a point (a solver
error, a time limit, an iteration limit) are genuine failures and counted apart; "disagreement"
rows (two certified points that differ) are counted and checked the same way.

The tables: verdict counts per solver and profile, the failures of each solver by cause
(``compile``, ``settings``, ``time_limit``, ``not_applicable`` are not the solver failing
outright) with the share so attributed, every NO with a point and its independent check, and,
per formulation with a closed form, how often the reference (the best certificate) was the
closed form and why not when it was not.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pandas as pd

from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.harness.compare import fitted_values
from lssvm_cvx.harness.report import deviation
from lssvm_cvx.solvers import DEFAULT_SOLVERS, EXTRA_SOLVERS, available_solvers

#: sizes of the full run and of ``--quick``
SIZES, QUICK_SIZES = (60, 300), (40,)
#: tolerance profiles of the full run and of ``--quick``
PROFILES, QUICK_PROFILES = ("high", "default", "low"), ("high",)
#: the quick run's formulations: one of each kind (closed form, cones, non-smooth, inequalities)
QUICK = ("lssvm", "regularized_lssvm_l1", "areg_stability", "l2svm_dual", "pareto_krr_sum",
         "componentwise_l1")
#: CLARABEL's tolerances for the independent reference solve
TIGHT = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12, "max_iter": 1000}
#: seconds per backend in compare (the sweep's default)
TIME_LIMIT = 60.0


def independent_check(f: Any, backend: str, tol: Any, setting: str = "high", *,
                      options: dict[str, Any] | None = None) -> tuple[bool, str]:
    """Whether ``backend``'s point on ``f`` is right by a check that does not use the harness:
    primal feasible, objective and fitted values within ``tol`` of a CLARABEL solve at 1e-12.

    Parameters
    ----------
    f : Formulation
        The instance.
    backend : str
        ``"closed_form"`` or a solver name.
    tol : Tolerance
        The row's tolerance profile.
    setting : str, default="high"
        The profile the row ran with.
    options : dict or None, default=None
        The solver options the row ran with (beyond the profile's).

    Returns
    -------
    tuple
        ``(passes, detail)``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f._built = None
        sol = (f.solve("closed_form") if backend == "closed_form"
               else f.solve(backend, raise_on_failure=False, setting=setting, options=options))
        if not (sol.ok and sol.values):
            return False, f"re-run gave no point (status {sol.status})"
        primal = f.kkt_residuals(sol)["primal"]
        f._built = None
        ref = f.solve("CLARABEL", options=TIGHT, raise_on_failure=False)
    if not (ref.ok and ref.values):
        return False, f"the tight CLARABEL solve failed ({ref.status})"
    f_pt, f_ref = float(f.objective(sol.values)), float(f.objective(ref.values))
    gap = abs(f_pt - f_ref) / max(abs(f_ref), 1e-300)
    fit, fit_ref = fitted_values(f, sol.values), fitted_values(f, ref.values)
    fit_dev = min(deviation(fit, fit_ref)) if fit is not None and fit_ref is not None else math.nan
    ok = primal <= tol.feas and gap <= tol.rel and not fit_dev > tol.rel
    return bool(ok), (f"primal {primal:.1e}, objective gap {gap:.1e}, fitted values Δ "
                      f"{fit_dev:.1e} vs CLARABEL at 1e-12 (tolerance {tol.rel:g})")


def _check_row(r: dict[str, Any]) -> tuple[Any, str]:
    """The independent check of one sweep row (NO or disagreement, with a point)."""
    from lssvm_cvx.formulations import get_formulation
    from lssvm_cvx.solvers import profile

    f = get_formulation(str(r["formulation"])).random_instance(int(float(r["n"])),
                                                              seed=int(float(r["repeat"])))
    return independent_check(f, str(r["solver"]), profile(str(r["solver"]), str(r["profile"])).tol,
                             str(r["profile"]))


@register("harness_verdicts", "Harness verdicts against an independent check: no false NO",
          paper=None, headline=True)
def run(ctx: Context) -> BenchResult:
    from lssvm_cvx.formulations import FORMULATIONS
    from lssvm_cvx.harness.sweep import reference_rows, sweep
    from lssvm_cvx.harness.sweep_report import failure_table

    inst = set(available_solvers())
    pool = DEFAULT_SOLVERS if ctx.quick else (*DEFAULT_SOLVERS, *EXTRA_SOLVERS)
    solvers = [s for s in pool if s in inst]
    names = list(QUICK) if ctx.quick else sorted(n for n in FORMULATIONS if not n.startswith("_"))
    sizes = QUICK_SIZES if ctx.quick else SIZES
    profiles = QUICK_PROFILES if ctx.quick else PROFILES
    # the sweep itself (its summary.md, sweep.csv and performance profile land beside this
    # file, in sweep/), then the independent check of every NO and disagreement with a point
    out = ctx.out_dir / "sweep"
    swept = sweep(names, solvers, sizes=list(sizes), repeats=1, time_limit=TIME_LIMIT,
                  profiles=list(profiles), jobs=ctx.jobs, out=out, progress=ctx.progress,
                  command=ctx.command or None)
    df = pd.DataFrame(swept.rows)
    df = df[df["solver"] != "instance"].copy()
    df["has_point"] = ~(df["reason"].astype(str).str.startswith("no point")
                        | (df["verdict"] == "n/a"))
    todo = df[df["verdict"].isin(["NO", "disagreement"]) & df["has_point"]]
    checked = ctx.map(_check_row, todo.to_dict("records"), desc="independent checks")
    df["independent"], df["independent_detail"] = None, ""
    for idx, (ok, detail) in zip(todo.index, checked):
        df.at[idx, "independent"], df.at[idx, "independent_detail"] = ok, detail
    res = BenchResult("harness_verdicts", "Harness verdicts against an independent check")
    counts = df.groupby(["profile", "solver", "verdict"]).size().unstack(fill_value=0).reset_index()
    res.tables.append(Table(
        "Verdicts per backend and profile", counts,
        f"{len(names)} formulations × sizes {list(sizes)} (random instance, seed 0), solvers "
        f"{', '.join(solvers)}, profiles {', '.join(profiles)}, {TIME_LIMIT:g} s per backend; "
        f"the sweep's files: {out.name}/summary.md (the qpbenchmark-style report), "
        f"{out.name}/sweep.csv, {out.name}/sweep.json (manifest), {out.name}/sweep.parquet."))
    fails = pd.DataFrame(failure_table(df.to_dict("records")))
    fails["attributed share"] = [("–" if v != v else f"{100 * v:.0f}%")
                                 for v in fails["attributed share"]]
    res.tables.append(Table(
        "Failures by cause per solver (all profiles)", fails,
        "compile: cvxpy's conversion failed before the solver ran; settings: no point at the "
        "profile but one at the next looser profile; time_limit: killed at the limit or "
        "stopped by the solver's own; not_applicable: the problem class is not the solver's; "
        "solver (own): the solver failed outright or returned a wrong point. attributed share: "
        "the failures that were compile, settings, time_limit or not_applicable."))
    bad = df.loc[todo.index]
    cols = ["formulation", "n", "solver", "status", "verdict", "independent",
            "independent_detail", "reason"]
    res.tables.append(Table(
        "NO and disagreement verdicts with a point, checked independently",
        bad[cols] if len(bad) else pd.DataFrame(columns=cols),
        "independent = True: the point is right by the independent check (a false NO if the "
        "verdict is NO); False: the independent check agrees that it is wrong."))
    nopoint = df[(df["verdict"] == "NO") & ~df["has_point"]]
    res.tables.append(Table(
        "NO verdicts without a point (solver failures, limits)",
        nopoint[["formulation", "n", "solver", "status", "reason"]] if len(nopoint)
        else pd.DataFrame(columns=["formulation", "n", "solver", "status", "reason"]),
        "Genuine failures: no point to judge."))
    res.tables.append(Table("Reference: the closed form, or why not",
                            pd.DataFrame(reference_rows(df.to_dict("records"))),
                            "Per formulation with a closed form: runs whose reference (the best "
                            "certificate) was the closed form, else which backend and why."))
    is_false = (bad["verdict"] == "NO") & bad["independent"].astype(bool)
    res.check("false NO (a NO whose point passes the independent check)", int(is_false.sum()),
              0, unit="")
    n_no, n_dis = int((df["verdict"] == "NO").sum()), int((df["verdict"] == "disagreement").sum())
    dis_ok = int((bad["independent"].astype(bool) & (bad["verdict"] == "disagreement")).sum())
    res.notes = (f"{len(df)} rows: {n_no} NO ({len(nopoint)} without a point, "
                 f"{n_no - len(nopoint)} with one), {n_dis} disagreement ({dis_ok} of whose "
                 "points pass the independent check).")
    res.meta["solvers"] = solvers
    return res
