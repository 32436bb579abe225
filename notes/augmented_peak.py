"""Peak traced memory of building ``AugmentedSystem`` (system (A) of order 2N + 1, factorised)
and its time, in arrays of order 2N + 1, for a well-conditioned and a ridged system.

Usage: ``PYTHONPATH=TREE python notes/augmented_peak.py [N [REPS]]`` (one BLAS thread is
advised: ``OMP_NUM_THREADS=1``).  Run it on two trees to compare them.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np

from lssvm_cvx.linalg.quadratic import AugmentedSystem


def problem(n: int, width: float, seed: int = 0):
    """An RBF Gram of width ``width`` on ``n`` Gaussian points in 3-D and loss weights."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / width)
    return K, rng.uniform(0.5, 2.0, n)


def main() -> None:
    """Print the peak and the median build time of each case."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    unit = (2 * n + 1) ** 2 * 8
    for case, width, P_of in (("well-conditioned", 1.0, lambda K: 0.1 * np.eye(n) + 0.01 * K),
                              ("ridged", 3.0, lambda K: 1e-2 * K)):
        K, s = problem(n, width)
        P = P_of(K)
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        system = AugmentedSystem(K, s, P)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            AugmentedSystem(K, s, P)
            times.append(time.perf_counter() - t0)
        print(f"N = {n} {case:17s} ridge {system.jitter:.1e}: peak {peak / unit:.2f} arrays "
              f"of order 2N + 1, build median {np.median(times):.3f} s over {reps}")


if __name__ == "__main__":
    main()
