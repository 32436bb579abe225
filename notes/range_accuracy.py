"""Issue 30: how accurate each representation of the engine is where a graph term meets a
small RKHS weight — the augmented system, the generalised-eigen path and the range of K,
against the same problem solved in 40-digit arithmetic.

The problem (RBF σ² = 1 on 2-D inputs uniform in [-h, h]², y = sinc(x₁)·x₂ + 0.1 noise, the
RKHS norm with weight ``w`` and a kNN graph's smoothness ``f'Lf`` with weight 1e-2) is solved
in mpmath in ``f = Kα`` (``α'Kα = f'K⁻¹f``, K computed in that precision from the same inputs,
the same ``L``): ``(S + wK⁻¹ + w_g L) f + S1 b = Sy``, ``1'S(y - f - b1) = 0``, for the full
fit and with single points out of the loss (the exact LOO residuals).  Per case and weight,
relative to ``||y||``: the fitted values' worst error on the training points and at 5 new
points, and the LOO residuals' worst error over 5 left-out points, for

* the augmented system (``system(w, representation="augmented")``, what the engine used for
  these models until the thirteenth session),
* the generalised-eigen path (``linalg.quadratic.generalized_path``, LOO only; "refused" where
  neither pencil is safely definite),
* the range of K (``system(w)``, the engine's choice since the thirteenth session).

Run: ``OMP_NUM_THREADS=1 python notes/range_accuracy.py`` (about two minutes; writes
``notes/range_accuracy.md`` with the commit).
"""

import platform
from datetime import datetime, timezone
from pathlib import Path

import mpmath as mp
import numpy as np

from lssvm_cvx.harness.files import current_commit
from lssvm_cvx.linalg.engine import RKHS, FittedTerm, decompose
from lssvm_cvx.linalg.quadratic import generalized_path
from lssvm_cvx.terms import knn_laplacian

WG, DPS = 1e-2, 40
LINES: list[str] = []


def out(line: str) -> None:
    """Print a line of the report and keep it for the file."""
    print(line, flush=True)
    LINES.append(line)


def case(n: int, half: float, k: int, weights: list[float]) -> None:
    """One data set: every representation against the 40-digit solves."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-half, half, (n, 2))
    y = np.sinc(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(n)
    Xt = rng.uniform(-half, half, (5, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    Kt = np.exp(-((Xt[:, None] - X[None]) ** 2).sum(-1))
    L = knn_laplacian(X, k)
    lam = np.linalg.eigvalsh(K)
    ny = float(np.linalg.norm(y))
    mp.mp.dps = DPS
    Xm = mp.matrix(X.tolist())
    Km = mp.matrix(n, n)
    for i in range(n):
        for j in range(n):
            Km[i, j] = mp.exp(-((Xm[i, 0] - Xm[j, 0]) ** 2 + (Xm[i, 1] - Xm[j, 1]) ** 2))
    Ki = mp.inverse(Km)
    Lm = mp.matrix(L.tolist())
    ym = [mp.mpf(float(v)) for v in y]
    for w in weights:
        F = w * Ki + WG * Lm

        def exact(left: int | None, F: mp.matrix = F) -> mp.matrix:
            s = [0 if a == left else 1 for a in range(n)]
            A, rhs = mp.matrix(n + 1, n + 1), mp.matrix(n + 1, 1)
            for a in range(n):
                for c in range(n):
                    A[a, c] = F[a, c]
                A[a, a] += s[a]
                A[a, n] = A[n, a] = s[a]
                rhs[a] = s[a] * ym[a]
            A[n, n] = sum(s)
            rhs[n] = sum(s[a] * ym[a] for a in range(n))
            return mp.lu_solve(A, rhs)

        sol = exact(None)
        f0 = np.array([float(sol[a] + sol[n]) for a in range(n)])
        alpha = Ki * mp.matrix([sol[a] for a in range(n)])
        ft = np.array([float(sum(mp.exp(-((mp.mpf(float(Xt[t, 0])) - Xm[a, 0]) ** 2
                                          + (mp.mpf(float(Xt[t, 1])) - Xm[a, 1]) ** 2))
                                 * alpha[a] for a in range(n)) + sol[n]) for t in range(5)])
        left = list(range(0, n, n // 5))[:5]
        r_ex = np.array([float(ym[i] - (s := exact(i))[i] - s[n]) for i in left])
        dec = decompose(K, np.ones(n), {"rkhs": (RKHS, w), "graph": (FittedTerm(L), WG)})
        gen = generalized_path(K, np.ones(n), WG * (K @ L @ K), K, y, [w])
        cols = []
        for rep in ("augmented", "range"):
            sysm = dec.system(representation=rep)
            a, b = sysm.solve(y)
            r = sysm.loo(y)
            cols += [np.abs(K @ a + b - f0).max() / ny, np.abs(Kt @ a + b - ft).max() / ny,
                     np.abs(r[left] - r_ex).max() / ny]
        g = "refused" if gen is None else f"{np.abs(gen[2][0][left] - r_ex).max() / ny:.1e}"
        out(f"| {n} | {lam[-1] / lam[0]:.1e} | {w:g} | {cols[0]:.1e} | {cols[1]:.1e} | "
            f"{cols[2]:.1e} | {g} | {cols[3]:.1e} | {cols[4]:.1e} | {cols[5]:.1e} |")


commit = current_commit() or "(not a git checkout)"
out("| N | cond K | RKHS weight | augmented: fit | augmented: new points | augmented: LOO "
    "| generalised path: LOO | range: fit | range: new points | range: LOO |")
out("|---|---|---|---|---|---|---|---|---|---|")
case(60, 2.0, 8, [1e-5, 1e-3, 1e-1])
case(150, 3.0, 10, [1e-5, 1e-4, 1e-3])
Path(__file__).with_suffix(".md").write_text(
    "# Accuracy of the engine's representations: graph term, small RKHS weight (issue 30)\n\n"
    f"Generated by `OMP_NUM_THREADS=1 python notes/range_accuracy.py` at commit {commit}, "
    f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}"
    f"; errors relative to ‖y‖ against {DPS}-digit solves (the script's docstring says what "
    "each column is; fit: the training points, new points: 5 points drawn from the same "
    "square, LOO: 5 left-out points).\n\n" + "\n".join(LINES) + "\n", encoding="utf-8")
