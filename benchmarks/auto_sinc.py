"""Auto LS-SVM on the note's sinc problem (issue 7): test RMSE over seeds, 90 % interval
coverage, fit/predict time, against grid-searched KernelRidge and SVR and (when installed) the
``neo-ls-svm`` package's defaults, all on the same data in the same process.

Data: ``problems.get_problem("sinc_auto", seed=s)`` — x ~ U(-5, 5), y = sin(πx)/(πx) + N(0, 0.3²),
200 training points, 500 noise-free test points.  Coverage is measured on the test inputs with
fresh noise of the same law (seeded per seed), since the noise-free targets would be covered
trivially.  The note itself reports no experiments: the "targets" table holds the targets of
issues 7 and 17, not numbers from the paper.

Bound and diagnosis (issue 17): the plain LS-SVM (AReg paper eq. 2, bias, ``K + I/γ``, RBF
``exp(-||x-z||²/σ²)``) with its (γ, σ²) chosen ON THE TEST SET over a fine grid is the bound the
default is held to (within 10 %).  Where the gap comes from is measured in the same run by
closing one candidate cause at a time: the same plain LS-SVM with (γ, σ²) chosen by exact LOO
over the same grid (LOO vs test), the Auto LS-SVM with a 4× finer width grid (the width grid),
and the Auto LS-SVM's own (γ, μ, ν) chosen on the test set (the model class and its normalised
hyperparameters).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from lssvm_cvx import AutoLSSVMRegressor, problems
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


#: the (γ, σ²) grid of the plain LS-SVM oracle and of its LOO twin (raw inputs, x in [-5, 5])
ORACLE_SIGMA2 = np.logspace(-1, 2, 31)
ORACLE_GAMMA = np.logspace(-3, 5, 49)
#: the Auto LS-SVM grid of its own test-set oracle (normalised hyperparameters)
AUTO_ORACLE_GRID = {"kernel_gamma": np.logspace(-0.5, 1.5, 9), "mu": np.r_[0.0, np.logspace(-3, 3, 13)],
                    "nu": np.logspace(-4, 2, 13)}
#: the 4× finer width grid of the diagnosis (the default has 9 widths, half a decade apart)
FINE_WIDTHS = np.logspace(-1.5, 2.5, 33)


def lssvm_grid_scores(X, y, X_test, y_test, sigma2_grid, gamma_grid):
    """Test RMSE, exact LOO mean squared residual and log evidence of the plain LS-SVM (AReg eq. 2: ``[0 1';
    1 K + I/γ] [b; α] = [0; y]``, ``f(x) = K(x)α + b``, ``K = exp(-||x - z||²/σ²)``) at every
    (σ², γ) of the grid: one eigendecomposition ``K = UΛU'`` per σ², then every γ in O(N²).

    LOO: ``r_i = α_i / (H⁻¹)_ii`` with ``H⁻¹`` the α-block of the inverse of the bordered matrix,
    ``(K + I/γ)⁻¹ - h h'/(1'h)``, ``h = (K + I/γ)⁻¹ 1`` (Cawley & Talbot 2004); checked against
    :class:`lssvm_cvx.LSSVMRegressor` and brute-force refits in ``tests/test_auto_bench.py``.

    Evidence (the LS-SVM's Bayesian model selection, Van Gestel et al. 2002): ``f ~ GP(0, s²k)``,
    noise ``N(0, s²/γ)``, a flat prior on ``b``, ``s²`` at its maximum-likelihood value
    ``ŝ² = y'Py/(N - 1)`` with ``C = K + I/γ``, ``P = C⁻¹ - C⁻¹11'C⁻¹/(1'C⁻¹1)`` (so ``y'Py = y'α``)::

        log p(y) = -(N - 1)/2 (log(2π ŝ²) + 1) - ½ log|C| - ½ log(1'C⁻¹1),

    checked in the tests against the Gaussian density with a ``N(0, τ²)`` prior on ``b`` as
    ``τ → ∞``.  Returns three arrays of shape (len(sigma2_grid), len(gamma_grid)).
    """
    from lssvm_cvx.kernels import RBF

    n = len(y)
    test = np.empty((len(sigma2_grid), len(gamma_grid)))
    loo = np.empty_like(test)
    evidence = np.empty_like(test)
    for i, s2 in enumerate(sigma2_grid):
        kern = RBF(sigma2=float(s2))
        lam, U = np.linalg.eigh(kern(X, X))
        lam = np.maximum(lam, 0.0)  # round-off negatives of the PSD Gram
        Kt = kern(X_test, X)
        Uy, U1, U2 = U.T @ y, U.sum(axis=0), U ** 2
        for j, g in enumerate(gamma_grid):
            w = 1.0 / (lam + 1.0 / g)
            hy, h1 = U @ (w * Uy), U @ (w * U1)
            b = hy.sum() / h1.sum()
            alpha = hy - b * h1
            test[i, j] = np.sqrt(np.mean((Kt @ alpha + b - y_test) ** 2))
            loo[i, j] = np.mean((alpha / (U2 @ w - h1 ** 2 / h1.sum())) ** 2)
            s2_hat = float(y @ alpha) / (n - 1)
            evidence[i, j] = (-(n - 1) / 2 * (np.log(2 * np.pi * s2_hat) + 1)
                              - 0.5 * np.sum(np.log(lam + 1.0 / g)) - 0.5 * np.log(h1.sum()))
    return test, loo, evidence


def auto_grid_test_rmse(X, y, X_test, y_test, grid=None) -> np.ndarray:
    """Test RMSE of the Auto LS-SVM (the default estimator's basis: standardised inputs and
    targets, exact dual basis, RKHS margin) at every (γ, μ, ν) of ``grid``; shape (γ, μ, ν)."""
    from lssvm_cvx.exceptions import ConditioningWarning
    from lssvm_cvx.linalg.penalized import PenalizedLS
    from lssvm_cvx.terms.gradient_basis import exact_basis
    from lssvm_cvx.terms.gradient_norm import affine_dim, n_informative_columns

    grid = AUTO_ORACLE_GRID if grid is None else grid
    xm, xs = X.mean(axis=0), X.std(axis=0)
    ym, ys = y.mean(), y.std()
    Xs, Xts = (X - xm) / xs, (X_test - xm) / xs
    p, c = n_informative_columns(Xs), affine_dim(Xs)
    out = np.full((len(grid["kernel_gamma"]), len(grid["mu"]), len(grid["nu"])), np.nan)
    with warnings.catch_warnings():  # the grid's corners are ill-conditioned; they only compete on test RMSE
        warnings.simplefilter("ignore", ConditioningWarning)
        for i, g in enumerate(grid["kernel_gamma"]):
            B = exact_basis(Xs, float(g), p=p, c=c, margin="rkhs")
            pr = PenalizedLS(B.Phi, (y - ym) / ys, B.G, B.R)
            Pt = B.transform(Xts)
            for j, mu in enumerate(grid["mu"]):
                for k, nu in enumerate(grid["nu"]):
                    fit = pr.fit(float(mu), float(nu))
                    pred = (Pt @ fit.theta + fit.b)[:, 0] * ys + ym
                    out[i, j, k] = np.sqrt(np.mean((pred - y_test) ** 2))
    return out


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
    fine = AutoLSSVMRegressor(kernel_gamma_grid=FINE_WIDTHS).fit(ds.X, ds.y)
    rows.append({"seed": seed, "method": DIAG_FINE, "γ": fine.kernel_gamma_, "μ": fine.mu_, "ν": fine.nu_,
                 "test RMSE": float(np.sqrt(np.mean((fine.predict(ds.X_test) - ds.y_test) ** 2)))})
    test, loo, evidence = lssvm_grid_scores(ds.X, ds.y, ds.X_test, ds.y_test, ORACLE_SIGMA2, ORACLE_GAMMA)
    i, j = np.unravel_index(np.argmin(test), test.shape)
    rows.append({"seed": seed, "method": ORACLE, "test RMSE": float(test[i, j]),
                 "LS-SVM γ": float(ORACLE_GAMMA[j]), "LS-SVM σ²": float(ORACLE_SIGMA2[i])})
    i, j = np.unravel_index(np.argmin(loo), loo.shape)
    rows.append({"seed": seed, "method": DIAG_LOO, "test RMSE": float(test[i, j]),
                 "LS-SVM γ": float(ORACLE_GAMMA[j]), "LS-SVM σ²": float(ORACLE_SIGMA2[i])})
    i, j = np.unravel_index(np.argmax(evidence), evidence.shape)
    rows.append({"seed": seed, "method": DIAG_EVID, "test RMSE": float(test[i, j]),
                 "LS-SVM γ": float(ORACLE_GAMMA[j]), "LS-SVM σ²": float(ORACLE_SIGMA2[i])})
    auto = auto_grid_test_rmse(ds.X, ds.y, ds.X_test, ds.y_test)
    i, j, k = np.unravel_index(np.nanargmin(auto), auto.shape)
    rows.append({"seed": seed, "method": DIAG_AUTO_ORACLE, "test RMSE": float(auto[i, j, k]),
                 "γ": float(AUTO_ORACLE_GRID["kernel_gamma"][i]), "μ": float(AUTO_ORACLE_GRID["mu"][j]),
                 "ν": float(AUTO_ORACLE_GRID["nu"][k])})
    return rows


ORACLE = "plain LS-SVM, (γ, σ²) chosen on the test set (bound)"
DIAG_LOO = "diagnosis: plain LS-SVM, (γ, σ²) by exact LOO on the same grid"
DIAG_EVID = "diagnosis: plain LS-SVM, (γ, σ²) by maximum evidence on the same grid"
DIAG_FINE = "diagnosis: Auto LS-SVM, 4× finer width grid"
DIAG_AUTO_ORACLE = "diagnosis: Auto LS-SVM, (γ, μ, ν) chosen on the test set (bound)"


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
    res.tables.append(Table(f"Test error over {len(seeds)} seeds", agg,
                            "RMSE against the noise-free sinc; coverage of 90 % intervals on fresh noisy "
                            "targets at the 500 test inputs (jackknife+ for ours; neo-ls-svm's conformal "
                            "predict_interval); fit/predict times are single wall-clock runs on a shared "
                            "machine (the ratio below is the interleaved measurement).  Rows marked "
                            "'(bound)' choose hyperparameters on the test set: bounds, not methods.  "
                            f"Plain LS-SVM grid: σ² in {len(ORACLE_SIGMA2)} log-spaced values "
                            f"[{ORACLE_SIGMA2[0]:g}, {ORACLE_SIGMA2[-1]:g}] × γ in {len(ORACLE_GAMMA)} "
                            f"[{ORACLE_GAMMA[0]:g}, {ORACLE_GAMMA[-1]:g}]; Auto LS-SVM oracle grid: "
                            + ", ".join(f"{k} {len(v)} values [{v[0]:g}, {v[-1]:g}]"
                                        for k, v in AUTO_ORACLE_GRID.items()) + "."))
    targets = pd.DataFrame([
        {"quantity": "default estimator, mean test RMSE over the seeds", "target": "≤ 0.07", "source": "issue 7"},
        {"quantity": "default / plain LS-SVM test-set oracle over (γ, σ²)", "target": "≤ 1.10", "source": "issue 17"},
        {"quantity": "grid-tuned KernelRidge test RMSE", "target": "about 0.064", "source": "issue 7"},
        {"quantity": "interval coverage at 90 %", "target": "87 % – 93 %", "source": "issue 7"},
        {"quantity": "fit time vs neo-ls-svm defaults", "target": "ratio ≤ 1", "source": "issue 7"}])
    res.tables.append(Table("Targets (issue targets: the note reports no experiments)", targets,
                            "The note (Sorber 2017) has no experiments and no numbers; these are the "
                            "targets set by the project's issues."))
    res.tables.append(Table("Per seed", df, "All runs."))
    auto = df[df.method == "Auto LS-SVM (default)"]
    mean_rmse = float(auto["test RMSE"].mean())
    res.check("default estimator: mean test RMSE over the seeds", mean_rmse, 0.07)
    krr = float(df[df.method == "KernelRidge, 5-fold grid"]["test RMSE"].mean())
    res.check("default estimator / grid-searched KernelRidge, mean test RMSE", mean_rmse / krr, 1.0, unit="×")

    def mean_of(method: str) -> float:
        return float(df[df.method == method]["test RMSE"].mean())

    oracle = mean_of(ORACLE)
    res.check("default estimator / plain LS-SVM test-set oracle over (γ, σ²), mean test RMSE",
              mean_rmse / oracle, 1.10, unit="×")
    cov = float(auto["coverage"].mean())
    res.check("|interval coverage − 90 %| (points)", abs(cov - COVERAGE) * 100, 3.0)
    loo, fine, auto_or, evid = mean_of(DIAG_LOO), mean_of(DIAG_FINE), mean_of(DIAG_AUTO_ORACLE), mean_of(DIAG_EVID)
    mu0 = mean_of("Auto LS-SVM, μ = 0 (no gradient term)")
    wins = int(np.sum(auto.set_index("seed")["test RMSE"]
                      < df[df.method == "Auto LS-SVM, μ = 0 (no gradient term)"].set_index("seed")["test RMSE"]))
    n_mu = int(np.sum(auto["μ"] > 0))
    diag = pd.DataFrame([
        {"candidate cause": "none (the default estimator)", "method": "Auto LS-SVM (default)",
         "mean RMSE": mean_rmse, "÷ plain LS-SVM oracle": mean_rmse / oracle},
        {"candidate cause": "LOO vs test (selection by exact LOO, same model and grid as the bound)",
         "method": DIAG_LOO, "mean RMSE": loo, "÷ plain LS-SVM oracle": loo / oracle},
        {"candidate cause": "the LOO criterion's variance (a smoother criterion, same model and grid)",
         "method": DIAG_EVID, "mean RMSE": evid, "÷ plain LS-SVM oracle": evid / oracle},
        {"candidate cause": "width grid (4× finer)", "method": DIAG_FINE, "mean RMSE": fine,
         "÷ plain LS-SVM oracle": fine / oracle},
        {"candidate cause": "model class / normalised hyperparameters (test-set choice of (γ, μ, ν))",
         "method": DIAG_AUTO_ORACLE, "mean RMSE": auto_or, "÷ plain LS-SVM oracle": auto_or / oracle},
        {"candidate cause": "gradient-norm term switched off", "method": "Auto LS-SVM, μ = 0 (no gradient term)",
         "mean RMSE": mu0, "÷ plain LS-SVM oracle": mu0 / oracle}])
    res.tables.append(Table("Where the gap to the oracle comes from", diag,
                            "Each row closes one candidate cause of the gap between the default and the "
                            "plain LS-SVM test-set oracle, in this run on the same seeds."))
    gap = mean_rmse - oracle
    gap_share = ("more than" if loo - oracle >= gap else f"{(loo - oracle) / gap:.0%} of") if gap > 0 else "against"
    notes = [f"Mean test RMSE: ours {mean_rmse:.4f}, plain LS-SVM test-set oracle over (γ, σ²) {oracle:.4f} "
             f"(ratio {mean_rmse / oracle:.3f}), KernelRidge 5-fold grid {krr:.4f}.",
             f"Diagnosis.  The same plain LS-SVM with (γ, σ²) chosen by exact LOO on the oracle's own grid "
             f"reaches {loo:.4f} ({loo / oracle:.3f} × the oracle): choosing by LOO instead of by the test "
             f"set costs {loo - oracle:.4f}, {gap_share} the default's gap of {mean_rmse - oracle:.4f}, "
             f"i.e. the gap is the variance of selecting on 200 noisy points, not the width grid (4× finer: "
             f"{fine:.4f}) or of the model class (the Auto LS-SVM's own test-set choice of (γ, μ, ν) reaches "
             f"{auto_or:.4f}, {auto_or / oracle:.3f} × the plain oracle).  A criterion with less variance "
             f"than LOO, the evidence of the Bayesian LS-SVM on the same grid, reaches {evid:.4f} "
             f"({evid / oracle:.3f} × the oracle).  The default's LOO search "
             f"{'beats' if mean_rmse < loo else 'does not beat'} LOO on the plain LS-SVM ({mean_rmse:.4f} vs "
             f"{loo:.4f}); against its μ = 0 twin ({mu0:.4f}) the "
             f"default wins on {wins} of {len(seeds)} seeds, and it selects μ > 0 on {n_mu}.  Where the "
             "gradient-norm term matters more, see benchmarks/results/auto_gradient.md."]
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
                            "BLAS on 200 × 200 matrices was much slower for every method (development runs)."))
    if "neo-ls-svm fit" in med:
        res.check("fit time: Auto LS-SVM / neo-ls-svm (interleaved medians)",
                  med["Auto LS-SVM fit"] / med["neo-ls-svm fit"], 1.0, unit="×")
    sel = auto[["γ", "μ", "ν"]].describe().loc[["min", "50%", "max"]].reset_index().rename(columns={"index": "stat"})
    res.tables.append(Table("Selected normalised hyperparameters (default estimator)", sel,
                            "γ is the width of exp(-(γ/p)||x-z||²) on standardised inputs; μ, ν the "
                            "normalised weights of eq. (9) (lssvm_cvx.selection.auto)."))
    res.figures["fit"] = _figure(0)
    below = int(np.sum(df[df.method == ORACLE]["test RMSE"] <= 0.07))
    notes.append(f"The issue-7 target of ≤ 0.07 is {'below' if oracle > 0.07 else 'above'} the mean of the "
                 f"plain LS-SVM test-set oracle on these seeds ({oracle:.4f}; the oracle is ≤ 0.07 on "
                 f"{below} of {len(seeds)} seeds); we report the mean over all seeds rather than choosing seeds.")
    res.notes = "\n\n".join(notes)
    res.meta = {"seeds": seeds, "noise": NOISE, "coverage": COVERAGE}
    return res
