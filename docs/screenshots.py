"""Screenshots of built formulation pages at a 1280 px window, for the record that their widest
equations show whole (issue 29: they were cut off on the left).

Build the site, then run this from the repository root::

    sphinx-build -W -b html docs docs/_build/html
    python docs/screenshots.py                       # l2svm_dual and pareto_krr_alpha
    python docs/screenshots.py lssvm areg_cv         # other formulation pages

It writes ``docs/_static/screenshots/<name>.png``: the top 1280 x 1300 px of
``docs/_build/html/generated/formulations/<name>.html`` in headless Chromium (title, paper
reference and "The paper's equations"), taken with Chromium's own ``--screenshot`` after MathJax
has typeset the page.  ``tests/test_docs_browser.py`` checks every page's equations; these
files are for people to look at.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGES = HERE / "_build" / "html" / "generated" / "formulations"
OUT = HERE / "_static" / "screenshots"
DEFAULT = ("l2svm_dual", "pareto_krr_alpha")
WINDOW = (1280, 1300)


def chromium() -> str:
    """Path of a Chromium or Chrome binary."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("Chromium is not installed (apt-get install chromium)")


def screenshot(name: str, exe: str, window: tuple[int, int] = WINDOW) -> Path:
    """Screenshot of the formulation page ``name`` into ``OUT/<name>.png``."""
    page = PAGES / f"{name}.html"
    if not page.exists():
        sys.exit(f"{page} does not exist: build the site first "
                 "(sphinx-build -W -b html docs docs/_build/html)")
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{name}.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update",
                        "--disable-dev-shm-usage",
                        f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}",
                        # virtual time runs MathJax to the end before the picture is taken
                        "--virtual-time-budget=20000", f"--screenshot={out}", page.as_uri()],
                       check=True, capture_output=True, timeout=180)
    return out


def main(argv: list[str] | None = None) -> None:
    """Command line: the names of formulation pages (default: l2svm_dual pareto_krr_alpha)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=list(DEFAULT), help="formulation names")
    args = ap.parse_args(argv)
    exe = chromium()
    for name in args.names:
        print(screenshot(name, exe).relative_to(HERE.parent))


if __name__ == "__main__":
    main()
