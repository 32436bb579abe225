"""Componentwise LS-SVM chapter, Table 1: the additive example (§5.2).

y = 10 sinc(x1) + 20 (x2 - 0.5)² + 10 x3 + 5 x4 + e, e ~ N(0, 1), x ~ U[0, 1]^10, N = 100,
independent noise-free test set; every method with its hyperparameters tuned by 10-fold
cross-validation (as in §5), repeated over seeded data sets (the paper reports one run).
A second table checks which sinc definition matches the paper's error scale, a third reports every
row in the error definition that reproduces the paper's scale (found in ``componentwise_defaults``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lssvm_cvx import ComponentwiseLSSVMRegressor, problems
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.formulations.componentwise import ComponentwiseLSSVM
from lssvm_cvx.formulations.componentwise_eta import ComponentwiseEta
from lssvm_cvx.selection.eta_als import eta_fusion
from lssvm_cvx.formulations.componentwise_gnc import ComponentwiseSTP
from lssvm_cvx.selection.gnc import gnc
from lssvm_cvx.formulations.componentwise_sparse import ComponentwiseFusion, ComponentwiseL1, selected_components
from lssvm_cvx.kernels import RBF, Componentwise, Linear
from lssvm_cvx.model_selection import select_gamma_sigma2

GAMMAS = np.logspace(-2, 4, 13)
SIGMA2S_CW = np.array([0.1, 0.3, 1.0, 3.0, 10.0])
SIGMA2S_RBF = np.array([1.0, 3.0, 10.0, 30.0, 100.0])
XIS = np.array([0.1, 0.3, 1.0, 3.0, 10.0, 30.0])
LAMS_L2START = np.array([1.0, 3.0, 10.0, 30.0])
LAMS_L1START = np.array([0.2, 0.5, 1.0, 2.0])
RELEVANT = (0, 1, 2, 3)
#: the paper's "appropriate" mixed components: RBF for x1, x2; linear for x3, x4 (indices in
#: Componentwise([RBF, Linear]) order: RBF components 0..9, linear components 10..19)
RELEVANT_MIXED = (0, 1, 12, 13)
GNC_CV = dict(max_inner=20, max_final=300, tol_stationarity=1e-6)
GNC_FINAL = dict(max_inner=50, max_final=2000, tol_stationarity=1e-8)

METHODS = ["LS-SVM", "componentwise LS-SVM (7)", "L1 regularization (21)",
           "STP with RBF (25), GNC Alg. 1 (LS start)", "STP with RBF (25), GNC from L1 tangent",
           "STP with RBF and lin (25), GNC from L1 tangent", "Fusion with AReg (30)",
           "Fusion with comp. reg. (40)",
           "STP with RBF (25), estimator defaults", "STP with RBF and lin (25), estimator defaults"]
#: the estimators at their defaults (§5 protocol: 10-fold CV of σ² and λ, one-SE rule, GNC to
#: convergence) as a new user calls them: method -> (constructor arguments, the right set)
DEFAULT_ROWS = {METHODS[8]: (dict(penalty="stp"), RELEVANT),
                METHODS[9]: (dict(penalty="stp", kernel=["rbf", "linear"]), RELEVANT_MIXED)}

PAPER = pd.DataFrame({
    "method": ["LS-SVMs", "componentwise LS-SVMs (7)", "L1 regularization (21)", "STP with RBF (25)",
               "STP with RBF and lin (25)", "Fusion with AReg (30)", "Fusion with comp. reg. (40)"],
    "L2": [0.1110, 0.0603, 0.0624, 0.0608, 0.0521, 0.0614, 0.0601],
    "L1": [0.2582, 0.1923, 0.1987, 0.1966, 0.1817, 0.1994, 0.1953],
    "Linf": [0.8743, 0.6249, 0.6601, 0.6854, 0.5729, 0.6634, 0.6791],
    "% recovered": [0, 0, 100, 100, 95, 100, 100],
})


def _errors(pred: np.ndarray, truth: np.ndarray, noisy: np.ndarray) -> dict[str, float]:
    """Test errors against the noise-free ``truth`` (L2, L1, Linf) and, in the paper's scale,
    against the noisy test targets ``noisy`` normalized by their variance (L2) and standard
    deviation (L1, L∞) — the definition ``componentwise_defaults`` found to reproduce Table 1's
    scale (its table 'Which error definition / noise level gives Table 1's scale?')."""
    r = pred - truth
    rn, sd = pred - noisy, float(np.std(noisy))
    return {"L2": float(np.mean(r * r)), "L1": float(np.mean(np.abs(r))), "Linf": float(np.abs(r).max()),
            "L2 norm": float(np.mean(rn * rn)) / sd ** 2, "L1 norm": float(np.mean(np.abs(rn))) / sd,
            "Linf norm": float(np.abs(rn).max()) / sd}


def _recovery(selected, P: int, relevant) -> dict[str, float]:
    sel = np.zeros(P, dtype=bool)
    sel[np.asarray(selected, dtype=int)] = True
    truth = np.zeros(P, dtype=bool)
    truth[list(relevant)] = True
    return {"component rate": float(np.mean(sel == truth)), "perfect": float(np.all(sel == truth)),
            "n selected": int(sel.sum())}


def _folds(n: int, seed: int, k: int = 10) -> list[np.ndarray]:
    return problems.kfold_indices(n, k, seed)


def _features_predict(p, z, b, X_new, selected):
    E = p.basis.features(X_new)
    F = np.column_stack([Ed @ zd for Ed, zd in zip(E, p.basis.blocks(z))])
    return F[:, selected].sum(axis=1) + b


def _cv_l1(X, y, cw, folds, xis, X_val=None):
    """10-fold CV of the L1 (or fusion) QP over ξ: one cvxpy problem per fold, ξ swept as a DPP
    parameter.  Returns the CV MSE per ξ."""
    err = np.zeros(len(xis))
    for te in folds:
        tr = np.setdiff1d(np.arange(len(y)), te)
        f = (ComponentwiseL1(X[tr], y[tr], kernel=cw) if X_val is None
             else ComponentwiseFusion(X[tr], y[tr], X_val, kernel=cw))
        for i, xi in enumerate(xis):
            f.xi = xi
            sol = f.solve("CLARABEL", accept_inaccurate=True, raise_on_failure=False)
            if not sol.ok:
                err[i] += np.inf
                continue
            r = f.predict(sol, X[te]) - y[te]
            err[i] += r @ r
    return err / len(y)


def _cv_stp(X, y, cw, folds, lams, start):
    err = np.zeros(len(lams))
    for te in folds:
        tr = np.setdiff1d(np.arange(len(y)), te)
        for i, lam in enumerate(lams):
            p = ComponentwiseSTP(X[tr], y[tr], kernel=cw, lam=lam)
            res = gnc(p, start=start, **GNC_CV)
            r = _features_predict(p, res.solution["z"], res.solution.scalar("b"), X[te], res.selected) - y[te]
            err[i] += r @ r
    return err / len(y)


def one_repetition(seed: int, *, n_test: int = 100, quick: bool = False) -> dict:
    """All rows of Table 1 on one data set (``quick``: 5-fold CV, 2-point grids)."""
    ds = problems.get_problem("additive10", n_train=100, n_test=n_test, seed=seed, sinc="normalized")
    X, y, Xt, ft = ds.X, ds.y, ds.X_test, ds.y_test
    # noisy test targets "generated using the same rules" (§5.2, unit noise), for the paper's
    # error scale; the same draw as componentwise_defaults.error_scale
    yt = ft + np.random.default_rng(seed + 7919).normal(size=ft.shape)
    k = 5 if quick else 10
    folds = _folds(len(y), seed, k)
    XIS_, L2S, L1S = (XIS[[2, 4]], LAMS_L2START[[1, 3]], LAMS_L1START[[1, 2]]) if quick else (XIS, LAMS_L2START, LAMS_L1START)
    out: dict[str, dict] = {}

    # LS-SVM on all inputs (one RBF kernel), (γ, σ²) by exact 10-fold CV
    s = select_gamma_sigma2(X, y, GAMMAS, SIGMA2S_RBF, kernel=RBF, criterion="kfold", folds=folds)
    from lssvm_cvx.formulations import LSSVM

    f = LSSVM(X, y, kernel=RBF(s.best_sigma2), gamma=s.best_gamma)
    sol = f.solve()
    pred = RBF(s.best_sigma2)(Xt, X) @ sol["alpha"] + sol.scalar("b")
    out[METHODS[0]] = {**_errors(pred, ft, yt), "sigma2": s.best_sigma2, "hyper": s.best_gamma}

    # componentwise LS-SVM, (γ, σ²) by exact 10-fold CV
    s = select_gamma_sigma2(X, y, GAMMAS, SIGMA2S_CW, kernel=lambda v: Componentwise(RBF(v)),
                            criterion="kfold", folds=folds)
    s2, g = s.best_sigma2, s.best_gamma
    cw = Componentwise(RBF(s2))
    f = ComponentwiseLSSVM(X, y, kernel=cw, gamma=g)
    sol = f.solve()
    out[METHODS[1]] = {**_errors(f.predict(sol, Xt), ft, yt), **_recovery(range(10), 10, RELEVANT),
                       "sigma2": s2, "hyper": g}

    # L1 (21): ξ by 10-fold CV (σ² from the componentwise LS-SVM)
    cv = _cv_l1(X, y, cw, folds, XIS_)
    xi = float(XIS_[int(np.argmin(cv))])
    f = ComponentwiseL1(X, y, kernel=cw, xi=xi)
    sol = f.solve("CLARABEL", accept_inaccurate=True)
    out[METHODS[2]] = {**_errors(f.predict(sol, Xt), ft, yt), **_recovery(f.selected(sol), 10, RELEVANT),
                       "sigma2": s2, "hyper": xi}

    # STP (25) by GNC, λ by 10-fold CV; both GNC starts; mixed RBF + linear candidates
    for name, kern, lams, start, rel in [
            (METHODS[3], cw, L2S, "l2", RELEVANT),
            (METHODS[4], cw, L1S, "l1", RELEVANT),
            (METHODS[5], Componentwise([RBF(s2), Linear()]), L1S, "l1", RELEVANT_MIXED)]:
        cv = _cv_stp(X, y, kern, folds, lams, start)
        lam = float(lams[int(np.argmin(cv))])
        p = ComponentwiseSTP(X, y, kernel=kern, lam=lam)
        res = gnc(p, start=start, **GNC_FINAL)
        pred = _features_predict(p, res.solution["z"], res.solution.scalar("b"), Xt, res.selected)
        rec = _recovery(res.selected, p.n_components, rel)
        inputs = {p.labels()[d][0][0] for d in res.selected}
        out[name] = {**_errors(pred, ft, yt), **rec, "sigma2": s2, "hyper": lam,
                     "inputs perfect": float(inputs == set(RELEVANT)),
                     "gnc converged": float(res.converged), "gnc steps": len(res.history)}

    for name, (params, rel) in DEFAULT_ROWS.items():
        est = ComponentwiseLSSVMRegressor(**params).fit(X, y)
        sel = est.selected_components_
        out[name] = {**_errors(est.predict(Xt), ft, yt), **_recovery(sel, len(est.component_labels_), rel),
                     "sigma2": est.sigma2_, "hyper": est.reg_,
                     "inputs perfect": float({est.component_labels_[d][0][0] for d in sel} == set(RELEVANT)),
                     "gnc converged": float(est.converged_)}

    # fusion: 70 training / 30 validation points (the data are iid, so the first 70 are a
    # random split)
    tr, va = np.arange(70), np.arange(70, 100)
    folds70 = _folds(70, seed, k)
    cv = _cv_l1(X[tr], y[tr], cw, folds70, XIS_, X_val=X[va])
    xi = float(XIS_[int(np.argmin(cv))])
    f = ComponentwiseFusion(X[tr], y[tr], X[va], kernel=cw, xi=xi)
    sol = f.solve("CLARABEL", accept_inaccurate=True)
    out[METHODS[6]] = {**_errors(f.predict(sol, Xt), ft, yt), **_recovery(f.selected(sol), 10, RELEVANT),
                       "sigma2": s2, "hyper": xi}

    res = eta_fusion(X[tr], y[tr], X[va], y[va], kernel=cw, eta0=g)
    fe = ComponentwiseEta(X[tr], y[tr], kernel=cw, eta=res.eta)
    comps = fe.component_outputs(res.solution["alpha"])
    sel = selected_components(comps, 1e-4, scale=float(np.linalg.norm(y[tr] - y[tr].mean())))
    Ft = fe.component_outputs(res.solution["alpha"], Xt)
    pred = Ft[:, sel].sum(1) + res.solution.scalar("b")
    out[METHODS[7]] = {**_errors(pred, ft, yt), **_recovery(sel, 10, RELEVANT), "sigma2": s2,
                       "hyper": float(len(res.history) - 1),
                       "als monotone": float(np.all(np.diff(res.objectives) <= 0))}
    return out


def sinc_check(seed: int, *, n_test: int = 100) -> dict:
    """Error scale of the componentwise LS-SVM (10-fold CV) under both sinc definitions, and the
    oracle parametric fit (OLS on the four true terms + intercept, 5 parameters)."""
    row = {}
    for kind in ("normalized", "unnormalized"):
        ds = problems.get_problem("additive10", n_train=100, n_test=n_test, seed=seed, sinc=kind)
        X, y, Xt, ft = ds.X, ds.y, ds.X_test, ds.y_test
        folds = _folds(len(y), seed)
        s = select_gamma_sigma2(X, y, GAMMAS, SIGMA2S_CW, kernel=lambda v: Componentwise(RBF(v)),
                                criterion="kfold", folds=folds)
        f = ComponentwiseLSSVM(X, y, kernel=Componentwise(RBF(s.best_sigma2)), gamma=s.best_gamma)
        row[f"componentwise LS-SVM, {kind}"] = float(np.mean((f.predict(f.solve(), Xt) - ft) ** 2))

        def basis(Z):
            sc = problems.synthetic.sinc_fn(Z[:, 0], kind)
            return np.column_stack([np.ones(len(Z)), sc, (Z[:, 1] - 0.5) ** 2, Z[:, 2], Z[:, 3]])

        coef = np.linalg.lstsq(basis(X), y, rcond=None)[0]
        row[f"oracle OLS (5 params), {kind}"] = float(np.mean((basis(Xt) @ coef - ft) ** 2))
    return row


#: our row -> the paper's row of Table 1 it reproduces (several of ours per STP row)
PAPER_ROW = dict(zip(METHODS, ["LS-SVMs", "componentwise LS-SVMs (7)", "L1 regularization (21)",
                               "STP with RBF (25)", "STP with RBF (25)", "STP with RBF and lin (25)",
                               "Fusion with AReg (30)", "Fusion with comp. reg. (40)",
                               "STP with RBF (25)", "STP with RBF and lin (25)"]))
#: the largest relative deviation from the paper's L2/L1/L∞ that counts as its scale
SCALE_TOL = 0.25


def paper_scale(reps: list[dict]) -> pd.DataFrame:
    """Every row in the paper's error scale (normalized errors against noisy test targets; see
    :func:`_errors`), mean over the repetitions, beside the paper's row and the largest relative
    deviation from it over the three norms."""
    paper = PAPER.set_index("method")
    rows = []
    for m in METHODS:
        pr = paper.loc[PAPER_ROW[m]]
        row: dict = {"method": m, "paper row": PAPER_ROW[m]}
        dev = 0.0
        for key in ("L2", "L1", "Linf"):
            v = np.array([r[m][f"{key} norm"] for r in reps])
            row[f"{key} (ours)"], row[f"{key} (paper)"] = float(v.mean()), float(pr[key])
            dev = max(dev, abs(v.mean() / pr[key] - 1))
        row["L2 std"] = float(np.std([r[m]["L2 norm"] for r in reps], ddof=1)) if len(reps) > 1 else 0.0
        row["largest rel. deviation"] = dev
        rows.append(row)
    return pd.DataFrame(rows)


def _summary(reps: list[dict]) -> pd.DataFrame:
    rows = []
    for m in METHODS:
        vals = [r[m] for r in reps]
        row = {"method": m}
        for key in ("L2", "L1", "Linf"):
            v = np.array([x[key] for x in vals])
            row[f"{key} mean"], row[f"{key} std"] = v.mean(), v.std(ddof=1) if len(v) > 1 else 0.0
        if "component rate" in vals[0]:
            row["% components correct"] = 100 * np.mean([x["component rate"] for x in vals])
            row["% reps perfect"] = 100 * np.mean([x["perfect"] for x in vals])
            row["mean # selected"] = np.mean([x["n selected"] for x in vals])
        else:
            row["% components correct"] = row["% reps perfect"] = row["mean # selected"] = np.nan
        if "inputs perfect" in vals[0]:
            row["% reps right inputs"] = 100 * np.mean([x["inputs perfect"] for x in vals])
        else:
            row["% reps right inputs"] = np.nan
        row["median hyper"] = float(np.median([x["hyper"] for x in vals]))
        rows.append(row)
    return pd.DataFrame(rows)


@register("componentwise_table1", "Componentwise LS-SVM chapter, Table 1 (additive example) and the "
          "sinc definition check", paper="componentwise-lssvm-pelckmans")
def run(ctx: Context) -> BenchResult:
    reps = ctx.reps(full=20, quick=1)
    seeds = [ctx.seed + r for r in range(reps)]
    from functools import partial

    results = ctx.map(partial(one_repetition, quick=ctx.quick), seeds, desc="Table 1 repetitions")
    sincs = ctx.map(sinc_check, seeds, desc="sinc check")
    df = _summary(results)
    res = BenchResult("componentwise_table1", "Componentwise LS-SVMs: Table 1 (additive example)")
    res.tables.append(Table(
        f"Table 1 over {reps} repetitions", df,
        "Test errors against the noise-free function on 100 independent test points (mean and "
        "std over repetitions): L2 = mean squared error, L1 = mean absolute error, Linf = "
        "largest absolute error.  '% components correct': share of candidate components whose "
        "selection status is right (selected iff relevant; for RBF+lin, 'relevant' is the "
        "paper's RBF x1, RBF x2, linear x3, linear x4); '% reps perfect': repetitions with the "
        "exact structure; '% reps right inputs' (mixed): selected inputs exactly x1..x4 "
        "whatever the kernel.  'median hyper' is the CV-selected γ (LS-SVMs), ξ (L1, fusion "
        "AReg), λ (STP) or the number of ALS iterations (η-fusion).",
        paper=PAPER))
    sdf = pd.DataFrame(sincs)
    srow = pd.DataFrame([{"quantity": k, "mean MSE": sdf[k].mean(), "std": sdf[k].std(ddof=1) if reps > 1 else 0.0}
                         for k in sdf.columns])
    res.tables.append(Table(
        "Which sinc? Componentwise LS-SVM test MSE under both definitions", srow,
        "Same seeds and protocol (10-fold CV over (γ, σ²)); 'oracle OLS' fits the four true "
        "terms and an intercept by least squares, the best any method can expect with N = 100 "
        "and unit noise (≈ σ² p/N = 0.05).  The paper's componentwise LS-SVM has L2 = 0.0603."))
    scale = paper_scale(results)
    res.tables.append(Table(
        f"Table 1 in the paper's error scale, every row over {reps} repetitions", scale,
        "Errors against noisy test targets y* = f(x*) + e* (unit noise, the training data's rule) "
        "normalized by the test targets: L2 = mean(r²)/var(y*), L1 = mean|r|/std(y*), L∞ = "
        "max|r|/std(y*) with r = ŷ - y* (mean over repetitions; 'L2 std' over repetitions); "
        "'paper row' is the row of the paper's Table 1 our row reproduces; 'largest rel. "
        "deviation' is max over L2, L1, L∞ of |ours/paper - 1|.  L∞ grows with the number of "
        "test points (100 here; the paper does not give its count).", paper=PAPER))
    # figure: components of the STP (mixed, L1-tangent start) fit of the first repetition
    try:
        ds = problems.get_problem("additive10", n_train=100, n_test=10, seed=seeds[0])
        r0 = results[0][METHODS[5]]
        est = ComponentwiseLSSVMRegressor(kernel=["rbf", "linear"], sigma2=r0["sigma2"], penalty="stp",
                                          lam=r0["hyper"], gnc_start="l1").fit(ds.X, ds.y)
        res.figures["stp_components"] = est.plot_components(feature_names=ds.feature_names)
    except Exception as exc:  # pragma: no cover - the figure is a courtesy
        res.notes += f"\n(figure failed: {exc})"
    by = df.set_index("method")
    paper_rec = {METHODS[2]: 100, METHODS[3]: 100, METHODS[4]: 100, METHODS[5]: 95,
                 METHODS[6]: 100, METHODS[7]: 100, METHODS[8]: 100, METHODS[9]: 95}
    for m, target in paper_rec.items():
        col = "% components correct" if m in (METHODS[5], METHODS[9]) else "% reps perfect"
        res.check(f"{m}: {col} (paper {target}%)", float(by.loc[m, col]), float(target),
                  higher_is_better=True, unit="%")
    res.check(f"{METHODS[9]}: % reps with RBF x1, x2 and linear x3, x4 exactly (issue target 90%)",
              float(by.loc[METHODS[9], "% reps perfect"]), 90.0, higher_is_better=True, unit="%")
    dev = scale.set_index("method")["largest rel. deviation"]
    res.check("Table 1 scale: largest relative deviation from the paper's L2/L1/L∞ of both "
              f"unpenalized rows ({METHODS[0]}, {METHODS[1]}), normalized errors against noisy "
              f"test targets, {reps} repetitions", float(dev.loc[METHODS[:2]].max()), SCALE_TOL,
              unit="")
    n_close = int((dev <= SCALE_TOL).sum())
    res.check(f"rows within {SCALE_TOL:g} (relative) of their paper row's L2, L1 and L∞ in that "
              "scale", n_close, len(dev), higher_is_better=True)
    res.meta["repetitions"] = results
    res.meta["sinc"] = sincs
    sm = srow.set_index("quantity")["mean MSE"]
    res.notes = (
        ("QUICK MODE: 1 repetition, 5-fold CV, two-point grids; not the reproduction.\n\n" if ctx.quick else "")
        + "Protocol.  additive10 (problems), N = 100 training points per repetition (seeds "
        f"{seeds[0]}..{seeds[-1]}), sinc = sin(πx)/(πx), 100 noise-free test points (the paper "
        "does not give the test-set size).  Hyperparameters by 10-fold CV "
        "(paper §5): (γ, σ²) on 13 × 5 grids with the exact k-fold residuals of the closed form; "
        "the sparse methods reuse the componentwise σ² and tune ξ (6 values, cvxpy DPP sweep per "
        "fold) or λ (4 values; a = 3.7); GNC in the CV loop stops at relative stationarity 1e-6, "
        "the final fit at 1e-8.  Fusion rows: 70 training / 30 validation points.  Components "
        "count as selected when ||Ŷ^d||₂ > 1e-4 ||y - ȳ||₂ (eq. 22).  The two 'estimator "
        "defaults' rows call ComponentwiseLSSVMRegressor(penalty='stp') (and with "
        "kernel=['rbf', 'linear']) with nothing else set: the §5 protocol as the estimators "
        "implement it (10-fold CV of σ² and λ on their own grids with the one-standard-error "
        "rule, GNC from least squares with the kernel-dimension start weights, to convergence, "
        "and with RBF and linear candidates the kernel of each selected input by paired exact "
        "leave-one-out, kernel_choice='cv'); "
        "the other STP rows run Algorithm 1 on this benchmark's grids.\n\n"
        "Error scale.  The errors of the first table are MSE against the noise-free test "
        f"function: mean MSE {sm.iloc[0]:.3f} (sin(πx)/(πx)) and {sm.iloc[2]:.3f} (sin(x)/x) for "
        f"the componentwise LS-SVM, the oracle parametric fit with the true four terms "
        f"{sm.iloc[1]:.3f} / {sm.iloc[3]:.3f}.  The paper's scale is another definition, found in "
        "componentwise_defaults ('Which error definition / noise level gives Table 1's scale?', "
        "two rows, three seeds): errors against *noisy* test targets normalized by the test "
        "outputs' variance (L2) and standard deviation (L1, L∞).  The table 'Table 1 in the "
        f"paper's error scale' applies it to every row on all {reps} repetitions: the two "
        f"unpenalized rows deviate from the paper's by at most "
        f"{float(dev.loc[METHODS[:2]].max()):.2f} (relative, over L2, L1, L∞); {n_close} of "
        f"{len(dev)} rows are within {SCALE_TOL:g} of their paper row.\n\n"
        "STP.  Eq. (25) applies ℓ(s) = λ a s/(1 + a s) to s = ||Ŷ^d||_1 (a sum over N points); "
        f"it saturates at s ≈ 1/a = {1 / 3.7:.2f}, far below any component of the least-squares start, "
        "so the literal Algorithm 1 path (LS start) keeps (almost) all components at every λ — "
        "it finds *lower* values of eq. (25) than the alternative, the objective itself prefers "
        "many components because the truncated component spaces carry no smoothness penalty.  "
        "Starting the deformation from the penalty's convex tangent at zero (L1 with slope λa) "
        "keeps zeros at zero and does the selection.  Both rows are reported.\n\n"
        "Fusion (30) uses the validation inputs only (Y^(v) does not appear in it, as printed); "
        "η-fusion optimizes eq. (38) by alternating least squares (eq. 40 as printed scores "
        "another model's validation error, see lssvm_cvx.formulations.componentwise_eta).")
    return res
