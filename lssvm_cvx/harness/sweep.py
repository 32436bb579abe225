"""``lssvm-cvx sweep``: problems × solvers × profiles × repeats through :func:`compare`.

A *problem* is a formulation (a registered name, a :class:`Formulation` subclass, ``module:Class``
or any factory ``f(n, seed=..., **params)``) at a size ``n``, a point of the family's
conditioning axes (``params``: e.g. the kernel width ``sigma2`` or ``gamma``, passed to the
formulations whose ``random_instance`` takes them) and a repeat ``r`` (the random instance
with ``seed = r``).  Each cell (problem × profile) runs every solver on the same instance, each
in a reusable worker bounded by ``time_limit``.

Writes into ``out`` (tidy: one row per problem × solver × profile × repeat):

* ``sweep.csv`` — the long format of :data:`~lssvm_cvx.harness.report.COLUMNS` plus
  ``params`` and ``run`` (which run of the manifest measured the row); appended cell by cell, so
  an interrupted sweep keeps what finished;
* ``sweep.json`` — the manifest (every run merged into the folder: command, date, commit,
  machine, versions of Python, NumPy, SciPy, cvxpy and every solver, the options of each
  solver at each profile, time limit, sizes, seeds, params) and the rows; ``sweep.parquet`` the
  rows (with the manifest in its metadata) where pyarrow is installed;
* ``summary.md`` — :func:`~lssvm_cvx.harness.sweep_report.summarize` (qpbenchmark's report
  and more);
* ``performance_profile.png``/``.svg`` (time) and ``accuracy_profile.png``/``.svg``;
* ``warm.csv`` when a warm-start path was asked for (:mod:`lssvm_cvx.harness.warm`).

``resume=True`` keeps the rows there and runs what is missing per (problem, solver, profile,
repeat) — adding one solver runs only that solver (with the cell's reference backend again, so
it is judged against the same point; the other rows stay as they were); ``rerun`` also reruns
the rows that ``"failed"`` (any verdict other than yes/n/a), hit ``"timeouts"`` or were
``"interrupted"``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import inspect
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..checks import check_integer, check_option
from .sweep_files import (
    MANIFEST_FORMAT,
    SWEEP_COLUMNS,
    read_manifest,
    read_rows,
    write_outputs,
    write_rows,
)
from .sweep_report import (
    performance_profile,
    reference_rows,
    row_key,
    shifted_geometric_mean,
    summarize,
)

__all__ = ["sweep", "SweepResult", "ProblemSpec", "problem_specs", "import_object", "run_cell",
           "summarize",
           "performance_profile", "reference_rows", "shifted_geometric_mean", "SWEEP_COLUMNS",
           "RERUN"]

#: what ``rerun`` may name
RERUN: tuple[str, ...] = ("failed", "timeouts", "interrupted")


@dataclass
class SweepResult:
    """Where the sweep wrote, how long it took, its rows and its manifest."""

    out: Path
    rows: list[dict[str, Any]]
    paths: list[Path] = field(default_factory=list)
    summary_path: Path | None = None
    wall: float = 0.0
    interrupted: bool = False
    manifest: dict[str, Any] = field(default_factory=dict)
    warm: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ProblemSpec:
    """A family of instances: ``factory(n, seed=r, **params)`` returns a Formulation;
    ``accepts`` the params it takes (the conditioning axes that apply to it)."""

    label: str
    factory: Callable[..., Any]
    accepts: tuple[str, ...] = ()
    has_closed_form: bool | None = None


def _accepts(factory: Callable[..., Any]) -> tuple[str, ...]:
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in sig.parameters.values()
                 if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                 and p.name not in ("n", "seed", "cls", "self"))


def import_object(text: str) -> Any:
    """``"module:Name"`` or ``"path/to/file.py:Name"`` (dotted names allowed after the colon)
    imported; the current folder is searched first, as ``python -m`` does.  An
    :class:`~lssvm_cvx.exceptions.InputError` names what could not be imported."""
    import importlib
    import importlib.util

    from ..exceptions import InputError

    mod, _, qual = text.rpartition(":")
    try:
        if mod.endswith(".py"):
            spec = importlib.util.spec_from_file_location(Path(mod).stem, mod)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {mod}")
            obj: Any = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = obj
            spec.loader.exec_module(obj)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            obj = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError, OSError, SyntaxError) as exc:
        raise InputError(f"formulation {text!r}: cannot import it ({type(exc).__name__}: "
                         f"{exc})") from None
    return obj


def problem_specs(formulations: Sequence[Any] | None) -> list[ProblemSpec]:
    """The problems named by ``formulations``: registered names, ``"module:Class"`` strings,
    :class:`~lssvm_cvx.formulations.base.Formulation` subclasses (their ``random_instance``)
    or factories ``f(n, seed=..., **params) -> Formulation``; None: every registered one."""
    from ..exceptions import InputError
    from ..formulations import FORMULATIONS
    from ..formulations.base import Formulation

    known = sorted(n for n in FORMULATIONS if not n.startswith("_"))
    if formulations is None or (isinstance(formulations, Sequence) and not formulations
                                and not isinstance(formulations, str)):
        formulations = known
    if isinstance(formulations, (str, bytes)) or not isinstance(formulations, Sequence):
        raise InputError(f"formulations must be a list (names, classes or factories), got "
                         f"{formulations!r}")
    specs = []
    for item in formulations:
        if isinstance(item, str) and ":" in item:
            item = import_object(item)
        if isinstance(item, str):
            if item not in FORMULATIONS:
                raise InputError(f"unknown formulation(s) [{item!r}]; known: {', '.join(known)}")
            cls = FORMULATIONS[item]
            specs.append(ProblemSpec(item, cls.random_instance, _accepts(cls.random_instance),
                                     bool(cls.has_closed_form)))
        elif isinstance(item, type) and issubclass(item, Formulation):
            own = item.__dict__.get("name")  # an inherited name would mislabel a subclass
            label = own if isinstance(own, str) and own else f"{item.__module__}:{item.__qualname__}"
            specs.append(ProblemSpec(label, item.random_instance, _accepts(item.random_instance),
                                     bool(item.has_closed_form)))
        elif callable(item):
            label = getattr(item, "__name__", None) or repr(item)
            specs.append(ProblemSpec(label, item, _accepts(item)))
        else:
            raise InputError(f"formulations: {item!r} is not a name, a Formulation subclass or a "
                             "factory")
    labels = [s.label for s in specs]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise InputError(f"formulations named twice: {dup}")
    return specs


def _params_grid(spec: ProblemSpec, params: Mapping[str, Sequence[Any]] | None) -> list[dict]:
    axes = {k: list(v) for k, v in (params or {}).items() if k in spec.accepts}
    if not axes:
        return [{}]
    return [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())]


def _params_text(p: Mapping[str, Any]) -> str:
    return json.dumps(dict(p), sort_keys=True) if p else ""


def run_cell(spec: ProblemSpec | bytes, n: int, repeat: int, solvers: Sequence[str],
             setting: str, time_limit: float, params: Mapping[str, Any] | None = None,
             options: Mapping[str, Mapping[str, Any]] | None = None,
             run: int = 0) -> list[dict[str, Any]]:
    """One cell (problem at one profile): the long-format rows of :func:`compare`, with
    ``params`` and ``run``.  ``spec`` may be a cloudpickled :class:`ProblemSpec` (what a
    sweep's worker processes receive)."""
    from .compare import compare

    if isinstance(spec, bytes):
        import pickle

        (spec,) = pickle.loads(spec)
    assert isinstance(spec, ProblemSpec)
    p = dict(params or {})
    extra = {"params": _params_text(p), "run": run}
    try:
        f = spec.factory(n, seed=repeat, **p)
        rep = compare(f, list(solvers), setting=setting, time_limit=time_limit, options=options)
    except KeyboardInterrupt:  # compare's Interrupted too: a partial cell is never a row
        raise
    except Exception as exc:  # an instance that cannot be built is a row, not a crash
        return [{"formulation": spec.label, "n": n, "solver": "instance", "repeat": repeat,
                 "profile": setting, "status": "error", "agrees": False, "verdict": "NO",
                 "failure": "compile", "reason": "random instance failed",
                 "error": f"{type(exc).__name__}: {exc}", "time_limit": time_limit, **extra}]
    rep.repeat = repeat
    rows = rep.records()
    for r in rows:
        r["n"] = n  # the requested size (some formulations report none)
        r["formulation"] = spec.label
        r.update(extra)
    return rows


def _wants_rerun(r: dict[str, Any], rerun: str | None) -> bool:
    if rerun is None:
        return False
    v = str(r.get("verdict") or "")
    if rerun == "failed":
        return v not in ("yes", "n/a", "")
    if rerun == "timeouts":
        return r.get("failure") == "time_limit" or r.get("status") == "time_limit"
    return r.get("status") == "interrupted" or r.get("failure") == "interrupted"


def _run_record(k: int, solvers: list[str], profiles: list[str], sizes: Sequence[int],
                repeats: int, params: Mapping[str, Sequence[Any]] | None, time_limit: float,
                options: Mapping[str, Mapping[str, Any]] | None,
                specs: list[ProblemSpec]) -> dict[str, Any]:
    from ..solvers import profile
    from .files import current_commit, machine_summary, package_versions

    opts = {s: {p: {**profile(s, p).options, **dict((options or {}).get(s) or {})}
                for p in profiles} for s in solvers}
    return {"run": k, "command": "", "date": _dt.datetime.now(_dt.timezone.utc).strftime(
                "%Y-%m-%d %H:%M UTC"), "commit": current_commit(), "machine": machine_summary(),
            "versions": package_versions(solvers), "solvers": solvers, "profiles": profiles,
            "sizes": list(sizes), "repeats": repeats, "seeds": list(range(repeats)),
            "params": {k: list(v) for k, v in (params or {}).items()},
            "time_limit": time_limit, "options": json.loads(json.dumps(opts, default=str)),
            "formulations": [s.label for s in specs]}


def _check_args(sizes: Any, repeats: Any, profiles: Sequence[str], params: Any, options: Any,
                rerun: Any, time_limit: Any, warm_start: Any) -> None:
    from ..exceptions import InputError
    from ..solvers import PROFILE_NAMES
    from .compare import check_time_limit

    if (isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not sizes
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 4 for v in sizes)):
        raise InputError(f"sizes must be a non-empty list of integers >= 4, got {sizes!r}")
    check_integer(repeats, "repeats", error=InputError)
    bad = [p for p in profiles if not isinstance(p, str) or p not in PROFILE_NAMES]
    if bad or not profiles:
        raise InputError(f"profiles must name some of {', '.join(PROFILE_NAMES)}, got "
                         f"{list(profiles)!r}")
    if params is not None and (not isinstance(params, Mapping) or not all(
            isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and len(v) > 0
            for v in params.values())):
        raise InputError(f"params must map a parameter name to a non-empty list of values, e.g. "
                         f"{{'sigma2': [0.1, 1.0]}}; got {params!r}")
    if options is not None and (not isinstance(options, Mapping) or not all(
            isinstance(v, Mapping) for v in options.values())):
        raise InputError(f"options must map a solver to a mapping of its options, got {options!r}")
    check_option(rerun, (*RERUN, None), "rerun", error=InputError)
    check_time_limit(time_limit)
    if time_limit is None:
        raise InputError("time_limit must be a positive number of seconds for a sweep")
    if warm_start is not None and (not isinstance(warm_start, Mapping) or len(warm_start) != 1
                                   or len(next(iter(warm_start.values()))) < 2):
        raise InputError(f"warm_start must map one parameter to a path of at least 2 values, "
                         f"e.g. {{'gamma': [1, 10, 100]}}; got {warm_start!r}")


def sweep(formulations: Sequence[Any] | None = None, solvers: Sequence[str] | None = None, *,
          sizes: Sequence[int] = (50, 200), repeats: int = 3, time_limit: float = 60.0,
          setting: str = "high", profiles: Sequence[str] | None = None,
          params: Mapping[str, Sequence[Any]] | None = None,
          options: Mapping[str, Mapping[str, Any]] | None = None, jobs: int = 1,
          scheduler: str | None = None, out: str | os.PathLike = "benchmarks/results/sweep",
          resume: bool = False, rerun: str | None = None,
          warm_start: Mapping[str, Sequence[float]] | None = None,
          progress: bool = True, command: str | None = None) -> SweepResult:
    """Run the sweep and write its files (module docstring).

    Parameters
    ----------
    formulations : sequence or None
        Registered names, ``"module:Class"``, Formulation subclasses or factories
        ``f(n, seed=..., **params)``; None runs every registered formulation.
    solvers : sequence of str or None
        cvxpy solver names; None: every installed solver the harness knows.
    sizes, repeats :
        Problem sizes, and repeats (seeds ``0 .. repeats - 1``).
    time_limit : float
        Seconds per backend run (a run still going is killed).
    setting, profiles :
        The tolerance profile(s); ``profiles`` (e.g. ``["high", "default", "low"]``) overrides
        ``setting``.
    params : mapping of str to sequence, optional
        Conditioning axes, e.g. ``{"sigma2": [0.1, 1, 10]}``: every combination, for each
        formulation whose instance factory takes those parameters.
    options : mapping of str to mapping, optional
        Solver options over the profile's, e.g. ``{"OSQP": {"eps_abs": 1e-7}}``.
    jobs, scheduler :
        Cells in parallel processes, or on a Dask cluster.
    out : path
        The folder written.
    resume, rerun :
        Keep the rows in ``out`` and run the missing ones; ``rerun`` (``"failed"``,
        ``"timeouts"``, ``"interrupted"``, implies ``resume``) also reruns those.
    warm_start : mapping of one str to a sequence, optional
        A parameter path, e.g. ``{"gamma": [1, 10, 100]}``: per problem and solver, the DPP
        re-solves along it are measured (``warm.csv``, a summary section).
    progress : bool
        A line on stderr per finished cell.
    command : str, optional
        What the manifest records as this run's command (the CLI passes its command line);
        default: this call, spelled out.

    Returns
    -------
    SweepResult
        Rows, files, manifest.  Ctrl-C stops at once: the cells that finished are written (a
        cell cut short writes no row), the summary says how many were not run, and
        :class:`~lssvm_cvx.exceptions.Interrupted` is raised with the result as ``partial``.
    """
    from ..exceptions import InputError
    from ..solvers import DEFAULT_SOLVERS, EXTRA_SOLVERS, available_solvers, check_solver

    t_start = time.perf_counter()
    profs = list(profiles) if profiles is not None else [setting]
    _check_args(sizes, repeats, profs, params, options, rerun, time_limit, warm_start)
    specs = problem_specs(formulations)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"out must be a directory; {out} is a file")
    if solvers:
        solvers = [check_solver(s) for s in solvers]
    else:
        inst = set(available_solvers())
        solvers = [s for s in (*DEFAULT_SOLVERS, *EXTRA_SOLVERS) if s in inst]
    options = {str(k).upper(): v for k, v in (options or {}).items()}
    resume = resume or rerun is not None
    out.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out / "sweep.csv", out / "sweep.json"
    rows = read_rows(csv_path) if resume else []
    manifest: dict[str, Any] = (read_manifest(json_path) if resume
                                else {"format": MANIFEST_FORMAT, "runs": []})
    runs: list[dict[str, Any]] = manifest["runs"]
    run_k = len(runs)
    runs.append(_run_record(run_k, solvers, profs, sizes, repeats, params,
                            time_limit, options, specs))
    runs[-1]["command"] = command or (
        f"sweep({[s.label for s in specs]}, {solvers}, sizes={list(sizes)}, repeats={repeats}, "
        f"profiles={profs}, time_limit={time_limit:g}" + (f", params={dict(params)}" if params
                                                          else "")
        + (", resume=True" if resume else "") + (f", rerun={rerun!r}" if rerun else "") + ")")
    have: dict[tuple, dict[str, dict[str, Any]]] = {}
    for r in rows:
        have.setdefault(row_key(r), {})[str(r["solver"])] = r
    cells = []  # (spec, n, params, repeat, profile, solvers to run, solvers whose rows to keep)
    for spec in specs:
        for n in sizes:
            for p in _params_grid(spec, params):
                for k in range(repeats):
                    for prof in profs:
                        key = (spec.label, n, _params_text(p), k, prof)
                        old = have.get(key, {})
                        need = [s for s in solvers if s not in old or _wants_rerun(old[s], rerun)]
                        if "instance" in old:  # the instance failed: the whole cell again
                            need = list(solvers)
                        if need or not old:
                            cells.append((spec, n, p, k, prof, need))
    if resume:  # rows that will be replaced go now
        replaced = {((s.label, n, _params_text(p), k, prof), x) for s, n, p, k, prof, need in cells
                    for x in need}
        cellkeys = {(s.label, n, _params_text(p), k, prof) for s, n, p, k, prof, _ in cells}
        rows = [r for r in rows if (row_key(r), str(r["solver"])) not in replaced
                and not (row_key(r) in cellkeys and r["solver"] == "instance")]
    blobs = {s.label: _spec_blob(s) for s in specs} if (jobs > 1 or scheduler) else {}
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        csv.DictWriter(fh, fieldnames=list(SWEEP_COLUMNS)).writeheader()
        write_rows(fh, rows)
        interrupted = False
        done = 0

        def report(cell: tuple, cell_rows: list[dict[str, Any]]) -> None:
            nonlocal done
            done += 1
            spec, n, p, k, prof, need = cell
            key = (spec.label, n, _params_text(p), k, prof)
            kept = have.get(key, {})
            # a partial rerun: the rows asked for, and the closed form's if there was none
            new = [r for r in cell_rows if r["solver"] in need or r["solver"] == "instance"
                   or r["solver"] not in kept]
            rows.extend(new)
            write_rows(fh, new)
            if progress:
                ok = sum(1 for r in new if r.get("verdict") == "yes")
                bad = [f"{r['solver']}:{r.get('failure') or r['status']}" for r in new
                       if r.get("verdict") == "NO"]
                el = time.perf_counter() - t_start
                print(f"[{done}/{len(cells)} {el:.0f} s] {spec.label} n={n}"
                      + (f" {_params_text(p)}" if p else "") + f" repeat={k} {prof}: "
                      f"{ok}/{len(new)} agree" + (f"; NO: {', '.join(bad)}" if bad else ""),
                      file=sys.stderr, flush=True)

        def solvers_for(cell: tuple) -> list[str]:
            spec, n, p, k, prof, need = cell
            kept = have.get((spec.label, n, _params_text(p), k, prof), {})
            ref = next((str(r.get("reference")) for r in kept.values() if r.get("reference")), "")
            extra = [ref] if ref in solvers and ref not in need else []
            return list(need) + extra if kept else list(solvers)

        def args(cell: tuple) -> tuple:
            spec, n, p, k, prof, _ = cell
            return (blobs.get(spec.label, spec), n, k, solvers_for(cell), prof, time_limit, p,
                    options, run_k)

        try:
            _run_cells(cells, args, report, jobs, scheduler)
        except KeyboardInterrupt:
            interrupted = True
    warm_rows = _warm(specs, sizes, params, repeats, profs, solvers, warm_start, time_limit,
                      run_k) if warm_start and not interrupted else []
    runs[-1]["rows"] = sum(1 for r in rows if str(r.get("run")) == str(run_k))
    runs[-1]["interrupted"] = interrupted
    res = SweepResult(out, rows, wall=time.perf_counter() - t_start, interrupted=interrupted,
                      manifest=manifest, warm=warm_rows)
    write_outputs(res, solvers, sizes, repeats, time_limit, len(cells) - done, warm_rows)
    if interrupted:
        from ..exceptions import Interrupted

        raise Interrupted(f"sweep interrupted: {done} of {len(cells)} cells finished and "
                          f"written to {out}; rerun with resume=True (--resume) for the rest",
                          partial=res)
    return res


def _spec_blob(spec: ProblemSpec) -> bytes:
    from .worker import dumps

    return dumps(spec)


def _run_cells(cells: list, args: Callable[[tuple], tuple], report: Callable, jobs: int,
               scheduler: str | None) -> None:
    if scheduler:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_as_completed

        with Client(scheduler, set_as_default=False) as client:
            futs = {client.submit(run_cell, *args(c), pure=False): c for c in cells}
            for fut in dask_as_completed(futs):
                report(futs[fut], fut.result())
    elif jobs > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        from .worker import ensure_forkserver, worker_context

        # forkserver, not fork: a forked copy of a caller that has solved in-process inherits
        # held solver-thread locks (see lssvm_cvx.harness.worker); launched ignoring SIGINT so
        # that Ctrl-C reaches only this process
        ensure_forkserver()
        with ProcessPoolExecutor(jobs, mp_context=worker_context()) as ex:
            futs = {ex.submit(run_cell, *args(c)): c for c in cells}
            try:
                for fut in as_completed(futs):
                    report(futs[fut], fut.result())
            except KeyboardInterrupt:
                # stop now: queued cells cancelled, running ones killed (their workers ignore
                # SIGINT), no partial cell written
                ex.shutdown(wait=False, cancel_futures=True)
                for proc in list(getattr(ex, "_processes", {}).values()):
                    proc.kill()
                raise
    else:
        for c in cells:
            report(c, run_cell(*args(c)))


def _warm(specs: list[ProblemSpec], sizes: Sequence[int], params: Any, repeats: int,
          profs: list[str], solvers: list[str], warm_start: Mapping[str, Sequence[float]],
          time_limit: float, run_k: int) -> list[dict[str, Any]]:
    from .warm import warm_path

    (param, values), = warm_start.items()
    out = []
    for spec in specs:
        for n, p, k, prof in itertools.product(sizes, _params_grid(spec, params), range(repeats),
                                               profs):
            try:
                f = spec.factory(n, seed=k, **p)
            except Exception:  # reported in sweep.csv already (the instance row)
                continue
            if param not in f.parameter_values():
                continue
            for s in solvers:
                for step in warm_path(f, s, param, values, setting=prof, time_limit=time_limit):
                    out.append({"formulation": spec.label, "n": n, "params": _params_text(p),
                                "repeat": k, "profile": prof, "solver": s, "run": run_k, **step})
    return out


