"""A static catalogue of the registered formulations, so ``lssvm-cvx formulations`` answers
without importing cvxpy or any formulation module (< 0.5 s).

The catalogue is a JSON file keyed by a hash of the formulation sources
(``lssvm_cvx/formulations/*.py``).  The shipped copy (``catalogue.json`` beside this module)
is used when its hash matches; otherwise a copy in the user's cache directory; otherwise the
registry is imported once (slow) and the result cached there.  ``refresh(write_shipped=True)``
rewrites the shipped copy (``lssvm-cvx formulations --refresh``).

For the command's teacher-facing views: :func:`list_line` (one line of the list),
:func:`plain_text` (a docstring without reStructuredText markup), :func:`search` (a word in
the names, classes, methods and equations), :func:`sources` (the cvxpy builder, the NumPy
objective and the closed form as source text), :func:`details` (all of it, ``--json``) and
:func:`show_text` (``--show`` as text, LaTeX or source).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import textwrap
from pathlib import Path
from typing import Any

from .harness.files import atomic_write

__all__ = ["catalogue", "refresh", "source_hash", "list_line", "paper_short", "plain_text",
           "search", "vocabulary", "sources", "details", "show_text"]

_HERE = Path(__file__).resolve().parent
_SHIPPED = _HERE / "catalogue.json"
#: the entries' layout; part of :func:`source_hash`, so a cache written before a field was
#: added (``methods``) is rebuilt
_FORMAT = "2"


def source_hash() -> str:
    """Short SHA-256 of the formulation modules' sources (names and bytes)."""
    h = hashlib.sha256(_FORMAT.encode())
    for p in sorted((_HERE / "formulations").glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lssvm_cvx" / "catalogue.json"


def _equation(doc: str) -> str:
    """The class docstring up to its numpydoc sections (the paper's equation lives there)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    out = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if nxt.strip() and set(nxt.strip()) == {"-"} and line.strip():
            break
        out.append(line)
    return "\n".join(out).strip()


def _unicode(cls: Any) -> dict[str, str]:
    """The paper's display equations as Unicode text (empty when the formulation has none)."""
    try:
        from .formulations.equations import unicode_of

        return unicode_of(cls)
    except Exception:  # pylatexenc missing or an equation it cannot parse: the docstring stays
        return {}


def _methods(cls: Any) -> list[str]:
    """The public methods a formulation adds to the contract of
    :class:`~lssvm_cvx.formulations.base.Formulation` (``predict``, ``path``, ...), but those of
    the other task (:func:`~lssvm_cvx.formulations.tasks.task_method`: a regression class's
    ``decision_function``, its classifier preset's ``predict``)."""
    from types import FunctionType

    from .formulations.base import Formulation

    contract = set(vars(Formulation))
    found: set[str] = set()
    for k in cls.__mro__:
        if k is Formulation or k is object:
            continue
        found.update(a for a, v in vars(k).items()
                     if not a.startswith("_") and a not in contract
                     and isinstance(v, (FunctionType, classmethod, staticmethod)))
    task = getattr(cls, "default_task", None)
    return sorted(a for a in found
                  if getattr(getattr(cls, a, None), "only_task", task) in (None, task))


def _entry(cls: Any) -> dict[str, Any]:
    ref = cls.reference
    entry: dict[str, Any] = {
        "name": cls.name, "class": f"{cls.__module__}.{cls.__qualname__}",
        "paper": getattr(ref, "paper", ""), "citation": getattr(ref, "citation", str(ref)),
        "equations": dict(getattr(ref, "equations", {}) or {}), "reference": str(ref),
        "has_closed_form": bool(cls.has_closed_form), "compare": list(cls.compare),
        "equation": _equation(cls.__doc__ or ""), "unicode": _unicode(cls),
        "methods": _methods(cls),
        "variables": [], "parameters": [],
        "problem_class": None,
    }
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inst = cls.random_instance(12)
            prob = inst.build()
        entry["variables"] = [f"{k} {tuple(v.shape)}" for k, v in prob.vars.items()]
        entry["parameters"] = [f"{k} {tuple(p.shape)}" for k, p in prob.params.items()]
        entry["problem_class"] = "QP" if prob.is_qp() else "SOCP"
        entry["dpp"] = bool(prob.is_dpp())
    except Exception as exc:  # a formulation without a small random instance
        entry["note"] = f"not built at n = 12: {type(exc).__name__}: {exc}"
    return entry


def refresh(write_shipped: bool = False) -> dict[str, Any]:
    """Import the registry, build the catalogue, cache it (and optionally ship it)."""
    from .formulations import FORMULATIONS

    data = {"hash": source_hash(),
            "formulations": {n: _entry(c) for n, c in sorted(FORMULATIONS.items())
                             if not n.startswith("_")}}
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    targets = [_SHIPPED] if write_shipped else []
    targets.append(_cache_file())
    for t in targets:
        try:
            atomic_write(t, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
        except OSError:
            pass
    return data


def catalogue() -> dict[str, dict[str, Any]]:
    """``name -> entry`` for every registered formulation (fast when the sources are
    unchanged since the catalogue was written)."""
    h = source_hash()
    for path in (_SHIPPED, _cache_file()):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("hash") == h:
            return data["formulations"]
    return refresh()["formulations"]


# --- views for ``lssvm-cvx formulations`` ----------------------------------------------------
#: the widest line :func:`list_line` writes
LIST_WIDTH = 100


def paper_short(entry: dict[str, Any]) -> str:
    """The paper's short name, ``"Pelckmans et al. 2006"``: first author and year.

    Parameters
    ----------
    entry : dict
        A catalogue entry (its ``citation``, ``Name, Other & Third (2006), ...`` or ``...
        (Name et al. 2006)``, else its ``paper`` key, ``...-name-2006``).

    Returns
    -------
    str
        First author, ``et al.`` for several, and year.
    """
    citation = str(entry.get("citation", ""))
    m = re.match(r"([A-Z][\w'-]+)([^()]*)\((\d{4})\)", citation)
    if m:
        more = " et al." if "&" in m.group(2) or " and " in m.group(2) else ""
        return f"{m.group(1)}{more} {m.group(3)}"
    m = re.search(r"\(([A-Z][\w'-]+(?: et al\.)?),? (\d{4})\)", citation)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    parts = str(entry.get("paper", "")).split("-")
    if len(parts) >= 2 and parts[-1].isdigit():
        return f"{parts[-2].capitalize()} {parts[-1]}"
    return parts[-1].capitalize() if parts[-1] else "?"


def list_line(entry: dict[str, Any], width: int = LIST_WIDTH) -> str:
    """One line of ``lssvm-cvx formulations``: name, closed form or not, paper, equations.

    Parameters
    ----------
    entry : dict
        A catalogue entry.
    width : int, default=100
        The longest line: the equations are ``label (n)`` pairs, else the numbers alone, the
        last ones cut to ``…``.

    Returns
    -------
    str
        The line (the full citation is left to ``--show``).
    """
    head = (f"{entry['name']:<31} {'closed form' if entry['has_closed_form'] else 'cvxpy only':<12}"
            f"{paper_short(entry):<22} ")
    room = width - len(head)
    eqs = dict(entry.get("equations") or {})
    text = ", ".join(f"{k} {v}" for k, v in eqs.items())
    if len(text) > room:
        text = ""
        for i, v in enumerate(eqs.values()):
            more = (", " if text else "") + v
            tail = ", …" if i < len(eqs) - 1 else ""
            if len(text + more + tail) > room:
                text += ", …" if text else "…"
                break
            text += more
    return (head + text).rstrip()[:width]


def plain_text(text: str) -> str:
    """A docstring excerpt without its reStructuredText markup, for a terminal.

    Parameters
    ----------
    text : str
        reStructuredText: ````x```` and ```x``` become ``x``, ``:role:`x``` becomes ``x``
        (``~a.b`` becomes ``b``), ``**x**`` becomes ``x``, ``text::`` becomes ``text:`` and a
        lone ``::`` line is dropped.

    Returns
    -------
    str
        The plain text.
    """
    def role(m: re.Match) -> str:
        target = m.group(1)
        return target.lstrip("~").rsplit(".", 1)[-1] if target.startswith("~") else target

    text = re.sub(r":[\w:-]+:`([^`]+)`", role, text)
    text = re.sub(r"``(.+?)``", r"\1", text, flags=re.S)
    text = re.sub(r"(?<![\w`])`([^`\n]+)`(?![\w`])", r"\1", text)
    text = re.sub(r"\*\*(\S(?:.*?\S)?)\*\*", r"\1", text)
    text = re.sub(r"(?m)^[ \t]*::[ \t]*(?:\n[ \t]*(?=\n)|$)\n?", "", text)
    text = re.sub(r"[ \t]+::(?=[ \t]*$)", ":", text, flags=re.M)
    return re.sub(r"(?<=\S)::(?=[ \t]*$)", ":", text, flags=re.M)


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-.,;:/()]+", " ", str(text).lower()).strip()


def search(word: str, entries: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """The formulations that mention a word, and where.

    Parameters
    ----------
    word : str
        Looked for in each formulation's name, class, methods (those it adds to the
        formulation contract), equation labels, equations, description, paper key and
        citation; case, ``_``, ``-`` and spaces alike (``modified_eps`` finds the label
        ``modified eps-constraint``).
    entries : dict
        ``name -> catalogue entry`` (:func:`catalogue`).

    Returns
    -------
    list of (str, str)
        ``(name, where)`` for each formulation, the first field that matched; only the exact
        class, method or equation-label matches when there are some; empty when none.
    """
    key = _norm(word)
    if not key:
        return []
    exact: list[tuple[str, str]] = []
    hits: list[tuple[str, str]] = []
    for name, e in sorted(entries.items()):
        cls = str(e.get("class", "")).rsplit(".", 1)[-1]
        fields = [("name", name), ("class", cls)]
        fields += [("method", m) for m in e.get("methods", [])]
        fields += [("equation label", k) for k in e.get("equations", {})]
        fields += [("equation", v) for v in (e.get("unicode") or {}).values()]
        fields += [("description", plain_text(e.get("equation", ""))), ("paper", e.get("paper", "")),
                   ("citation", e.get("citation", ""))]
        for where, value in fields:
            if where in ("class", "method", "equation label") and _norm(value) == key:
                exact.append((name, f"{where} {value}"))
                break
            if key in _norm(value):
                shown = value if len(value) <= 60 else value[:57] + "..."
                hits.append((name, f"{where} {shown!r}" if where not in ("name", "class", "method")
                             else f"{where} {value}"))
                break
    return exact or hits


def vocabulary(entries: dict[str, dict[str, Any]]) -> list[str]:
    """The words :func:`search` matches exactly, to suggest when it finds nothing.

    Parameters
    ----------
    entries : dict
        ``name -> catalogue entry`` (:func:`catalogue`).

    Returns
    -------
    list of str
        The formulation names, class names, methods and equation labels, sorted.
    """
    words: set[str] = set(entries)
    for e in entries.values():
        words.add(str(e.get("class", "")).rsplit(".", 1)[-1])
        words.update(e.get("methods", []))
        words.update(e.get("equations", {}))
    return sorted(w for w in words if w)


def _defining(cls: type, attr: str) -> type | None:
    return next((k for k in cls.__mro__ if attr in vars(k)), None)


def sources(formulation: Any) -> dict[str, dict[str, str] | None]:
    """The source of a formulation's cvxpy builder, NumPy objective and closed form.

    Parameters
    ----------
    formulation : type
        A formulation class.

    Returns
    -------
    dict
        ``{"builder": ..., "objective": ..., "closed form": ...}`` for ``_build``,
        ``objective`` and ``closed_form``, each ``{"defined in": "module.Class.method" (the
        class of the MRO that defines it), "source": its source}``, or ``None`` (no closed form).
    """
    out: dict[str, dict[str, str] | None] = {}
    for label, attr in (("builder", "_build"), ("objective", "objective"),
                        ("closed form", "closed_form")):
        k = _defining(formulation, attr)
        if k is None or (attr == "closed_form" and not formulation.has_closed_form):
            out[label] = None
            continue
        try:
            text = textwrap.dedent(inspect.getsource(vars(k)[attr]))
        except (OSError, TypeError):
            text = "# source not available"
        out[label] = {"defined in": f"{k.__module__}.{k.__qualname__}.{attr}", "source": text}
    return out


def details(name: str) -> dict[str, Any]:
    """Everything about one formulation, for ``--show NAME --json`` (imports the registry).

    Parameters
    ----------
    name : str
        A registered formulation.

    Returns
    -------
    dict
        Its catalogue entry (citation, equations, class, variables, parameters, ...) with
        ``latex`` (label -> LaTeX), ``description`` (the docstring without markup),
        ``closed_form_derivation``, and ``builder_source``, ``objective_source`` and
        ``closed_form_source`` (see :func:`sources`).
    """
    from .formulations import get_formulation
    from .formulations.equations import closed_form_of, latex_of

    cls = get_formulation(name)
    entry = dict(catalogue().get(name) or _entry(cls))
    src = sources(cls)
    entry.update({
        "description": plain_text(entry.get("equation", "")),
        "latex": dict(latex_of(cls)),
        "closed_form_derivation": closed_form_of(cls) or None,
        "builder_source": src["builder"], "objective_source": src["objective"],
        "closed_form_source": src["closed form"],
    })
    return entry


def show_text(entry: dict[str, Any], view: str = "text") -> str:
    r"""What ``lssvm-cvx formulations --show`` prints.

    Parameters
    ----------
    entry : dict
        A catalogue entry for ``"text"``; :func:`details` for ``"latex"`` and ``"source"``.
    view : {"text", "latex", "source"}, default="text"
        ``"text"``: citation, variables, parameters, the equations in Unicode and the
        description without markup; ``"latex"``: the equations as LaTeX displays (``\[ ...
        \]``, labels as comments); ``"source"``: the builder, objective and closed form.

    Returns
    -------
    str
        The text, without a final newline.
    """
    from .checks import check_option  # here: the CLI's listing must not import scikit-learn

    check_option(view, ("text", "latex", "source"), "view")
    e = entry
    if view == "latex":
        out = [f"% {e['name']}: {e['citation']}", r"% (needs amsmath: \tag, \tfrac, bmatrix)"]
        for label, tex in e["latex"].items():
            out += ["", f"% {label} {e['equations'].get(label, '')}".rstrip(), r"\[", tex, r"\]"]
        return "\n".join(out + ([] if e["latex"] else [f"% no LaTeX recorded for {e['name']}"]))
    if view == "source":
        out = []
        for key, what in (("builder_source", "the cvxpy problem"),
                          ("objective_source", "the NumPy twin of the objective"),
                          ("closed_form_source", "the closed form")):
            src = e[key]
            out.append(f"# {what}: none (the cvxpy solvers are compared with each other)"
                       if src is None else f"# {what}: {src['defined in']}\n{src['source']}")
        return "\n".join(out).rstrip()
    eqs = ", ".join(f"{k} {v}" for k, v in e["equations"].items())
    solvers = ("any QP or conic solver" if e["problem_class"] == "QP"
               else "conic solvers: CLARABEL, ECOS, SCS, CVXOPT, QOCO")
    backends = (["closed form"] if e["has_closed_form"] else []) + [
        f"cvxpy ({e['problem_class'] or '?'}: {solvers})"]
    out = [f"{e['name']} — {e['citation']}",
           f"paper: {e['paper']}   equations: {eqs or '–'}",
           f"class: {e['class']}",
           f"variables: {', '.join(e['variables']) or '–'}",
           f"parameters: {', '.join(e['parameters']) or '–'}" + ("   (DPP)" if e.get("dpp") else ""),
           f"compared by the harness: {', '.join(e['compare'])}",
           f"backends: {'; '.join(backends)}"]
    for label, text in (e.get("unicode") or {}).items():
        out += ["", f"{label}:", f"    {text}"]
    out += ["", plain_text(e["equation"]), "",
            "(--latex: the equations in LaTeX; --source: the code; --json: both)"]
    return "\n".join(out)
