#!/bin/bash
# A/B of lssvm_solvers: 8732153 (old, /tmp/wtold) against dde5eee (new, /tmp/wtR), alternating, 3 rounds
# (twentieth session: 2 rounds; twenty-first: 3 rounds, 23.3 vs 24.8, 6.0 vs 5.3 while tests ran, 13.6 vs 12.8)
# worktrees: git worktree add --detach /tmp/wtold 8732153; git worktree add --detach /tmp/wtR dde5eee (venv /work/venv)
for k in 1 2 3; do
  for tree in wtold wtR; do
    out=/tmp/ab_${tree}_$k; rm -rf $out
    (cd /tmp/$tree && env PYTHONPATH=/tmp/$tree /work/venv/bin/python -m lssvm_cvx bench --no-progress --only lssvm_solvers --out $out > /dev/null 2>&1)
    python3 -c "import json; d=json.load(open('$out/lssvm_solvers.json')); print('$tree', $k, [round(c['value'],3) for c in d['checks'].values()])"
  done
done
echo AB DONE
