"""Print each cell of notes/verify_sweep_cells.sh for the two trees.

usage: python notes/verify_sweep_cells_compare.py [OLD_TREE NEW_TREE]
(defaults: the twentieth session's wt2b = 2b670ec and wt = 6d4bca2)."""
import csv, glob, sys
trees = sys.argv[1:3] or ["wt2b", "wt"]
rows = {}
for tree in trees:
    for p in sorted(glob.glob(f"/tmp/verify/{tree}/*/sweep.csv")):
        for r in csv.DictReader(open(p)):
            rows.setdefault((r["formulation"], r["n"], r["solver"], r["profile"]), {})[tree] = (r["status"], r["objective"][:14], r["failure"], r["verdict"], r["time_s"][:6])
for k, v in sorted(rows.items()):
    print(k, *(f"\n    {t}: {v.get(t)}" for t in trees))
