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

__all__ = ["Row", "Report", "COLUMNS", "deviation"]

#: the long format of ``Report.to_frame()`` and ``sweep.csv``
COLUMNS: tuple[str, ...] = (
    "formulation", "n", "solver", "repeat", "profile", "status", "setup_s", "solve_s",
    "objective", "rel_obj_gap", "max_rel_dev", "primal_res", "dual_res", "stationarity",
    "agrees", "reference", "reason", "error",
)


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


def _clean(v: Any) -> Any:
    import numpy as np

    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return _clean(v.item())
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


@dataclass
class Row:
    """One backend's result in a :class:`Report`.

    ``deviation`` maps each compared quantity to ``{"abs", "rel"}`` against the reference;
    ``non_identifiable`` the quantities that differ between optimal points (their deviation
    is shown but not judged; ``reason`` says what was judged instead); ``kkt_note`` why
    stationarity is NaN (non-smooth atom, no duals, ...); ``log`` everything the solver
    printed; ``reason`` the verdict in words.
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

    @property
    def compile_time(self) -> float:
        """Alias of :attr:`setup_time` (build + cvxpy compile)."""
        return self.setup_time

    @property
    def max_rel_dev(self) -> float:
        """Largest relative deviation over the judged (identifiable) quantities."""
        vals = [d["rel"] for k, d in self.deviation.items() if k not in self.non_identifiable]
        return max(vals) if vals else math.nan

    def to_dict(self, log: bool = True) -> dict[str, Any]:
        return _clean({
            "backend": self.backend, "status": self.status, "setting": self.setting,
            "setup_time": self.setup_time, "solve_time": self.solve_time,
            "objective": self.objective, "objective_rel_gap": self.objective_rel_gap,
            "deviation": self.deviation, "max_rel_dev": self.max_rel_dev, "kkt": self.kkt,
            "kkt_note": self.kkt_note, "non_identifiable": self.non_identifiable,
            "tolerance": {"rel": self.tolerance.rel, "feas": self.tolerance.feas,
                          "kkt": self.tolerance.kkt},
            "agrees": self.agrees, "reason": self.reason, "error": self.error,
            "iterations": self.iterations, **({"log": self.log} if log else {}),
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

    def __getitem__(self, backend: str) -> Row:
        for r in self.rows:
            if r.backend == backend:
                return r
        raise KeyError(backend)

    @property
    def all_agree(self) -> bool:
        """No backend disagrees (rows that are not applicable, ``agrees is None``, do not
        count)."""
        return all(r.agrees for r in self.rows if r.agrees is not None)

    def to_dict(self, log: bool = True) -> dict[str, Any]:
        """JSON-serialisable (NaN/inf become ``None``)."""
        return _clean({
            "formulation": self.formulation, "reference": self.reference,
            "reference_reason": self.reference_reason, "n": self.n,
            "citation": self.citation, "setting": self.setting, "time_limit": self.time_limit,
            "compared": list(self.compared), "notes": self.notes,
            "interrupted": self.interrupted, "all_agree": self.all_agree,
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
                "stationarity": r.kkt.get("stationarity"), "agrees": r.agrees,
                "reference": self.reference, "reason": r.reason, "error": r.error,
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

        cols = ["backend", "status", "setup [s]", "solve [s]", "objective", "obj rel gap"]
        cols += [f"rel Δ{v}" for v in self.compared]
        cols += ["primal res", "stationarity", "agrees", "why"]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in self.rows:
            cells = [r.backend, r.status, r.setup_time, r.solve_time, r.objective,
                     r.objective_rel_gap]
            for v in self.compared:
                d = r.deviation.get(v)
                cell = fmt(d["rel"]) if d else "–"
                cells.append(cell + (" (n.i.)" if v in r.non_identifiable else ""))
            ag = "n/a" if r.agrees is None else r.agrees
            cells += [r.kkt.get("primal"), r.kkt.get("stationarity"), ag,
                      r.reason + (f"; error: {r.error}" if r.error else "")]
            lines.append("| " + " | ".join(fmt(c) for c in cells) + " |")
        head = (f"**{self.formulation}** (n = {self.n}; profile {self.setting}; reference: "
                f"{self.reference or 'none'}"
                + (f" — {self.reference_reason}" if self.reference_reason else "") + ")\n\n")
        notes = list(self.notes)
        for r in self.rows:
            if r.kkt_note:
                notes.append(f"{r.backend}: stationarity NaN — {r.kkt_note}")
        if self.interrupted:
            notes.append("interrupted (Ctrl-C): the rows above are what finished")
        tail = ("\n\n" + "\n".join(f"- {n}" for n in dict.fromkeys(notes))) if notes else ""
        return head + "\n".join(lines) + tail

    __str__ = to_markdown

    def assert_agree(self) -> None:
        """Raise ``AssertionError`` naming every backend that does not agree."""
        bad = [r for r in self.rows if r.agrees is False]
        if bad:
            raise AssertionError("backends disagree:\n" + "\n".join(
                f"  {r.backend}: status={r.status} ({r.reason}) error={r.error} "
                f"dev={r.deviation} kkt={r.kkt} obj_gap={r.objective_rel_gap} "
                f"tol={r.tolerance}" for r in bad))
