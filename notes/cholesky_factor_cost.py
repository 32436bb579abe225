"""What ``Cholesky.factor`` adds to a bare in-place ``dpotrf`` at N × N: the clean triangle,
the 1-norm and the condition estimate (LAPACK ``dpocon``, or since 2026-12-07 its algorithm
on BLAS ``dtrsv`` solves, :func:`lssvm_cvx.linalg.cholesky.inverse_one_norm`), each timed on
a fresh copy of one shifted RBF Gram (all the variants interleaved, medians).

Usage: ``PYTHONPATH=TREE python notes/cholesky_factor_cost.py [N [REPS]]`` (the default BLAS
threads, as ``benchmarks/lssvm_speed.py`` runs).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy.linalg import lapack
from sklearn.metrics.pairwise import rbf_kernel

from lssvm_cvx.linalg.cholesky import Cholesky, inverse_one_norm, one_norm


def main() -> None:
    """Print the median time of each variant and its ratio to the bare ``dpotrf``."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    X = np.random.default_rng(0).standard_normal((n, 3))
    H0 = rbf_kernel(X, gamma=1.0)
    H0[np.diag_indices_from(H0)] += 0.1

    def bare(H):
        lapack.dpotrf(H.T, lower=0, clean=0, overwrite_a=1)

    def clean(H):
        lapack.dpotrf(H.T, lower=0, clean=1, overwrite_a=1)

    def with_norm(H):
        one_norm(H)
        lapack.dpotrf(H.T, lower=0, clean=0, overwrite_a=1)

    def with_cond(H):
        anorm = one_norm(H)
        c, _ = lapack.dpotrf(H.T, lower=0, clean=0, overwrite_a=1)
        lapack.dpocon(c, anorm, uplo="U")

    def with_estimate(H):
        one_norm(H)
        c, _ = lapack.dpotrf(H.T, lower=0, clean=0, overwrite_a=1)
        inverse_one_norm(Cholesky(c=c, lower=False, rcond=1.0).solve, n)

    def package(H):
        Cholesky.factor(H, overwrite=True)

    variants = {"dpotrf in place": bare, "+ clean": clean, "+ 1-norm": with_norm,
                "+ 1-norm and dpocon": with_cond,
                "+ 1-norm and inverse_one_norm": with_estimate,
                "Cholesky.factor(overwrite=True)": package}
    times: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(reps + 1):
        for k, f in variants.items():
            H = H0.copy()
            t0 = time.perf_counter()
            f(H)
            times[k].append(time.perf_counter() - t0)
            del H
    base = float(np.median(times["dpotrf in place"][1:]))
    for k, ts in times.items():
        med = float(np.median(ts[1:]))
        print(f"N = {n} {k:32s} {med:.3f} s  ({med / base:.3f}× the bare dpotrf)")


if __name__ == "__main__":
    main()
