"""Benchmark infrastructure behind ``lssvm-cvx bench``: registry, run context (parallel
repetitions with joblib, optionally on a Dask cluster, with tqdm progress), interleaved timing,
and writers for markdown + JSON + PNG results (each file written atomically).

A benchmark is a function ``run(ctx) -> BenchResult`` registered with :func:`register` in a
module of the top-level ``benchmarks`` package (one module per paper table); the CLI discovers
the modules automatically.

Speed is always reported as a ratio against a baseline measured in the same process, with the
compared runs interleaved and the median of several repetitions (:func:`interleaved_times`),
because the machine is shared and noisy.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import math
import pkgutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .exceptions import HyperparameterError
from .harness.files import atomic_write, current_commit, machine_info, machine_summary

__all__ = [
    "Table",
    "BenchResult",
    "Context",
    "Benchmark",
    "REGISTRY",
    "register",
    "discover",
    "interleaved_times",
    "machine_info",
    "write_result",
    "atomic_write",
    "current_commit",
    "run_cli",
]


@dataclass
class Table:
    """A result table; ``paper`` holds the paper's numbers for the same rows when it has them."""

    name: str
    frame: Any  # pandas.DataFrame
    caption: str = ""
    paper: Any = None  # pandas.DataFrame or None
    floatfmt: str = ".4g"


@dataclass
class BenchResult:
    """What a benchmark returns: tables, figures, the claims it checked, and free-text notes."""

    name: str
    title: str
    tables: list[Table] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)  # name -> matplotlib Figure
    checks: dict[str, Any] = field(default_factory=dict)  # claim -> {"value", "target", "ok"}
    notes: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def check(self, claim: str, value: float, target: float, *, higher_is_better: bool = False,
              unit: str = "") -> bool:
        """Record a measured claim against its target (e.g. a speed ratio)."""
        ok = bool(value >= target) if higher_is_better else bool(value <= target)
        self.checks[claim] = {"value": float(value), "target": float(target),
                              "relation": ">=" if higher_is_better else "<=", "unit": unit, "ok": ok}
        return ok


@dataclass
class Benchmark:
    """A registered benchmark: its name, title and the function that runs it."""

    name: str
    title: str
    func: Callable[[Context], BenchResult]
    paper: str | None = None
    description: str = ""
    #: one of the short reproductions ``lssvm-cvx bench --headline`` runs (one per paper)
    headline: bool = False


REGISTRY: dict[str, Benchmark] = {}


def register(name: str, title: str, *, paper: str | None = None, description: str = "",
             headline: bool = False):
    """Decorator registering ``func(ctx) -> BenchResult`` under ``name``; ``headline`` marks
    the paper's headline reproduction (``lssvm-cvx bench --headline``)."""

    def deco(func: Callable[[Context], BenchResult]):
        REGISTRY[name] = Benchmark(name, title, func, paper,
                                   description or (func.__doc__ or "").strip(), headline)
        return func

    return deco


def discover() -> dict[str, Benchmark]:
    """Import every module of the ``benchmarks`` package (each registers its benchmarks)."""
    from lssvm_cvx import benchmarks

    for info in pkgutil.iter_modules(benchmarks.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"lssvm_cvx.benchmarks.{info.name}")
    return REGISTRY


def _default_out_dir(quick: bool) -> Path:
    """``benchmarks/results`` beside the ``benchmarks`` package (``.../quick`` for --quick, so a
    quick run never overwrites the committed full results)."""
    from lssvm_cvx import benchmarks

    base = Path(benchmarks.__file__).resolve().parent / "results"
    return base / "quick" if quick else base


@dataclass
class Context:
    """Run settings handed to every benchmark.

    ``quick`` asks for fewer repetitions and sizes; ``jobs`` and ``scheduler`` control
    :meth:`map` (joblib processes, or the Dask cluster at ``scheduler``).
    """

    quick: bool = False
    jobs: int = 1
    scheduler: str | None = None
    seed: int = 0
    progress: bool = True
    command: str = ""
    #: the commit the run started from (``current_commit()`` at start): what the results record,
    #: even if the tree changes while a long run goes on; None: look it up when writing
    commit: str | None = None
    #: the folder the run writes its results into; a benchmark that writes files of its own
    #: (the sweep of ``harness_verdicts``) puts them under it.  None: the default folder
    out: Path | None = None

    @property
    def out_dir(self) -> Path:
        """Where this run's results go (``out``, else ``_default_out_dir``)."""
        return self.out if self.out is not None else _default_out_dir(self.quick)

    def reps(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def map(self, func: Callable[..., Any], items: Sequence[Any], *, desc: str = "") -> list[Any]:
        """``[func(item) for item in items]`` in parallel (joblib; Dask when ``scheduler``),
        with a tqdm progress bar, results in input order."""
        from joblib import Parallel, delayed
        from tqdm.auto import tqdm

        items = list(items)
        bar = tqdm(total=len(items), desc=desc, disable=not self.progress, leave=False,
                   file=sys.stderr)
        try:
            if self.scheduler:  # a Dask cluster: one task per item, gathered in order
                from dask.distributed import Client, as_completed

                with Client(self.scheduler, set_as_default=False) as client:
                    futures = client.map(func, items, pure=False)
                    for _ in as_completed(futures, loop=client.loop):
                        bar.update()
                    return client.gather(futures)
            if self.jobs == 1:
                out = []
                for it in items:
                    out.append(func(it))
                    bar.update()
                return out
            gen = Parallel(n_jobs=self.jobs, return_as="generator")(delayed(func)(it) for it in items)
            out = []
            for r in gen:
                out.append(r)
                bar.update()
            return out
        finally:
            bar.close()


def interleaved_times(funcs: dict[str, Callable[[], Any]], repeats: int, *,
                      warmup: int = 1) -> dict[str, list[float]]:
    """Time every function ``repeats`` times, round-robin (A B C A B C ...), after ``warmup``
    untimed rounds; returns the list of wall times per name (use the median)."""
    for _ in range(warmup):
        for f in funcs.values():
            f()
    out: dict[str, list[float]] = {k: [] for k in funcs}
    for _ in range(repeats):
        for k, f in funcs.items():
            t0 = time.perf_counter()
            f()
            out[k].append(time.perf_counter() - t0)
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return _jsonable(v.item())
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def _md(x: Any) -> str:
    """Text safe inside a markdown table cell."""
    return str(x).replace("|", "\\|").replace("\n", " ")


def _frame_markdown(df: Any, floatfmt: str) -> str:
    def fmt(x: Any) -> str:
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "–"
        if isinstance(x, (float, np.floating)):
            return format(float(x), floatfmt)
        if isinstance(x, (bool, np.bool_)):
            return "yes" if x else "no"
        return _md(x)

    cols = [_md(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(x) for x in row) + " |")
    return "\n".join(lines)


def _provenance_line(commit: str | None) -> str:
    """The commit a run was made from and whether the tree was clean, for result headers.

    Parameters
    ----------
    commit : str or None
        What :func:`current_commit` returned (``<sha>`` or ``<sha>+dirty.<hash>``).

    Returns
    -------
    str
        ``"<sha> (tree clean)"``, ``"<sha> (tree dirty: uncommitted changes, sources hash <h>)"``
        or ``"unknown (not a git checkout)"``.
    """
    if not commit:
        return "unknown (not a git checkout)"
    if "+dirty." in commit:
        sha, h = commit.split("+dirty.", 1)
        return f"{sha} (tree dirty: uncommitted changes, sources hash {h})"
    return f"{commit} (tree clean)"


def write_result(result: BenchResult, out: Path, ctx: Context, *, elapsed: float) -> list[Path]:
    """Write ``<name>.md``, ``<name>.json`` and ``<name>_<figure>.png`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = machine_info()
    paths = []
    fig_files = {}
    for fname, fig in result.figures.items():
        p = out / f"{result.name}_{fname}.png"

        def write_png(tmp: str, fig=fig) -> None:
            fig.savefig(tmp, dpi=120, bbox_inches="tight", format="png")

        atomic_write(p, write_png)
        fig_files[fname] = p.name
        paths.append(p)
    commit = ctx.commit if ctx.commit is not None else current_commit()
    md = [f"# {result.title}", ""]
    md.append(f"- command: `{ctx.command or 'lssvm-cvx bench --only ' + result.name}`")
    md.append(f"- commit: {_provenance_line(commit)}")
    md.append(f"- date: {when}; wall time {elapsed:.1f} s; mode: {'quick' if ctx.quick else 'full'}")
    md.append(f"- machine: {machine_summary(machine, detail=True)}")
    md.append("- versions: " + ", ".join(f"{k} {v}" for k, v in machine["versions"].items() if v))
    md.append("")
    # every file opens with its claims table (a run that checks none says so in that place)
    md.append("## Claims checked in this run")
    md.append("")
    if result.checks:
        md.append("| claim | measured | target | met |")
        md.append("|---|---|---|---|")
        for claim, c in result.checks.items():
            md.append(f"| {_md(claim)} | {c['value']:.4g}{c['unit']} "
                      f"| {c['relation']} {c['target']:.4g}{c['unit']} "
                      f"| {'yes' if c['ok'] else 'NO'} |")
    else:
        md.append(f"No claim is checked in {'a quick' if ctx.quick else 'this'} run: the tables "
                  "below are measurements only.")
    md.append("")
    for t in result.tables:
        md.append(f"## {t.name}")
        md.append("")
        if t.caption:
            md.append(t.caption)
            md.append("")
        md.append(_frame_markdown(t.frame, t.floatfmt))
        md.append("")
        if t.paper is not None:
            md.append("Paper's numbers for the same rows:")
            md.append("")
            md.append(_frame_markdown(t.paper, t.floatfmt))
            md.append("")
    for fname, file in fig_files.items():
        md.append(f"![{fname}]({file})")
        md.append("")
    if result.notes:
        md.append("## Notes")
        md.append("")
        md.append(result.notes.strip())
        md.append("")
    text = "\n".join(md)
    p_md = out / f"{result.name}.md"
    atomic_write(p_md, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    paths.append(p_md)
    payload = {
        "name": result.name, "title": result.title, "command": ctx.command, "date": when,
        "mode": "quick" if ctx.quick else "full", "elapsed_s": elapsed, "machine": machine,
        "checks": result.checks,
        "meta": {**result.meta, "commit": commit,
                 "tree_clean": bool(commit) and "+dirty" not in str(commit)},
        "notes": result.notes,
        "figures": fig_files,
        "tables": [{"name": t.name, "caption": t.caption,
                    "rows": t.frame.to_dict(orient="records"),
                    "paper": None if t.paper is None else t.paper.to_dict(orient="records")}
                   for t in result.tables],
    }
    p_json = out / f"{result.name}.json"
    atomic_write(p_json, lambda tmp: Path(tmp).write_text(
        json.dumps(_jsonable(payload), indent=1, allow_nan=False), encoding="utf-8"))
    paths.append(p_json)
    return paths


def select(names: Iterable[str] | None) -> list[Benchmark]:
    """Registered benchmarks by name (all when ``names`` is None): an exact name selects that
    benchmark, any other string every benchmark whose name starts with it."""
    reg = discover()
    if not names:
        return list(reg.values())
    out: list[Benchmark] = []
    for n in names:
        matches = [reg[n]] if n in reg else [b for k, b in reg.items() if k.startswith(n)]
        if not matches:
            raise HyperparameterError(f"no benchmark named {n!r}; known: {', '.join(reg)}")
        out.extend(m for m in matches if m not in out)
    return out


def _previous(out: Path, name: str) -> dict[str, Any] | None:
    """The results JSON of an earlier run, or None (absent, or malformed: reported in one line
    and ignored — the benchmark runs again and replaces it)."""
    p = out / f"{name}.json"
    if not p.exists():
        return None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"lssvm-cvx bench: ignoring malformed {p} ({type(exc).__name__})",
              file=sys.stderr, flush=True)
        return None
    if not isinstance(data, dict) or not isinstance(data.get("meta", {}), dict) or not isinstance(
            data.get("checks", {}), dict):
        print(f"lssvm-cvx bench: ignoring malformed {p} (not a results document)",
              file=sys.stderr, flush=True)
        return None
    return data


def _fmt_s(sec: float) -> str:
    return f"{sec:.0f} s" if sec < 120 else f"{sec / 60:.1f} min"


def run_cli(args: Any) -> int:
    """``lssvm-cvx bench``: an estimate up front, one line per benchmark, a closing table of
    the claims met and the files written; ``--resume`` skips benchmarks whose results in the
    output directory were made from the current commit; Ctrl-C keeps what finished."""
    import shlex

    if args.list:
        for b in discover().values():
            print(f"{b.name:32s} {b.title}")
        return 0
    names = [n.strip() for n in args.only.split(",")] if args.only else None
    headline = bool(getattr(args, "headline", False))
    if headline:
        if names:
            raise HyperparameterError("--headline runs one benchmark per paper; leave out --only "
                                      "(or name benchmarks with --only and --quick instead)")
        args.quick = True
        selected = _headline_benchmarks()
    else:
        selected = select(names)
    t_run = time.perf_counter()
    out = Path(args.out) if args.out else _default_out_dir(args.quick)
    if out.exists() and not out.is_dir():
        raise HyperparameterError(f"--out must be a directory; {out} is a file")
    try:  # created and checked before any work: an unwritable place must not lose a run
        import tempfile

        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise HyperparameterError(f"--out: cannot write in {out} "
                                  f"({exc.strerror or exc})") from None
    ctx = Context(quick=args.quick, jobs=args.jobs, scheduler=args.scheduler, seed=args.seed,
                  progress=False, out=out,
                  command="lssvm-cvx " + " ".join(
                      shlex.quote(a) for a in getattr(args, "argv", sys.argv[1:])))
    mode = "quick" if args.quick else "full"
    commit = current_commit()
    ctx.commit = commit
    todo, skipped = [], []
    for b in selected:
        prev = _previous(out, b.name)
        if (args.resume and prev and commit and (prev.get("meta") or {}).get("commit") == commit
                and prev.get("mode") == mode):
            skipped.append((b, prev))
        else:
            todo.append(b)
    known = [_previous(out, b.name) or _previous(_default_out_dir(args.quick), b.name)
             for b in todo]
    def secs(p: Any) -> float | None:
        v = p.get("elapsed_s") if p else None
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    est = sum(secs(p) or 0.0 for p in known)
    unknown = sum(1 for p in known if secs(p) is None)
    print(f"{len(todo)} benchmark(s) to run ({mode} mode) into {out}"
          + (f", {len(skipped)} skipped (results of commit {(commit or '')[:10]})" if skipped else "")
          + (f"; estimated {_fmt_s(est)} from the last recorded run times" if est else "")
          + (f" (+ {unknown} without a recorded time)" if unknown else ""), flush=True)
    done: list[tuple[Benchmark, dict[str, Any], list[Path], float]] = []
    failed: list[tuple[str, str]] = []
    for i, b in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {b.name}: {b.title} ...", end=" ", flush=True)
        t0 = time.perf_counter()
        try:
            result = b.func(ctx)
            elapsed = time.perf_counter() - t0
            paths = write_result(result, out, ctx, elapsed=elapsed)
        except KeyboardInterrupt:
            print(flush=True)
            print(f"lssvm-cvx bench: interrupted during {b.name}; {len(done)} benchmark(s) "
                  f"finished and written to {out} (nothing of {b.name}); --resume runs the "
                  "rest", file=sys.stderr, flush=True)
            return 130
        except Exception as exc:  # report and go on with the other benchmarks
            failed.append((b.name, f"{type(exc).__name__}: {exc}"))
            print(f"FAILED ({type(exc).__name__}: {exc})", flush=True)
            if args.raise_errors:
                raise
            continue
        met = sum(1 for c in result.checks.values() if c["ok"])
        print(f"{_fmt_s(elapsed)}, {met}/{len(result.checks)} claims met", flush=True)
        done.append((b, result.checks, paths, elapsed))
    print()
    print("| benchmark | time | claims met | unmet claims | files |")
    print("|---|---|---|---|---|")
    total_met = total = 0
    for b, checks, paths, elapsed in done:
        n_met = sum(1 for c in checks.values() if c["ok"])
        unmet = [k for k, c in checks.items() if not c["ok"]]
        total_met += n_met
        total += len(checks)
        print(f"| {b.name} | {_fmt_s(elapsed)} | {n_met}/{len(checks)} | "
              f"{_md('; '.join(unmet)) or '–'} | {', '.join(p.name for p in paths)} |")
    for b, prev in skipped:
        checks = prev.get("checks", {})
        met = sum(1 for c in checks.values() if c.get("ok"))
        print(f"| {b.name} | skipped (--resume) | {met}/{len(checks)} | – | {b.name}.json |")
    for name, err in failed:
        print(f"| {name} | FAILED | – | {_md(err)} | – |")
    print(f"\n{total_met}/{total} claims met in {len(done)} benchmark(s); files in {out}")
    if headline:
        _headline_summary(done, failed, out, time.perf_counter() - t_run, ctx)
    return 1 if failed else 0


def _headline_benchmarks() -> list[Benchmark]:
    """The headline reproductions, one per paper (and one for the toolkit's harness), in the
    order of :data:`~lssvm_cvx.formulations.papers.PAPERS`."""
    from .formulations.papers import PAPERS

    order = list(PAPERS)
    marked = [b for b in discover().values() if b.headline]
    return sorted(marked, key=lambda b: order.index(b.paper) if b.paper in order else len(order))


def _headline_summary(done: list, failed: list, out: Path, elapsed: float, ctx: Context) -> None:
    """The one-screen summary of ``--headline`` (claims met per paper, the files), also written
    to ``headline.json`` in ``out`` with the run's wall time."""
    from .formulations.papers import paper_title

    rows = []
    print(f"\nHeadline results, one per paper, in {_fmt_s(elapsed)}:\n")
    print("| paper | reproduction | claims met | results |")
    print("|---|---|---|---|")
    for b, checks, paths, _ in done:
        met = sum(1 for c in checks.values() if c["ok"])
        md = next((p for p in paths if p.suffix == ".md"), None)
        print(f"| {_md(paper_title(b.paper))} | {_md(b.title)} | {met}/{len(checks)} | "
              f"{md if md else '–'} |")
        rows.append({"benchmark": b.name, "paper": b.paper, "claims_met": met,
                     "claims": len(checks)})
    for name, err in failed:
        print(f"| – | {name} | FAILED | {_md(err)} |")
    print("\nThe full quick suite: lssvm-cvx bench --quick; one paper's full reproduction: "
          "lssvm-cvx bench --only NAME (lssvm-cvx bench --list names them).")
    doc = {"command": ctx.command, "commit": ctx.commit, "elapsed_s": elapsed,
           "machine": machine_summary(),
           "benchmarks": rows, "failed": [n for n, _ in failed]}
    (out / "headline.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
