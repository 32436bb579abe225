"""Bonidal et al. (2013) Tables 3-4 with Chapelle et al.'s (2002) gradient method: on the
Rätsch sets, per realisation,

* "Gradient": (σ², λ) selected jointly by gradient descent on the smoothed span estimate
  (:func:`lssvm_cvx.selection.l2svm_gradient.select_gradient`, exact kernel, started at the
  Table-4 heuristic σ² and λ = 1), the ℓ2-SVM refitted there;
* Table 3 "Path": σ² from the gradient method, λ by the span prediction along the path
  (density-weighted Nyström on 60% of the training set, threshold 1e-4, §4.4);
* Table 4 "Path": the same path with σ² from the heuristic of ref. [33].

The paper prints the same Gradient column in both tables.  Conventions (standardization,
kernel width, splits) are those of :mod:`benchmarks.l2svm_common`.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import L2SVMClassifier
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.l2svm_gradient import select_gradient

from .l2svm_common import (
    PAPER,
    RAETSCH,
    fixed_fit_error,
    mean_sd,
    one_thread,
    paper_realisations,
    raetsch_split,
    sigma2_heuristic,
)

#: Table 3: path error (sd), gradient error (sd), path s, gradient s
PAPER_T3 = {
    "banana": (11.07, 0.88, 10.85, 0.73, 0.6319, 0.5612),
    "breast_cancer": (27.10, 4.67, 26.64, 4.56, 0.4613, 0.2551),
    "diabetis": (24.04, 1.94, 23.81, 1.94, 0.8224, 1.2781),
    "flare_solar": (34.49, 1.87, 34.84, 1.82, 0.4011, 2.4215),
    "german": (23.77, 2.13, 23.65, 2.03, 1.9661, 2.8821),
    "heart": (16.83, 3.47, 16.71, 3.11, 0.4741, 0.1586),
    "image": (3.32, 0.72, 3.90, 0.69, 6.5991, 8.1389),
    "ringnorm": (1.69, 0.40, 1.61, 0.15, 0.9900, 0.4171),
    "splice": (11.87, 0.72, 11.16, 0.70, 4.0894, 5.8144),
    "thyroid": (7.08, 3.69, 7.01, 3.66, 0.4575, 0.0728),
    "titanic": (23.05, 1.11, 22.59, 0.88, 0.3804, 0.1292),
    "twonorm": (2.67, 0.34, 2.69, 0.18, 0.9998, 0.4748),
    "waveform": (10.09, 0.56, 9.90, 0.39, 1.0605, 0.7644),
}
#: Table 4 path error (sd) (σ² by the heuristic)
PAPER_T4_PATH = {
    "banana": (11.24, 0.95), "breast_cancer": (27.35, 4.22), "diabetis": (24.05, 2.03),
    "flare_solar": (34.40, 1.99), "german": (23.76, 2.19), "heart": (17.30, 3.51),
    "image": (3.24, 0.74), "ringnorm": (2.08, 0.37), "splice": (11.67, 0.74),
    "thyroid": (6.71, 3.28), "titanic": (23.45, 4.28), "twonorm": (2.68, 0.34),
    "waveform": (10.29, 0.75),
}
#: sets whose data and binarisation are the paper's (see l2svm_raetsch's notes for the others)
SAME_CODING = ("banana", "breast_cancer", "diabetis", "german", "heart", "ringnorm", "titanic", "twonorm")

LAM0 = 1.0
MAX_ITER = 50


def _path(X, y, s2, seed):
    return L2SVMClassifier(path=True, criterion="span", low_rank="nystroem-density",
                           n_landmarks=int(round(0.6 * len(y))), threshold=1e-4, sigma2=s2,
                           random_state=seed)


def one_realisation(name: str, seed: int) -> dict:
    X, y, Xt, yt = raetsch_split(name, seed)
    s2h = sigma2_heuristic(X)
    t0 = time.perf_counter()
    g = select_gradient(X, y, sigma2=s2h, lam=LAM0, criterion="span", max_iter=MAX_ITER)
    err_grad = fixed_fit_error(X, y, Xt, yt, RBF(g.sigma2), g.lam)
    t_grad = time.perf_counter() - t0
    t0 = time.perf_counter()
    p3 = _path(X, y, g.sigma2, seed).fit(X, y)
    t_p3 = time.perf_counter() - t0
    err_p3 = float(np.mean(p3.predict(Xt) != yt))
    t0 = time.perf_counter()
    p4 = _path(X, y, s2h, seed).fit(X, y)
    t_p4 = time.perf_counter() - t0
    err_p4 = float(np.mean(p4.predict(Xt) != yt))
    return {"data": name, "seed": seed, "m": len(y), "sigma2 heuristic": s2h, "sigma2 gradient": g.sigma2,
            "lam gradient": g.lam, "span estimate": g.value, "evals": g.n_evals, "converged": g.converged,
            "err gradient": err_grad, "t gradient": t_grad, "lam path T3": p3.lam_, "err path T3": err_p3,
            "t path T3": t_p3, "rank T3": p3.rank_, "lam path T4": p4.lam_, "err path T4": err_p4,
            "t path T4": t_p4}


def _paired_t(a: np.ndarray, b: np.ndarray) -> float:
    """Dietterich's (1998, §3.3) resampled paired t statistic on ``a - b``."""
    d = a - b
    n = d.size
    sd = d.std(ddof=1) if n > 1 else 0.0
    return float(d.mean() / (sd / np.sqrt(n))) if sd > 0 else float("nan")


@register("l2svm_table3", "ℓ2-SVM: Chapelle's gradient method vs the path on the Rätsch sets "
                          "(Bonidal et al. Tables 3-4)", paper=PAPER)
def run(ctx: Context) -> BenchResult:
    # the paper's counts (Table 1) in full mode; a row whose count differs says so
    sets = ["banana", "heart", "thyroid"] if ctx.quick else list(RAETSCH)
    jobs = [(name, seed) for name in sets
            for seed in range(2 if ctx.quick else paper_realisations(name))]
    with one_thread():
        rows = ctx.map(lambda j: one_realisation(*j), jobs, desc="Rätsch realisations")
    df = pd.DataFrame(rows)
    t3, t4, p3, p4 = [], [], [], []
    for name in sets:
        d = df[df.data == name]
        n = len(d)
        npaper = paper_realisations(name)
        lab = f"{name} ({n} seeded realisations at Rätsch's sizes, not the fixed files" \
            + ("" if n == npaper else f"; the paper: {npaper}") + ")"
        lab += "" if name in SAME_CODING else " [our binarisation]"
        eg, e3, e4 = (d[c].to_numpy() for c in ("err gradient", "err path T3", "err path T4"))
        t3.append({"data": lab, "path error % (sd)": mean_sd(e3), "gradient error % (sd)": mean_sd(eg),
                   "path time [s]": d["t path T3"].mean(), "gradient time [s]": d["t gradient"].mean(),
                   "paired t (path − gradient)": _paired_t(e3, eg),
                   "σ² gradient / heuristic (median)": float(np.median(d["sigma2 gradient"] / d["sigma2 heuristic"])),
                   "converged %": 100 * d["converged"].mean(), "evaluations (mean)": d["evals"].mean()})
        t4.append({"data": lab, "path error % (sd)": mean_sd(e4), "gradient error % (sd)": mean_sd(eg),
                   "path time [s]": d["t path T4"].mean(), "gradient time [s]": d["t gradient"].mean(),
                   "paired t (path − gradient)": _paired_t(e4, eg)})
        q = PAPER_T3[name]
        p3.append({"data": lab, "path error % (sd)": f"{q[0]:.2f} ({q[1]:.2f})",
                   "gradient error % (sd)": f"{q[2]:.2f} ({q[3]:.2f})", "path time [s]": q[4],
                   "gradient time [s]": q[5]})
        q4 = PAPER_T4_PATH[name]
        p4.append({"data": lab, "path error % (sd)": f"{q4[0]:.2f} ({q4[1]:.2f})",
                   "gradient error % (sd)": f"{q[2]:.2f} ({q[3]:.2f})"})
    res = BenchResult("l2svm_table3", "ℓ2-SVM: Chapelle's gradient method and the path on the Rätsch sets "
                                      "(Bonidal et al. 2013, Tables 3-4)")
    common = ("Gradient: (σ², λ) by L-BFGS-B on the smoothed span estimate (η = 0.1, sigmoid A = 5, B = 0) "
              f"with its analytic gradient in (log σ², log λ), exact kernel, started at the heuristic σ² and "
              f"λ = {LAM0}, at most {MAX_ITER} iterations, then one fit; time = selection + fit. Path: span LOO "
              "prediction minimised along the path (2% rule), density-weighted Nyström on 60% of the training "
              "set, threshold 1e-4; time = the path fit alone. Paired t: Dietterich's resampled paired t on "
              "(path − gradient) errors. [our binarisation]: data or coding re-derived, not the paper's.")
    res.tables.append(Table("Table 3 (σ² by the gradient method)", pd.DataFrame(t3),
                            "Path with σ² from the gradient method. " + common, paper=pd.DataFrame(p3)))
    res.tables.append(Table("Table 4 (σ² by the heuristic)", pd.DataFrame(t4),
                            "Path with σ² from the heuristic of ref. [33]; the Gradient column is the same "
                            "run as in Table 3 (as in the paper). " + common, paper=pd.DataFrame(p4)))
    res.tables.append(Table("All realisations", df, ""))
    gap3 = float((df["err path T3"] - df["err gradient"]).mean())
    gap4 = float((df["err path T4"] - df["err gradient"]).mean())
    same = [s for s in sets if s in SAME_CODING]
    dev = [abs(100 * df[df.data == s]["err gradient"].mean() - PAPER_T3[s][2]) for s in same]
    res.check("Table 3: mean test error path (σ² by gradient) − gradient, all realisations", gap3, 0.01)
    res.check("Table 4: mean test error path (heuristic σ²) − gradient, all realisations", gap4, 0.01)
    res.check(f"gradient method: mean |ours − paper| test error over the {len(same)} sets with the "
              "paper's data and coding", float(np.mean(dev)), 1.0, unit=" points")
    worse3 = int(sum(r["paired t (path − gradient)"] > 2 for r in t3))
    better3 = int(sum(r["paired t (path − gradient)"] < -2 for r in t3))
    conv = 100 * float(df["converged"].mean())
    short = [name for name in sets if int((df.data == name).sum()) < paper_realisations(name)]
    count = (f"the paper's count for every set ({len(df)} in all)" if not short else
             f"fewer than the paper's for {', '.join(short)} (each row says how many; "
             f"{len(df)} in all)")
    res.notes = (
        f"Realisations: {count}. "
        f"Table 3: the path (σ² by gradient) is significantly worse than the gradient method "
        f"(|t| > 2) on {worse3} of {len(sets)} sets and better on {better3}; mean error gap "
        f"{100 * gap3:+.2f} points. Table 4 (heuristic σ²): mean gap {100 * gap4:+.2f} points. The "
        f"gradient method stopped on L-BFGS-B's convergence test in {conv:.0f}% of the runs; the "
        "others ended on a failed line search (the smoothed span jumps by ψ(-1)/m when a point "
        "enters the support set, so the criterion is only piecewise smooth) and keep the best point "
        "evaluated. Splits are seeded random splits at Rätsch's sizes, not the IDA files (see "
        "l2svm_raetsch); the sets marked [our binarisation] are not comparable with the paper's "
        "errors. The paper's timings are MATLAB on its machine; ours are one BLAS thread.")
    return res
