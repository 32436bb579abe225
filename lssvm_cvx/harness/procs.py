"""Starting worker processes so that Ctrl-C reaches only the caller — light on imports, so
that the command line can start the forkserver (which preloads cvxpy) *while* it imports the
numerical stack itself.

Children come from a ``forkserver`` (a clean process that has imported cvxpy once), not from
``fork`` of the caller: a caller that has solved in-process holds solver thread pools
(Clarabel's, OpenBLAS') whose locks a forked child would inherit held, and it deadlocks.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
from typing import Any

__all__ = ["worker_context", "ensure_forkserver", "can_have_children", "sigint_ignored",
           "sigint_deferred", "main_hidden"]

_PRELOAD = ["numpy", "scipy.linalg", "cvxpy", "lssvm_cvx.formulations", "lssvm_cvx.harness.worker"]


def worker_context() -> Any:
    """The multiprocessing context of the harness's workers (forkserver, else spawn)."""
    methods = mp.get_all_start_methods()
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return mp.get_context("spawn")


def ensure_forkserver() -> None:
    """Launch the forkserver (if it is not running) ignoring SIGINT and without the caller's
    ``__main__``: it, and every worker it forks (harness backends, a sweep's pool), inherit the
    ignored disposition, so the terminal's Ctrl-C reaches only the caller."""
    if "forkserver" not in mp.get_all_start_methods():
        return
    import multiprocessing.forkserver as fs

    worker_context()  # its preload list
    with main_hidden(), sigint_ignored():
        fs.ensure_running()


def can_have_children() -> bool:
    """Whether this process may start worker processes (not a daemonic one, as the workers of
    a ``multiprocessing.Pool`` or of Dask are)."""
    return not mp.current_process().daemon


@contextlib.contextmanager
def sigint_ignored() -> Any:
    """Start worker processes with SIGINT ignored: the disposition is inherited across ``exec``
    (by the forkserver, which hands it to every worker it forks, or by a spawned worker), so
    the terminal's Ctrl-C — delivered to the whole foreground process group — reaches only the
    caller, which kills its workers.  Only the main thread may change signal handlers;
    elsewhere nothing changes."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def sigint_deferred(seen: list[int]) -> Any:
    """SIGINT recorded in ``seen`` instead of raised while the block runs (main thread only)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def main_hidden() -> Any:
    """Start workers without re-running the caller's ``__main__`` in them (spawn/forkserver
    children import the main script to find pickled objects; ours travel by value, and a
    script without an ``if __name__ == "__main__"`` guard would otherwise run again)."""
    import sys

    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__")
             if main is not None and k in main.__dict__}
    try:
        for k in saved:
            if k == "__spec__":
                main.__dict__[k] = None
            else:
                del main.__dict__[k]
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)  # type: ignore[arg-type]
