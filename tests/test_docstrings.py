"""Typed numpydoc docstrings for the public API (issue 12, item 7).

``numpydoc.validate`` runs over the composition core (every public class, function and method of
``lssvm_cvx.terms`` and ``lssvm_cvx.losses``, :class:`~lssvm_cvx.formulations.RegularizedLSSVM`
and the two composed estimators) and over the constructor documentation of the other public
classes (estimators, formulations, kernels, results).  The checks enforced:

* ``GL08`` the object has a docstring;
* ``SS01`` it has a summary line;
* ``PR01`` every parameter is documented, ``PR02`` no unknown parameter is documented;
* ``PR04`` every documented parameter has a type, ``PR07`` and a description;
* ``PR10`` ``name : type`` is written with a space on both sides of the colon.

Other numpydoc checks (summary on one line, section order, Returns/See Also/Examples sections)
are not enforced.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

CHECKS = {"GL08", "SS01", "PR01", "PR02", "PR04", "PR07", "PR10"}

#: modules whose whole public API (classes, their public methods, functions) is validated
CORE_MODULES = ["lssvm_cvx.terms", "lssvm_cvx.losses"]
#: classes whose public methods are validated too
CORE_CLASSES = [
    "lssvm_cvx.formulations.RegularizedLSSVM",
    "lssvm_cvx.RegularizedLSSVMRegressor",
    "lssvm_cvx.RegularizedLSSVMClassifier",
]
#: classes whose docstring (constructor parameters) is validated
#: (not yet: LSSVMRegressor/Classifier, AutoLSSVMRegressor/Classifier, the componentwise
#: estimators, ParetoKernelPCR, WeightedLSSVM and Solution, whose parameter entries are untyped)
CLASSES = [
    "lssvm_cvx.L2SVMClassifier",
    "lssvm_cvx.AdditiveRegularizationRegressor",
    "lssvm_cvx.AdditiveRegularizationClassifier",
    "lssvm_cvx.ParetoKernelRidge",
    "lssvm_cvx.kernels.RBF",
    "lssvm_cvx.kernels.Linear",
    "lssvm_cvx.kernels.Polynomial",
    "lssvm_cvx.kernels.Precomputed",
    "lssvm_cvx.kernels.Componentwise",
    "lssvm_cvx.formulations.LSSVM",
]


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _inherits_doc(cls, name: str) -> bool:
    """An override without a docstring of its own inherits the documented contract of a base
    (what Sphinx shows; the base method is validated where it is defined)."""
    return any(getattr(getattr(base, name, None), "__doc__", None) for base in cls.__mro__[1:])


def _public_methods(cls) -> list[str]:
    out = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if inspect.isfunction(member) or isinstance(member, (classmethod, staticmethod)):
            func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
            if not func.__doc__ and _inherits_doc(cls, name):
                continue
            out.append(name)
    return out


def _targets() -> list[str]:
    targets: list[str] = []
    for mod_name in CORE_MODULES:
        mod = importlib.import_module(mod_name)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj):
                path = f"{obj.__module__}.{obj.__qualname__}"
                targets.append(path)
                targets += [f"{path}.{m}" for m in _public_methods(obj)]
            elif inspect.isfunction(obj):
                targets.append(f"{obj.__module__}.{obj.__qualname__}")
    for path in CORE_CLASSES:
        cls = _resolve(path)
        full = f"{cls.__module__}.{cls.__qualname__}"
        targets.append(full)
        targets += [f"{full}.{m}" for m in _public_methods(cls)]
    for path in CLASSES:
        cls = _resolve(path)
        targets.append(f"{cls.__module__}.{cls.__qualname__}")
    return sorted(set(targets))


TARGETS = _targets()


def test_targets_cover_the_core():
    assert len(TARGETS) > 60
    assert "lssvm_cvx.terms.base.Term.quadratic" in TARGETS
    assert "lssvm_cvx.formulations.regularized.RegularizedLSSVM.path" in TARGETS


@pytest.mark.parametrize("target", TARGETS)
def test_numpydoc(target):
    result = numpydoc_validate.validate(target)
    errors = [f"{code}: {msg}" for code, msg in result["errors"] if code in CHECKS]
    assert not errors, f"{target}:\n  " + "\n  ".join(errors)
