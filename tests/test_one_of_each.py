"""Issue 30, item 4 ("one of each"): helpers the package once had in several copies now exist
once, and every caller uses that one.  The counts are over the installed sources, so a new copy
fails here."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "lssvm_cvx", ROOT / "benchmarks", ROOT / "problems"]


def _definitions() -> dict[str, list[str]]:
    """Function name -> the files that define a function of that name (any nesting)."""
    out: dict[str, list[str]] = {}
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    return out


@pytest.mark.parametrize("names", [("atomic_write", "_atomic_write"),
                                   ("machine_info", "machine_summary", "_machine")])
def test_one_definition(names):
    defs = _definitions()
    where = sorted({f for n in names for f in defs.get(n, [])})
    assert where == ["lssvm_cvx/harness/files.py"], where


def test_the_public_aliases_are_the_one_function():
    from lssvm_cvx import bench, io
    from lssvm_cvx.harness import files

    assert io.atomic_write is files.atomic_write
    assert bench.atomic_write is files.atomic_write
    assert bench.machine_info is files.machine_info


def test_atomic_write_syncs_keeps_the_suffix_and_the_usual_mode(tmp_path, monkeypatch):
    from lssvm_cvx.exceptions import SavedFileError
    from lssvm_cvx.harness.files import atomic_write

    synced, seen = [], []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    target = tmp_path / "sub" / "fig.png"
    atomic_write(target, lambda tmp: (seen.append(tmp), Path(tmp).write_bytes(b"x")))
    assert target.read_bytes() == b"x"
    assert seen[0].endswith(".png") and Path(seen[0]).parent == target.parent
    assert len(synced) >= 1                                  # the file (and its folder)
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in target.parent.iterdir()] == ["fig.png"]   # no temporary left

    def fail(tmp):
        Path(tmp).write_text("partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, fail)
    assert target.read_bytes() == b"x" and len(list(target.parent.iterdir())) == 1
    with pytest.raises(SavedFileError, match="directory"):
        atomic_write(tmp_path, lambda tmp: None)
