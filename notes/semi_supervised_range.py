"""Laplacian RLS (points of loss weight 0) in the range of K against the route it took before
the fifteenth session (2026-11-30): the augmented system for a fit and a generalised-eigen
path for a weight's path.

Run: ``OMP_NUM_THREADS=1 python notes/semi_supervised_range.py`` (writes
``notes/semi_supervised_range.md``).  The old route is the committed engine with the range
refused for loss weights of 0 (``Decomposition._range_loss`` patched to ask every weight > 0,
its rule before), so both routes run interleaved in one process on the same data.

1. Accuracy: two moons, ten labels out of N, RBF width 1, kNN graph (6): the fitted values of
   both routes against the problem solved in 40-digit arithmetic (mpmath, in ``f = Kα`` with
   ``K`` and ``L`` as float64 gives them), per RKHS weight.
2. Time and agreement: ``RegularizedLSSVMClassifier(selection="loo", loo="loss")`` (the
   labelled point leaves the loss, the graph keeps it: one path per search) over 9 graph weights
   (the RKHS weight fixed), ten per cent labelled, N = 400, 800, 1600; the median of three
   interleaved runs per route and the largest difference of ``mean_test_score`` (accuracy),
   and of a ``RegularizedLSSVMRegressor``'s on the ±1 targets (negative MSE, one run each).
"""

import statistics
import subprocess
import time
from pathlib import Path

import mpmath as mp
import numpy as np
from sklearn.datasets import make_moons

from lssvm_cvx import RegularizedLSSVMClassifier, RegularizedLSSVMRegressor
from lssvm_cvx.linalg import engine
from lssvm_cvx.linalg.engine import RKHS, FittedTerm, decompose
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm, knn_laplacian

NEW = engine.Decomposition._range_loss


def old_rule(self, s):
    """The rule before the fifteenth session: the range only with every loss weight positive."""
    return self.numpy and bool(np.all(s > 0)) and int(np.count_nonzero(s)) >= 2


def route(old: bool) -> None:
    """Take the old route (``old``) or the committed one."""
    engine.Decomposition._range_loss = old_rule if old else NEW


def moons(n: int, labels: int, seed: int = 0):
    """Two moons with ``labels`` points of loss weight 1 (half per class), the rest 0."""
    X, yl = make_moons(n, noise=0.08, random_state=seed)
    s = np.zeros(n)
    rng = np.random.default_rng(seed)
    for c in (0, 1):
        s[rng.choice(np.flatnonzero(yl == c), labels // 2, replace=False)] = 1.0
    return X, yl, s


def exact_fit(K, L, s, y, wr, wg, dps=40):
    """Fitted values of min ½Σ s_i (y_i - f_i - b)² + wr/2 α'Kα + wg/2 f'Lf in ``dps`` digits:
    ``S(Kα + b - y) + wr α + wg L K α = 0``, ``1'S(Kα + b - y) = 0``."""
    mp.mp.dps = dps
    n = len(y)
    LK = mp.matrix(L.tolist()) * mp.matrix(K.tolist())
    A, r = mp.matrix(n + 1, n + 1), mp.matrix(n + 1, 1)
    for i in range(n):
        for j in range(n):
            A[i, j] = s[i] * K[i, j] + wg * LK[i, j] + (wr if i == j else 0)
        A[i, n] = s[i]
        r[i] = s[i] * y[i]
    for j in range(n):
        A[n, j] = sum(s[i] * K[i, j] for i in range(n))
    A[n, n], r[n] = sum(s), sum(s[i] * y[i] for i in range(n))
    sol = mp.lu_solve(A, r)
    a = np.array([float(sol[i]) for i in range(n)])
    return K @ a + float(sol[n])


def accuracy(lines: list[str]) -> None:
    """Part 1 of the module docstring."""
    lines += ["## 1. Fitted values against 40-digit solves (N = 120, ten labels, graph weight "
              "0.1)", "", "| RBF width σ² | RKHS weight | old route (augmented) | range |",
              "|---|---|---|---|"]
    table: list[tuple[float, float]] = []
    X, yl, s = moons(120, 10)
    y = np.where(yl == 1, 1.0, -1.0)
    L = knn_laplacian(X, 6)
    for s2 in (0.1, 1.0):
        K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / s2)
        for wr in (1e-2, 1e-4, 1e-6):
            fe, ny = exact_fit(K, L, s, y, wr, 0.1), np.linalg.norm(y)
            errs = []
            for old in (True, False):
                route(old)
                a, b = decompose(K, s, {"rkhs": (RKHS, wr), "graph": (FittedTerm(L), 0.1)}
                                 ).solve(y)
                errs.append(np.abs(K @ a + b - fe).max() / ny)
            lines.append(f"| {s2:g} | {wr:g} | {errs[0]:.1e} ‖y‖ | {errs[1]:.1e} ‖y‖ |")
            table.append((errs[0], errs[1]))
    route(False)
    old, new = np.array(table).T
    lines += ["", f"The range is the closer of the two in {int(np.sum(new < old))} of "
              f"{len(table)} rows; its largest error is {new.max():.1e} ‖y‖, the old route's "
              f"{old.max():.1e} ‖y‖."]
    if np.any(new >= old):
        lines[-1] += (f"  Where the old route is closer, the range is within "
                      f"{new[new >= old].max():.1e} ‖y‖ (it drops K's eigenvalues below the PSD "
                      "factor's cut-off).")


def timing(lines: list[str]) -> None:
    """Part 2 of the module docstring."""
    lines += ["", "## 2. The LOO search (`loo=\"loss\"`) over 9 graph weights (RKHS weight 1e-3, "
              "σ² = 0.1)", "",
              "| N | labelled | old route (s) | range (s) | old / range | accuracy scores: "
              "max diff | regressor's MSE scores: max rel. diff |", "|---|---|---|---|---|---|---|"]
    grid = {"graph": np.logspace(-3, 1, 9)}
    terms = {"rkhs": (RKHSNorm(), 1e-3), "graph": (GraphLaplacian(n_neighbors=6), 0.1)}
    for n in (400, 800, 1600):
        X, yl, s = moons(n, n // 10, seed=1)
        times: dict[bool, list[float]] = {True: [], False: []}
        scores = {}
        for _ in range(3):
            for old in (True, False):
                route(old)
                t0 = time.perf_counter()
                est = RegularizedLSSVMClassifier(sigma2=0.1, terms=terms, selection="loo",
                                                 loo="loss", weight_grid=grid).fit(
                    X, yl, sample_weight=s)
                times[old].append(time.perf_counter() - t0)
                scores[old] = est.cv_results_["mean_test_score"]
        to, tr = statistics.median(times[True]), statistics.median(times[False])
        diff = np.abs(scores[True] - scores[False]).max()
        mse = {}
        for old in (True, False):      # the regressor on ±1 targets: scores that vary smoothly
            route(old)
            mse[old] = RegularizedLSSVMRegressor(
                sigma2=0.1, terms=terms, selection="loo", loo="loss", weight_grid=grid).fit(
                X, 2.0 * yl - 1, sample_weight=s).cv_results_["mean_test_score"]
        rel = np.abs(mse[True] - mse[False]).max() / np.abs(mse[False]).max()
        lines.append(f"| {n} | {int(s.sum())} | {to:.2f} | {tr:.2f} | {to / tr:.2f} | "
                     f"{diff:.1e} | {rel:.1e} |")
    route(False)


def main() -> None:
    """Both parts, written beside this script."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    lines = ["# Laplacian RLS in the range of K (generated by `notes/semi_supervised_range.py`"
             f", code at {commit}; do not edit)", ""]
    accuracy(lines)
    timing(lines)
    Path(__file__).with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
