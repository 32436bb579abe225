"""The scaling benchmark's LOO selection at N = 3000 alone, run from a tree (twenty-fifth session):
cd /tmp/TREE && OMP_NUM_THREADS=1 PYTHONPATH=/tmp/TREE python /work/main/notes/loo_bench_tree.py"""
import sys, importlib
sys.path.insert(0, '.')
m = importlib.import_module("benchmarks.scaling")
out = m._loo_selection(3000, 3, False)
print({k: out[k] for k in ("eigh [s]", "screened search + fit [s]", "screen / eigh")}, flush=True)
