"""Multiobjective paper Table II (KPCR: modified ε-constraint, ε-constraint, 10-fold CV, GCV with
RBF and polynomial kernels).

θ = (σ², r) for the RBF kernel and r for the polynomial kernel (degree enumerated 1..6).  KPCR
depends on r only through the number of components m(r), a step function, so the paper's
central-difference r-gradient gives SLSQP nothing to converge on; Algorithm 1's fronts are
therefore computed exactly over a grid (10 σ linear in [μ-2δ, μ+2δ] × 41 r in [0.8, 1], each
objective evaluated in closed form) — an exact reformulation of the ε-constraint and modified
ε-constraint on that grid (:func:`lssvm_cvx.selection.multiobjective.select_pareto`,
``kpcr_search="grid"``).  The headline columns use the weights of eq. (28); "(scale-free w)" is
the project's variant.  CV/GCV: 10 σ × 9 r ∈ [0.8, 1] grids.
"""

from __future__ import annotations

import pandas as pd
from lssvm_cvx.benchmarks.pareto_common import (
    DATASETS,
    VARIANT_COLS,
    convergence_table,
    errors,
    explanation_note,
    explanation_table,
    mean_table,
    pareto_cells,
    protocol_note,
    run_rounds,
    run_task,
    summarise,
    title_count,
)

from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.selection.multiobjective import select_model

PAPER = pd.DataFrame([
    ["HOUSING", "4.04 (0.88)", "4.56 (0.67)", "9.14 (1.10)", "11.99 (6.89)", "8.45 (1.72)", "9.12 (2.30)", "6.05 (0.95)", "9.37 (1.77)"],
    ["MPG", "3.00 (0.58)", "4.64 (0.82)", "7.71 (0.90)", "3.64 (1.63)", "7.30 (0.81)", "7.82 (1.54)", "5.92 (1.00)", "8.16 (1.78)"],
    ["SERVO", "0.71 (0.30)", "1.35 (0.33)", "1.41 (0.34)", "1.29 (0.40)", "1.13 (0.25)", "1.11 (0.25)", "0.74 (0.24)", "0.81 (0.24)"],
    ["WDBC", "30.66 (4.71)", "35.32 (5.87)", "33.5 (4.53)", "43.53 (7.05)", "34.47 (10.27)", "56.68 (7.71)", "47.21 (13.44)", "41.13 (14.89)"],
], columns=["data set", "mod-ε RBF (eq. 28)", "ε RBF (eq. 28)", "CV RBF", "GCV RBF", "mod-ε poly (eq. 28)",
            "ε poly (eq. 28)", "CV poly", "GCV poly"])

LABELS = ("RBF", "poly")
COLS = ([VARIANT_COLS[v].format(k="RBF") for v in VARIANT_COLS] + ["CV RBF", "GCV RBF"]
        + [VARIANT_COLS[v].format(k="poly") for v in VARIANT_COLS] + ["CV poly", "GCV poly"])
HEAD = ("mod-ε RBF (eq. 28)", "ε RBF (eq. 28)", "CV RBF", "GCV RBF")
N_EPS = 8


def _grid(S, kernel, method):
    return S.rmse(select_model(S.Xtr, S.ytr, model="kpcr", kernel=kernel, method=method).predict(S.Xte))


METHODS = {
    "mod-ε RBF (eq. 28)": lambda Sr, Sp: pareto_cells(Sr, "kpcr", "rbf", "RBF", n_eps=N_EPS),
    "CV RBF": lambda Sr, Sp: _grid(Sr, "rbf", "cv"),
    "GCV RBF": lambda Sr, Sp: _grid(Sr, "rbf", "gcv"),
    "mod-ε poly (eq. 28)": lambda Sr, Sp: pareto_cells(Sp, "kpcr", "poly", "poly", n_eps=N_EPS),
    "CV poly": lambda Sr, Sp: _grid(Sp, "poly", "cv"),
    "GCV poly": lambda Sr, Sp: _grid(Sp, "poly", "gcv"),
}


def _one(task):
    return run_task(task, METHODS)


@register("pareto_kpcr", "Multiobjective paper Table II (KPCR)",
          paper="multiobjective-model-selection-you-2014")
def run(ctx: Context) -> BenchResult:
    data = ("servo", "auto_mpg") if ctx.quick else DATASETS
    rows, info = run_rounds(ctx, _one, data, max_splits=2 if ctx.quick else 50,
                            min_splits=2 if ctx.quick else 10,
                            subsample=120 if ctx.quick else None, desc="pareto_kpcr")
    res = BenchResult("pareto_kpcr", "Table II: KPCR model selection (RMSE, mean (std) over "
                      f"{title_count(info)})")
    res.tables.append(Table("Table II (KPCR)", summarise(rows, COLS),
                            "RMSE on held-out folds.  '(eq. 28)': Algorithm 1 with the paper's "
                            "weights (the paper's method); '(scale-free w)': the project's variant.  "
                            "Fronts exact over a 10 σ × 41 r grid (not the paper's gradient "
                            "descent).", paper=PAPER))
    res.tables.append(Table("Convergence of the ε sweeps", convergence_table(
        rows, LABELS, search="exact over the (σ², r) grid"),
        "Every bound of every sweep is solved exactly over the grid (a finite minimum: no "
        "iterations, no KKT question); the paper's central-difference gradient in r is not used."))
    expl = explanation_table(rows, LABELS)
    res.tables.append(Table("Why mod-ε = ε", expl,
                            "Over every (split, bound): the modified rule's slack h/s = E_c/b of "
                            "its chosen grid point and the distance between the two chosen points."))
    means = mean_table(rows, COLS)
    head = {k: {c: v[c] for c in HEAD} for k, v in means.items()}
    res.check("data sets where mod-ε RBF ≤ ε RBF (mean RMSE)",
              sum(v["mod-ε RBF (eq. 28)"] <= v["ε RBF (eq. 28)"] + 1e-12 for v in head.values()),
              len(head), higher_is_better=True)
    res.check("paper: data sets where mod-ε RBF (eq. 28) has the lowest RBF mean RMSE",
              sum(v["mod-ε RBF (eq. 28)"] <= min(v.values()) + 1e-12 for v in head.values()),
              len(head), higher_is_better=True)
    res.meta = {"rows": rows, "means": means, "protocol": info}
    err = errors(rows)
    res.notes = protocol_note(info, ctx.quick,
                              f"ε sweep of {N_EPS} bounds per kernel/degree, exact over the grid. "
                              + explanation_note(expl, grid=True) + " "
                              + ("Errors: " + "; ".join(err) if err else "No method raised."))
    return res
