"""A/B of the composed LS-SVM fit's ratio to the bare linear algebra at N = 4000
(``regularized_speed``'s claim) on two checkouts, in alternating processes, for the nineteenth
session's regeneration (``notes/engine.md``, "Done (nineteenth session)").

Each process times ``RegularizedLSSVMRegressor`` (RKHS norm, weight 0.1), ``LSSVMRegressor``
(γ = 10) and the baseline (RBF Gram + ``cho_factor`` + two ``cho_solve``), interleaved, 7
repeats, and prints the medians' ratios; the processes alternate OLD, NEW, OLD, NEW, ...::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python notes/ab_composed_fit.py OLD_CHECKOUT NEW_CHECKOUT 3
"""

import json
import os
import statistics
import subprocess
import sys

CODE = r'''
import json, sys
import numpy as np
from lssvm_cvx import LSSVMRegressor, RegularizedLSSVMRegressor, problems
from lssvm_cvx.terms import RKHSNorm
from lssvm_cvx.bench import interleaved_times
from benchmarks.lssvm_speed import baseline_fit
ds = problems.get_problem("lssvm_regression", n=4000, seed=0)
X, y = ds.X, ds.y
comp = RegularizedLSSVMRegressor(sigma2=1.0, terms={"rkhs": (RKHSNorm(), 0.1)})
lssvm = LSSVMRegressor(sigma2=1.0, gamma=10.0)
t = interleaved_times({"composed": lambda: comp.fit(X, y), "lssvm": lambda: lssvm.fit(X, y),
                       "baseline": lambda: baseline_fit(X, y, 1.0, 10.0)}, 7)
m = {k: float(np.median(v)) for k, v in t.items()}
print(json.dumps({"composed": m["composed"] / m["baseline"], "lssvm": m["lssvm"] / m["baseline"]}))
'''

roots = {"old": os.path.abspath(sys.argv[1]), "new": os.path.abspath(sys.argv[2])}
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
res: dict[str, list[dict]] = {k: [] for k in roots}
for r in range(rounds):
    for name, root in roots.items():
        out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, cwd=root,
                             env={**os.environ, "PYTHONPATH": root}, check=True)
        res[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(r, name, res[name][-1], flush=True)
for name, v in res.items():
    print(name, "composed/baseline median", round(statistics.median(x["composed"] for x in v), 3),
          "LSSVMRegressor/baseline median", round(statistics.median(x["lssvm"] for x in v), 3))
