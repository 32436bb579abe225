"""Bonidal et al. (2013) Table 5: the Spam data set (UCI spambase), 1000 random test points per
realisation, with the default Hessian approximation (density-weighted Nyström on 60% of the
training set) and with rank 600 (600 landmarks), both with an eigenvalue threshold of 1e-3."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import problems
from lssvm_cvx import L2SVMClassifier
from lssvm_cvx.bench import BenchResult, Context, Table, register

from .l2svm_common import PAPER, mean_sd, one_thread, pm1, sigma2_heuristic, standardize

PAPER_T5 = [("default", "6.22 (0.87)", "6.58 (0.84)", 27.8510, 97.5712),
            ("rank=600", "6.64 (0.97)", "6.56 (0.76)", 15.9084, 102.9281)]


def one(setting: str, seed: int) -> dict:
    ds = problems.get_problem("spambase")
    tr, te = problems.random_split(ds.n_samples, [ds.n_samples - 1000, 1000], seed)
    X, Xt = standardize(ds.X[tr].astype(float), ds.X[te].astype(float))
    y, yt = pm1(ds.y[tr]), pm1(ds.y[te])
    s2 = sigma2_heuristic(X)
    nl = 600 if setting == "rank=600" else int(round(0.6 * len(y)))
    est = L2SVMClassifier(path=True, low_rank="nystrom-density", n_landmarks=nl, threshold=1e-3, sigma2=s2,
                          random_state=seed)
    t0 = time.perf_counter()
    est.fit(X, y)
    t = time.perf_counter() - t0
    return {"setting": setting, "seed": seed, "m": len(y), "landmarks": nl, "rank": est.rank_,
            "err": float(np.mean(est.predict(Xt) != yt)), "time": t, "lam": est.lam_,
            "t path": est.path_["timing"].get("path"), "t span": est.path_["timing"].get("span")}


@register("l2svm_spam", "ℓ2-SVM path on Spam, default and rank 600 (Bonidal et al. Table 5)", paper=PAPER)
def run(ctx: Context) -> BenchResult:
    settings = ["rank=600"] if ctx.quick else ["default", "rank=600"]
    R = ctx.reps(10, 1)
    with one_thread():
        rows = ctx.map(lambda j: one(*j), [(s, r) for s in settings for r in range(R)], desc="spam")
    df = pd.DataFrame(rows)
    summ = [{"criterion": s, "realisations": int((df.setting == s).sum()),
             "path error % (sd)": mean_sd(df[df.setting == s]["err"]),
             "path time [s]": df[df.setting == s]["time"].mean(), "rank": df[df.setting == s]["rank"].mean()}
            for s in settings]
    paper = pd.DataFrame([{"criterion": r[0], "path error % (sd)": r[1], "gradient error % (sd)": r[2],
                           "path time [s]": r[3], "gradient time [s]": r[4]} for r in PAPER_T5 if r[0] in settings])
    res = BenchResult("l2svm_spam", "ℓ2-SVM path on Spam (Bonidal et al. 2013, Table 5)")
    res.tables.append(Table("Table 5", pd.DataFrame(summ),
                            "3601 training / 1000 test points per realisation (problems.random_split), "
                            "standardized; σ² from the Table-4 heuristic (= 57 after standardization); "
                            "density-weighted Nyström (k-means landmarks: 60% of the training set, or 600), "
                            "threshold 1e-3 on the Nyström eigenvalue estimates; span LOO prediction "
                            "minimised along the path; time = the whole fit. One BLAS thread.", paper=paper))
    res.tables.append(Table("All realisations", df, ""))
    r600 = df[df.setting == "rank=600"]["err"].mean()
    res.check("test error with rank 600 (mean)", float(r600), 0.0664 + 0.01)
    res.notes = (
        f"{R} realisations per setting (the paper: 30), to fit the 30-minute budget. The paper's "
        "baseline (Chapelle's gradient method) is not reproduced. With the default setting our "
        "threshold keeps almost all 2160 Nyström directions (rank ≈ 2100), so our default fit is "
        "slower than the paper's 27.9 s; the paper does not say which eigenvalues its threshold "
        "applies to.")
    return res
