"""Issue 30: the composed exact step where the pencils are refused (the kNN graph term) — does
the range-of-K representation give the exact LOO path from one eigendecomposition?

Where the exact step is slow (``notes/composed_exact_step.md``: RKHS norm + kNN graph term,
6 augmented systems of order 2N + 1 at N = 2000, their ``Z`` refined on every column because
the LU needed its ridge on α), both generalised pencils of
:func:`lssvm_cvx.linalg.quadratic.generalized_path` are refused.  Both terms see α only
through ``f = Kα``: ``α'Kα`` and ``α'KLKα = f'Lf``.  With ``K = UΛU'`` and
``β = Λ^{1/2}U'α`` (the numerical null space of ``K`` dropped: ``λ_j > tol λ_max``), the
problem is the primal one of :class:`lssvm_cvx.linalg.primal.DesignDecomposition` on the
design ``Φ = U Λ^{1/2}`` (N × r) with the penalties ``β'β`` (the RKHS norm, ``RKHS`` in the
design representation) and ``β'Gβ``, ``G = Φ'LΦ``.  ``f = Φβ`` and every penalty are the
same functions of the fit, so the leave-one-out of ``loo="loss"`` (point i's loss term
dropped, the terms kept) is the same problem, except for the dropped directions.  This
script measures, per N (2-D sinc of ``composed_exact_step.py``, σ² = 1, the graph weight
1e-2, the RKHS weight's 17-value grid, one BLAS thread):

* the range representation's LOO residuals against the engine's exact ones (the augmented
  system per weight, ``form.decomposition().system(w, representation="augmented").loo(y)``;
  the engine itself takes the range of K here since the thirteenth session), worst over the
  weights below 1e-3 and over the others, and at the engine's best weight, relative to
  ``||y||``;
* for N = 300, both against brute-force refits at the engine's best weight (20 points, each
  refit the engine's solve with that point's loss weight set to 0);
* the time of the range path (the eigh of K, the design, its path) against the engine's
  systems (3 of the 17 weights timed, scaled to the 6 the search factorises) and one eigh;
* which of the two is right where they differ (small weights, an ill-conditioned K): both
  against refits in 100-digit arithmetic (mpmath) on 120 points in [-1.5, 1.5]² (K's
  smallest eigenvalue about 1e-13 of its largest), 5 left-out points per weight.  The
  refit is the problem in ``f = Kα`` (K positive definite in exact arithmetic:
  ``α'Kα = f'K⁻¹f``, ``α'KLKα = f'Lf``), with K computed in that precision from the same
  inputs and the same graph.

Run: ``OMP_NUM_THREADS=1 python notes/graph_range_path.py`` (writes
``notes/graph_range_path.md`` with the commit), ``python notes/graph_range_path.py N`` for
one size (printed only).  Nothing in the package changes here: this is the measurement the
"Next" item of ``notes/engine.md`` asked for before a representation is written.
"""

import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import mpmath as mp
import numpy as np
from threadpoolctl import threadpool_limits

from lssvm_cvx.estimators.regularized_search import DEFAULT_WEIGHT_GRID
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.harness.files import current_commit
from lssvm_cvx.kernels import RBF
from lssvm_cvx.linalg.engine import RKHS, decompose
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm

TOL = 1e-12          #: eigenvalues of K below TOL * max are dropped
WG = 1e-2            #: the graph term's weight
LINES: list[str] = []


def out(line: str) -> None:
    """Print a line of the report and keep it for the file."""
    print(line, flush=True)
    LINES.append(line)


def range_path(K: np.ndarray, L: np.ndarray, y: np.ndarray, ws: np.ndarray
               ) -> tuple[np.ndarray, int]:
    """LOO residuals along the RKHS weights ``ws`` from the range representation, and r."""
    lam, U = np.linalg.eigh(K)
    keep = lam > TOL * lam[-1]
    Phi = U[:, keep] * np.sqrt(lam[keep])
    G = Phi.T @ L @ Phi
    dd = decompose(Phi, 1.0, {"rkhs": (RKHS, 1.0), "graph": (G, WG)}, design=True)
    _, _, R = dd.path("rkhs", ws, y)
    return np.array(R), int(keep.sum())


def exact_refits(n: int = 120, dps: int = 100) -> None:
    """The engine's and the range path's LOO residuals against refits in ``dps`` digits."""
    mp.mp.dps = dps
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.5, 1.5, (n, 2))
    y = np.sinc(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(n)
    form = RegularizedLSSVM(X, y, kernel=RBF(1.0),
                            terms={"rkhs": (RKHSNorm(), 1.0), "graph": (GraphLaplacian(10), WG)})
    K, L = form.context.K, GraphLaplacian(10).laplacian(form.context)
    lam = np.linalg.eigvalsh(K)
    ws_x = [1e-5, 1e-4, 1e-3, 1e-1]
    R_range, r = range_path(K, L, y, np.array(ws_x))
    Xm = [[mp.mpf(float(v)) for v in row] for row in X]
    Km = mp.matrix(n, n)
    for i in range(n):
        for j in range(n):     # RBF(σ² = 1): exp(-||x - z||²)
            Km[i, j] = mp.exp(-sum((Xm[i][k] - Xm[j][k]) ** 2 for k in range(2)))
    A0 = mp.inverse(Km)
    Lm = mp.matrix([[mp.mpf(float(v)) for v in row] for row in L])
    ym = [mp.mpf(float(v)) for v in y]
    ny = float(np.linalg.norm(y))
    out("")
    out(f"Against refits in {dps}-digit arithmetic, N = {n} in [-1.5, 1.5]², K's eigenvalues "
        f"{lam[0]:.1e} to {lam[-1]:.1e} in float64, r = {r}; the worst of 5 left-out points, "
        "relative to ‖y‖:")
    out("")
    out("| RKHS weight | engine (augmented system) vs exact refit | range path vs exact refit |")
    out("|---|---|---|")
    for j, w in enumerate(ws_x):
        R_eng = form.decomposition().system({"rkhs": w}, representation="augmented").loo(y)
        dev_eng, dev_rng = 0.0, 0.0
        for i in range(0, n, n // 5):
            # (S_i + w K⁻¹ + wg L) f + b S_i 1 = S_i y,  1'S_i (y - f - b 1) = 0
            A, rhs = mp.matrix(n + 1, n + 1), mp.matrix(n + 1, 1)
            for a in range(n):
                sa = 0 if a == i else 1
                for c in range(n):
                    A[a, c] = mp.mpf(w) * A0[a, c] + mp.mpf(WG) * Lm[a, c]
                A[a, a] += sa
                A[a, n] = sa
                A[n, a] = sa
                rhs[a] = sa * ym[a]
            A[n, n] = n - 1
            rhs[n] = sum(ym[a] for a in range(n) if a != i)
            sol = mp.lu_solve(A, rhs)
            r_i = float(ym[i] - sol[i] - sol[n])
            dev_eng = max(dev_eng, abs(r_i - R_eng[i]) / ny)
            dev_rng = max(dev_rng, abs(r_i - R_range[j][i]) / ny)
        out(f"| {w:g} | {dev_eng:.1e} | {dev_rng:.1e} |")


commit = current_commit() or "(not a git checkout)"
SIZES = [int(sys.argv[1])] if len(sys.argv) > 1 else [300, 1000, 2000]
ws = np.asarray(DEFAULT_WEIGHT_GRID, dtype=float)
out("| N | r (of N) | range path vs engine LOO, worst / ‖y‖, weights < 1e-3 | weights >= 1e-3 "
    "| at the engine's best weight | "
    "engine vs refits / ‖y‖ | range vs refits / ‖y‖ | range path [s] | engine, 6 systems [s] "
    "| one eigh [s] |")
out("|---|---|---|---|---|---|---|---|---|---|")
for n in SIZES:
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (n, 2))
    y = np.sinc(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(n)
    form = RegularizedLSSVM(X, y, kernel=RBF(1.0),
                            terms={"rkhs": (RKHSNorm(), 1.0), "graph": (GraphLaplacian(10), WG)})
    ctx = form.context
    K, L = ctx.K, GraphLaplacian(10).laplacian(ctx)
    dec = form.decomposition()
    assert np.allclose(dec.matrix("graph"), K @ L @ K, rtol=0, atol=1e-12 * np.abs(K).max()), \
        "the graph term's matrix is not K L K"
    ny = float(np.linalg.norm(y))
    with threadpool_limits(limits=1, user_api="blas"):
        t0 = time.perf_counter()
        np.linalg.eigh(K)
        t_eigh = time.perf_counter() - t0
        t0 = time.perf_counter()
        R_range, r = range_path(K, L, y, ws)
        t_range = time.perf_counter() - t0
        R_eng = np.full_like(R_range, np.nan)
        timed = [0, len(ws) // 2, len(ws) - 1]
        t_sys = []
        for j, w in enumerate(ws):
            t0 = time.perf_counter()
            R_eng[j] = dec.system({"rkhs": float(w)}, representation="augmented").loo(y)
            if j in timed:
                t_sys.append(time.perf_counter() - t0)
    diff = np.abs(R_range - R_eng).max(axis=1) / ny
    jbest = int(np.argmin(np.mean(R_eng ** 2, axis=1)))
    refit = ["–", "–"]
    if n <= 300:
        pts = np.random.default_rng(1).choice(n, 20, replace=False)
        dev_eng, dev_rng = 0.0, 0.0
        for i in pts:
            s = np.ones(n)
            s[i] = 0.0
            one = decompose(K, s, {"rkhs": (RKHS, float(ws[jbest])),
                                   "graph": (K @ L @ K, WG)})
            a, b = one.solve(y)
            r_i = y[i] - (K[i] @ a + b)
            dev_eng = max(dev_eng, abs(r_i - R_eng[jbest, i]) / ny)
            dev_rng = max(dev_rng, abs(r_i - R_range[jbest, i]) / ny)
        refit = [f"{dev_eng:.1e}", f"{dev_rng:.1e}"]
    small = ws < 1e-3
    out(f"| {n} | {r} | {diff[small].max():.1e} | {diff[~small].max():.1e} | "
        f"{diff[jbest]:.1e} | {refit[0]} | {refit[1]} | "
        f"{t_range:.2f} | {6 * float(np.median(t_sys)):.2f} | {t_eigh:.2f} |")
if len(sys.argv) > 1:
    sys.exit()
with threadpool_limits(limits=1, user_api="blas"):
    exact_refits()
Path(__file__).with_suffix(".md").write_text(
    "# The graph term's exact LOO path in the range of K (issue 30)\n\n"
    f"Generated by `OMP_NUM_THREADS=1 python notes/graph_range_path.py` at commit {commit}, "
    f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}"
    f"; see the script's docstring for what is measured (eigenvalues of K below {TOL:g} of "
    "the largest dropped; the engine's systems: the median of three weights times 6, the "
    "count the screened search factorises at N = 2000).\n\n" + "\n".join(LINES) + "\n",
    encoding="utf-8")
