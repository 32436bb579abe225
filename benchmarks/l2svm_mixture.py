"""Bonidal et al. (2013) Table 6: the two-class Gaussian mixture of §4.4 with m = 1000 ... 5000
training points and a 30000-point test set (test error, path time, rank), and the claim that
the low-rank path at m = 5000 runs in ≤ 60 s (timed against one Cholesky factorization of the
m × m Gram in the same run).

Following §4.1, the Hessian approximation is the density-weighted Nyström method for
m < 4000 and the uniform one otherwise.  The main Path column takes σ² from the Table-4
heuristic; the paper took σ from Chapelle et al.'s (2002) gradient method, which is run here on
the first realisations of every m (:func:`lssvm_cvx.selection.l2svm_gradient.select_gradient`,
smoothed span, exact kernel): its own test error is the "Gradient" column, and the path at its
σ² is the "Path (σ² by gradient)" column.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
import scipy.linalg as sla
from lssvm_cvx.problems.synthetic import GAUSSIAN_MIXTURE, gaussian_mixture_log_densities

from lssvm_cvx import L2SVMClassifier, problems
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.l2svm_gradient import select_gradient

from .l2svm_common import PAPER, fixed_fit_error, mean_sd, one_thread, pm1, sigma2_heuristic, standardize

PAPER_T6 = [  # m, path err (sd), gradient err (sd), path s, gradient s, rank
    (1000, "14.22 (0.28)", "14.05 (0.25)", 5.68, 9.21, 127.5),
    (2000, "13.97 (0.16)", "13.93 (0.13)", 12.84, 57.55, 165.8),
    (3000, "13.86 (0.17)", "13.85 (0.19)", 20.87, 101.1, 181.4),
    (4000, "13.85 (0.33)", "13.83 (0.33)", 28.41, 262.56, 155.2),
    (5000, "13.84 (0.19)", "13.82 (0.2)", 37.98, 446.56, 154.7),
]

THRESHOLD = 1e-4
N_UNIFORM = 1000
#: the paper's realisations per m, for the gradient columns as for the path column
GRADIENT_REALISATIONS = 10
#: wall budget [s] of the gradient columns (environment ``LSSVM_MIXTURE_GRADIENT_BUDGET_S``): the
#: exact-kernel gradient method costs O(m_E³) per step, so its realisations run m by m, seed by
#: seed, and stop where the next one is predicted (from the ones at this m, else the previous m
#: scaled by (m / m_prev)³) to overrun the budget; the file states what ran
GRADIENT_BUDGET_S = 3600.0


def make_estimator(m: int, s2: float, seed: int) -> L2SVMClassifier:
    if m < 4000:
        return L2SVMClassifier(path=True, low_rank="nystroem-density", n_landmarks=int(round(0.6 * m)),
                               threshold=THRESHOLD, sigma2=s2, random_state=seed)
    return L2SVMClassifier(path=True, low_rank="nystroem", n_landmarks=N_UNIFORM, threshold=THRESHOLD,
                           sigma2=s2, random_state=seed)


def one_gradient(m: int, seed: int) -> dict:
    """Chapelle's gradient method (exact kernel) from the heuristic σ² and λ = 1, one fit at its
    (σ², λ), and the path at its σ² (the paper's Table 6 protocol)."""
    ds = problems.get_problem("gaussian_mixture", n_train=m, n_test=30000, seed=1000 * m + seed)
    X, Xt = standardize(ds.X, ds.X_test)
    y, yt = pm1(ds.y), pm1(ds.y_test)
    t0 = time.perf_counter()
    g = select_gradient(X, y, sigma2=sigma2_heuristic(X), lam=1.0, criterion="span", max_iter=50)
    err = fixed_fit_error(X, y, Xt, yt, RBF(g.sigma2), g.lam)
    t = time.perf_counter() - t0
    t0 = time.perf_counter()
    est = make_estimator(m, g.sigma2, seed).fit(X, y)
    t_path = time.perf_counter() - t0
    return {"m": m, "seed": seed, "err gradient": err, "t gradient": t, "sigma2": g.sigma2, "lam": g.lam,
            "evals": g.n_evals, "converged": g.converged, "err path": float(np.mean(est.predict(Xt) != yt)),
            "t path": t_path, "rank": est.rank_}


def one(m: int, seed: int) -> dict:
    ds = problems.get_problem("gaussian_mixture", n_train=m, n_test=30000, seed=1000 * m + seed)
    X, Xt = standardize(ds.X, ds.X_test)
    s2 = sigma2_heuristic(X)
    est = make_estimator(m, s2, seed)
    t0 = time.perf_counter()
    est.fit(X, ds.y)
    t = time.perf_counter() - t0
    err = float(np.mean(est.predict(Xt) != ds.y_test))
    lp, ln = gaussian_mixture_log_densities(ds.X_test)
    bayes_on_test = float(np.mean(np.where(lp > ln, 1.0, -1.0) != ds.y_test))
    return {"m": m, "seed": seed, "err": err, "bayes rule on this test set": bayes_on_test, "time": t,
            "rank": est.rank_, "lam": est.lam_, "steps": len(est.path_["lambdas"])}


def gradient_rounds(ms: list[int], reps: int, budget: float) -> tuple[list[dict], dict]:
    """:func:`one_gradient` for m in ``ms`` (ascending), seeds ``0 .. reps - 1`` each, in that
    order, until the next realisation is predicted to overrun ``budget`` seconds (its m's mean
    time so far, else the previous m's mean scaled by (m / m_prev)³); then every later one is
    skipped.  Returns the rows and ``{"budget_s", "elapsed_s", "stopped_at"}`` (the (m, seed)
    not run first, or None)."""
    rows: list[dict] = []
    t0 = time.perf_counter()
    prev: tuple[int, float] | None = None
    for m in ms:
        times: list[float] = []
        for seed in range(reps):
            if times:
                predicted = float(np.mean(times))
            elif prev is not None:
                predicted = prev[1] * (m / prev[0]) ** 3
            else:
                predicted = 0.0
            if time.perf_counter() - t0 + predicted > budget:
                return rows, {"budget_s": budget, "elapsed_s": time.perf_counter() - t0,
                              "stopped_at": (m, seed), "predicted_s": predicted}
            t1 = time.perf_counter()
            rows.append(one_gradient(m, seed))
            times.append(time.perf_counter() - t1)
        prev = (m, float(np.mean(times)))
    return rows, {"budget_s": budget, "elapsed_s": time.perf_counter() - t0, "stopped_at": None,
                  "predicted_s": None}


@register("l2svm_mixture", "ℓ2-SVM path on the §4.4 Gaussian mixture, m up to 5000 (Bonidal et al. Table 6)",
          paper=PAPER)
def run(ctx: Context) -> BenchResult:
    ms = [1000, 5000] if ctx.quick else [1000, 2000, 3000, 4000, 5000]
    R = ctx.reps(10, 1)
    RG = ctx.reps(GRADIENT_REALISATIONS, 1)
    budget = float(os.environ.get("LSSVM_MIXTURE_GRADIENT_BUDGET_S", GRADIENT_BUDGET_S))
    with one_thread():
        rows = ctx.map(lambda j: one(*j), [(m, s) for m in ms for s in range(R)], desc="mixture")
        # the exact-kernel gradient method costs O(m_E³) per evaluation: budgeted (quick: the
        # smallest m, one realisation)
        gms = ms[:1] if ctx.quick else ms
        grows, gstate = gradient_rounds(gms, RG, budget)
        # Monte Carlo Bayes error of the generator as printed
        big = problems.get_problem("gaussian_mixture", n_train=2, n_test=ctx.reps(2_000_000, 200_000), seed=12345)
        lp, ln = gaussian_mixture_log_densities(big.X_test)
        bayes = float(np.mean(np.where(lp > ln, 1.0, -1.0) != big.y_test))
        n_mc = big.X_test.shape[0]
        # claim: the low-rank path at m = 5000 against one Cholesky of the 5000 × 5000 Gram
        ds = problems.get_problem("gaussian_mixture", n_train=5000, n_test=2, seed=777)
        X, _ = standardize(ds.X, ds.X_test)
        s2 = sigma2_heuristic(X)
        K = RBF(s2)(X)
        K[np.diag_indices_from(K)] += 1e-8

        def chol():
            return sla.cho_factor(K, lower=True, check_finite=False)

        def path():
            return make_estimator(5000, s2, 0).fit(X, ds.y)

        times = interleaved_times({"path": path, "cholesky": chol}, ctx.reps(5, 1), warmup=0)
    df = pd.DataFrame(rows)
    dg = pd.DataFrame(grows)
    summ = []
    labels: dict[int, str] = {}
    for m in ms:
        d = df[df.m == m]
        e = dg[dg.m == m]
        labels[m] = (f"{m} ({len(d)} of the paper's 10 realisations; gradient columns: {len(e)} of "
                     f"{GRADIENT_REALISATIONS})")
        summ.append({"m": labels[m],
                     "realisations": len(d), "path error % (sd)": mean_sd(d["err"]),
                     "path (σ² by gradient) error % (sd)":
                         mean_sd(e["err path"]) if len(e) else "not run",
                     "gradient error % (sd), exact kernel":
                         mean_sd(e["err gradient"]) if len(e) else "not run",
                     "gradient runs": len(e),
                     "gradient time [s]": e["t gradient"].mean() if len(e) else np.nan,
                     "Bayes rule on the same test sets %": 100 * d["bayes rule on this test set"].mean(),
                     "path time [s]": d["time"].mean(), "rank": d["rank"].mean(),
                     "approximation": "density-weighted Nyström 60%" if m < 4000 else f"uniform Nyström {N_UNIFORM}"})
    paper = pd.DataFrame([{"m": labels[r[0]],
                           "realisations": 10, "path error % (sd)": r[1],
                           "path (σ² by gradient) error % (sd)": r[1],
                           "gradient error % (sd), exact kernel": r[2],
                           "gradient runs": 10, "gradient time [s]": r[4], "Bayes rule on the same test sets %": np.nan,
                           "path time [s]": r[3], "rank": r[5], "approximation": "not stated"}
                          for r in PAPER_T6 if r[0] in ms])
    t_path, t_chol = float(np.median(times["path"])), float(np.median(times["cholesky"]))
    res = BenchResult("l2svm_mixture", "ℓ2-SVM path on the Gaussian mixture of §4.4 (Bonidal et al. 2013, Table 6)")
    res.tables.append(Table("Table 6", pd.DataFrame(summ),
                            f"Test error on 30000 points; span LOO prediction minimised along the path (2% rule); "
                            f"eigenvalue threshold {THRESHOLD}; time = the whole fit (factor incl. k-means, path, "
                            "criterion, expansion). Path: σ² from the Table-4 heuristic (the paper: from the "
                            "gradient method). Path (σ² by gradient): the paper's protocol, on the first "
                            "'gradient runs' realisations of each m. Gradient: (σ², λ) by L-BFGS-B on the smoothed span estimate "
                            "(exact kernel, from the heuristic σ² and λ = 1, at most 50 iterations) and one "
                            "fit; time = selection + fit. The paper's Path column is printed under both path "
                            "columns. One BLAS thread.", paper=paper))
    res.tables.append(Table("Bayes error of the generator", pd.DataFrame([
        {"quantity": "Monte Carlo Bayes error of the printed densities", "value %": 100 * bayes, "samples": n_mc,
         "MC s.e. %": 100 * np.sqrt(bayes * (1 - bayes) / n_mc)},
        {"quantity": "problems docstring (grid integration)", "value %": 100 * GAUSSIAN_MIXTURE["bayes_error_of_this_spec"],
         "samples": np.nan, "MC s.e. %": np.nan},
        {"quantity": "paper's Monte Carlo estimate", "value %": 100 * GAUSSIAN_MIXTURE["bayes_error_paper"],
         "samples": np.nan, "MC s.e. %": np.nan}]), ""))
    res.tables.append(Table("m = 5000 timing", pd.DataFrame([
        {"what": "low-rank path fit (uniform Nyström 1000, span selection)", "median [s]": t_path,
         "repeats": len(times["path"])},
        {"what": "one Cholesky of the 5000 × 5000 Gram (scipy cho_factor)", "median [s]": t_chol,
         "repeats": len(times["cholesky"])},
        {"what": "ratio path / Cholesky", "median [s]": t_path / t_chol, "repeats": np.nan}]),
        "Interleaved medians, one BLAS thread, same process."))
    res.tables.append(Table("Gradient method, all realisations", dg, ""))
    res.tables.append(Table("All realisations", df, ""))
    res.check("low-rank path at m = 5000 (median)", t_path, 60.0, unit=" s")
    res.check("path / one Cholesky of the Gram at m = 5000", t_path / t_chol, 60.0 / max(t_chol, 1e-9), unit="×")
    res.check("mean test error − MC Bayes error at the largest m", float(df[df.m == ms[-1]]["err"].mean()) - bayes, 0.01)
    gm = ", ".join(str(m) for m in sorted(set(dg["m"])))
    res.check(f"gradient method: mean test error − MC Bayes error, m = {gm}", float(dg["err gradient"].mean()) - bayes, 0.01)
    res.check(f"path (σ² by gradient) − gradient method: mean test error, m = {gm}",
              float((dg["err path"] - dg["err gradient"]).mean()), 0.005)
    p_lo, p_hi = min(float(r[1].split()[0]) for r in PAPER_T6), max(float(r[1].split()[0]) for r in PAPER_T6)
    res.notes = (
        f"The generator implemented exactly as printed in §4.4 has a Monte-Carlo Bayes error of "
        f"{100 * bayes:.2f}% ({n_mc} samples), not the paper's {100 * GAUSSIAN_MIXTURE['bayes_error_paper']:.2f}%; "
        f"the paper's own Table 6 path errors ({p_lo:.2f}-{p_hi:.2f}%) sit above our Monte-Carlo "
        "value, consistent with the printed densities. We did not tune the generator to hit the "
        "paper's value. The main path column uses the Table-4 heuristic σ²; the paper's σ came from "
        f"Chapelle's gradient method (columns 'path (σ² by gradient)' and 'gradient'), run m by m, "
        f"up to {RG} realisations each, within a wall budget of {gstate['budget_s']:.0f} s "
        f"(LSSVM_MIXTURE_GRADIENT_BUDGET_S; its exact-kernel steps cost O(m_E³) each): "
        + "; ".join(f"m = {m}: {int((dg['m'] == m).sum())}" for m in gms)
        + (f" (the budget stopped it before m = {gstate['stopped_at'][0]}, realisation "
           f"{gstate['stopped_at'][1] + 1}, predicted at {gstate['predicted_s']:.0f} s, after "
           f"{gstate['elapsed_s']:.0f} s)" if gstate["stopped_at"] else
           f" (all run, in {gstate['elapsed_s']:.0f} s)")
        + f"; converged on L-BFGS-B's test in {int(dg['converged'].sum())} of {len(dg)} runs. "
        "The paper does not state Table 6's threshold or landmark counts; we use "
        f"threshold {THRESHOLD}, 60% landmarks (density-weighted, m < 4000) and {N_UNIFORM} uniform "
        f"landmarks (m ≥ 4000). Realisations: {R} per m (the paper: 10). The second check restates "
        "the 60 s target as a multiple of the Cholesky time measured in this run.")
    return res
