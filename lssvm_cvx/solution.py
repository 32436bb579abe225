"""One result type for every backend (closed form or any cvxpy solver)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Solution", "OPTIMAL", "OPTIMAL_INACCURATE"]

OPTIMAL = "optimal"
OPTIMAL_INACCURATE = "optimal_inaccurate"


@dataclass
class Solution:
    """Named solution arrays plus how they were obtained.

    Attributes
    ----------
    values :
        Named primal quantities (``"alpha"``, ``"b"``, ``"e"``, ``"c"``, ...), named as in the
        paper.  Scalars are stored as 0-d arrays.
    duals :
        Named constraint multipliers in cvxpy's sign convention (the Lagrangian is
        ``f + Σ_j λ_j' g_j`` for every constraint ``g_j == 0`` or ``g_j <= 0``).
    status :
        ``"optimal"``, ``"optimal_inaccurate"`` or the solver's failure status.
    backend :
        ``"closed_form"`` or the cvxpy solver name.
    objective :
        The formulation's NumPy objective evaluated at ``values`` (one evaluator for all
        backends; never the solver's self-report).
    solver_objective :
        What the solver reported (cvxpy's ``problem.value``), for reference.
    compile_time, solve_time :
        Seconds spent compiling (cvxpy canonicalization; 0 for the closed form) and solving.
    extras :
        Anything else a backend or driver records (iterations, history, ...).
    certificate :
        The scaled primal, dual and gap residuals of the point
        (:class:`lssvm_cvx.certificates.Certificate`): a cvxpy solve fills it from the conic
        form it handed the solver; ``Formulation.certificate`` computes it for the closed form.
    """

    # array-likes (floats, lists, arrays) on construction; float64 arrays after __post_init__
    values: dict[str, Any]
    duals: dict[str, Any] = field(default_factory=dict)
    status: str = OPTIMAL
    backend: str = "closed_form"
    objective: float | None = None
    solver_objective: float | None = None
    compile_time: float = 0.0
    solve_time: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)
    certificate: Any = None

    def __post_init__(self):
        self.values = {k: np.asarray(v, dtype=np.float64) for k, v in self.values.items()}
        self.duals = {k: np.asarray(v, dtype=np.float64) for k, v in self.duals.items()}

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    def __contains__(self, name: str) -> bool:
        return name in self.values

    @property
    def ok(self) -> bool:
        """True for an optimal (possibly inaccurate) solution."""
        return self.status in (OPTIMAL, OPTIMAL_INACCURATE)

    @property
    def total_time(self) -> float:
        return self.compile_time + self.solve_time

    def scalar(self, name: str) -> float:
        return float(np.asarray(self.values[name]).reshape(()))

    def as_dict(self, arrays: bool = False) -> dict[str, Any]:
        """JSON-serialisable summary (arrays only when ``arrays=True``)."""
        out: dict[str, Any] = {
            "backend": self.backend,
            "status": self.status,
            "objective": self.objective,
            "solver_objective": self.solver_objective,
            "compile_time": self.compile_time,
            "solve_time": self.solve_time,
        }
        if arrays:
            out["values"] = {k: v.tolist() for k, v in self.values.items()}
            out["duals"] = {k: v.tolist() for k, v in self.duals.items()}
        return out

    @staticmethod
    def from_mapping(values: Mapping[str, Any], **kwargs: Any) -> Solution:
        return Solution(values=dict(values), **kwargs)
