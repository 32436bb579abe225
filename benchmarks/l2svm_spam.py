"""Bonidal et al. (2013) Table 5: the Spam data set (UCI spambase), 1000 random test points per
realisation, with the default Hessian approximation (density-weighted Nyström on 60% of the
training set) and with rank 600 (600 landmarks), both with an eigenvalue threshold of 1e-3; the
"Gradient" column is Chapelle et al.'s (2002) gradient method on the smoothed span estimate
(:func:`lssvm_cvx.selection.l2svm_gradient.select_gradient`, exact kernel) on the first
realisations."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import L2SVMClassifier, problems
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.l2svm_gradient import select_gradient

from .l2svm_common import PAPER, fixed_fit_error, mean_sd, one_thread, pm1, sigma2_heuristic, standardize

#: the paper's realisations per setting (Table 5)
PAPER_REALISATIONS = 30
PAPER_T5 = [("default", "6.22 (0.87)", "6.58 (0.84)", 27.8510, 97.5712),
            ("rank=600", "6.64 (0.97)", "6.56 (0.76)", 15.9084, 102.9281)]


def split(seed: int):
    ds = problems.get_problem("spambase")
    tr, te = problems.random_split(ds.n_samples, [ds.n_samples - 1000, 1000], seed)
    X, Xt = standardize(ds.X[tr].astype(float), ds.X[te].astype(float))
    return X, pm1(ds.y[tr]), Xt, pm1(ds.y[te])


def one_gradient(seed: int) -> dict:
    """Chapelle's gradient method (σ², λ) on the smoothed span, exact kernel, from the heuristic σ²
    and λ = 1, then one fit (the paper's "Gradient" column)."""
    X, y, Xt, yt = split(seed)
    t0 = time.perf_counter()
    g = select_gradient(X, y, sigma2=sigma2_heuristic(X), lam=1.0, criterion="span", max_iter=50)
    err = fixed_fit_error(X, y, Xt, yt, RBF(g.sigma2), g.lam)
    return {"seed": seed, "err": err, "time": time.perf_counter() - t0, "sigma2": g.sigma2, "lam": g.lam,
            "evals": g.n_evals, "converged": g.converged}


def one(setting: str, seed: int) -> dict:
    X, y, Xt, yt = split(seed)
    s2 = sigma2_heuristic(X)
    nl = 600 if setting == "rank=600" else int(round(0.6 * len(y)))
    est = L2SVMClassifier(path=True, low_rank="nystroem-density", n_landmarks=nl, threshold=1e-3, sigma2=s2,
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
    R = ctx.reps(PAPER_REALISATIONS, 1)
    RG = ctx.reps(2, 1)
    with one_thread():
        rows = ctx.map(lambda j: one(*j), [(s, r) for s in settings for r in range(R)], desc="spam")
        grows = ctx.map(one_gradient, range(RG), desc="spam gradient")
    df = pd.DataFrame(rows)
    dg = pd.DataFrame(grows)
    grad_err, grad_time = mean_sd(dg["err"]), float(dg["time"].mean())
    def label(s: str) -> str:
        return f"{s} ({R} of the paper's {PAPER_REALISATIONS} realisations; gradient: {RG})"

    summ = [{"criterion": label(s), "realisations (path)": int((df.setting == s).sum()),
             "path error % (sd)": mean_sd(df[df.setting == s]["err"]),
             "path time [s]": df[df.setting == s]["time"].mean(), "rank": df[df.setting == s]["rank"].mean(),
             f"gradient error % (sd), exact kernel, first {RG} realisations": grad_err,
             "gradient time [s]": grad_time}
            for s in settings]
    paper = pd.DataFrame([{"criterion": label(r[0]), "realisations (path)": PAPER_REALISATIONS, "path error % (sd)": r[1],
                           "path time [s]": r[3], "rank": np.nan,
                           f"gradient error % (sd), exact kernel, first {RG} realisations": r[2],
                           "gradient time [s]": r[4]} for r in PAPER_T5 if r[0] in settings])
    res = BenchResult("l2svm_spam", "ℓ2-SVM path on Spam (Bonidal et al. 2013, Table 5)")
    res.tables.append(Table("Table 5", pd.DataFrame(summ),
                            "3601 training / 1000 test points per realisation (problems.random_split), "
                            "standardized; σ² from the Table-4 heuristic (= 57 after standardization); "
                            "density-weighted Nyström (k-means landmarks: 60% of the training set, or 600), "
                            "threshold 1e-3 on the Nyström eigenvalue estimates; span LOO prediction "
                            "minimised along the path; time = the whole fit. Gradient: (σ², λ) by L-BFGS-B on "
                            "the smoothed span estimate with its analytic gradient (exact kernel, from the "
                            "heuristic σ² and λ = 1, at most 50 iterations) and one fit; the same run for both "
                            "rows (the paper prints two gradient results). One BLAS thread.", paper=paper))
    res.tables.append(Table("Gradient method, all realisations", dg, ""))
    res.tables.append(Table("All realisations", df, ""))
    r600 = df[df.setting == "rank=600"]["err"].mean()
    res.check("test error with rank 600 (mean)", float(r600), 0.0664 + 0.01)
    res.check(f"gradient method test error (mean of {RG}) − paper's 6.58%", float(dg["err"].mean()) - 0.0658, 0.01)
    notes = [(f"{R} realisations per setting for the path (the paper's count)" if R == PAPER_REALISATIONS
              else f"{R} realisations per setting for the path (the paper: {PAPER_REALISATIONS})")
             + f" and {RG} for the gradient method, to fit the budget of the shared 2-core machine."]
    if "default" in settings:
        d = df[df.setting == "default"]
        notes.append(
            f"With the default setting our threshold keeps {d['rank'].mean():.0f} of the "
            f"{d['landmarks'].iloc[0]} Nyström directions on average, so our default fit takes "
            f"{d['time'].mean():.3g} s against the paper's {PAPER_T5[0][3]} s; the paper does not say "
            "which eigenvalues its threshold applies to.")
    notes.append(f"The gradient method stopped on its convergence test in {int(dg['converged'].sum())} of "
                 f"{len(dg)} runs (the others on a failed line search, keeping the best point evaluated); "
                 f"its time is {grad_time / df['time'].mean():.3g}× the mean path fit of this run.")
    res.notes = " ".join(notes)
    return res
