"""Issue 30: what fewer exact evaluations would cost the screened (γ, σ²) LOO search.

The screened search (``LSSVMRegressor(selection="loo", search="screen")``) scores every
candidate of the 17 γ × 9 σ² grid on a Nyström screen, then scores exactly the
``SCREEN_SHORTLIST = 2`` best σ² around their screened γ (a window of ±1, widened while the
exact optimum sits on its edge).  At N = 3000 it is at parity with one eigendecomposition
(``notes/loo_parity.py``); below parity needs fewer exact evaluations.  This measures, before
anyone changes the default, what a shortlist of one would do against the exhaustive grid
(``search="grid"``, one eigendecomposition per σ²) on three problems generated from seeds
(ten seeds each, N = 600 and N = 3000): how often each search selects the grid's candidate, the selected
candidate's exact LOO MSE over the grid's best (1 = the grid's optimum), the test RMSE over
the grid's, and the exact evaluations.  Then the time of both searches against one eigh at
N = 3000 (the scaling benchmark's sinc problem, five interleaved triples, one BLAS thread).

After this measurement the LS-SVM's shortlist became one (the constant
``SCREEN_SHORTLIST_WIDTHS``, which this script now sets; the composed searches keep
``SCREEN_SHORTLIST = 2``, ``notes/screen_shortlist_composed.py``).

Run: ``OMP_NUM_THREADS=1 python notes/screen_shortlist.py`` (about 20 minutes; it writes
``notes/screen_shortlist.md``, the commit and the command beside the tables), or
``python notes/screen_shortlist.py N [problem ...]`` for one size and some problems (printed
only, no timing).
"""

import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from sklearn.datasets import make_friedman1
from threadpoolctl import threadpool_limits

import lssvm_cvx.estimators.regularized_search as rs
from lssvm_cvx import LSSVMRegressor
from lssvm_cvx.harness.files import current_commit
from lssvm_cvx.kernels import RBF


def problem(name: str, seed: int, n: int) -> tuple[np.ndarray, ...]:
    """Training and test sets (2000 test points, noise-free targets)."""
    rng = np.random.default_rng(seed)
    if name == "friedman1":
        X, y = make_friedman1(n + 2000, noise=0.0, random_state=seed)
        y_noisy = y + 1.0 * rng.standard_normal(y.size)
        return X[:n], y_noisy[:n], X[n:], y[n:]
    d = 1 if name == "sinc" else 2
    X = rng.uniform(-3, 3, (n + 2000, d))
    f = np.sinc(X[:, 0]) if d == 1 else np.sinc(X[:, 0]) * X[:, 1]
    return X[:n], f[:n] + 0.1 * rng.standard_normal(n), X[n:], f[n:]


def fit(search: str, shortlist: int, X: np.ndarray, y: np.ndarray) -> LSSVMRegressor:
    """The LS-SVM's LOO search (``search``: "grid" or "screen") with a shortlist of ``shortlist``."""
    saved = rs.SCREEN_SHORTLIST_WIDTHS
    rs.SCREEN_SHORTLIST_WIDTHS = shortlist
    try:
        return LSSVMRegressor(selection="loo", search=search, random_state=0,
                              sigma2_grid="auto").fit(X, y)
    finally:
        rs.SCREEN_SHORTLIST_WIDTHS = saved


def rmse(est: LSSVMRegressor, X: np.ndarray, y: np.ndarray) -> float:
    """Test RMSE."""
    return float(np.sqrt(np.mean((est.predict(X) - y) ** 2)))


LINES: list[str] = []


def out(line: str) -> None:
    """Print a line of the report and keep it for the file."""
    print(line, flush=True)
    LINES.append(line)


SIZES = [int(sys.argv[1])] if len(sys.argv) > 1 else [600, 3000]
PROBLEMS = sys.argv[2:] or ["sinc", "sinc2d", "friedman1"]
out("| problem | N | search | same candidate as the grid | selected LOO MSE / grid's best: "
    "median, max | test RMSE / grid's: median, max | exact LOO evaluations: mean |")
out("|---|---|---|---|---|---|---|")
for n in SIZES:
    for name in PROBLEMS:
        rows: dict[int, list[tuple[bool, float, float, int]]] = {2: [], 1: []}
        for seed in range(10):
            X, y, Xt, yt = problem(name, seed, n)
            grid = fit("grid", 2, X, y)
            for k in rows:
                est = fit("screen", k, X, y)
                rows[k].append(((est.gamma_, est.sigma2_) == (grid.gamma_, grid.sigma2_),
                                est.best_score_ / grid.best_score_,
                                rmse(est, Xt, yt) / rmse(grid, Xt, yt),
                                int(est.cv_results_["n_exact"])))
        for k, r in rows.items():
            same, loo, test, n_exact = map(np.array, zip(*r))
            out(f"| {name} | {n} | screen, shortlist {k} | {int(same.sum())}/{same.size} | "
                f"{np.median(loo):.4f}, {loo.max():.4f} | {np.median(test):.4f}, "
                f"{test.max():.4f} | {n_exact.mean():.1f} |")
if len(sys.argv) > 1:
    sys.exit()

n = 3000
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (n, 1))
y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
times: dict[str, list[float]] = {"eigh": [], "shortlist 2": [], "shortlist 1": []}
with threadpool_limits(limits=1, user_api="blas"):
    for _ in range(5):
        for key in times:
            t0 = time.perf_counter()
            if key == "eigh":
                np.linalg.eigh(RBF(1.0)(X))
            else:
                fit("screen", int(key[-1]), X, y)
            times[key].append(time.perf_counter() - t0)
e = np.median(times["eigh"])
out("")
out(f"N = {n}, five interleaved triples, medians: eigh {e:.3f} s; " + "; ".join(
    f"{k} {np.median(v):.3f} s ({np.median(v) / e:.3f} of eigh)" for k, v in times.items()
    if k != "eigh"))
# the code measured (with a hash of the sources where they differ from the commit)
commit = current_commit() or "(not a git checkout)"
Path(__file__).with_suffix(".md").write_text(
    "# The screened LOO search with a shortlist of one (issue 30)\n\n"
    f"Generated by `OMP_NUM_THREADS=1 python notes/screen_shortlist.py` at commit {commit}, "
    f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} "
    f"UTC, {platform.processor() or platform.machine()}; see the script's docstring for what is "
    "measured.\n\n" + "\n".join(LINES) + "\n", encoding="utf-8")
