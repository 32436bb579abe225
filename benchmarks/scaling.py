"""Model selection at scale (issue 16): fit time and peak memory against N for the Auto LS-SVM
and ``LSSVMRegressor(approximation="nystroem")`` (streamed Nyström designs), scikit-learn's
Nystroem(500)+RidgeCV and neo-ls-svm (when the ``bench`` extra is installed), with fitted
log-log slopes; and the exact LOO selection of ``LSSVMRegressor`` (γ, σ²) and of
``RegularizedLSSVMRegressor`` (weight, σ²) at N = 3000 (screened vs exhaustive grid) against one
eigendecomposition of the N × N Gram in the same run.

Data: ``make_friedman1(N, n_features=10, noise=1.0)`` from seeds (test: 5000 noise-free points);
sinc ``y = sinc(x) + 0.1 ε`` on [-3, 3] for the LOO selection (test: 2000 noise-free points).
Every (method, N) fit runs in a fresh subprocess with one BLAS thread; its peak memory is the
child's own high-water mark, ``VmHWM`` of ``/proc/self/status`` (no grandchildren: the process
tree is that one process; ``ru_maxrss`` where there is no ``/proc``).  Not ``ru_maxrss`` on
Linux: it keeps the parent's peak across ``fork`` + ``exec``, so when ``scaling`` ran after other
benchmarks in one ``lssvm-cvx bench`` process every row read the bench process's peak (1875 MB
for every method and N at cf47788, the sklearn fit at N = 1000 included).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd

from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register

CHILD = r"""
import json, resource, sys, time, numpy as np
from sklearn.datasets import make_friedman1
method, n = sys.argv[1], int(sys.argv[2])
X, y = make_friedman1(n, n_features=10, noise=1.0, random_state=0)
Xt, yt = make_friedman1(5000, n_features=10, noise=0.0, random_state=10_000)
t0 = time.perf_counter()
ran = ""
if method == "ours":
    from lssvm_cvx import AutoLSSVMRegressor
    est = AutoLSSVMRegressor(random_state=0, progress=False).fit(X, y)
    ran = str(est.approximation_)
elif method == "lssvm_nystroem":
    from lssvm_cvx import LSSVMRegressor
    est = LSSVMRegressor(approximation="nystroem", n_components=500, selection="loo", sigma2_grid="auto",
                         random_state=0).fit(X, y)
    ran = f"{est.approximation_}, (gamma, sigma2) = ({est.gamma_:.3g}, {est.sigma2_:.3g}) by LOO"
elif method == "sklearn":
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    est = make_pipeline(StandardScaler(), Nystroem(n_components=500, gamma=0.1, random_state=0),
                        RidgeCV(alphas=np.logspace(-3, 3, 7))).fit(X, y)
else:
    from neo_ls_svm import NeoLSSVM
    est = NeoLSSVM().fit(X, y)
fit = time.perf_counter() - t0
rmse = float(np.sqrt(np.mean((est.predict(Xt) - yt) ** 2)))
try:  # the process's own peak (ru_maxrss would keep the parent's across fork + exec)
    with open("/proc/self/status") as fh:
        peak = next(int(ln.split()[1]) for ln in fh if ln.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"fit": fit, "rmse": rmse, "ran": ran, "peak_mb": peak}))
"""


HUGEPAGE_CHILD = r"""
import json, sys
from lssvm_cvx.benchmarks.scaling import _loo_selection
print(json.dumps(_loo_selection(int(sys.argv[1]), int(sys.argv[2]), grid=False)))
"""


def _env(**extra: str) -> dict[str, str]:
    """A child's environment: one BLAS thread, and the parent's ``PYTHONPATH`` (a worktree's
    code, not the editable install's, when a result is regenerated from a worktree)."""
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PATH": "/usr/bin:/bin", **extra}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _thp(setting: str) -> str:
    """The host's transparent-huge-page ``setting`` (``enabled``, ``defrag``): the bracketed
    choice of ``/sys/kernel/mm/transparent_hugepage/<setting>``, or "n/a"."""
    try:
        with open(f"/sys/kernel/mm/transparent_hugepage/{setting}") as fh:
            text = fh.read()
    except OSError:
        return "n/a"
    return text[text.find("[") + 1:text.find("]")] if "[" in text else text.strip()


def _hugepage_rows(n: int, reps: int) -> list[dict]:
    """The LOO selection of :func:`_loo_selection` (LSSVMRegressor) at ``n``, in two fresh
    processes: NumPy's huge-page advice on (its default) and off (``NUMPY_MADVISE_HUGEPAGE=0``).

    Added 2026-12-06, when the check at the largest N went unmet on that day's host with the
    code of the previous committed run as well (notes/engine.md, twenty-fifth session, has the
    measurements and the profile: the time went to first touches of fresh arrays).  NumPy
    advises huge pages for large arrays; where the kernel's THP ``defrag`` is ``madvise``, such
    a page fault may compact memory synchronously.  Until the twenty-seventh session (the same
    day) the screened search allocated two N × N arrays per exact weight beside its Gram; since
    then the Gram and one copy of it per shortlisted width (notes/engine.md), one eigh its own
    outputs: the table shows whether the advice still moves the ratio.
    """
    rows = []
    thp = {"THP enabled": _thp("enabled"), "THP defrag": _thp("defrag")}
    for advice, label in (("1", "on (NumPy's default)"), ("0", "off (NUMPY_MADVISE_HUGEPAGE=0)")):
        t = _run(HUGEPAGE_CHILD, [n, reps], 1800.0, _env(NUMPY_MADVISE_HUGEPAGE=advice))
        keep = ("eigh [s]", "screened search + fit [s]", "screen / eigh", "status")
        rows.append({"N": n, "NumPy huge-page advice": label, **thp,
                     **{k: t[k] for k in keep if k in t}})
    return rows


def _run(code: str, args: list, timeout: float, env: dict[str, str]) -> dict:
    """Run ``code`` in a fresh process: the JSON of its last line with ``status`` "ok", or
    only ``status`` (a timeout, or the last line of a failure's stderr)."""
    try:
        out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                             text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout {timeout:.0f} s"}
    if out.returncode != 0:
        return {"status": (out.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "status": "ok"}


def _child(method: str, n: int, timeout: float) -> dict:
    return {"fit": np.nan, "rmse": np.nan, "peak_mb": np.nan, "ran": "",
            **_run(CHILD, [method, n], timeout, _env())}


def _loo_selection(n: int, reps: int, grid: bool) -> dict:
    from threadpoolctl import threadpool_limits

    from lssvm_cvx import LSSVMRegressor
    from lssvm_cvx.kernels import RBF

    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (n, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
    Xt = np.linspace(-3, 3, 2000)[:, None]
    yt = np.sinc(Xt[:, 0])
    est = LSSVMRegressor(selection="loo", search="screen", random_state=0, sigma2_grid="auto")
    with threadpool_limits(limits=1, user_api="blas"):
        t = interleaved_times({"eigh": lambda: np.linalg.eigh(RBF(1.0)(X)),
                               "screen": lambda: est.fit(X, y)}, reps, warmup=0)
        out = {"N": n, "eigh [s]": float(np.median(t["eigh"])),
               "screened search + fit [s]": float(np.median(t["screen"])),
               "screened RMSE": float(np.sqrt(np.mean((est.predict(Xt) - yt) ** 2))),
               "screened (gamma, sigma2)": f"({est.gamma_:.3g}, {est.sigma2_:.3g})",
               "exact LOO evaluations": int(est.cv_results_["n_exact"])}
        if grid:
            full = LSSVMRegressor(selection="loo", search="grid", sigma2_grid="auto")
            t0 = time.perf_counter()
            full.fit(X, y)
            out["grid search + fit [s]"] = time.perf_counter() - t0
            out["grid RMSE"] = float(np.sqrt(np.mean((full.predict(Xt) - yt) ** 2)))
            out["grid (gamma, sigma2)"] = f"({full.gamma_:.3g}, {full.sigma2_:.3g})"
    out["screen / eigh"] = out["screened search + fit [s]"] / out["eigh [s]"]
    return out


def _composed_selection(n: int, reps: int) -> dict:
    """The same search for the composition core (RegularizedLSSVMRegressor, default RKHS term):
    the screened (σ², weight) search against one eigh, and the exhaustive grid once."""
    from threadpoolctl import threadpool_limits

    from lssvm_cvx import RegularizedLSSVMRegressor
    from lssvm_cvx.kernels import RBF

    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (n, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
    Xt = np.linspace(-3, 3, 2000)[:, None]
    yt = np.sinc(Xt[:, 0])
    est = RegularizedLSSVMRegressor(selection="loo", search="screen", random_state=0,
                                    sigma2_grid="auto")
    rmse = lambda e: float(np.sqrt(np.mean((e.predict(Xt) - yt) ** 2)))  # noqa: E731
    with threadpool_limits(limits=1, user_api="blas"):
        t = interleaved_times({"eigh": lambda: np.linalg.eigh(RBF(1.0)(X)),
                               "screen": lambda: est.fit(X, y)}, reps, warmup=0)
        full = RegularizedLSSVMRegressor(selection="loo", search="grid", sigma2_grid="auto")
        t0 = time.perf_counter()
        full.fit(X, y)
        t_grid = time.perf_counter() - t0
    out = {"N": n, "eigh [s]": float(np.median(t["eigh"])),
           "screened search + fit [s]": float(np.median(t["screen"])),
           "screened RMSE": rmse(est),
           "screened (weight, sigma2)": f"({est.terms_['rkhs'][1]:.3g}, {est.sigma2_:.3g})",
           "exact LOO evaluations": int(np.isfinite(est.cv_results_["mean_test_score"]).sum()),
           "grid search + fit [s]": t_grid, "grid RMSE": rmse(full),
           "grid (weight, sigma2)": f"({full.terms_['rkhs'][1]:.3g}, {full.sigma2_:.3g})"}
    out["screen / eigh"] = out["screened search + fit [s]"] / out["eigh [s]"]
    return out


@register("scaling", "Model selection at scale: time and memory vs N, LOO selection vs eigh")
def run(ctx: Context) -> BenchResult:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [1_000, 10_000] if ctx.quick else [1_000, 10_000, 100_000, 1_000_000]
    try:
        import neo_ls_svm  # noqa: F401

        methods = ["ours", "lssvm_nystroem", "sklearn", "neo"]
    except ImportError:
        methods = ["ours", "lssvm_nystroem", "sklearn"]
    short = {"ours": "AutoLSSVMRegressor", "lssvm_nystroem": "LSSVMRegressor(nystroem, loo)",
             "sklearn": "Nystroem(500)+RidgeCV", "neo": "neo-ls-svm"}
    names = {"ours": "AutoLSSVMRegressor (defaults)",
             "lssvm_nystroem": "LSSVMRegressor(approximation='nystroem', n_components=500, "
                               "selection='loo'; σ² on a 20000-row subsample above 20000 rows)",
             "sklearn": "sklearn Nystroem(500)+RidgeCV", "neo": "neo-ls-svm NeoLSSVM"}
    rows = []
    for n in sizes:
        for m in methods:
            if m == "neo" and n > 100_000:
                continue
            r = _child(m, n, timeout=1800.0)
            rows.append({"N": n, "method": names[m], "short": short[m], "ran": r.get("ran", ""),
                         "fit [s]": r["fit"],
                         "peak RSS [MB]": r["peak_mb"], "test RMSE": r["rmse"], "status": r["status"]})
            if ctx.progress:
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    loo_sizes = [500, 1000] if ctx.quick else [1000, 2000, 3000]
    # five interleaved pairs per size (three until 2026-11-29): the ratio at N = 3000 sits near
    # 1 and a median of three moved by ±0.1 between runs of the same code on this machine
    loo = [_loo_selection(n, ctx.reps(full=5, quick=1), grid=n == loo_sizes[-1]) for n in loo_sizes]
    composed = [_composed_selection(1000 if ctx.quick else 3000, ctx.reps(full=5, quick=1))]
    hugepages = _hugepage_rows(loo_sizes[-1], ctx.reps(full=5, quick=1))
    res = BenchResult("scaling", "Model selection at scale (Friedman #1, d = 10; sinc for LOO)")
    slopes = []
    fig, ax = plt.subplots(1, 3, figsize=(13, 4))
    for name, g in df.dropna().groupby("method"):
        for k, col in enumerate(("fit [s]", "peak RSS [MB]")):
            ax[k].loglog(g["N"], g[col], "o-", label=g["short"].iloc[0])
        if len(g) >= 2:
            slopes.append({"method": name,
                           "time slope": float(np.polyfit(np.log(g["N"]), np.log(g["fit [s]"]), 1)[0]),
                           "memory slope": float(np.polyfit(np.log(g["N"]), np.log(g["peak RSS [MB]"]), 1)[0])})
    lf = pd.DataFrame(loo)
    ax[2].loglog(lf["N"], lf["eigh [s]"], "s--", color="grey", label="one eigh of the Gram")
    ax[2].loglog(lf["N"], lf["screened search + fit [s]"], "o-", label="LOO (γ, σ²) search + fit")
    for k, lab in enumerate(("fit time [s]", "peak RSS [MB]", "seconds (LOO selection, sinc)")):
        ax[k].set_xlabel("N")
        ax[k].set_ylabel(lab)
        ax[k].legend(fontsize=7)
    ax[0].set_title("fit time (Friedman #1, d = 10)", fontsize=9)
    ax[1].set_title("peak memory of the fitting process", fontsize=9)
    ax[2].set_title("exact LOO selection vs one eigendecomposition", fontsize=9)
    fig.tight_layout()
    res.figures["scaling"] = fig
    df = df.drop(columns="short")
    res.tables.append(Table("Fit time, peak memory and test RMSE against N", df,
                            "One fit per (method, N) in a fresh subprocess, one BLAS thread."))
    res.tables.append(Table("Fitted log-log slopes", pd.DataFrame(slopes)))
    res.tables.append(Table("Exact (γ, σ²) LOO selection against one eigendecomposition", pd.DataFrame(loo),
                            "LSSVMRegressor(selection='loo', search='screen'); eigh and the screened "
                            "search interleaved (5 pairs), medians; the exhaustive grid (17 γ × 9 σ², one "
                            "eigh per σ²) once, at the largest N."))
    res.tables.append(Table("Composed formulations: exact (weight, σ²) LOO selection against one "
                            "eigendecomposition", pd.DataFrame(composed),
                            "RegularizedLSSVMRegressor(selection='loo', search='screen') with the default "
                            "RKHS term (17 weights × 9 σ²); eigh and the screened search interleaved (5 "
                            "pairs), medians; the exhaustive grid (one eigh per σ²) once."))
    res.tables.append(Table("The host's transparent huge pages and the LOO selection",
                            pd.DataFrame(hugepages),
                            "LSSVMRegressor's screened (γ, σ²) search against one eigh as above, each "
                            "row in a fresh process (5 interleaved pairs, medians), NumPy's huge-page "
                            "advice on and off; THP: the host's /sys/kernel/mm/transparent_hugepage "
                            "settings.  The check below is on the first table (the default advice)."))
    # <= 1 one eigh: issue 30's bound for the LOO (γ, σ²) search (<= 3 until 2026-11-30: the
    # search sat near 1 while it scored two widths exactly, at 0.44 since it scores one)
    for label, L in (("LSSVMRegressor", loo[-1]), ("RegularizedLSSVMRegressor", composed[0])):
        res.check(f"{label}: LOO selection time / one eigh (N = {L['N']})", L["screen / eigh"], 1.0)
        res.check(f"{label}: screened test RMSE / exhaustive-grid test RMSE",
                  L["screened RMSE"] / L["grid RMSE"], 1.05)
    big = df[df.N == max(sizes)].set_index("method")
    s = big.loc[names["sklearn"]]
    for key, label in (("ours", "AutoLSSVMRegressor"), ("lssvm_nystroem", "LSSVMRegressor(nystroem)")):
        o = big.loc[names[key]]
        res.check(f"N = {max(sizes)}: {label} fit time / Nystroem+RidgeCV",
                  float(o["fit [s]"] / s["fit [s]"]), 0.5)
        res.check(f"N = {max(sizes)}: {label} test RMSE / Nystroem+RidgeCV",
                  float(o["test RMSE"] / s["test RMSE"]), 0.5)
        res.check(f"N = {max(sizes)}: {label} peak memory", float(o["peak RSS [MB]"]) / 1e3, 2.0,
                  unit=" GB")
    res.notes = ("neo-ls-svm is included when the `bench` extra is installed"
                 + ("" if "neo" in methods else " (it was not in this run)") + ".")
    res.meta = {"sizes": sizes}
    return res
