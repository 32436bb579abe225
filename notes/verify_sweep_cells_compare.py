"""Print each cell of notes/verify_sweep_cells.sh for the two commits (twentieth session)."""
import csv, glob, os
rows = {}
for tree in ("wt2b", "wt"):
    for p in sorted(glob.glob(f"/tmp/verify/{tree}/*/sweep.csv")):
        for r in csv.DictReader(open(p)):
            rows.setdefault((r["formulation"], r["n"], r["solver"], r["profile"]), {})[tree] = (r["status"], r["objective"][:14], r["failure"], r["verdict"], r["time_s"][:6])
for k, v in sorted(rows.items()):
    print(k, "\n    2b670ec:", v.get("wt2b"), "\n    6d4bca2:", v.get("wt"))
