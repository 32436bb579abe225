"""Why ``lssvm_speed``'s baseline (RBF Gram + ``cho_factor`` + two solves) took 1.5 s at
N = 4000 in the runs since c1f418b against 0.45-0.50 s before: the baseline's parts timed in
the benchmark's own sequence (``LSSVMRegressor.fit`` and the baseline interleaved), and the
baseline alone.

Usage: ``PYTHONPATH=TREE python notes/lssvm_speed_baseline.py [N [REPS]]`` (the benchmark's
default BLAS threads; run it on two trees to compare them).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.linalg as sla
from sklearn.metrics.pairwise import rbf_kernel

from lssvm_cvx import LSSVMRegressor, problems


def parts(X: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """The baseline of ``benchmarks/lssvm_speed.py``, each step timed."""
    out = {}
    t0 = time.perf_counter()
    K = rbf_kernel(X, gamma=1.0)
    out["rbf_kernel"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    K[np.diag_indices_from(K)] += 0.1
    c = sla.cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
    out["cho_factor"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    v = sla.cho_solve(c, y, check_finite=False)
    u = sla.cho_solve(c, np.ones_like(y), check_finite=False)
    out["2 solves"] = time.perf_counter() - t0
    del v, u, c, K
    return out


def main() -> None:
    """Baseline parts alone, then interleaved with the fit as the benchmark runs them."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    ds = problems.get_problem("lssvm_regression", n=n, seed=0)
    X, y = ds.X, ds.y
    for label, with_fit in (("alone", False), ("interleaved with the fit", True)):
        est = LSSVMRegressor(sigma2=1.0, gamma=10.0)
        rows, fits = [], []
        for _ in range(reps):
            if with_fit:
                t0 = time.perf_counter()
                est.fit(X, y)
                fits.append(time.perf_counter() - t0)
            rows.append(parts(X, y))
        med = {k: float(np.median([r[k] for r in rows])) for k in rows[0]}
        fit = f"; fit {np.median(fits):.3f} s" if fits else ""
        print(f"N = {n}, baseline {label}: " + ", ".join(f"{k} {v:.3f} s" for k, v in med.items())
              + fit)


if __name__ == "__main__":
    main()
