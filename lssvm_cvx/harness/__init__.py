"""The solver-comparison harness (layer 6): :func:`compare` (closed form vs any cvxpy solvers,
bounded and truthful), :func:`sweep` with its qpbenchmark-style report and Dolan–Moré
performance profiles, :func:`warm_path` (DPP re-solves), :func:`export_problem` (the program a
solver sees, as npz or QPS) and :func:`check_formulation` (the conformance check every
registered formulation passes).

Submodules are imported on first use, so ``import lssvm_cvx.harness`` is cheap.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

_LAZY = {
    "compare": "compare", "fitted_values": "compare", "DEFAULT_TIME_LIMIT": "compare",
    "Report": "report", "Row": "report", "COLUMNS": "report", "deviation": "report",
    "run_backend": "worker", "Outcome": "worker",
    "sweep": "sweep", "summarize": "sweep_report", "performance_profile": "sweep_report",
    "accuracy_profile": "sweep_report", "shifted_geometric_mean": "sweep_report",
    "warm_path": "warm", "export_problem": "export", "program_data": "export",
    "classify_failure": "compare", "run_task": "worker",
    "check_formulation": "conformance", "ConformanceError": "conformance",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: submodules that share their name with the function they define
_SHADOWED = frozenset({"compare", "sweep"})


class _HarnessModule(types.ModuleType):
    """Keep ``harness.sweep`` and ``harness.compare`` the functions.

    Importing a submodule binds it on its package (``from lssvm_cvx.harness.sweep import ...``
    sets ``lssvm_cvx.harness.sweep`` to the module), so whether ``from lssvm_cvx.harness import
    sweep`` gave the function or the module used to depend on what was imported first.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if (name in _SHADOWED and isinstance(value, types.ModuleType)
                and value.__name__ == f"{__name__}.{name}"):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _HarnessModule
