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

**What the loader reads.**  Before anything is allocated for data: every archive member must
be stored uncompressed (the writer never compresses; a compressed member — a zip bomb — is
refused unread), the members' declared sizes must fit in the file, there are at most
:data:`MAX_MEMBERS`, and each ``.npy`` header's shape and dtype must account for exactly its
member's bytes (a header claiming 10¹² elements is refused, not allocated).  Peak memory is a
small multiple of the file's size.

The header carries its own SHA-256 (``digest``), so a corrupt or hand-edited header is refused
before anything is built.  Then every array is checked against the manifest (shape, dtype,
SHA-256, finiteness), the fitted attributes against each other (the number of features and of
basis points agree across ``X_fit_``, ``dual_coef_``, ``support_vectors_``, ...; the kernel's
width equals ``sigma2_``; prediction-defining fields are finite numbers), and the model is
probed with a two-row call of every prediction method the class has (:data:`PROBED`).

**What a checksum does not protect.**  The digests detect corruption and edits by anyone who
does not recompute them; a forger who reads the format and recomputes them can still write a
*different* valid model (shifted intercept, other coefficients, another kernel) — but not one
that crashes, allocates without bound or predicts NaN.  For authenticity, save with a secret
(``est.save(path, key=...)``: an HMAC-SHA256 over the header, whose manifest holds every
array's SHA-256) and load with the same ``key``: a file written without the key is refused.
Format-1 files (lssvm_cvx 0.1.0) have no checksum at all and are refused unless
``trust_legacy=True``; relabelling a newer file as format 1 therefore skips no check.

Anything wrong — a missing, empty, truncated, corrupt, tampered or future-version file —
raises :class:`~lssvm_cvx.exceptions.SavedFileError` naming the file and the field.

**Versions.**  A file records ``format_version`` and ``package_version``.  This release reads
format versions 1 (lssvm_cvx 0.1.0 before the manifest; with ``trust_legacy=True``), 2 and 3
(2 with an optional signature); a later format says which
version wrote it and that lssvm_cvx must be upgraded.  Parameters that a later release adds to
an estimator take their defaults when an older file is loaded; a saved parameter the estimator
no longer has is an error naming it.

Benchmark results (``benchmarks/results/*.json``) are read with :func:`read_results`, which
validates the schema the bench writer produces (:func:`validate_results`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import InputError, LssvmCvxError, SavedFileError
from ..harness.files import atomic_write
from .archive import header_digest, header_hmac, key_bytes, read_member
from .codec import (
    ARRAY_KINDS,
    COMPONENTS,
    ESTIMATORS,
    RECORDS,
    Reader,
    Writer,
    array_digest,
    decode,
    encode,
    estimator_class,
    is_ours,
    package_version,
    register_component,
    register_estimator,
    register_record,
    registered,
    registered_name,
)
from .files import (
    RESULTS_SCHEMA,
    as_path,
    read_results,
    validate_results,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "RESULTS_SCHEMA",
    "atomic_write",
    "decode",
    "encode",
    "header_digest",
    "header_hmac",
    "load",
    "read_results",
    "register_component",
    "register_estimator",
    "register_record",
    "registered",
    "save",
    "validate_results",
]
_ = (COMPONENTS, RECORDS, is_ours)  # re-exported for tests and tools

FORMAT = "lssvm_cvx-model"
#: the model-file format this release writes; it reads 1 .. FORMAT_VERSION (format 3 is format
#: 2 with an optional ``hmac`` entry)
FORMAT_VERSION = 3
#: the most archive members (arrays) a model file may have
MAX_MEMBERS = 4096
_LEGACY_FORMAT = "lssvm_cvx-model/1"

_MAX_HEADER_BYTES = 64 << 20
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


def save(estimator: Any, path: str | os.PathLike, key: Any = None) -> None:
    """Write a fitted, registered estimator (parameters + fitted attributes) to ``path``.

    The file is written atomically (see :func:`atomic_write`).  With ``key`` (bytes or str)
    the header carries an HMAC-SHA256 under that key over the header and, through the
    manifest's digests, every array: ``load(path, key=key)`` then refuses a file that was not
    written with the key (module docstring).  Raises
    :class:`~lssvm_cvx.exceptions.InputError` for an unregistered class, an unfitted
    estimator, a bad key or a value that cannot be stored without pickle, and
    :class:`~lssvm_cvx.exceptions.SavedFileError` when the file cannot be written.
    """
    p = as_path(path)
    secret = key_bytes(key)
    cls = type(estimator)
    key = registered_name(ESTIMATORS, cls)
    if key is None:
        raise InputError(f"{cls.__module__}.{cls.__qualname__} is not a registered estimator; "
                         "register it with lssvm_cvx.io.register_estimator")
    fitted = {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}
    if not fitted:
        raise InputError(f"{cls.__name__} is not fitted; nothing to save")
    writer = Writer()
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
        "package_version": package_version(),
        "class": key,
        "params": params,
        "fitted": fitted_json,
        "arrays": writer.manifest,
        "nonfinite": writer.nonfinite,
    }
    if secret is not None:
        header["hmac"] = header_hmac(header, secret)
    header["digest"] = header_digest(header)
    blob = np.frombuffer(json.dumps(header, allow_nan=False).encode("utf-8"), dtype=np.uint8)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            members: dict[str, Any] = {"__header__": blob, **writer.arrays}
            np.savez(fh, **members)

    try:
        atomic_write(p, write)
    except OSError as exc:
        raise SavedFileError(f"cannot write: {exc.strerror or exc}", path=p, field="path") from exc


def load(path: str | os.PathLike, key: Any = None, *, trust_legacy: bool = False) -> Any:
    """Read an estimator written by :func:`save` (see the module docstring for the checks).

    ``key``: the secret the file was saved with; the file must then carry a matching
    HMAC-SHA256, else it is refused (forged, or saved without the key).  ``trust_legacy``: load
    a format-1 file (lssvm_cvx 0.1.0, no checksums) — a hand-edited format-1 file cannot be told
    from a genuine one, so only when you vouch for it; re-save it to upgrade.  Raises
    :class:`~lssvm_cvx.exceptions.SavedFileError` (an
    :class:`~lssvm_cvx.exceptions.InputError`) naming the file and the field for any file it
    cannot load.
    """
    p = as_path(path)
    secret = key_bytes(key)

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
            return _load_archive(p, zf, fail, st.st_size, secret, trust_legacy)
    except SavedFileError:
        raise
    except zipfile.BadZipFile as exc:
        raise fail("file", f"not a complete .npz archive (truncated or corrupt: {exc})") from None
    except RecursionError:
        raise fail("__header__", "nested too deeply") from None
    except (OSError, EOFError, ValueError, KeyError, zipfile.LargeZipFile, RuntimeError,
            NotImplementedError) as exc:
        raise fail("file", f"corrupt archive: {type(exc).__name__}: {exc}") from None


def _load_archive(p: Path, zf: zipfile.ZipFile, fail: Callable[[str, str], SavedFileError],
                  size: int, secret: bytes | None, trust_legacy: bool) -> Any:
    members = zf.infolist()
    if len(members) > MAX_MEMBERS:
        raise fail("file", f"{len(members)} archive members, more than a model file has "
                           f"({MAX_MEMBERS})")
    infos = {}
    declared = 0
    for info in members:
        if not info.filename.endswith(".npy") or info.filename in infos:
            raise fail("file", f"unexpected archive member {info.filename!r}")
        if info.compress_type != zipfile.ZIP_STORED:
            raise fail(info.filename[:-4], "a compressed archive member: lssvm_cvx stores "
                       "arrays uncompressed (a compressed member could expand to any size); "
                       "refused before reading it")
        declared += info.file_size
        if info.file_size > size or declared > size:
            raise fail(info.filename[:-4], f"the archive declares {declared} bytes of members "
                       f"in a file of {size} bytes (tampered)")
        infos[info.filename] = info
    if "__header__.npy" not in infos:
        raise fail("__header__", "no header: not an lssvm_cvx model file")
    try:
        raw = read_member(zf, infos.pop("__header__.npy"), min(_MAX_HEADER_BYTES, size))
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError(f"header array of dtype {raw.dtype} and shape {raw.shape}")
        header = json.loads(raw.tobytes().decode("utf-8"))
    except zipfile.BadZipFile:
        raise
    except (ValueError, UnicodeDecodeError, EOFError, OSError, RecursionError) as exc:
        raise fail("__header__", f"unreadable header: {type(exc).__name__}: {exc}") from None
    if not isinstance(header, dict):
        raise fail("__header__", "the header is not a JSON object")

    fmt = header.get("format")
    if fmt == _LEGACY_FORMAT:
        if not trust_legacy:
            raise fail("format", "model format 1 (lssvm_cvx 0.1.0) carries no checksum, so an "
                       "edited file cannot be told from a genuine one: if you trust this file, "
                       "load it with trust_legacy=True and save it again (format "
                       f"{FORMAT_VERSION})")
        version = 1
        allowed = {"format", "class", "params", "fitted"}
    elif fmt == FORMAT:
        raw_version = header.get("format_version")
        if isinstance(raw_version, bool) or not isinstance(raw_version, int) or raw_version < 2:
            raise fail("format_version", f"invalid format version {raw_version!r}")
        version = raw_version
        if version > FORMAT_VERSION:
            raise fail("format_version",
                       f"written by lssvm_cvx {header.get('package_version', '?')} in model format "
                       f"{version}; lssvm_cvx {package_version()} reads formats 1 to {FORMAT_VERSION}: "
                       "upgrade lssvm_cvx to load it")
        allowed = {"format", "format_version", "package_version", "class", "params", "fitted",
                   "arrays", "nonfinite", "digest"} | ({"hmac"} if version >= 3 else set())
    else:
        raise fail("format", f"unsupported format {fmt!r}: not an lssvm_cvx model file")
    missing = sorted(allowed - set(header) - {"hmac"})
    if missing:
        raise fail(missing[0], "missing from the header")
    extra = sorted(set(header) - allowed)
    if extra:
        raise fail(extra[0], f"unexpected header entry in model format {version}")
    written_by = header.get("package_version", "0.1.0")
    if version >= 2:
        try:
            same = header_digest(header) == header["digest"]
        except (TypeError, ValueError):
            same = False
        if not same:
            raise fail("digest", "the header does not match its SHA-256 (edited or corrupt); "
                       "the model is refused")
    if secret is not None:
        import hmac

        mac = header.get("hmac")
        if not isinstance(mac, str):
            raise fail("hmac", "the file carries no signature: it was not saved with a key "
                       "(or the signature was removed); refused under key=")
        if not hmac.compare_digest(mac, header_hmac(header, secret)):
            raise fail("hmac", "the signature does not match under this key: the file was "
                       "forged, edited, or saved with another key")

    # --- the class: registered estimators only -------------------------------------------------
    key = header["class"]
    if not isinstance(key, str):
        raise fail("class", f"must be a string, got {key!r}")
    lookup = key
    if version == 1:  # "module:QualName" of a package estimator
        module, _, qualname = key.partition(":")
        lookup = qualname if is_ours(module) else key
    cls = estimator_class(lookup)
    if cls is None:
        raise fail("class", f"refusing {key!r}: not a registered estimator in lssvm_cvx {package_version()} "
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
            keys = {"field", "dtype", "shape", "sha256", "finite"}
            if not (isinstance(entry, dict) and keys <= set(entry)):
                raise fail(k, "incomplete manifest entry")
            field = entry["field"] if isinstance(entry["field"], str) else k
            try:
                dt = np.dtype(entry["dtype"])
                shape = tuple(int(s) for s in entry["shape"])
            except (TypeError, ValueError):
                raise fail(field, f"invalid dtype/shape in the manifest: {entry['dtype']!r}, "
                                  f"{entry['shape']!r}") from None
            if dt.kind not in ARRAY_KINDS + "U" or any(s < 0 for s in shape):
                raise fail(field, f"array of dtype {dt} and shape {shape} is not allowed")
            limit = dt.itemsize * math.prod(shape) + 65536
        else:
            field, dt, shape, limit = k, None, None, size
        try:
            a = read_member(zf, info, limit)
        except zipfile.BadZipFile as exc:
            raise fail(field, f"corrupt array data ({exc})") from None
        except (ValueError, EOFError, OSError) as exc:
            raise fail(field, f"unreadable array: {exc}") from None
        if a.dtype.kind not in ARRAY_KINDS + "U":
            raise fail(field, f"array of dtype {a.dtype} is not allowed")
        if version >= 2:
            if a.dtype != dt or a.shape != shape:
                raise fail(field, f"array has dtype {a.dtype} and shape {a.shape}; the model "
                           f"recorded {dt} and {shape} (truncated or tampered)")
            if array_digest(a) != entry["sha256"]:
                raise fail(field, "array content does not match its recorded SHA-256 (tampered or corrupt)")
            if entry["finite"] is True and a.dtype.kind == "f" and not np.all(np.isfinite(a)):
                raise fail(field, "contains NaN or inf")
        arrays[k] = a

    reader = Reader(p, arrays, legacy=version == 1)
    nonfinite = header.get("nonfinite", [])
    if not (isinstance(nonfinite, list) and all(isinstance(f, str) for f in nonfinite)):
        raise fail("nonfinite", "must be a list of field names")

    # --- parameters through the constructor ----------------------------------------------------
    reader.records = False
    params = reader(header["params"], "params")
    est = reader.construct(cls, params, "params")
    reader.records = True
    from ..estimators.base import check_kernel_param

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_kernel_param(est)
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
    nf = fitted.get("n_features_in_", 1)
    if isinstance(nf, bool) or not isinstance(nf, (int, np.integer)) or nf < 1:
        raise fail("fitted.n_features_in_", f"must be a positive integer, got {nf!r}")
    _check_axes(fitted, fail)
    kernel, width = fitted.get("kernel_"), fitted.get("sigma2_")
    if width is not None and kernel is not None and hasattr(kernel, "sigma2") \
            and not np.isclose(kernel.sigma2, width):
        raise fail("fitted.kernel_", f"kernel width {kernel.sigma2!r} differs from sigma2_ = {width!r}")
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
    where only the fields in :data:`REQUIRED_FINITE` are checked) and never in those fields,
    which must also be numbers or numeric arrays (or None)."""
    numeric = (int, float, np.integer, np.floating)
    if required and v is not None and (isinstance(v, (bool, np.bool_)) or not (
            isinstance(v, numeric) or (isinstance(v, np.ndarray) and v.dtype.kind in "iuf"))):
        raise fail(field, f"must be a number or a numeric array, got {type(v).__name__}")

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
                    raise fail(f"fitted.{name}",
                               f"must have at least {axis + 1} dimensions, got shape {v.shape}")
                size = v.shape[axis]
            for other, osize in seen:
                if osize != size:
                    raise fail(f"fitted.{name}", f"{what} is {size} here but {osize} in {other} "
                               "(truncated or tampered)")
            seen.append((name, size))


#: the prediction methods the load probe calls, when the class has them
PROBED = ("decision_function", "predict", "predict_proba", "predict_log_proba", "transform")


def _probe(est: Any, fail: Callable[[str, str], SavedFileError]) -> None:
    """Call every prediction method on two rows: a model whose fitted attributes do not fit
    together (or do not belong to this class) fails here."""
    n = getattr(est, "n_features_in_", None)
    if not isinstance(n, (int, np.integer)):
        return
    if n <= 0:
        raise fail("fitted.n_features_in_", f"must be positive, got {n}")
    X = np.zeros((2, int(n)))
    for name in PROBED:
        method = getattr(type(est), name, None)
        if method is None:
            continue
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                out = np.asarray(getattr(est, name)(X))
        except LssvmCvxError as exc:
            if "not supported" in str(exc) or "NotSupported" in type(exc).__name__:
                continue  # e.g. predict_proba of a model without a probability output
            raise fail("fitted", "the fitted attributes do not fit together: "
                       f"{name} fails with {type(exc).__name__}: {exc}") from None
        except Exception as exc:
            raise fail("fitted", "the fitted attributes do not fit together (or belong to "
                       f"another estimator): {name} fails with {type(exc).__name__}: "
                       f"{exc}") from None
        if out.shape[:1] != (2,):
            raise fail("fitted", f"{name} of 2 rows returned shape {out.shape}")
        if out.dtype.kind in "fc" and not np.all(np.isfinite(out)):
            raise fail("fitted", f"{name} returns NaN or inf")
