"""The 1-norm that a Cholesky's condition estimate takes, at N = 3000: NumPy's
``np.abs(H).sum(axis=0).max()`` (an N x N temporary; the code until the twenty-seventh session)
against LAPACK's ``dlange`` read in place (``lssvm_cvx.linalg.cholesky.one_norm``), interleaved,
median of 7, on one BLAS thread.  On a host whose transparent-huge-page ``defrag`` is
``madvise`` NumPy's huge-page advice makes the temporary's first touch stall.
    OMP_NUM_THREADS=1 python notes/one_norm_cost.py [N]"""
import sys
import time

import numpy as np

from lssvm_cvx.linalg.cholesky import one_norm

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
A = np.random.default_rng(0).standard_normal((n, n))
H = A @ A.T
t: dict[str, list[float]] = {"numpy abs-sum": [], "dlange": []}
for _ in range(7):
    for name, fn in (("numpy abs-sum", lambda: np.abs(H).sum(axis=0).max()),
                     ("dlange", lambda: one_norm(H))):
        t0 = time.perf_counter()
        fn()
        t[name].append(time.perf_counter() - t0)
for name, v in t.items():
    print(f"N = {n}, {name}: median {np.median(v) * 1e3:.1f} ms")
print("equal:", np.isclose(np.abs(H).sum(axis=0).max(), one_norm(H), rtol=1e-14))
