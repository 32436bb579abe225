"""Save and load fitted estimators without pickle: one ``.npz`` file holding the arrays and a
JSON header (class, parameters, scalar and nested fitted attributes).

>>> model.save("model.npz")                       # doctest: +SKIP
>>> same = lssvm_cvx.load("model.npz")            # doctest: +SKIP

Arrays round-trip bit for bit (``np.savez``), so a loaded model predicts exactly what the saved
one did.  Loading reads the file with ``allow_pickle=False`` and only instantiates classes
defined inside :mod:`lssvm_cvx`.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .exceptions import InputError
from .kernels.base import Kernel, kernel_from_dict

__all__ = ["save", "load", "encode", "decode", "atomic_write"]

FORMAT = "lssvm_cvx-model/1"


def _ours(module: str) -> bool:
    """``module`` is lssvm_cvx or one of its submodules (not merely a name with that prefix)."""
    return module == "lssvm_cvx" or module.startswith("lssvm_cvx.")


def encode(value: Any, arrays: dict[str, np.ndarray], path: str = "v") -> Any:
    """JSON-able form of ``value``; numeric and string arrays go to ``arrays``."""
    if isinstance(value, Kernel):
        return {"__kernel__": value.to_dict()}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            try:
                value = value.astype(str) if all(isinstance(v, str) for v in value.ravel()) else value
            except Exception:  # pragma: no cover
                pass
        if value.dtype == object:
            return {"__objarray__": encode(value.tolist(), arrays, path), "shape": list(value.shape)}
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"__ndarray__": key}
    if isinstance(value, np.generic):
        return {"__npscalar__": value.item(), "dtype": value.dtype.str}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise InputError(f"cannot save a dict with non-string keys at {path}")
        return {"__dict__": {k: encode(v, arrays, f"{path}.{k}") for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    cls = type(value)
    if dataclasses.is_dataclass(value) and _ours(cls.__module__):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {"__dataclass__": f"{cls.__module__}:{cls.__qualname__}",
                "fields": encode(fields, arrays, path)}
    raise InputError(f"cannot save {type(value).__name__} at {path} without pickle")


def _lssvm_class(name: str) -> Any:
    """The class ``module:qualname``, refusing anything outside :mod:`lssvm_cvx`."""
    module, _, qualname = name.partition(":")
    if not _ours(module):
        raise InputError(f"refusing to load class from {module!r}")
    cls: Any = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    return cls


def decode(value: Any, arrays: Any) -> Any:
    """Inverse of :func:`encode`."""
    if isinstance(value, list):
        return [decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__kernel__" in value:
        return kernel_from_dict(value["__kernel__"])
    if "__ndarray__" in value:
        return np.asarray(arrays[value["__ndarray__"]])
    if "__objarray__" in value:
        out = np.empty(len(value["__objarray__"]), dtype=object)
        out[:] = decode(value["__objarray__"], arrays)
        return out.reshape(value["shape"])
    if "__npscalar__" in value:
        return np.dtype(value["dtype"]).type(value["__npscalar__"])
    if "__tuple__" in value:
        return tuple(decode(v, arrays) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: decode(v, arrays) for k, v in value["__dict__"].items()}
    if "__dataclass__" in value:
        cls = _lssvm_class(value["__dataclass__"])
        if not dataclasses.is_dataclass(cls):
            raise InputError(f"saved model names {value['__dataclass__']!r}, which is not a dataclass")
        obj = cls.__new__(cls)
        for k, v in decode(value["fields"], arrays).items():
            object.__setattr__(obj, k, v)
        return obj
    raise InputError(f"unknown entry in saved model: {value!r}")


def atomic_write(path: str | os.PathLike, write) -> None:
    """Call ``write(tmp_path)`` then atomically rename the temporary file to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save(estimator: Any, path: str | os.PathLike) -> None:
    """Write a fitted estimator (parameters + fitted attributes) to ``path`` (``.npz``)."""
    cls = type(estimator)
    if not _ours(cls.__module__):
        raise InputError(f"only lssvm_cvx estimators can be saved, got {cls.__module__}.{cls.__name__}")
    arrays: dict[str, np.ndarray] = {}
    fitted = {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}
    if not fitted:
        raise InputError(f"{cls.__name__} is not fitted; nothing to save")
    header = {
        "format": FORMAT,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "params": encode(estimator.get_params(deep=False), arrays, "params"),
        "fitted": encode(fitted, arrays, "fitted"),
    }
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, __header__=blob, **arrays)

    atomic_write(path, write)


def load(path: str | os.PathLike) -> Any:
    """Read an estimator written by :func:`save`."""
    with np.load(path, allow_pickle=False) as data:
        if "__header__" not in data:
            raise InputError(f"{path} is not an lssvm_cvx model file")
        header = json.loads(bytes(data["__header__"]).decode("utf-8"))
        if header.get("format") != FORMAT:
            raise InputError(f"{path}: unsupported format {header.get('format')!r}")
        try:
            cls = _lssvm_class(header["class"])
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
        arrays = {k: data[k] for k in data.files if k != "__header__"}
        est = cls(**decode(header["params"], arrays))
        for k, v in decode(header["fitted"], arrays).items():
            setattr(est, k, v)
    return est
