"""float32 on the device path: how far the exact LOO residuals move from float64, with and
without iterative refinement of the fit in float64 (issue 31, item 3: "measured, not assumed").

``lssvm_cvx.device`` computes in the inputs' dtype.  On a GPU float32 is several times faster
than float64, so the question is what it costs in accuracy.  For RBF problems (d = 8, σ² = 8,
noise 0.1) at N ∈ {500, 2000} and γ ∈ {10, 1000}, in NumPy (float32 arithmetic is IEEE on any
device): the relative error ``||r32 - r64|| / ||r64||`` of the LOO residuals

* computed entirely in float32 (``lssvm_loo_residuals`` on float32 arrays);
* with the fit refined: the float32 Cholesky factor reused for 3 steps of iterative refinement
  of ``H⁻¹[y, 1]`` with residuals in float64 (α and b accurate to float64 where
  ``cond(H) · 2⁻²⁴ < 1``), the diagonal of ``H⁻¹`` still from the float32 ``L⁻¹``.

The target of the issue is 1e-6 relative; the claim checks the refined residuals at γ = 10.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from lssvm_cvx.bench import BenchResult, Context, Table, register

SIZES = (500, 2000)
GAMMAS = (10.0, 1000.0)
TARGET = 1e-6


def refined_loo(K: np.ndarray, y: np.ndarray, gamma: float, steps: int = 3) -> np.ndarray:
    """LOO residuals from a float32 factor, the fit refined in float64 (see the module doc)."""
    from scipy.linalg import solve_triangular

    n = len(y)
    H = K.astype(np.float64) + np.eye(n) / gamma
    L = np.linalg.cholesky(H.astype(np.float32))

    def solve(B: np.ndarray) -> np.ndarray:
        Z = solve_triangular(L, B.astype(np.float32), lower=True)
        return solve_triangular(L, Z, lower=True, trans=1).astype(np.float64)

    rhs = np.stack([y, np.ones(n)], axis=1)
    Z = solve(rhs)
    for _ in range(steps):
        Z = Z + solve(rhs - H @ Z)
    hy, h1 = Z[:, 0], Z[:, 1]
    s = h1.sum()
    alpha = hy - hy.sum() / s * h1
    Linv = solve_triangular(L, np.eye(n, dtype=np.float32), lower=True).astype(np.float64)
    return alpha / ((Linv * Linv).sum(axis=0) - h1 * h1 / s)


def one_case(n: int, gamma: float) -> dict[str, Any]:
    from lssvm_cvx.device import lssvm_loo_residuals, rbf_gram

    rng = np.random.default_rng(n)
    X = rng.uniform(0, 1, (n, 8))
    y = np.sin(X.sum(axis=1)) + 0.1 * rng.standard_normal(n)
    K = rbf_gram(X, sigma2=8.0)
    r64 = lssvm_loo_residuals(K, y, gamma)
    r32 = lssvm_loo_residuals(K.astype(np.float32), y.astype(np.float32), gamma)
    rr = refined_loo(K.astype(np.float32), y, gamma)
    lam = np.linalg.eigvalsh(K)
    rel = lambda r: float(np.linalg.norm(r.astype(np.float64) - r64) / np.linalg.norm(r64))  # noqa: E731
    return {"N": n, "γ": gamma, "cond(K + I/γ)": float((lam[-1] + 1 / gamma) / (max(lam[0], 0) + 1 / gamma)),
            "float32": rel(r32), "float32, fit refined in float64": rel(rr)}


@register("device_precision", "float32 on the device path: LOO residuals against float64",
          paper=None)
def run(ctx: Context) -> BenchResult:
    sizes = (300,) if ctx.quick else SIZES
    df = pd.DataFrame([one_case(n, g) for n in sizes for g in GAMMAS])
    res = BenchResult("device_precision", "float32 on the device path: exact LOO residuals "
                      "against float64")
    res.tables.append(Table("Relative error of the LOO residuals against float64", df,
                            "RBF σ² = 8 on U(0, 1)⁸ inputs, y = sin(Σx) + N(0, 0.1²); "
                            "||r - r64|| / ||r64||.", floatfmt=".3g"))
    for n in sizes:
        row = df[(df["N"] == n) & (df["γ"] == GAMMAS[0])].iloc[0]
        res.check(f"N = {n}, γ = {GAMMAS[0]:g}: LOO residuals from float32 with the fit refined in "
                  "float64, relative error against float64", float(row["float32, fit refined in float64"]),
                  TARGET)
    worst = df.loc[df["float32, fit refined in float64"].idxmax()]
    res.notes = (f"Plain float32 moves the LOO residuals by {df['float32'].min():.2g} to "
                 f"{df['float32'].max():.2g} (relative); refining the fit in float64 brings that "
                 f"to {df['float32, fit refined in float64'].min():.2g} to "
                 f"{df['float32, fit refined in float64'].max():.2g}, the worst at N = {int(worst['N'])}, "
                 f"γ = {worst['γ']:g} (cond {worst['cond(K + I/γ)']:.2g}). What is left is the "
                 "diagonal of H⁻¹, still from the float32 L⁻¹: refinement of the fit alone does not "
                 "reach 1e-6, so the device path keeps float64 for exact LOO by default and "
                 "float32 is for fits and screens.")
    return res
