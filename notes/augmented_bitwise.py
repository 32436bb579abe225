"""α, b and the LOO residuals of ``AugmentedSystem`` on two well-conditioned and four ridged
systems, pickled, to compare two trees bit for bit.

Usage: ``PYTHONPATH=TREE python notes/augmented_bitwise.py OUT.pkl`` on each tree, then
``python notes/augmented_bitwise.py --compare A.pkl B.pkl``.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main() -> None:
    """Write the answers, or compare two files of them."""
    if sys.argv[1] == "--compare":
        old, new = (pickle.load(open(p, "rb")) for p in sys.argv[2:4])
        for (j, a, b, r), (j2, a2, b2, r2) in zip(old, new):
            print(f"ridged {j > 0}: α equal {np.array_equal(a, a2)}, b equal {b == b2}, "
                  f"LOO equal {np.array_equal(r, r2)}, ridge equal {j == j2}")
        return
    import test_augmented_memory as t

    from lssvm_cvx.linalg.quadratic import AugmentedSystem

    out = []
    for n, width, c in [(300, 20, 1e-3), (300, 5, 1e-3), (300, 3, 1e-2), (80, 20, 1e-3),
                        (80, 5, 1e-2), (200, 1, 0.1)]:
        K, s, y = t._problem(n, width, seed=0 if n == 300 else 2)
        system = AugmentedSystem(K, s, c * K)
        a, b = system.solve(y)
        out.append((system.jitter, a, b, np.asarray(system.loo(y))))
    with open(sys.argv[1], "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main()
