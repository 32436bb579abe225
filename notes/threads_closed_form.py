"""The LS-SVM closed form at N = 1000, 15 solves with the default BLAS threads and 15 on one
thread (twenty-first session, notes/engine.md): the reason lssvm_solvers times every backend
on one BLAS thread.  Run: python notes/threads_closed_form.py"""
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from lssvm_cvx.formulations.lssvm import LSSVM

warnings.simplefilter("ignore")
f = LSSVM.random_instance(1000, seed=0)
for lim in (None, 1):
    ts = []
    with threadpool_limits(lim):
        for _ in range(15):
            t0 = time.perf_counter()
            f.solve("closed_form")
            ts.append(time.perf_counter() - t0)
    print("BLAS threads", lim or "default", "ms", [round(1000 * t, 1) for t in ts],
          "median", round(1000 * np.median(ts), 1))
