"""Saved models that cannot exhaust memory or skip their checks (issue 27): one test per attack
of the issue, each a SavedFileError naming the file; the size attacks also bound the loader's
peak memory (tracemalloc) far below what the file declares.  More variants, per estimator and
per array, are in the battery (tests/battery/attacks.py)."""

from __future__ import annotations

import json
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "battery"))
from attacks import KEY, field_key, members_of, npy_bytes, read_archive, reseal  # noqa: E402

import lssvm_cvx  # noqa: E402
from lssvm_cvx import AutoLSSVMRegressor, LSSVMClassifier, LSSVMRegressor, RegularizedLSSVMRegressor, io  # noqa: E402
from lssvm_cvx.exceptions import SavedFileError  # noqa: E402

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 3))
y = np.sinc(X[:, 0])
MODELS = {"lssvm": lambda: LSSVMRegressor().fit(X, y),
          "regularized": lambda: RegularizedLSSVMRegressor().fit(X, y),
          "auto": lambda: AutoLSSVMRegressor().fit(X, y)}
PEAK = 200 << 20  # bytes


def _peak(fn):
    tracemalloc.start()
    try:
        fn()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def _refused(path, field=None, **kw):
    with pytest.raises(SavedFileError) as info:
        lssvm_cvx.load(path, **kw)
    assert str(path) in str(info.value)
    if field is not None:
        assert info.value.field == field, str(info.value)
    return info.value


def _bomb(path: Path, header: dict, arrays: dict, victim: str, mbytes: int, legacy: bool):
    """A member declaring ``mbytes`` MB of float zeros, deflated to about a thousandth."""
    if legacy:
        header = {"format": "lssvm_cvx-model/1", "class": header["class"],
                  "params": header["params"], "fitted": header["fitted"]}
    m = members_of(header, arrays)
    count = (mbytes << 20) // 8
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in m.items():
            if name != f"{victim}.npy":
                zf.writestr(name, data)
        info = zipfile.ZipInfo(f"{victim}.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as fh:
            fh.write(npy_bytes(np.zeros(0), shape=(count,))[:128])
            chunk = bytes(1 << 20)
            for _ in range(mbytes):
                fh.write(chunk)
    return path


@pytest.mark.parametrize("legacy", [False, True])
def test_zip_bomb_is_refused_unread(tmp_path, legacy):
    p = tmp_path / "m.npz"
    MODELS["lssvm"]().save(p)
    header, arrays = read_archive(p)
    victim = field_key(header, "fitted.dual_coef_")
    bomb = _bomb(tmp_path / "bomb.npz", header, arrays, victim, 200, legacy)
    assert bomb.stat().st_size < 2 << 20  # a small file ...
    peak = _peak(lambda: _refused(bomb, trust_legacy=legacy))
    assert peak < PEAK, peak  # ... that does not reach its 200 MB


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_npy_header_claiming_10_12_elements_is_refused_before_allocating(tmp_path, name):
    p = tmp_path / "m.npz"
    MODELS[name]().save(p)
    header, arrays = read_archive(p)
    k = sorted(arrays, key=lambda a: arrays[a].size)[-1]
    m = members_of(header, arrays)
    m[f"{k}.npy"] = npy_bytes(arrays[k], shape=(10 ** 12,))
    with zipfile.ZipFile(tmp_path / "huge.npz", "w") as zf:
        for n, data in m.items():
            zf.writestr(n, data)
    peak = _peak(lambda: _refused(tmp_path / "huge.npz", field=header["arrays"][k]["field"]))
    assert peak < PEAK, peak


def test_a_file_relabelled_as_format_1_skips_no_check(tmp_path):
    p = tmp_path / "m.npz"
    m = MODELS["lssvm"]()
    m.save(p)
    header, arrays = read_archive(p)
    k = field_key(header, "fitted.dual_coef_")
    arrays[k] = -arrays[k]
    legacy = {"format": "lssvm_cvx-model/1", "class": header["class"],
              "params": header["params"], "fitted": header["fitted"]}
    with zipfile.ZipFile(tmp_path / "v1.npz", "w") as zf:
        for n, data in members_of(legacy, arrays).items():
            zf.writestr(n, data)
    err = _refused(tmp_path / "v1.npz", field="format")
    assert "trust_legacy" in str(err)


def test_a_regressor_relabelled_as_a_classifier_is_refused(tmp_path):
    p = tmp_path / "m.npz"
    MODELS["lssvm"]().save(p)
    header, arrays = read_archive(p)
    header["class"] = "LSSVMClassifier"
    reseal(header, arrays)
    with zipfile.ZipFile(tmp_path / "c.npz", "w") as zf:
        for n, data in members_of(header, arrays).items():
            zf.writestr(n, data)
    err = _refused(tmp_path / "c.npz", field="fitted")
    assert "decision_function" in str(err) or "predict" in str(err)


@pytest.mark.parametrize("edit", ["intercept", "coef_x10", "kernel", "labels"])
def test_forgery_loads_without_a_key_and_is_refused_under_the_key(tmp_path, edit):
    """A checksum cannot authenticate: a forger who recomputes the digests writes another
    valid model (documented).  A signed file forged the same way is refused under key=."""
    p = tmp_path / "m.npz"
    model = (LSSVMClassifier().fit(X, y > 0.5) if edit == "labels" else MODELS["lssvm"]())
    model.save(p, key=KEY)
    same = lssvm_cvx.load(p, key=KEY)  # the genuine signed file loads under its key
    np.testing.assert_array_equal(same.predict(X), model.predict(X))
    header, arrays = read_archive(p)
    fitted = header["fitted"]["__dict__"] if "__dict__" in header["fitted"] else header["fitted"]
    if edit == "intercept":
        fitted["intercept_"] = float(fitted["intercept_"]) + 1.0
    elif edit == "coef_x10":
        k = field_key(header, "fitted.dual_coef_")
        arrays[k] = 10 * arrays[k]
    elif edit == "kernel":
        header["params"]["__dict__"]["sigma2"] = 3.0 if "__dict__" in header["params"] else None
    else:
        k = field_key(header, "fitted.classes_")
        arrays[k] = arrays[k][::-1].copy()
    reseal(header, arrays)  # digests recomputed, the signature dropped
    with zipfile.ZipFile(tmp_path / "f.npz", "w") as zf:
        for n, data in members_of(header, arrays).items():
            zf.writestr(n, data)
    _refused(tmp_path / "f.npz", field="hmac", key=KEY)
    _refused(tmp_path / "f.npz", field="hmac", key="a guess")
    try:
        forged = lssvm_cvx.load(tmp_path / "f.npz")  # no key: a different, valid model
    except SavedFileError:
        return  # caught by a structural check anyway (e.g. the kernel width vs sigma2_)
    assert not np.array_equal(forged.predict(X), model.predict(X)) or edit == "kernel"


def test_a_key_must_be_bytes_or_text(tmp_path):
    from lssvm_cvx.exceptions import InputError

    m = MODELS["lssvm"]()
    for bad in (b"", "", 42):
        with pytest.raises(InputError, match="key"):
            m.save(tmp_path / "k.npz", key=bad)


def test_the_writer_never_compresses_and_the_header_says_what_it_covers(tmp_path):
    p = tmp_path / "m.npz"
    MODELS["regularized"]().save(p, key="secret")
    with zipfile.ZipFile(p) as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}
    header, _ = read_archive(p)
    assert header["format_version"] == io.FORMAT_VERSION and "hmac" in header
    assert json.dumps(header)  # plain JSON
