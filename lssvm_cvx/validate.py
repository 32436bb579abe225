"""The solver-comparison harness, public entry point: one formulation through its closed form
and any cvxpy solvers.

>>> from lssvm_cvx.formulations import LSSVM
>>> from lssvm_cvx.validate import compare
>>> report = compare(LSSVM.random_instance(100), solvers=["CLARABEL", "OSQP"])
>>> print(report)                                          # doctest: +SKIP
>>> report.to_frame()                                      # doctest: +SKIP

Every backend is scored the same way (qpbenchmark/benchopt style): each point gets a
certificate — scaled primal infeasibility, dual infeasibility and duality gap, in the cone
program cvxpy handed the solver (any DCP composition, smooth or not) or, for the closed form,
on the Lagrangian of the cvxpy problem (:mod:`lssvm_cvx.certificates`); the reference is the
point with the best certificate; the objective is the formulation's own NumPy twin evaluated at
the returned point (never the solver's self-report), and the twin itself is checked piece by
piece against its cvxpy expression; deviations are measured per compared (identifiable)
quantity against the reference; two certified points that differ are a "disagreement".  Each
backend runs bounded by a time limit in a worker process, its output captured.  Tolerances come
from :data:`lssvm_cvx.solvers.SOLVERS` (profiles "high", "default", "low").  The
implementation lives in :mod:`lssvm_cvx.harness`.
"""

from __future__ import annotations

from .harness.compare import DEFAULT_TIME_LIMIT, compare, fitted_values
from .harness.report import COLUMNS, Report, Row, deviation

__all__ = ["compare", "Report", "Row", "deviation", "fitted_values", "COLUMNS",
           "DEFAULT_TIME_LIMIT", "check_formulation", "sweep"]


def __getattr__(name: str):
    if name == "check_formulation":
        from .harness.conformance import check_formulation

        return check_formulation
    if name == "sweep":
        from .harness.sweep import sweep

        return sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
