"""The archive layer of :mod:`lssvm_cvx.io`: bounded reads of ``.npy`` members, the header
digest and the HMAC signature.  Private: use :mod:`lssvm_cvx.io`."""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from typing import Any

import numpy as np

from ..exceptions import InputError
from .codec import ARRAY_KINDS

__all__ = ["header_digest", "header_hmac", "key_bytes", "read_member"]


def key_bytes(key: Any) -> bytes | None:
    """``key`` as bytes (a str is UTF-8 encoded); None stays None; anything else, or an empty
    key, raises :class:`InputError`."""
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)) or len(key) == 0:
        raise InputError(f"key must be non-empty bytes or str (an HMAC secret), got "
                         f"{type(key).__name__}")
    return bytes(key)


def header_hmac(header: dict[str, Any], key: bytes) -> str:
    """HMAC-SHA256 under ``key`` of the canonical header without ``digest`` and ``hmac``: the
    manifest lists every array's SHA-256, so the arrays are covered too.

    Parameters
    ----------
    header : dict
        The model file's header.
    key : bytes
        The secret.

    Returns
    -------
    str
        The hex digest.
    """
    import hmac

    body = {k: v for k, v in header.items() if k not in ("digest", "hmac")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def header_digest(header: dict[str, Any]) -> str:
    """SHA-256 of the header without its ``digest`` entry (canonical JSON).  It detects
    corruption and edits of a saved header; a forger who recomputes it is caught, where
    possible, by the structural checks that follow."""
    body = {k: v for k, v in header.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> np.ndarray:
    """One ``.npy`` member, read without trusting anything it declares: stored (never
    compressed: the writer does not compress, and a compressed member could expand without
    bound), at most ``limit`` bytes, and its ``.npy`` header's shape and dtype must account for
    exactly the member's bytes *before* anything is allocated for the data."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError("a compressed archive member (lssvm_cvx stores arrays uncompressed; a "
                         "compressed member could expand to any size)")
    if info.file_size > limit:
        raise ValueError(f"{info.file_size} bytes, more than the {limit} this member may have")
    with zf.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unsupported .npy version {version}")
        if dtype.hasobject or dtype.kind not in ARRAY_KINDS + "U":
            raise ValueError(f"array of dtype {dtype} is not allowed")
        count = math.prod(shape)
        nbytes = count * dtype.itemsize
        offset = fh.tell()
        if offset + nbytes != info.file_size:
            raise ValueError(f"the .npy header declares shape {shape} of {dtype} ({nbytes} "
                             f"bytes) but the member holds {info.file_size - offset}")
        out = np.empty(count, dtype=dtype)
        raw: Any = out.view(np.uint8)
        got = fh.readinto(memoryview(raw)) if count else 0  # type: ignore[attr-defined]
        if got != nbytes:
            raise EOFError(f"{got} of {nbytes} bytes of array data")
        return out.reshape(shape, order="F" if fortran else "C")
