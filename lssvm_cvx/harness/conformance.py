"""``check_formulation``: the conformance check every registered formulation passes.

For one formulation (class or instance) it checks, at its default random instance:

1. ``random_instance`` — builds a seeded instance of the class;
2. ``dcp`` / ``dpp`` — the cvxpy problem is DCP, and DPP (re-solves after a parameter change
   skip recompilation);
3. ``objective twin`` — the NumPy :meth:`~lssvm_cvx.formulations.base.Formulation.objective`
   equals cvxpy's objective value at a solver's point (relative 1e-6, scale ``max(|f|, 1)``);
4. ``KKT`` — the reference point (closed form, else the best optimal solver) is primal
   feasible and stationary within the closed-form tolerance (NaN stationarity is accepted
   only with its reason: non-smooth atom, cone constraint);
5. ``agreement`` — every installed solver among those asked agrees with the reference within
   its tolerance profile (:func:`~lssvm_cvx.harness.compare.compare`), a QP-only solver on a
   cone problem being "not applicable".

A failed check of a formulation listed in :data:`KNOWN_LIMITS` is reported as *known* with
its mathematical reason (and a test pins that reason); any other failure fails the check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["check_formulation", "ConformanceReport", "ConformanceError", "KNOWN_LIMITS"]

#: formulation -> {"checks": checks that may fail, "reason": the mathematical reason}
KNOWN_LIMITS: dict[str, dict[str, Any]] = {}
# (the α-space KRR formulations pareto_krr_sum / pareto_krr_alpha / pareto_krr_alpha_eps were
# listed here until their whitening cutoff rose from 1e-10 to 1e-8 λ_max through the shared
# psd_eigh; they now agree across solvers and are checked like every other formulation)


class ConformanceError(AssertionError):
    """A formulation failed a conformance check that is not a known limit."""


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""
    known: str | None = None


@dataclass
class ConformanceReport:
    """The checks :func:`check_formulation` ran on one formulation."""

    formulation: str
    checks: list[Check] = field(default_factory=list)
    report: Any = None  # the harness Report of the agreement check

    @property
    def ok(self) -> bool:
        return all(c.ok or c.known for c in self.checks)

    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok and not c.known]

    def __str__(self) -> str:
        lines = [f"conformance of {self.formulation}:"]
        for c in self.checks:
            mark = "ok" if c.ok else ("known" if c.known else "FAIL")
            lines.append(f"  [{mark}] {c.name}: {c.detail}" + (f" (known: {c.known})"
                                                              if c.known and not c.ok else ""))
        return "\n".join(lines)

    def assert_ok(self) -> None:
        if not self.ok:
            raise ConformanceError(str(self) + (f"\n\n{self.report.to_markdown()}"
                                                if self.report is not None else ""))


def check_formulation(formulation: Any, *, n: int | None = None,
                      solvers: Sequence[str] | None = None, time_limit: float | None = 60.0,
                      seed: int = 0) -> ConformanceReport:
    """Run the conformance checks on ``formulation`` (a registered name, a class or an
    instance); returns a :class:`ConformanceReport` (``.ok``, ``.assert_ok()``)."""
    import numpy as np

    from ..formulations import get_formulation
    from ..formulations.base import Formulation
    from ..solvers import DEFAULT_SOLVERS, available_solvers
    from .compare import compare

    if isinstance(formulation, str):
        formulation = get_formulation(formulation)
    cls: Any = formulation if isinstance(formulation, type) else type(formulation)
    name = getattr(cls, "name", cls.__name__)
    rep = ConformanceReport(name)
    known = KNOWN_LIMITS.get(name, {})

    def add(check: str, ok: bool, detail: str) -> None:
        rep.checks.append(Check(check, bool(ok), detail,
                                known["reason"] if check in known.get("checks", ()) else None))

    if isinstance(formulation, Formulation):
        inst = formulation
        add("random_instance", True, "instance given")
    else:
        try:
            inst = cls.random_instance(n, seed=seed) if n else cls.random_instance(seed=seed)
            add("random_instance", isinstance(inst, cls), f"{type(inst).__name__} at seed {seed}")
        except Exception as exc:
            add("random_instance", False, f"{type(exc).__name__}: {exc}")
            return rep
    try:
        prob = inst.build()
    except Exception as exc:
        add("dcp", False, f"build failed: {type(exc).__name__}: {exc}")
        return rep
    add("dcp", prob.is_dcp(), "problem.is_dcp()")
    add("dpp", prob.is_dpp(), f"problem.is_dpp() with parameters {sorted(prob.params)}")

    installed = set(available_solvers())
    names = [s for s in (solvers or DEFAULT_SOLVERS) if s in installed]
    report = compare(inst, names, time_limit=time_limit)
    rep.report = report
    # objective twin vs cvxpy's value at each solver's point
    worst, where = 0.0, None
    for row in report.rows:
        if row.backend == "closed_form" or row.objective is None:
            continue
        try:
            sol = inst.solve(row.backend, raise_on_failure=False, accept_inaccurate=True)
            built = inst.problem
            for k, v in inst.values_from_solution(sol).items():
                built.vars[k].value = np.asarray(v).reshape(built.vars[k].shape)
            cv = float(built.objective.value)
            if sol.objective is None:
                continue
            d = abs(cv - float(sol.objective)) / max(abs(cv), 1.0)
        except Exception:
            continue
        if d >= worst:
            worst, where = d, row.backend
        break  # one solver's point is enough: the twin is a function of the point
    add("objective twin", worst <= 1e-6,
        f"|numpy - cvxpy| / max(|cvxpy|, 1) = {worst:.2g} at {where}'s point" if where
        else "no solver point to evaluate")
    ref = report[report.reference] if report.reference else None
    if ref is None:
        add("KKT", False, f"no reference point ({report.reference_reason})")
    else:
        p, s = ref.kkt.get("primal", math.nan), ref.kkt.get("stationarity", math.nan)
        ok = (math.isfinite(p) and p <= ref.tolerance.feas
              and (s <= ref.tolerance.kkt if math.isfinite(s) else bool(ref.kkt_note)))
        add("KKT", ok, f"{report.reference}: primal {p:.2g}, stationarity {s:.2g}"
            + (f" ({ref.kkt_note})" if ref.kkt_note else ""))
    bad = [f"{r.backend} ({r.reason}{'; ' + r.error if r.error else ''})"
           for r in report.rows if r.agrees is False and r.backend != report.reference]
    na = [r.backend for r in report.rows if r.agrees is None]
    add("agreement", not bad,
        ("all agree" if not bad else "disagree: " + "; ".join(bad))
        + (f"; not applicable: {', '.join(na)}" if na else ""))
    return rep
