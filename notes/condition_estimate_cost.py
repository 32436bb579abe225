"""The three savings of 2026-12-07 in the LS-SVM fit, each against what it replaced, on one
shifted RBF Gram of order N (the variants interleaved, medians of REPS):

* the condition estimate: LAPACK ``dpocon`` against its algorithm on BLAS ``dtrsv`` solves
  (:func:`lssvm_cvx.linalg.cholesky.inverse_one_norm`), on the same factor, with the
  estimates printed side by side;
* one right-hand side: ``scipy.linalg.cho_solve`` (LAPACK ``dpotrs``) against
  ``Cholesky.solve`` (two ``dtrsv``);
* the squared distances: scikit-learn's ``euclidean_distances`` followed by the ``np.maximum``
  pass that ``sq_dists`` made until then, against it alone.

Usage: ``PYTHONPATH=TREE python notes/condition_estimate_cost.py [N [REPS]]`` (the default BLAS
threads, as ``benchmarks/lssvm_speed.py`` runs).  ``... condition_estimate_cost.py scan``
times the two condition estimates alone over orders 10 to 1000 (best of 7 repeats; run it
with ``OMP_NUM_THREADS=1``): where ``Cholesky.factor`` switches from ``dpocon`` to
:func:`~lssvm_cvx.linalg.cholesky.inverse_one_norm`.
"""

from __future__ import annotations

import sys
import time
import timeit
from functools import partial

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel

from lssvm_cvx.linalg.cholesky import Cholesky, inverse_one_norm, one_norm


def timed(pairs: dict[str, object], reps: int) -> dict[str, float]:
    """Median seconds of each callable, the callables interleaved (the first round dropped)."""
    times: dict[str, list[float]] = {k: [] for k in pairs}
    for _ in range(reps + 1):
        for k, f in pairs.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: float(np.median(v[1:])) for k, v in times.items()}


def best_us(f, number: int) -> float:
    """Best of 7 repeats of ``number`` calls, in µs per call."""
    return min(timeit.repeat(f, number=number, repeat=7)) / number * 1e6


def scan() -> None:
    """``dpocon`` against :func:`inverse_one_norm` on one SPD matrix per order."""
    rng = np.random.default_rng(0)
    for n in (10, 50, 100, 200, 300, 400, 450, 500, 550, 600, 800, 1000):
        A = rng.standard_normal((n, n))
        H = A @ A.T + n * np.eye(n)
        chol = Cholesky.factor(H, check_cond=False)
        anorm = one_norm(H)
        number = max(5, 4000 // n)
        t_lapack = best_us(partial(lapack.dpocon, chol.c, anorm, uplo="L"), number)
        t_ours = best_us(partial(inverse_one_norm, chol.solve, n), number)
        print(f"n = {n:5d}: dpocon {t_lapack:8.1f} µs, inverse_one_norm {t_ours:8.1f} µs "
              f"({t_ours / t_lapack:.2f}×)")


def main() -> None:
    """Print each pair's medians and their ratio, then the two reciprocal conditions."""
    if len(sys.argv) > 1 and sys.argv[1] == "scan":
        scan()
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    X = np.random.default_rng(0).standard_normal((n, 3))
    H = rbf_kernel(X, gamma=1.0)
    H[np.diag_indices_from(H)] += 0.1
    anorm = one_norm(H)
    chol = Cholesky.factor(H.copy(), overwrite=True, check_cond=False)
    y = np.random.default_rng(1).standard_normal(n)

    def with_max():
        D = euclidean_distances(X, X, squared=True)
        np.maximum(D, 0.0, out=D)

    groups = {
        "condition estimate": {
            "dpocon": lambda: lapack.dpocon(chol.c, anorm, uplo="L" if chol.lower else "U"),
            "inverse_one_norm": lambda: inverse_one_norm(chol.solve, n)},
        "one right-hand side": {
            "cho_solve": lambda: sla.cho_solve((chol.c, chol.lower), y, check_finite=False),
            "Cholesky.solve": lambda: chol.solve(y)},
        "squared distances": {
            "euclidean_distances + np.maximum": with_max,
            "euclidean_distances": lambda: euclidean_distances(X, X, squared=True)},
    }
    for title, pairs in groups.items():
        (old, t_old), (new, t_new) = timed(pairs, reps).items()
        print(f"N = {n} {title}: {old} {t_old * 1e3:.1f} ms, {new} {t_new * 1e3:.1f} ms "
              f"({t_new / t_old:.2f}×)")
    ref = lapack.dpocon(chol.c, anorm, uplo="L" if chol.lower else "U")[0]
    ours = 1.0 / inverse_one_norm(chol.solve, n) / anorm
    print(f"N = {n} reciprocal condition: dpocon {ref:.15e}, inverse_one_norm {ours:.15e}")


if __name__ == "__main__":
    main()
