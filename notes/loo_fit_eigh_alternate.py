"""Fits of LSSVMRegressor's screened LOO search alternating with one eigh, then alone (twenty-fifth
session); run with and without NUMPY_MADVISE_HUGEPAGE=0 to see the host's huge-page cost."""
import time, numpy as np
from threadpoolctl import threadpool_limits
from lssvm_cvx import LSSVMRegressor
from lssvm_cvx.kernels import RBF
n=3000
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (n, 1)); y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
est = LSSVMRegressor(selection="loo", search="screen", random_state=0, sigma2_grid="auto")
with threadpool_limits(limits=1, user_api="blas"):
    for _ in range(3):
        t=time.perf_counter(); est.fit(X,y); a=time.perf_counter()-t
        t=time.perf_counter(); np.linalg.eigh(RBF(1.0)(X)); b=time.perf_counter()-t
        print(f"fit {a:.2f} eigh {b:.2f}", flush=True)
    for _ in range(2):
        t=time.perf_counter(); est.fit(X,y); a=time.perf_counter()-t; print(f"fit alone {a:.2f}")
