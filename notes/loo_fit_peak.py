"""Peak traced memory of one screened LOO fit (LSSVMRegressor, the data of benchmarks/scaling.py's
_loo_selection) at N = 3000, after a warm-up fit: NumPy reports its array buffers to tracemalloc.
Twenty-sixth session: run from a worktree of the old and of the new code (PYTHONPATH=<tree>).
    OMP_NUM_THREADS=1 python notes/loo_fit_peak.py [N]"""
import sys
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

import lssvm_cvx
from lssvm_cvx import LSSVMRegressor

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (n, 1))
y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
est = LSSVMRegressor(selection="loo", search="screen", random_state=0, sigma2_grid="auto")
tracemalloc.start()
with threadpool_limits(limits=1, user_api="blas"):
    est.fit(X, y)
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    est.fit(X, y)
    peak = tracemalloc.get_traced_memory()[1] - base
print(f"{lssvm_cvx.__file__}: N = {n}, peak {peak / 2**20:.0f} MiB = {peak / (8 * n * n):.2f} "
      f"arrays of N x N float64; (gamma, sigma2) = ({est.gamma_:.6g}, {est.sigma2_:.6g})")
