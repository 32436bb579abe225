"""Componentwise LS-SVM chapter, §5.2: structure detection by the estimators *at their defaults*
on fresh seeds of the additive 10-input example, and the error-definition check of Table 1.

y = 10 sinc(x1) + 20 (x2 - 0.5)² + 10 x3 + 5 x4 + e, e ~ N(0, 1), x ~ U[0, 1]^10, N = 100.
Every estimator is built as a new user would: ``ComponentwiseLSSVMRegressor(penalty=...)``
with nothing else set, so σ² (and γ) come from exact 10-fold CV of the componentwise LS-SVM and
λ / ξ from 10-fold CV of the penalty with the one-standard-error rule (the estimators'
documented defaults).  The same fits are repeated with ``cv_rule="min"`` (plain minimum CV, the
paper's wording) for the sparse penalties, so the effect of the rule is measured."""

from __future__ import annotations

from collections import Counter

import warnings

import numpy as np
import pandas as pd

from lssvm_cvx import ComponentwiseLSSVMRegressor, problems
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.formulations.componentwise import ComponentwiseLSSVM
from lssvm_cvx.formulations.componentwise_basis import ComponentBasis
from lssvm_cvx.kernels import RBF, Componentwise, Linear
from lssvm_cvx.model_selection import select_gamma_sigma2
from lssvm_cvx.estimators.componentwise import GAMMA_GRID, GNC_DEFAULTS
from lssvm_cvx.formulations.componentwise import component_kernels
from lssvm_cvx.selection.kernel_choice import choose_kernels

from lssvm_cvx.benchmarks.componentwise_spam import basis_features, kfold_ridge

RELEVANT = {0, 1, 2, 3}
#: first seed of the fresh data sets.  Seeds 1000-1005 were used while the estimators'
#: RBF+linear start was designed (notes/cw.md), 2000-2004 by a slow test, 5000-5019 while the
#: kernel choice by paired CV (``kernel_choice="cv"``) was designed (this benchmark's previous
#: run), so the measured rates come from seeds no design decision has seen
SEED_BASE = 7000
#: RBF+linear candidates: components 0..9 RBF, 10..19 linear; the paper's right choice
MIXED_RIGHT = {0, 1, 12, 13}
MIXED = dict(penalty="stp", kernel=["rbf", "linear"])
CASES = [("STP", dict(penalty="stp"), RELEVANT),
         ("STP with RBF and lin", MIXED, MIXED_RIGHT),
         ("STP with RBF and lin, no kernel choice", dict(MIXED, kernel_choice=None), MIXED_RIGHT),
         ("STP with RBF and lin, literal start, no kernel choice",
          dict(MIXED, start_weights="equal", kernel_choice=None), MIXED_RIGHT),
         ("L1", dict(penalty="l1"), RELEVANT),
         ("Fusion with AReg (30)", dict(penalty="fusion_areg"), RELEVANT),
         ("Fusion with comp. reg. (38)", dict(penalty="fusion_eta"), RELEVANT)]
PAPER_RECOVERY = {"STP": 100, "STP with RBF and lin": 95, "STP with RBF and lin, no kernel choice": 95,
                  "STP with RBF and lin, literal start, no kernel choice": 95, "L1": 100,
                  "Fusion with AReg (30)": 100, "Fusion with comp. reg. (38)": 100}
#: Table 1, test-set performance (L2, L1, L∞) of the two unpenalized rows
PAPER_ROWS = {"LS-SVMs": (0.1110, 0.2582, 0.8743), "componentwise LS-SVMs (7)": (0.0603, 0.1923, 0.6249)}


def one_seed(seed: int, cases=None) -> dict:
    ds = problems.get_problem("additive10", n_train=100, n_test=100, seed=seed)
    out = {}
    for name, params, right in (CASES if cases is None else cases):
        # random_state=None (the default) draws the fusion penalties' validation split from
        # NumPy's global generator: seeded with the data seed so that the run is reproducible
        np.random.seed(seed)  # noqa: NPY002 - the legacy global generator is what None uses
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = ComponentwiseLSSVMRegressor(**params).fit(ds.X, ds.y)
        sel = set(est.selected_components_.tolist())
        inputs = {est.component_labels_[d][0][0] for d in sel}
        out[name] = {"exact": float(sel == right), "inputs exact": float(inputs == RELEVANT),
                     "n selected": len(sel), "converged": float(est.converged_),
                     "warnings": len(caught), "sigma2": est.sigma2_,
                     "reg": np.nan if est.reg_ is None else est.reg_,
                     "test MSE": float(np.mean((est.predict(ds.X_test) - ds.y_test) ** 2)),
                     "selected": [f"{est.component_labels_[d][1]} x{est.component_labels_[d][0][0] + 1}"
                                  for d in sorted(sel)],
                     "start weights": (getattr(est, "start_weights_", np.ones(1))).tolist(),
                     "moves accepted": int(sum(m["accepted"] for m in getattr(est, "prune_log_", []))),
                     "kernel choice changed": bool((est.kernel_choice_ or {}).get("changed", False))}
        if name in PATH_METHODS:
            out[name + " path"] = l1_path(ds, est, PATH_METHODS[name])
        if name == "STP with RBF and lin":
            out["kernel choice by CV"] = kernel_choice_by_cv(ds, est.sigma2_, seed)
    return out


#: the ξ-penalties whose path is examined (method name → penalty)
PATH_METHODS = {"L1": "l1", "Fusion with AReg (30)": "fusion_areg"}


def l1_path(ds, est, penalty: str = "l1") -> dict:
    """What limits the L1 (or AReg-fusion) rate: refit eq. (20) (or 30) on all training data at
    every ξ of the CV grid (σ² as chosen) and ask whether *any* ξ gives the exact structure,
    and at what CV error."""
    cv = est.cv_results_["xi"]
    exact, best_gap = [], np.inf
    for i, xi in enumerate(cv["grid"]):
        # (fusion: every refit along the path uses the same validation split)
        e = ComponentwiseLSSVMRegressor(penalty=penalty, sigma2=est.sigma2_, xi=xi,
                                        random_state=0).fit(ds.X, ds.y)
        ok = set(e.selected_components_.tolist()) == RELEVANT
        exact.append(ok)
        if ok:
            best_gap = min(best_gap, (cv["mean"][i] - cv["mean"][cv["index_min"]]) / cv["se"][cv["index_min"]])
    return {"exact on path": float(any(exact)), "CV gap in SE at exact": best_gap,
            "n selected on path": cv["n_selected"]}


ORACLE = "oracle: OLS on the four true terms (not in the paper)"
#: candidate error definitions of Table 1: (name, test targets, statistic)
DEFINITIONS = ("MSE vs f(x) (noise-free test targets)", "MSE vs f(x) / var(y)",
               "normalized, noisy test targets (paper's scale)")


def error_scale(seed: int) -> dict:
    """Test errors of the 10-D RBF LS-SVM and the componentwise LS-SVM (both by exact 10-fold
    CV of (γ, σ²)) under candidate error definitions and noise levels.

    The normalized definition scores the *noisy* test targets ``y* = f(x*) + e*`` (a test set
    "generated using the same rules", §5.2) relative to the scale of the outputs:
    L2 = mean(r²)/var(y*), L1 = mean|r|/std(y*), L∞ = max|r|/std(y*) with ``r = ŷ - y*``."""
    row = {}
    gammas = np.logspace(-2, 4, 13)
    for noise in (1.0, 0.5, 0.25):
        ds = problems.get_problem("additive10", n_train=100, n_test=100, seed=seed, noise_std=noise)
        X, y, Xt, ft = ds.X, ds.y, ds.X_test, ds.y_test
        yt = ft + noise * np.random.default_rng(seed + 7919).normal(size=ft.shape)
        folds = problems.kfold_indices(100, 10, seed)
        s = select_gamma_sigma2(X, y, gammas, [1.0, 3.0, 10.0, 30.0, 100.0], kernel=RBF,
                                criterion="kfold", folds=folds)
        k = RBF(s.best_sigma2)
        from lssvm_cvx.formulations import LSSVM

        sol = LSSVM(X, y, kernel=k, gamma=s.best_gamma).solve()
        p_rbf = k(Xt, X) @ sol["alpha"] + sol.scalar("b")
        s = select_gamma_sigma2(X, y, gammas, [0.1, 0.3, 1.0, 3.0, 10.0],
                                kernel=lambda v: Componentwise(RBF(v)), criterion="kfold",
                                folds=folds)
        f = ComponentwiseLSSVM(X, y, kernel=Componentwise(RBF(s.best_sigma2)), gamma=s.best_gamma)
        p_cw = f.predict(f.solve(), Xt)
        def terms(Z):              # additive10 uses the normalized sinc = np.sinc
            return np.column_stack([np.ones(len(Z)), np.sinc(Z[:, 0]),
                                    (Z[:, 1] - 0.5) ** 2, Z[:, 2], Z[:, 3]])

        coef = np.linalg.lstsq(terms(X), y, rcond=None)[0]
        p_or = terms(Xt) @ coef
        vy = float(np.var(y))
        for label, p in (("LS-SVMs", p_rbf), ("componentwise LS-SVMs (7)", p_cw),
                         (ORACLE, p_or)):
            mse = float(np.mean((p - ft) ** 2))
            r = p - yt
            sd = float(np.std(yt))
            row[(noise, DEFINITIONS[0], label)] = (mse, np.nan, np.nan)
            row[(noise, DEFINITIONS[1], label)] = (mse / vy, np.nan, np.nan)
            row[(noise, DEFINITIONS[2], label)] = (float(np.mean(r * r)) / sd ** 2,
                                                   float(np.mean(np.abs(r))) / sd,
                                                   float(np.max(np.abs(r))) / sd)
    return row


def kernel_choice_by_cv(ds, sigma2: float, seed: int) -> dict:
    """What limits "STP with RBF and lin": given the right inputs x1..x4, does 10-fold CV of the
    componentwise LS-SVM (eq. 16; γ re-tuned per set) prefer the paper's kernel assignment (RBF
    for x1, x2, linear for x3, x4) among all 16 assignments of {RBF, linear} to x1..x4?  Scored
    by the minimum CV error and by the one-standard-error rule that prefers fewer RBF
    components (the simpler model).  The RBF width is the one the estimator chose."""
    X, y = ds.X, ds.y
    B = ComponentBasis.build(X, [(RBF(sigma2), (j,)) for j in range(4)]
                             + [(Linear(), (j,)) for j in range(4)], rank_tol=1e-10)
    F = basis_features(B)
    folds = problems.kfold_indices(len(y), 10, seed)
    sizes = np.array([len(f) for f in folds], dtype=float)[:, None]
    scores = {}
    for code in range(16):                      # bit j set: RBF for x_{j+1}, else linear
        S = [j if code >> j & 1 else 4 + j for j in range(4)]
        err = kfold_ridge(np.hstack([F[d] for d in S]), y, folds, GAMMA_GRID,
                          lambda d, t: (d - t) ** 2) / sizes
        m = err.mean(0)
        k = int(np.argmin(m))
        scores[code] = (float(m[k]), float(err[:, k].std(ddof=1) / np.sqrt(len(folds))))
    right = 0b0011
    best = min(scores, key=lambda c: scores[c][0])
    ok = [c for c in scores if scores[c][0] <= scores[best][0] + scores[best][1]]
    onese = min(ok, key=lambda c: (bin(c).count("1"), scores[c][0]))
    lin_x1 = 0b0010                              # the observed failure: linear for x1
    # the estimators' rule (kernel_choice="cv"): paired one-SE per input by exact LOO, from
    # all-RBF x1..x4
    comps = component_kernels(Componentwise([RBF(sigma2), Linear()]), X.shape[1])
    paired = choose_kernels(X, y, comps, [0, 1, 2, 3], gammas=GAMMA_GRID)
    return {"min": float(best == right), "one_se": float(onese == right),
            "paired one_se": float(paired.selected.tolist() == sorted(MIXED_RIGHT)),
            "gap x1 linear [SE]": (scores[lin_x1][0] - scores[right][0]) / scores[right][1]}


def selected_sets(results: list[dict], names: list[str]) -> str:
    """How often each selected set occurs over the seeds, per method (the failure modes)."""
    out = []
    for name in names:
        sets = Counter("{" + ", ".join(r[name]["selected"]) + "}" for r in results if name in r)
        out.append(f"Selected sets, {name}: " + "; ".join(f"{k} in {v}" for k, v in sets.most_common()) + ".")
    return "  ".join(out)


@register("componentwise_defaults", "Componentwise LS-SVM chapter §5.2: structure detection at "
          "the estimators' defaults on fresh seeds, and the Table 1 error-scale check",
          paper="componentwise-lssvm-pelckmans", headline=True)
def run(ctx: Context) -> BenchResult:
    reps = ctx.reps(full=20, quick=1)
    seeds = [SEED_BASE + ctx.seed + r for r in range(reps)]
    cases = CASES if not ctx.quick else [c for c in CASES if c[0] == "STP"]
    from functools import partial

    results = ctx.map(partial(one_seed, cases=cases), seeds, desc="default fits")
    rows = []
    for name, _, _ in cases:
        v = [r[name] for r in results]
        rows.append({"method (defaults; 10-fold CV, one-SE rule unless stated)": name,
                     "% runs exact structure": 100 * np.mean([x["exact"] for x in v]),
                     "% runs inputs exactly x1..x4": 100 * np.mean([x["inputs exact"] for x in v]),
                     "mean # selected": np.mean([x["n selected"] for x in v]),
                     "% converged": 100 * np.mean([x["converged"] for x in v]),
                     "warnings": int(np.sum([x["warnings"] for x in v])),
                     "test MSE mean": np.mean([x["test MSE"] for x in v]),
                     "median sigma2": float(np.median([x["sigma2"] for x in v])),
                     "median lambda / xi": float(np.nanmedian([x["reg"] for x in v]))})
    df = pd.DataFrame(rows)
    mixed = [r["STP with RBF and lin"] for r in results if "STP with RBF and lin" in r]
    lin_w = f"{np.median([min(x['start weights']) for x in mixed]):.3g}" if mixed else "n/a"
    n_moves = sum(x["moves accepted"] > 0 for x in mixed)
    if not ctx.quick:
        prow = []
        for mname in PATH_METHODS:
            lp = [r[mname + " path"] for r in results]
            gaps = [x["CV gap in SE at exact"] for x in lp if np.isfinite(x["CV gap in SE at exact"])]
            prow.append({
                "method": mname,
                "% runs where some ξ of the grid gives exactly {x1..x4}": 100 * np.mean([x["exact on path"] for x in lp]),
                "median CV-error excess at that ξ [standard errors]": float(np.median(gaps)) if gaps else np.nan,
                "mean # selected along the grid (small ξ → large ξ)": ", ".join(
                    f"{v:.1f}" for v in np.mean([x["n selected on path"] for x in lp], axis=0))})
        l1tab = pd.DataFrame(prow)
    res = BenchResult("componentwise_defaults", "Componentwise LS-SVMs at the defaults: structure "
                      "detection on fresh seeds (§5.2) and Table 1's error scale")
    by = df.set_index(df.columns[0])
    col = "% runs exact structure"
    res.check("STP at defaults: % runs with exactly {x1..x4} (target 90; the paper: recovered in its one run)",
              float(by.loc["STP", col]), 90.0, higher_is_better=True, unit="%")
    if not ctx.quick:
        res.check("STP with RBF+lin at defaults: % runs RBF x1, x2 and linear x3, x4 exactly "
                  "(target 90; the paper's 95 is the share of its 20 candidate components chosen right in its one run, not a share of runs)", float(by.loc["STP with RBF and lin", col]), 90.0,
                  higher_is_better=True, unit="%")
        for name in ("L1", "Fusion with AReg (30)", "Fusion with comp. reg. (38)"):
            res.check(f"{name} at defaults: % runs exact structure (target 70; the paper: recovered in its one run)",
                      float(by.loc[name, col]), 70.0, higher_is_better=True, unit="%")
        res.check("STP at defaults: % fits with GNC converged", float(by.loc["STP", "% converged"]),
                  100.0, higher_is_better=True, unit="%")
    paper = pd.DataFrame([{"method": k, "% recovered (paper, one run)": v}
                          for k, v in PAPER_RECOVERY.items()])
    res.tables.append(Table(f"Structure detection at the defaults over {reps} fresh seeds "
                            f"({seeds[0]}..{seeds[-1]})", df,
                            "Exact structure: the selected set is exactly {x1..x4} (RBF+lin: "
                            "exactly RBF x1, RBF x2, linear x3, linear x4).  Each fit is "
                            "`ComponentwiseLSSVMRegressor(**params).fit(X, y)` with the params "
                            "in the method name only (the fusion penalties' validation split, "
                            "random_state=None, comes from NumPy's global generator, seeded with "
                            "the data seed before every fit).  The seeds are new: earlier runs' seeds "
                            "informed the design of the RBF+linear start and of the kernel "
                            "choice (SEED_BASE).", paper=paper))
    if not ctx.quick:
        res.tables.append(Table(
            "What limits L1 and AReg fusion: is the exact structure on the ξ path, and what does "
            "CV say there?", l1tab,
            "eq. (20) (or 30, with one validation split for the whole path) refitted on all "
            "training data at every ξ of the CV grid.  A CV excess above "
            "1 standard error means neither rule (min, one-SE) can pick that ξ."))
        kc = [r["kernel choice by CV"] for r in results if "kernel choice by CV" in r]
        mixed_rows = by.loc[["STP with RBF and lin", "STP with RBF and lin, no kernel choice"]]
        stp_mixed, stp_nochoice = mixed_rows[col].astype(float)
        inputs_ok = float(by.loc["STP with RBF and lin", "% runs inputs exactly x1..x4"])
        kc_min = 100 * float(np.mean([x["min"] for x in kc]))
        kc_se = 100 * float(np.mean([x["one_se"] for x in kc]))
        kc_paired = 100 * float(np.mean([x["paired one_se"] for x in kc]))
        kc_close = 100 * float(np.mean([x["gap x1 linear [SE]"] <= 1 for x in kc]))
        n_changed = sum(r["STP with RBF and lin"]["kernel choice changed"] for r in results)
        res.tables.append(Table(
            "What limits STP with RBF and lin: given the right inputs, does CV prefer the paper's "
            "kernel for each?", pd.DataFrame([{
                "seeds": len(kc),
                "% seeds: CV minimum is the paper's assignment": kc_min,
                "% seeds: one-SE rule (fewest RBF) gives it": kc_se,
                "% seeds: paired one-SE per input by LOO (kernel_choice='cv') gives it": kc_paired,
                "median CV excess of linear x1 over it [SE]": float(np.median(
                    [x["gap x1 linear [SE]"] for x in kc])),
                "% seeds with linear x1 within 1 SE of it": kc_close}]),
            "Componentwise LS-SVM (16) on x1..x4 only, each of the 16 assignments of {RBF, "
            "linear} to the four inputs, γ re-tuned by 10-fold CV per assignment, σ² as the "
            "estimator chose; SE of the CV error at its best γ over the folds.  The paired "
            "column is the estimators' rule (lssvm_cvx.selection.kernel_choice) started from RBF "
            "for x1..x4: per input, the simplest kernel within one standard error of the paired "
            "per-point differences of the exact leave-one-out losses.  The paper's assignment: RBF for x1, x2 and linear for "
            "x3, x4."))
        res.check("RBF+lin, right inputs given: % seeds where the estimators' paired one-SE "
                  "kernel choice gives the paper's assignment (target 90, the issue's rate)",
                  kc_paired, 90.0, higher_is_better=True, unit="%")
        choice_note = (
            f"  Kernel choice: at the defaults the STP with RBF and linear candidates selects the "
            f"inputs and kernel_choice='cv' then picks each selected input's kernel by paired "
            f"exact leave-one-out (one-SE rule); it changed the STP's kernels in {n_changed} of {reps} runs, "
            f"and the exact rate is {stp_mixed:.0f} % with it, {stp_nochoice:.0f} % without "
            f"(row 'no kernel choice').  The input selection bounds it: the STP's selected inputs "
            f"are exactly x1..x4 in {inputs_ok:.0f} % of the runs.  With the right inputs given "
            f"(table 'What limits STP with RBF and lin') the paired rule gives the paper's "
            f"assignment in {kc_paired:.0f} % of the seeds, the fold-level one-SE rule over all 16 "
            f"assignments in {kc_se:.0f} %, the CV minimum in {kc_min:.0f} %; linear x1 is within "
            f"one fold-level standard error in {kc_close:.0f} %.")
        scales = ctx.map(error_scale, seeds[:3], desc="error scale")
        keys = list(scales[0])
        trows = []
        for k in keys:
            m = np.nanmean(np.array([s[k] for s in scales], dtype=float), axis=0)
            pp = PAPER_ROWS.get(k[2], (np.nan, np.nan, np.nan))
            trows.append({"noise std": k[0], "error definition": k[1], "row": k[2],
                          "L2 (ours)": m[0], "L2 (paper)": pp[0], "L1 (ours)": m[1],
                          "L1 (paper)": pp[1], "L∞ (ours)": m[2], "L∞ (paper)": pp[2]})
        tab = pd.DataFrame(trows)
        # the largest relative deviation from the paper over both rows and the three norms, per
        # (noise, definition): the definition reproduces Table 1 when it is small
        dev = {}
        for (noise, dfn), g in tab.groupby(["noise std", "error definition"], sort=False):
            vals = []
            for col in ("L2", "L1", "L∞"):
                o, pv = g[f"{col} (ours)"].to_numpy(float), g[f"{col} (paper)"].to_numpy(float)
                ok = np.isfinite(o) & np.isfinite(pv)
                vals += list(np.abs(o[ok] / pv[ok] - 1))
            dev[(noise, dfn)] = max(vals)
        best_key = min(dev, key=dev.get)
        res.check("Table 1 scale: largest relative deviation from the paper's L2/L1/L∞ of both "
                  f"unpenalized rows, '{DEFINITIONS[2]}' at noise std 1",
                  float(dev[(1.0, DEFINITIONS[2])]), 0.25, unit="")
        res.tables.append(Table(
            "Which error definition / noise level gives Table 1's scale?", tab,
            "Exact 10-fold CV of (γ, σ²) for both rows, 100 test points, 3 seeds (means).  The "
            "normalized definition scores noisy test targets y* = f(x*) + e* with L2 = "
            "mean(r²)/var(y*), L1 = mean|r|/std(y*), L∞ = max|r|/std(y*); the others score the "
            "noise-free f(x*) (L2 only).  Largest relative deviation from the paper over the "
            "rows and norms: " + "; ".join(f"noise {k[0]:g}, {k[1]}: {v:.2f}" for k, v in dev.items())
            + f".  Closest: noise {best_key[0]:g}, {best_key[1]}.",
        ))
        res.meta["error_scale"] = [{str(k): v for k, v in s.items()} for s in scales]
    res.meta.update({"seeds": seeds,
                     "runs": [{k: v for k, v in r.items()} for r in results]})
    res.notes = (("QUICK MODE: one seed, STP only.\n\n" if ctx.quick else "") +
                 "λ grid of the STP: ||y - ȳ||² × logspace(0, -2, 7); ξ grid: "
                 "logspace(-0.5, 2.5, 7)/std(y); σ² grid: median column variance × "
                 "(1, 3, 10, 30, 100); γ grid logspace(-2, 4, 13).  GNC (Algorithm 1, least-squares "
                 f"start) runs its last stage to relative stationarity {GNC_DEFAULTS['tol_stationarity']:g} "
                 f"(at most {GNC_DEFAULTS['max_final']} steps, a ConvergenceWarning otherwise; the "
                 "'warnings' column counts them).  STP with RBF and lin: the least-squares start of "
                 "GNC weights each candidate by its dimension (start_weights='kernel_dof', median "
                 f"linear weight {lin_w}) and GNC is followed by support moves between the candidates "
                 f"of one input that lower eq. (25) (accepted in {n_moves} of {reps} runs); the row "
                 "'STP with RBF and lin, literal start, no kernel choice' is Algorithm 1 as printed "
                 "(start_weights='equal', kernel_choice=None).  "
                 + selected_sets(results, [c[0] for c in cases if "lin" in c[0]])
                 + ("" if ctx.quick else choice_note))
    return res
