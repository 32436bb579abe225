"""The ``lssvm-cvx`` command (also ``python -m lssvm_cvx``).

``lssvm-cvx compare NAME [--n 300] [--solvers A,B] [--profile high] [--time-limit 60] [--json]``
    one formulation through its closed form and cvxpy solvers, each bounded by the time
    limit; prints the harness report (markdown, or exactly one JSON document with ``--json``).
    Exit 0 when every backend agrees, 1 when one does not, 2 on bad arguments, 130 on Ctrl-C
    (the rows that finished are printed).
``lssvm-cvx sweep [--only A,B] [--solvers ...] [--sizes 50,200] [--repeats 3] [--out DIR] ...``
    formulations x solvers x sizes x repeats x profiles (``--profiles``, conditioning axes
    ``--param``, solver options ``--solver-options``, your own ``--formulation mod:Class``,
    ``--warm-start``, ``--resume``/``--rerun``): ``DIR/sweep.csv`` (long format),
    ``sweep.json`` (manifest and rows), ``sweep.parquet``, ``DIR/summary.md`` (qpbenchmark's
    report and more) and ``DIR/performance_profile.png`` (Dolan-Moré; also SVG and accuracy).
``lssvm-cvx export NAME [--n 60] [--format npz|qps|mps] --out FILE``
    an instance as the program a solver sees (qpsolvers' npz, QPS).
``lssvm-cvx formulations [--show NAME|WORD [--latex | --source | --json]] [--json]``
    the registered formulations, one short line each (closed form or not, paper, equations);
    ``--show`` one in full (citation, variables, equations as text), its equations in LaTeX
    (``--latex``), the cvxpy builder, NumPy objective and closed form sources (``--source``)
    or all of it (``--json``); a word that is no name is searched for in the names, classes,
    methods and equations (one match is shown, several listed).
``lssvm-cvx figure NAME [--out NAME.svg|file.png] [--dpi 200] [--font-scale 1] [--n 60] [--seed 0]``
    a slide-ready figure of one formulation on a random instance (:mod:`lssvm_cvx.figures`).
``lssvm-cvx solvers``
    the solvers the harness knows, which are installed, and their tolerance profiles.
``lssvm-cvx bench [--headline | --quick] [--only NAME,...] [--out DIR] [--resume] [--list]``
    reproduce the papers' tables (markdown + JSON + PNG in DIR); ``--headline``: one short
    reproduction per paper and a one-screen summary of the claims met per paper.

Everything heavy (cvxpy, NumPy, the formulations) is imported only by the command that needs
it, so ``--help``, ``--version`` and ``formulations`` answer at once.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any, NoReturn

__all__ = ["main"]

EXIT_DISAGREE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad argument: one line on stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one clear line, never the usage dump
        raise UsageError(f"{message} (see {self.prog} --help)")


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


#: the largest problem size the command accepts (a dense N × N Gram of this size is 8 GB)
MAX_SIZE = 32768


def _problem_size(text: str) -> int:
    v = _positive_int(text)
    if v < 4:
        raise argparse.ArgumentTypeError(f"problem size must be at least 4, got {v}")
    if v > MAX_SIZE:
        raise argparse.ArgumentTypeError(f"problem size must be at most {MAX_SIZE} (a dense Gram "
                                         f"of N = {MAX_SIZE} already takes 8 GB), got {v}")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text}")
    return v


def _non_negative_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {v}")
    return v


def _sizes(text: str) -> list[int]:
    return [_problem_size(t.strip()) for t in text.split(",") if t.strip()]


def _names(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text is not None else None


def _value(text: str) -> Any:
    """An option value as written: int, float, true/false/none, else the text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def solver_options(items: list[str] | None) -> dict[str, dict[str, Any]] | None:
    """``["OSQP:eps_abs=1e-7,max_iter=100", "SCS:eps_abs=1e-6"]`` as
    ``{"OSQP": {"eps_abs": 1e-07, "max_iter": 100}, "SCS": {...}}``; :class:`UsageError`
    naming ``--solver-options`` otherwise."""
    if not items:
        return None
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        solver, sep, rest = item.partition(":")
        if not sep or not solver.strip():
            raise UsageError(f"--solver-options: expected SOLVER:key=value,..., got {item!r}")
        opts = out.setdefault(solver.strip().upper(), {})
        for pair in filter(None, (x.strip() for x in rest.split(","))):
            key, eq, val = pair.partition("=")
            if not eq or not key.strip():
                raise UsageError(f"--solver-options: expected key=value in {item!r}, got {pair!r}")
            opts[key.strip()] = _value(val)
    return out


def _axes(items: list[str] | None, flag: str) -> dict[str, list[Any]] | None:
    """``["sigma2=0.1,1,10"]`` as ``{"sigma2": [0.1, 1.0, 10.0]}``."""
    if not items:
        return None
    out: dict[str, list[Any]] = {}
    for item in items:
        key, eq, vals = item.partition("=")
        values = [_value(v) for v in vals.split(",") if v.strip()]
        if not eq or not key.strip() or not values:
            raise UsageError(f"{flag}: expected NAME=v1,v2,..., got {item!r}")
        out[key.strip()] = values
    return out


def _writable_folder(path: Any, flag: str) -> None:
    """Create ``path`` (a folder) and check it is writable before any work, or raise
    :class:`UsageError` naming ``flag``."""
    import tempfile
    from pathlib import Path

    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{flag}: {p} is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write in {p} ({exc.strerror or exc})") from None


def _formulation_name(name: str, known: list[str]) -> str:
    if name in known:
        return name
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(known)}"
    raise UsageError(f"unknown formulation {name!r}{hint}")


def _solver_names(names: list[str] | None) -> list[str] | None:
    if names is None:
        return None
    if not names:
        raise UsageError("--solvers names no solver")
    from .solvers import check_solver

    out = []
    for n in names:
        try:
            out.append(check_solver(n))
        except Exception as exc:
            raise UsageError(str(exc)) from None
    return out


# --- commands --------------------------------------------------------------------------------
def _cmd_formulations(args: argparse.Namespace) -> int:
    import json

    from .catalogue import catalogue, details, list_line, refresh, search, show_text, vocabulary

    cat = refresh(write_shipped=True)["formulations"] if args.refresh else catalogue()
    if not args.show:
        if args.latex or args.source:
            raise UsageError(f"{'--latex' if args.latex else '--source'} needs --show NAME")
        if args.json:
            print(json.dumps(cat, indent=1, ensure_ascii=False))
            return 0
        print(f"{'name':<31} {'solved by':<12}{'paper':<22} equations")
        for _, e in sorted(cat.items()):
            print(list_line(e))
        return 0
    name = args.show
    if name not in cat:  # a word: search the names, classes, methods and equations
        hits = search(name, cat)
        if not hits:
            close = difflib.get_close_matches(name, vocabulary(cat), n=3)
            hint = f"did you mean {' or '.join(close)}?" if close else "see lssvm-cvx formulations"
            raise UsageError(f"unknown formulation {name!r}: no name, class, method or equation "
                             f"mentions it; {hint}")
        if len(hits) > 1:
            if args.json:
                print(json.dumps({"query": name, "matches": [{"name": n, "where": w}
                                                             for n, w in hits]}, indent=1))
                return 0
            print(f"{len(hits)} formulations mention {name!r} (--show NAME for one):")
            for n, where in hits:
                print(f"  {n:<31} {where}"[:100])
            return 0
        name, where = hits[0]
        print(f"lssvm-cvx: showing {name} ({args.show!r} matches its {where})", file=sys.stderr)
    if args.json:
        print(json.dumps(details(name), indent=1, ensure_ascii=False))
    else:
        print(show_text(details(name) if args.latex or args.source else cat[name],
                        "latex" if args.latex else "source" if args.source else "text"))
    return 0


def _cmd_figure(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from .catalogue import catalogue

    name = _formulation_name(args.name, sorted(catalogue()))
    out = Path(args.out) if args.out else Path(f"{name}.svg")
    if out.suffix.lower() not in (".svg", ".png"):
        raise UsageError(f"--out: the file must end in .svg or .png, got {str(out)!r}")
    if out.is_dir():
        raise UsageError(f"--out: {out} is a folder, not a file")
    folder = out.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"--out: cannot write in {folder} ({exc.strerror or exc})") from None
    from .figures import MAX_DPI, formulation_figure, save_figure

    if args.dpi is not None and args.dpi > MAX_DPI:
        raise UsageError(f"--dpi: at most {MAX_DPI:g}, got {args.dpi:g}")
    fig = formulation_figure(name, n=args.n, seed=args.seed, font_scale=args.font_scale)
    path = save_figure(fig, out, dpi=args.dpi)
    print(f"wrote {path}", file=sys.stderr)
    return 0


def _cmd_solvers(args: argparse.Namespace) -> int:
    from .solvers import PROFILE_NAMES, SOLVERS, available_solvers

    installed = set(available_solvers())
    for name, spec in SOLVERS.items():
        mark = "installed" if name in installed else f"not installed (pip install {spec.package})"
        tols = "  ".join(f"{p}: rel {spec.profiles[p].tol.rel:g}" for p in PROFILE_NAMES)
        print(f"{name:9s} {spec.family:15s} {'/'.join(spec.cones):8s} {mark:28s} {tols}")
    return 0


def _instance(name: str, n: int, seed: int) -> Any:
    """The random instance of a registered formulation or of ``module:Class``."""
    from .catalogue import catalogue
    from .formulations import FORMULATIONS

    if ":" in name:
        from .harness.sweep import problem_specs

        return problem_specs([name])[0].factory(n, seed=seed)
    if name not in FORMULATIONS:
        try:
            known = sorted(catalogue())
        except Exception:  # pragma: no cover - catalogue unavailable: the registry decides
            known = []
        _formulation_name(name, sorted(set(known) | set(FORMULATIONS)))
    return FORMULATIONS[name].random_instance(n, seed=seed)


def _cmd_export(args: argparse.Namespace) -> int:
    from .harness.export import export_problem

    path = export_problem(_instance(args.name, args.n, args.seed), args.out, args.format)
    print(f"wrote {path}", file=sys.stderr)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    import json

    formulation = _instance(args.name, args.n, args.seed)
    solvers = _solver_names(_names(args.solvers))
    from .validate import compare

    report = compare(formulation, solvers=solvers, setting=args.profile,
                     time_limit=args.time_limit, options=solver_options(args.solver_options))
    if args.json:
        sys.stdout.write(json.dumps(report.to_dict(log=args.log), indent=1) + "\n")
    else:
        print(report.to_markdown())
    return 0 if report.all_agree else EXIT_DISAGREE


def _cmd_sweep(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from .catalogue import catalogue

    known = sorted(catalogue())
    only = _names(args.only)
    if only:
        only = [n if ":" in n else _formulation_name(n, known) for n in only]
    if args.formulation:
        only = (only or []) + list(args.formulation)
    solvers = _solver_names(_names(args.solvers))
    profiles = _names(args.profiles) if args.profiles else [args.profile]
    bad = [p for p in profiles or [] if p not in ("high", "default", "low")]
    if bad or not profiles:
        raise UsageError(f"--profiles: choose among high, default, low, got {args.profiles!r}")
    warm = _axes([args.warm_start] if args.warm_start else None, "--warm-start")
    if warm and len(next(iter(warm.values()))) < 2:
        raise UsageError("--warm-start: a path needs at least two values, e.g. gamma=1,10,100")
    out = Path(args.out)
    if (args.resume or args.rerun) and not (out / "sweep.csv").is_file():
        raise UsageError(f"--resume: {out / 'sweep.csv'} does not exist (nothing to resume; "
                         "run without --resume to start)")
    _writable_folder(out, "--out")
    from .harness.sweep import sweep

    res = sweep(formulations=only, solvers=solvers, sizes=args.sizes, repeats=args.repeats,
                time_limit=args.time_limit, profiles=profiles, jobs=args.jobs,
                params=_axes(args.param, "--param"),
                options=solver_options(args.solver_options), scheduler=args.scheduler,
                out=out, resume=args.resume, rerun=args.rerun, warm_start=warm,
                progress=not args.quiet,
                command="lssvm-cvx " + " ".join(shlex.quote(a) for a in args.argv))
    print(res.summary_path.read_text(encoding="utf-8") if res.summary_path else "")
    print(f"wrote {', '.join(str(p) for p in res.paths)} ({res.wall:.0f} s)", file=sys.stderr)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_cli

    return run_cli(args)


def _version() -> str:
    from . import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    doc = (__doc__ or "").split("\n\n")[0]
    parser = _Parser(prog="lssvm-cvx", description=doc)
    parser.add_argument("--version", action="version", version=f"lssvm-cvx {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="{compare,sweep,export,formulations,solvers,bench,figure}")

    p = sub.add_parser("compare", help="solver-comparison harness on one formulation")
    p.add_argument("name", help="formulation name, e.g. lssvm (see `lssvm-cvx formulations`)")
    p.add_argument("--n", type=_problem_size, default=300, help="problem size (default 300)")
    p.add_argument("--solvers", help="comma-separated cvxpy solvers (default CLARABEL,OSQP,ECOS,SCS)")
    p.add_argument("--seed", type=_non_negative_int, default=0)
    p.add_argument("--profile", choices=["high", "default", "low"], default="high",
                   help="solver settings and judging tolerances (default high)")
    p.add_argument("--time-limit", type=_positive_float, default=60.0, metavar="S",
                   help="seconds per backend; a backend still running is killed (default 60)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document")
    p.add_argument("--log", action="store_true", help="include the solvers' captured logs in --json")
    p.add_argument("--solver-options", action="append", metavar="SOLVER:k=v,...",
                   help="options over the profile's, e.g. OSQP:eps_abs=1e-7,max_iter=100 "
                        "(repeatable)")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("sweep", help="formulations x solvers x sizes x repeats, with profiles")
    p.add_argument("--only", help="comma-separated formulation names (default: all)")
    p.add_argument("--solvers", help="comma-separated cvxpy solvers (default: installed known ones)")
    p.add_argument("--sizes", type=_sizes, default=[50, 200], help="comma-separated sizes (default 50,200)")
    p.add_argument("--repeats", type=_positive_int, default=3)
    p.add_argument("--time-limit", type=_positive_float, default=60.0, metavar="S")
    p.add_argument("--profile", choices=["high", "default", "low"], default="high")
    p.add_argument("--profiles", help="comma-separated profiles, e.g. high,default,low "
                                      "(overrides --profile)")
    p.add_argument("--formulation", action="append", metavar="MODULE:CLASS",
                   help="a formulation of your own (module or file.py, then the class or "
                        "factory); repeatable, added to --only")
    p.add_argument("--param", action="append", metavar="NAME=v1,v2",
                   help="a conditioning axis, e.g. sigma2=0.1,1,10 (passed to the instances "
                        "that take it; repeatable)")
    p.add_argument("--solver-options", action="append", metavar="SOLVER:k=v,...",
                   help="options over the profiles', e.g. OSQP:eps_abs=1e-7 (repeatable)")
    p.add_argument("--warm-start", metavar="NAME=v1,v2,...",
                   help="also measure DPP re-solves along this parameter path, e.g. "
                        "gamma=1,10,100 (warm.csv)")
    p.add_argument("--rerun", choices=["failed", "timeouts", "interrupted"],
                   help="with the rows in --out kept, also rerun these (implies --resume)")
    p.add_argument("--jobs", type=_positive_int, default=1, help="parallel runs (processes)")
    p.add_argument("--scheduler", help="Dask scheduler address to run the cells on")
    p.add_argument("--resume", action="store_true", help="keep the cells already in DIR/sweep.csv")
    p.add_argument("--out", default="benchmarks/results/sweep", help="output directory")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("export", help="write an instance as the program a solver sees")
    p.add_argument("name", help="formulation name or MODULE:CLASS")
    p.add_argument("--n", type=_problem_size, default=60, help="problem size (default 60)")
    p.add_argument("--seed", type=_non_negative_int, default=0)
    p.add_argument("--format", choices=["npz", "qps", "mps"],
                   help="npz (conic data, and qpsolvers' Problem for a QP) or qps/mps (QPs); "
                        "default: from --out's suffix")
    p.add_argument("--out", required=True, help="the file to write")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("formulations", help="list the registered formulations")
    p.add_argument("--show", metavar="NAME",
                   help="one formulation in full; a word that is no name is searched for in "
                        "the names, classes, methods and equations")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--latex", action="store_true", help="with --show: the equations in LaTeX")
    view.add_argument("--source", action="store_true",
                      help="with --show: the cvxpy builder, the NumPy objective, the closed form")
    view.add_argument("--json", action="store_true",
                      help="as JSON (with --show: also the LaTeX and the sources)")
    p.add_argument("--refresh", action="store_true", help="rebuild the catalogue (imports all)")
    p.set_defaults(func=_cmd_formulations)

    p = sub.add_parser("figure", help="a slide-ready figure of one formulation (SVG or PNG)")
    p.add_argument("name", help="formulation name, e.g. lssvm (see `lssvm-cvx formulations`)")
    p.add_argument("--out", help="the file to write, .svg or .png (default NAME.svg)")
    p.add_argument("--dpi", type=_positive_float, help="PNG resolution (default 200: 2x)")
    p.add_argument("--font-scale", type=_positive_float, default=1.0,
                   help="text size relative to the slide style (default 1)")
    p.add_argument("--n", type=_problem_size, default=60, help="problem size (default 60)")
    p.add_argument("--seed", type=_non_negative_int, default=0)
    p.set_defaults(func=_cmd_figure)

    p = sub.add_parser("solvers", help="solvers, installed or not, and their profiles")
    p.set_defaults(func=_cmd_solvers)

    p = sub.add_parser("bench", help="reproduce the papers' tables")
    p.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    p.add_argument("--headline", action="store_true",
                   help="one short reproduction per paper (quick mode) and a summary of the "
                        "claims met per paper")
    p.add_argument("--only", help="comma-separated benchmark names (or name prefixes)")
    p.add_argument("--out", help="output directory (default benchmarks/results[/quick])")
    p.add_argument("--jobs", type=_positive_int, default=1, help="parallel repetitions (joblib)")
    p.add_argument("--scheduler", help="Dask scheduler address for the repetitions")
    p.add_argument("--seed", type=_non_negative_int, default=0)
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    p.add_argument("--resume", action="store_true",
                   help="skip benchmarks whose results in --out match the current commit")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--raise-errors", action="store_true", help="stop at the first failure")
    p.set_defaults(func=_cmd_bench)
    return parser


#: the subcommands whose work needs the numerical stack (preloaded before the work starts)
_HEAVY = ("compare", "sweep", "bench", "export", "figure")


def _exit_interrupted(signum: int, frame: Any) -> None:  # pragma: no cover - a signal handler
    print("lssvm-cvx: interrupted", file=sys.stderr, flush=True)
    import os

    os._exit(EXIT_INTERRUPTED)


def _prepare(args: argparse.Namespace) -> None:
    """Import the numerical stack before the work starts, with Ctrl-C ending the process at
    once (one line, exit 130): a KeyboardInterrupt inside an import leaves half-initialised
    modules (numpy, scipy) whose next use fails with a traceback."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.signal(signal.SIGINT, _exit_interrupted)
    try:
        if args.command in ("compare", "sweep"):
            # the forkserver preloads cvxpy for the workers while this process imports it
            from .harness.procs import ensure_forkserver

            ensure_forkserver()
        if args.command in _HEAVY:
            import contextlib

            # a GPU machine may lack cvxpy: `bench --only device` needs only the array API
            with contextlib.suppress(ImportError):
                import cvxpy  # noqa: F401
                import scipy.linalg  # noqa: F401

                from . import bench, formulations, validate  # noqa: F401
                from .harness import sweep  # noqa: F401
    finally:
        signal.signal(signal.SIGINT, previous)


def main(argv: list[str] | None = None) -> int:
    """Run the ``lssvm-cvx`` command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)  # what the results record
        _prepare(args)
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"lssvm-cvx: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `lssvm-cvx ... | head`: the reader left early, not an error
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except KeyboardInterrupt as exc:  # one line, no traceback (Interrupted says what finished)
        from .exceptions import Interrupted

        what = str(exc) if isinstance(exc, Interrupted) and str(exc) else "interrupted"
        print(f"lssvm-cvx: {what}", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except Exception as exc:
        from .exceptions import LssvmCvxError

        if isinstance(exc, LssvmCvxError):
            print(f"lssvm-cvx: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        raise


def command() -> int:
    """The ``lssvm-cvx`` process: :func:`main`, then Ctrl-C during the interpreter's shutdown
    (worker pools, atexit handlers) ends the process as during the work — one line, exit 130 —
    instead of a ``KeyboardInterrupt`` at teardown (a process killed by SIGINT)."""
    import signal

    code = main()
    signal.signal(signal.SIGINT, _exit_interrupted)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
