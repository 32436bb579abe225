#!/bin/bash
# Rerun sweep cells alone, the old code then the new code, on a quiet machine (venv /work/venv).
# usage: notes/verify_sweep_cells.sh [OLD_TREE NEW_TREE CELLS_FILE]
#   the trees are detached worktrees under /tmp (git worktree add --detach /tmp/NAME REV);
#   CELLS_FILE holds one "formulation size solvers profiles" per line.
# Defaults: the twentieth session's check, the 13 sweep rows whose verdict changed between the
# committed sweep (2b670ec, /tmp/wt2b) and 6d4bca2 (/tmp/wt).
OLD=${1:-wt2b}
NEW=${2:-wt}
if [ -n "${3:-}" ]; then
  mapfile -t cells < "$3"
else
  cells=(
  "areg_ensemble 300 SCS high"
  "areg_stability 60 CVXOPT high"
  "componentwise_fusion 60 HIGHS default,low"
  "componentwise_lssvm 300 DAQP low"
  "componentwise_lssvm_classifier 300 DAQP low"
  "componentwise_stp 300 ECOS default,high"
  "pareto_krr_sum 60 CVXOPT default,high,low"
  )
fi
for c in "${cells[@]}"; do
  read f n s p <<< "$c"
  for tree in $OLD $NEW; do
    out=/tmp/verify/$tree/$f
    rm -rf $out
    (cd /tmp/$tree && env PYTHONPATH=/tmp/$tree OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /work/venv/bin/python -m lssvm_cvx sweep --only $f --sizes $n --solvers $s --profiles $p --repeats 1 --time-limit 60 --jobs 1 --quiet --out $out > /dev/null 2>&1)
    echo "$tree $f $n $s $p rc=$?"
  done
done
echo VERIFY DONE
