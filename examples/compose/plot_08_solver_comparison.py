r"""
Comparing solvers: the harness and a performance profile
========================================================

:func:`lssvm_cvx.validate.compare` runs one formulation through its closed form and any
installed cvxpy solvers and scores every backend the same way: a certificate of each point
(scaled primal infeasibility, dual infeasibility and duality gap, in the cone program cvxpy
handed the solver), the formulation's own NumPy objective at the returned point and the
deviations of the identifiable variables from the reference (the best certificate). Here every registered formulation with a
random instance is compared on a small problem; the performance profile (Dolan & Moré) shows,
for each solver, the share of problems it solved *in agreement with the reference* within a
factor :math:`\tau` of the fastest agreeing solver.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lssvm_cvx.formulations import FORMULATIONS
from lssvm_cvx.solvers import DEFAULT_SOLVERS, available_solvers
from lssvm_cvx.validate import compare

solvers = [s for s in DEFAULT_SOLVERS if s in available_solvers()]
rows = []
for name in sorted(FORMULATIONS):
    try:
        inst = FORMULATIONS[name].random_instance(40, seed=0)
    except Exception:                                   # no random instance: skip
        continue
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = compare(inst, solvers=solvers)
    for r in rep.rows:
        rows.append({"formulation": name, "backend": r.backend, "status": r.status,
                     "time": (r.setup_time or 0.0) + (r.solve_time or 0.0),
                     "agrees": bool(r.agrees), "verdict": r.verdict,
                     "certificate": r.certificate.score if r.certificate else np.nan})
df = pd.DataFrame(rows)
print(df.pivot_table(index="backend", values="agrees", aggfunc="mean").round(2).T.to_string())
print(pd.crosstab(df.backend, df.verdict).to_string())      # yes / NO / disagreement / n/a

# %%
# Time to an agreeing solution, relative to the fastest solver on each problem (closed forms
# excluded: they are the reference).
cv = df[df.backend != "closed_form"].copy()
cv["t"] = np.where(cv.agrees, cv.time, np.inf)
best = cv.groupby("formulation")["t"].transform("min")
cv["ratio"] = cv.t / best
taus = np.logspace(0, 3, 200)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
for s in solvers:
    r = cv[cv.backend == s].ratio.to_numpy()
    ax1.step(taus, [np.mean(r <= t) for t in taus], where="post", lw=2, label=s)
ax1.set_xscale("log")
ax1.set_xlabel("τ (time / fastest agreeing solver's time)")
ax1.set_ylabel("share of formulations")
ax1.set_title(f"Performance profile\n({cv.formulation.nunique()} formulations, N = 40)")
ax1.legend()
cf = df[df.backend == "closed_form"].set_index("formulation").time
sp = cv[cv.agrees].groupby("formulation").time.min()
common = cf.index.intersection(sp.index)
ax2.loglog(cf[common], sp[common], "o")
lim = [1e-5, 10]
ax2.plot(lim, lim, "k:", lw=1)
ax2.set_xlabel("closed form [s]")
ax2.set_ylabel("fastest agreeing cvxpy solver [s]")
ax2.set_title("Closed form vs cvxpy\n(compile + solve)")
fig.tight_layout()
plt.show()
