"""Formulations of the papers, one module per paper, and their registry.

``get_formulation(name)`` looks a formulation class up by its ``name`` (``"lssvm"``,
``"lssvm_classifier"``, ...).  Every module of this package is discovered automatically, so a
new paper module only has to define subclasses of :class:`~.base.Formulation` with a ``name``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..exceptions import HyperparameterError
from .base import BuiltProblem, Formulation, Reference, kkt_residuals
from .lssvm import LSSVM, LSSVMClassification, WeightedLSSVM
from .regularized import PathResult, RegularizedLSSVM

__all__ = [
    "Formulation",
    "BuiltProblem",
    "Reference",
    "kkt_residuals",
    "LSSVM",
    "WeightedLSSVM",
    "LSSVMClassification",
    "RegularizedLSSVM",
    "PathResult",
    "FORMULATIONS",
    "get_formulation",
]


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _discover() -> dict[str, type[Formulation]]:
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return {c.name: c for c in _subclasses(Formulation) if "name" in c.__dict__}


class _Registry(dict):
    """``name -> Formulation class``, filled on first access."""

    _loaded = False

    def _load(self):
        if not self._loaded:
            self.update(_discover())
            self._loaded = True

    def __getitem__(self, key):
        self._load()
        return super().__getitem__(key)

    def __iter__(self):
        self._load()
        return super().__iter__()

    def __len__(self):
        self._load()
        return super().__len__()

    def __contains__(self, key):
        self._load()
        return super().__contains__(key)

    def keys(self):
        self._load()
        return super().keys()

    def items(self):
        self._load()
        return super().items()


FORMULATIONS: dict[str, type[Formulation]] = _Registry()


def get_formulation(name: str) -> type[Formulation]:
    """The formulation class registered under ``name``."""
    if name not in FORMULATIONS:
        raise HyperparameterError(
            f"unknown formulation {name!r}; known: {', '.join(sorted(FORMULATIONS))}"
        )
    return FORMULATIONS[name]
