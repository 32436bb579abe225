"""Issue 30: the exact (γ, σ²) LOO search at N = 3000 against one eigendecomposition, in 11
interleaved pairs with one BLAS thread (the scaling benchmark takes five): the ratio of the
medians and the spread of the per-pair ratios.  Run: ``OMP_NUM_THREADS=1 python notes/loo_parity.py``.
"""

import time

import numpy as np
from threadpoolctl import threadpool_limits

from lssvm_cvx import LSSVMRegressor
from lssvm_cvx.kernels import RBF

n = 3000
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (n, 1))
y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
est = LSSVMRegressor(selection="loo", search="screen", random_state=0, sigma2_grid="auto")
pairs = []
with threadpool_limits(limits=1, user_api="blas"):
    for _ in range(11):
        t0 = time.perf_counter()
        np.linalg.eigh(RBF(1.0)(X))
        te = time.perf_counter() - t0
        t0 = time.perf_counter()
        est.fit(X, y)
        tf = time.perf_counter() - t0
        pairs.append((te, tf, tf / te))
r = np.array(pairs)
q1, q3 = np.percentile(r[:, 2], [25, 75])
print(f"pairs {len(r)}: eigh median {np.median(r[:, 0]):.3f} s, fit median {np.median(r[:, 1]):.3f} s")
print(f"ratio of the medians {np.median(r[:, 1]) / np.median(r[:, 0]):.3f}; per-pair ratios: "
      f"median {np.median(r[:, 2]):.3f}, min {r[:, 2].min():.3f}, max {r[:, 2].max():.3f}, "
      f"quartiles {q1:.3f} {q3:.3f}; exact LOO evaluations {est.cv_results_['n_exact']}")
