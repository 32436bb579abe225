"""Bonidal et al. (2013) Tables 3-4: model selection along the path on the Rätsch benchmark.

For each set, seeded random realisations at the benchmark's sizes; σ² from the heuristic of
Table 4 (ref. [33]); the path with the span leave-one-out test error prediction (density-weighted
Nyström on 60% of the training set, eigenvalue threshold 1e-4, §4.4) against a 5-fold
cross-validation grid search over λ (exact kernel, 17 values in [1e-5, 1e3]) on the same splits.
Chapelle's gradient method (the paper's baseline) and Table 3 are in :mod:`benchmarks.l2svm_table3`.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import L2SVMClassifier, problems
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.kernels import RBF

from .l2svm_common import (
    PAPER,
    RAETSCH,
    cv_grid_l2svm,
    fixed_fit_error,
    mean_sd,
    one_thread,
    paper_realisations,
    raetsch_split,
    sigma2_heuristic,
)

#: Table 4 (σ by the heuristic): path error (sd), gradient error (sd), path s, gradient s;
#: Table 3 (σ by Chapelle's gradient method): path error (sd)
PAPER_T4 = {
    "banana": (11.24, 0.95, 10.85, 0.73, 0.7149, 0.7017, 11.07),
    "breast_cancer": (27.35, 4.22, 26.64, 4.56, 0.5152, 0.3171, 27.10),
    "diabetis": (24.05, 2.03, 23.81, 1.94, 1.1452, 1.6742, 24.04),
    "flare_solar": (34.40, 1.99, 34.84, 1.82, 0.4521, 3.1518, 34.49),
    "german": (23.76, 2.19, 23.65, 2.03, 2.2267, 3.3662, 23.77),
    "heart": (17.30, 3.51, 16.71, 3.11, 0.5602, 0.2204, 16.83),
    "image": (3.24, 0.74, 3.90, 0.69, 2.8286, 9.1764, 3.32),
    "ringnorm": (2.08, 0.37, 1.61, 0.15, 0.9758, 0.4092, 1.69),
    "splice": (11.67, 0.74, 11.16, 0.70, 4.7143, 6.9180, 11.87),
    "thyroid": (6.71, 3.28, 7.01, 3.66, 0.5089, 0.1000, 7.08),
    "titanic": (23.45, 4.28, 22.59, 0.88, 0.3827, 0.1586, 23.05),
    "twonorm": (2.68, 0.34, 2.69, 0.18, 0.9846, 0.4683, 2.67),
    "waveform": (10.29, 0.75, 9.90, 0.39, 0.9157, 0.6260, 10.09),
}

LAMS = np.logspace(-5, 3, 17)


def one_realisation(name: str, seed: int) -> dict:
    X, y, Xt, yt = raetsch_split(name, seed)
    s2 = sigma2_heuristic(X)
    t0 = time.perf_counter()
    est = L2SVMClassifier(path=True, criterion="span", low_rank="nystroem-density",
                          n_landmarks=int(round(0.6 * len(y))), threshold=1e-4, sigma2=s2,
                          random_state=seed).fit(X, y)
    t_path = time.perf_counter() - t0
    err_path = float(np.mean(est.predict(Xt) != yt))
    t0 = time.perf_counter()
    lam_cv, _ = cv_grid_l2svm(X, y, RBF(s2), LAMS, seed=seed)
    err_cv = fixed_fit_error(X, y, Xt, yt, RBF(s2), lam_cv)
    t_cv = time.perf_counter() - t0
    return {"data": name, "seed": seed, "m": len(y), "sigma2": s2, "rank": est.rank_,
            "lam path": est.lam_, "lam cv": lam_cv, "err path": err_path, "err cv": err_cv,
            "t path": t_path, "t cv": t_cv, "steps": len(est.path_["lambdas"])}


@register("l2svm_raetsch", "ℓ2-SVM path + span prediction vs 5-fold CV on the Rätsch sets "
                           "(Bonidal et al. Tables 3-4)", paper=PAPER)
def run(ctx: Context) -> BenchResult:
    # the paper's counts (Table 1) in full mode; a row whose count differs says so
    sets = ["banana", "heart", "thyroid"] if ctx.quick else list(RAETSCH)
    jobs = [(name, seed) for name in sets
            for seed in range(1 if ctx.quick else paper_realisations(name))]
    with one_thread():
        rows = ctx.map(lambda j: one_realisation(*j), jobs, desc="Rätsch realisations")
    df = pd.DataFrame(rows)
    summary, paper = [], []
    for name in sets:
        d = df[df.data == name]
        # resampled paired t-test (Dietterich 1998 §3.3) on the error difference
        diff = d["err path"].to_numpy() - d["err cv"].to_numpy()
        n = diff.size
        t = diff.mean() / (diff.std(ddof=1) / np.sqrt(n)) if n > 1 and diff.std(ddof=1) > 0 else np.nan
        summary.append({"data": name, "realisations": n, "rank (mean)": d["rank"].mean(),
                        "path error % (sd)": mean_sd(d["err path"]), "5-fold CV error % (sd)": mean_sd(d["err cv"]),
                        "path time [s]": d["t path"].mean(), "CV time [s]": d["t cv"].mean(),
                        "paired t": t})
        p = PAPER_T4[name]
        paper.append({"data": name, "realisations": paper_realisations(name),
                      "Table 4 path error %": f"{p[0]:.2f} ({p[1]:.2f})",
                      "Table 4 gradient error %": f"{p[2]:.2f} ({p[3]:.2f})",
                      "Table 4 path time [s]": p[4], "Table 4 gradient time [s]": p[5],
                      "Table 3 path error % (σ by gradient)": p[6]})
    summ = pd.DataFrame(summary)
    res = BenchResult("l2svm_raetsch", "ℓ2-SVM model selection on the Rätsch sets (Bonidal et al. 2013, Tables 3-4)")
    res.tables.append(Table("Tables 3-4", summ,
                            "Path: span LOO prediction minimised along the path (2% rule), density-weighted "
                            "Nyström on 60% of the training set, threshold 1e-4; time = the whole fit "
                            "(factor, path, criterion at every λ^l, expansion). CV: 5-fold grid over 17 λ in "
                            "[1e-5, 1e3] on the exact kernel, refit at the best λ; time includes the refit. "
                            "σ² from the Table-4 heuristic in both. Paired t: Dietterich's resampled paired "
                            "t statistic on (path − CV) errors.", paper=pd.DataFrame(paper)))
    res.tables.append(Table("All realisations", df, ""))
    mean_gap = float((df["err path"] - df["err cv"]).mean())
    res.check("mean test error path − 5-fold CV over all realisations", mean_gap, 0.01)
    fs = problems.get_problem("flare_solar")
    pos = float(np.mean(fs.y == np.unique(fs.y)[1]))
    res.notes = (
        "Realisations: seeded random splits at Rätsch's sizes (problems.random_split; the 100 fixed "
        "IDA splits are not available offline); waveform draws fresh samples from Breiman's "
        "generator per seed (class 0 vs rest, our reading of Rätsch's binarisation); ringnorm and "
        f"twonorm use the {problems.get_problem('ringnorm_keel').n_samples}-row DELVE/KEEL files. image, "
        "splice, thyroid, flare_solar and waveform binarisations are re-derived (see "
        "problems/datasets.py): their errors are not directly comparable with the paper's. "
        f"flare_solar's coding (any flare vs none, {100 * pos:.0f}% positives) is not Rätsch's "
        f"(the paper's errors of about {PAPER_T4['flare_solar'][0]:.0f}% suggest a more balanced target). "
        "Realisation counts as in the paper's Table 1 (100; image, ringnorm, splice: 20). The "
        "paper's Gradient column (Chapelle et al.'s method) is replaced here by a 5-fold CV grid; "
        "the gradient method itself and Table 3 (σ² from it) are reproduced in l2svm_table3.")
    return res
