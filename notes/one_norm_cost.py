"""The 1-norm that a Cholesky's condition estimate takes, at N = 3000: NumPy's
``np.abs(H).sum(axis=0).max()`` (an N x N temporary; the code until the twenty-seventh session)
against LAPACK's ``dlange`` read in place (``lssvm_cvx.linalg.cholesky.one_norm``), on one BLAS
thread: the first call of each in a fresh process (``cold``: the order of the two is given) and
the median of 7 interleaved calls after (``warm``).  On a host whose transparent-huge-page
``defrag`` is ``madvise`` NumPy's huge-page advice can make a fresh temporary's first touch
stall; whether a later one does depends on the allocator handing the pages back and again.
    OMP_NUM_THREADS=1 python notes/one_norm_cost.py [N] [numpy-first|dlange-first]"""
import sys
import time

import numpy as np

from lssvm_cvx.linalg.cholesky import one_norm

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
order = sys.argv[2] if len(sys.argv) > 2 else "numpy-first"
A = np.random.default_rng(0).standard_normal((n, n))
H = A @ A.T
fns = {"numpy abs-sum": lambda: np.abs(H).sum(axis=0).max(), "dlange": lambda: one_norm(H)}
names = list(fns) if order == "numpy-first" else list(fns)[::-1]
t: dict[str, list[float]] = {k: [] for k in fns}
for _ in range(8):
    for name in names:
        t0 = time.perf_counter()
        fns[name]()
        t[name].append(time.perf_counter() - t0)
for name in names:
    print(f"N = {n}, {name}: cold {t[name][0] * 1e3:.1f} ms, warm median "
          f"{np.median(t[name][1:]) * 1e3:.1f} ms")
print("equal:", np.isclose(fns["numpy abs-sum"](), fns["dlange"](), rtol=1e-14))
