"""Issue 30: where the composed screened LOO search spends its time (the exact step).

The screened search of :func:`lssvm_cvx.estimators.regularized_search.search` screens every
(σ², other weights) candidate's path by a low-rank LOO, then scores the shortlisted candidates
exactly (``_screened``). Since the twelfth session (2026-11-30) a candidate whose exact system
is not the bordered one scores its whole weight path from one generalised eigendecomposition
where that serves (``Decomposition.one_decomposition_path``); since the thirteenth session
first from one eigendecomposition of K where every term is on the fitted values (the range of
K, ``Decomposition.range_path``: the graph term); else, and for RKHS norms alone,
it scores a window of weights, one system at a time (``form.system({key: w}).loo(y)``). For
RKHS norms alone that system is the bordered one (one Cholesky of order N + 1). With any other
quadratic term it is the augmented system (A) of :mod:`lssvm_cvx.linalg.quadratic`: one LU of
order 2N + 1, then for the LOO residuals the ``μμ`` block ``Z`` of its inverse (N solves),
refined against the exact system when the LU needed its ridge on α (an unidentifiable α:
``jitter > 0``). The tenth session saw this step in one stack sample and did not measure it.
This script measures it on problems generated from seeds, one BLAS thread: per case and N, the
search's time against one ``eigh`` of an N × N Gram (median of three), the time in the screen,
in the augmented systems' LUs and in their LOO questions (``Z``), how many systems needed the
ridge and their most refinement steps, how many whole paths the search scored from the
range of K and from one generalised eigendecomposition and their time, and which serves the
chosen candidate's whole weight path (the range, or
:func:`lssvm_cvx.linalg.quadratic.generalized_path` not refusing its pencils) and how long
that path takes.

Run: ``OMP_NUM_THREADS=1 python notes/composed_exact_step.py`` (about 10 minutes; it writes
``notes/composed_exact_step.md`` with the commit), or ``python notes/composed_exact_step.py N``
for one size (printed only).
"""

import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

import lssvm_cvx.estimators.regularized_search as rs
import lssvm_cvx.linalg.engine as engine
import lssvm_cvx.linalg.quadratic as quadratic
from lssvm_cvx import RegularizedLSSVMRegressor
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.harness.files import current_commit
from lssvm_cvx.kernels import RBF
from lssvm_cvx.terms import GraphLaplacian, Ridge, RKHSNorm

#: accumulated by the wrappers below, reset per fit
ACC: dict[str, Any] = {}


def reset() -> None:
    """Zero the accumulators."""
    ACC.update(screen=0.0, lu=0.0, loo=0.0, systems=0, ridged=0, steps=0, gen=None, gens=0,
               gen_t=0.0, rng=None, rngs=0)


def timed(owner: Any, name: str, key: str, after: Any = None) -> None:
    """Replace ``owner.name`` by a wrapper adding its seconds to ``ACC[key]``."""
    f = getattr(owner, name)

    def g(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        r = f(*a, **k)
        ACC[key] += time.perf_counter() - t
        if after is not None:
            after(a, r)
        return r

    setattr(owner, name, g)


def counted(args: tuple, _: Any) -> None:
    """After an augmented system's construction: count it, and whether it needed the ridge."""
    ACC["systems"] += 1
    ACC["ridged"] += bool(args[0].jitter)


def refined(args: tuple, _: Any) -> None:
    """After an augmented system's LOO: its refinement steps."""
    ACC["steps"] = max(ACC["steps"], args[0].refinement_steps)


timed(rs, "screen_path", "screen")
timed(quadratic.AugmentedSystem, "__init__", "lu", counted)
timed(quadratic.AugmentedSystem, "loo", "loo", refined)


def served(flag: str, count: str) -> Any:
    """An ``after`` for :func:`timed`: whether a one-eigh path served (not None), and how
    often."""
    def after(_: tuple, r: Any) -> None:
        ACC[flag] = r is not None
        ACC[count] += r is not None
    return after


# the generalised-eigen and the range-of-K paths: their seconds together in gen_t
timed(engine, "generalized_path", "gen_t", served("gen", "gens"))
timed(engine.Decomposition, "range_path", "gen_t", served("rng", "rngs"))


def terms(extra: str) -> dict[str, Any]:
    """The RKHS norm (swept as a path) and one other term whose weight is a grid of three."""
    if extra == "none":
        return {}
    term = {"ridge": Ridge(), "graph": GraphLaplacian(10)}[extra]
    return dict(terms={"rkhs": (RKHSNorm(), 1.0), extra: (term, 1e-2)}, loo="loss",
                weight_grid={"rkhs": rs.DEFAULT_WEIGHT_GRID, extra: [1e-4, 1e-2, 1.0]})


LINES: list[str] = []


def out(line: str) -> None:
    """Print a line of the report and keep it for the file."""
    print(line, flush=True)
    LINES.append(line)


# the code measured, when the run starts (with a hash of the sources where they differ from it)
commit = current_commit() or "(not a git checkout)"
SIZES = [int(sys.argv[1])] if len(sys.argv) > 1 else [1000, 2000]
out("| terms | N | search [s] | / one eigh | screen [s] | augmented systems (ridged) | their "
    "LUs [s] | their LOO (Z) [s] | most refinement steps | whole paths from one eigh (range "
    "of K / generalised) | their time [s] | exact LOO evaluations | one eigh serves the chosen "
    "path | that path [s] |")
out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for n in SIZES:
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (n, 2))
    y = np.sinc(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(n)
    with threadpool_limits(limits=1, user_api="blas"):
        eig = []
        for _ in range(3):
            t0 = time.perf_counter()
            np.linalg.eigh(RBF(1.0)(X))
            eig.append(time.perf_counter() - t0)
        t_eigh = float(np.median(eig))
        for extra in ("none", "ridge", "graph"):
            reset()
            est = RegularizedLSSVMRegressor(selection="loo", search="screen", random_state=0,
                                            sigma2_grid="auto", **terms(extra))
            t0 = time.perf_counter()
            est.fit(X, y)
            t_fit = time.perf_counter() - t0
            fit = dict(ACC)
            # the chosen candidate's whole weight path, as the grid search computes it
            reset()
            key = next(iter(est.terms_))
            form = RegularizedLSSVM(X, y, kernel=RBF(est.sigma2_), terms=est.terms_)
            t0 = time.perf_counter()
            form.path(key, rs.DEFAULT_WEIGHT_GRID)
            t_path = time.perf_counter() - t0
            served = ("RKHS norms: one eigh" if extra == "none" else "range of K" if ACC["rng"]
                      else "generalised" if ACC["gen"] else "no (refused)")
            out(f"| RKHS norm{'' if extra == 'none' else ' + ' + extra} | {n} | {t_fit:.2f} | "
                f"{t_fit / t_eigh:.1f} | {fit['screen']:.2f} | {fit['systems']} "
                f"({fit['ridged']}) | {fit['lu']:.2f} | {fit['loo']:.2f} | {fit['steps']} | "
                f"{fit['rngs']} / {fit['gens']} | {fit['gen_t']:.2f} | "
                f"{int(est.cv_results_['n_exact'])} | {served} | {t_path:.2f} |")
if len(sys.argv) > 1:
    sys.exit()
Path(__file__).with_suffix(".md").write_text(
    "# Where the composed screened LOO search spends its time (issue 30)\n\n"
    f"Generated by `OMP_NUM_THREADS=1 python notes/composed_exact_step.py` at commit "
    f"{commit}, "
    f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}"
    "; see the script's docstring for what is measured (one fit per row, one eigh: the median "
    "of three; the LOO (Z) column includes the refinement against the exact system).  The "
    "last column is the grid search's path of the chosen candidate over the 17 weights, "
    "which the screened search computes itself only where one eigh serves it."
    "\n\n" + "\n".join(LINES) + "\n",
    encoding="utf-8")
