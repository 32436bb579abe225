"""Run one backend bounded in time: in a worker process that is killed when it overruns.

A solver that ignores its own time option (or never returns) cannot hang the harness: the
backend runs in a child process, the parent waits at most ``time_limit`` seconds for the
result on a pipe and kills the child otherwise.  Workers are reused: one that returned in time
takes the next run (of any backend), so cvxpy and the solvers are imported once per worker,
not once per run; a killed or crashed worker is replaced.  Children come from a ``forkserver`` (a clean
process that has imported cvxpy once), not from ``fork`` of the caller: a caller that has
solved in-process holds solver thread pools (Clarabel's, OpenBLAS') whose locks a forked
child would inherit held, and it deadlocks.  The formulation travels pickled (cloudpickle,
by value for classes defined outside the package, e.g. in a test or a script).  Everything the
child prints (HiGHS' banner, verbose logs) goes to a file that comes back as the row's ``log``:
nothing reaches the parent's stdout.  Ctrl-C in the parent kills the child and propagates.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from ..solution import Solution
from ..solvers import capture_output
from .procs import (
    can_have_children,
    ensure_forkserver,
    main_hidden,
    sigint_deferred,
    sigint_ignored,
    worker_context,
)

__all__ = ["Outcome", "run_backend", "run_task", "dumps", "worker_context", "can_have_children",
           "ensure_forkserver", "shutdown_workers"]

#: status of a backend stopped by the harness's time limit
TIME_LIMIT = "time_limit"
#: status of a worker that died without a result (segfault, out of memory, killed)
CRASHED = "crashed"
#: status of a backend whose solver cannot take the problem (e.g. a QP solver on a SOCP)
UNSUPPORTED = "unsupported"
#: status of a backend that raised
ERROR = "error"
#: status of a backend not run because the user interrupted
INTERRUPTED = "interrupted"

_LOG_CAP = 20_000


@dataclass
class Outcome:
    """What one backend produced: a solution (or none), its KKT residuals, timings, log."""

    backend: str
    status: str
    solution: Solution | None = None
    kkt: dict[str, float] = field(default_factory=dict)
    kkt_note: str | None = None
    error: str | None = None
    log: str = ""
    wall: float = math.nan
    setup_time: float = math.nan
    solve_time: float = math.nan
    #: the point's certificate (:class:`lssvm_cvx.certificates.Certificate`)
    certificate: Any = None
    #: piece of the objective -> (NumPy twin, cvxpy value) at the point
    twin: dict[str, tuple[float, float | None]] = field(default_factory=dict)
    #: why the twin was not evaluated, if it was not
    twin_note: str | None = None
    #: cvxpy's conversion of the problem for this solver (s), measured
    compile_time: float = math.nan
    #: the solver's own reported solve time (s), where it reports one
    solver_time: float | None = None
    #: wall time of the call into the solver through cvxpy's interface (s)
    solve_call_time: float | None = None
    iterations: int | None = None
    #: where a failed run stopped: ``"build"`` (the formulation's cvxpy problem), ``"compile"``
    #: (cvxpy's conversion for the solver) or ``"solver"``; None for a run that returned
    stage: str | None = None
    #: the solver's own status word, as it reported it
    solver_status: str | None = None
    #: size of the program handed to the solver (``variables``, ``constraints``)
    size: dict[str, int] = field(default_factory=dict)
    #: the options the solver was given
    options: dict[str, Any] = field(default_factory=dict)
    #: a failed run's re-run at the next looser profile: (profile, its outcome)
    retry: tuple[str, Outcome] | None = None
    #: what became of the follow-ups (verbose re-run, looser re-run)
    followup_note: str = ""
    #: a follow-up message comes after this one (worker protocol)
    more: bool = False


def _cap(text: str) -> str:
    return text if len(text) <= _LOG_CAP else "[... log truncated ...]\n" + text[-_LOG_CAP:]


def _problem_class(formulation: Any) -> str:
    prob = formulation.problem
    return "QP" if prob.is_qp() else "SOCP"


def _run(formulation: Any, backend: str, options: dict | None, setting: str,
         time_limit: float | None) -> Outcome:
    """Solve in this process (output captured); never raises for a backend failure."""
    from ..solvers import SOLVERS

    t0 = time.perf_counter()
    build = 0.0
    stage = "build"
    with capture_output() as log:
        try:
            if backend != "closed_form":
                formulation.reset_problem()  # first-compile times, a fresh problem per solver
                tb = time.perf_counter()
                formulation.problem  # noqa: B018 - build now, timed as setup
                build = time.perf_counter() - tb
                spec = SOLVERS.get(backend)
                if spec is not None:
                    cls = _problem_class(formulation)
                    if cls not in spec.cones:
                        return Outcome(backend, UNSUPPORTED, error=(
                            f"{backend} solves {'/'.join(spec.cones)} problems; this problem "
                            f"is a {cls} (it has a second-order cone), not a QP"))
            stage = "solver" if backend == "closed_form" else "compile"
            sol = formulation.solve(backend, options=options, raise_on_failure=False,
                                    setting=setting, time_limit=time_limit)
        except Exception as exc:
            return Outcome(backend, ERROR, error=f"{type(exc).__name__}: {exc}".strip(),
                           log=_cap(traceback.format_exc()), wall=time.perf_counter() - t0,
                           stage=stage)
        kkt, note, cert = {}, None, sol.certificate
        twin: dict[str, tuple[float, float | None]] = {}
        twin_note = None
        if sol.ok and sol.values:
            try:
                k = formulation.kkt(sol)
                kkt, note = k.residuals, k.note
                cert = cert if cert is not None else k.certificate
            except Exception as exc:  # reported with its reason, never raised
                kkt = {"primal": math.nan, "stationarity": math.nan}
                note = f"KKT residuals not evaluated: {type(exc).__name__}: {exc}"
            try:
                twin = formulation.objective_pieces(sol)
            except Exception as exc:  # a twin that raises is reported, never raised
                twin_note = f"{type(exc).__name__}: {exc}"
    wall = time.perf_counter() - t0
    text = (sol.extras.pop("log", "") or "") + log.getvalue()
    ex = sol.extras
    return Outcome(backend, sol.status, sol, kkt, note, ex.get("error"), _cap(text), wall,
                   build + sol.compile_time, sol.solve_time, cert, twin, twin_note,
                   compile_time=sol.compile_time, solver_time=ex.get("solver_time"),
                   solve_call_time=ex.get("solve_call_time"), iterations=ex.get("iterations"),
                   stage=ex.get("stage"), solver_status=ex.get("solver_status"),
                   size=dict(ex.get("size") or {}), options=dict(ex.get("options") or {}))


#: the profile a failed run is re-run at, to tell a profile stricter than the solver reaches
#: (``settings``) from a solver that fails outright
LOOSER = {"high": "default", "default": "low"}


def _wants_followups(out: Outcome, time_limit: float | None) -> bool:
    """A cvxpy solver's run that stopped without a point, inside the solver, well within the
    time limit: worth a verbose re-run (its messages) and a re-run at a looser profile."""
    return (out.backend != "closed_form" and not (out.solution is not None and out.solution.ok
                                                  and out.solution.values)
            and out.stage == "solver" and out.status not in (UNSUPPORTED, TIME_LIMIT)
            and (time_limit is None or out.wall < 0.5 * time_limit))


def _followups(formulation: Any, out: Outcome, options: dict | None, setting: str,
               time_limit: float | None) -> Outcome:
    """``out`` with the solver's messages from a verbose re-run (the timing stays the first
    run's) and, when a looser profile exists, that profile's run as ``retry``."""
    verbose = _run(formulation, out.backend, {**(options or {}), "verbose": True}, setting,
                   time_limit)
    if verbose.log:
        out.log = _cap(out.log + "\n[harness] verbose re-run at the same settings (for the "
                       "solver's messages):\n" + verbose.log)
    looser = LOOSER.get(setting)
    if looser is not None:
        out.retry = (looser, _run(formulation, out.backend, options, looser, time_limit))
        out.retry[1].log = ""  # its point is what matters; the first run's log stays
    return out


def _handle(conn: Any, payload: bytes) -> None:
    """One request in a worker: unpickle, apply the caller's BLAS limit, run, send the
    outcome; then, for a failed run, the follow-ups (:func:`_followups`) as a second message,
    so that the first result is never lost to a follow-up that overruns."""
    import pickle

    try:
        request = pickle.loads(payload)
    except Exception as exc:
        _send(conn, Outcome("?", ERROR, error=f"the worker could not load the formulation: "
                                              f"{type(exc).__name__}: {exc}"))
        return
    if request and request[0] == _TASK:  # run_task: any function, its result or its error
        try:
            conn.send(("ok", request[1](*request[2])))
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    formulation, backend, options, setting, time_limit, blas = request
    limit: Any = contextlib.nullcontext()
    if blas:  # the caller's BLAS thread limit (threadpoolctl) holds here too
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(limits=blas, user_api="blas")
    with limit:
        out = _run(formulation, backend, options, setting, time_limit)
        out.more = _wants_followups(out, time_limit)
        _send(conn, out)
        if out.more:
            _send(conn, _followups(formulation, out, options, setting, time_limit))


def _send(conn: Any, out: Outcome) -> None:
    try:
        conn.send(out)
    except Exception:  # unpicklable extras: drop them
        if out.solution is not None:
            out.solution.extras = {k: v for k, v in out.solution.extras.items()
                                   if isinstance(v, (int, float, str, type(None)))}
        conn.send(out)


def _serve(conn: Any) -> None:
    """A reusable worker: solve requests from ``conn`` one after another until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    try:
        while True:
            try:
                payload = conn.recv_bytes()
            except (EOFError, OSError):
                break
            _handle(conn, payload)
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers / buffered output of the parent's copy


def _blas_threads() -> int | None:
    try:
        from threadpoolctl import threadpool_info

        n = [d["num_threads"] for d in threadpool_info() if d.get("user_api") == "blas"]
        return min(n) if n else None
    except Exception:  # pragma: no cover
        return None


def dumps(*objs: Any) -> bytes:
    """The cloudpickle of ``objs`` (a formulation without its cached cvxpy problem); classes and
    functions from modules outside the package (tests, scripts, ``__main__``) are pickled by
    value, so a worker or a sweep's process pool can rebuild them."""
    import copy
    import sys

    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - older joblib vendored it
        from joblib.externals import cloudpickle

    objs = tuple(objs)
    mods: list[str] = []

    def note(obj: Any) -> None:
        klasses = type(obj).__mro__ if not isinstance(obj, type) else obj.__mro__
        extra = [getattr(obj, "__module__", None)] if callable(obj) else []
        for m in [k.__module__ for k in klasses] + extra:
            if m and m.split(".")[0] not in ("lssvm_cvx", "problems", "benchmarks", "builtins",
                                             "abc", "typing") and m in sys.modules and m not in mods:
                mods.append(m)

    out = []
    for o in objs:
        if callable(getattr(o, "reset_problem", None)) and not isinstance(o, type):
            o = copy.copy(o)
            o.reset_problem()
        note(o)
        out.append(o)
    for m in mods:
        try:
            cloudpickle.register_pickle_by_value(sys.modules[m])
        except Exception:
            pass
    try:
        return cloudpickle.dumps(tuple(out))
    finally:
        for m in mods:
            try:
                cloudpickle.unregister_pickle_by_value(sys.modules[m])
            except Exception:
                pass


def _payload(formulation: Any, *rest: Any) -> bytes:
    return dumps(formulation, *rest)


class _Worker:
    """A reusable worker process and the parent's end of its pipe."""

    def __init__(self) -> None:
        ctx = worker_context()
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        if ctx.get_start_method() == "forkserver":
            ensure_forkserver()
        deferred: list[int] = []
        try:
            # a Ctrl-C while the worker starts is deferred to just after (it would otherwise
            # die half started, with a traceback)
            with main_hidden(), sigint_deferred(deferred), (
                    sigint_ignored() if ctx.get_start_method() != "forkserver"
                    else contextlib.nullcontext()):
                self.proc.start()
        finally:
            child.close()
        if deferred:
            self.kill()
            raise KeyboardInterrupt

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5.0)
        self.conn.close()


#: idle workers, reused by the next backend run of this process (started once, kept warm)
_IDLE: list[_Worker] = []
_IDLE_LOCK = threading.Lock()
#: the most idle workers kept
MAX_IDLE = 4


def _take_worker() -> _Worker:
    with _IDLE_LOCK:
        while _IDLE:
            w = _IDLE.pop()
            if w.proc.is_alive():
                return w
            w.kill()
    return _Worker()


def _give_back(w: _Worker) -> None:
    with _IDLE_LOCK:
        if len(_IDLE) < MAX_IDLE and w.proc.is_alive():
            _IDLE.append(w)
            return
    w.kill()


def shutdown_workers() -> None:
    """Stop the idle workers (they also stop when this process exits)."""
    with _IDLE_LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for w in idle:
        w.kill()


def run_backend(formulation: Any, backend: str, *, options: dict | None = None,
                setting: str = "high", time_limit: float | None = None,
                isolate: bool = True) -> Outcome:
    """Run ``backend`` on ``formulation``; at most ``time_limit`` seconds when ``isolate``.

    With ``isolate=False`` (or ``time_limit=None``) the backend runs in this process, its
    output still captured.  Otherwise in a worker process that is reused by later runs (the
    import of cvxpy and the solvers is paid once per worker, not per run) and killed when the
    run overruns: status ``time_limit`` when the worker was killed, ``crashed`` when it died
    without a result.
    """
    if not isolate or time_limit is None or not can_have_children():
        out = _run(formulation, backend, options, setting, time_limit)
        if _wants_followups(out, time_limit):
            out = _followups(formulation, out, options, setting, time_limit)
        if isolate and time_limit is not None:
            out.log = ("[harness] in-process: this process may not start children (a "
                       "daemonic worker); the time limit goes to the solver, not to a kill\n"
                       ) + out.log
        return out
    try:
        payload = _payload(formulation, backend, options, setting, 0.9 * time_limit,
                           _blas_threads())
    except Exception as exc:  # not picklable: run here, unbounded, and say so
        out = _run(formulation, backend, options, setting, time_limit)
        out.log = (f"[harness] not bounded by the time limit: the formulation cannot be "
                   f"pickled for a worker ({type(exc).__name__}: {exc})\n") + out.log
        return out
    w = _take_worker()
    t0 = time.perf_counter()
    try:
        try:
            w.conn.send_bytes(payload)
        except (BrokenPipeError, OSError):  # the idle worker died meanwhile: a fresh one
            w.kill()
            w = _Worker()
            t0 = time.perf_counter()
            w.conn.send_bytes(payload)
        if not w.conn.poll(time_limit):
            w.kill()
            return Outcome(backend, TIME_LIMIT, error=(
                f"stopped after the time limit of {time_limit:g} s (worker process killed)"),
                wall=time.perf_counter() - t0)
        try:
            out = w.conn.recv()
        except (EOFError, OSError):
            w.proc.join(1.0)
            code = w.proc.exitcode
            w.kill()
            return Outcome(backend, CRASHED, error=(
                f"the worker died without a result (exit code {code})"),
                wall=time.perf_counter() - t0)
        if out.more:  # the follow-ups of a failed run, bounded by their own time limit
            out.more = False
            if w.conn.poll(time_limit):
                try:
                    out = w.conn.recv()
                    out.more = False
                except (EOFError, OSError):
                    w.kill()
                    out.followup_note = "the worker died during the follow-up re-runs"
            else:
                w.kill()
                out.followup_note = (f"the follow-up re-runs (verbose, looser profile) did not "
                                     f"finish within {time_limit:g} s")
    except BaseException:  # Ctrl-C (or anything else) mid-run: the worker is not reused
        w.kill()
        raise
    if w.proc.is_alive():
        _give_back(w)
    return out


_TASK = "lssvm_cvx-task"


def run_task(func: Any, *args: Any, time_limit: float) -> Any:
    """``func(*args)`` in a reusable worker process, killed after ``time_limit`` seconds
    (in this process where children are not allowed).  Raises :class:`TimeoutError` when
    killed, :class:`RuntimeError` naming the error when the call raised or the worker died."""
    if not can_have_children():
        return func(*args)
    payload = dumps(_TASK, func, args)
    w = _take_worker()
    try:
        try:
            w.conn.send_bytes(payload)
        except (BrokenPipeError, OSError):
            w.kill()
            w = _Worker()
            w.conn.send_bytes(payload)
        if not w.conn.poll(time_limit):
            w.kill()
            raise TimeoutError(f"stopped after the time limit of {time_limit:g} s (worker "
                               "process killed)")
        try:
            kind, value = w.conn.recv()
        except (EOFError, OSError):
            w.kill()
            raise RuntimeError("the worker died without a result") from None
    except BaseException:
        w.kill()
        raise
    _give_back(w)
    if kind == "error":
        raise RuntimeError(value)
    return value
