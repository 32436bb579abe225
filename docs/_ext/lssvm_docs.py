"""Sphinx extension that writes the generated pages of the lssvm_cvx site at build time.

* ``generated/formulations/<name>.rst`` — one page per entry of
  :data:`lssvm_cvx.formulations.FORMULATIONS`: the paper's equations in LaTeX with their
  numbers and citation, the cvxpy builder's source, the closed form and its derivation, the
  paper slips corrected (read from the docstrings, with the test that pins each, resolved in
  ``tests/``) and a harness table computed now by :func:`lssvm_cvx.validate.compare` on a small
  ``random_instance`` with the installed solvers.
* ``generated/papers.rst`` — the papers and the formulations implementing each.
* ``generated/api/*.rst`` — the API reference: every name in ``__all__`` of ``lssvm_cvx``, of its
  public submodules (walked, so moved modules follow) and of ``problems``; each object is
  documented once, at its shallowest public path, and listed as an alias elsewhere.

It also serves MathJax from the site when the ``django-static-mathjax`` package (the docs
extra) is installed, so the pages render math without a network.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import shutil
import textwrap
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from lssvm_api import api_pages
from lssvm_math import display
from lssvm_rst import indent, title, write

HERE = Path(__file__).resolve().parent.parent          # docs/
ROOT = HERE.parent
GEN = HERE / "generated"
TESTS = ROOT / "tests"

#: size of the harness instances on the formulation pages
HARNESS_N = 40
SLIP_WORDS = re.compile(r"\bslips?\b|\bprints\b|\bin print\b|misprint", re.IGNORECASE)
NUMPYDOC_SECTIONS = re.compile(r"^(Parameters|Returns|Attributes|Notes|Examples|See Also|Raises|"
                               r"References|Yields|Methods)\s*$", re.MULTILINE)


# ------------------------------------------------------------------------------ helpers



def _code(obj: Any) -> str:
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        return "# source not available"


def _defining(cls: type, attr: str) -> type | None:
    for k in cls.__mro__:
        if attr in k.__dict__:
            return k
    return None


#: where the helpers shown beside a builder or a closed form live (input checks, kernels and the
#: base class's plumbing are left out)
MATH_MODULES = ("lssvm_cvx.formulations.", "lssvm_cvx.linalg", "lssvm_cvx.terms", "lssvm_cvx.losses")


def _called(fn: Any, cls: type, keep: Any, depth: int = 2) -> list[tuple[str, Any]]:
    """``(label, function)`` of the package's helpers that ``fn`` calls (``self.NAME(...)`` on
    ``cls`` or a function of its module), in the order of the source, for which ``keep(source)``
    holds; the helpers' own helpers too, up to ``depth`` levels.  The base class's plumbing
    (``lssvm_cvx.formulations.base``) is left out."""
    import ast

    out: list[tuple[str, Any]] = []
    seen = {getattr(fn, "__qualname__", "")}

    def visit(f: Any, level: int) -> None:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
        except (OSError, TypeError, SyntaxError):
            return
        calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset))
        for node in calls:
            func, obj = node.func, None
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id == "self"):
                obj = inspect.getattr_static(cls, func.attr, None)
                obj = getattr(obj, "__func__", getattr(obj, "fget", obj))
            elif isinstance(func, ast.Name):
                obj = getattr(f, "__globals__", {}).get(func.id)
            if not inspect.isfunction(obj) or obj.__qualname__ in seen:
                continue
            mod = obj.__module__ or ""
            if (not mod.startswith(MATH_MODULES) or mod == "lssvm_cvx.formulations.base"
                    or obj.__name__.startswith("check_")):
                continue
            if not keep(_code(obj)):
                continue
            seen.add(obj.__qualname__)
            out.append((f"{mod}.{obj.__qualname__}", obj))
            if level < depth:
                visit(obj, level + 1)

    visit(fn, 1)
    return out


def _code_blocks(fn: Any, cls: type, keep: Any, intro: str) -> str:
    """The source of ``fn``, then of each helper it calls (:func:`_called`)."""
    out = ".. code-block:: python\n\n" + indent(_code(fn)) + "\n"
    helpers = _called(fn, cls, keep)
    if helpers:
        out += intro + "\n\n"
        for label, h in helpers:
            out += f"``{label}``:\n\n.. code-block:: python\n\n" + indent(_code(h)) + "\n"
    return out


def _intro(cls: type) -> str:
    """The docstring's first paragraph; when it ends in ``::``, the literal block after it too
    (an explicit program, for instance), kept as a literal block."""
    paras = (inspect.getdoc(cls) or "").split("\n\n")
    first = paras[0].replace("\n", " ").strip()
    if not first:
        return ""
    if first.endswith("::") and len(paras) > 1:
        block = [paras[1]]
        for more in paras[2:]:                          # the block goes on while indented
            if more.startswith((" ", "\t")):
                block.append(more)
            else:
                break
        return first + "\n\n" + indent(textwrap.dedent("\n\n".join(block))) + "\n\n"
    return first + "\n\n"


def _test_index() -> dict[str, str]:
    """``test name -> tests/<file>.py`` for every test function in ``tests/``."""
    out: dict[str, str] = {}
    for f in sorted(TESTS.glob("test_*.py")):
        for m in re.finditer(r"^\s*def (test_\w+)", f.read_text(encoding="utf-8"), re.MULTILINE):
            out.setdefault(m.group(1), f"tests/{f.name}")
    return out


# ------------------------------------------------------------------------------ slips
def _items(doc: str) -> list[str]:
    """Paragraphs and list items of a docstring (section underlines dropped)."""
    lines = [ln for ln in doc.splitlines() if not re.fullmatch(r"\s*[-=~^]{3,}\s*", ln)]
    blocks, cur = [], []
    for ln in lines:
        if not ln.strip():
            if cur:
                blocks.append(cur)
                cur = []
            continue
        if re.match(r"^(\d+\.|\*|-)\s", ln) and cur:
            blocks.append(cur)
            cur = []
        cur.append(ln)
    if cur:
        blocks.append(cur)
    items: list[str] = []
    for b in blocks:
        text = "\n".join(b)
        if items and b[0].startswith(" ") and items[-1].rstrip().endswith("::"):
            items[-1] += "\n\n" + text          # literal block of the previous item
        else:
            items.append(text)
    return items


def _slips(cls: type) -> list[str]:
    """Paper-slip notes of a formulation: from its class and module docstrings, and from the
    modules those notes point to with ``:mod:``."""
    module = importlib.import_module(cls.__module__)
    sources = [inspect.getdoc(cls) or "", inspect.getdoc(module) or ""]
    seen_mods = {cls.__module__}
    out: list[str] = []
    i = 0
    while i < len(sources):
        for item in _items(sources[i]):
            if (SLIP_WORDS.search(item) and item not in out
                    and not NUMPYDOC_SECTIONS.search(item.split("\n", 1)[0])):
                out.append(item)
                for ref in re.findall(r":mod:`~?([\w.]+)`", item):
                    if ref not in seen_mods and ref.startswith("lssvm_cvx"):
                        seen_mods.add(ref)
                        try:
                            sources.append(inspect.getdoc(importlib.import_module(ref)) or "")
                        except ImportError:
                            pass
        i += 1
    return out


def _strip_marker(item: str) -> str:
    item = re.sub(r"^(\d+\.|\*|-)\s+", "", item)
    return textwrap.dedent(item.split("\n", 1)[0] + ("\n" + textwrap.dedent(item.split("\n", 1)[1])
                                                      if "\n" in item else ""))


def _pins(item: str, tests: dict[str, str]) -> str:
    names = list(dict.fromkeys(re.findall(r"\btest_\w+", item)))
    pins = []
    for n in names:
        if n.endswith(".py") or n + ".py" in {Path(p).name for p in tests.values()}:
            pins.append(f"``tests/{n if n.endswith('.py') else n + '.py'}``")
        elif n in tests:
            pins.append(f"``{tests[n]}::{n}``")
        else:
            pins.append(f"``{n}`` (not found in ``tests/``)")
    return ", ".join(pins) if pins else "no test named in the docstring"


# ------------------------------------------------------------------------------ harness table
def _fmt(x: Any, digits: int = 2) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        if x != x:
            return "—"
        return f"{x:.{digits}e}" if (x != 0 and (abs(x) < 1e-2 or abs(x) >= 1e4)) else f"{x:.{digits + 1}g}"
    return str(x)


def _harness(cls: type) -> str:
    from lssvm_cvx.solvers import DEFAULT_SOLVERS, available_solvers
    from lssvm_cvx.validate import compare

    solvers = [s for s in DEFAULT_SOLVERS if s in set(available_solvers())]
    try:
        inst = cls.random_instance(HARNESS_N, seed=0)
    except Exception as exc:  # noqa: BLE001 - shown on the page
        return f"No harness table: ``random_instance`` raised {type(exc).__name__}: {exc}\n"
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = compare(inst, solvers=solvers)
    elapsed = time.perf_counter() - t0
    compared = ", ".join(f"``{c}``" for c in rep.compared) or "—"
    head = (f"``compare({cls.__name__}.random_instance({HARNESS_N}, seed=0), "
            f"solvers={solvers!r})`` — computed while this page was built ({elapsed:.1f} s). "
            f"Reference: ``{rep.reference}``; *objective gap* is the relative gap of the "
            "formulation's own NumPy objective at each backend's point, *max rel. dev.* the largest "
            f"relative deviation over {compared}, then each point's certificate (scaled "
            "primal infeasibility / dual infeasibility / duality gap: the reference is the best "
            "one) and the verdict.\n\n")
    rows = [["backend", "status", "compile [s]", "solve [s]", "objective gap",
             "max rel. dev.", "certificate (primal/dual/gap)", "verdict"]]
    for r in rep.rows:
        devs = [d.get("rel") for d in (r.deviation or {}).values() if isinstance(d, dict)]
        devs = [d for d in devs if d is not None]
        c = r.certificate
        cert = "/".join(_fmt(v) for v in (c.primal, c.dual, c.gap)) if c is not None else "—"
        rows.append([r.backend, r.status, _fmt(r.compile_time), _fmt(r.solve_time),
                     _fmt(r.objective_rel_gap), _fmt(max(devs) if devs else None), cert,
                     "error: " + r.error if r.error else (r.verdict or "—")])
    table = ".. list-table::\n   :header-rows: 1\n   :class: harness-table\n\n"
    for row in rows:
        table += "   * - " + "\n     - ".join(c.replace("|", "/") for c in row) + "\n"
    verdict = ("Every backend agrees within its tolerance profile." if rep.all_agree else
               "Not every backend agrees within its tolerance profile on this instance: the table "
               "shows which (this is the harness's job; see the solver-comparison example).")
    return head + table + "\n" + verdict + "\n"


# ------------------------------------------------------------------------------ formulation pages
def _formulation_page(name: str, cls: type, tests: dict[str, str]) -> str:
    from lssvm_cvx.formulations.equations import closed_form_of, latex_of

    ref = cls.reference
    path = f"{cls.__module__}.{cls.__qualname__}"
    out = [f".. _formulation-{name}:\n\n", title(f"{name}: {cls.__name__}")]
    eqs = ", ".join(f"{k} {v}" for k, v in ref.equations.items())
    backends = (["closed form (NumPy/SciPy)"] if cls.has_closed_form else []) + ["cvxpy (any installed solver)"]
    out.append(f":Paper: {ref.citation} (:ref:`paper-{ref.paper}`)\n"
               f":Equations: {eqs}\n"
               f":Class: :class:`{path}`\n"
               f":Backends: {', '.join(backends)}\n"
               f":Compared by the harness: {', '.join(f'``{c}``' for c in cls.compare)}\n\n")
    out.append(_intro(cls))
    out.append(title("The paper's equations", "-"))
    latex = latex_of(cls)
    if latex:
        for label, tex in latex.items():
            # nowrap: Sphinx would wrap multi-row matrices in a split environment, where
            # \tag is not allowed; one display per equation, the paper's number as its tag
            out.append(f"**{label}**\n\n.. math::\n   :nowrap:\n\n{indent(display(tex))}\n\n")
    else:
        out.append("No LaTeX for this formulation yet (set ``latex=`` on its ``Reference``); the "
                   "class docstring below has the equations in text.\n\n")
    out.append(title("The cvxpy builder", "-"))
    bcls = _defining(cls, "_build")
    note = "" if bcls is cls else f" (inherited from :class:`{bcls.__module__}.{bcls.__qualname__}`)"
    reparam = getattr(cls, "reparametrization", None) or {}
    named = ("variables and parameters are named as in the paper, except where the table below "
             "maps the paper's symbol to the builder's variable" if reparam else
             "variables and parameters are named as in the paper")
    out.append(f"``{cls.__name__}._build``{note} — {named}; hyperparameters are "
               ":class:`cvxpy.Parameter` objects, so a re-solve after changing one skips "
               "recompilation.\n\n")
    if reparam:
        out.append(".. list-table:: The paper's symbols and the builder's variables\n"
                   "   :header-rows: 1\n   :widths: 15 15 70\n\n"
                   "   * - paper\n     - builder\n     - map, and why\n")
        for sym, (var, why) in reparam.items():
            out.append(f"   * - {sym}\n     - ``{var}``\n     - {why}\n")
        out.append("\n")
    out.append(_code_blocks(bcls._build, cls, lambda src: "cp." in src,
                            "The statements that create the variables, objective and constraints "
                            "live in the helpers it calls, shown in order:"))
    ocls = _defining(cls, "objective")
    out.append(f"The NumPy twin of the objective, ``{ocls.__name__}.objective``, scores every "
               "backend the same way:\n\n")
    out.append(".. code-block:: python\n\n" + indent(_code(ocls.objective)) + "\n")
    out.append(title("Closed form", "-"))
    if cls.has_closed_form:
        derivation = closed_form_of(cls)
        if derivation:
            out.append(derivation + "\n\n")
        ccls = _defining(cls, "closed_form")
        out.append(f"``{ccls.__name__}.closed_form``:\n\n")
        out.append(_code_blocks(ccls.closed_form, cls,
                                lambda src: len(src.strip().splitlines()) > 3,
                                "The linear algebra is in the helpers it calls:"))
    else:
        out.append("None: the problem is not a linear system; the harness compares the cvxpy "
                   "solvers with each other.\n\n")
    out.append(title("Paper slips corrected", "-"))
    slips = _slips(cls)
    if slips:
        out.append("From the docstrings of the class and its module (each note names the test "
                   "that fails on the printed version, resolved in ``tests/``):\n\n")
        for item in slips:
            body = _strip_marker(item)
            out.append("* " + indent(body, 2).lstrip() + "\n\n  *Pinned by:* "
                       + _pins(item, tests) + "\n\n")
    else:
        out.append("None recorded in the docstrings.\n\n")
    out.append(_linked(name, cls))
    out.append(title("Harness table", "-"))
    out.append(_harness(cls) + "\n")
    out.append(title("Docstring", "-"))
    out.append(f".. autoclass:: {path}\n   :no-index:\n\n")
    return "".join(out)


def _estimators_of(name: str) -> list[type]:
    """The public estimators whose ``formulations`` attribute names ``name``."""
    import lssvm_cvx

    out = []
    for attr in lssvm_cvx.__all__:
        obj = getattr(lssvm_cvx, attr)
        if inspect.isclass(obj) and name in (getattr(obj, "formulations", None) or ()):
            out.append(obj)
    return out


def _linked(name: str, cls: type) -> str:
    """The formulation's figure (drawn now, as ``lssvm-cvx figure NAME`` draws it), the
    estimators that fit its model and the gallery examples that use either."""
    import matplotlib.pyplot as plt

    from lssvm_cvx.figures import formulation_figure, save_figure, slide_style

    out = [title("Figure, estimators and examples", "-")]
    folder = GEN / "formulations" / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with slide_style(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fig = formulation_figure(name)
            save_figure(fig, folder / f"{name}.svg")
            plt.close(fig)
        out.append(f".. figure:: figures/{name}.svg\n   :width: 80%\n   :alt: {name} on its "
                   f"random instance\n\n   ``lssvm-cvx figure {name}`` — drawn when this site was "
                   "built, on the formulation's random instance; the same figure for a slide: "
                   f"``lssvm-cvx figure {name} --out {name}.svg``.\n\n")
    except Exception as exc:                          # the page says so; the build goes on
        out.append(f"No figure: ``formulation_figure({name!r})`` raised "
                   f"``{type(exc).__name__}: {exc}``.\n\n")
    ests = _estimators_of(name)
    if ests:
        out.append("Estimators that fit this model: " + ", ".join(
            f":class:`~lssvm_cvx.{e.__name__}`" for e in ests) + ".\n\n")
    else:
        out.append("No estimator fits this model directly; build it with "
                   f":class:`{cls.__module__}.{cls.__qualname__}`.\n\n")
    objs = [f"{cls.__module__}.{cls.__qualname__}", f"lssvm_cvx.formulations.{cls.__name__}"]
    objs += [f"lssvm_cvx.{e.__name__}" for e in ests]
    out.append(".. minigallery:: " + " ".join(dict.fromkeys(objs)) + "\n"
               "   :add-heading: Gallery examples that use it\n   :heading-level: ^\n\n")
    return "".join(out)


def _formulation_pages() -> list[str]:
    from lssvm_cvx.formulations import FORMULATIONS
    from lssvm_cvx.formulations.papers import PAPERS, paper_title

    tests = _test_index()
    names = sorted(FORMULATIONS)
    by_paper: dict[str, list[str]] = defaultdict(list)
    for name in names:
        cls = FORMULATIONS[name]
        write(GEN / "formulations" / f"{name}.rst", _formulation_page(name, cls, tests))
        by_paper[cls.reference.paper].append(name)
    idx = [".. _formulations:\n\n", title("Formulations"),
           "One page per entry of the formulation registry "
           "(:data:`lssvm_cvx.formulations.FORMULATIONS`), generated when the site is built: a new "
           "formulation gets its page without editing the docs. Each page has the paper's "
           "equations, the cvxpy builder, the closed form, the paper slips corrected and a "
           "harness table computed during the build.\n\n"]
    order = list(PAPERS)
    for paper in sorted(by_paper, key=lambda p: order.index(p) if p in order else len(order)):
        idx.append(title(paper_title(paper), "-"))
        idx.append(".. list-table::\n   :header-rows: 1\n   :widths: 25 25 35 15\n\n"
                   "   * - name\n     - class\n     - equations\n     - closed form\n")
        for name in by_paper[paper]:
            cls = FORMULATIONS[name]
            eqs = ", ".join(f"{k} {v}" for k, v in cls.reference.equations.items()).replace("|", "/")
            idx.append(f"   * - :ref:`{name} <formulation-{name}>`\n     - ``{cls.__name__}``\n"
                       f"     - {eqs}\n     - {'yes' if cls.has_closed_form else 'no'}\n")
        idx.append("\n")
    idx.append(".. toctree::\n   :hidden:\n\n" + "".join(f"   {n}\n" for n in names))
    write(GEN / "formulations" / "index.rst", "".join(idx))
    # papers page: full citations and DOIs from the registry (lssvm_cvx.formulations.papers)
    pp = [title("Papers"), "The five papers and the formulations that implement their "
          "equations (each formulation's page has the equations with their numbers).\n\n"]
    for paper in sorted(by_paper, key=lambda p: order.index(p) if p in order else len(order)):
        pp.append(f".. _paper-{paper}:\n\n" + title(paper_title(paper), "-"))
        if paper in PAPERS:
            ref = PAPERS[paper]
            doi = f" DOI `{ref.doi} <{ref.url}>`__." if ref.doi else ""
            pp.append(f"{ref.citation}.{doi}\n\n")
        for name in by_paper[paper]:
            c = FORMULATIONS[name]
            eqs = ", ".join(f"{k} {v}" for k, v in c.reference.equations.items())
            pp.append(f"* :ref:`{name} <formulation-{name}>` — {eqs}\n")
        pp.append(f"\nResults reproduced from this paper: :ref:`results-paper-{paper}`.\n\n")
    write(GEN / "papers.rst", "".join(pp))
    return names


# ------------------------------------------------------------------------------ docstring hook
def _link_formulation(app, what, name, obj, options, lines) -> None:
    """Append the paper reference and the formulation page link to formulation classes."""
    if what != "class" or not inspect.isclass(obj):
        return
    from lssvm_cvx.formulations import Formulation

    if not issubclass(obj, Formulation) or "name" not in obj.__dict__ or "no-index" in options:
        return
    ref = obj.reference
    eqs = ", ".join(f"{k} {v}" for k, v in ref.equations.items())
    lines += ["", ".. rubric:: Paper", "",
              f"{ref.citation}: {eqs}. Equations, builder, closed form and harness table: "
              f":ref:`formulation-{obj.name}`.", ""]


#: a backtick span (``literal``, `role content` or `ref`): left as written by :func:`_bars_as_text`
_SPAN = re.compile(r"(``.+?``|`[^`]*`)")


def _bars_as_text(app, what, name, obj, options, lines) -> None:
    """Show a ``|`` in a data's doc comment (``#:``) as written: the comments write ``|x|`` for
    an absolute value (``max |diag H|``), which reStructuredText reads as a substitution (the
    docs define none, so it failed the build: ``linalg.cholesky.RIDGES``, 2026-12-07).
    Backtick spans (literals, roles) are left alone."""
    if what not in ("data", "attribute"):
        return
    for i, line in enumerate(lines):
        if "|" in line:
            lines[i] = "".join(part if k % 2 else part.replace("|", "\\|")
                               for k, part in enumerate(_SPAN.split(line)))


# ------------------------------------------------------------------------------ MathJax
def _mathjax(app, config) -> None:
    """Serve MathJax 3 (SVG output, no web fonts) from the site when it is installed.

    django-static-mathjax ships MathJax 3.2: it cannot break lines (MathJax 4 can), hence
    :func:`lssvm_math.display_rows` and the scrolling ``div.math`` of ``_static/lssvm.css``.
    """
    try:
        import mathjax  # django-static-mathjax: MathJax's es5 bundles as package data
    except ImportError:
        return
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg-full.js"
    if not src.exists():
        return
    dst = GEN / "_static" / "mathjax"
    dst.mkdir(parents=True, exist_ok=True)
    if not (dst / src.name).exists() or (dst / src.name).stat().st_size != src.stat().st_size:
        shutil.copy2(src, dst / src.name)
    lic = Path(mathjax.__file__).parent / "static" / "mathjax" / "LICENSE"
    if lic.exists():
        shutil.copy2(lic, dst / "LICENSE")
    static = str(GEN / "_static")
    if static not in config.html_static_path:
        config.html_static_path.append(static)
    config.mathjax_path = "mathjax/tex-svg-full.js"


def gallery_style(gallery_conf: dict, fname: str, when: str = "before") -> None:
    """sphinx-gallery ``reset_modules`` hook: every example draws in the slide style of
    :mod:`lssvm_cvx.figures` (after matplotlib's own reset); sphinx-gallery chooses the
    resolution of the saved images (1x and 2x)."""
    import matplotlib

    from lssvm_cvx.figures import slide_rc

    matplotlib.rcParams.update({**slide_rc(), "savefig.dpi": "figure", "savefig.bbox": "tight"})


def text_overlaps(fig: Any, pad: float = 1.0) -> list[str]:
    """Pairs of visible, non-empty texts of ``fig`` (titles, axis and tick labels, legend
    entries, annotations) whose boxes overlap by more than ``pad`` pixels each way, drawn at
    the figure's size: a title running into its neighbour, tick labels of two panels touching.
    Texts of one legend are checked against everything but each other."""
    from matplotlib.legend import Legend
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ticks, drawn = set(), set()                         # tick labels, and those in view
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                labels = (tick.label1, tick.label2)
                ticks.update(id(t) for t in labels)
                if lo - tol <= tick.get_loc() <= hi + tol:
                    drawn.update(id(t) for t in labels)
    legend_of = {id(t): id(leg) for leg in fig.findobj(Legend)  # each text's legend, once
                 for t in (*leg.texts, leg.get_title())}
    boxes = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or t.get_alpha() == 0:
            continue
        if id(t) in ticks and id(t) not in drawn:
            continue
        boxes.append((t, t.get_window_extent(renderer), legend_of.get(id(t))))
    out = []
    for i, (t1, b1, o1) in enumerate(boxes):
        for t2, b2, o2 in boxes[i + 1:]:
            if o1 is not None and o1 == o2:
                continue
            dx = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
            dy = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
            if dx > pad and dy > pad:
                out.append(f"{t1.get_text()!r} overlaps {t2.get_text()!r}")
    return out


def checked_matplotlib_scraper(block: Any, block_vars: dict, gallery_conf: dict,
                               **kwargs: Any) -> str:
    """sphinx-gallery image scraper: matplotlib's, after checking that no two texts of a figure
    overlap (:func:`text_overlaps`); an overlap stops the build and names the texts."""
    import matplotlib.pyplot as plt
    from sphinx.errors import ExtensionError
    from sphinx_gallery.scrapers import matplotlib_scraper

    for num in plt.get_fignums():
        bad = text_overlaps(plt.figure(num))
        if bad:
            raise ExtensionError(f"{block_vars.get('src_file')}: figure {num}: "
                                 + "; ".join(bad[:5]))
    return matplotlib_scraper(block, block_vars, gallery_conf, **kwargs)


def _generate(app) -> None:
    t0 = time.perf_counter()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    names = _formulation_pages()
    api_pages(GEN / "api")
    print(f"lssvm_docs: {len(names)} formulation pages and the API reference generated "
          f"in {time.perf_counter() - t0:.1f} s")


def setup(app):
    app.connect("config-inited", _mathjax)
    app.connect("builder-inited", _generate)
    app.connect("autodoc-process-docstring", _link_formulation, priority=600)
    app.connect("autodoc-process-docstring", _bars_as_text)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
