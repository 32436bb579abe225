"""Componentwise LS-SVM chapter, §5.3: structure detection on the UCI spam data.

4601 messages, 57 word/character frequency inputs; inputs log(1 + x), standardized to unit
variance; a random 1536 test / 3065 training split.  A componentwise LS-SVM classifier with the
smoothly thresholding penalty (§3.3, eq. 25) by weighted GNC; the paper reports 6 of its 56
indicators selected and plots them (Figure 7); it gives no accuracy.  The detection runs on
several random splits with (σ², γ) tuned by 10-fold CV on each; a sparsity experiment (forward
stepwise selection) measures what any additive model with k indicators loses."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import problems
from lssvm_cvx import ComponentwiseLSSVMClassifier
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.formulations.componentwise_basis import ComponentBasis
from lssvm_cvx.formulations.componentwise_gnc import ComponentwiseSTP
from lssvm_cvx.selection.gnc import gnc
from lssvm_cvx.kernels import RBF, Componentwise
from lssvm_cvx.model_selection import select_gamma_sigma2

GAMMAS = np.logspace(-3, 3, 13)
#: λ grid of the STP path relative to ||y - ȳ||² (most regularized first), the scale of the
#: estimators' default grid (a selected component costs ≈ λ/2 against ½||e||²)
LAMS = np.array([2.0, 1.5, 1.0, 0.8, 0.65, 0.5, 0.3, 0.1])
#: GNC as in Algorithm 1 (least-squares start, the estimators' default); the last stage runs
#: to relative stationarity 1e-5
GNC_PATH = dict(start="l2", max_inner=30, max_final=1500, tol_stationarity=1e-5)
#: σ² of the sparsity experiment (the value earlier runs fixed for every fit)
SIGMA2 = 4.0
#: σ² grid of the structure detection, tuned with γ by exact 10-fold CV on every split
SIGMA2S = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
#: splits of the structure detection (seeds ctx.seed, ctx.seed + 1, ...; the first is the one
#: whose λ path and figure are shown)
DETECTION_SPLITS = 5
#: the paper's count of selected indicators (§5.3, Figure 7)
PAPER_K = 6
RANK_TOL = 1e-6
#: the sparsity experiment: number of splits (seeds ctx.seed, ctx.seed + 1, ...; the first is
#: the tables' split) and model sizes reported
STEPWISE_SPLITS = 5
STEPWISE_K = (6, 8, 10, 12, 14, 16)
#: the issue's target: at most this many indicators within this accuracy of all components
TARGET_K, TARGET_GAP = 10, 0.01
#: share of the training data held out to choose the STP's λ
VALIDATION = 0.2
#: the path's test column: reported to compare with the sparsity experiment, never used to choose
TEST_COL = "test accuracy (refit on selected, all training data; reported, not used)"


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


def primal_features(Xtr, Xte, s2: float, rank_tol: float = RANK_TOL
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per-indicator features ``Φ_d = V_d Λ_d^{1/2}`` of the truncated component Grams
    (``Ω^d ≈ Φ_dΦ_d'``, :class:`ComponentBasis`) on the training and the test inputs: the
    componentwise LS-SVM on a set ``S`` of indicators is ridge regression on ``[Φ_d]_{d∈S}``."""
    basis = ComponentBasis.build(Xtr, [(RBF(s2), (d,)) for d in range(Xtr.shape[1])],
                                 rank_tol=rank_tol)
    return basis_features(basis), basis_features(basis, Xte)


def basis_features(basis: ComponentBasis, X_new=None) -> list[np.ndarray]:
    """``Φ_d = V_d Λ_d^{1/2}`` of every component (:meth:`ComponentBasis.factors`)."""
    return basis.factors(X_new)


def ridge_decisions(A, y, At, gammas) -> np.ndarray:
    """Decision values on ``At`` (one row per γ) of the LS-SVM in the primal: ``min ½||w||² +
    γ/2 Σ e_i²`` with ``y_i = w'a_i + b + e_i`` (eq. 16 with the kernel ``AA'``), for every γ
    from one eigendecomposition of the centred ``A'A``."""
    mu, ym = A.mean(0), float(y.mean())
    Ac = A - mu
    ev, U = np.linalg.eigh(Ac.T @ Ac)
    r, Bt = U.T @ (Ac.T @ (y - ym)), (At - mu) @ U
    return np.stack([Bt @ (r / (ev + 1.0 / g)) + ym for g in gammas])


def kfold_ridge(A, y, folds, gammas, score) -> np.ndarray:
    """k-fold CV of :func:`ridge_decisions`: ``score(decisions, y_fold)`` (per held-out point)
    summed over each fold, shape ``(len(folds), len(gammas))``."""
    n = len(y)
    out = np.zeros((len(folds), len(gammas)))
    for i, f in enumerate(folds):
        tr = np.ones(n, bool)
        tr[f] = False
        out[i] = np.sum(score(ridge_decisions(A[tr], y[tr], A[f], gammas), y[f]), axis=1)
    return out


def forward_stepwise(F, y, score, kmax: int) -> list[tuple[list[int], float, int]]:
    """Greedy forward selection of indicators: at each size add the indicator whose set has the
    best ``score(S)`` (an accuracy per γ); returns ``(S, best accuracy, index of its γ)`` for
    sizes 1..kmax."""
    S: list[int] = []
    out = []
    for _ in range(kmax):
        acc = {d: score(S + [d]) for d in range(len(F)) if d not in S}
        d = max(acc, key=lambda j: acc[j].max())
        S.append(d)
        out.append((list(S), float(acc[d].max()), int(np.argmax(acc[d]))))
    return out


def sparsity_experiment(seed: int, kmax: int) -> dict:
    """How much accuracy an additive model loses with ``k`` indicators, on one split: forward
    stepwise selection scored by 10-fold CV on the training data (γ re-tuned for every set;
    no test data), and the same selection scored on the test set (an optimistic bound: the best
    a ``k``-indicator set found this way can do on this test set)."""
    Xtr, ytr, Xte, yte, _ = spam_data(seed)
    F, Ft = primal_features(Xtr, Xte, SIGMA2)
    n = len(ytr)
    folds = problems.kfold_indices(n, 10, seed)
    stack = lambda Fs, S: np.hstack([Fs[d] for d in S])      # noqa: E731

    def cv(S):
        hits = kfold_ridge(stack(F, S), ytr, folds, GAMMAS, lambda d, t: np.sign(d) == t)
        return hits.sum(0) / n

    def test(S):
        return np.mean(np.sign(ridge_decisions(stack(F, S), ytr, stack(Ft, S), GAMMAS)) == yte, axis=1)

    P = len(F)
    cv_all = cv(range(P))
    g_all = int(np.argmax(cv_all))
    test_all = float(test(range(P))[g_all])
    blind = forward_stepwise(F, ytr, cv, kmax)
    oracle = forward_stepwise(F, ytr, test, kmax)
    return {"seed": seed, "cv_all": float(cv_all[g_all]), "test_all": test_all,
            "blind": [{"k": len(S), "set": S, "cv": a, "test": float(test(S)[gi])} for S, a, gi in blind],
            "oracle": [{"k": len(S), "set": S, "test": a} for S, a, _ in oracle]}


def sparsity_note(blind, blind_cv, oracle, k_ok, k_stp_ok, stp_test_gap, n_sel) -> str:
    """The conclusion of the sparsity experiment, worded from its numbers (the issue's target:
    at most ``TARGET_K`` indicators within ``TARGET_GAP`` of the all-components accuracy)."""
    pts = lambda a: f"{-100 * float(np.mean(a)):.1f}"            # noqa: E731
    reach = f"first within 1 point at k = {k_ok[0]}" if k_ok else "never within 1 point up to the largest k tried"
    stp = (f"on the validation split the STP path is within 1 point of all components only with "
           f"{min(k_stp_ok)} or more indicators" if k_stp_ok else
           "no STP λ on the path is within 1 point of all components on the validation split")
    if stp_test_gap is not None:
        stp += (f", and on the test set its refits with at most {TARGET_K} indicators are at best "
                f"{-100 * stp_test_gap:.1f} points below")
    return (f"Sparsity against accuracy (the issue's target: at most {TARGET_K} indicators within "
            f"{100 * TARGET_GAP:g} point of all components).  With {TARGET_K} indicators chosen "
            f"without test data (forward stepwise by training CV), the test accuracy is "
            f"{pts(blind)} points below all components on average, and the training CV itself "
            f"puts it {pts(blind_cv)} points below; the test-blind stepwise sets are {reach}.  "
            f"Only when the test set chooses the indicators (optimistic) does a {TARGET_K}-indicator "
            f"set come to {pts(oracle)} points below.  The STP selection above keeps {n_sel}; "
            f"{stp}.  "
            + (f"So on these splits both the training data's own estimate and the test sets put "
               f"the cost of {TARGET_K} indicators above 1 point under an additive RBF model at this "
               "σ²: a selection that does not see the test data does not reach the target (the "
               "stepwise search is greedy, so this is evidence, not a proof); the λ of the final "
               "model is chosen for accuracy (one-SE rule), not for a count."
               if max(float(np.mean(blind)), float(np.mean(blind_cv))) < -TARGET_GAP else
               f"So the training CV and the test sets do not both put the cost of {TARGET_K} "
               "indicators above 1 point: the STP's larger selection is a limit of its λ choice "
               "or of GNC."))


def structure_detection(seed: int, quick: bool = False) -> dict:
    """The §5.3 pipeline on the split of ``seed``: (σ², γ) of the componentwise LS-SVM classifier
    by exact 10-fold CV (misclassification) over :data:`SIGMA2S`, the STP λ path on 80 % of the
    training data scored on the other 20 % (one-SE rule on the refitted accuracy), the final STP
    fit on all training data and the refit on its selected indicators; test accuracies of all
    three models.  ``quick``: 600 training messages, two σ², two λ."""
    Xtr, ytr, Xte, yte, names = spam_data(seed)
    if quick:
        keep = np.random.default_rng(seed).choice(len(ytr), 600, replace=False)
        Xtr, ytr = Xtr[keep], ytr[keep]
    n = len(ytr)
    timings = {}
    # 1. σ² and γ of the componentwise LS-SVM classifier by exact 10-fold CV (misclassification)
    t0 = time.perf_counter()
    folds = problems.kfold_indices(n, 10, seed)
    sig = SIGMA2S[[1, 2]] if quick else SIGMA2S
    s = select_gamma_sigma2(Xtr, ytr, GAMMAS, sig, kernel=lambda v: Componentwise(RBF(v)),
                            criterion="kfold", folds=folds, score="misclassification")
    s2, g = s.best_sigma2, s.best_gamma
    timings["CV of the componentwise LS-SVM"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    full = ComponentwiseLSSVMClassifier(sigma2=s2, gamma=g).fit(Xtr, ytr)
    acc_full = float(full.score(Xte, yte))
    timings["componentwise LS-SVM fit"] = time.perf_counter() - t0

    # 2. λ path of STP on part of the training data, scored on the held-out VALIDATION share: the
    #    STP model itself (eq. 22) and the componentwise LS-SVM refitted on its selected columns
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed + 1)
    perm = rng.permutation(n)
    nva = round(n * VALIDATION)
    va, sub = np.sort(perm[:nva]), np.sort(perm[nva:])
    cw = Componentwise(RBF(s2))
    ss_sub = float(np.sum((ytr[sub] - ytr[sub].mean()) ** 2))
    p = ComponentwiseSTP(Xtr[sub], ytr[sub], kernel=cw, lam=LAMS[0] * ss_sub, rank_tol=RANK_TOL)
    basis = p.basis
    timings["component basis (λ path)"] = time.perf_counter() - t0
    acc_full_va = refit_accuracy(Xtr[sub], ytr[sub], Xtr[va], ytr[va], np.arange(Xtr.shape[1]), s2, g)
    lams = LAMS[[2, 6]] if quick else LAMS
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
                     TEST_COL: refit_accuracy(Xtr, ytr, Xte, yte, res.selected, s2, g),
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

    # 3. final model on all training data at the chosen λ (the estimator, GNC as on the path),
    #    then the componentwise LS-SVM refitted on the selected columns
    t0 = time.perf_counter()
    opts = {k: v for k, v in GNC_PATH.items() if k != "start"}
    est = ComponentwiseLSSVMClassifier(sigma2=s2, penalty="stp", lam=lam, gnc_start=GNC_PATH["start"],
                                       rank_tol=RANK_TOL, gnc_options=opts).fit(Xtr, ytr)
    timings["final STP fit"] = time.perf_counter() - t0
    sel = est.selected_components_
    return {"seed": seed, "n": n, "n_test": len(yte), "names": names, "cv": s, "sigma2": s2,
            "sigma2s": [float(v) for v in sig],
            "gamma": g, "acc_full": acc_full, "n_components": full.n_components_, "path": path,
            "acc_full_va": acc_full_va, "se": se, "lam_rel": lam_rel, "lam": lam, "est": est,
            "sel": sel, "acc_stp": float(est.score(Xte, yte)),
            "acc_refit": refit_accuracy(Xtr, ytr, Xte, yte, sel, s2, g), "basis": basis,
            "timings": timings}


@register("componentwise_spam", "Componentwise LS-SVM chapter §5.3: structure detection on spambase",
          paper="componentwise-lssvm-pelckmans")
def run(ctx: Context) -> BenchResult:
    seeds_d = [ctx.seed + i for i in range(1 if ctx.quick else DETECTION_SPLITS)]
    t0 = time.perf_counter()
    det = [structure_detection(sd, ctx.quick) for sd in seeds_d]
    d0 = det[0]
    names, s, s2, g, n = d0["names"], d0["cv"], d0["sigma2"], d0["gamma"], d0["n"]
    path, se, acc_full_va, lam, est, sel = (d0["path"], d0["se"], d0["acc_full_va"], d0["lam"],
                                            d0["est"], d0["sel"])
    acc_full, acc_stp, acc, basis = d0["acc_full"], d0["acc_stp"], d0["acc_refit"], d0["basis"]
    rows = path.to_dict("records")
    timings = {f"{k} (split {seeds_d[0]})": v for k, v in d0["timings"].items()}
    timings["structure detection, all splits"] = time.perf_counter() - t0
    res_ = BenchResult("componentwise_spam", "Componentwise LS-SVM classifier with structure detection: spambase")
    summary = pd.DataFrame([
        {"model": "componentwise LS-SVM (16), all 57 components", "sigma2": s2, "gamma / lambda": g,
         "selected": d0["n_components"], "test accuracy": acc_full, "GNC converged": "–",
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
                             f"Training {n} / test {d0['n_test']} messages (split of seed {seeds_d[0]}; "
                             f"the other splits in the next table); (σ², γ) by exact 10-fold CV of "
                             "the componentwise LS-SVM classifier (misclassification) over σ² ∈ "
                             f"{{{', '.join(f'{v:g}' for v in d0['sigma2s'])}}}; component Grams truncated at "
                             f"rank_tol = {RANK_TOL}; "
                             f"λ of the STP (a = 3.7) chosen on a {100 * VALIDATION:g} % validation split of the "
                             "training data (path below; the most regularized λ whose refitted "
                             "accuracy is within one binomial standard error of the best, "
                             f"{se:.4f}), final model refitted on all training data.",
                             paper=paper))
    res_.tables.append(Table(f"STP λ path ({100 * (1 - VALIDATION):g} % / {100 * VALIDATION:g} % of the training data)", path,
                             "Number of selected components and validation accuracy along λ; "
                             "the componentwise LS-SVM with all 57 components has validation "
                             f"accuracy {acc_full_va:.4f} on the same split."))
    res_.figures["selected_components"] = est.plot_components(feature_names=list(names))
    counts = np.array([len(d["sel"]) for d in det], dtype=float)
    gaps = np.array([d["acc_refit"] - d["acc_full"] for d in det])
    res_.tables.append(Table(
        f"STP structure detection on {len(det)} splits, σ² tuned on each", pd.DataFrame([{
            "split seed": d["seed"], "sigma2": d["sigma2"], "gamma": d["gamma"],
            "lambda / ||y - ȳ||²": d["lam_rel"], "selected": len(d["sel"]),
            "test accuracy, all components": d["acc_full"], "test accuracy, STP (eq. 22)": d["acc_stp"],
            "test accuracy, refit on selected": d["acc_refit"],
            "GNC converged": "yes" if d["est"].converged_ else "no",
            "indicators": ", ".join(d["names"][j] for j in d["sel"])} for d in det]),
        "The pipeline of the first table on every split (random 3065 / 1536 splits of the 4601 "
        "messages, seeds as listed): (σ², γ) by exact 10-fold CV on the training part, λ on its "
        f"80 % / 20 % split by the one-SE rule, final STP fit on all of it.  Selected indicators: "
        f"median {np.median(counts):g}, range {counts.min():g}–{counts.max():g}; refit minus all "
        f"components: mean {100 * gaps.mean():+.2f} points (the paper: {PAPER_K} indicators, no "
        "accuracy reported)."))

    # 4. the sparsity experiment: what any additive model with k indicators loses
    t0 = time.perf_counter()
    seeds = [ctx.seed + i for i in range(1 if ctx.quick else STEPWISE_SPLITS)]
    kmax = TARGET_K if ctx.quick else max(STEPWISE_K)
    runs = [sparsity_experiment(sd, kmax) for sd in seeds]
    timings["sparsity experiment"] = time.perf_counter() - t0
    ks = [k for k in STEPWISE_K if k <= kmax]
    blind = np.array([[r["blind"][k - 1]["test"] - r["test_all"] for k in ks] for r in runs])
    blind_cv = np.array([[r["blind"][k - 1]["cv"] - r["cv_all"] for k in ks] for r in runs])
    oracle = np.array([[r["oracle"][k - 1]["test"] - r["test_all"] for k in ks] for r in runs])
    ms = lambda a: f"{100 * a.mean():+.2f} ({100 * a.std(ddof=1) if len(a) > 1 else 0:.2f})"  # noqa: E731
    sparsity = pd.DataFrame([{
        "indicators k": k,
        "training 10-fold CV accuracy minus all components [points] (test-blind)": ms(blind_cv[:, j]),
        "test accuracy minus all components [points], set chosen by training CV": ms(blind[:, j]),
        "splits within 1 point (set chosen by training CV)": f"{int(np.sum(blind[:, j] >= -TARGET_GAP))} of {len(runs)}",
        "test accuracy minus all components [points], set chosen on the test set (optimistic bound)": ms(oracle[:, j]),
    } for j, k in enumerate(ks)])
    res_.tables.append(Table(
        "How many indicators does an additive model need? (forward stepwise selection)", sparsity,
        f"Mean (sd) over {len(runs)} random 3065 / 1536 splits (seeds {', '.join(map(str, seeds))}; "
        f"seed {seeds[0]} is the split of the tables above) of the componentwise LS-SVM (16) "
        f"with σ² = {SIGMA2:g} on the k indicators chosen by greedy forward selection, γ re-tuned "
        "by 10-fold CV for every candidate set, minus the same model on all 57 indicators "
        "(γ by the same CV).  Chosen by training CV: each step adds the indicator with the best "
        "10-fold CV accuracy on the training data (no test data).  Chosen on the test set: each "
        "step adds the indicator with the best test accuracy (not a method: an optimistic bound "
        "on what a k-indicator set of this search can reach on that test set)."))
    j10 = ks.index(TARGET_K)
    res_.check(f"Forward stepwise by training CV, {TARGET_K} indicators: test accuracy minus all "
               f"components (mean over {len(runs)} splits)", float(blind[:, j10].mean()),
               -TARGET_GAP, higher_is_better=True)
    res_.check(f"Forward stepwise by training CV, {TARGET_K} indicators: training 10-fold CV accuracy "
               f"minus all components (mean over {len(runs)} splits; no test data)",
               float(blind_cv[:, j10].mean()), -TARGET_GAP, higher_is_better=True)
    k_ok = [k for j, k in enumerate(ks) if blind[:, j].mean() >= -TARGET_GAP]
    small = [r[TEST_COL] - acc_full for r in rows if r["selected"] <= TARGET_K]
    k_stp_ok = [int(r["selected"]) for r in rows
                if r["validation accuracy (refit on selected)"] >= acc_full_va - TARGET_GAP]
    res_.check(f"STP: median number of selected indicators over {len(det)} splits, σ² tuned (the "
               f"paper: {PAPER_K})", float(np.median(counts)), float(PAPER_K))
    res_.check(f"STP: median number of selected indicators over {len(det)} splits, σ² tuned (the "
               f"issue's target: at most {TARGET_K})", float(np.median(counts)), float(TARGET_K))
    res_.check(f"Refit on the STP-selected indicators: test accuracy minus all components (mean "
               f"over {len(det)} splits)", float(gaps.mean()), -TARGET_GAP, higher_is_better=True)
    res_.check(f"STP final fits: GNC converged (share of {len(det)} splits)",
               float(np.mean([d["est"].converged_ for d in det])), 1.0, higher_is_better=True)
    res_.meta.update({"detection": [{"seed": d["seed"], "sigma2": d["sigma2"], "gamma": d["gamma"],
                                     "lambda_rel": d["lam_rel"], "selected": d["sel"].tolist(),
                                     "acc_full": d["acc_full"], "acc_stp": d["acc_stp"],
                                     "acc_refit": d["acc_refit"],
                                     "converged": bool(d["est"].converged_),
                                     "timings_s": d["timings"]} for d in det],
                      "sparsity_experiment": runs, "lambda_se": se, "validation_accuracy_all": acc_full_va,
                      "test_accuracy_stp_eq22": acc_stp, "converged": bool(est.converged_),
                      "timings_s": timings, "selected": sel.tolist(),
                      "selected_names": [names[d] for d in sel], "cv": s.to_dict(),
                      "basis": {"R": basis.R, "ranks": basis.ranks, "coupling_k": int(basis.Z.shape[1])}})
    res_.notes = (
        ("QUICK MODE: one split, 600 training messages, two σ², two λ values; the sparsity "
         f"experiment on the full split of seed {seeds[0]} only, k ≤ {kmax}.\n\n" if ctx.quick else "")
        + f"Protocol: the structure detection runs on {len(det)} random splits with σ² tuned on "
        f"each (over σ² ∈ {{{', '.join(f'{v:g}' for v in d0['sigma2s'])}}}, one {n}² "
        "eigendecomposition each); the sparsity "
        f"experiment uses σ² = {SIGMA2:g} on its {len(runs)} splits.  Reduced (machine time): "
        f"the component Grams are truncated at {RANK_TOL:g} "
        f"(R = {basis.R} coordinates on the {100 * (1 - VALIDATION):g} % split of seed {seeds_d[0]}), "
        "and GNC runs at most "
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
        f"training set's ||y - ȳ||² ({lam:.4g}).  "
        + sparsity_note(blind[:, j10], blind_cv[:, j10], oracle[:, j10], k_ok, k_stp_ok,
                        max(small) if small else None, len(sel))
        + "  Timings (s): "
        + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()) + ".")
    return res_
