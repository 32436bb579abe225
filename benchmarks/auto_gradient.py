"""When does the gradient-norm term of the Auto LS-SVM (Sorber 2017, eq. 9 and 40-44) help?
(issue 17).  The default estimator (γ, μ, ν tuned by exact LOO) against the same estimator with
the term switched off (``mu=0``: γ and ν tuned by the same LOO search), on the same data, over
seeds, for problem classes where the term was expected to matter and for controls.

Why it can help.  For ``f = Σ α_i k(·, x_i)`` the two penalties of eq. (9) weigh the Fourier
transform of ``f`` differently: the RKHS norm ``α'Kα = ∫ |f̂(ω)|² / k̂(ω) dω`` grows like
``exp(||ω||²/(4γ))`` (a Gaussian kernel's RKHS norm all but forbids frequencies above the
kernel's), while the gradient norm ``α'Gα = ∫ ||∇f||² = ∫ ||ω||² |f̂(ω)|² dω`` (eq. 40) grows only
like ``||ω||²`` (a first-order Sobolev seminorm: it leaves constants free and lets sharp features
through at a price).  With the gradient term doing the smoothing, LOO can pick a narrow kernel
that represents a jump or a fast oscillation without fitting the noise elsewhere, and across a
gap without data the minimiser of ``∫ f'²`` interpolates nearly linearly instead of decaying to
the mean between narrow bumps.  Where the target is globally smooth (Friedman #1, sinc at the
note's noise level) the two regularisers should do about equally well.

Classes (x uniform unless said; test: 500 noise-free points over the whole input range):

* ``doppler`` — varying smoothness: ``f(x) = sqrt(x(1 - x)) sin(2.1π/(x + 0.05))`` on [0, 1]
  (Donoho & Johnstone), N = 400, noise σ = 0.05;
* ``step`` — a discontinuity: ``f(x) = 1[x > 0]`` on [-1, 1], N = 100, σ = 0.1;
* ``sinc with a gap`` — sparse-data region: sinc on [-5, 5] with no training input in (1, 3)
  (the first 200 of the draws outside it), σ = 0.1, tested over all of [-5, 5];
* ``2-D sinc with a hole`` — the same in two inputs: ``sinc(x₁) sinc(x₂)`` on [-3, 3]² with no
  training input within distance 1 of (1, 1) (the first 200 draws outside), σ = 0.1;
* controls: ``kink`` (``|x|`` on [-1, 1], N = 100, σ = 0.1), ``heteroscedastic sinc`` (σ = 0.05
  for x < 0, 0.55 for x > 0, N = 200), ``clustered inputs`` (sinc, σ = 0.1, 200 inputs in four
  clusters of sd 0.4 around -4, -1, 2, 4.5, tested on all of [-5, 5]: the term is expected to
  hurt here) and ``Friedman #1`` (10 inputs, N = 200, σ = 1).

The classes and the targets were chosen in development runs on seeds 0-19 (the same
comparison); the claims are checked here on seeds ``SEED0`` onwards.  Disclosure: a quick run
of a first version of this benchmark (three classes, Doppler at σ = 0.1, target 0.95) had
already shown seeds ``SEED0`` to ``SEED0 + 3`` before the classes and targets were fixed, so 4 of
the 20 seeds of the full run are not fresh.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lssvm_cvx import AutoLSSVMRegressor
from lssvm_cvx.bench import BenchResult, Context, Table, register

#: first seed of the benchmark (the development run that found the classes used seeds 0-9)
SEED0 = 1000
#: classes where the gradient-norm term is claimed to help (the others are controls)
HELPS = ("doppler", "step", "sinc with a gap", "2-D sinc with a hole")
CONTROLS = ("kink", "heteroscedastic sinc", "clustered inputs", "Friedman #1")
#: claimed bound on mean RMSE(default) / mean RMSE(μ = 0) for each class in HELPS
RATIO_TARGET = 0.97
#: claimed bound on the geometric mean of those ratios over HELPS
GEOMEAN_TARGET = 0.92


def make_problem(name: str, seed: int):
    """``(X, y, X_test, f_test)`` of one class and seed (module docstring)."""
    rng = np.random.default_rng(seed)
    if name == "doppler":
        def f(x):
            return np.sqrt(x * (1 - x)) * np.sin(2.1 * np.pi / (x + 0.05))
        X, Xt = rng.uniform(0, 1, (400, 1)), rng.uniform(0, 1, (500, 1))
        return X, f(X[:, 0]) + 0.05 * rng.standard_normal(400), Xt, f(Xt[:, 0])
    if name in ("step", "kink"):
        def f(x):
            return (x > 0).astype(float) if name == "step" else np.abs(x)
        X, Xt = rng.uniform(-1, 1, (100, 1)), rng.uniform(-1, 1, (500, 1))
        return X, f(X[:, 0]) + 0.1 * rng.standard_normal(100), Xt, f(Xt[:, 0])
    if name == "sinc with a gap":
        X = rng.uniform(-5, 5, (400, 1))
        X = X[np.abs(X[:, 0] - 2.0) > 1.0][:200]
        Xt = rng.uniform(-5, 5, (500, 1))
        return X, np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(len(X)), Xt, np.sinc(Xt[:, 0])
    if name == "2-D sinc with a hole":
        def f(X):
            return np.sinc(X[:, 0]) * np.sinc(X[:, 1])
        X = rng.uniform(-3, 3, (600, 2))
        X = X[np.linalg.norm(X - 1.0, axis=1) > 1.0][:200]
        Xt = rng.uniform(-3, 3, (500, 2))
        return X, f(X) + 0.1 * rng.standard_normal(len(X)), Xt, f(Xt)
    if name == "clustered inputs":
        centre = rng.choice([-4.0, -1.0, 2.0, 4.5], 200)
        X = (centre + 0.4 * rng.standard_normal(200))[:, None]
        Xt = rng.uniform(-5, 5, (500, 1))
        return X, np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(200), Xt, np.sinc(Xt[:, 0])
    if name == "heteroscedastic sinc":
        X, Xt = rng.uniform(-5, 5, (200, 1)), rng.uniform(-5, 5, (500, 1))
        s = np.where(X[:, 0] > 0, 0.55, 0.05)
        return X, np.sinc(X[:, 0]) + s * rng.standard_normal(200), Xt, np.sinc(Xt[:, 0])
    if name == "Friedman #1":
        from sklearn.datasets import make_friedman1

        X, y = make_friedman1(200, n_features=10, noise=1.0, random_state=seed)
        Xt, ft = make_friedman1(500, n_features=10, noise=0.0, random_state=seed + 100_000)
        return X, y, Xt, ft
    raise ValueError(f"unknown problem class {name!r}")


def one_job(item: tuple[str, int]) -> list[dict]:
    from threadpoolctl import threadpool_limits

    name, seed = item
    X, y, Xt, ft = make_problem(name, seed)
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        for method, kw in (("default", {}), ("μ = 0", {"mu": 0.0})):
            m = AutoLSSVMRegressor(**kw).fit(X, y)
            rows.append({"class": name, "seed": seed, "method": method,
                         "test RMSE": float(np.sqrt(np.mean((m.predict(Xt) - ft) ** 2))),
                         "γ": m.kernel_gamma_, "μ": m.mu_, "ν": m.nu_, "LOO MSE": m.loo_score_})
    return rows


@register("auto_gradient", "Auto LS-SVM: problem classes where the gradient-norm term helps (vs μ = 0)",
          paper="auto-lssvm-sorber-2017")
def run(ctx: Context) -> BenchResult:
    from scipy.stats import wilcoxon

    n_seeds = ctx.reps(full=20, quick=4)
    seeds = list(range(SEED0, SEED0 + n_seeds))
    items = [(c, s) for c in HELPS + CONTROLS for s in seeds]
    df = pd.DataFrame([r for rs in ctx.map(one_job, items, desc="class x seed") for r in rs])
    res = BenchResult("auto_gradient", "Auto LS-SVM: when the gradient-norm term helps")
    summary = []
    for c in HELPS + CONTROLS:
        a = df[(df["class"] == c) & (df.method == "default")].set_index("seed")
        b = df[(df["class"] == c) & (df.method == "μ = 0")].set_index("seed").loc[a.index]
        d = a["test RMSE"] - b["test RMSE"]
        p = float(wilcoxon(a["test RMSE"], b["test RMSE"]).pvalue) if np.any(d != 0) else 1.0
        summary.append({"class": c, "role": "claimed to help" if c in HELPS else "control",
                        "seeds": len(a), "mean RMSE default": a["test RMSE"].mean(),
                        "mean RMSE μ = 0": b["test RMSE"].mean(),
                        "ratio": a["test RMSE"].mean() / b["test RMSE"].mean(),
                        "default better (seeds)": int(np.sum(d < 0)),
                        "Wilcoxon p (two-sided)": p,
                        "μ > 0 selected (seeds)": int(np.sum(a["μ"] > 0)),
                        "median μ": float(a["μ"].median()),
                        "median γ default": float(a["γ"].median()), "median γ μ = 0": float(b["γ"].median())})
    sm = pd.DataFrame(summary)
    res.tables.append(Table(f"Default (γ, μ, ν by LOO) vs μ = 0 (γ, ν by LOO), {n_seeds} seeds per class", sm,
                            "Test RMSE against the noise-free target; ratio = mean RMSE of the default / "
                            "mean RMSE with the gradient-norm term off; paired over the same seeds "
                            f"({SEED0}-{SEED0 + n_seeds - 1}); γ is the normalised width of "
                            "exp(-(γ/p)||x - z||²) on standardised inputs."))
    for c in HELPS:
        r = sm[sm["class"] == c].iloc[0]
        res.check(f"{c}: mean RMSE default / μ = 0", float(r["ratio"]), RATIO_TARGET, unit="×")
    helps = sm[sm["class"].isin(HELPS)]
    res.check("classes where it helps: geometric mean of the ratios default / μ = 0",
              float(np.exp(np.mean(np.log(helps["ratio"])))), GEOMEAN_TARGET, unit="×")
    res.check("classes where it helps: share of seeds where LOO selects μ > 0",
              float(helps["μ > 0 selected (seeds)"].sum() / helps["seeds"].sum()), 0.9,
              higher_is_better=True)
    res.tables.append(Table("Per seed", df, "All runs."))
    lines = []
    for _, r in sm.iterrows():
        lines.append(f"{r['class']} ({r['role']}): default {r['mean RMSE default']:.4f} vs μ = 0 "
                     f"{r['mean RMSE μ = 0']:.4f} (ratio {r['ratio']:.3f}), default better on "
                     f"{r['default better (seeds)']} of {r['seeds']} seeds (Wilcoxon p = "
                     f"{r['Wilcoxon p (two-sided)']:.2g}), μ > 0 chosen on {r['μ > 0 selected (seeds)']}, "
                     f"median width γ {r['median γ default']:.3g} with the term vs {r['median γ μ = 0']:.3g} without.")
    res.notes = "\n\n".join(lines)
    res.meta = {"seeds": seeds, "helps": list(HELPS), "controls": list(CONTROLS), "ratio_target": RATIO_TARGET,
                "geomean_target": GEOMEAN_TARGET}
    return res
