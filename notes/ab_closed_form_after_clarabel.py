"""A/B helper: five closed-form LS-SVM solves at N = 1000, each after a CLARABEL solve; run with
PYTHONPATH set to a worktree of each commit, alternating (twentieth session, notes/engine.md)."""
import time, numpy as np, warnings, sys; warnings.simplefilter("ignore")
from lssvm_cvx.formulations.lssvm import LSSVM
from lssvm_cvx.harness import compare
f = LSSVM.random_instance(1000, seed=0)
compare(f, solvers=["CLARABEL", "OSQP", "SCS"])
cf, cl = [], []
for k in range(5):
    t0 = time.perf_counter(); f.solve("closed_form"); cf.append(time.perf_counter() - t0)
    f._built = None
    t0 = time.perf_counter(); f.solve("CLARABEL", raise_on_failure=False); cl.append(time.perf_counter() - t0)
print(sys.argv[1], "cf ms", [round(1000*t, 1) for t in cf], "ratio med", round(np.median(cl) / np.median(cf), 1))
