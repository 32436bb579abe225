"""The problem catalogue: data generators and loaders for the papers' data sets.

>>> from lssvm_cvx import problems
>>> ds = problems.get_problem("sinc", seed=1)
>>> ds.X.shape, ds.X_test.shape
((50, 1), (500, 1))
>>> sorted(problems.list_problems())[:3]
['abalone', 'additive10', 'adult']

Importing this package loads no data and imports neither pandas nor the two
catalogue modules; they are imported on the first ``get_problem``/``list_problems``.
Real data sets are read from the gzip CSVs in ``problems/data`` (see its README.md and
MANIFEST.json); nothing is downloaded at run time.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .base import Dataset, as_rng, kfold_indices, random_split

__all__ = ["Dataset", "random_split", "kfold_indices", "as_rng", "get_problem", "list_problems",
           "register"]

_REGISTRY: dict[str, tuple[Callable[..., Dataset], str]] = {}
_MODULES = ("synthetic", "datasets", "classification")
_loaded = False


def _key(name: str) -> str:
    return str(name).strip().lower().replace("-", "_")


def register(name: str, description: str) -> Callable[[Callable[..., Dataset]], Callable[..., Dataset]]:
    """Decorator adding a problem factory to the catalogue under ``name``.

    ``description`` is one line stating "synthetic" or "real" and the paper(s) using it.
    """
    key = _key(name)

    def deco(fn: Callable[..., Dataset]) -> Callable[..., Dataset]:
        if key in _REGISTRY and _REGISTRY[key][0] is not fn:
            raise ValueError(f"problem {key!r} is registered twice")
        _REGISTRY[key] = (fn, description)
        return fn

    return deco


def _load_all() -> None:
    global _loaded
    if not _loaded:
        for m in _MODULES:
            importlib.import_module(f"{__name__}.{m}")
        _loaded = True


def list_problems() -> dict[str, str]:
    """Every registered problem name mapped to its one-line description, sorted by name."""
    _load_all()
    return {k: _REGISTRY[k][1] for k in sorted(_REGISTRY)}


def get_problem(name: str, **kwargs: Any) -> Dataset:
    """Build the named problem; ``kwargs`` go to its generator or loader (e.g. ``seed=``).

    Names are case-insensitive and '-' equals '_'.  An unknown name raises ``KeyError``
    listing the known ones.
    """
    _load_all()
    key = _key(name)
    if key not in _REGISTRY:
        raise KeyError(f"unknown problem {name!r}; known problems: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[key][0](**kwargs)
