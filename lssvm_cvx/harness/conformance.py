"""``check_formulation``: the conformance check every registered formulation passes.

For one formulation (class or instance) it checks, at its default random instance:

1. ``random_instance`` — builds a seeded instance of the class;
2. ``dcp`` / ``dpp`` — the cvxpy problem is DCP, and DPP (re-solves after a parameter change
   skip recompilation);
3. ``objective twin`` — the NumPy twin of every piece of the objective (the whole objective,
   or the loss and each term of a composition) equals its cvxpy expression at every
   certified point of :func:`~lssvm_cvx.harness.compare.compare`, within the backend's
   tolerance; a failure names the piece;
4. ``certificate`` — the reference point (the best certificate among the closed form and the
   solvers) is certified: its scaled primal, dual and gap residuals
   (:mod:`lssvm_cvx.certificates`) are within its profile — valid for non-smooth problems;
5. ``agreement`` — every installed solver among those asked agrees with the reference within
   its tolerance profile (a "disagreement" between two certified points fails it too), a
   QP-only solver on a cone problem being "not applicable".

A failed check of a formulation listed in :data:`KNOWN_LIMITS` is reported as *known* with
its mathematical reason (and a test pins that reason); any other failure fails the check.
"""

from __future__ import annotations

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
    # the NumPy twin of each piece of the objective against its cvxpy expression, at every
    # certified point (compare measured it)
    if report.twin:
        worst = ", ".join(f"{k} {v['gap']:.2g} at {v['backend']}'s point"
                          for k, v in report.twin.items())
        add("objective twin", not report.formulation_failures,
            ("; ".join(report.formulation_failures) if report.formulation_failures
             else f"|numpy - cvxpy| / |objective| per piece: {worst}"))
    else:
        add("objective twin", False, "no point to evaluate the twin at")
    ref = report[report.reference] if report.reference else None
    if ref is None:
        add("certificate", False, f"no reference point ({report.reference_reason})")
    else:
        cert = ref.certificate
        fails = cert.failures(ref.tolerance) if cert is not None else ["no certificate"]
        add("certificate", not fails,
            f"{report.reference}: " + (cert.describe() if cert is not None else "none")
            + (f" — {'; '.join(fails)}" if fails else ""))
    bad = [f"{r.backend} ({r.verdict}: {r.reason}{'; ' + r.error if r.error else ''})"
           for r in report.rows if r.agrees is False and r.backend != report.reference]
    na = [r.backend for r in report.rows if r.agrees is None]
    add("agreement", not bad,
        ("all agree" if not bad else "disagree: " + "; ".join(bad))
        + (f"; not applicable: {', '.join(na)}" if na else ""))
    return rep
