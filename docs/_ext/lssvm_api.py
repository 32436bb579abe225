"""The API reference of the site, generated at build time: every name in ``__all__`` of
``lssvm_cvx``, of its public submodules (walked, so moved modules follow) and of ``problems``;
each object documented once, at its shallowest public path, and listed as an alias elsewhere.
A page per module, and a page per public class ending with the gallery examples that use it."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import types
from pathlib import Path

from lssvm_rst import title, write

SKLEARN_MEMBERS = ("set_fit_request,set_predict_request,set_score_request,set_transform_request,"
                   "set_partial_fit_request,set_output,get_metadata_routing,get_params,set_params")

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


def api_pages(out: Path) -> None:
    """Write the API reference into ``out``: a page per module, a page per public class."""
    mods = _public_modules()
    canonical: dict[int, str] = {}
    pages = []
    for mod in mods:
        lines = [title(f"``{mod.__name__}``"), f".. automodule:: {mod.__name__}\n   :no-members:\n\n"]
        entries: list[str] = []
        classes: list[str] = []
        class_pages: list[str] = []
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
                    # one page per public class, ending with the examples that use it
                    summary = (inspect.getdoc(obj) or "").split("\n\n", 1)[0].replace("\n", " ")
                    summary = summary[:-1] if summary.endswith("::") else summary
                    classes.append(f"* :class:`{full}` — {summary}\n")
                    write(out / f"{full}.rst",
                           title(f"``{full}``") + f".. currentmodule:: {mod.__name__}\n\n"
                           f".. autoclass:: {name}\n   :members:\n   :show-inheritance:\n"
                           f"   :exclude-members: {SKLEARN_MEMBERS}\n\n"
                           f".. minigallery:: {full} {obj.__module__}.{obj.__qualname__}\n"
                           f"   :add-heading: Examples using ``{name}``\n\n")
                    class_pages.append(full)
                else:
                    lines.append(f".. autofunction:: {full}\n\n")
            else:
                if key in canonical and not isinstance(obj, (int, float, str, tuple, bool)):
                    entries.append(f"* ``{name}`` — see :py:obj:`{canonical[key]}`\n")
                    continue
                canonical.setdefault(key, full)
                lines.append(f".. autodata:: {full}\n   :no-value:\n\n")
        if classes:
            lines.insert(2, ".. rubric:: Classes (one page each)\n\n" + "".join(classes) + "\n"
                         ".. toctree::\n   :hidden:\n\n"
                         + "".join(f"   {c}\n" for c in class_pages) + "\n")
        if entries:
            lines.append(".. rubric:: Also exported here\n\n" + "".join(entries) + "\n")
        slug = mod.__name__
        write(out / f"{slug}.rst", "".join(lines))
        pages.append(slug)
    idx = [title("API reference"),
           "Every name in ``__all__`` of :mod:`lssvm_cvx`, of its public submodules and of the "
           "``problems`` catalogue, generated from the packages at build time. Each object is "
           "documented once, at its shortest public path, and listed where else it is "
           "exported. Formulation classes link to their pages with the paper's equations.\n\n",
           ".. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {p}\n" for p in pages)]
    write(out / "index.rst", "".join(idx))
