#!/bin/bash
# worktrees: git worktree add --detach /tmp/wt2b 2b670ec; git worktree add --detach /tmp/wt 6d4bca2 (venv /work/venv)
# the 13 sweep rows whose verdict changed between the committed sweep (2b670ec) and 6d4bca2:
# each cell run alone, old code then new code, on a quiet machine
cells=(
"areg_ensemble 300 SCS high"
"areg_stability 60 CVXOPT high"
"componentwise_fusion 60 HIGHS default,low"
"componentwise_lssvm 300 DAQP low"
"componentwise_lssvm_classifier 300 DAQP low"
"componentwise_stp 300 ECOS,closed_form default,high"
"pareto_krr_sum 60 CVXOPT default,high,low"
)
for round in 1; do
for c in "${cells[@]}"; do
  read f n s p <<< "$c"
  for tree in wt2b wt; do
    out=/tmp/verify/$tree/$f
    rm -rf $out
    (cd /tmp/$tree && env PYTHONPATH=/tmp/$tree OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /work/venv/bin/python -m lssvm_cvx sweep --only $f --sizes $n --solvers $s --profiles $p --repeats 1 --time-limit 60 --jobs 1 --quiet --out $out > /dev/null 2>&1)
    echo "$tree $f $n $s $p rc=$?"
  done
done
done
echo VERIFY DONE
