r"""
Scaling to a large N
====================

The closed forms cost one Cholesky factorization of an :math:`N \times N` matrix: the LS-SVM
fits a few thousand points in a fraction of a second, with the exact leave-one-out search on
top. Past that the Gram itself is the problem; the Auto LS-SVM switches to a Nyström or
random-feature basis of a few hundred columns and fits tens of thousands of points in seconds.
A cvxpy solve of the same LS-SVM is shown for the small sizes (its KKT system is dense).
"""

import time

import matplotlib.pyplot as plt
import numpy as np

from lssvm_cvx import AutoLSSVMRegressor, LSSVMRegressor
from lssvm_cvx.formulations import LSSVM
from lssvm_cvx.kernels import RBF

rng = np.random.default_rng(0)


def data(n, d=1):
    X = rng.uniform(-3, 3, (n, d))
    return X, np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(n)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


sizes = [250, 500, 1000, 2000]
t_cf, t_loo, t_cvx = [], [], []
for n in sizes:
    X, y = data(n)
    t_cf.append(timed(lambda: LSSVMRegressor(sigma2=0.5, gamma=10.0).fit(X, y)))
    t_loo.append(timed(lambda: LSSVMRegressor(selection="loo", sigma2_grid=[0.5],
                                              gamma_grid=np.logspace(-2, 4, 13)).fit(X, y)))
    if n <= 500:
        t_cvx.append(timed(lambda: LSSVM(X, y, kernel=RBF(0.5), gamma=10.0).solve("CLARABEL")))

big = [10_000, 20_000]
t_auto = []
for n in big:
    X, y = data(n, d=2)                      # two inputs, the second irrelevant
    t_auto.append(timed(lambda: AutoLSSVMRegressor().fit(X, y)))
    print(f"Auto LS-SVM, N = {n}: {t_auto[-1]:.1f} s")

fig, ax = plt.subplots(figsize=(9, 5.2))
ax.loglog(sizes, t_cf, "o-", label="LS-SVM closed form (one fit)")
ax.loglog(sizes, t_loo, "s-", label="LS-SVM + exact LOO over 13 γ")
ax.loglog(sizes[:len(t_cvx)], t_cvx, "^-", label="LS-SVM through cvxpy (CLARABEL)")
ax.loglog(big, t_auto, "D-", label="Auto LS-SVM, low-rank basis, tuned")
ax.set_xlabel("N (training points)")
ax.set_ylabel("seconds (this build's machine)")
ax.set_title("Fit time against N")
ax.legend()
fig.tight_layout()
plt.show()
