"""Auto LS-SVM on the note's sinc problem (issue 7): test RMSE over seeds, 90 % interval
coverage, fit/predict time, against grid-searched KernelRidge and SVR and (when installed) the
``neo-ls-svm`` package's defaults, all on the same data in the same process.

Data: ``problems.get_problem("sinc_auto", seed=s)`` — x ~ U(-5, 5), y = sin(πx)/(πx) + N(0, 0.3²),
200 training points, 500 noise-free test points.  Coverage is measured on the test inputs with
fresh noise of the same law (seeded per seed), since the noise-free targets would be covered
trivially.  The note itself reports no numbers; the "reference" table holds the issue's targets.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lssvm_cvx import problems
from lssvm_cvx import AutoLSSVMRegressor
from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register

NOISE = 0.3
COVERAGE = 0.9


def neo_available() -> bool:
    try:
        import neo_ls_svm  # noqa: F401
    except Exception:
        return False
    return True


def krr_grid():
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import GridSearchCV

    return GridSearchCV(KernelRidge(kernel="rbf"),
                        {"alpha": np.logspace(-4, 1, 11), "gamma": np.logspace(-2, 2, 13)}, cv=5)


def svr_grid():
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVR

    return GridSearchCV(SVR(kernel="rbf"), {"C": np.logspace(-1, 2, 4), "gamma": np.logspace(-1, 1, 5),
                                            "epsilon": [0.05, 0.2, 0.4]}, cv=5)


def krr_oracle_rmse(ds) -> float:
    """Best test RMSE of centred KernelRidge over a fine (alpha, gamma) grid, chosen ON THE TEST
    SET: a lower bound for any tuning rule of that model, for context only."""
    from sklearn.kernel_ridge import KernelRidge

    best = np.inf
    for g in np.logspace(-1, 1.5, 16):
        for a in np.logspace(-4, 1, 21):
            m = KernelRidge(kernel="rbf", gamma=g, alpha=a).fit(ds.X, ds.y - ds.y.mean())
            best = min(best, float(np.sqrt(np.mean((m.predict(ds.X_test) + ds.y.mean() - ds.y_test) ** 2))))
    return best


def one_seed(seed: int) -> list[dict]:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _one_seed(seed)


def _one_seed(seed: int) -> list[dict]:
    ds = problems.get_problem("sinc_auto", seed=seed)
    y_noisy = ds.y_test + NOISE * np.random.default_rng(10_000 + seed).standard_normal(ds.y_test.size)
    rows = []
    models = {"Auto LS-SVM (default)": lambda: AutoLSSVMRegressor(),
              "Auto LS-SVM, μ = 0 (no gradient term)": lambda: AutoLSSVMRegressor(mu=0.0),
              "Auto LS-SVM, untuned γ = μ = ν = 1": lambda: AutoLSSVMRegressor(kernel_gamma=1.0, mu=1.0, nu=1.0),
              "KernelRidge, 5-fold grid": krr_grid,
              "SVR, 5-fold grid": svr_grid}
    if neo_available():
        from neo_ls_svm import NeoLSSVM

        models["neo-ls-svm (defaults)"] = lambda: NeoLSSVM()
    for name, make in models.items():
        m = make()
        t0 = time.perf_counter()
        m.fit(ds.X, ds.y)
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        p = np.asarray(m.predict(ds.X_test), dtype=float)
        t_pred = time.perf_counter() - t0
        row = {"seed": seed, "method": name, "test RMSE": float(np.sqrt(np.mean((p - ds.y_test) ** 2))),
               "fit [s]": t_fit, "predict [s]": t_pred, "coverage": np.nan, "mean width": np.nan}
        if hasattr(m, "predict_interval") and name != "Auto LS-SVM, untuned γ = μ = ν = 1":
            iv = np.asarray(m.predict_interval(ds.X_test, coverage=COVERAGE), dtype=float)
            row["coverage"] = float(np.mean((y_noisy >= iv[:, 0]) & (y_noisy <= iv[:, 1])))
            row["mean width"] = float(np.mean(iv[:, 1] - iv[:, 0]))
        if isinstance(m, AutoLSSVMRegressor):
            row.update({"γ": m.kernel_gamma_, "μ": m.mu_, "ν": m.nu_})
        rows.append(row)
    rows.append({"seed": seed, "method": "KernelRidge, test-set oracle (bound)",
                 "test RMSE": krr_oracle_rmse(ds)})
    return rows


def _figure(seed: int = 0):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ds = problems.get_problem("sinc_auto", seed=seed)
    m = AutoLSSVMRegressor().fit(ds.X, ds.y)
    xs = np.linspace(-5, 5, 400)[:, None]
    iv = m.predict_interval(xs, coverage=COVERAGE)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.fill_between(xs[:, 0], iv[:, 0], iv[:, 1], alpha=0.25, label="90 % jackknife+ interval")
    ax.plot(ds.X[:, 0], ds.y, ".", ms=3, color="gray", label="training data")
    ax.plot(xs[:, 0], np.sinc(xs[:, 0]), "k--", lw=1, label="sin(πx)/(πx)")
    ax.plot(xs[:, 0], m.predict(xs), lw=1.5, label=f"Auto LS-SVM (γ={m.kernel_gamma_:.3g}, μ={m.mu_:.3g}, ν={m.nu_:.3g})")
    ax.legend(fontsize=7, loc="upper right")
    ax.set_xlabel("x")
    fig.tight_layout()
    return fig


@register("auto_sinc", "Auto LS-SVM on sinc: RMSE, interval coverage, time vs KRR/SVR grid and neo-ls-svm",
          paper="auto-lssvm-sorber-2017")
def run(ctx: Context) -> BenchResult:
    seeds = list(range(ctx.reps(full=20, quick=4)))
    rows = [r for rs in ctx.map(one_seed, seeds, desc="sinc seeds") for r in rs]
    df = pd.DataFrame(rows)
    agg = df.groupby("method", sort=False).agg(
        **{"mean RMSE": ("test RMSE", "mean"), "median RMSE": ("test RMSE", "median"),
           "max RMSE": ("test RMSE", "max"), "coverage (90 %)": ("coverage", "mean"),
           "mean width": ("mean width", "mean"), "median fit [s]": ("fit [s]", "median"),
           "median predict [s]": ("predict [s]", "median")}).reset_index()
    res = BenchResult("auto_sinc", "Auto LS-SVM on the note's sinc problem (200 train / 500 test, σ = 0.3)")
    ref = pd.DataFrame([{"quantity": "default estimator, test RMSE over the seeds", "target (issue 7)": "≤ 0.07"},
                        {"quantity": "grid-tuned KernelRidge test RMSE", "target (issue 7)": "about 0.064"},
                        {"quantity": "interval coverage at 90 %", "target (issue 7)": "87 % – 93 %"},
                        {"quantity": "fit time vs neo-ls-svm defaults", "target (issue 7)": "ratio ≤ 1"}])
    res.tables.append(Table(f"Test error over {len(seeds)} seeds", agg,
                            "RMSE against the noise-free sinc; coverage of 90 % intervals on fresh noisy "
                            "targets at the 500 test inputs (jackknife+ for ours; neo-ls-svm's conformal "
                            "predict_interval); fit/predict times are single wall-clock runs on a shared "
                            "machine (the ratio below is the interleaved measurement).  The test-set oracle "
                            "row picks KernelRidge's (α, γ) on the test set: a bound, not a method.",
                            paper=ref))
    res.tables.append(Table("Per seed", df, "All runs."))
    auto = df[df.method == "Auto LS-SVM (default)"]
    mean_rmse = float(auto["test RMSE"].mean())
    res.check("default estimator: mean test RMSE over the seeds", mean_rmse, 0.07)
    krr = float(df[df.method == "KernelRidge, 5-fold grid"]["test RMSE"].mean())
    res.check("default estimator / grid-searched KernelRidge, mean test RMSE", mean_rmse / krr, 1.0, unit="×")
    oracle = float(df[df.method == "KernelRidge, test-set oracle (bound)"]["test RMSE"].mean())
    cov = float(auto["coverage"].mean())
    res.check("|interval coverage − 90 %| (points)", abs(cov - COVERAGE) * 100, 3.0)
    notes = [f"Mean test RMSE: ours {mean_rmse:.4f}, KernelRidge 5-fold grid {krr:.4f}, KernelRidge "
             f"test-set oracle {oracle:.4f} (the best any (α, γ) of that model reaches on these seeds)."]
    # timing: ours vs neo-ls-svm, interleaved, same data
    ds0 = problems.get_problem("sinc_auto", seed=0)
    funcs = {"Auto LS-SVM fit": lambda: AutoLSSVMRegressor().fit(ds0.X, ds0.y)}
    if neo_available():
        from neo_ls_svm import NeoLSSVM

        neo = df[df.method == "neo-ls-svm (defaults)"]
        res.check("default estimator / neo-ls-svm defaults, mean test RMSE",
                  mean_rmse / float(neo["test RMSE"].mean()), 1.0, unit="×")
        funcs["neo-ls-svm fit"] = lambda: NeoLSSVM().fit(ds0.X, ds0.y)
        neo_cov = float(neo["coverage"].mean())
        notes.append(f"neo-ls-svm defaults: mean test RMSE {float(neo['test RMSE'].mean()):.4f}, "
                     f"90 % interval coverage {neo_cov:.3f}.")
    else:
        notes.append("neo-ls-svm is not installed: its column and the fit-time ratio are skipped "
                     "(pip install neo-ls-svm, or the project's `bench` extra).")
    funcs["KernelRidge grid fit"] = lambda: krr_grid().fit(ds0.X, ds0.y)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        t = interleaved_times(funcs, ctx.reps(full=9, quick=3))
    med = {k: float(np.median(v)) for k, v in t.items()}
    trows = [{"fit": k, "median [s]": v, "ratio to Auto LS-SVM": v / med["Auto LS-SVM fit"]}
             for k, v in med.items()]
    res.tables.append(Table("Fit time, interleaved (seed 0)", pd.DataFrame(trows),
                            "Medians of interleaved repetitions in this process (neo-ls-svm warmed up, "
                            "so its numba compilation is excluded).  Every method runs with one BLAS "
                            "thread here and in the table above: on the shared 2-core machine, threaded "
                            "BLAS on 200 × 200 matrices was 10-100× slower for every method."))
    if "neo-ls-svm fit" in med:
        res.check("fit time: Auto LS-SVM / neo-ls-svm (interleaved medians)",
                  med["Auto LS-SVM fit"] / med["neo-ls-svm fit"], 1.0, unit="×")
    sel = auto[["γ", "μ", "ν"]].describe().loc[["min", "50%", "max"]].reset_index().rename(columns={"index": "stat"})
    res.tables.append(Table("Selected normalised hyperparameters (default estimator)", sel,
                            "γ is the width of exp(-(γ/p)||x-z||²) on standardised inputs; μ, ν the "
                            "normalised weights of eq. (9) (lssvm_cvx.selection.auto)."))
    res.figures["fit"] = _figure(0)
    res.notes = "\n\n".join(notes) + (
        "\n\nThe ≤ 0.07 target is below what the grid-tuned and even the test-set-tuned KernelRidge reach "
        "on average over these seeds (the issue's 0.064 matches single seeds such as 0 and 1); we report "
        "the mean over all seeds rather than choosing seeds.")
    res.meta = {"seeds": seeds, "noise": NOISE, "coverage": COVERAGE}
    return res
