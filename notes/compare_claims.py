"""Compare regenerated results' claims with the committed ones (the sessions' regenerations).

usage: python notes/compare_claims.py DIR [DIR ...]

For every ``*.json`` result in each DIR, print each check's ``ok`` in the committed file
(``benchmarks/results``) and in the new one, tagging ``MET->UNMET`` and ``UNMET->MET``.
"""
import glob
import os
import sys

from lssvm_cvx.io import read_results   # the audit's validated reader

COMMITTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "results")
for d in sys.argv[1:]:
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        name = os.path.basename(p)
        ref = os.path.join(COMMITTED, name)
        new = read_results(p).get("checks", {})
        old = read_results(ref).get("checks", {}) if os.path.exists(ref) else {}
        for k in sorted(set(new) | set(old)):
            o, n = old.get(k, {}).get("ok"), new.get(k, {}).get("ok")
            tag = "MET->UNMET" if (o and not n) else ("UNMET->MET" if (n and not o) else "")
            print(f"{name:32s} {k[:70]:70s} old={o} new={n} {tag}")
