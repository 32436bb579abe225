"""Why ``lssvm_speed``'s baseline (RBF Gram + ``cho_factor`` + two solves) took 1.5 s at
N = 4000 in some runs against 0.45-0.50 s in others: the baseline's parts timed alone and in
the benchmark's own sequence (``LSSVMRegressor.fit`` and the baseline interleaved), with the
Cholesky factor in a copy of the Gram (the baseline until 2026-12-06) and in its memory.

Usage: ``PYTHONPATH=TREE python notes/lssvm_speed_baseline.py [N [REPS [all]]]`` (the
benchmark's default BLAS threads; ``all`` first imports every benchmark module, as ``lssvm-cvx
bench`` does; set ``NUMPY_MADVISE_HUGEPAGE=0`` to run without NumPy's huge-page advice).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.linalg as sla
from sklearn.metrics.pairwise import rbf_kernel

from lssvm_cvx import LSSVMRegressor, problems


def parts(X: np.ndarray, y: np.ndarray, in_place: bool) -> dict[str, float]:
    """The baseline of ``benchmarks/lssvm_speed.py``, each step timed; ``in_place``: the
    factor in the Gram's memory (its symmetric transpose), else in ``cho_factor``'s copy."""
    out = {}
    t0 = time.perf_counter()
    K = rbf_kernel(X, gamma=1.0)
    out["rbf_kernel"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    K[np.diag_indices_from(K)] += 0.1
    c = sla.cho_factor(K.T if in_place else K, lower=True, overwrite_a=True, check_finite=False)
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
    if len(sys.argv) > 3 and sys.argv[3] == "all":
        from lssvm_cvx.bench import discover

        discover()
    ds = problems.get_problem("lssvm_regression", n=n, seed=0)
    X, y = ds.X, ds.y
    for label, with_fit in (("alone", False), ("interleaved with the fit", True)):
        est = LSSVMRegressor(sigma2=1.0, gamma=10.0)
        rows: dict[bool, list[dict[str, float]]] = {False: [], True: []}
        fits = []
        for _ in range(reps):
            for in_place in (False, True):
                if with_fit:
                    t0 = time.perf_counter()
                    est.fit(X, y)
                    fits.append(time.perf_counter() - t0)
                rows[in_place].append(parts(X, y, in_place))
        fit = f"; fit {np.median(fits):.3f} s" if fits else ""
        for in_place, rs in rows.items():
            med = {k: float(np.median([r[k] for r in rs])) for k in rs[0]}
            where = "in place" if in_place else "in a copy"
            print(f"N = {n}, baseline {label}, factor {where}: "
                  + ", ".join(f"{k} {v:.3f} s" for k, v in med.items()) + fit)


if __name__ == "__main__":
    main()
