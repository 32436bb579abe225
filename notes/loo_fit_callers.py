"""Who allocates the fresh arrays of one screened LOO fit (twenty-fifth session): print_callers of
numpy.array and the Cholesky factor; run with NUMPY_MADVISE_HUGEPAGE=1 OMP_NUM_THREADS=1."""
import numpy as np, cProfile, pstats
from threadpoolctl import threadpool_limits
from lssvm_cvx import LSSVMRegressor
n=3000
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (n, 1)); y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)
est = LSSVMRegressor(selection="loo", search="screen", random_state=0, sigma2_grid="auto")
with threadpool_limits(limits=1, user_api="blas"):
    est.fit(X, y)
    pr=cProfile.Profile(); pr.enable(); est.fit(X,y); pr.disable()
    st=pstats.Stats(pr); st.sort_stats("tottime")
    st.print_callers("built-in method numpy.array")
    st.print_callers("cholesky.py:39")
