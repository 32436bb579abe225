"""The ``lssvm-cvx`` command.

``lssvm-cvx bench [--quick] [--only NAME[,NAME...]] [--out DIR] [--jobs N] [--scheduler ADDRESS]``
    run the registered benchmarks (the papers' tables), print markdown tables, and write
    markdown + JSON + PNG into DIR (default ``benchmarks/results/``, or
    ``benchmarks/results/quick/`` with ``--quick``).
``lssvm-cvx bench --list``
    list the registered benchmarks.
``lssvm-cvx compare NAME [--n 300] [--solvers CLARABEL,OSQP,ECOS,SCS] [--seed 0] [--json]``
    run one formulation (``lssvm``, ``lssvm_classifier``, ...) through its closed form and the
    named cvxpy solvers and print the harness report.
``lssvm-cvx formulations``
    list the registered formulations with their paper and equations.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

__all__ = ["main"]


def _cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    if args.list:
        for b in bench.discover().values():
            print(f"{b.name:32s} {b.title}")
        return 0
    names = [n.strip() for n in args.only.split(",")] if args.only else None
    selected = bench.select(names)
    out = Path(args.out) if args.out else bench.default_out_dir(args.quick)
    ctx = bench.Context(quick=args.quick, jobs=args.jobs, scheduler=args.scheduler,
                        seed=args.seed, progress=not args.no_progress,
                        command="lssvm-cvx " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    failed = []
    for b in selected:
        print(f"\n## {b.name}: {b.title}", flush=True)
        t0 = time.perf_counter()
        try:
            result = b.func(ctx)
        except Exception as exc:  # report and go on with the other benchmarks
            failed.append(b.name)
            print(f"FAILED: {type(exc).__name__}: {exc}", flush=True)
            if args.raise_errors:
                raise
            continue
        elapsed = time.perf_counter() - t0
        paths = bench.write_result(result, out, ctx, elapsed=elapsed)
        md = next(p for p in paths if p.suffix == ".md")
        print(md.read_text(encoding="utf-8").split("\n", 5)[-1], flush=True)
        print(f"[{elapsed:.1f} s] wrote " + ", ".join(str(p) for p in paths), flush=True)
    if failed:
        print(f"\n{len(failed)} benchmark(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from .formulations import get_formulation
    from .validate import compare

    cls = get_formulation(args.name)
    formulation = cls.random_instance(args.n, seed=args.seed)
    solvers = [s.strip() for s in args.solvers.split(",")] if args.solvers else None
    report = compare(formulation, solvers=solvers)
    if args.json:
        print(json.dumps(report.to_dict(), indent=1))
    else:
        print(report.to_markdown())
    return 0 if report.all_agree else 2


def _cmd_formulations(args: argparse.Namespace) -> int:
    from .formulations import FORMULATIONS

    for name, cls in sorted(FORMULATIONS.items()):
        cf = "closed form + cvxpy" if cls.has_closed_form else "cvxpy"
        print(f"{name:32s} [{cf}] {cls.reference}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lssvm-cvx", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("bench", help="reproduce the papers' tables")
    p.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    p.add_argument("--only", help="comma-separated benchmark names (or name prefixes)")
    p.add_argument("--out", help="output directory (default benchmarks/results[/quick])")
    p.add_argument("--jobs", type=int, default=1, help="parallel repetitions (joblib)")
    p.add_argument("--scheduler", help="Dask scheduler address for the repetitions")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--raise-errors", action="store_true", help="stop at the first failure")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("compare", help="solver-comparison harness on one formulation")
    p.add_argument("name", help="formulation name, e.g. lssvm")
    p.add_argument("--n", type=int, default=300, help="problem size")
    p.add_argument("--solvers", help="comma-separated cvxpy solvers (default CLARABEL,OSQP,ECOS,SCS)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("formulations", help="list the registered formulations")
    p.set_defaults(func=_cmd_formulations)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:
        from .exceptions import LssvmCvxError

        if isinstance(exc, LssvmCvxError):
            print(f"lssvm-cvx: error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
