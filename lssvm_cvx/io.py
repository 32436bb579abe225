"""Save and load fitted estimators without pickle, and read benchmark result files safely.

>>> model.save("model.npz")                       # doctest: +SKIP
>>> same = lssvm_cvx.load("model.npz")            # doctest: +SKIP

A model file is an ``.npz`` archive: the arrays (``.npy`` members, bit for bit, so a loaded
model predicts exactly what the saved one did) and ``__header__``, a JSON document with the
format and package version, the estimator's registered name, its constructor parameters, its
scalar and nested fitted attributes, and a manifest of every array (field, dtype, shape,
SHA-256, finiteness).

**What the loader trusts.**  Nothing in the file is executed or imported.  The loader builds

* only estimator classes in the registry (:func:`register_estimator`): the package's public
  estimators register themselves when their module is imported (the loader imports a package
  estimator's module by its public name, never a module named in the file); a user's own
  estimator is loadable after ``lssvm_cvx.io.register_estimator(MyEstimator)``;
* only through the class's own constructor, with parameters that the constructor declares and
  that pass the package's checks (finite numbers; ``gamma``, ``sigma2``, ``lam``, ``mu``,
  ``nu`` > 0; the kernel it describes is built and validated);
* nested values only of registered kinds: kernels (:func:`lssvm_cvx.kernels.kernel_from_dict`),
  terms and losses of :mod:`lssvm_cvx.terms` / :mod:`lssvm_cvx.losses` (or registered with
  :func:`register_component`), and result records (dataclasses) registered with
  :func:`register_record`, each through its constructor.

Then every array is checked against the manifest (shape, dtype, digest, finiteness), the fitted
attributes against each other (the number of features and of basis points agree across
``X_fit_``, ``dual_coef_``, ``support_vectors_``, ...), and the model is probed with a
two-row prediction.  Anything wrong — a missing, empty, truncated, corrupt, tampered or
future-version file — raises :class:`~lssvm_cvx.exceptions.SavedFileError` naming the file
and the field.

**Versions.**  A file records ``format_version`` and ``package_version``.  This release reads
format versions 1 (lssvm_cvx 0.1.0 before the manifest) and 2; a later format says which
version wrote it and that lssvm_cvx must be upgraded.  Parameters that a later release adds to
an estimator take their defaults when an older file is loaded; a saved parameter the estimator
no longer has is an error naming it.

Benchmark results (``benchmarks/results/*.json``) are read with :func:`read_results`, which
validates the schema the bench writer produces (:func:`validate_results`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import json
import math
import os
import re
import secrets
import warnings
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .exceptions import InputError, LssvmCvxError, SavedFileError

__all__ = [
    "save", "load", "encode", "decode", "atomic_write",
    "register_estimator", "register_record", "register_component", "registered",
    "read_results", "validate_results",
    "FORMAT", "FORMAT_VERSION", "RESULTS_SCHEMA",
]

FORMAT = "lssvm_cvx-model"
#: the model-file format this release writes; it reads 1 .. FORMAT_VERSION
FORMAT_VERSION = 2
_LEGACY_FORMAT = "lssvm_cvx-model/1"
#: benchmark result files: an optional ``"schema"`` key ``"lssvm_cvx-results/<version>"``
RESULTS_SCHEMA = "lssvm_cvx-results/1"

_MAX_HEADER_BYTES = 64 << 20
_ARRAY_KINDS = "biuf"   # bool, ints, floats; plus unicode strings ("U") for class labels
_KEY = re.compile(r"^a[0-9]{1,9}$")
_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*_$")

#: fitted fields a model computes its predictions from: never allowed to be non-finite
REQUIRED_FINITE = frozenset({
    "X_fit_", "dual_coef_", "intercept_", "alpha_", "coef_", "component_coef_",
    "support_vectors_", "x_mean_", "x_scale_", "y_mean_", "y_scale_", "phi_mean_",
    "lambda_", "c_", "temperature_", "gamma_", "sigma2_", "lam_",
})

#: groups of (field, axis) whose sizes must agree (axis None: the field is the size itself)
AXES: dict[str, tuple[tuple[str, int | None], ...]] = {
    "number of features": (("n_features_in_", None), ("X_fit_", 1), ("support_vectors_", 1),
                           ("x_mean_", 0), ("x_scale_", 0)),
    "number of basis points": (("X_fit_", 0), ("dual_coef_", 0), ("component_coef_", 0)),
    "number of support vectors": (("support_vectors_", 0), ("dual_coef_", 0)),
    "number of basis functions": (("coef_", 0), ("phi_mean_", 0), ("n_basis_", None)),
}

#: hyperparameters that must be > 0 when they are numbers
_POSITIVE = frozenset({"gamma", "sigma2", "lam", "mu", "nu"})


# ------------------------------------------------------------------------------ registries
_ESTIMATORS: dict[str, type] = {}
_RECORDS: dict[str, type] = {}
_COMPONENTS: dict[str, type] = {}


def _ours(module: str) -> bool:
    """``module`` is lssvm_cvx or one of its submodules (not merely a name with that prefix)."""
    return module == "lssvm_cvx" or module.startswith("lssvm_cvx.")


def _default_name(cls: type) -> str:
    if _ours(cls.__module__) and "." not in cls.__qualname__ and not cls.__name__.startswith("_"):
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
        _register(_ESTIMATORS, "estimator", c, name)
        for r in records:
            register_record(r)
        return c

    return deco if cls is None else deco(cls)


def register_record(cls: type, *, name: str | None = None) -> type:
    """Allow a dataclass to be saved as a fitted attribute and rebuilt by its constructor."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise InputError(f"register_record needs a dataclass, got {cls!r}")
    return _register(_RECORDS, "record", cls, name)


def register_component(cls: type, *, name: str | None = None) -> type:
    """Allow a parameter object with ``get_params`` (a term or loss of your own) to be saved and
    rebuilt by its constructor; the package's terms and losses need no registration."""
    if not (isinstance(cls, type) and hasattr(cls, "get_params")):
        raise InputError(f"register_component needs a class with get_params, got {cls!r}")
    return _register(_COMPONENTS, "component", cls, name)


def registered() -> dict[str, list[str]]:
    """The registered names: ``{"estimators": [...], "records": [...], "components": [...]}``
    (package estimators appear once their module has been imported)."""
    _builtin_components()
    return {"estimators": sorted(_ESTIMATORS), "records": sorted(_RECORDS),
            "components": sorted(_COMPONENTS)}


def _builtin_components() -> None:
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
        if c not in bases and _ours(c.__module__) and not c.__name__.startswith("_"):
            _COMPONENTS.setdefault(_default_name(c), c)


def _estimator_class(key: str) -> type | None:
    """The registered class for ``key``; a package estimator's module is imported by its public
    name (from :data:`lssvm_cvx._LAZY`, never from the file) so that it registers itself."""
    if key in _ESTIMATORS:
        return _ESTIMATORS[key]
    import lssvm_cvx

    module = getattr(lssvm_cvx, "_LAZY", {}).get(key)
    if isinstance(module, str) and module.startswith("lssvm_cvx.estimators."):
        importlib.import_module(module)
    return _ESTIMATORS.get(key)


def _registered_name(table: dict[str, type], cls: type) -> str | None:
    for key, c in table.items():
        if c is cls:
            return key
    return None


# ------------------------------------------------------------------------------- encoding
class _Writer:
    """Collects the arrays and the manifest while a value is encoded."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.manifest: dict[str, dict[str, Any]] = {}
        self.nonfinite: list[str] = []

    def array(self, value: np.ndarray, path: str) -> str:
        if value.dtype.kind not in _ARRAY_KINDS + "U":
            raise InputError(f"cannot save a {value.dtype} array at {path} without pickle")
        value = np.ascontiguousarray(value)
        key = f"a{len(self.arrays)}"
        finite = bool(np.all(np.isfinite(value))) if value.dtype.kind == "f" else True
        if not finite:
            self.nonfinite.append(path)
        self.arrays[key] = value
        self.manifest[key] = {"field": path, "dtype": value.dtype.str, "shape": list(value.shape),
                              "sha256": _digest(value), "finite": finite}
        return key


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def encode(value: Any, arrays: Any, path: str = "v") -> Any:
    """JSON-able form of ``value``; arrays go to ``arrays`` (a dict, or the saver's writer)."""
    from .kernels.base import Kernel

    writer = arrays if isinstance(arrays, _Writer) else None
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
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"__ndarray__": key}
    if isinstance(value, np.generic):
        if value.dtype.kind not in _ARRAY_KINDS:
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
        key = _registered_name(_RECORDS, cls)
        if key is None:
            raise InputError(f"cannot save {cls.__name__} at {path} without pickle: register the "
                             "record type with lssvm_cvx.io.register_record")
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init}
        return {"__dataclass__": key, "fields": encode(fields, arrays, path)}
    _builtin_components()
    key = _registered_name(_COMPONENTS, cls)
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


class _Reader:
    """Decodes a header value, raising :class:`SavedFileError` that names the field."""

    def __init__(self, path: Path, arrays: Mapping[str, np.ndarray], *, legacy: bool = False):
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
            if dt.kind not in _ARRAY_KINDS:
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
            _builtin_components()
            cls = _COMPONENTS.get(body) if isinstance(body, str) else None
            if cls is None:
                raise self.fail(field, f"refusing {body!r}: not a registered term or loss")
            params = self(value["params"], f"{field}.params")
            return self.construct(cls, params, f"{field}.params")
        if tag == "__dataclass__" and set(value) == {"__dataclass__", "fields"}:
            name = body
            cls = _RECORDS.get(name) if isinstance(name, str) else None
            if cls is None and self.legacy and isinstance(name, str):
                cls = _RECORDS.get(name.rpartition(":")[2])
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
        from .kernels.base import kernel_from_dict

        if not isinstance(body, dict):
            raise self.fail(field, "a kernel description must be a mapping")
        try:
            k = kernel_from_dict(body)
            k._validate()
        except LssvmCvxError as exc:
            raise self.fail(field, f"invalid kernel: {exc}") from None
        except Exception as exc:
            raise self.fail(field, f"invalid kernel {body!r}: {type(exc).__name__}: {exc}") from None
        return k

    def construct(self, cls: type, params: Any, field: str) -> Any:
        """``cls(**params)`` with parameters the constructor declares and that pass the checks."""
        if not isinstance(params, dict):
            raise self.fail(field, "parameters must be a mapping")
        names = _param_names(cls)
        for k, v in params.items():
            if k not in names:
                raise self.fail(f"{field}.{k}", f"{k!r} is not a parameter of {cls.__name__} in "
                                f"lssvm_cvx {_version()} (it has {sorted(names)})")
            problem = _param_problem(k, v)
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
    return _Reader(Path(path), arrays)(value, "v")


def _param_names(cls: type) -> set[str]:
    getter = getattr(cls, "_get_param_names", None)
    if callable(getter):
        try:
            return set(getter())
        except Exception:  # pragma: no cover - fall back on the signature
            pass
    sig = inspect.signature(cls.__init__)
    return {p.name for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def _param_problem(name: str, value: Any) -> str | None:
    """Why a saved constructor parameter is not acceptable (None when it is)."""
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


def _version() -> str:
    from . import __version__

    return __version__


# ----------------------------------------------------------------------------------- files
def atomic_write(path: str | os.PathLike, write: Callable[[str], Any]) -> None:
    """Call ``write(tmp_path)`` on a new file in ``path``'s folder, flush it to disk, then
    rename it to ``path`` in one step (readers see the old file or the new one, never a part).

    The temporary file is created with mode ``0o666`` minus the umask, so the result is as
    readable as any file the user creates (``tempfile.mkstemp`` would leave it ``0o600``).
    """
    path = Path(path)
    if path.is_dir():
        raise SavedFileError("is a directory; give a file name", path=path, field="path")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.close(fd)
    try:
        write(str(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp.exists():
            tmp.unlink()
        raise
    try:  # make the rename durable (best effort: not every platform opens directories)
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(dfd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(dfd)


def _as_path(path: Any, what: str = "path") -> Path:
    if not isinstance(path, (str, os.PathLike)) or (isinstance(path, str) and not path):
        raise InputError(f"{what} must be a file name (str or os.PathLike), got {path!r}")
    return Path(path)


def save(estimator: Any, path: str | os.PathLike) -> None:
    """Write a fitted, registered estimator (parameters + fitted attributes) to ``path``.

    The file is written atomically (see :func:`atomic_write`).  Raises
    :class:`~lssvm_cvx.exceptions.InputError` for an unregistered class, an unfitted estimator
    or a value that cannot be stored without pickle, and
    :class:`~lssvm_cvx.exceptions.SavedFileError` when the file cannot be written.
    """
    p = _as_path(path)
    cls = type(estimator)
    key = _registered_name(_ESTIMATORS, cls)
    if key is None:
        raise InputError(f"{cls.__module__}.{cls.__qualname__} is not a registered estimator; "
                         "register it with lssvm_cvx.io.register_estimator")
    fitted = {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}
    if not fitted:
        raise InputError(f"{cls.__name__} is not fitted; nothing to save")
    writer = _Writer()
    params = encode(estimator.get_params(deep=False), writer, "params")
    writer.nonfinite.clear()  # parameters are checked by value on load
    fitted_json = encode(fitted, writer, "fitted")
    bad = sorted({f.split(".")[1].split("[")[0] for f in writer.nonfinite} & REQUIRED_FINITE)
    if bad:
        raise InputError(f"{cls.__name__}.{bad[0]} contains NaN or inf; refusing to save a "
                         "model that cannot predict")
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "package_version": _version(),
        "class": key,
        "params": params,
        "fitted": fitted_json,
        "arrays": writer.manifest,
        "nonfinite": writer.nonfinite,
    }
    blob = np.frombuffer(json.dumps(header, allow_nan=False).encode("utf-8"), dtype=np.uint8)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, __header__=blob, **writer.arrays)

    try:
        atomic_write(p, write)
    except OSError as exc:
        raise SavedFileError(f"cannot write: {exc.strerror or exc}", path=p, field="path") from exc


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> np.ndarray:
    if info.file_size > limit:
        raise ValueError(f"{info.file_size} bytes uncompressed, more than the {limit} expected")
    with zf.open(info) as fh:
        return np.lib.format.read_array(fh, allow_pickle=False)


def load(path: str | os.PathLike) -> Any:
    """Read an estimator written by :func:`save` (see the module docstring for the checks).

    Raises :class:`~lssvm_cvx.exceptions.SavedFileError` (an
    :class:`~lssvm_cvx.exceptions.InputError`) naming the file and the field for any file it
    cannot load.
    """
    p = _as_path(path)

    def fail(field: str, message: str) -> SavedFileError:
        return SavedFileError(message, path=p, field=field)

    try:
        st = p.stat()
    except FileNotFoundError:
        raise fail("file", "no such file") from None
    except OSError as exc:
        raise fail("file", f"cannot read: {exc.strerror or exc}") from None
    if p.is_dir():
        raise fail("file", "is a directory, not a model file")
    if st.st_size == 0:
        raise fail("file", "empty file (0 bytes): not a model file, or a save that never finished")
    try:
        with zipfile.ZipFile(p) as zf:
            return _load_archive(p, zf, fail)
    except SavedFileError:
        raise
    except zipfile.BadZipFile as exc:
        raise fail("file", f"not a complete .npz archive (truncated or corrupt: {exc})") from None
    except (OSError, EOFError, ValueError, KeyError, zipfile.LargeZipFile, RuntimeError,
            NotImplementedError) as exc:
        raise fail("file", f"corrupt archive: {type(exc).__name__}: {exc}") from None


def _load_archive(p: Path, zf: zipfile.ZipFile, fail: Callable[[str, str], SavedFileError]) -> Any:
    infos = {}
    for info in zf.infolist():
        if not info.filename.endswith(".npy") or info.filename in infos:
            raise fail("file", f"unexpected archive member {info.filename!r}")
        infos[info.filename] = info
    if "__header__.npy" not in infos:
        raise fail("__header__", "no header: not an lssvm_cvx model file")
    try:
        raw = _read_member(zf, infos.pop("__header__.npy"), _MAX_HEADER_BYTES)
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError(f"header array of dtype {raw.dtype} and shape {raw.shape}")
        header = json.loads(raw.tobytes().decode("utf-8"))
    except zipfile.BadZipFile:
        raise
    except (ValueError, UnicodeDecodeError, EOFError, OSError) as exc:
        raise fail("__header__", f"unreadable header: {exc}") from None
    if not isinstance(header, dict):
        raise fail("__header__", "the header is not a JSON object")

    fmt = header.get("format")
    if fmt == _LEGACY_FORMAT:
        version = 1
        allowed = {"format", "class", "params", "fitted"}
    elif fmt == FORMAT:
        version = header.get("format_version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 2:
            raise fail("format_version", f"invalid format version {version!r}")
        if version > FORMAT_VERSION:
            raise fail("format_version",
                       f"written by lssvm_cvx {header.get('package_version', '?')} in model format "
                       f"{version}; lssvm_cvx {_version()} reads formats 1 to {FORMAT_VERSION}: "
                       "upgrade lssvm_cvx to load it")
        allowed = {"format", "format_version", "package_version", "class", "params", "fitted",
                   "arrays", "nonfinite"}
    else:
        raise fail("format", f"unsupported format {fmt!r}: not an lssvm_cvx model file")
    missing = sorted(allowed - set(header))
    if missing:
        raise fail(missing[0], "missing from the header")
    extra = sorted(set(header) - allowed)
    if extra:
        raise fail(extra[0], f"unexpected header entry in model format {version}")
    written_by = header.get("package_version", "0.1.0")

    # --- the class: registered estimators only -------------------------------------------------
    key = header["class"]
    if not isinstance(key, str):
        raise fail("class", f"must be a string, got {key!r}")
    lookup = key
    if version == 1:  # "module:QualName" of a package estimator
        module, _, qualname = key.partition(":")
        lookup = qualname if _ours(module) else key
    cls = _estimator_class(lookup)
    if cls is None:
        raise fail("class", f"refusing {key!r}: not a registered estimator in lssvm_cvx {_version()} "
                   f"(file written by lssvm_cvx {written_by}); register your own estimators with "
                   "lssvm_cvx.io.register_estimator before loading")

    # --- arrays: manifest, sizes, dtypes, digests, finiteness ------------------------------------
    arrays: dict[str, np.ndarray] = {}
    manifest = header.get("arrays", {})
    names = {n[:-4] for n in infos}
    if version >= 2:
        if not isinstance(manifest, dict):
            raise fail("arrays", "the array manifest must be a mapping")
        for k in sorted(names - set(manifest)):
            raise fail(k, "an array in the archive that the manifest does not list")
        for k in sorted(set(manifest) - names):
            entry = manifest[k]
            where = entry.get("field", k) if isinstance(entry, dict) else k
            raise fail(where, f"array {k!r} is missing from the archive (truncated or tampered)")
    for k in sorted(names):
        if not _KEY.match(k):
            raise fail(k, "unexpected array name")
        info = infos[f"{k}.npy"]
        if version >= 2:
            entry = manifest[k]
            if not (isinstance(entry, dict) and {"field", "dtype", "shape", "sha256", "finite"} <= set(entry)):
                raise fail(k, "incomplete manifest entry")
            field = entry["field"] if isinstance(entry["field"], str) else k
            try:
                dt = np.dtype(entry["dtype"])
                shape = tuple(int(s) for s in entry["shape"])
            except (TypeError, ValueError):
                raise fail(field, f"invalid dtype/shape in the manifest: {entry['dtype']!r}, {entry['shape']!r}") from None
            if dt.kind not in _ARRAY_KINDS + "U" or any(s < 0 for s in shape):
                raise fail(field, f"array of dtype {dt} and shape {shape} is not allowed")
            limit = dt.itemsize * math.prod(shape) + 65536
        else:
            field, dt, shape, limit = k, None, None, 1 << 40
        try:
            a = _read_member(zf, info, limit)
        except zipfile.BadZipFile as exc:
            raise fail(field, f"corrupt array data ({exc})") from None
        except (ValueError, EOFError, OSError) as exc:
            raise fail(field, f"unreadable array: {exc}") from None
        if a.dtype.kind not in _ARRAY_KINDS + "U":
            raise fail(field, f"array of dtype {a.dtype} is not allowed")
        if version >= 2:
            if a.dtype != dt or a.shape != shape:
                raise fail(field, f"array has dtype {a.dtype} and shape {a.shape}; the model "
                           f"recorded {dt} and {shape} (truncated or tampered)")
            if _digest(a) != entry["sha256"]:
                raise fail(field, "array content does not match its recorded SHA-256 (tampered or corrupt)")
            if entry["finite"] is True and a.dtype.kind == "f" and not np.all(np.isfinite(a)):
                raise fail(field, "contains NaN or inf")
        arrays[k] = a

    reader = _Reader(p, arrays, legacy=version == 1)
    nonfinite = header.get("nonfinite", [])
    if not (isinstance(nonfinite, list) and all(isinstance(f, str) for f in nonfinite)):
        raise fail("nonfinite", "must be a list of field names")

    # --- parameters through the constructor ----------------------------------------------------
    params = reader(header["params"], "params")
    est = reader.construct(cls, params, "params")
    if hasattr(est, "_make_kernel") and not getattr(est, "_precomputed", False) and not callable(
            getattr(est, "kernel", None)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est._make_kernel()
        except LssvmCvxError as exc:
            raise fail("params", str(exc)) from None
        except Exception as exc:
            raise fail("params", f"{type(exc).__name__}: {exc}") from None

    # --- fitted attributes -----------------------------------------------------------------------
    fitted = reader(header["fitted"], "fitted")
    if not isinstance(fitted, dict) or not fitted:
        raise fail("fitted", "must be a non-empty mapping of fitted attributes")
    if len(reader.used) != len(arrays):
        unused = sorted(set(arrays) - reader.used)[0]
        raise fail(unused, "an array that no field refers to")
    for k, v in fitted.items():
        if not _FIELD.match(k) or hasattr(cls, k):
            raise fail(f"fitted.{k}", "not a fitted-attribute name (letters, digits, _; ends in _)")
        _check_finite(v, f"fitted.{k}", nonfinite if version >= 2 else None,
                      k in REQUIRED_FINITE, fail)
    _check_axes(fitted, fail)
    classes = fitted.get("classes_")
    if classes is not None:
        c = np.asarray(classes)
        if c.ndim != 1 or c.size < 2 or np.unique(c).size != c.size:
            raise fail("fitted.classes_", f"must list at least two distinct classes, got {c.tolist()[:5]}")
    for k, v in fitted.items():
        setattr(est, k, v)
    _probe(est, fail)
    return est


def _check_finite(v: Any, field: str, allowed: list[str] | None, required: bool,
                  fail: Callable[[str, str], SavedFileError]) -> None:
    """Non-finite floats only where the saver recorded them (``allowed``; None: legacy files,
    where only the fields in :data:`REQUIRED_FINITE` are checked) and never in those fields."""
    def bad(x: Any) -> bool:
        if isinstance(x, (float, np.floating)):
            return not np.isfinite(x)
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            return not bool(np.all(np.isfinite(x)))
        return False

    def walk(x: Any, f: str) -> None:
        if bad(x):
            if required or (allowed is not None and f not in allowed):
                raise fail(f, "contains NaN or inf")
        elif isinstance(x, dict):
            for k, y in x.items():
                walk(y, f"{f}.{k}")
        elif isinstance(x, (list, tuple)):
            for i, y in enumerate(x):
                walk(y, f"{f}[{i}]")
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for fl in dataclasses.fields(x):
                walk(getattr(x, fl.name), f"{f}.{fl.name}")

    walk(v, field)


def _check_axes(fitted: dict[str, Any], fail: Callable[[str, str], SavedFileError]) -> None:
    for what, members in AXES.items():
        seen: list[tuple[str, int]] = []
        for name, axis in members:
            if name not in fitted or fitted[name] is None:
                continue
            v = fitted[name]
            if axis is None:
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                    raise fail(f"fitted.{name}", f"must be a non-negative integer, got {v!r}")
                size = int(v)
            else:
                if not isinstance(v, np.ndarray):
                    raise fail(f"fitted.{name}", f"must be an array, got {type(v).__name__}")
                if v.ndim <= axis:
                    raise fail(f"fitted.{name}", f"must have at least {axis + 1} dimensions, got shape {v.shape}")
                size = v.shape[axis]
            for other, osize in seen:
                if osize != size:
                    raise fail(f"fitted.{name}", f"{what} is {size} here but {osize} in {other} "
                               "(truncated or tampered)")
            seen.append((name, size))


def _probe(est: Any, fail: Callable[[str, str], SavedFileError]) -> None:
    """Predict two rows: a model whose fitted attributes do not fit together fails here."""
    n = getattr(est, "n_features_in_", None)
    method = getattr(est, "decision_function", None) or getattr(est, "predict", None)
    if not isinstance(n, (int, np.integer)) or method is None:
        return
    if n <= 0:
        raise fail("fitted.n_features_in_", f"must be positive, got {n}")
    X = np.zeros((2, int(n)))
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = np.asarray(method(X))
    except Exception as exc:
        raise fail("fitted", "the fitted attributes do not fit together: "
                   f"{method.__name__} fails with {type(exc).__name__}: {exc}") from None
    if out.shape[:1] != (2,):
        raise fail("fitted", f"{method.__name__} of 2 rows returned shape {out.shape}")
    if out.dtype.kind in "fc" and not np.all(np.isfinite(out)):
        raise fail("fitted", f"{method.__name__} returns NaN or inf")


# ------------------------------------------------------------------------- benchmark results
_RESULT_KEYS = {"name": str, "title": str, "command": (str, type(None)), "date": str,
                "mode": str, "elapsed_s": (int, float), "machine": dict, "checks": dict,
                "meta": dict, "notes": (str, type(None)), "figures": dict, "tables": list}
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _reject_constant(c: str) -> Any:
    raise ValueError(f"non-standard JSON number {c}")


def validate_results(payload: Any, *, source: str | os.PathLike = "<results>") -> dict[str, Any]:
    """Check a benchmark-results document (what ``bench.write_result`` writes) and return it.

    Raises :class:`~lssvm_cvx.exceptions.SavedFileError` naming ``source`` and the field.  The
    bench writer can call this on its payload before writing; a document may carry
    ``"schema": "lssvm_cvx-results/1"`` (documents without it are version 1).
    """
    p = Path(source)

    def fail(field: str, message: str) -> SavedFileError:
        return SavedFileError(message, path=p, field=field)

    if not isinstance(payload, dict):
        raise fail("file", "a results file must hold one JSON object")
    schema = payload.get("schema", RESULTS_SCHEMA)
    m = re.match(r"^lssvm_cvx-results/([0-9]+)$", schema) if isinstance(schema, str) else None
    if m is None:
        raise fail("schema", f"not an lssvm_cvx results schema: {schema!r}")
    current = int(RESULTS_SCHEMA.rpartition("/")[2])
    if int(m.group(1)) > current:
        raise fail("schema", f"results schema {m.group(1)} is newer than lssvm_cvx {_version()} "
                   f"reads (up to {current}): upgrade lssvm_cvx")
    for key, types in _RESULT_KEYS.items():
        if key not in payload:
            raise fail(key, "missing")
        if isinstance(payload[key], bool) or not isinstance(payload[key], types):
            raise fail(key, f"has type {type(payload[key]).__name__}")
    extra = sorted(set(payload) - set(_RESULT_KEYS) - {"schema"})
    if extra:
        raise fail(extra[0], "unexpected entry")
    if not _NAME.match(payload["name"]):
        raise fail("name", f"invalid benchmark name {payload['name']!r}")
    if p.suffix == ".json" and p.stem != payload["name"]:
        raise fail("name", f"the file is named {p.name} but holds results of {payload['name']!r}")
    if payload["mode"] not in ("quick", "full"):
        raise fail("mode", f"must be 'quick' or 'full', got {payload['mode']!r}")
    if not math.isfinite(payload["elapsed_s"]) or payload["elapsed_s"] < 0:
        raise fail("elapsed_s", f"must be a finite number >= 0, got {payload['elapsed_s']!r}")
    for claim, c in payload["checks"].items():
        f = f"checks[{claim!r}]"
        if not (isinstance(c, dict) and set(c) == {"value", "target", "relation", "unit", "ok"}):
            raise fail(f, "must have value, target, relation, unit and ok")
        for k in ("value", "target"):
            if isinstance(c[k], bool) or not isinstance(c[k], (int, float)) or not math.isfinite(c[k]):
                raise fail(f"{f}.{k}", f"must be a finite number, got {c[k]!r}")
        if c["relation"] not in ("<=", ">=") or not isinstance(c["unit"], str) or not isinstance(c["ok"], bool):
            raise fail(f, "relation must be '<=' or '>=', unit a string and ok a boolean")
        met = c["value"] <= c["target"] if c["relation"] == "<=" else c["value"] >= c["target"]
        if met != c["ok"]:
            raise fail(f"{f}.ok", f"says {c['ok']} but {c['value']} {c['relation']} {c['target']} "
                       f"is {met} (tampered)")
    for k, v in payload["figures"].items():
        if not (isinstance(v, str) and _NAME.match(v) and v.endswith(".png") and ".." not in v):
            raise fail(f"figures[{k!r}]", f"must be a .png file name in the same folder, got {v!r}")
    for i, t in enumerate(payload["tables"]):
        f = f"tables[{i}]"
        if not (isinstance(t, dict) and set(t) == {"name", "caption", "rows", "paper"}):
            raise fail(f, "must have name, caption, rows and paper")
        if not isinstance(t["name"], str) or not isinstance(t["caption"], (str, type(None))):
            raise fail(f"{f}.name", "name must be a string and caption a string or null")
        for part in ("rows", "paper"):
            rows = t[part]
            if rows is None and part == "paper":
                continue
            if not (isinstance(rows, list) and all(isinstance(r, dict) for r in rows)):
                raise fail(f"{f}.{part}", "must be a list of row objects")
    return payload


def read_results(path: str | os.PathLike, *, max_bytes: int = 256 << 20) -> dict[str, Any]:
    """Read and validate one benchmark results file (``benchmarks/results/NAME.json``).

    Raises :class:`~lssvm_cvx.exceptions.SavedFileError` naming the file and the field for a
    missing, empty, truncated, non-JSON, tampered or future-schema file.
    """
    p = _as_path(path)

    def fail(field: str, message: str) -> SavedFileError:
        return SavedFileError(message, path=p, field=field)

    try:
        size = p.stat().st_size
        if p.is_dir():
            raise fail("file", "is a directory, not a results file")
        if size == 0:
            raise fail("file", "empty file (0 bytes)")
        if size > max_bytes:
            raise fail("file", f"{size} bytes, more than the {max_bytes} allowed")
        text = p.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise fail("file", "no such file") from None
    except UnicodeDecodeError as exc:
        raise fail("file", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise fail("file", f"cannot read: {exc.strerror or exc}") from None
    try:
        payload = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise fail("file", f"not valid JSON (truncated or corrupt): {exc}") from None
    return validate_results(payload, source=p)
