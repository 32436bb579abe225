"""The solver-comparison harness: one formulation through its closed form and any cvxpy solvers.

>>> from lssvm_cvx.formulations import LSSVM
>>> from lssvm_cvx.validate import compare
>>> report = compare(LSSVM.random_instance(100), solvers=["CLARABEL", "OSQP"])
>>> print(report)                                          # doctest: +SKIP
>>> report.to_dict()                                       # doctest: +SKIP

Every backend is scored the same way (qpbenchmark/benchopt style): the objective is the
formulation's own NumPy twin evaluated at the returned point (never the solver's self-report),
deviations are measured per named variable against the reference (the closed form when there
is one, else the first solver that reached an optimal point), and KKT residuals are evaluated on
the cvxpy problem (:func:`lssvm_cvx.formulations.base.kkt_residuals`).  Tolerances come from
:data:`lssvm_cvx.solvers.PROFILES`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .exceptions import InputError, SolverNotAvailableError
from .formulations.base import Formulation
from .solution import Solution
from .solvers import DEFAULT_SOLVERS, Tolerance, available_solvers, profile

__all__ = ["compare", "Report", "Row", "deviation"]


def deviation(x: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """``(max |x - ref|, max |x - ref| / max |ref|)``; the relative part uses scale 1 when
    ``ref`` is identically zero."""
    x, ref = np.asarray(x, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    if x.shape != ref.shape:
        raise InputError(f"cannot compare shapes {x.shape} and {ref.shape}")
    ab = float(np.max(np.abs(x - ref))) if x.size else 0.0
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    return ab, ab / (scale if scale > 0 else 1.0)


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (np.floating, np.integer)):
        return _clean(v.item())
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


@dataclass
class Row:
    """One backend's result in a :class:`Report`."""

    backend: str
    status: str
    compile_time: float
    solve_time: float
    objective: float | None
    objective_rel_gap: float | None
    deviation: dict[str, dict[str, float]]
    kkt: dict[str, float]
    tolerance: Tolerance
    agrees: bool | None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _clean({
            "backend": self.backend, "status": self.status,
            "compile_time": self.compile_time, "solve_time": self.solve_time,
            "objective": self.objective, "objective_rel_gap": self.objective_rel_gap,
            "deviation": self.deviation, "kkt": self.kkt,
            "tolerance": {"rel": self.tolerance.rel, "feas": self.tolerance.feas,
                          "kkt": self.tolerance.kkt},
            "agrees": self.agrees, "error": self.error,
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

    def __getitem__(self, backend: str) -> Row:
        for r in self.rows:
            if r.backend == backend:
                return r
        raise KeyError(backend)

    @property
    def all_agree(self) -> bool:
        return all(r.agrees for r in self.rows if r.agrees is not None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable (NaN/inf become ``None``)."""
        return {"formulation": self.formulation, "reference": self.reference, "n": self.n,
                "citation": self.citation, "compared": list(self.compared),
                "rows": [r.to_dict() for r in self.rows]}

    def to_frame(self):
        """A tidy :class:`pandas.DataFrame`, one row per backend."""
        import pandas as pd

        return pd.DataFrame([self._flat(r) for r in self.rows])

    def _flat(self, r: Row) -> dict[str, Any]:
        d = {"backend": r.backend, "status": r.status, "compile [s]": r.compile_time,
             "solve [s]": r.solve_time, "objective": r.objective,
             "obj rel gap": r.objective_rel_gap}
        for name in self.compared:
            dv = r.deviation.get(name, {})
            d[f"max|Δ{name}|"] = dv.get("abs")
            d[f"rel Δ{name}"] = dv.get("rel")
        d["primal res"] = r.kkt.get("primal")
        d["KKT res"] = r.kkt.get("stationarity")
        d["agrees"] = r.agrees
        return d

    def to_markdown(self) -> str:
        """A markdown table (what ``lssvm-cvx compare`` prints)."""
        rows = [self._flat(r) for r in self.rows]
        if not rows:
            return "(no backends)"
        cols = list(rows[0])

        def fmt(v: Any) -> str:
            if v is None:
                return "–"
            if isinstance(v, bool):
                return "yes" if v else "NO"
            if isinstance(v, float):
                return "–" if not math.isfinite(v) else f"{v:.3g}"
            return str(v)

        head = f"**{self.formulation}** (n = {self.n}; reference: {self.reference})\n\n"
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(fmt(r[c]) for c in cols) + " |" for r in rows]
        return head + "\n".join(lines)

    __str__ = to_markdown

    def assert_agree(self) -> None:
        """Raise ``AssertionError`` naming every backend that does not agree."""
        bad = [r for r in self.rows if r.agrees is False]
        if bad:
            raise AssertionError("backends disagree:\n" + "\n".join(
                f"  {r.backend}: status={r.status} dev={r.deviation} kkt={r.kkt} "
                f"obj_gap={r.objective_rel_gap} tol={r.tolerance}" for r in bad))


def _agrees(row: Row, tol: Tolerance) -> bool:
    if row.status != "optimal" and row.backend != "closed_form":
        return False
    devs_ok = all(d["rel"] <= tol.rel or d["abs"] <= tol.rel for d in row.deviation.values())
    gap_ok = row.objective_rel_gap is None or row.objective_rel_gap <= tol.rel
    feas_ok = not (row.kkt.get("primal", 0.0) > tol.feas)
    stat = row.kkt.get("stationarity", float("nan"))
    kkt_ok = not (stat > tol.kkt)
    return bool(devs_ok and gap_ok and feas_ok and kkt_ok)


def compare(formulation: Formulation, solvers: Sequence[str] | None = None, *,
            closed_form: bool | None = None, options: Mapping[str, Mapping[str, Any]] | None = None,
            fresh: bool = True) -> Report:
    """Run ``formulation`` through its closed form and each named cvxpy solver.

    Parameters
    ----------
    formulation :
        Any :class:`~lssvm_cvx.formulations.base.Formulation` instance.
    solvers :
        cvxpy solver names; ``None`` runs :data:`~lssvm_cvx.solvers.DEFAULT_SOLVERS` (CLARABEL,
        OSQP, ECOS, SCS) that are installed.  Any other installed solver may be named.
    closed_form :
        Include the closed form (default: when the formulation has one).
    options :
        Per-solver option overrides, e.g. ``{"OSQP": {"max_iter": 1000}}``.
    fresh :
        Build a new cvxpy problem for each solver so compile times are first-compile times.

    Returns
    -------
    Report
        Per backend: status, compile and solve time, objective (NumPy twin), relative objective
        gap and max absolute/relative deviation per compared variable against the reference,
        primal feasibility and KKT residuals, and whether it agrees within its tolerance
        profile.
    """
    if not isinstance(formulation, Formulation):
        raise InputError(f"compare() needs a Formulation, got {type(formulation).__name__}")
    installed = set(available_solvers())
    if solvers is None:
        names = [s for s in DEFAULT_SOLVERS if s in installed]
    else:
        names = [s.upper() for s in solvers]
        missing = [s for s in names if s not in installed]
        if missing:
            raise SolverNotAvailableError(
                f"solver(s) {missing} not installed; installed: {sorted(installed)}")
    use_cf = formulation.has_closed_form if closed_form is None else closed_form
    backends = (["closed_form"] if use_cf else []) + names
    sols: dict[str, Solution | Exception] = {}
    for name in backends:
        if fresh and name != "closed_form":
            formulation._built = None
        try:
            sols[name] = formulation.solve(name, options=(options or {}).get(name),
                                           raise_on_failure=False)
        except Exception as exc:  # a backend crash is a result, not a harness crash
            sols[name] = exc
    ref_name = next((n for n in backends if isinstance(sols[n], Solution) and sols[n].ok), None)
    ref = sols[ref_name] if ref_name else None
    compared = tuple(n for n in formulation.compare if ref is not None and n in ref.values)
    try:
        n = int(getattr(formulation, "n"))
    except Exception:
        n = None
    report = Report(formulation.name, ref_name, n, compared=compared,
                    citation=str(formulation.reference))
    for name in backends:
        sol = sols[name]
        tol = profile(name).tol
        if isinstance(sol, Exception):
            report.rows.append(Row(name, "error", math.nan, math.nan, None, None, {}, {}, tol,
                                   False, error=f"{type(sol).__name__}: {sol}"))
            continue
        devs = {}
        gap = None
        kkt: dict[str, float] = {}
        if sol.ok and sol.values:
            if ref is not None and ref is not sol:
                for v in compared:
                    if v in sol.values:
                        ab, rel = deviation(sol.values[v], ref.values[v])
                        devs[v] = {"abs": ab, "rel": rel}
                if sol.objective is not None and ref.objective is not None:
                    gap = abs(sol.objective - ref.objective) / max(abs(ref.objective), 1e-300)
            try:
                kkt = formulation.kkt_residuals(sol)
            except Exception as exc:  # pragma: no cover - reported, not raised
                kkt = {"error": math.nan}
                sol.extras["kkt_error"] = str(exc)
        row = Row(name, sol.status, sol.compile_time, sol.solve_time, sol.objective, gap, devs,
                  kkt, tol, None)
        row.agrees = _agrees(row, tol) if sol.ok else False
        report.rows.append(row)
    return report
