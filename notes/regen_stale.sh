#!/bin/bash
# Regenerate the 26 results that a change to lssvm_cvx/checks.py or linalg/problem_checks.py
# stales (tests/test_results_staleness.py lists them), from a clean detached worktree of REV:
# the timing set alone, then scaling alone, then two sets in parallel (the machine otherwise idle).
# usage: notes/regen_stale.sh REV   (venv /work/venv; results in /tmp/res_{timing,scaling,a,b};
#        compare with notes/compare_claims.py before copying them into benchmarks/results)
set -u
REV=$1
cd /work/main && git worktree prune; rm -rf /tmp/wtR /tmp/res_timing /tmp/res_scaling /tmp/res_a /tmp/res_b
git -C /work/main worktree add -q --detach /tmp/wtR $REV
cd /tmp/wtR
export PYTHONPATH=/tmp/wtR
PY=/work/venv/bin/python
$PY -m lssvm_cvx bench --no-progress --only lssvm_speed,regularized_speed,areg_speed,lssvm_loo,harness_timing,harness_warm,auto_large,lssvm_solvers,componentwise_solvers --out /tmp/res_timing
echo TIMING DONE $(date)
$PY -m lssvm_cvx bench --no-progress --only scaling --out /tmp/res_scaling
echo SCALING DONE $(date)
$PY -m lssvm_cvx bench --no-progress --only areg_cv_wellposed,areg_fig2,areg_fig3,areg_fig6b,areg_fig8,areg_harness,auto_gradient,device_precision,l2svm_fig3,l2svm_table2 --out /tmp/res_a > /tmp/regen_a.log 2>&1 &
$PY -m lssvm_cvx bench --no-progress --only auto_gradnorm,auto_sinc_grid,componentwise_fig6,pareto_fig1,pareto_sweep,pareto_toy --out /tmp/res_b > /tmp/regen_b.log 2>&1 &
wait
echo REGEN DONE $(date)
