"""Saved models and benchmark results: round trips, the loader's registry, and one test per
tampering case of issue 15 (each must raise SavedFileError naming the file and the field)."""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import numpy as np
import pytest

import lssvm_cvx
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor, io
from lssvm_cvx.exceptions import (
    InputError,
    LssvmCvxError,
    NotFittedError,
    SavedFileError,
)

DATA = Path(__file__).parent / "data"
RESULTS = Path(__file__).parents[1] / "benchmarks" / "results"

rng = np.random.default_rng(3)
X = rng.normal(size=(15, 3))
Y = np.sinc(X[:, 0]) + 0.05 * X[:, 1]
LABELS = np.where(X[:, 1] > 0, "b", "a")


# ------------------------------------------------------------------------------ helpers
def read_archive(path):
    """(header dict, {array name: array}) of a model file."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(bytes(data["__header__"]).decode())
        arrays = {k: data[k] for k in data.files if k != "__header__"}
    return header, arrays


def write_archive(path, header, arrays, *, digest=True):
    """Write a model file; ``digest=True`` recomputes the header's SHA-256 as a careful forger
    would (so the deeper checks are exercised), ``False`` leaves it as it was."""
    if digest and "digest" in header:
        header = {**header, "digest": io.header_digest(header)}
    blob = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    with open(path, "wb") as fh:
        np.savez(fh, __header__=blob, **arrays)


def key_of(header, field):
    """The archive key of the array saved for ``field`` (e.g. ``"fitted.dual_coef_"``)."""
    return next(k for k, e in header["arrays"].items() if e["field"] == field)


def reseal(header, arrays, key):
    """Rewrite the manifest entry of ``key`` so it matches the (tampered) array: a careful
    forger who also fixes shapes and digests."""
    a = arrays[key]
    finite = bool(np.all(np.isfinite(a))) if a.dtype.kind in "fc" else True
    header["arrays"][key].update(dtype=a.dtype.str, shape=list(a.shape), sha256=io.array_digest(a),
                                 finite=finite)


def expect(path, field, match=None, **load):
    """``load(path)`` raises SavedFileError whose message names the file and ``field``."""
    with pytest.raises(SavedFileError) as info:
        lssvm_cvx.load(path, **load)
    msg = str(info.value)
    assert str(path) in msg and info.value.field == field, msg
    assert f": {field}:" in msg, msg
    if match:
        assert match in msg, msg
    return msg


@pytest.fixture
def saved(tmp_path):
    """A fitted regressor saved to ``m.npz``: (path, model, header, arrays)."""
    m = LSSVMRegressor(sigma2=2.0, gamma=10.0).fit(X, Y)
    path = tmp_path / "m.npz"
    m.save(path)
    header, arrays = read_archive(path)
    return path, m, header, arrays


# ------------------------------------------------------------------------------ round trips
def test_round_trip_records_version_and_manifest(saved):
    path, m, header, arrays = saved
    assert header["format"] == io.FORMAT and header["format_version"] == io.FORMAT_VERSION
    assert header["package_version"] == lssvm_cvx.__version__
    assert header["class"] == "LSSVMRegressor"
    assert {e["field"] for e in header["arrays"].values()} >= {"fitted.dual_coef_", "fitted.X_fit_"}
    back = lssvm_cvx.load(path)
    assert type(back) is LSSVMRegressor and back.get_params() == m.get_params()
    np.testing.assert_array_equal(back.predict(X), m.predict(X))


def test_string_labels_and_multiclass_round_trip(tmp_path):
    y3 = np.array(["a", "b", "c"])[np.arange(15) % 3]
    for y in (LABELS, y3):
        m = LSSVMClassifier().fit(X, y)
        m.save(tmp_path / "c.npz")
        back = lssvm_cvx.load(tmp_path / "c.npz")
        np.testing.assert_array_equal(back.predict(X), m.predict(X))
        np.testing.assert_array_equal(back.classes_, m.classes_)


def test_composed_estimator_with_terms_and_loss_round_trips(tmp_path):
    """Terms and losses are rebuilt through their constructors (before issue 15 the default
    RegularizedLSSVMRegressor could not be saved at all: RKHSNorm in ``terms_``)."""
    from lssvm_cvx import RegularizedLSSVMRegressor, losses, terms

    for est in (RegularizedLSSVMRegressor(),
                RegularizedLSSVMRegressor(terms={"rkhs": (terms.RKHSNorm(), 0.1),
                                                 "l1": (terms.L1(), 0.01)},
                                          loss=losses.Huber(M=0.5))):
        est.fit(X, Y)
        est.save(tmp_path / "r.npz")
        back = lssvm_cvx.load(tmp_path / "r.npz")
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
        assert repr(back.get_params()) == repr(est.get_params())


def test_format_1_files_of_release_0_1_0_still_load():
    """Files written by the io of lssvm_cvx 0.1.0 before the manifest (format
    ``lssvm_cvx-model/1``, committed in tests/data) load and predict what they predicted.

    The expected values were recorded on another machine: the prediction is a BLAS dot
    product whose last bits depend on the kernel OpenBLAS picks for the CPU, so they are
    compared to 1e-12 relative (classes exactly), not bit for bit."""
    expected = json.loads((DATA / "format1_expected.json").read_text())
    for name in ("lssvm_regressor", "lssvm_classifier"):
        with pytest.raises(SavedFileError, match="trust_legacy=True"):
            lssvm_cvx.load(DATA / f"format1_{name}.npz")  # no checksum: refused by default
        m = lssvm_cvx.load(DATA / f"format1_{name}.npz", trust_legacy=True)
        probe = np.array(expected[name]["probe"])
        pred = m.predict(probe)
        if name == "lssvm_classifier":
            assert pred.tolist() == expected[name]["predict"]
        else:
            np.testing.assert_allclose(pred, expected[name]["predict"], rtol=1e-12, atol=1e-14)
        if "decision_function" in expected[name]:
            np.testing.assert_allclose(m.decision_function(probe),
                                       expected[name]["decision_function"], rtol=1e-12, atol=1e-14)


def test_parameters_added_later_take_defaults_and_removed_ones_are_named(saved, tmp_path):
    path, m, header, arrays = saved
    del header["params"]["__dict__"]["random_state"]  # as if written before the parameter existed
    write_archive(tmp_path / "old.npz", header, arrays)
    assert lssvm_cvx.load(tmp_path / "old.npz").random_state is None
    header["params"]["__dict__"]["shrinkage"] = 0.5  # a parameter this release does not have
    write_archive(tmp_path / "gone.npz", header, arrays)
    expect(tmp_path / "gone.npz", "params.shrinkage", "not a parameter of LSSVMRegressor")


# ------------------------------------------------------------------------------ saving
def test_save_is_atomic_and_readable_by_others(saved, monkeypatch):
    path, m, header, arrays = saved
    old = os.umask(0o022)
    os.umask(old)
    if old & 0o044 == 0:
        assert stat.S_IMODE(path.stat().st_mode) & 0o044 == 0o044  # group and others can read
    before = path.read_bytes()

    def broken_savez(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(SavedFileError, match="No space left"):
        m.save(path)
    assert path.read_bytes() == before  # the old file is intact
    assert sorted(p.name for p in path.parent.iterdir()) == ["m.npz"]  # no temporary left


def test_save_refuses_unfitted_unregistered_and_directories(tmp_path):
    with pytest.raises(NotFittedError):
        LSSVMRegressor().save(tmp_path / "u.npz")

    class Mine(LSSVMRegressor):  # a subclass outside lssvm_cvx is not registered implicitly
        pass

    est = Mine().fit(X, Y)
    with pytest.raises(InputError, match="register_estimator"):
        est.save(tmp_path / "mine.npz")
    with pytest.raises(SavedFileError, match="directory"):
        LSSVMRegressor().fit(X, Y).save(tmp_path)
    with pytest.raises(InputError, match="path"):
        io.save(LSSVMRegressor().fit(X, Y), 42)


def test_user_estimators_load_after_explicit_registration(tmp_path):
    from sklearn.base import BaseEstimator, RegressorMixin

    class MeanModel(RegressorMixin, BaseEstimator):
        def __init__(self, shift=0.0):
            self.shift = shift

        def fit(self, X, y):
            self.n_features_in_ = np.asarray(X).shape[1]
            self.mean_ = float(np.mean(y)) + self.shift
            return self

        def predict(self, X):
            return np.full(len(X), self.mean_)

    m = MeanModel(shift=1.0).fit(X, Y)
    with pytest.raises(InputError, match="register_estimator"):
        io.save(m, tmp_path / "mean.npz")
    name = "tests.MeanModel"
    try:
        io.register_estimator(MeanModel, name=name)
        assert name in io.registered()["estimators"]
        io.save(m, tmp_path / "mean.npz")
        back = lssvm_cvx.load(tmp_path / "mean.npz")
        assert isinstance(back, MeanModel) and back.mean_ == m.mean_ and back.shift == 1.0
    finally:
        io.ESTIMATORS.pop(name, None)
    expect(tmp_path / "mean.npz", "class", "not a registered estimator")  # unregistered again


def test_the_package_estimators_are_registered():
    import importlib

    for name, module in lssvm_cvx._LAZY.items():
        if module.startswith("lssvm_cvx.estimators."):
            importlib.import_module(module)
            assert io.ESTIMATORS[name] is getattr(lssvm_cvx, name)
    assert not any(k.startswith("_") for k in io.registered()["estimators"])
    assert "RKHSNorm" in io.registered()["components"] and "Huber" in io.registered()["components"]


# ------------------------------------------------------------------------------ the cases
@pytest.mark.parametrize("target", ["lssvm_cvx.io:load", "lssvm_cvx:io", "lssvm_cvx.io:np",
                                    "os:system", "builtins:eval", "load", "save", "io",
                                    "LSSVMRegressor.__init__", "lssvm_cvx.estimators.base:SaveMixin",
                                    "_LSSVMBase", "lssvm_cvx.estimators.lssvm:_LSSVMBase"])
def test_header_naming_a_non_estimator_is_refused(saved, tmp_path, target):
    """Issue 15: a header naming ``lssvm_cvx.io:load`` reached ``load(cv=10, ...)``; now
    only registered estimator classes are ever built."""
    path, m, header, arrays = saved
    header["class"] = target
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "class", "refusing")


def test_legacy_header_naming_a_function_is_refused(tmp_path):
    header, arrays = read_archive(DATA / "format1_lssvm_regressor.npz")
    for target in ("lssvm_cvx.io:load", "lssvm_cvx.io:np", "subprocess:Popen"):
        header["class"] = target
        write_archive(tmp_path / "t.npz", header, arrays)
        expect(tmp_path / "t.npz", "format", "trust_legacy")  # no checksum: refused anyway
        expect(tmp_path / "t.npz", "class", "refusing", trust_legacy=True)


@pytest.mark.parametrize("keep", [0, 10, 100, 0.5, 0.9, -1])
def test_truncated_file(saved, tmp_path, keep):
    """Issue 15: a truncated file raised raw ``zipfile.BadZipFile``."""
    path = saved[0]
    data = path.read_bytes()
    n = int(len(data) * keep) if isinstance(keep, float) else (len(data) - 1 if keep == -1 else keep)
    (tmp_path / "t.npz").write_bytes(data[:n])
    expect(tmp_path / "t.npz", "file")


def test_empty_file(tmp_path):
    """Issue 15: an empty file raised raw ``EOFError``."""
    (tmp_path / "e.npz").write_bytes(b"")
    expect(tmp_path / "e.npz", "file", "empty")


def test_missing_unreadable_and_non_archive_files(tmp_path):
    expect(tmp_path / "nope.npz", "file", "no such file")
    expect(tmp_path, "file", "directory")
    (tmp_path / "text.npz").write_text("not a zip")
    expect(tmp_path / "text.npz", "file")
    np.save(tmp_path / "plain.npy", np.zeros(3))
    expect(tmp_path / "plain.npy", "file")
    np.savez(tmp_path / "other.npz", a=np.zeros(2))
    expect(tmp_path / "other.npz", "__header__", "not an lssvm_cvx model file")
    if os.geteuid() != 0:  # root reads anything
        p = tmp_path / "locked.npz"
        p.write_bytes(b"PK")
        p.chmod(0)
        expect(p, "file")
    with pytest.raises(InputError, match="path"):
        lssvm_cvx.load(None)


def test_shortened_coefficient_array(saved, tmp_path):
    """Issue 15: a shortened coefficient array loaded and failed later inside ``predict``."""
    path, m, header, arrays = saved
    k = key_of(header, "fitted.dual_coef_")
    arrays[k] = arrays[k][:-3]
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted.dual_coef_", "shape")
    reseal(header, arrays, k)  # a forger who also fixes the manifest
    write_archive(tmp_path / "t2.npz", header, arrays)
    expect(tmp_path / "t2.npz", "fitted.dual_coef_", "number of basis points")


def test_shortened_coefficients_in_a_legacy_file(tmp_path):
    header, arrays = read_archive(DATA / "format1_lssvm_regressor.npz")
    k = header["fitted"]["__dict__"]["dual_coef_"]["__ndarray__"]
    arrays[k] = arrays[k][:-2]
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted.dual_coef_", "number of basis points", trust_legacy=True)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_coefficients(saved, tmp_path, bad):
    """Issue 15: NaN coefficients loaded and failed in ``predict`` with "Input contains NaN"."""
    path, m, header, arrays = saved
    k = key_of(header, "fitted.dual_coef_")
    arrays[k] = arrays[k].copy()
    arrays[k][2] = bad
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted.dual_coef_", "SHA-256")
    reseal(header, arrays, k)  # digest fixed; finite flag now False
    header["nonfinite"].append("fitted.dual_coef_")
    write_archive(tmp_path / "t2.npz", header, arrays)
    expect(tmp_path / "t2.npz", "fitted.dual_coef_", "NaN or inf")


def test_non_finite_scalar_in_header(saved, tmp_path):
    path, m, header, arrays = saved
    header["fitted"]["__dict__"]["intercept_"] = {"__float__": "nan"}
    header["nonfinite"].append("fitted.intercept_")
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted.intercept_", "NaN or inf")
    header["nonfinite"].remove("fitted.intercept_")
    header["fitted"]["__dict__"]["gamma_"] = {"__float__": "inf"}
    header["fitted"]["__dict__"]["intercept_"] = 0.0
    write_archive(tmp_path / "t2.npz", header, arrays)
    expect(tmp_path / "t2.npz", "fitted.gamma_", "NaN or inf")


def test_future_version(saved, tmp_path):
    path, m, header, arrays = saved
    header["format_version"] = io.FORMAT_VERSION + 1
    header["package_version"] = "9.0.0"
    write_archive(tmp_path / "t.npz", header, arrays)
    msg = expect(tmp_path / "t.npz", "format_version", "upgrade lssvm_cvx")
    assert "9.0.0" in msg and lssvm_cvx.__version__ in msg
    for bad in (0, 1, "2", None, True, 2.0):
        header["format_version"] = bad
        write_archive(tmp_path / "t.npz", header, arrays)
        expect(tmp_path / "t.npz", "format_version")
    header["format_version"] = 2
    header["format"] = "lssvm_cvx-model/7"
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "format", "unsupported format")


def test_class_from_a_later_release(saved, tmp_path):
    path, m, header, arrays = saved
    header["class"] = "QuantumLSSVMRegressor"
    header["package_version"] = "0.4.0"
    write_archive(tmp_path / "t.npz", header, arrays)
    msg = expect(tmp_path / "t.npz", "class", "not a registered estimator")
    assert "0.4.0" in msg


@pytest.mark.parametrize("field,value,match", [
    ("sigma2", -1.0, "> 0"), ("gamma", 0, "> 0"), ("gamma", {"__float__": "nan"}, "finite"),
    ("sigma2", {"__float__": "inf"}, "finite"), ("kernel", "laplacian", "kernel"),
    ("gamma", {"__component__": "RKHSNorm", "params": {"__dict__": {}}}, "gamma"),
    ("gamma", "big", "gamma"), ("gamma", [1.0, "x"], "gamma"), ("cv", True, "cv"),
    ("kernel", {"__kernel__": {"kernel": "os.system", "params": {}}}, "kernel"),
    ("kernel", {"__kernel__": {"kernel": "RBF", "params": {"sigma2": -1}}}, "sigma2"),
    ("gamma", {"__dataclass__": "Selection", "fields": {"__dict__": {}}}, "refusing"),
    ("gamma", {"__ndarray__": "a999"}, "not in the archive"),
    ("gamma", {"__weird__": 1}, "unknown entry"),
])
def test_tampered_parameters(saved, tmp_path, field, value, match):
    path, m, header, arrays = saved
    header["params"]["__dict__"][field] = value
    write_archive(tmp_path / "t.npz", header, arrays)
    msg = expect_prefix(tmp_path / "t.npz", "params")
    assert match in msg, msg


def expect_prefix(path, prefix):
    with pytest.raises(SavedFileError) as info:
        lssvm_cvx.load(path)
    assert str(path) in str(info.value) and info.value.field.startswith(prefix), str(info.value)
    return str(info.value)


@pytest.mark.parametrize("name", ["__class__", "__dict__x_", "predict", "_private_", "score", "9lives_"])
def test_fitted_names_that_would_shadow_the_class_are_refused(saved, tmp_path, name):
    path, m, header, arrays = saved
    header["fitted"]["__dict__"][name] = 1.0
    write_archive(tmp_path / "t.npz", header, arrays)
    expect_prefix(tmp_path / "t.npz", "fitted")


def test_archive_members_must_match_the_manifest(saved, tmp_path):
    path, m, header, arrays = saved
    write_archive(tmp_path / "extra.npz", header, {**arrays, "a99": np.zeros(2)})
    expect(tmp_path / "extra.npz", "a99", "manifest does not list")
    k = key_of(header, "fitted.X_fit_")
    write_archive(tmp_path / "missing.npz", header, {a: v for a, v in arrays.items() if a != k})
    expect(tmp_path / "missing.npz", "fitted.X_fit_", "missing from the archive")
    arrays[k] = arrays[k].astype(np.float32)
    write_archive(tmp_path / "dtype.npz", header, arrays)
    expect(tmp_path / "dtype.npz", "fitted.X_fit_", "dtype")
    arrays[k] = np.zeros((15, 3), dtype=complex)
    reseal(header, arrays, k)
    write_archive(tmp_path / "complex.npz", header, arrays)
    expect(tmp_path / "complex.npz", "fitted.X_fit_", "not allowed")


def test_feature_count_tampering_is_named(saved, tmp_path):
    path, m, header, arrays = saved
    header["fitted"]["__dict__"]["n_features_in_"] = 5
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted.X_fit_", "number of features")


def test_one_class_classifier_is_refused(tmp_path):
    m = LSSVMClassifier().fit(X, LABELS)
    m.save(tmp_path / "c.npz")
    header, arrays = read_archive(tmp_path / "c.npz")
    k = key_of(header, "fitted.classes_")
    arrays[k] = arrays[k][:1]
    reseal(header, arrays, k)
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted.classes_", "two distinct classes")


def test_inconsistent_attributes_are_caught_by_the_prediction_probe(saved, tmp_path):
    """A forger who keeps every recorded shape consistent but breaks what predict needs."""
    path, m, header, arrays = saved
    header["fitted"]["__dict__"]["kernel_"] = "rbf"  # a string where a kernel object belongs
    write_archive(tmp_path / "t.npz", header, arrays)
    expect(tmp_path / "t.npz", "fitted", "do not fit together")


def test_corrupt_bytes_inside_the_archive(saved, tmp_path):
    path, m, header, arrays = saved
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(f"{key_of(header, 'fitted.dual_coef_')}.npy")
    pos = info.header_offset + 30 + len(info.filename) + len(info.extra) + 140  # inside the data
    data[pos] ^= 0xFF
    (tmp_path / "t.npz").write_bytes(bytes(data))
    expect_prefix(tmp_path / "t.npz", "fitted.dual_coef_")


@pytest.mark.parametrize("text", [b"\xff\xfe garbage", b"[1, 2, 3]", b'{"format": 1',
                                  b"[" * 100000 + b"]" * 100000])
def test_unreadable_headers(saved, tmp_path, text):
    path, m, header, arrays = saved
    with open(tmp_path / "t.npz", "wb") as fh:
        np.savez(fh, __header__=np.frombuffer(text, dtype=np.uint8), **arrays)
    expect(tmp_path / "t.npz", "__header__")


def test_header_entries_are_checked(saved, tmp_path):
    path, m, header, arrays = saved
    for drop in ("params", "fitted", "arrays", "class"):
        h = {k: v for k, v in header.items() if k != drop}
        write_archive(tmp_path / "t.npz", h, arrays)
        expect(tmp_path / "t.npz", drop, "missing")
    write_archive(tmp_path / "t.npz", {**header, "exec": "rm -rf /"}, arrays)
    expect(tmp_path / "t.npz", "exec", "unexpected header entry")


def test_every_error_is_one_exception_class(saved, tmp_path):
    assert issubclass(SavedFileError, InputError) and issubclass(SavedFileError, LssvmCvxError)
    assert issubclass(SavedFileError, ValueError)


# ------------------------------------------------------------------------------ results files
def test_committed_results_files_validate():
    # benchmark results documents: the top level and quick/ (sweep folders hold their own
    # manifest, sweep.json; headline.json is the --headline run's summary)
    files = [f for f in sorted(RESULTS.glob("*.json")) + sorted((RESULTS / "quick").glob("*.json"))
             if f.name != "headline.json"]
    assert files
    for f in files:
        assert io.read_results(f)["name"] == f.stem


@pytest.fixture
def result_file(tmp_path):
    src = RESULTS / "lssvm_loo.json"
    payload = json.loads(src.read_text())
    return tmp_path / "lssvm_loo.json", payload


def _write(path, payload):
    path.write_text(json.dumps(payload))
    return path


def _expect_results(path, field, match=None):
    with pytest.raises(SavedFileError) as info:
        io.read_results(path)
    msg = str(info.value)
    assert str(path) in msg and info.value.field == field, msg
    if match:
        assert match in msg, msg


def test_results_tampering(result_file):
    path, payload = result_file
    claim = next(iter(payload["checks"]))
    flipped = json.loads(json.dumps(payload))
    flipped["checks"][claim]["ok"] = not flipped["checks"][claim]["ok"]
    _expect_results(_write(path, flipped), f"checks[{claim!r}].ok", "tampered")
    _expect_results(_write(path, {**payload, "name": "other"}), "name", "holds results of")
    _expect_results(_write(path, {**payload, "figures": {"f": "../../etc/passwd.png"}}),
                    "figures['f']")
    _expect_results(_write(path, {**payload, "elapsed_s": -1}), "elapsed_s")
    _expect_results(_write(path, {**payload, "mode": "turbo"}), "mode")
    _expect_results(_write(path, {k: v for k, v in payload.items() if k != "tables"}), "tables", "missing")
    _expect_results(_write(path, {**payload, "schema": "lssvm_cvx-results/2"}), "schema", "upgrade")
    _expect_results(_write(path, {**payload, "schema": "pandas"}), "schema")
    _expect_results(_write(path, {**payload, "tables": [{"name": 1}]}), "tables[0]")
    path.write_text(json.dumps(payload).replace(f'"value": {payload["checks"][claim]["value"]}',
                                                '"value": NaN', 1))
    _expect_results(path, "file", "NaN")
    assert io.read_results(_write(path, {**payload, "schema": io.RESULTS_SCHEMA}))["name"] == "lssvm_loo"


def test_results_truncated_empty_missing(result_file, tmp_path):
    path, payload = result_file
    text = json.dumps(payload)
    path.write_text(text[: len(text) // 2])
    _expect_results(path, "file", "not valid JSON")
    path.write_text("")
    _expect_results(path, "file", "empty")
    _expect_results(tmp_path / "none.json", "file", "no such file")
    path.write_bytes(b"\xff\xfe\x00")
    _expect_results(path, "file", "UTF-8")
    _expect_results(_write(path, [1, 2]), "file", "one JSON object")


def test_validate_results_is_what_the_writer_can_call(tmp_path):
    """The bench writer's payload (built by bench.write_result) passes the validator."""
    import pandas as pd

    from lssvm_cvx import bench

    result = bench.BenchResult(name="demo", title="Demo", notes="n")
    result.tables.append(bench.Table(name="t", frame=pd.DataFrame({"a": [1.0, 2.0]})))
    result.check("speed ratio", 2.0, 1.5, higher_is_better=True, unit="x")
    ctx = bench.Context(quick=True, progress=False, command="lssvm-cvx bench --only demo")
    paths = bench.write_result(result, tmp_path, ctx, elapsed=0.5)
    p = next(p for p in paths if p.suffix == ".json")
    assert io.read_results(p)["checks"]["speed ratio"]["ok"] is True


def test_random_corruption_never_escapes_as_another_exception(saved, tmp_path):
    """300 random byte flips, insertions and truncations of a saved model: each load raises
    SavedFileError, or (a flip in bytes the format does not use, e.g. a zip timestamp) returns a
    model that predicts exactly what the original did."""
    path, m, header, arrays = saved
    data = path.read_bytes()
    expected = m.predict(X)
    r = np.random.default_rng(0)
    outcomes = {"refused": 0, "identical": 0}
    for i in range(300):
        b = bytearray(data)
        kind = i % 3
        if kind == 0:
            pos = int(r.integers(len(b)))
            b[pos] ^= int(r.integers(1, 256))
        elif kind == 1:
            pos = int(r.integers(len(b)))
            b[pos:pos] = bytes(r.integers(0, 256, size=int(r.integers(1, 8)), dtype=np.uint8))
        else:
            b = b[: int(r.integers(len(b)))]
        p = tmp_path / "fuzz.npz"
        p.write_bytes(bytes(b))
        try:
            back = lssvm_cvx.load(p)
        except SavedFileError as exc:
            assert str(p) in str(exc)
            outcomes["refused"] += 1
            continue
        np.testing.assert_array_equal(back.predict(X), expected)
        outcomes["identical"] += 1
    assert outcomes["refused"] >= 250, outcomes


def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    yield path


def _set(node, path, value):
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


@pytest.mark.parametrize("cls,target", [(LSSVMRegressor, Y), (LSSVMClassifier, LABELS)])
def test_every_header_entry_replaced_by_a_wrong_type(cls, target, tmp_path):
    """Each entry of the header (every leaf and container) replaced in turn by values of other
    types.  Edited naively (digest not recomputed), every file is refused (at ``digest``, or at
    ``format``/``format_version`` when those are edited).  Edited
    by a forger who recomputes the digest, each load raises SavedFileError or returns a model
    that predicts finite values of the right kind — never another exception (a forger can
    always write a different valid model; what must not happen is a crash or a broken one)."""
    m = cls(sigma2=2.0, gamma=10.0).fit(X, target)
    path = tmp_path / "m.npz"
    m.save(path)
    header, arrays = read_archive(path)
    paths = [p for p in _leaves(header) if p and p != ("digest",)]
    refused = 0
    for p in paths:
        for bad in (None, "x", 1e308, {"__float__": "nan"}):
            h = json.loads(json.dumps(header))
            _set(h, p, bad)
            if h == header and json.dumps(h) == json.dumps(header):
                continue  # the substitute equals the original
            write_archive(tmp_path / "naive.npz", h, arrays, digest=False)
            with pytest.raises(SavedFileError) as info:  # at "digest", or earlier at "format"
                lssvm_cvx.load(tmp_path / "naive.npz")
            assert info.value.field in ("digest", "format", "format_version"), str(info.value)
            write_archive(tmp_path / "forged.npz", h, arrays)
            try:
                back = lssvm_cvx.load(tmp_path / "forged.npz")
            except SavedFileError:
                refused += 1
                continue
            out = back.predict(X)
            assert out.shape == (len(X),), p
            if cls is LSSVMRegressor:
                assert np.all(np.isfinite(out)), (p, bad)
            else:
                assert set(out) <= set(m.classes_), (p, bad)
    assert refused > len(paths) * 2


def test_an_edited_header_is_refused_at_its_digest(saved, tmp_path):
    path, m, header, arrays = saved
    header["fitted"]["__dict__"]["intercept_"] += 1.0
    write_archive(tmp_path / "t.npz", header, arrays, digest=False)
    expect(tmp_path / "t.npz", "digest", "SHA-256")


def _configs():
    from lssvm_cvx import terms

    reg, clf = "reg", "clf"
    return [
        ("LSSVMRegressor", {"selection": "loo", "gamma_grid": [1.0, 10.0], "sigma2_grid": [0.5, 2.0]}, reg),
        ("LSSVMRegressor", {"kernel": "linear"}, reg),
        ("LSSVMRegressor", {"kernel": "poly", "degree": 2}, reg),
        ("LSSVMClassifier", {"multi_class": "ovo"}, "3"),
        ("LSSVMClassifier",
         {"selection": "kfold", "cv": 3, "gamma_grid": [1.0, 10.0], "sigma2_grid": [1.0]}, clf),
        ("AdditiveRegularizationRegressor", {"method": "fusion", "random_state": 0}, reg),
        ("AdditiveRegularizationRegressor", {"method": "cv", "cv": 3, "random_state": 0}, reg),
        ("AdditiveRegularizationClassifier", {"random_state": 0}, clf),
        ("ComponentwiseLSSVMRegressor", {"penalty": "l1", "random_state": 0}, reg),
        ("ComponentwiseLSSVMClassifier", {}, clf),
        ("L2SVMClassifier", {"path": True}, clf),
        ("L2SVMClassifier", {"low_rank": "nystroem", "rank": 5, "random_state": 0}, clf),
        ("ParetoKernelRidge", {"method": "gcv"}, reg),
        ("ParetoKernelPCR", {"method": None}, reg),
        ("AutoLSSVMRegressor", {}, reg),
        ("AutoLSSVMRegressor", {"approximation": "nystroem", "n_components": 8}, reg),
        ("AutoLSSVMClassifier", {}, "3"),
        ("RegularizedLSSVMRegressor", {"selection": "loo"}, reg),
        ("RegularizedLSSVMRegressor", {"terms": {"rkhs": (terms.RKHSNorm(), 0.1),
                                                 "graph": (terms.GraphLaplacian(n_neighbors=3), 0.01)}}, reg),
        ("RegularizedLSSVMClassifier", {"loss": "squared_hinge"}, clf),
        ("RegularizedLSSVMClassifier", {}, "3"),
    ]


@pytest.mark.parametrize("name,kw,kind", _configs(), ids=lambda v: v if isinstance(v, str) else None)
def test_fitted_configurations_round_trip(name, kw, kind, tmp_path):
    """No false alarms: models fitted in many configurations (selection records, cv_results_,
    paths, low-rank factors, multiclass) load and predict bit for bit."""
    import warnings

    y = {"reg": Y, "clf": LABELS, "3": np.array(["a", "b", "c"])[np.arange(15) % 3]}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = getattr(lssvm_cvx, name)(**kw).fit(X, y)
    m.save(tmp_path / "m.npz")
    back = lssvm_cvx.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
