"""File and provenance helpers shared by the sweep (here) and ``lssvm-cvx bench`` (above):
atomic writes with ordinary permissions, the source commit, a one-line machine summary."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["atomic_write", "current_commit", "machine_summary", "package_versions"]


def atomic_write(path: str | os.PathLike, write: Callable[[str], Any]) -> None:
    """Call ``write(tmp_path)`` then atomically rename the temporary file to ``path``; the
    file gets the usual permissions (``0666 & ~umask``, i.e. 0644), not mkstemp's 0600."""
    import tempfile

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def current_commit() -> str | None:
    """The git commit of the source tree (``<commit>+dirty.<hash of the sources>`` when the
    package sources differ from it), or ``None`` outside a git checkout."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        # the results a run writes (benchmarks/results) are not sources: a run that writes
        # several results files must not mark its own later files dirty
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                "lssvm_cvx", "benchmarks", "problems",
                                ":(exclude)benchmarks/results"], capture_output=True,
                               text=True, timeout=10).stdout.strip()
    except Exception:
        return None
    if not dirty:
        return head
    import hashlib

    h = hashlib.sha256()  # uncommitted changes: key on the sources themselves
    for sub in ("lssvm_cvx", "benchmarks", "problems"):
        for f in sorted((root / sub).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return f"{head}+dirty.{h.hexdigest()[:12]}"


def machine_summary() -> str:
    """CPU, cores and Python, for result headers."""
    cpu = platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores (shared), Python {sys.version.split()[0]}"


def package_versions(solvers: Any = ()) -> dict[str, str]:
    """Versions of Python, the numerical stack, cvxpy, this package and each named solver's
    package (``"not installed"`` where missing), for result provenance."""
    from importlib.metadata import PackageNotFoundError, version

    from ..solvers import SOLVERS

    out = {"python": sys.version.split()[0]}
    names = ["numpy", "scipy", "cvxpy", "lssvm_cvx", "scikit-learn", "pandas"]
    names += [SOLVERS[s].package for s in solvers if s in SOLVERS]
    for n in dict.fromkeys(names):
        try:
            out[n] = version(n)
        except PackageNotFoundError:
            out[n] = "not installed"
    return out
