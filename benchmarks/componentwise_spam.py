"""Componentwise LS-SVM chapter, §5.3: structure detection on the UCI spam data.

4601 messages, 57 word/character frequency inputs; inputs log(1 + x), standardized to unit
variance; a random 1536 test / 3065 training split.  A componentwise LS-SVM classifier with the
smoothly thresholding penalty (§3.3, eq. 25) by weighted GNC; the paper reports 6 of its 56
indicators selected and plots them (Figure 7); it gives no accuracy."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import problems
from lssvm_cvx import ComponentwiseLSSVMClassifier
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.formulations.componentwise_gnc import ComponentwiseSTP
from lssvm_cvx.selection.gnc import gnc
from lssvm_cvx.kernels import RBF, Componentwise
from lssvm_cvx.model_selection import select_gamma_sigma2

GAMMAS = np.logspace(-3, 3, 13)
#: λ grid of the STP path relative to ||y - ȳ||² (most regularized first), the scale of the
#: estimators' default grid (a selected component costs ≈ λ/2 against ½||e||²)
LAMS = np.array([2.0, 1.0, 0.5, 0.3, 0.1])
#: GNC as in Algorithm 1 (least-squares start, the estimators' default); the last stage runs
#: to relative stationarity 1e-5
GNC_PATH = dict(start="l2", max_inner=30, max_final=1500, tol_stationarity=1e-5)
SIGMA2 = 4.0
RANK_TOL = 1e-6


def refit_accuracy(Xa, ya, Xb, yb, sel, s2, g) -> float:
    """Accuracy on ``(Xb, yb)`` of the componentwise LS-SVM classifier (eq. 16) refitted on the
    selected columns only (the relaxed / refitted estimate after selection)."""
    if len(sel) == 0:
        return float(np.mean(yb == (1.0 if np.mean(ya) >= 0 else -1.0)))
    m = ComponentwiseLSSVMClassifier(sigma2=s2, gamma=g).fit(Xa[:, sel], ya)
    return float(m.score(Xb[:, sel], yb))


def spam_data(seed: int = 0):
    """log(1+x), standardized with the training statistics; 3065 / 1536 seeded split."""
    ds = problems.get_problem("spambase")
    tr, te = problems.random_split(len(ds.y), [None, 1536], seed=seed)
    X = np.log1p(ds.X)
    mu, sd = X[tr].mean(0), X[tr].std(0)
    X = (X - mu) / sd
    y = np.where(ds.y == 1, 1.0, -1.0)
    return X[tr], y[tr], X[te], y[te], ds.feature_names


@register("componentwise_spam", "Componentwise LS-SVM chapter §5.3: structure detection on spambase",
          paper="componentwise-lssvm-pelckmans")
def run(ctx: Context) -> BenchResult:
    Xtr, ytr, Xte, yte, names = spam_data(ctx.seed)
    if ctx.quick:                                   # a subsample: the full run takes ~30 min
        keep = np.random.default_rng(ctx.seed).choice(len(ytr), 600, replace=False)
        Xtr, ytr = Xtr[keep], ytr[keep]
    n = len(ytr)
    timings = {}
    # 1. σ² and γ of the componentwise LS-SVM classifier by exact 10-fold CV (misclassification)
    t0 = time.perf_counter()
    folds = problems.kfold_indices(n, 10, ctx.seed)
    sig = np.array([SIGMA2])
    s = select_gamma_sigma2(Xtr, ytr, GAMMAS, sig, kernel=lambda v: Componentwise(RBF(v)),
                            criterion="kfold", folds=folds, score="misclassification")
    s2, g = s.best_sigma2, s.best_gamma
    timings["CV of the componentwise LS-SVM"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    full = ComponentwiseLSSVMClassifier(sigma2=s2, gamma=g).fit(Xtr, ytr)
    acc_full = float(full.score(Xte, yte))
    timings["componentwise LS-SVM fit"] = time.perf_counter() - t0

    # 2. λ path of STP on 80 % of the training data, scored on the other 20 %: the STP model
    #    itself (eq. 22) and the componentwise LS-SVM refitted on its selected columns
    t0 = time.perf_counter()
    rng = np.random.default_rng(ctx.seed + 1)
    perm = rng.permutation(n)
    va, sub = np.sort(perm[: n // 5]), np.sort(perm[n // 5:])
    cw = Componentwise(RBF(s2))
    ss_sub = float(np.sum((ytr[sub] - ytr[sub].mean()) ** 2))
    p = ComponentwiseSTP(Xtr[sub], ytr[sub], kernel=cw, lam=LAMS[0] * ss_sub, rank_tol=RANK_TOL)
    basis = p.basis
    timings["component basis (80 %)"] = time.perf_counter() - t0
    acc_full_va = refit_accuracy(Xtr[sub], ytr[sub], Xtr[va], ytr[va], np.arange(Xtr.shape[1]), s2, g)
    lams = LAMS[[1, 3]] if ctx.quick else LAMS
    rows = []
    for lam in lams:
        t0 = time.perf_counter()
        p.lam = float(lam) * ss_sub
        res = gnc(p, **GNC_PATH)
        E = basis.features(Xtr[va])
        Fv = np.column_stack([Ed @ zd for Ed, zd in zip(E, basis.blocks(res.solution["z"]))])
        dec = Fv[:, res.selected].sum(1) + res.solution.scalar("b")
        rows.append({"lambda / ||y - ȳ||²": lam, "selected": len(res.selected),
                     "validation accuracy (STP, eq. 22)": float(np.mean(np.sign(dec) == ytr[va])),
                     "validation accuracy (refit on selected)": refit_accuracy(
                         Xtr[sub], ytr[sub], Xtr[va], ytr[va], res.selected, s2, g),
                     "GNC steps": len(res.history), "converged": res.converged,
                     "indicators": ", ".join(names[d] for d in res.selected),
                     "time [s]": time.perf_counter() - t0})
    path = pd.DataFrame(rows)
    # one-standard-error rule on the refitted validation accuracy: the most regularized λ whose
    # accuracy is within one binomial standard error of the best (all components included)
    accs = path["validation accuracy (refit on selected)"].to_numpy()
    top = max(float(accs.max()), acc_full_va)
    se = float(np.sqrt(top * (1 - top) / len(va)))
    ok = np.flatnonzero(accs >= top - se)
    col = "lambda / ||y - ȳ||²"
    lam_rel = float(path[col].iloc[ok[0]] if ok.size else path[col].iloc[int(np.argmax(accs))])
    lam = lam_rel * float(np.sum((ytr - ytr.mean()) ** 2))

    # 3. final model on all training data at the chosen λ (the estimator, GNC from L1 tangent),
    #    then the componentwise LS-SVM refitted on the selected columns
    t0 = time.perf_counter()
    opts = {k: v for k, v in GNC_PATH.items() if k != "start"}
    est = ComponentwiseLSSVMClassifier(sigma2=s2, penalty="stp", lam=lam, gnc_start=GNC_PATH["start"],
                                       rank_tol=RANK_TOL, gnc_options=opts).fit(Xtr, ytr)
    timings["final STP fit"] = time.perf_counter() - t0
    acc_stp = float(est.score(Xte, yte))
    sel = est.selected_components_
    acc = refit_accuracy(Xtr, ytr, Xte, yte, sel, s2, g)
    res_ = BenchResult("componentwise_spam", "Componentwise LS-SVM classifier with structure detection: spambase")
    summary = pd.DataFrame([
        {"model": "componentwise LS-SVM (16), all 57 components", "sigma2": s2, "gamma / lambda": g,
         "selected": full.n_components_, "test accuracy": acc_full, "GNC converged": "–",
         "indicators": "all"},
        {"model": "STP (25) by GNC (Algorithm 1, least-squares start), λ by validation (one-SE), eq. (22)",
         "sigma2": s2, "gamma / lambda": lam, "selected": len(sel), "test accuracy": acc_stp,
         "GNC converged": "yes" if est.converged_ else "no",
         "indicators": ", ".join(names[d] for d in sel)},
        {"model": "componentwise LS-SVM (16) refitted on the STP-selected indicators",
         "sigma2": s2, "gamma / lambda": g, "selected": len(sel), "test accuracy": acc,
         "GNC converged": "yes" if est.converged_ else "no",
         "indicators": ", ".join(names[d] for d in sel)},
    ])
    paper = pd.DataFrame([{"model": "structure detection (§3.3)", "selected": "6 of 56",
                           "test accuracy": "not reported",
                           "indicators": "f5, f7, f25, f52, f53, f56 (Figure 7; names not given)"}])
    res_.tables.append(Table("Spam: selected indicators and test accuracy", summary,
                             f"Training {n} / test {len(yte)} messages (seed {ctx.seed}); σ² = {SIGMA2} "
                             "fixed (see notes), γ by exact 10-fold CV of the componentwise LS-SVM "
                             "classifier (misclassification); component Grams truncated at "
                             f"rank_tol = {RANK_TOL}; "
                             "λ of the STP (a = 3.7) chosen on a 20 % validation split of the "
                             "training data (path below; the most regularized λ whose refitted "
                             "accuracy is within one binomial standard error of the best, "
                             f"{se:.4f}), final model refitted on all training data.",
                             paper=paper))
    res_.tables.append(Table("STP λ path (80 % / 20 % of the training data)", path,
                             "Number of selected components and validation accuracy along λ; "
                             "the componentwise LS-SVM with all 57 components has validation "
                             f"accuracy {acc_full_va:.4f} on the same split."))
    res_.figures["selected_components"] = est.plot_components(feature_names=list(names))
    res_.check("STP: number of selected indicators (target 10, paper 6)", float(len(sel)), 10.0)
    res_.check("Refit on the STP-selected indicators: test accuracy minus all components",
               acc - acc_full, -0.01, higher_is_better=True)
    res_.check("STP final fit: GNC converged (1 = yes)", float(est.converged_), 1.0,
               higher_is_better=True)
    res_.meta.update({"lambda_se": se, "validation_accuracy_all": acc_full_va,
                      "test_accuracy_stp_eq22": acc_stp, "converged": bool(est.converged_),
                      "timings_s": timings, "selected": sel.tolist(),
                      "selected_names": [names[d] for d in sel], "cv": s.to_dict(),
                      "basis": {"R": basis.R, "ranks": basis.ranks, "coupling_k": int(basis.Z.shape[1])}})
    res_.notes = (
        ("QUICK MODE: 600 training messages, one σ², two λ values.\n\n" if ctx.quick else "")
        + f"Reduced protocol (machine time): σ² is fixed at {SIGMA2:g} (a CV over σ² costs one "
        f"{n}² eigendecomposition per value), the component Grams are truncated at {RANK_TOL:g} "
        f"(R = {basis.R} coordinates on the 80 % split), and GNC runs at most "
        f"{GNC_PATH['max_inner']} steps per intermediate stage and {GNC_PATH['max_final']} in the "
        f"last (relative stationarity {GNC_PATH['tol_stationarity']:g}).  "
        "The paper predicts with the STP's own components (eq. 22); the STP outputs are shrunk "
        "toward zero on the ±1 targets, so we also report the componentwise LS-SVM (eq. 16) "
        "refitted on the selected indicators (the refitted / relaxed estimate after selection, "
        "Meinshausen 2007), with the σ² and γ of the all-components model; λ is chosen with that "
        "refit.  "
        "Classification uses the regression formulations on the ±1 labels (the LS-SVM "
        "classifier (16) is the regression system on ±1 targets after α̃ = y∘α, and the same "
        "substitution maps eq. 20/25 for the classifier onto the regression ones).  The paper "
        "counts 56 indicators; the data have 57 (48 word, 6 character frequencies, 3 capital-run "
        "statistics) and we keep all 57.  The paper's indices (5, 7, 25, 52, 53, 56) refer to "
        "its own, unlisted, column order, so the names cannot be matched.  GNC starts from least "
        "squares (Algorithm 1 as printed) with λ on the scale of ||y - ȳ||² (the regression "
        "estimators' default grid); the final λ is the chosen λ/||y - ȳ||² times the full "
        f"training set's ||y - ȳ||² ({lam:.4g}).  Timings (s): "
        + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()) + ".")
    return res_
