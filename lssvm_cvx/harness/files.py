"""File and provenance helpers shared by the sweep (here) and ``lssvm-cvx bench`` (above):
atomic writes with ordinary permissions, the source commit, a one-line machine summary."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["atomic_write", "current_commit", "machine_info", "machine_summary",
           "package_versions"]


def atomic_write(path: str | os.PathLike, write: Callable[[str], Any]) -> None:
    """Call ``write(tmp_path)`` on a new file in ``path``'s folder, flush it to disk, then
    rename it to ``path`` in one step (readers see the old file or the new one, never a part).

    The package's one atomic write (results, sweep files, exports, saved models, the
    catalogue).  The temporary file keeps ``path``'s suffix (writers such as matplotlib choose
    the format by it) and gets mode ``0o666`` minus the umask, so the result is as readable as
    any file the user creates (``tempfile.mkstemp`` would leave it ``0o600``); the folder is
    synced after the rename so the rename itself survives a power cut (best effort).

    Raises
    ------
    SavedFileError
        When ``path`` is a directory.
    """
    import secrets

    from ..exceptions import SavedFileError

    path = Path(path)
    if path.is_dir():
        raise SavedFileError("is a directory; give a file name", path=path, field="path")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}{path.suffix or '.tmp'}"
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        write(str(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp.exists():
            tmp.unlink()
        raise
    try:  # make the rename durable (not every platform opens directories)
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(dfd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(dfd)


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


def machine_info() -> dict[str, Any]:
    """Where a result was measured: OS, CPU, cores, BLAS, package versions (the package's one
    machine description; :func:`machine_summary` is its one-line form)."""
    import importlib

    info: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        from threadpoolctl import threadpool_info

        info["blas"] = [{k: d.get(k) for k in ("internal_api", "version", "num_threads")}
                        for d in threadpool_info()]
    except Exception:  # pragma: no cover
        pass
    versions = {}
    for mod in ("numpy", "scipy", "cvxpy", "clarabel", "osqp", "ecos", "scs", "sklearn", "pandas"):
        try:
            versions[mod] = importlib.import_module(mod).__version__
        except Exception:
            versions[mod] = None
    info["versions"] = versions
    return info


def machine_summary(info: dict[str, Any] | None = None, *, detail: bool = False) -> str:
    """CPU, cores and Python in one line, for result headers (from :func:`machine_info`);
    ``detail``: the platform and the BLAS libraries (threads) too."""
    info = machine_info() if info is None else info
    line = (f"{info.get('cpu', info.get('machine'))}, {info.get('cpu_count')} cores (shared), "
            f"Python {info.get('python')}")
    if detail:
        blas = ", ".join(f"{b.get('internal_api')} {b.get('version')} ({b.get('num_threads')} "
                         "threads)" for b in info.get("blas", []))
        line += f"; {info.get('platform')}; BLAS: {blas or 'unknown'}"
    return line


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
