"""Compare two sweep CSVs (``lssvm-cvx bench --only harness_verdicts``) cell by cell.

usage: python notes/compare_sweeps.py OLD.csv NEW.csv

Prints the row and verdict counts of each and every cell (formulation, n, solver, repeat,
profile, params) whose verdict changed, with the new status and reason.
"""
import collections
import csv
import sys

KEY = ("formulation", "n", "solver", "repeat", "profile", "params")


def load(path):
    return {tuple(r[k] for k in KEY): r for r in csv.DictReader(open(path))}


old, new = load(sys.argv[1]), load(sys.argv[2])
print("rows old/new", len(old), len(new))
print("verdicts old", collections.Counter(r["verdict"] for r in old.values()))
print("verdicts new", collections.Counter(r["verdict"] for r in new.values()))
print("cells only old", len(set(old) - set(new)), "only new", len(set(new) - set(old)))
for k in sorted(set(old) & set(new)):
    if old[k]["verdict"] != new[k]["verdict"]:
        print("CHANGED", k, old[k]["verdict"], "->", new[k]["verdict"], "|", new[k]["status"], "|",
              new[k]["reason"][:150])
