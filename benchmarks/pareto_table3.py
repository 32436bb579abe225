"""Multiobjective paper Table III: our KRR (RBF, modified ε-constraint: the paper's eq. 28
weights as the headline column, the project's scale-free weights beside it) against scikit-learn's SVR
(RBF and polynomial kernels, parameters by 10-fold CV grid search) and Gaussian-process
regression (RBF + white-noise kernel, hyperparameters by maximising the marginal likelihood) on
the same splits.  MKL-SVR (the paper's fourth column) is not reproduced.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from lssvm_cvx.benchmarks.pareto_common import (
    DATASETS,
    convergence_table,
    errors,
    mean_table,
    pareto_cells,
    protocol_note,
    run_rounds,
    run_task,
    summarise,
    title_count,
)
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as GPRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.svm import SVR

from lssvm_cvx.bench import BenchResult, Context, Table, register

PAPER = pd.DataFrame([
    ["HOUSING", "2.89 (0.77)", "3.45 (1.04)", "5.66 (1.88)", "3.05 (0.82)"],
    ["MPG", "2.51 (0.52)", "2.69 (0.60)", "4.03 (0.96)", "2.64 (0.50)"],
    ["SERVO", "0.51 (0.29)", "0.61 (0.35)", "1.37 (0.41)", "0.57 (0.30)"],
    ["WDBC", "31.46 (1.59)", "32.08 (4.76)", "44.1 (9.87)", "31.60 (4.3)"],
], columns=["data set", "mod-ε KRR RBF (eq. 28)", "SVR rbf", "SVR pol", "GPR"])
COLS = ["mod-ε KRR RBF (eq. 28)", "mod-ε KRR RBF (scale-free w)", "SVR rbf", "SVR pol", "GPR"]


INNER_CV = 10


def _svr(S, kernel):
    grid = {"C": [0.1, 1.0, 10.0, 100.0], "epsilon": [0.01, 0.1, 0.5]}
    if kernel == "rbf":
        grid["gamma"] = [0.01, 0.03, 0.1, 0.3]
        est = SVR(kernel="rbf")
    else:
        grid["degree"] = [1, 2, 3]
        est = SVR(kernel="poly", coef0=1.0, gamma=1.0)
    gs = GridSearchCV(est, grid, cv=KFold(INNER_CV, shuffle=True, random_state=0),
                      scoring="neg_mean_squared_error").fit(S.Xtr, S.ytr)
    return S.rmse(gs.predict(S.Xte))


def _gpr(S):
    k = ConstantKernel(1.0) * GPRBF(length_scale=np.ones(S.Xtr.shape[1])) + WhiteKernel(0.1)
    gp = GaussianProcessRegressor(k, normalize_y=False, n_restarts_optimizer=1, random_state=0)
    return S.rmse(gp.fit(S.Xtr, S.ytr).predict(S.Xte))


def _ours(S):
    c = pareto_cells(S, "krr", "rbf", "KRR RBF", n_eps=8,
                     variants=("modified_eps/paper", "modified_eps/normalized"))
    return {k.replace("mod-ε KRR RBF (eq. 28) time", "mod-ε KRR RBF time"): v for k, v in c.items()}


METHODS = {"mod-ε KRR RBF": lambda Sr, Sp: _ours(Sr), "SVR rbf": lambda Sr, Sp: _svr(Sr, "rbf"),
           "SVR pol": lambda Sr, Sp: _svr(Sp, "poly"), "GPR": lambda Sr, Sp: _gpr(Sr)}


def _one(task):
    return run_task(task, METHODS)


@register("pareto_table3", "Multiobjective paper Table III: against SVR and GPR",
          paper="multiobjective-model-selection-you-2014")
def run(ctx: Context) -> BenchResult:
    global INNER_CV
    INNER_CV = 3 if ctx.quick else 10
    data = ("servo", "auto_mpg") if ctx.quick else DATASETS
    rows, info = run_rounds(ctx, _one, data, max_splits=2 if ctx.quick else 50,
                            min_splits=2 if ctx.quick else 10,
                            subsample=120 if ctx.quick else None, desc="pareto_table3")
    res = BenchResult("pareto_table3", "Table III: modified ε-constraint KRR vs SVR and GPR "
                      f"({title_count(info)})")
    res.tables.append(Table("Table III", summarise(rows, COLS), "RMSE on held-out folds (the splits "
                            "of pareto_krr).  '(eq. 28)': the paper's weights (the paper's method); "
                            "'(scale-free w)': the project's variant.", paper=PAPER))
    res.tables.append(Table("Convergence of the ε sweeps (SLSQP, KKT tolerance 1e-5)",
                            convergence_table(rows, ("KRR RBF",)),
                            "Every SLSQP solve of every split (8 bounds).  KKT-converged: relative "
                            "stationarity, feasibility and complementarity ≤ 1e-5."))
    means = mean_table(rows, COLS)
    res.check("data sets where mod-ε KRR ≤ SVR rbf (mean RMSE)",
              sum(v["mod-ε KRR RBF (eq. 28)"] <= v["SVR rbf"] for v in means.values()), len(means),
              higher_is_better=True)
    res.check("paper: data sets where mod-ε KRR (eq. 28) has the lowest mean RMSE of the table",
              sum(v["mod-ε KRR RBF (eq. 28)"] <= min(v[c] for c in ("SVR rbf", "SVR pol", "GPR"))
                  for v in means.values()), len(means), higher_is_better=True)
    res.meta = {"rows": rows, "means": means, "protocol": info}
    err = errors(rows)
    res.notes = protocol_note(info, ctx.quick,
                              f"SVR grids: C ∈ {{0.1, 1, 10, 100}}, ε ∈ {{0.01, 0.1, 0.5}}, RBF γ ∈ "
                              f"{{0.01, 0.03, 0.1, 0.3}} / polynomial degree 1..3 (coef0 = 1), "
                              f"{INNER_CV}-fold CV on the standardised training fold.  GPR: constant × "
                              "ARD-RBF + white noise, 1 optimizer restart.  MKL-SVR not reproduced. "
                              "Algorithm 1: ε sweep of 8 bounds, SLSQP to its own stopping test. "
                              + ("Errors: " + "; ".join(err) if err else "No method raised."))
    return res
