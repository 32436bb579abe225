"""lssvm_cvx — model-selection formulations for Least Squares Support Vector Machines as
readable, verified convex programs.

Submodules: :mod:`~lssvm_cvx.kernels`, :mod:`~lssvm_cvx.terms` and :mod:`~lssvm_cvx.losses`
(the composition core: any loss with weighted penalties on the expansion coefficients, in
:class:`~lssvm_cvx.formulations.RegularizedLSSVM` and :class:`RegularizedLSSVMRegressor`),
:mod:`~lssvm_cvx.formulations` (one module per paper),
:mod:`~lssvm_cvx.validate` (solver-comparison harness), :mod:`~lssvm_cvx.model_selection`
(closed-form LOO / k-fold / GCV), :mod:`~lssvm_cvx.pareto` (multiobjective scalarisations),
:mod:`~lssvm_cvx.estimators` (scikit-learn estimators), :mod:`~lssvm_cvx.io` (save/load
without pickle), :mod:`~lssvm_cvx.exceptions`.

Estimators are imported lazily on first access, so ``import lssvm_cvx`` stays cheap.

Naming: ``gamma`` is the LS-SVM regularization constant (γ of the papers) and ``sigma2`` the
RBF width σ² in ``exp(-||x - z||²/σ²)``; scikit-learn's RBF ``gamma`` is ``1/sigma2``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "LSSVMRegressor": "lssvm_cvx.estimators.lssvm",
    "LSSVMClassifier": "lssvm_cvx.estimators.lssvm",
    "AdditiveRegularizationRegressor": "lssvm_cvx.estimators.areg",
    "AdditiveRegularizationClassifier": "lssvm_cvx.estimators.areg",
    "ComponentwiseLSSVMRegressor": "lssvm_cvx.estimators.componentwise",
    "ComponentwiseLSSVMClassifier": "lssvm_cvx.estimators.componentwise",
    "L2SVMClassifier": "lssvm_cvx.estimators.l2svm",
    "ParetoKernelRidge": "lssvm_cvx.estimators.pareto",
    "ParetoKernelPCR": "lssvm_cvx.estimators.pareto",
    "AutoLSSVMRegressor": "lssvm_cvx.estimators.auto",
    "AutoLSSVMClassifier": "lssvm_cvx.estimators.auto",
    "RegularizedLSSVMRegressor": "lssvm_cvx.estimators.regularized",
    "RegularizedLSSVMClassifier": "lssvm_cvx.estimators.regularized",
    "load": "lssvm_cvx.io",
    "compare": "lssvm_cvx.validate",
    "get_formulation": "lssvm_cvx.formulations",
    "array_api_dispatch": "lssvm_cvx.device",
}
_SUBMODULES = ("kernels", "terms", "losses", "formulations", "validate", "model_selection", "pareto",
               "estimators", "io", "exceptions", "linalg", "solvers", "solution")


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [n for n, m in _LAZY.items() if _exists(m)] + [
    s for s in _SUBMODULES if _exists(f"{__name__}.{s}")]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
