"""Componentwise LS-SVM chapter, §5.2 "STP with RBF and lin": how often the estimator at its
defaults picks the paper's kernel for every input, measured on 100 fresh seeds with a
confidence interval, and what bounds the rate.

y = 10 sinc(x1) + 20 (x2 - 0.5)² + 10 x3 + 5 x4 + e, e ~ N(0, 1), x ~ U[0, 1]^10, N = 100.
Every fit is ``ComponentwiseLSSVMRegressor(penalty="stp", kernel=["rbf", "linear"])`` with
nothing else set: the STP (eq. 25, GNC) selects the inputs among 20 candidates (RBF and linear
for each of the ten inputs), then ``kernel_choice="cv"`` picks each selected input's kernel by
paired exact leave-one-out with the one-standard-error rule
(:mod:`lssvm_cvx.selection.kernel_choice`).

Why this benchmark: ``componentwise_defaults`` and ``componentwise_table1`` measure the rate on
20 seeds each, where one seed is 5 points: too few to tell whether the issue's 90 % is met.
The seeds here (``SEED_BASE`` ..) were fixed before any of them was looked at and no design
decision has seen them; the estimator's defaults are the ones measured in
``componentwise_defaults`` (none was changed for this run).

From the *same* STP fit per seed the benchmark also reports, without refitting:

* the rate without the kernel choice (the STP's own kernels: ``kernel_choice_["initial"]``);
* the rate with the other rule of :func:`~lssvm_cvx.selection.kernel_choice.choose_kernels`
  (``rule="min"``, the smallest leave-one-out error);
* the rates with the right inputs x1..x4 given (started from RBF for all four), which bound
  what any input selection followed by this choice can reach;
* the evidence per input with the paper's assignment for the others: the paired z-score
  ``(LOO(worse kernel) - LOO(paper's kernel)) / SE`` of the exact leave-one-out losses.  The
  one-SE rule keeps the linear kernel for the sinc input x1 when its z < 1, and takes RBF for a
  linear input when RBF wins by more than one SE; the fraction of seeds on the wrong side of 1
  is the rule's error rate on that input, a property of the data at N = 100, not of the search;
* the rate of every threshold rule on that evidence, "RBF for an input iff its linear
  candidate's LOO loss exceeds the RBF one's by more than ``c`` paired SEs" (the one-SE rule
  is ``c = 1``, ``rule="min"`` is ``c = 0``), for a grid of ``c``, with the right inputs given.
  Its maximum over ``c`` — a threshold chosen in hindsight on these very seeds — bounds what any
  rule of this family, applied to exact leave-one-out at N = 100, can reach.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from lssvm_cvx import ComponentwiseLSSVMRegressor, problems
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.estimators.componentwise import GAMMA_GRID
from lssvm_cvx.formulations.componentwise import component_kernels
from lssvm_cvx.selection.kernel_choice import choose_kernels

#: first seed; 8000-8099 were fixed before this benchmark first ran (earlier runs used
#: 1000-1005, 2000-2004, 5000-5019 for design and 7000-7019, 0-19 for measurement)
SEED_BASE = 8000
N_SEEDS = 100
#: candidates: components 0..9 RBF on x1..x10, 10..19 linear on x1..x10
RIGHT = [0, 1, 12, 13]          # RBF x1, RBF x2, linear x3, linear x4
RBF_X1_TO_X4 = [0, 1, 2, 3]
PARAMS = dict(penalty="stp", kernel=["rbf", "linear"])
#: the paper's component per input x1..x4 (column index -> component index)
PAPER_KERNEL = dict(enumerate(RIGHT))
#: x1, x2 have the paper's RBF kernel, x3, x4 its linear one
PAPER_RBF = np.array([PAPER_KERNEL[j] < 10 for j in range(4)])


def evidence(log: list[dict]) -> dict[int, float]:
    """Paired z-score per input from the first pass of a kernel choice started at the paper's
    assignment: (mean LOO loss of the other kernel - mean LOO loss of the paper's kernel) /
    (paired SE).  Positive: the data favour the paper's kernel."""
    z = {}
    for entry in log:
        if entry["pass"] != 1 or len(entry["columns"]) != 1 or entry["columns"][0] not in PAPER_KERNEL:
            continue
        j = entry["columns"][0]
        cands, mean, se = entry["candidates"], np.asarray(entry["mean"]), np.asarray(entry["paired_se"])
        k_paper = cands.index(PAPER_KERNEL[j])
        k_other = 1 - k_paper
        z[j] = float((mean[k_other] - mean[k_paper]) / max(se.max(), 1e-300))
    return z


def one_seed(seed: int) -> dict:
    ds = problems.get_problem("additive10", n_train=100, n_test=200, seed=seed)
    X, y = ds.X, ds.y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = ComponentwiseLSSVMRegressor(**PARAMS).fit(X, y)
    kc = est.kernel_choice_
    comps = component_kernels(est.kernel_, X.shape[1])
    labels = est.component_labels_

    def names(S) -> list[str]:
        return [f"{labels[d][1]} x{labels[d][0][0] + 1}" for d in sorted(S)]

    def inputs(S) -> set[int]:
        return {labels[d][0][0] for d in S}

    def choose(start, rule="one_se"):
        return choose_kernels(X, y, comps, start, gammas=GAMMA_GRID, rule=rule)

    kmin = choose(kc["initial"], "min")
    given_se, given_min = choose(RBF_X1_TO_X4), choose(RBF_X1_TO_X4, "min")
    z = evidence(choose(RIGHT).log)
    return {"seed": seed, "final": names(kc["selected"]), "initial": names(kc["initial"]),
            "exact": kc["selected"] == RIGHT, "exact without choice": kc["initial"] == RIGHT,
            "exact rule min": kmin.selected.tolist() == RIGHT,
            "inputs exact": inputs(kc["selected"]) == {0, 1, 2, 3},
            "given inputs, one_se": given_se.selected.tolist() == RIGHT,
            "given inputs, min": given_min.selected.tolist() == RIGHT,
            "z": z, "sigma2": est.sigma2_, "converged": bool(est.converged_),
            "warnings": len(caught),
            "test MSE": float(np.mean((est.predict(ds.X_test) - ds.y_test) ** 2))}


#: thresholds c of the rule family "RBF iff LOO(linear) - LOO(RBF) > c paired SEs"
THRESHOLDS = np.round(np.arange(-1.0, 3.01, 0.25), 2)


def right_at(zs: np.ndarray, c: float) -> np.ndarray:
    """Whether the rule "RBF iff LOO(linear) - LOO(RBF) > c paired SEs" gives the paper's kernel,
    per seed (rows) and input x1..x4 (columns).  ``zs``: the paired z in favour of the paper's
    kernel, so x1, x2 (RBF) are right iff z > c and x3, x4 (linear) iff -z <= c."""
    return np.where(PAPER_RBF, zs > c, -zs <= c)


def threshold_rates(zs: np.ndarray) -> pd.DataFrame:
    """Per threshold ``c``: % of seeds (rows of ``zs``) with the paper's kernel on each input
    and on every one of x1..x4 (:func:`right_at`)."""
    rows = []
    for c in THRESHOLDS:
        ok = right_at(zs, float(c))
        rows.append({"c (paired SEs)": float(c),
                     **{f"% x{j + 1} {'RBF' if PAPER_RBF[j] else 'linear'}":
                        100 * float(np.mean(ok[:, j])) for j in range(4)},
                     "% all four right": 100 * float(np.mean(ok.all(axis=1)))})
    return pd.DataFrame(rows)


def rate_row(label: str, hits: list[bool]) -> dict:
    """Rate with its Wilson 95 % interval (scipy.stats.binomtest)."""
    k, n = int(np.sum(hits)), len(hits)
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return {"rate": label, "runs": n, "hits": k, "%": 100 * k / n,
            "95 % CI low": 100 * ci.low, "95 % CI high": 100 * ci.high}


def failure_modes(results: list[dict]) -> str:
    """The selected sets of the runs that missed, with their seed."""
    miss = [f"seed {r['seed']}: {{{', '.join(r['final'])}}}" for r in results if not r["exact"]]
    return "; ".join(miss) if miss else "none"


@register("componentwise_kernel_choice", "Componentwise LS-SVM chapter §5.2, STP with RBF and "
          "linear candidates at the defaults: the exact kernel choice rate on 100 fresh seeds "
          "with its confidence interval, and the evidence per input",
          paper="componentwise-lssvm-pelckmans")
def run(ctx: Context) -> BenchResult:
    n = ctx.reps(full=N_SEEDS, quick=2)
    seeds = [SEED_BASE + ctx.seed + r for r in range(n)]
    results = ctx.map(one_seed, seeds, desc="STP with RBF and lin")
    col = lambda key: [bool(r[key]) for r in results]  # noqa: E731
    rates = pd.DataFrame([
        rate_row("exact: RBF x1, x2 and linear x3, x4, nothing else (defaults, kernel_choice='cv')",
                 col("exact")),
        rate_row("selected inputs exactly x1..x4 (defaults)", col("inputs exact")),
        rate_row("exact without the kernel choice (the STP's own kernels, same fits)",
                 col("exact without choice")),
        rate_row("exact with rule='min' instead of the one-SE rule (same STP fits)",
                 col("exact rule min")),
        rate_row("right inputs given, one-SE rule (the estimators' rule)",
                 col("given inputs, one_se")),
        rate_row("right inputs given, rule='min'", col("given inputs, min")),
    ])
    zmat = np.array([[r["z"][j] for j in range(4)] for r in results if len(r["z"]) == 4])
    one_se_right = right_at(zmat, 1.0)
    ztab = pd.DataFrame([
        {"input": name, "paper's kernel": "RBF" if PAPER_RBF[j] else "linear",
         "other kernel": "linear" if PAPER_RBF[j] else "RBF",
         "seeds": zmat.shape[0], "median z": float(np.median(zmat[:, j])),
         "5th percentile z": float(np.percentile(zmat[:, j], 5)),
         "% seeds the one-SE rule takes the other kernel":
             100 * float(np.mean(~one_se_right[:, j])),
         "% seeds with z < 0 (the other kernel has the lower LOO error)":
             100 * float(np.mean(zmat[:, j] < 0))}
        for j, name in enumerate(["x1: 10 sinc(x1)", "x2: 20 (x2 - 0.5)²", "x3: 10 x3", "x4: 5 x4"])])
    ttab = threshold_rates(zmat)
    best = ttab.loc[ttab["% all four right"].idxmax()]
    rate = rates.iloc[0]
    res = BenchResult("componentwise_kernel_choice", "STP with RBF and linear candidates at the "
                      "defaults: exact kernel choice on fresh seeds, with confidence intervals")
    res.check(f"STP with RBF+lin at defaults: % of {n} fresh seeds with exactly RBF x1, x2 and "
              "linear x3, x4 (target 90; the paper's 95 is the share of its 20 candidate components chosen right in its one run, not a share of runs)", float(rate["%"]), 90.0, higher_is_better=True,
              unit="%")
    res.check("STP with RBF+lin at defaults: upper end of the 95 % Wilson interval of that rate "
              "reaches 90 (the target is not rejected by the data)", float(rate["95 % CI high"]),
              90.0, higher_is_better=True, unit="%")
    res.check("right inputs given: best % of seeds with the paper's four kernels over every "
              "threshold c of the rule 'RBF iff LOO(linear) - LOO(RBF) > c paired SEs' (c chosen in "
              "hindsight on these seeds; the one-SE rule is c = 1)", float(best["% all four right"]),
              90.0, higher_is_better=True, unit="%")
    res.check("STP with RBF+lin at defaults: % fits with GNC converged",
              100 * float(np.mean(col("converged"))), 100.0, higher_is_better=True, unit="%")
    paper = pd.DataFrame([{"rate": "STP with RBF and lin, % components right (one run, Table 1)",
                           "paper": 95}])
    res.tables.append(Table(
        f"Exact kernel choice over {n} fresh seeds ({seeds[0]}..{seeds[-1]})", rates,
        "Every fit: `ComponentwiseLSSVMRegressor(penalty='stp', kernel=['rbf', 'linear'])`.  "
        "The 'same fits' rows re-run only the kernel choice on the STP's selection of that fit; "
        "the 'right inputs given' rows start the kernel choice from RBF for x1..x4 (σ² as the "
        "estimator chose).  Interval: Wilson score, 95 %.", paper=paper, floatfmt=".3g"))
    res.tables.append(Table(
        "Evidence per input: paired z of the exact leave-one-out losses, the paper's kernel vs "
        "the other one", ztab,
        "Componentwise LS-SVM (eq. 16) with the paper's assignment for the other three inputs "
        "and γ re-tuned by exact LOO for each candidate; z = (mean LOO loss with the other "
        "kernel - with the paper's kernel) / SE of the paired per-point differences.  The "
        "one-SE rule takes the linear kernel for x1, x2 when z < 1 and RBF for x3, x4 when "
        "z < -1.", floatfmt=".3g"))
    res.tables.append(Table(
        "Every threshold rule on the same evidence, right inputs given", ttab,
        f"Rule: RBF for an input iff its linear candidate's mean LOO loss exceeds the RBF one's by "
        f"more than c paired SEs (c = 1: the estimators' one-SE rule; c = 0: rule='min').  "
        f"z as in the table above, {zmat.shape[0]} seeds with all four z.  A small c errs on the "
        f"linear inputs x3, x4, a large c on the sinc input x1.", floatfmt=".3g"))
    res.notes = (
        ("QUICK MODE: two seeds; the rates are not a measurement.\n\n" if ctx.quick else "") +
        f"Exact kernel choice at the defaults: {int(rate['hits'])} of {n} seeds "
        f"({rate['%']:.0f} %, 95 % interval {rate['95 % CI low']:.0f}-{rate['95 % CI high']:.0f} %).  "
        f"Runs that missed (final selection): {failure_modes(results)}.  "
        f"Warnings raised by the fits: {int(np.sum([r['warnings'] for r in results]))}.  "
        f"With the right inputs given, the best threshold rule on the paired LOO evidence is "
        f"c = {best['c (paired SEs)']:g} with {best['% all four right']:.0f} % of seeds right on "
        f"all four inputs (the one-SE rule c = 1: "
        f"{float(ttab.set_index('c (paired SEs)').loc[1.0, '% all four right']):.0f} %); "
        f"at that c, x1 is RBF in {best['% x1 RBF']:.0f} % and x3, x4 linear in "
        f"{best['% x3 linear']:.0f} %, {best['% x4 linear']:.0f} % of seeds.")
    res.meta.update({"seeds": seeds, "runs": results})
    return res
