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
import pkgutil
import re
import shutil
import textwrap
import time
import types
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from lssvm_math import display

HERE = Path(__file__).resolve().parent.parent          # docs/
ROOT = HERE.parent
GEN = HERE / "generated"
TESTS = ROOT / "tests"

#: size of the harness instances on the formulation pages
HARNESS_N = 40
PAPER_TITLES = {
    "areg-fusion-pelckmans-2006": "Additive regularization trade-off (Pelckmans, Suykens & De Moor 2006)",
    "componentwise-lssvm-pelckmans": "Componentwise LS-SVMs (Pelckmans et al. 2005)",
    "l2svm-regularization-path-bonidal-2013": "The ℓ2-SVM regularization path (Bonidal, Tindel & Guermeur 2013)",
    "multiobjective-model-selection-you-2014": "Multiobjective model selection (You, Benitez-Quiroz & Martinez 2014)",
    "auto-lssvm-sorber-2017": "Auto LS-SVM (Sorber 2017)",
}
SLIP_WORDS = re.compile(r"\bslips?\b|\bprints\b|\bin print\b|misprint", re.IGNORECASE)
NUMPYDOC_SECTIONS = re.compile(r"^(Parameters|Returns|Attributes|Notes|Examples|See Also|Raises|"
                               r"References|Yields|Methods)\s*$", re.MULTILINE)
SKLEARN_MEMBERS = ("set_fit_request,set_predict_request,set_score_request,set_transform_request,"
                   "set_partial_fit_request,set_output,get_metadata_routing,get_params,set_params")


# ------------------------------------------------------------------------------ helpers
def _write(path: Path, text: str) -> None:
    """Write only when the text changed (keeps Sphinx's incremental build incremental)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * max(len(text), 3)}\n"


def _indent(text: str, n: int = 3) -> str:
    return textwrap.indent(text, " " * n, lambda line: True).replace(" " * n + "\n", "\n")


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
    out = [f".. _formulation-{name}:\n\n", _title(f"{name}: {cls.__name__}")]
    eqs = ", ".join(f"{k} {v}" for k, v in ref.equations.items())
    backends = (["closed form (NumPy/SciPy)"] if cls.has_closed_form else []) + ["cvxpy (any installed solver)"]
    out.append(f":Paper: {ref.citation} (:ref:`paper-{ref.paper}`)\n"
               f":Equations: {eqs}\n"
               f":Class: :class:`{path}`\n"
               f":Backends: {', '.join(backends)}\n"
               f":Compared by the harness: {', '.join(f'``{c}``' for c in cls.compare)}\n\n")
    first = (inspect.getdoc(cls) or "").split("\n\n", 1)[0].replace("\n", " ")
    if first:
        out.append(re.sub(r"::$", ":", first.rstrip()) + "\n\n")
    out.append(_title("The paper's equations", "-"))
    latex = latex_of(cls)
    if latex:
        for label, tex in latex.items():
            # nowrap: Sphinx would wrap multi-row matrices in a split environment, where
            # \tag is not allowed; one display per equation, the paper's number as its tag
            out.append(f"**{label}**\n\n.. math::\n   :nowrap:\n\n{_indent(display(tex))}\n\n")
    else:
        out.append("No LaTeX for this formulation yet (set ``latex=`` on its ``Reference``); the "
                   "class docstring below has the equations in text.\n\n")
    out.append(_title("The cvxpy builder", "-"))
    bcls = _defining(cls, "_build")
    note = "" if bcls is cls else f" (inherited from :class:`{bcls.__module__}.{bcls.__qualname__}`)"
    out.append(f"``{cls.__name__}._build``{note} — variables and parameters are named as in the "
               "paper; hyperparameters are :class:`cvxpy.Parameter` objects, so a re-solve after "
               "changing one skips recompilation.\n\n")
    out.append(".. code-block:: python\n\n" + _indent(_code(bcls._build)) + "\n")
    ocls = _defining(cls, "objective")
    out.append(f"The NumPy twin of the objective, ``{ocls.__name__}.objective``, scores every "
               "backend the same way:\n\n")
    out.append(".. code-block:: python\n\n" + _indent(_code(ocls.objective)) + "\n")
    out.append(_title("Closed form", "-"))
    if cls.has_closed_form:
        derivation = closed_form_of(cls)
        if derivation:
            out.append(derivation + "\n\n")
        ccls = _defining(cls, "closed_form")
        out.append(f"``{ccls.__name__}.closed_form``:\n\n.. code-block:: python\n\n"
                   + _indent(_code(ccls.closed_form)) + "\n")
    else:
        out.append("None: the problem is not a linear system; the harness compares the cvxpy "
                   "solvers with each other.\n\n")
    out.append(_title("Paper slips corrected", "-"))
    slips = _slips(cls)
    if slips:
        out.append("From the docstrings of the class and its module (each note names the test "
                   "that fails on the printed version, resolved in ``tests/``):\n\n")
        for item in slips:
            body = _strip_marker(item)
            out.append("* " + _indent(body, 2).lstrip() + "\n\n  *Pinned by:* "
                       + _pins(item, tests) + "\n\n")
    else:
        out.append("None recorded in the docstrings.\n\n")
    out.append(_title("Harness table", "-"))
    out.append(_harness(cls) + "\n")
    out.append(_title("Docstring", "-"))
    out.append(f".. autoclass:: {path}\n   :no-index:\n\n")
    return "".join(out)


def _formulation_pages() -> list[str]:
    from lssvm_cvx.formulations import FORMULATIONS

    tests = _test_index()
    names = sorted(FORMULATIONS)
    by_paper: dict[str, list[str]] = defaultdict(list)
    for name in names:
        cls = FORMULATIONS[name]
        _write(GEN / "formulations" / f"{name}.rst", _formulation_page(name, cls, tests))
        by_paper[cls.reference.paper].append(name)
    idx = [".. _formulations:\n\n", _title("Formulations"),
           "One page per entry of the formulation registry "
           "(:data:`lssvm_cvx.formulations.FORMULATIONS`), generated when the site is built: a new "
           "formulation gets its page without editing the docs. Each page has the paper's "
           "equations, the cvxpy builder, the closed form, the paper slips corrected and a "
           "harness table computed during the build.\n\n"]
    for paper in sorted(by_paper, key=lambda p: list(PAPER_TITLES).index(p) if p in PAPER_TITLES else 99):
        idx.append(_title(PAPER_TITLES.get(paper, paper), "-"))
        idx.append(".. list-table::\n   :header-rows: 1\n   :widths: 25 25 35 15\n\n"
                   "   * - name\n     - class\n     - equations\n     - closed form\n")
        for name in by_paper[paper]:
            cls = FORMULATIONS[name]
            eqs = ", ".join(f"{k} {v}" for k, v in cls.reference.equations.items()).replace("|", "/")
            idx.append(f"   * - :ref:`{name} <formulation-{name}>`\n     - ``{cls.__name__}``\n"
                       f"     - {eqs}\n     - {'yes' if cls.has_closed_form else 'no'}\n")
        idx.append("\n")
    idx.append(".. toctree::\n   :hidden:\n\n" + "".join(f"   {n}\n" for n in names))
    _write(GEN / "formulations" / "index.rst", "".join(idx))
    # papers page
    pp = [_title("Papers"), "The five papers, in ``shared/papers/``, and the formulations that "
          "implement their equations.\n\n"]
    for paper in by_paper:
        cls = FORMULATIONS[by_paper[paper][0]]
        pp.append(f".. _paper-{paper}:\n\n" + _title(PAPER_TITLES.get(paper, paper), "-"))
        pp.append(f"{cls.reference.citation}. File: ``{paper}.txt``.\n\n")
        for name in by_paper[paper]:
            c = FORMULATIONS[name]
            eqs = ", ".join(f"{k} {v}" for k, v in c.reference.equations.items())
            pp.append(f"* :ref:`{name} <formulation-{name}>` — {eqs}\n")
        pp.append("\n")
    _write(GEN / "papers.rst", "".join(pp))
    return names


# ------------------------------------------------------------------------------ API reference
def _public_modules() -> list[types.ModuleType]:
    """``lssvm_cvx``, its public submodules (breadth first) and ``problems``."""
    import lssvm_cvx

    mods = [lssvm_cvx]
    for name in lssvm_cvx.__all__:
        obj = getattr(lssvm_cvx, name)
        if isinstance(obj, types.ModuleType):
            mods.append(obj)
    queue = list(mods[1:])
    while queue:
        m = queue.pop(0)
        if hasattr(m, "__path__"):
            for info in pkgutil.iter_modules(m.__path__):
                if info.name.startswith("_"):
                    continue
                sub = importlib.import_module(f"{m.__name__}.{info.name}")
                if sub not in mods:
                    mods.append(sub)
                    queue.append(sub)
    try:
        mods.append(importlib.import_module("problems"))
    except ImportError:
        pass
    mods.sort(key=lambda m: (m.__name__ != "lssvm_cvx", m.__name__.count("."), m.__name__))
    return mods


def _public_names(mod: types.ModuleType) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, v in vars(mod).items() if not n.startswith("_")
                 and getattr(v, "__module__", None) == mod.__name__
                 and (inspect.isclass(v) or inspect.isfunction(v))]
    return [n for n in names if not isinstance(getattr(mod, n, None), types.ModuleType)]


def _api_pages() -> None:
    mods = _public_modules()
    canonical: dict[int, str] = {}
    pages = []
    for mod in mods:
        lines = [_title(f"``{mod.__name__}``"), f".. automodule:: {mod.__name__}\n   :no-members:\n\n"]
        entries = []
        for name in _public_names(mod):
            obj = getattr(mod, name)
            full = f"{mod.__name__}.{name}"
            key = id(obj)
            if importlib.util.find_spec(full) if hasattr(mod, "__path__") else False:
                # the name is also a submodule (kernels.roughness): document it in its module
                entries.append(f"* ``{name}`` — see :py:obj:`{obj.__module__}.{name}`\n")
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                if key in canonical:
                    entries.append(f"* ``{name}`` — see :py:obj:`{canonical[key]}`\n")
                    continue
                canonical[key] = full
                if inspect.isclass(obj):
                    lines.append(f".. autoclass:: {full}\n   :members:\n   :show-inheritance:\n"
                                 f"   :exclude-members: {SKLEARN_MEMBERS}\n\n")
                else:
                    lines.append(f".. autofunction:: {full}\n\n")
            else:
                if key in canonical and not isinstance(obj, (int, float, str, tuple, bool)):
                    entries.append(f"* ``{name}`` — see :py:obj:`{canonical[key]}`\n")
                    continue
                canonical.setdefault(key, full)
                lines.append(f".. autodata:: {full}\n   :no-value:\n\n")
        if entries:
            lines.append(".. rubric:: Also exported here\n\n" + "".join(entries) + "\n")
        slug = mod.__name__
        _write(GEN / "api" / f"{slug}.rst", "".join(lines))
        pages.append(slug)
    idx = [_title("API reference"),
           "Every name in ``__all__`` of :mod:`lssvm_cvx`, of its public submodules and of the "
           "``problems`` catalogue, generated from the packages at build time. Each object is "
           "documented once, at its shortest public path, and listed where else it is "
           "exported. Formulation classes link to their pages with the paper's equations.\n\n",
           ".. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {p}\n" for p in pages)]
    _write(GEN / "api" / "index.rst", "".join(idx))


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


def _generate(app) -> None:
    t0 = time.perf_counter()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    names = _formulation_pages()
    _api_pages()
    print(f"lssvm_docs: {len(names)} formulation pages and the API reference generated "
          f"in {time.perf_counter() - t0:.1f} s")


def setup(app):
    app.connect("config-inited", _mathjax)
    app.connect("builder-inited", _generate)
    app.connect("autodoc-process-docstring", _link_formulation, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
