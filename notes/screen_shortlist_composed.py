"""Issue 30: a shortlist of one for the *other* screened searches (classifiers, composed terms).

``notes/screen_shortlist.py`` measured what ``SCREEN_SHORTLIST = 1`` does to the LS-SVM's
(γ, σ²) LOO regression search.  The same constant serves every screened search
(:func:`lssvm_cvx.estimators.regularized_search.search`): the classifiers' LOO search, scored
by accuracy and screened by the error rate, and the composed searches of
``RegularizedLSSVMRegressor(loo="loss")`` whose other terms' weights form a grid (each
(σ², other weights) candidate is screened; the shortlist is the best screened candidates).
This measures, on problems generated from seeds (ten seeds each, N = 500, and N = 1200 for
the classifier, whose grid is cheaper), for
shortlists of 2 (today's) and 1 against the exhaustive grid (``search="grid"``): how often the
screen selects the grid's candidate, the selected candidate's exact LOO score over the grid's
best (MSE ratio for regression, 1 = the grid's optimum; accuracy difference, grid's minus the
screen's, for classification: 0 = as good), the test error over the grid's, and the mean
number of exact evaluations.

Run: ``OMP_NUM_THREADS=1 python notes/screen_shortlist_composed.py`` (about 50 minutes; it
writes ``notes/screen_shortlist_composed.md`` with the commit), or
``python notes/screen_shortlist_composed.py N [case ...]`` for one size (printed only).
"""

import platform
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import is_classifier
from sklearn.datasets import make_classification, make_friedman1, make_moons

import lssvm_cvx.estimators.regularized_search as rs
from lssvm_cvx import LSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.harness.files import current_commit
from lssvm_cvx.terms import GradientNorm, GraphLaplacian, Ridge, RKHSNorm


def regression(name: str, seed: int, n: int) -> tuple[np.ndarray, ...]:
    """Training and test sets (2000 test points, noise-free targets)."""
    rng = np.random.default_rng(seed)
    if name == "friedman1":
        X, y = make_friedman1(n + 2000, noise=0.0, random_state=seed)
        return X[:n], y[:n] + rng.standard_normal(n), X[n:], y[n:]
    X = rng.uniform(-3, 3, (n + 2000, 2))
    f = np.sinc(X[:, 0]) * X[:, 1]
    return X[:n], f[:n] + 0.1 * rng.standard_normal(n), X[n:], f[n:]


def classification(name: str, seed: int, n: int) -> tuple[np.ndarray, ...]:
    """Training and test sets (2000 test points), labels 0/1."""
    if name == "moons":
        X, y = make_moons(n + 2000, noise=0.3, random_state=seed)
    else:
        X, y = make_classification(n + 2000, n_features=5, n_informative=3, n_redundant=0,
                                   flip_y=0.05, class_sep=0.8, random_state=seed)
    return X[:n], y[:n], X[n:], y[n:]


def composed(extra: str) -> dict[str, Any]:
    """A composed regressor's parameters: the RKHS norm (swept as a path) and one other term
    whose weight is a grid of three, the held-out point leaving the loss only."""
    term = {"ridge": Ridge(), "gradient": GradientNorm(), "graph": GraphLaplacian(10)}[extra]
    return dict(terms={"rkhs": (RKHSNorm(), 1.0), extra: (term, 1e-2)}, loo="loss",
                weight_grid={"rkhs": rs.DEFAULT_WEIGHT_GRID, extra: [1e-4, 1e-2, 1.0]})


#: case -> (estimator class, its parameters, data, problems, sizes)
CASES: dict[str, tuple[Any, dict[str, Any], Any, list[str], list[int]]] = {
    "classifier": (LSSVMClassifier, {}, classification, ["moons", "gauss5"], [500, 1200]),
    "rkhs + ridge": (RegularizedLSSVMRegressor, composed("ridge"), regression,
                     ["friedman1", "sinc2d"], [500]),
    "rkhs + gradient": (RegularizedLSSVMRegressor, composed("gradient"), regression,
                        ["friedman1", "sinc2d"], [500]),
    "rkhs + graph": (RegularizedLSSVMRegressor, composed("graph"), regression,
                     ["friedman1", "sinc2d"], [500]),
}


def fit(case: str, search: str, shortlist: int, X: np.ndarray, y: np.ndarray) -> Any:
    """The case's LOO search (``search``: "grid" or "screen") with a shortlist of ``shortlist``."""
    cls, params, _, _, _ = CASES[case]
    saved = rs.SCREEN_SHORTLIST, rs.SCREEN_SHORTLIST_WIDTHS
    rs.SCREEN_SHORTLIST = rs.SCREEN_SHORTLIST_WIDTHS = shortlist
    try:
        return cls(selection="loo", search=search, random_state=0, sigma2_grid="auto",
                   **params).fit(X, y)
    finally:
        rs.SCREEN_SHORTLIST, rs.SCREEN_SHORTLIST_WIDTHS = saved


def test_error(est: Any, X: np.ndarray, y: np.ndarray) -> float:
    """Test RMSE (regression) or error rate (classification)."""
    if is_classifier(est):
        return float(np.mean(est.predict(X) != y))
    return float(np.sqrt(np.mean((est.predict(X) - y) ** 2)))


def chosen(est: Any) -> tuple:
    """The selected candidate (σ² and every searched weight)."""
    return tuple(sorted(est.best_params_.items()))


LINES: list[str] = []


def out(line: str) -> None:
    """Print a line of the report and keep it for the file."""
    print(line, flush=True)
    LINES.append(line)


# the code measured, when the run starts (with a hash of the sources where they differ from it)
commit = current_commit() or "(not a git checkout)"
ONLY = int(sys.argv[1]) if len(sys.argv) > 1 else None
WANTED = sys.argv[2:] or list(CASES)
out("| case | problem | N | shortlist | same candidate as the grid | selected LOO score against "
    "the grid's best: median, worst | test error / grid's: median, max | exact LOO "
    "evaluations: mean (grid: candidates) |")
out("|---|---|---|---|---|---|---|---|")
for case in WANTED:
    _, _, data, problems, sizes = CASES[case]
    for n in [ONLY] if ONLY else sizes:
        for name in problems:
            rows: dict[int, list[tuple[bool, float, float, int]]] = {2: [], 1: []}
            n_grid = 0
            for seed in range(10):
                X, y, Xt, yt = data(name, seed, n)
                grid = fit(case, "grid", 2, X, y)
                n_grid = len(grid.cv_results_["params"])
                for k in rows:
                    est = fit(case, "screen", k, X, y)
                    if data is classification:   # accuracy: the grid's minus the screen's
                        gap = grid.best_score_ - est.best_score_
                    else:                        # MSE ratio (scores are minus the MSE)
                        gap = est.best_score_ / grid.best_score_
                    rows[k].append((chosen(est) == chosen(grid), round(gap, 12) + 0.0,
                                    test_error(est, Xt, yt) / test_error(grid, Xt, yt),
                                    int(est.cv_results_["n_exact"])))
            for k, r in rows.items():
                same, gap, test, n_exact = map(np.array, zip(*r))
                worst = gap.max()
                out(f"| {case} | {name} | {n} | {k} | {int(same.sum())}/{same.size} | "
                    f"{np.median(gap):.4f}, {worst:.4f} | {np.median(test):.4f}, "
                    f"{test.max():.4f} | {n_exact.mean():.1f} ({n_grid}) |")
if len(sys.argv) > 1:
    sys.exit()
Path(__file__).with_suffix(".md").write_text(
    "# A shortlist of one for the classifiers' and the composed screened searches (issue 30)\n\n"
    f"Generated by `OMP_NUM_THREADS=1 python notes/screen_shortlist_composed.py` at commit "
    f"{commit}, "
    f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}"
    "; see the script's docstring for what is measured. The LOO score column is the MSE ratio "
    "(1 = the grid's optimum) for the regressors and the accuracy the grid's best exceeds the "
    "selected candidate's by (0 = as good) for the classifier.\n\n" + "\n".join(LINES) + "\n",
    encoding="utf-8")
