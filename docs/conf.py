"""Sphinx configuration of the lssvm_cvx site.

Build: ``pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html``.

The formulation pages and the API reference are generated at build time (``_ext/lssvm_docs.py``)
from the formulation registry and the public packages' ``__all__``: a new formulation or a
moved module shows up without editing this folder.  The gallery (``../examples``) is executed
by sphinx-gallery on every build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))            # the worktree's lssvm_cvx and problems
sys.path.insert(0, str(HERE / "_ext"))

# one BLAS thread: the examples and the harness tables are small, the machine is shared
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import lssvm_cvx  # noqa: E402

project = "lssvm_cvx"
author = "lssvm_cvx developers"
copyright = "lssvm_cvx developers, BSD-3-Clause"
version = release = lssvm_cvx.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "lssvm_docs",
    "lssvm_results",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.codeobj.json", "sg_execution_times.rst"]
templates_path: list[str] = []
root_doc = "index"
default_role = "math"        # `x` in a docstring or page is inline math
nitpicky = False

# --- autodoc / numpydoc ---------------------------------------------------------------------
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"          # numpydoc writes the types; signatures stay readable
autodoc_inherit_docstrings = True
numpydoc_show_class_members = False  # members are listed by the generated API pages
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- math: MathJax 3, served from this site when the docs extra installed it ------------------
# (lssvm_docs copies tex-svg-full.js into _static/mathjax and points mathjax_path at it; without
# the package Sphinx's default CDN address is used).  MathJax 3 (django-static-mathjax 3.2.2)
# has no automatic line breaking: lssvm_docs breaks the formulation pages' wide displays into
# aligned rows, and _static/lssvm.css makes any display still wider than the column scroll
# sideways from its left edge (tests/test_docs_browser.py checks every page at 1280 px).
mathjax3_config = {"tex": {"tags": "none"}, "svg": {"fontCache": "global"}}

# --- sphinx-gallery ------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "abort_on_example_error": True,
    "plot_gallery": "True",
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "matplotlib_animations": False,
    # matplotlib's scraper, after a check that no two texts of a figure overlap
    "image_scrapers": ("lssvm_docs.checked_matplotlib_scraper",),
    "thumbnail_size": (320, 224),
    "within_subsection_order": "FileNameSortKey",
    # grouped by paper (one folder with a README.txt each), the LS-SVM itself first
    "subsection_order": [f"../examples/{d}" for d in (
        "lssvm", "areg", "componentwise", "l2svm", "pareto", "auto", "compose")],
    # every example draws in the slide style of lssvm_cvx.figures; images also at 2x
    "reset_modules": ("matplotlib", "lssvm_docs.gallery_style"),
    "image_srcset": ["2x"],
    # the last expression of a cell is shown only when it has an HTML repr (a table), never
    # as "<matplotlib.legend.Legend object at 0x...>"
    "capture_repr": ("_repr_html_",),
    # "Examples using X" on every API page and formulation page (.. minigallery::)
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("lssvm_cvx",),
    "inspect_global_variables": True,
    "show_memory": False,
    "show_signature": False,
}

# --- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "lssvm_cvx"
html_static_path = ["_static"]
html_css_files = ["lssvm.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "header_links_before_dropdown": 6,
}
html_sidebars = {"index": []}
html_last_updated_fmt = None
