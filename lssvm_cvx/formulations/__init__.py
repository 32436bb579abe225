"""Formulations of the papers, one module per paper, and their registry.

``get_formulation(name)`` looks a formulation class up by its ``name`` (``"lssvm"``,
``"lssvm_classifier"``, ...).  Every module of this package is discovered automatically, so a
new paper module only has to define subclasses of :class:`~.base.Formulation` with a ``name``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, MutableMapping

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


class _Registry(MutableMapping):
    """``name -> Formulation class``, filled on first use of any view (``values()``, ``get``,
    ``len``, iteration...): a mapping over a dict discovered once, so no view of it can see
    the registry empty (a ``dict`` subclass's inherited ``values()`` and ``get`` bypass the
    overridden ``__getitem__``)."""

    def __init__(self) -> None:
        self._data: dict[str, type[Formulation]] | None = None

    def _classes(self) -> dict[str, type[Formulation]]:
        if self._data is None:
            self._data = _discover()
        return self._data

    def __getitem__(self, key: str) -> type[Formulation]:
        return self._classes()[key]

    def __setitem__(self, key: str, value: type[Formulation]) -> None:
        self._classes()[key] = value

    def __delitem__(self, key: str) -> None:
        del self._classes()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._classes())

    def __len__(self) -> int:
        return len(self._classes())

    def __repr__(self) -> str:
        return repr(self._classes())


FORMULATIONS: MutableMapping[str, type[Formulation]] = _Registry()


def get_formulation(name: str) -> type[Formulation]:
    """The formulation class registered under ``name``."""
    if not isinstance(name, str) or name not in FORMULATIONS:
        raise HyperparameterError(
            f"unknown formulation {name!r}; known: {', '.join(sorted(FORMULATIONS))}"
        )
    return FORMULATIONS[name]
