"""The cvxpy build's cost of one extra quadratic term, for the seventeenth session's
key-named term check (``notes/engine.md``, "Next").

Builds ``RegularizedLSSVM`` with the RKHS norm and one term of ``lssvm_cvx.terms`` on
N uniform points in [-2, 2]², its Gram formed first, and prints the median of 3 ``build()``
times.  Run it on two checkouts, interleaved::

    for t in Ridge GradientNorm Roughness GraphLaplacian; do for r in 1 2; do
      OMP_NUM_THREADS=1 python notes/build_cost.py OLD_CHECKOUT 1000 $t
      OMP_NUM_THREADS=1 python notes/build_cost.py . 1000 $t
    done; done
"""

import statistics
import sys
import time

ROOT, N, NAME = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import lssvm_cvx.terms as terms  # noqa: E402
from lssvm_cvx.formulations.regularized import RegularizedLSSVM  # noqa: E402

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, (N, 2))
y = np.sin(X[:, 0])
times = []
for _ in range(3):
    f = RegularizedLSSVM(X, y, terms={"rkhs": (terms.RKHSNorm(), 0.1),
                                      "t": (getattr(terms, NAME)(), 0.1)})
    _ = f.context      # the Gram, formed before the timing
    t0 = time.perf_counter()
    f.build()
    times.append(time.perf_counter() - t0)
print(f"{NAME} N={N} {ROOT}: {statistics.median(times):.3f} s")
