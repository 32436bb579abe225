"""benchmarks/scaling.py's _loo_selection (LSSVMRegressor's screened (γ, σ²) LOO search + fit
against one eigh, interleaved, medians) run on the library of a given tree, to compare commits
by alternating runs (twenty-seventh session).
    OMP_NUM_THREADS=1 python notes/loo_selection_time.py TREE [N [REPS]]"""
import json
import sys

tree = sys.argv[1]
sys.path[:0] = [tree + "/benchmarks", tree]
import scaling  # noqa: E402

import lssvm_cvx  # noqa: E402

print(lssvm_cvx.__file__)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
print(json.dumps(scaling._loo_selection(n, reps, False), indent=1))
