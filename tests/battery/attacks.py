"""Saved-file cases built by an attacker who reads the format (issue 27): for several estimator
types, every way the format lets a file lie — compressed members (zip bombs), ``.npy`` headers
that claim more elements than the member holds, object dtypes, a flipped memory order, members
the manifest does not list or that escape the archive's names, headers edited without or with a
recomputed digest, a file relabelled as format 1 or as another estimator class, forged
coefficients, signatures removed, edited or made with another key.  Each must be a
``SavedFileError`` naming the file (or, for a forgery with recomputed digests and no key, a
documented acceptance: a checksum does not authenticate; the case checks the forgery is the
model the attacker wrote, and the same file under ``key=`` is refused)."""

from __future__ import annotations

import io as _io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import lssvm_cvx
from lssvm_cvx import io

KEY = b"the owner's secret"


def read_archive(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    with np.load(path, allow_pickle=False) as z:
        header = json.loads(z["__header__"].tobytes().decode("utf-8"))
        return header, {k: z[k] for k in z.files if k != "__header__"}


def npy_bytes(a: np.ndarray, *, shape: Any = None, descr: Any = None,
              fortran: bool | None = None) -> bytes:
    """``a`` as ``.npy`` bytes, its header optionally lying about shape / dtype / order."""
    buf = _io.BytesIO()
    d = {"descr": np.lib.format.dtype_to_descr(a.dtype) if descr is None else descr,
         "fortran_order": bool(a.flags.f_contiguous and not a.flags.c_contiguous)
         if fortran is None else fortran,
         "shape": a.shape if shape is None else shape}
    np.lib.format.write_array_header_1_0(buf, d)
    buf.write(np.ascontiguousarray(a).tobytes())
    return buf.getvalue()


def write_members(path: Path, members: dict[str, bytes],
                  compress: set[str] = frozenset()) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED if name in compress
                        else zipfile.ZIP_STORED)
    return path


def members_of(header: dict, arrays: dict[str, np.ndarray]) -> dict[str, bytes]:
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    out = {"__header__.npy": npy_bytes(blob)}
    out.update({f"{k}.npy": npy_bytes(v) for k, v in arrays.items()})
    return out


def reseal(header: dict, arrays: dict[str, np.ndarray], *, key: bytes | None = None) -> dict:
    """A careful forger: manifest entries and the digest recomputed (and the HMAC, when the
    forger has the key)."""
    for k, a in arrays.items():
        if k in header.get("arrays", {}):
            finite = bool(np.all(np.isfinite(a))) if a.dtype.kind in "fc" else True
            header["arrays"][k].update(dtype=a.dtype.str, shape=list(a.shape),
                                       sha256=io.array_digest(a), finite=finite)
    header.pop("hmac", None)
    if key is not None:
        header["hmac"] = io.header_hmac(header, key)
    header["digest"] = io.header_digest(header)
    return header


def field_key(header: dict, field: str) -> str | None:
    for k, e in header["arrays"].items():
        if e["field"] == field:
            return k
    return None


def attack_cases(models: dict[str, Callable[[], Any]], tmp: Callable[[], Path],
                 Case: type) -> list:
    """The cases, for each ``name -> fit()`` in ``models`` (``tmp()`` gives a folder)."""
    from lssvm_cvx.exceptions import SavedFileError

    cases = []
    cache: dict[str, Path] = {}

    def saved(name: str, key: bytes | None = None) -> Path:
        tag = f"{name}-{'signed' if key else 'plain'}"
        if tag not in cache:
            p = tmp() / f"{tag}.npz"
            models[name]().save(p, key=key)
            cache[tag] = p
        return cache[tag]

    def case(cid: str, build: Callable[[Path], Path], *, names: str = r"\.npz",
             key: bytes | None = None, load: dict | None = None) -> None:
        def call() -> Any:
            return lssvm_cvx.load(build(tmp()), key=key, **(load or {}))
        cases.append(Case(f"load::{cid}", call, names, exc=SavedFileError))

    for name in models:
        label = f"attack {name}"

        def arrays_of(name: str = name) -> tuple[dict, dict[str, np.ndarray]]:
            return read_archive(saved(name))

        header0, arrays0 = arrays_of()
        for k, a in arrays0.items():
            field = header0["arrays"][k]["field"]

            def bomb(out: Path, k: str = k) -> Path:
                header, arrays = arrays_of()
                m = members_of(header, arrays)
                big = np.zeros(2_000_000)  # 16 MB of zeros: deflates to about 16 kB
                m[f"{k}.npy"] = npy_bytes(big)
                return write_members(out / "bomb.npz", m, compress={f"{k}.npy"})

            def claims(out: Path, k: str = k) -> Path:
                header, arrays = arrays_of()
                m = members_of(header, arrays)
                m[f"{k}.npy"] = npy_bytes(arrays[k], shape=(10 ** 12,))
                return write_members(out / "claims.npz", m)

            def objects(out: Path, k: str = k) -> Path:
                header, arrays = arrays_of()
                m = members_of(header, arrays)
                m[f"{k}.npy"] = npy_bytes(arrays[k], descr="|O")
                return write_members(out / "objects.npz", m)

            def order(out: Path, k: str = k) -> Path:
                header, arrays = arrays_of()
                a = arrays[k]
                if a.ndim < 2 or min(a.shape) <= 1:  # no order to flip: claim another shape
                    m = members_of(header, arrays)
                    other = (a.size, 1) if a.shape == (1, a.size) else (1, a.size)
                    m[f"{k}.npy"] = npy_bytes(a, shape=other)
                    return write_members(out / "order.npz", m)
                m = members_of(header, arrays)
                m[f"{k}.npy"] = npy_bytes(a, fortran=not a.flags.f_contiguous)
                return write_members(out / "order.npz", m)

            case(f"{label}: compressed member {field} (zip bomb)", bomb)
            case(f"{label}: .npy header of {field} claims 10^12 elements", claims)
            case(f"{label}: .npy header of {field} claims an object dtype", objects)
            case(f"{label}: .npy header of {field} flips its shape or order", order)

        def extra(out: Path) -> Path:
            header, arrays = arrays_of()
            m = members_of(header, arrays)
            m["a999.npy"] = npy_bytes(np.zeros(3))
            return write_members(out / "extra.npz", m)

        def escape(out: Path) -> Path:
            header, arrays = arrays_of()
            m = members_of(header, arrays)
            m["../../evil.npy"] = npy_bytes(np.zeros(3))
            return write_members(out / "escape.npz", m)

        def missing(out: Path) -> Path:
            header, arrays = arrays_of()
            arrays.pop(sorted(arrays)[0])
            return write_members(out / "missing.npz", members_of(header, arrays))

        def edited_param(out: Path) -> Path:
            header, arrays = arrays_of()
            p = header["params"]
            if isinstance(p, dict) and "__dict__" in p:
                p = p["__dict__"]
            key = next(k for k in p if isinstance(p[k], (int, float)) and not isinstance(p[k], bool))
            p[key] = 2 * p[key] + 1
            return write_members(out / "param.npz", members_of(header, arrays))

        def many(out: Path) -> Path:
            header, arrays = arrays_of()
            m = members_of(header, arrays)
            for i in range(io.MAX_MEMBERS + 1):
                m[f"a{100000 + i}.npy"] = npy_bytes(np.zeros(1))
            return write_members(out / "many.npz", m)

        def huge_header(out: Path) -> Path:
            header, arrays = arrays_of()
            m = members_of(header, arrays)
            m["__header__.npy"] = npy_bytes(np.zeros(1, dtype=np.uint8), shape=(10 ** 12,))
            return write_members(out / "header.npz", m)

        def relabel_v1(out: Path) -> Path:
            header, arrays = arrays_of()
            k = field_key(header, "fitted.dual_coef_") or field_key(header, "fitted.coef_")
            if k is not None:
                arrays[k] = -arrays[k]
            legacy = {"format": "lssvm_cvx-model/1", "class": header["class"],
                      "params": header["params"], "fitted": header["fitted"]}
            return write_members(out / "v1.npz", members_of(legacy, arrays))

        def negated(out: Path) -> Path:
            header, arrays = arrays_of()
            k = field_key(header, "fitted.dual_coef_") or field_key(header, "fitted.coef_")
            arrays[k] = -arrays[k]
            return write_members(out / "neg.npz", members_of(header, arrays))

        def manifest_lies(out: Path) -> Path:
            header, arrays = arrays_of()
            k = sorted(header["arrays"])[0]
            header["arrays"][k]["shape"] = [-1]
            header["digest"] = io.header_digest(header)
            return write_members(out / "manifest.npz", members_of(header, arrays))

        def manifest_object(out: Path) -> Path:
            header, arrays = arrays_of()
            k = sorted(header["arrays"])[0]
            header["arrays"][k]["dtype"] = "|O"
            header["digest"] = io.header_digest(header)
            return write_members(out / "mobject.npz", members_of(header, arrays))

        case(f"{label}: an array the manifest does not list", extra)
        case(f"{label}: a member name outside the archive's names", escape)
        case(f"{label}: an array missing from the archive", missing)
        case(f"{label}: a parameter edited, digest not recomputed", edited_param)
        case(f"{label}: more members than a model file has", many)
        case(f"{label}: a header member claiming 10^12 bytes", huge_header)
        case(f"{label}: relabelled as format 1 with negated coefficients", relabel_v1)
        case(f"{label}: negated coefficients, digests not recomputed", negated)
        case(f"{label}: a manifest shape of -1 (digest recomputed)", manifest_lies)
        case(f"{label}: a manifest dtype of object (digest recomputed)", manifest_object)
        for other in ("LSSVMClassifier", "LSSVMRegressor", "AutoLSSVMClassifier",
                      "RegularizedLSSVMClassifier", "L2SVMClassifier", "ParetoKernelRidge"):
            if other == header0["class"]:
                continue

            def relabel(out: Path, other: str = other) -> Path:
                header, arrays = arrays_of()
                header["class"] = other
                return write_members(out / "class.npz", members_of(reseal(header, arrays),
                                                                   arrays))

            case(f"{label}: relabelled as {other} (digest recomputed)", relabel)

        # forgery: with the key refused, without the key a documented limit
        def forged_signed(out: Path, name: str = name) -> Path:
            header, arrays = read_archive(saved(name, KEY))
            k = field_key(header, "fitted.dual_coef_") or field_key(header, "fitted.coef_")
            arrays[k] = 10 * arrays[k]
            return write_members(out / "forged.npz", members_of(reseal(header, arrays), arrays))

        def unsigned(out: Path, name: str = name) -> Path:
            return saved(name)

        def stripped(out: Path, name: str = name) -> Path:
            header, arrays = read_archive(saved(name, KEY))
            header.pop("hmac")
            header["digest"] = io.header_digest(header)
            return write_members(out / "stripped.npz", members_of(header, arrays))

        def other_key(out: Path, name: str = name) -> Path:
            header, arrays = read_archive(saved(name, KEY))
            return write_members(out / "otherkey.npz",
                                 members_of(reseal(header, arrays, key=b"another secret"), arrays))

        case(f"{label}: forged (coefficients x10, digests recomputed) under key=", forged_signed,
             key=KEY, names="hmac")
        case(f"{label}: a file saved without a key, loaded under key=", unsigned, key=KEY,
             names="hmac")
        case(f"{label}: the signature removed, loaded under key=", stripped, key=KEY,
             names="hmac")
        case(f"{label}: signed with another key", other_key, key=KEY, names="hmac")
    return cases
