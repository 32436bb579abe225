"""Encoding of fitted estimators for :mod:`lssvm_cvx.io`: the registries of loadable classes,
the JSON/array encoder, and the strict decoder that names the field at fault.  Private: use
:mod:`lssvm_cvx.io`."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import InputError, LssvmCvxError, SavedFileError

ARRAY_KINDS = "biuf"   # bool, ints, floats; plus unicode strings ("U") for class labels
#: hyperparameters that must be > 0 when they are numbers
_POSITIVE = frozenset({"gamma", "sigma2", "lam", "mu", "nu"})

# ------------------------------------------------------------------------------ registries
ESTIMATORS: dict[str, type] = {}
RECORDS: dict[str, type] = {}
COMPONENTS: dict[str, type] = {}


def is_ours(module: str) -> bool:
    """``module`` is lssvm_cvx or one of its submodules (not merely a name with that prefix)."""
    return module == "lssvm_cvx" or module.startswith("lssvm_cvx.")


def _default_name(cls: type) -> str:
    if is_ours(cls.__module__) and "." not in cls.__qualname__ and not cls.__name__.startswith("_"):
        return cls.__name__
    return f"{cls.__module__}:{cls.__qualname__}"


def _register(table: dict[str, type], kind: str, cls: Any, name: str | None) -> type:
    if not isinstance(cls, type):
        raise InputError(f"register_{kind} needs a class, got {cls!r}")
    key = name or _default_name(cls)
    if not isinstance(key, str) or not key:
        raise InputError(f"the registered name of {cls!r} must be a non-empty string, got {key!r}")
    old = table.get(key)
    if old is not None and old is not cls and (old.__module__, old.__qualname__) != (
            cls.__module__, cls.__qualname__):
        raise InputError(f"{kind} name {key!r} is already registered to "
                         f"{old.__module__}.{old.__qualname__}")
    table[key] = cls
    return cls


def register_estimator(cls: type | None = None, *, name: str | None = None,
                       records: tuple[type, ...] = ()) -> Any:
    """Allow :func:`save` and :func:`load` to handle estimator class ``cls``.

    The package's public estimators register themselves (``estimators.base.SaveMixin``);
    call this for your own estimator, in the process that saves *and* in the one that loads
    (e.g. next to the class definition).  ``cls`` must follow scikit-learn's conventions: its
    constructor takes the parameters that ``get_params`` returns, and fitted attributes end in
    ``_``.  ``name`` is the name written into files (default ``"module:QualName"``);
    ``records`` are dataclasses the fitted model stores (see :func:`register_record`).
    Usable as a decorator.
    """
    def deco(c: type) -> type:
        _register(ESTIMATORS, "estimator", c, name)
        for r in records:
            register_record(r)
        return c

    return deco if cls is None else deco(cls)


def register_record(cls: type, *, name: str | None = None) -> type:
    """Allow a dataclass to be saved as a fitted attribute and rebuilt by its constructor."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise InputError(f"register_record needs a dataclass, got {cls!r}")
    return _register(RECORDS, "record", cls, name)


def register_component(cls: type, *, name: str | None = None) -> type:
    """Allow a parameter object with ``get_params`` (a term or loss of your own) to be saved and
    rebuilt by its constructor; the package's terms and losses need no registration."""
    if not (isinstance(cls, type) and hasattr(cls, "get_params")):
        raise InputError(f"register_component needs a class with get_params, got {cls!r}")
    return _register(COMPONENTS, "component", cls, name)


def registered() -> dict[str, list[str]]:
    """The registered names: ``{"estimators": [...], "records": [...], "components": [...]}``
    (package estimators appear once their module has been imported)."""
    builtin_components()
    return {"estimators": sorted(ESTIMATORS), "records": sorted(RECORDS),
            "components": sorted(COMPONENTS)}


def builtin_components() -> None:
    """Register the public Term and Loss classes defined inside the package."""
    bases = []
    for mod, attr in (("lssvm_cvx.terms", "Term"), ("lssvm_cvx.losses", "Loss")):
        try:
            bases.append(getattr(importlib.import_module(mod), attr))
        except (ImportError, AttributeError):  # pragma: no cover - layer not present
            continue
    stack = list(bases)
    while stack:
        c = stack.pop()
        stack.extend(c.__subclasses__())
        if c not in bases and is_ours(c.__module__) and not c.__name__.startswith("_"):
            COMPONENTS.setdefault(_default_name(c), c)


def estimator_class(key: str) -> type | None:
    """The registered class for ``key``; a package estimator's module is imported by its public
    name (the package's lazy attribute, never a module named by the file) so that it registers
    itself."""
    if key in ESTIMATORS:
        return ESTIMATORS[key]
    import lssvm_cvx

    if key in getattr(lssvm_cvx, "__all__", ()):          # a public name: imports its module
        getattr(lssvm_cvx, key)
    if key not in ESTIMATORS and ":" not in key:  # not in the lazy table: import them all
        import pkgutil

        package = importlib.import_module("lssvm_cvx.estimators")
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"lssvm_cvx.estimators.{info.name}")
    return ESTIMATORS.get(key)


def registered_name(table: dict[str, type], cls: type) -> str | None:
    """Return the key under which ``cls`` is registered in ``table``, or None."""
    for key, c in table.items():
        if c is cls:
            return key
    return None


# ------------------------------------------------------------------------------- encoding
class Writer:
    """Collects the arrays and the manifest while a value is encoded."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.manifest: dict[str, dict[str, Any]] = {}
        self.nonfinite: list[str] = []

    def array(self, value: np.ndarray, path: str) -> str:
        if value.dtype.kind not in ARRAY_KINDS + "U":
            raise InputError(f"cannot save a {value.dtype} array at {path} without pickle")
        value = np.ascontiguousarray(value)
        key = f"a{len(self.arrays)}"
        finite = bool(np.all(np.isfinite(value))) if value.dtype.kind == "f" else True
        if not finite:
            self.nonfinite.append(path)
        self.arrays[key] = value
        self.manifest[key] = {"field": path, "dtype": value.dtype.str, "shape": list(value.shape),
                              "sha256": array_digest(value), "finite": finite}
        return key


def array_digest(a: np.ndarray) -> str:
    """Return the SHA-256 hex digest of the bytes of ``a`` (C order)."""
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def encode(value: Any, arrays: Any, path: str = "v") -> Any:
    """JSON-able form of ``value``; arrays go to ``arrays`` (a dict, or the saver's writer)."""
    from ..kernels.base import Kernel

    writer = arrays if isinstance(arrays, Writer) else None
    if isinstance(value, Kernel):
        return {"__kernel__": value.to_dict()}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            if all(isinstance(v, str) for v in value.ravel()):
                value = value.astype(str)
            else:
                return {"__objarray__": encode(value.tolist(), arrays, path),
                        "shape": list(value.shape)}
        if writer is not None:
            return {"__ndarray__": writer.array(value, path)}
        array_key = f"a{len(arrays)}"
        arrays[array_key] = value
        return {"__ndarray__": array_key}
    if isinstance(value, np.generic):
        if value.dtype.kind not in ARRAY_KINDS:
            raise InputError(f"cannot save a {value.dtype} scalar at {path}")
        if writer is not None and value.dtype.kind == "f" and not np.isfinite(value):
            writer.nonfinite.append(path)
        return {"__npscalar__": _json_float(value.item()), "dtype": value.dtype.str}
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise InputError(f"cannot save a dict with non-string keys at {path}")
        return {"__dict__": {k: encode(v, arrays, f"{path}.{k}") for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, float):
        if writer is not None and not math.isfinite(value):
            writer.nonfinite.append(path)
        return _json_float(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    cls = type(value)
    if dataclasses.is_dataclass(value):
        key = registered_name(RECORDS, cls)
        if key is None:
            raise InputError(f"cannot save {cls.__name__} at {path} without pickle: register the "
                             "record type with lssvm_cvx.io.register_record")
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init}
        return {"__dataclass__": key, "fields": encode(fields, arrays, path)}
    builtin_components()
    key = registered_name(COMPONENTS, cls)
    if key is not None:
        return {"__component__": key,
                "params": encode(value.get_params(deep=False), arrays, f"{path}.params")}
    raise InputError(f"cannot save {cls.__name__} at {path} without pickle (register it with "
                     "lssvm_cvx.io.register_component if it is a parameter object)")


def _json_float(v: Any) -> Any:
    """Non-finite floats as tagged strings (the header is strict JSON)."""
    if isinstance(v, float) and not math.isfinite(v):
        return {"__float__": repr(v)}
    return v


class Reader:
    """Decodes a header value, raising :class:`SavedFileError` that names the field."""

    def __init__(self, path: Path, arrays: Mapping[str, np.ndarray], *, legacy: bool = False):
        #: dataclass records are allowed among fitted attributes only (set by the loader)
        self.records = True
        self.path = path
        self.arrays = arrays
        self.legacy = legacy
        self.used: set[str] = set()

    def fail(self, field: str, message: str) -> SavedFileError:
        return SavedFileError(message, path=self.path, field=field)

    def __call__(self, value: Any, field: str) -> Any:
        if isinstance(value, list):
            return [self(v, f"{field}[{i}]") for i, v in enumerate(value)]
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float)):
            if isinstance(value, float) and not math.isfinite(value) and not self.legacy:
                raise self.fail(field, "a bare non-finite number (the writer tags them)")
            return value
        if not isinstance(value, dict):
            raise self.fail(field, f"unexpected JSON value of type {type(value).__name__}")
        tags = [k for k in value if k.startswith("__")]
        if len(tags) != 1:
            raise self.fail(field, f"an entry must have exactly one type tag, got keys {sorted(value)[:5]}")
        tag = tags[0]
        body = value[tag]
        if tag == "__dict__" and isinstance(body, dict) and len(value) == 1:
            return {k: self(v, f"{field}.{k}") for k, v in body.items()}
        if tag == "__tuple__" and isinstance(body, list) and len(value) == 1:
            return tuple(self(v, f"{field}[{i}]") for i, v in enumerate(body))
        if tag == "__float__" and len(value) == 1 and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "__ndarray__" and len(value) == 1:
            if not isinstance(body, str) or body not in self.arrays:
                raise self.fail(field, f"refers to array {body!r}, which is not in the archive")
            if body in self.used:
                raise self.fail(field, f"array {body!r} is referenced twice")
            self.used.add(body)
            return self.arrays[body]
        if tag == "__npscalar__" and set(value) == {"__npscalar__", "dtype"}:
            try:
                dt = np.dtype(value["dtype"])
            except (TypeError, ValueError):
                raise self.fail(field, f"invalid dtype {value['dtype']!r}") from None
            if dt.kind not in ARRAY_KINDS:
                raise self.fail(field, f"scalar dtype {dt} is not allowed")
            v = self(body, field)
            if not isinstance(v, (bool, int, float)):
                raise self.fail(field, f"a {dt} scalar must be a number, got {v!r}")
            try:
                return dt.type(v)
            except (OverflowError, ValueError, TypeError) as exc:
                raise self.fail(field, f"invalid {dt} scalar {v!r}: {exc}") from None
        if tag == "__objarray__" and set(value) == {"__objarray__", "shape"}:
            items = self(body, field)
            shape = value["shape"]
            if not (isinstance(items, list) and isinstance(shape, list)
                    and all(isinstance(s, int) and s >= 0 for s in shape)
                    and math.prod(shape) == len(items) and len(shape) == 1):
                raise self.fail(field, "an object array whose shape does not match its items")
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out
        if tag == "__kernel__" and len(value) == 1:
            return self.kernel(body, field)
        if tag == "__component__" and set(value) == {"__component__", "params"}:
            builtin_components()
            cls = COMPONENTS.get(body) if isinstance(body, str) else None
            if cls is None:
                raise self.fail(field, f"refusing {body!r}: not a registered term or loss")
            params = self(value["params"], f"{field}.params")
            return self.construct(cls, params, f"{field}.params")
        if tag == "__dataclass__" and set(value) == {"__dataclass__", "fields"}:
            name = body
            if not self.records:
                raise self.fail(field, f"refusing {name!r}: records are allowed among fitted "
                                "attributes only")
            cls = RECORDS.get(name) if isinstance(name, str) else None
            if cls is None and self.legacy and isinstance(name, str):
                cls = RECORDS.get(name.rpartition(":")[2])
            if cls is None:
                raise self.fail(field, f"refusing {name!r}: not a dataclass registered with "
                                        "lssvm_cvx.io.register_record")
            fields = self(value["fields"], field)
            if not isinstance(fields, dict):
                raise self.fail(field, "record fields must be a mapping")
            init = {f.name for f in dataclasses.fields(cls) if f.init}
            unknown = sorted(set(fields) - init)
            if unknown:
                raise self.fail(f"{field}.{unknown[0]}", f"{cls.__name__} has no field {unknown[0]!r}")
            try:
                return cls(**fields)
            except Exception as exc:  # the record's own constructor rejected the values
                raise self.fail(field, f"{cls.__name__}(...) failed: {exc}") from None
        raise self.fail(field, f"unknown entry {sorted(value)[:3]}")

    def kernel(self, body: Any, field: str) -> Any:
        from ..kernels.base import kernel_from_dict

        if not isinstance(body, dict):
            raise self.fail(field, "a kernel description must be a mapping")
        try:
            k = kernel_from_dict(body)
            k.validate()
        except LssvmCvxError as exc:
            raise self.fail(field, f"invalid kernel: {exc}") from None
        except Exception as exc:
            raise self.fail(field, f"invalid kernel {body!r}: {type(exc).__name__}: {exc}") from None
        return k

    def construct(self, cls: type, params: Any, field: str) -> Any:
        """``cls(**params)`` with parameters the constructor declares and that pass the checks."""
        if not isinstance(params, dict):
            raise self.fail(field, "parameters must be a mapping")
        defaults = _param_defaults(cls)
        for k, v in params.items():
            if k not in defaults:
                raise self.fail(f"{field}.{k}", f"{k!r} is not a parameter of {cls.__name__} in "
                                f"lssvm_cvx {package_version()} (it has {sorted(defaults)})")
            problem = _param_problem(k, v, defaults[k])
            if problem:
                raise self.fail(f"{field}.{k}", problem)
        try:
            return cls(**params)
        except LssvmCvxError as exc:
            raise self.fail(field, str(exc)) from None
        except Exception as exc:
            raise self.fail(field, f"{cls.__name__}(...) failed: {type(exc).__name__}: {exc}") from None


def decode(value: Any, arrays: Any, *, path: str | os.PathLike = "<memory>") -> Any:
    """Inverse of :func:`encode` (strict: raises :class:`SavedFileError` naming the field)."""
    return Reader(Path(path), arrays)(value, "v")


_NO_DEFAULT = object()


def _param_defaults(cls: type) -> dict[str, Any]:
    """The constructor's parameters and their defaults (``_NO_DEFAULT`` when required)."""
    sig = inspect.signature(cls.__init__)  # type: ignore[misc]  # the class's own constructor
    return {p.name: (_NO_DEFAULT if p.default is p.empty else p.default)
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _param_problem(name: str, value: Any, default: Any = _NO_DEFAULT) -> str | None:
    """Why a saved constructor parameter is not acceptable (None when it is).

    A parameter whose default is a bool must be a bool, one whose default is a number must be
    a number or numbers (or None); numbers must be finite, and > 0 for the names in
    :data:`_POSITIVE`."""
    if isinstance(default, bool) and not isinstance(value, (bool, np.bool_)):
        return f"{name} must be True or False, got {value!r}"
    if _is_number(default) and value is not None:
        flat = value.tolist() if isinstance(value, np.ndarray) else value
        items = flat if isinstance(flat, (list, tuple)) else [flat]
        if not all(_is_number(v) for v in items):
            return f"{name} must be a number, got {value!r}"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        if not np.isfinite(float(value)):
            return f"{name} must be finite, got {value!r}"
        if name in _POSITIVE and float(value) <= 0:
            return f"{name} must be > 0, got {value!r}"
        return None
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and not np.all(np.isfinite(value)):
        return f"{name} contains NaN or inf"
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            p = _param_problem(name, v)
            if p:
                return f"{p} (entry {i})"
    return None


def package_version() -> str:
    """Return the installed version of lssvm_cvx."""
    from .. import __version__

    return __version__
