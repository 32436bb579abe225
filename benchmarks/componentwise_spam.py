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
LAMS = np.array([0.25, 0.5, 1.0, 2.0])
GNC_PATH = dict(start="l1", max_inner=10, max_final=100, tol_stationarity=1e-5)
SIGMA2 = 4.0
RANK_TOL = 1e-6


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

    # 2. λ path of STP on 80 % of the training data, scored on the other 20 %
    t0 = time.perf_counter()
    rng = np.random.default_rng(ctx.seed + 1)
    perm = rng.permutation(n)
    va, sub = np.sort(perm[: n // 5]), np.sort(perm[n // 5:])
    cw = Componentwise(RBF(s2))
    p = ComponentwiseSTP(Xtr[sub], ytr[sub], kernel=cw, lam=LAMS[0], rank_tol=RANK_TOL)
    basis = p.basis
    timings["component basis (80 %)"] = time.perf_counter() - t0
    lams = LAMS[[1, 2]] if ctx.quick else LAMS
    rows = []
    for lam in lams:
        t0 = time.perf_counter()
        p.lam = float(lam)
        res = gnc(p, **GNC_PATH)
        E = basis.features(Xtr[va])
        Fv = np.column_stack([Ed @ zd for Ed, zd in zip(E, basis.blocks(res.solution["z"]))])
        dec = Fv[:, res.selected].sum(1) + res.solution.scalar("b")
        rows.append({"lambda": lam, "selected": len(res.selected),
                     "validation accuracy": float(np.mean(np.sign(dec) == ytr[va])),
                     "GNC steps": len(res.history), "converged": res.converged,
                     "indicators": ", ".join(names[d] for d in res.selected),
                     "time [s]": time.perf_counter() - t0})
    path = pd.DataFrame(rows)
    best = path.loc[path["validation accuracy"].idxmax()]
    lam = float(best["lambda"])

    # 3. final model on all training data at the chosen λ (the estimator, GNC from L1 tangent)
    t0 = time.perf_counter()
    opts = {k: v for k, v in GNC_PATH.items() if k != "start"}
    est = ComponentwiseLSSVMClassifier(sigma2=s2, penalty="stp", lam=lam, gnc_start="l1",
                                       rank_tol=RANK_TOL, gnc_options=opts).fit(Xtr, ytr)
    timings["final STP fit"] = time.perf_counter() - t0
    acc = float(est.score(Xte, yte))
    sel = est.selected_components_
    res_ = BenchResult("componentwise_spam", "Componentwise LS-SVM classifier with structure detection: spambase")
    summary = pd.DataFrame([
        {"model": "componentwise LS-SVM (16), all 57 components", "sigma2": s2, "gamma / lambda": g,
         "selected": full.n_components_, "test accuracy": acc_full, "indicators": "all"},
        {"model": "STP (25) by GNC (L1-tangent start), λ by validation", "sigma2": s2,
         "gamma / lambda": lam, "selected": len(sel), "test accuracy": acc,
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
                             "training data (path below), final model refitted on all training data.",
                             paper=paper))
    res_.tables.append(Table("STP λ path (80 % / 20 % of the training data)", path,
                             "Number of selected components and validation accuracy along λ."))
    res_.figures["selected_components"] = est.plot_components(feature_names=list(names))
    res_.check("STP: number of selected indicators (paper: 6)", float(len(sel)), 6.0)
    res_.check("STP test accuracy minus componentwise LS-SVM with all components", acc - acc_full,
               -0.03, higher_is_better=True)
    res_.meta.update({"timings_s": timings, "selected": sel.tolist(),
                      "selected_names": [names[d] for d in sel], "cv": s.to_dict(),
                      "basis": {"R": basis.R, "ranks": basis.ranks, "coupling_k": int(basis.Z.shape[1])}})
    res_.notes = (
        ("QUICK MODE: 600 training messages, one σ², two λ values.\n\n" if ctx.quick else "")
        + "Reduced protocol (machine time): σ² is fixed at 4 (a CV over σ² ∈ {1, 4, 16} costs one "
        "3065² eigendecomposition per value), the component Grams are truncated at 1e-6 "
        "(R ≈ 700 coordinates instead of ≈ 950 at 1e-10), and GNC runs at most 10 steps per "
        "intermediate stage and 100 in the last (relative stationarity 1e-5).  "
        "Classification uses the regression formulations on the ±1 labels (the LS-SVM "
        "classifier (16) is the regression system on ±1 targets after α̃ = y∘α, and the same "
        "substitution maps eq. 20/25 for the classifier onto the regression ones).  The paper "
        "counts 56 indicators; the data have 57 (48 word, 6 character frequencies, 3 capital-run "
        "statistics) and we keep all 57.  The paper's indices (5, 7, 25, 52, 53, 56) refer to "
        "its own, unlisted, column order, so the names cannot be matched.  The STP is run from "
        "the penalty's L1 tangent (the literal least-squares start keeps every component, see "
        "the Table 1 benchmark).  Timings (s): "
        + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()) + ".")
    return res_
