"""The harness's result types: one :class:`Row` per backend, a :class:`Report` per run.

``Report.to_frame()`` and the sweep's ``sweep.csv`` share one long format (:data:`COLUMNS`):
one row per (formulation, n, solver, repeat), with the maximum relative deviation over the
compared (identifiable) quantities in one column, so reports of different formulations
concatenate without sparse per-variable columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..solvers import Tolerance

__all__ = ["Row", "Report", "COLUMNS", "VERDICTS", "FAILURES", "NOT_CHARGED", "deviation",
           "ranking_time", "json_safe"]

#: the long format of ``Report.to_frame()`` and ``sweep.csv``
COLUMNS: tuple[str, ...] = (
    "formulation", "n", "solver", "repeat", "profile", "status", "setup_s", "solve_s",
    "objective", "rel_obj_gap", "max_rel_dev", "primal_res", "dual_res", "stationarity",
    "cert_primal", "cert_dual", "cert_gap", "twin_gap", "agrees", "verdict", "reference",
    "reference_reason", "reason", "error",
    # timing that isolates the solver, attribution and provenance (issue 28)
    "failure", "solver_status", "compile_s", "solver_s", "solve_call_s", "time_s",
    "iterations", "n_variables", "n_constraints", "time_limit", "solver_version", "options",
    "retry_profile", "retry_status", "retry_cert", "retry_obj_gap",
)

#: why a row failed, in the words of :func:`lssvm_cvx.harness.compare.classify_failure`:
#: only ``solver``, ``settings`` and ``time_limit`` are charged to the solver
FAILURES: tuple[str, ...] = ("compile", "solver", "settings", "time_limit", "interrupted",
                             "not_applicable")
#: failures that are not the solver's: left out of its success rate
NOT_CHARGED: frozenset[str] = frozenset({"compile", "interrupted", "not_applicable"})

#: the verdicts of a row: agrees; does not (its point is wrong, or nothing certifies it); it and
#: the reference are both certified yet differ (one certificate or the problem is suspect);
#: the solver does not apply
VERDICTS: tuple[str, ...] = ("yes", "NO", "disagreement", "n/a")


def deviation(x: Any, ref: Any) -> tuple[float, float]:
    """``(max |x - ref|, max |x - ref| / max |ref|)``; the relative part uses scale 1 when
    ``ref`` is identically zero."""
    import numpy as np

    from ..exceptions import InputError

    x, ref = np.asarray(x, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    if x.shape != ref.shape:
        raise InputError(f"cannot compare shapes {x.shape} and {ref.shape}")
    ab = float(np.max(np.abs(x - ref))) if x.size else 0.0
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    return ab, ab / (scale if scale > 0 else 1.0)


def twin_gaps(twin: dict[str, tuple[float, float | None]]) -> dict[str, float]:
    """Per piece, ``|NumPy - cvxpy|`` relative to the objective's size at the point
    (``max(|Σ cvxpy|, Σ |cvxpy|)``, at least the smallest normal float); pieces without a
    cvxpy value are left out."""
    known: dict[str, tuple[float, float]] = {
        k: (a, b) for k, (a, b) in twin.items() if b is not None}
    if not known:
        return {}
    total = sum(b for _, b in known.values())
    scale = max(abs(total), sum(abs(b) for _, b in known.values()), 2.2e-308)
    return {k: abs(a - b) / scale for k, (a, b) in known.items()}


def ranking_time(solver_time: float | None, call_time: float | None) -> float:
    """The time a solver is ranked by: its own reported solve time where it reports one, else
    the wall time of the call into it; cvxpy's conversion is never included.  A report longer
    than the call that contains it is not believed (Clarabel's, when cvxpy reuses its solver
    object for a re-solve, counts more than the call), so the shorter of the two is used."""
    vals = [float(t) for t in (solver_time, call_time) if t is not None and math.isfinite(t)]
    return min(vals) if vals else math.nan


def _json(v: Any) -> str:
    import json

    return json.dumps(json_safe(v), sort_keys=True, default=str)


def json_safe(v: Any) -> Any:
    """``v`` with NaN/inf as None and NumPy scalars as Python ones, recursively (JSON-ready)."""
    import numpy as np

    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return json_safe(v.item())
    if isinstance(v, dict):
        return {str(k): json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    return v


@dataclass
class Row:
    """One backend's result in a :class:`Report`.

    ``deviation`` maps each compared quantity to ``{"abs", "rel"}`` against the reference;
    ``non_identifiable`` the quantities that differ between optimal points (their deviation
    is shown but not judged; ``reason`` says what was judged instead); ``kkt_note`` why
    stationarity is NaN (non-smooth atom, no duals, ...); ``certificate`` the point's scaled
    primal, dual and gap residuals (:mod:`lssvm_cvx.certificates`); ``twin`` each objective
    piece's NumPy twin and cvxpy value at the point; ``verdict`` one of :data:`VERDICTS`;
    ``log`` everything the solver printed; ``reason`` the verdict in words.
    """

    backend: str
    status: str
    setup_time: float
    solve_time: float
    objective: float | None
    objective_rel_gap: float | None
    deviation: dict[str, dict[str, float]]
    kkt: dict[str, float]
    tolerance: Tolerance
    agrees: bool | None
    error: str | None = None
    reason: str = ""
    kkt_note: str | None = None
    non_identifiable: dict[str, str] = field(default_factory=dict)
    log: str = ""
    setting: str = "high"
    iterations: int | None = None
    certificate: Any = None
    verdict: str = ""
    twin: dict[str, tuple[float, float | None]] = field(default_factory=dict)
    #: why it failed (:data:`FAILURES`), "" when it did not; ``failure_detail`` in words
    failure: str = ""
    compile_time: float = math.nan
    #: the solver's own reported solve time, where it reports one
    solver_time: float | None = None
    #: wall time of the call into the solver (cvxpy's interface included)
    solve_call_time: float | None = None
    solver_status: str | None = None
    size: dict[str, int] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    solver_version: str | None = None
    #: a failed run re-run at a looser profile: the profile, its status, certificate and
    #: objective gap to the reference
    retry_profile: str | None = None
    retry_status: str | None = None
    retry_certificate: Any = None
    retry_objective_gap: float | None = None

    @property
    def time(self) -> float:
        """The time a solver is ranked by (:func:`ranking_time`)."""
        return ranking_time(self.solver_time, self.solve_call_time)

    @property
    def twin_gap(self) -> float:
        """Largest ``|NumPy twin - cvxpy|`` over the objective's pieces at this point, relative
        to the objective's size (NaN when not evaluated)."""
        gaps = twin_gaps(self.twin)
        return max(gaps.values()) if gaps else math.nan

    def cert(self, part: str) -> float | None:
        """One residual of the certificate (``"primal"``, ``"dual"``, ``"gap"``) or None."""
        return None if self.certificate is None else getattr(self.certificate, part)

    @property
    def max_rel_dev(self) -> float:
        """Largest relative deviation over the judged (identifiable) quantities."""
        vals = [d["rel"] for k, d in self.deviation.items() if k not in self.non_identifiable]
        return max(vals) if vals else math.nan

    def to_dict(self, log: bool = True) -> dict[str, Any]:
        return json_safe({
            "backend": self.backend, "status": self.status, "setting": self.setting,
            "setup_time": self.setup_time, "solve_time": self.solve_time,
            "objective": self.objective, "objective_rel_gap": self.objective_rel_gap,
            "deviation": self.deviation, "max_rel_dev": self.max_rel_dev, "kkt": self.kkt,
            "kkt_note": self.kkt_note, "non_identifiable": self.non_identifiable,
            "tolerance": {"rel": self.tolerance.rel, "feas": self.tolerance.feas,
                          "kkt": self.tolerance.kkt},
            "agrees": self.agrees, "verdict": self.verdict, "reason": self.reason,
            "error": self.error, "iterations": self.iterations,
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "twin": {k: {"numpy": a, "cvxpy": b} for k, (a, b) in self.twin.items()},
            "failure": self.failure, "compile_time": self.compile_time,
            "solver_time": self.solver_time, "solve_call_time": self.solve_call_time,
            "time": self.time, "solver_status": self.solver_status, "size": self.size,
            "options": self.options, "solver_version": self.solver_version,
            "retry": None if self.retry_profile is None else {
                "profile": self.retry_profile, "status": self.retry_status,
                "objective_gap": self.retry_objective_gap,
                "certificate": None if self.retry_certificate is None
                else self.retry_certificate.to_dict()},
            **({"log": self.log} if log else {}),
        })


@dataclass
class Report:
    """The harness result: one :class:`Row` per backend and what they were compared on."""

    formulation: str
    reference: str | None
    n: int | None
    rows: list[Row] = field(default_factory=list)
    compared: tuple[str, ...] = ()
    citation: str = ""
    setting: str = "high"
    time_limit: float | None = None
    reference_reason: str = ""
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False
    repeat: int = 0
    #: piece of the objective -> its largest twin gap, the backend where it was measured, and
    #: whether it is beyond that backend's tolerance
    twin: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: what is wrong with the formulation itself (a NumPy twin that differs from its cvxpy
    #: expression, naming the piece): not charged to any solver
    formulation_failures: list[str] = field(default_factory=list)

    def __getitem__(self, backend: str) -> Row:
        for r in self.rows:
            if r.backend == backend:
                return r
        raise KeyError(backend)

    @property
    def all_agree(self) -> bool:
        """No backend disagrees or is in disagreement with the reference, and the formulation's
        NumPy twin matches its cvxpy expression (rows that are not applicable, ``agrees is
        None``, do not count)."""
        return (all(r.agrees for r in self.rows if r.agrees is not None)
                and not self.formulation_failures)

    @property
    def verdicts(self) -> dict[str, str]:
        """Backend -> verdict (:data:`VERDICTS`)."""
        return {r.backend: r.verdict for r in self.rows}

    def to_dict(self, log: bool = True) -> dict[str, Any]:
        """JSON-serialisable (NaN/inf become ``None``)."""
        return json_safe({
            "formulation": self.formulation, "reference": self.reference,
            "reference_reason": self.reference_reason, "n": self.n,
            "citation": self.citation, "setting": self.setting, "time_limit": self.time_limit,
            "compared": list(self.compared), "notes": self.notes,
            "interrupted": self.interrupted, "all_agree": self.all_agree,
            "twin": self.twin, "formulation_failures": self.formulation_failures,
            "rows": [r.to_dict(log) for r in self.rows],
        })

    def records(self) -> list[dict[str, Any]]:
        """The rows in the long format of :data:`COLUMNS`."""
        out = []
        for r in self.rows:
            out.append({
                "formulation": self.formulation, "n": self.n, "solver": r.backend,
                "repeat": self.repeat, "profile": r.setting, "status": r.status,
                "setup_s": r.setup_time, "solve_s": r.solve_time, "objective": r.objective,
                "rel_obj_gap": r.objective_rel_gap, "max_rel_dev": r.max_rel_dev,
                "primal_res": r.kkt.get("primal"), "dual_res": r.kkt.get("dual"),
                "stationarity": r.kkt.get("stationarity"), "cert_primal": r.cert("primal"),
                "cert_dual": r.cert("dual"), "cert_gap": r.cert("gap"),
                "twin_gap": r.twin_gap, "agrees": r.agrees, "verdict": r.verdict,
                "reference": self.reference, "reference_reason": self.reference_reason,
                "reason": r.reason, "error": r.error,
                "failure": r.failure, "solver_status": r.solver_status,
                "compile_s": r.compile_time, "solver_s": r.solver_time,
                "solve_call_s": r.solve_call_time, "time_s": r.time,
                "iterations": r.iterations, "n_variables": r.size.get("variables"),
                "n_constraints": r.size.get("constraints"), "time_limit": self.time_limit,
                "solver_version": r.solver_version,
                "options": _json(r.options) if r.options else None,
                "retry_profile": r.retry_profile, "retry_status": r.retry_status,
                "retry_cert": (None if r.retry_certificate is None
                               else r.retry_certificate.describe()),
                "retry_obj_gap": r.retry_objective_gap,
            })
        return out

    def to_frame(self):
        """A tidy :class:`pandas.DataFrame` in the long format (:data:`COLUMNS`)."""
        import pandas as pd

        return pd.DataFrame(self.records(), columns=list(COLUMNS))

    def to_markdown(self) -> str:
        """A markdown table with every status, verdict reason, error text and note (what
        ``lssvm-cvx compare`` prints)."""
        if not self.rows:
            return f"**{self.formulation}**: (no backends)"

        def fmt(v: Any) -> str:
            if v is None:
                return "–"
            if isinstance(v, bool):
                return "yes" if v else "NO"
            if isinstance(v, float):
                return "–" if not math.isfinite(v) else f"{v:.3g}"
            return str(v).replace("|", "\\|").replace("\n", " ")

        def cert(r: Row) -> str:
            c = r.certificate
            if c is None:
                return "–"
            return "/".join("–" if not math.isfinite(v) else f"{v:.0e}"
                            for v in (c.primal, c.dual, c.gap))

        cols = ["backend", "status", "setup [s]", "solve [s]", "objective", "obj rel gap"]
        cols += [f"rel Δ{v}" for v in self.compared]
        cols += ["certificate (primal/dual/gap)", "stationarity", "verdict", "why"]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in self.rows:
            cells = [r.backend, r.status, r.setup_time, r.solve_time, r.objective,
                     r.objective_rel_gap]
            for v in self.compared:
                d = r.deviation.get(v)
                cell = fmt(d["rel"]) if d else "–"
                cells.append(cell + (" (n.i.)" if v in r.non_identifiable else ""))
            cells += [cert(r), r.kkt.get("stationarity"), r.verdict or "–",
                      r.reason + (f"; error: {r.error}" if r.error else "")]
            lines.append("| " + " | ".join(fmt(c) for c in cells) + " |")
        head = (f"**{self.formulation}** (n = {self.n}; profile {self.setting}; reference: "
                f"{self.reference or 'none'}"
                + (f" — {self.reference_reason}" if self.reference_reason else "") + ")\n\n")
        notes = [f"**formulation**: {f}" for f in self.formulation_failures] + list(self.notes)
        if self.twin:
            notes.append("NumPy twin vs cvxpy, largest gap per piece: " + "; ".join(
                f"{k} {v['gap']:.1e} ({v['backend']})" for k, v in self.twin.items()))
        grouped: dict[str, list[str]] = {}
        for r in self.rows:
            if r.kkt_note:
                grouped.setdefault(f"stationarity NaN — {r.kkt_note}", []).append(r.backend)
            if r.certificate is not None and r.certificate.note:
                grouped.setdefault(f"certificate — {r.certificate.note}", []).append(r.backend)
        notes += [f"{', '.join(who)}: {text}" for text, who in grouped.items()]
        if self.interrupted:
            notes.append("interrupted (Ctrl-C): the rows above are what finished")
        tail = ("\n\n" + "\n".join(f"- {n}" for n in dict.fromkeys(notes))) if notes else ""
        return head + "\n".join(lines) + tail

    __str__ = to_markdown

    def assert_agree(self) -> None:
        """Raise ``AssertionError`` naming every backend that does not agree and every failure
        of the formulation itself."""
        bad = [r for r in self.rows if r.agrees is False]
        if bad or self.formulation_failures:
            raise AssertionError("backends disagree:\n" + "\n".join(
                f"  {r.backend}: {r.verdict}, status={r.status} ({r.reason}) error={r.error} "
                f"dev={r.deviation} kkt={r.kkt} obj_gap={r.objective_rel_gap} "
                f"tol={r.tolerance}" for r in bad) + "".join(
                f"\n  formulation: {f}" for f in self.formulation_failures))
