"""The built site in a real browser: headless Chromium walks EVERY page of ``docs/_build/html``
(the index, the formulation pages, the gallery, the API reference, the papers; not ``_static``,
``_sources``, the general index or the search page) at a 1280 px window and checks, page by page:

* the math: MathJax ran and typeset every ``.math`` element, with no error and no raw TeX left
  in the visible text;
* that every equation fits: no typeset formula (``mjx-container``) starts left of the left
  edge of a container that clips it (what is there can never be scrolled to), and none is wider
  than its container (the nearest block: ``div.math`` for a display, the paragraph for inline
  math) unless a container on the way scrolls sideways far enough to show all of it;
* the figures: every image loaded, and every panel of a gallery figure has something drawn in
  it (the axes frames are found in the PNG and the inside of each must not be blank), the
  thumbnails are not blank;
* no printed object repr (``<matplotlib.legend.Legend object at 0x...>``) in the visible text or
  in sphinx-gallery's output blocks.

Each check is shown to fail on a synthetic bad page or figure (``test_*_catches_*``).

The browser is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: no
extra dependency), one Chromium for the whole walk.  Marked ``browser``: it needs Chromium from
the distribution's packages (``apt-get install chromium``) and the built site
(``sphinx-build -W -b html docs docs/_build/html``); elsewhere it is skipped with the reason.
Set ``LSSVM_DOCS_BROWSER_REQUIRED=1`` (CI, after the docs build) to turn those skips into
failures.  The checks of the figure checker itself need no browser and run in every test run.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "docs" / "_build" / "html"
REQUIRED = os.environ.get("LSSVM_DOCS_BROWSER_REQUIRED", "") not in ("", "0")
WINDOW = (1280, 1000)
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_modules"}
SKIP_PAGES = {"genindex.html", "search.html"}
PREFIX = "_browser_check_"          # synthetic pages and figures of the self-tests
REPR = r"<[\w.]+ object at 0x[0-9a-fA-F]+>"


# ------------------------------------------------------------------------------ the probe
# Runs in each page once it has loaded: waits for MathJax and the images, then reports what a
# reader would see.  Lengths are CSS pixels; TOL absorbs sub-pixel rounding.
PROBE = r"""
(async () => {
  const TOL = 1.5;
  const sleep = (ms) => new Promise(r => setTimeout(r, ms));
  const hasMathJax = !!document.querySelector('script[src*="mathjax" i]');
  let mathjax = 'not loaded';
  if (hasMathJax) {
    for (let i = 0; i < 400 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++)
      await sleep(25);
    mathjax = 'missing';
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      try { await MathJax.startup.promise; mathjax = 'ok'; } catch (e) { mathjax = 'error: ' + e; }
    }
  }
  if (document.fonts) await document.fonts.ready;
  for (let i = 0; i < 400 && [...document.images].some(im => !im.complete); i++) await sleep(25);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));

  // --- typesetting
  const mathEls = [...document.querySelectorAll('.math')];
  const untypeset = mathEls.filter(el => !el.querySelector('mjx-container'))
                           .map(el => el.textContent.trim().slice(0, 80));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  const tex = /\\\(|\\\[|\$\$|\\(frac|begin|mathbf|sum|alpha|gamma|tfrac|operatorname|text|quad)\b/;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('pre, code, script, style, textarea, mjx-container, .highlight'))
      continue;
    if (tex.test(n.textContent)) raw.push(n.textContent.trim().slice(0, 80));
  }
  const errors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')]
                   .map(el => (el.getAttribute('data-mjx-error') || el.textContent).slice(0, 120));
  // an undefined macro: MathJax's noundefined extension prints its name in red
  for (const el of document.querySelectorAll('mjx-container [data-mml-node="mtext"][fill="red"]')) {
    const name = [...el.querySelectorAll('use[data-c]')]
                   .map(u => String.fromCodePoint(parseInt(u.getAttribute('data-c'), 16))).join('');
    errors.push('undefined macro ' + (name || el.textContent).slice(0, 60));
  }

  // --- does every typeset formula fit?
  const texOf = (m) => {
    try {
      const item = MathJax.startup.document.getMathItemsWithin(m)[0];
      if (item) return item.math.trim().replace(/\s+/g, ' ').slice(0, 70);
    } catch (e) { /* fall through */ }
    return m.textContent.slice(0, 70);
  };
  const where = (el) => {
    const id = el.closest('[id]');
    return el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
      ? '.' + el.className.trim().split(/\s+/).join('.') : '') + (id ? ' in #' + id.id : '');
  };
  const blockOf = (m) => {
    let a = m.parentElement;
    while (a && a !== document.body && /^(inline|contents)/.test(getComputedStyle(a).display))
      a = a.parentElement;
    return a || document.body;
  };
  const fit = [], wide = [];       // wide: fits only by scrolling sideways
  let nDisplay = 0;
  for (const m of document.querySelectorAll('mjx-container')) {
    const mr = m.getBoundingClientRect();
    if (mr.width === 0 && mr.height === 0) continue;             // not rendered (hidden)
    if (m.getAttribute('display') === 'true') nDisplay++;
    // the element's box and the ink in it (the glyphs and rules of the formula): both must be
    // reachable.  A tagged display's box is as wide as its column or, when the formula is
    // wider, as the formula with room for the tag on both sides.
    let L = mr.left, R = mr.right;
    for (const g of m.querySelectorAll('use, path, rect, text, line')) {
      const r = g.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      L = Math.min(L, r.left); R = Math.max(R, r.right);
    }
    const block = blockOf(m);
    const problem = (what) => fit.push({tex: texOf(m), display: m.getAttribute('display') === 'true',
                                       what, where: where(block), ink: [Math.round(L), Math.round(R)]});
    let l = L, r = R, scrolled = false, reported = false;
    for (let a = m; a && a !== document.documentElement && !reported; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const ar = a.getBoundingClientRect();
      const padL = ar.left + a.clientLeft, padR = padL + a.clientWidth;
      if (cs.overflowX !== 'visible') {
        const reachL = padL - a.scrollLeft, reachR = reachL + a.scrollWidth;
        const scrolls = cs.overflowX === 'auto' || cs.overflowX === 'scroll';
        if (l < reachL - TOL) {
          problem(`starts ${Math.round(reachL - l)} px left of the left edge of ${where(a)}, ` +
                  `which clips it (overflow-x: ${cs.overflowX}): no scrolling reaches it`);
          reported = true;
        } else if (r > padR + TOL && !scrolls) {
          problem(`is cut off ${Math.round(r - padR)} px on the right by ${where(a)} ` +
                  `(overflow-x: ${cs.overflowX}, does not scroll)`);
          reported = true;
        } else if (r > reachR + TOL) {
          problem(`ends ${Math.round(r - reachR)} px beyond the scroll range of ${where(a)}`);
          reported = true;
        } else if (r > padR + TOL) {
          scrolled = true;
          wide.push({tex: texOf(m), display: m.getAttribute('display') === 'true',
                     over: Math.round(r - padR), where: where(a)});
        }
        l = Math.max(l, padL); r = Math.min(r, padR);             // what shows of it
      }
      if (a === block && !reported && !scrolled && (L < padL - TOL || R > padR + TOL)) {
        problem(`is ${Math.round(R - L)} px wide, its container ${where(a)} ` +
                `${Math.round(padR - padL)} px, and nothing on the way scrolls sideways`);
        reported = true;
      }
    }
    const vw = document.documentElement.clientWidth;
    if (!reported && (l < -TOL || r > vw + TOL))
      problem(`sticks out of the ${vw} px window (${Math.round(l)}..${Math.round(r)} px)`);
  }

  // --- printed object reprs, in the visible text and in sphinx-gallery's output blocks
  const reprRe = new RegExp(REPR_RE, 'g');
  const outputs = [...document.querySelectorAll(
      '.sphx-glr-script-out, .sphx-glr-script-out pre, div.output_subarea, .rendered_html')]
      .map(el => el.textContent).join('\n');
  const reprs = [...new Set([...(document.body.innerText + '\n' + outputs).matchAll(reprRe)]
                              .map(x => x[0]))];

  // --- images
  const images = [...document.images].map(im => ({
    src: im.currentSrc || im.src, attr: im.getAttribute('src'), cls: im.className,
    loaded: im.complete && im.naturalWidth > 0, w: im.naturalWidth, h: im.naturalHeight,
    shown: im.getBoundingClientRect().width > 0}));

  return {mathjax, hasMathJax, n_math: mathEls.length,
          n_typeset: document.querySelectorAll('mjx-container').length, n_display: nDisplay,
          untypeset, raw, errors, fit, wide, reprs, images, title: document.title};
})()
""".replace("REPR_RE", json.dumps(REPR))


# ------------------------------------------------------------------------------ the browser
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _skip_or_fail(reason: str) -> None:
    if REQUIRED:
        pytest.fail(reason + " (LSSVM_DOCS_BROWSER_REQUIRED is set)")
    pytest.skip(reason)


class Browser:
    """One headless Chromium, driven over the DevTools protocol on a pipe (fd 3: commands in,
    fd 4: replies and events out, NUL-separated JSON), with one tab at ``WINDOW``."""

    def __init__(self, exe: str, window: tuple[int, int] = WINDOW):
        self.profile = tempfile.TemporaryDirectory(prefix="lssvm-docs-chromium-")
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()

        def child_fds() -> None:          # the pipe ends at fds 3 and 4 in Chromium
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
             "--disable-extensions", "--mute-audio",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile.name}",
             f"--window-size={window[0]},{window[1]}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=child_fds)
        os.close(cmd_r)
        os.close(out_w)
        self.w, self.r = cmd_w, out_r
        self.buf, self.next_id, self.events = b"", 0, []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=self.session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": window[0], "height": window[1], "deviceScaleFactor": 1,
                   "mobile": False}, session=self.session)

    def _message(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer in {timeout:.0f} s")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise EOFError(f"Chromium closed the pipe (exit {self.proc.poll()})")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 60) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._message(timeout)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def open(self, url: str, timeout: float = 60) -> None:
        """Navigate the tab to ``url`` and wait for its load event."""
        self.events.clear()
        res = self.send("Page.navigate", {"url": url}, session=self.session, timeout=timeout)
        if res.get("errorText"):
            raise RuntimeError(f"{url}: {res['errorText']}")
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._message(timeout))

    def evaluate(self, expression: str, timeout: float = 60) -> object:
        res = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                             "returnByValue": True},
                        session=self.session, timeout=timeout)
        if "exceptionDetails" in res:
            raise RuntimeError(f"the probe failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def probe(self, page: Path) -> dict:
        self.open(page.as_uri())
        return self.evaluate(PROBE)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (OSError, TimeoutError, EOFError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            os.close(fd)
        self.profile.cleanup()


# ------------------------------------------------------------------------------ figures
def _rgb(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("RGBA")
        white = Image.new("RGBA", im.size, (255, 255, 255, 255))
        return np.asarray(Image.alpha_composite(white, im).convert("RGB"), dtype=np.int16)


def _bands(mask: np.ndarray, min_len: int) -> list[tuple[int, int, int, int]]:
    """Runs of True at least ``min_len`` long in the rows of ``mask``, the same run on
    consecutive rows merged into one band: ``(first row, last row, start, end)``."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    d = np.diff(padded, axis=1)
    open_: dict[tuple[int, int], int] = {}
    bands = []
    for y in range(mask.shape[0]):
        runs = set()
        if mask[y].sum() >= min_len:
            starts, ends = np.flatnonzero(d[y] == 1), np.flatnonzero(d[y] == -1)
            runs = {(int(s), int(e)) for s, e in zip(starts, ends) if e - s >= min_len}
        for run in list(open_):
            if run not in runs:
                bands.append((open_.pop(run), y - 1, *run))
        for run in runs:
            open_.setdefault(run, y)
    bands += [(y0, mask.shape[0] - 1, *run) for run, y0 in open_.items()]
    return bands


def axes_panels(rgb: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The axes frames of a Matplotlib figure: rectangles ``(x0, y0, x1, y1)`` drawn by dark
    spines (two long black horizontal lines of the same extent joined at both ends by long
    black vertical ones), at least 40 x 30 px; only the outermost (bars with black edges inside
    an axes are not panels)."""
    h, w = rgb.shape[:2]
    dark = rgb.max(axis=2) < 110
    hor = _bands(dark, max(40, w // 25))                   # rows y0..y1, columns x0..x1
    ver = _bands(dark.T, max(30, h // 20))                 # columns, rows

    tol = max(10, w // 100)              # tick marks at the corners lengthen the spines' runs

    def side(lo: int, hi: int, top: int, bottom: int) -> int | None:
        """The column of a vertical spine between columns lo and hi from top to bottom."""
        cols = [(c0 + c1) // 2 for c0, c1, s, e in ver
                if lo <= c1 and c0 <= hi and s <= top + 3 and e >= bottom - 3]
        return cols[0] if cols else None

    rects = []
    for ta, _, x0, x1 in hor:
        for _, bb, u0, u1 in hor:
            if bb - ta < 30 or abs(x0 - u0) > tol or abs(x1 - u1) > tol:
                continue
            left = side(min(x0, u0) - 3, max(x0, u0) + tol, ta, bb)
            right = side(min(x1, u1) - tol, max(x1, u1) + 3, ta, bb)
            if left is not None and right is not None and right - left >= 40:
                rects.append((left, ta, right, bb))
    out: list[tuple[int, int, int, int]] = []
    for r in sorted(rects, key=lambda r: (r[2] - r[0]) * (r[3] - r[1]), reverse=True):
        if not any(o[0] - 4 <= r[0] and o[1] - 4 <= r[1] and r[2] <= o[2] + 4 and r[3] <= o[3] + 4
                   for o in out):
            out.append(r)
    return sorted(out, key=lambda r: (r[1] // 10, r[0]))


def _ink(region: np.ndarray) -> int:
    """Pixels that differ from the region's background (its most common colour) by more
    than 40 levels in a channel."""
    if region.size == 0:
        return 0
    flat = region.reshape(-1, 3)
    packed = (flat[:, 0].astype(np.int32) << 16) | (flat[:, 1].astype(np.int32) << 8) | flat[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    top = int(values[np.argmax(counts)])
    bg = np.array([top >> 16, (top >> 8) & 255, top & 255], dtype=np.int16)
    return int((np.abs(flat - bg).max(axis=1) > 40).sum())


def figure_problems(path: Path, thumbnail: bool = False) -> list[str]:
    """What is wrong with a gallery figure: an axes panel with nothing drawn inside its frame
    (the inside, 6 px in from the spines so that ticks pointing in do not count, has fewer than
    20 pixels off its background colour), or, where no frame is found (a thumbnail, axes
    without spines), a figure with less than 0.5 % of its pixels off the background."""
    rgb = _rgb(path)
    h, w = rgb.shape[:2]
    panels = [] if thumbnail else axes_panels(rgb)
    problems = []
    for k, (x0, y0, x1, y1) in enumerate(panels):
        inside = rgb[y0 + 6:y1 - 5, x0 + 6:x1 - 5]
        if _ink(inside) < 20:
            problems.append(f"axes panel {k + 1} of {len(panels)} (x {x0}-{x1}, y {y0}-{y1} px) "
                            "is empty: nothing is drawn inside its frame")
    if not panels and _ink(rgb) < 0.005 * h * w:
        problems.append(f"the {w}x{h} image is blank ({_ink(rgb)} pixels off the background)")
    return problems


# ------------------------------------------------------------------------------ checking a page
def _path_of(url: str) -> Path | None:
    u = urlparse(url)
    return Path(unquote(u.path)) if u.scheme == "file" else None


def page_problems(report: dict) -> dict[str, list[str]]:
    """The problems in one page's probe report, by check."""
    out: dict[str, list[str]] = {"math": [], "fit": [], "figures": [], "reprs": []}
    if report["n_math"] and report["mathjax"] != "ok":
        out["math"].append(f"MathJax: {report['mathjax']}")
    out["math"] += [f"not typeset: {t!r}" for t in report["untypeset"]]
    out["math"] += [f"raw TeX in the text: {t!r}" for t in report["raw"]]
    out["math"] += [f"MathJax error: {t!r}" for t in report["errors"]]
    out["fit"] += [f"{'display' if f['display'] else 'inline'} {f['tex']!r} {f['what']}"
                   for f in report["fit"]]
    out["reprs"] += [f"prints {r}" for r in report["reprs"]]
    for im in report["images"]:
        if not im["loaded"]:
            out["figures"].append(f"image {im['attr']} did not load")
            continue
        path = _path_of(im["src"])
        name = path.name if path else ""
        if path is None or not (name.startswith("sphx_glr_") or name.startswith(PREFIX)):
            continue
        out["figures"] += [f"{name}: {p}"
                           for p in figure_problems(path, thumbnail=name.endswith("_thumb.png"))]
    return out


def site_pages() -> list[Path]:
    pages = []
    for p in sorted(HTML.rglob("*.html")):
        rel = p.relative_to(HTML)
        if (rel.parts[0] in SKIP_DIRS or rel.name in SKIP_PAGES or rel.name.startswith(PREFIX)):
            continue
        pages.append(p)
    return pages


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    if path is None:
        _skip_or_fail("Chromium is not installed (apt-get install chromium)")
    if not (HTML / "index.html").exists():
        _skip_or_fail(f"the docs are not built ({HTML}); run "
                      "sphinx-build -W -b html docs docs/_build/html")
    b = Browser(path)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def walk(browser) -> dict[str, dict]:
    """The probe's report of every page of the site, by path under ``docs/_build/html``."""
    t0 = time.perf_counter()
    reports = {}
    for page in site_pages():
        rep = browser.probe(page)
        rep["problems"] = page_problems(rep)
        reports[page.relative_to(HTML).as_posix()] = rep
    print(f"\nbrowser walk: {len(reports)} pages in {time.perf_counter() - t0:.1f} s")
    return reports


def _assert_none(walk: dict[str, dict], check: str) -> None:
    bad = {page: rep["problems"][check] for page, rep in walk.items() if rep["problems"][check]}
    if bad:
        pytest.fail(f"{len(bad)} of {len(walk)} pages:\n" + "\n".join(
            f"{page}:\n    " + "\n    ".join(p) for page, p in bad.items()), pytrace=False)


# ------------------------------------------------------------------------------ the whole site
@pytest.mark.browser
def test_walk_covers_the_site(walk):
    pages = set(walk)
    assert "index.html" in pages and "generated/papers.html" in pages
    from lssvm_cvx.formulations import FORMULATIONS

    for name in FORMULATIONS:
        assert f"generated/formulations/{name}.html" in pages, name
    examples = sorted((ROOT / "examples").glob("*/plot_*.py"))
    assert len(examples) >= 10
    for ex in examples:
        page = f"auto_examples/{ex.parent.name}/{ex.stem}.html"
        assert page in pages, page
    assert sum(p.startswith("generated/api/") for p in pages) >= 10
    # the math of the formulation pages and of the gallery is there and was measured
    for name in FORMULATIONS:
        rep = walk[f"generated/formulations/{name}.html"]
        assert rep["n_math"] >= 1 and rep["n_display"] >= 1, (name, rep["n_math"], rep["n_display"])


@pytest.mark.browser
def test_every_page_typesets_its_math(walk):
    _assert_none(walk, "math")


@pytest.mark.browser
def test_every_equation_fits_or_scrolls_from_its_left_edge(walk):
    _assert_none(walk, "fit")


@pytest.mark.browser
def test_formulation_equations_fit_without_scrolling(walk):
    """The generated formulation pages break their displays into rows (``display`` in
    ``docs/_ext/lssvm_math.py``): at 1280 px none should need the scrollbar."""
    wide = {page: rep["wide"] for page, rep in walk.items()
            if page.startswith("generated/formulations/") and rep["wide"]}
    if wide:
        pytest.fail("\n".join(f"{page}:\n    " + "\n    ".join(
            f"{w['tex']!r} is {w['over']} px wider than {w['where']} (it scrolls)" for w in ws)
            for page, ws in wide.items()), pytrace=False)


@pytest.mark.browser
def test_every_figure_loaded_and_no_panel_is_blank(walk):
    n = sum(1 for rep in walk.values() for im in rep["images"] if "sphx_glr_" in (im["attr"] or ""))
    assert n >= len(list((ROOT / "examples").glob("plot_*.py"))), n
    _assert_none(walk, "figures")


@pytest.mark.browser
def test_no_page_prints_an_object_repr(walk):
    _assert_none(walk, "reprs")


# ------------------------------------------------------------------------------ breaking displays
def _lssvm_docs():
    """The docs' display-math module (``docs/_ext/lssvm_math.py``), imported from its folder."""
    import importlib
    import sys

    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        return importlib.import_module("lssvm_math")
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))


def _math_tokens(docs, tex: str) -> list[str]:
    """The tokens of ``tex`` that print something, without the row layout ``display`` adds
    (aligned, ``&``, ``\\\\``, the ``s.t.`` padding, the indent) and the spacing or comma at a
    break."""
    for extra in (r"\begin{aligned}", r"\end{aligned}", r"\phantom{\text{s.t.}\ \ }",
                  r"\quad {}"):
        tex = tex.replace(extra, " ")
    return [t for t in docs._tokens(tex)
            if t not in ("&", "\\\\", ",", "{", "}", r"\ ", r"\,", r"\;", r"\:", r"\quad",
                         r"\qquad")]


def test_every_formulation_display_is_broken_into_rows_that_fit():
    """``display`` on every formulation's LaTeX: each row's estimated width, with the tag, is
    within ``DISPLAY_EX`` (the 1280 px column with a margin; the browser walk measures the
    real widths), the rows keep every symbol in order, and the widest displays were broken."""
    docs = _lssvm_docs()
    from lssvm_cvx.formulations import FORMULATIONS
    from lssvm_cvx.formulations.equations import latex_of

    too_wide, broken = [], []
    for name, cls in sorted(FORMULATIONS.items()):
        for label, tex in (latex_of(cls) or {}).items():
            rows, tag = docs.display_rows(tex)
            tag_ex = docs.tex_width(tag) if tag else 0.0
            too_wide += [(name, label, r) for r in rows
                         if docs.tex_width(r) + tag_ex > docs.DISPLAY_EX]
            if len(rows) > 1:
                broken.append(f"{name}/{label}")
            out = docs.display(tex)
            assert out.startswith("\\[ ") and out.endswith(" \\]"), out
            assert _math_tokens(docs, out[3:-3]) == _math_tokens(docs, tex), (name, label, out)
    assert not too_wide, too_wide
    for wide in ("l2svm_dual/dual", "pareto_krr_alpha/E_c", "areg_cv/per fold",
                 "l2svm_radius/radius-margin bound", "componentwise_fusion/problem"):
        assert wide in broken, (wide, broken)


def test_display_breaks_at_sensible_points():
    docs = _lssvm_docs()
    short = r"E_f(\alpha) = \tfrac{1}{2n}\|y - K\alpha\|^2 \tag{12}"
    assert docs.display(short) == r"\[ E_f(\alpha) = \tfrac{1}{2n}\|y - K\alpha\|^2 \tag{12} \]"
    # an arrow first, then a relation; a norm's inside is never split
    rows, tag = docs.display_rows(r"E(f) = \int \big(f''(x)\big)^2\,dx \;\to\; "
                                   r"E^+(\alpha) = \|L^\top\alpha + a + b + c + d + e\|^2 - "
                                   r"q^\top\alpha + \tfrac12 \tag{16}", max_ex=40)
    assert tag == r"\tag{16}" and len(rows) >= 2, rows
    assert rows[1].startswith(r"\quad {}\to"), rows
    assert all(r.count(r"\|") % 2 == 0 for r in rows), rows
    # a list: items packed, the comma kept at the end of the row
    rows, _ = docs.display_rows(r"a = 1,\ \ b = 2,\ \ c = 3,\quad d = 4", max_ex=12)
    assert rows[0].endswith(",") and all(r.strip() for r in rows) and len(rows) >= 2, rows
    # objective s.t. constraints: s.t. once, the further constraints padded under it
    rows, _ = docs.display_rows(r"\min_x\ f(x) + g(x)\quad\text{s.t.}\ x \ge 0,\ \ Ax = b,"
                                 r"\quad Cx \le d \tag{1}", max_ex=25)
    assert rows[0].startswith(r"\min_x") and rows[1].startswith(r"\text{s.t.}\ \ x \ge 0"), rows
    assert [r.startswith(r"\phantom{\text{s.t.}\ \ }") for r in rows[2:]] == [True, True], rows


# ------------------------------------------------------------------------------ the checks can fail
def _figure(path: Path, draw_second: bool = True, kind: str = "lines") -> Path:
    pytest.importorskip("PIL.Image")
    plt = pytest.importorskip("matplotlib.pyplot")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    x = np.linspace(0, 1, 50)
    ax1.loglog(x + 0.01, np.exp(x), label="a")
    ax1.legend()
    if draw_second:
        if kind == "lines":
            ax2.plot([0.1, 0.2], [0.5, 0.52], "k--", lw=1)        # one short dashed segment
        else:
            im = ax2.imshow(np.outer(x, x))
            fig.colorbar(im, ax=ax2)
    fig.savefig(path)
    plt.close(fig)
    return path


def test_figure_check_catches_an_empty_panel(tmp_path):
    # the first gallery example's bug: the figure captured before its second axes was drawn
    half = figure_problems(_figure(tmp_path / "half.png", draw_second=False))
    assert len(half) == 1 and "axes panel 2 of 2" in half[0] and "empty" in half[0], half
    assert figure_problems(_figure(tmp_path / "full.png")) == []
    assert figure_problems(_figure(tmp_path / "image.png", kind="image")) == []


def test_figure_check_catches_a_blank_image(tmp_path):
    Image = pytest.importorskip("PIL.Image")

    Image.new("RGB", (320, 224), "white").save(tmp_path / "blank.png")
    assert "blank" in " ".join(figure_problems(tmp_path / "blank.png", thumbnail=True))
    Image.new("RGBA", (640, 480), (0, 0, 0, 0)).save(tmp_path / "clear.png")   # transparent
    assert "blank" in " ".join(figure_problems(tmp_path / "clear.png"))


BAD_PAGE = r"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>bad page</title>
<script>window.MathJax = {"tex": {"tags": "none"}, "svg": {"fontCache": "global"}}</script>
<script defer src="MATHJAX"></script>
<style>
  body { margin: 0; } .column { width: 600px; margin-left: 300px; }
  /* the theme's layout before the fix: a reversed flex row that hides its overflow */
  #clipped-left div.math { display: flex; flex-direction: row-reverse; overflow: hidden; }
  #clipped-right div.math { display: block; overflow: hidden; }
  #clipped-right mjx-container { text-align: left !important; overflow: visible !important; }
  #spills div.math { display: block; overflow: visible; }
  #spills mjx-container { text-align: left !important; overflow: visible !important; }
  #scrolls div.math { display: block; overflow-x: auto; }
  #scrolls mjx-container { text-align: left !important; overflow: visible !important; }
</style></head>
<body><div class="column">
<section id="clipped-left"><div class="math">WIDE</div></section>
<section id="clipped-right"><div class="math">WIDE</div></section>
<section id="spills"><div class="math">WIDE</div></section>
<section id="scrolls"><div class="math">WIDE</div></section>
<section id="fits"><div class="math">\[ a + b = c \tag{1} \]</div></section>
<p id="raw">The formula \frac{a}{b} was never typeset.</p>
<p id="ignored">Math MathJax skips: <span class="math mathjax_ignore">\(\alpha + 1\)</span>.</p>
<div class="math" id="error">\[ x^2^3 \]</div>
<div class="math" id="undefined">\[ \undefinedmacro x \]</div>
<p id="repr">&lt;matplotlib.legend.Legend object at 0x7f3a2c1d5e10&gt;</p>
<img src="FIGURE" alt="">
<img src="does-not-exist.png" alt="">
</div></body></html>
"""
WIDE = (r"\[ \max_{\alpha}\ " + " + ".join(rf"\alpha_{{{i}}}^\top H_{{{i}}}\alpha_{{{i}}}"
                                           for i in range(16)) + r" \tag{Problem 2} \]")


@pytest.mark.browser
def test_page_checks_catch_a_bad_page(browser):
    """A synthetic page (in the site, so it loads the site's MathJax) with the bugs the walk
    looks for: equations cut off on the left, cut off on the right, spilling out of the column,
    raw TeX, math MathJax skipped, a TeX error, an undefined macro, a printed repr, a figure with
    an empty panel and an image that does not load.  A wide equation in a container that scrolls
    sideways, and a narrow one, pass."""
    folder = HTML / "generated" / "formulations"
    stem = f"{PREFIX}{uuid.uuid4().hex[:8]}"
    page, fig = folder / f"{stem}.html", HTML / "_images" / f"{stem}.png"
    try:
        _figure(fig, draw_second=False)
        page.write_text(BAD_PAGE.replace("MATHJAX", "../../_static/mathjax/tex-svg-full.js")
                        .replace("FIGURE", f"../../_images/{fig.name}").replace("WIDE", WIDE),
                        encoding="utf-8")
        rep = browser.probe(page)
        problems = page_problems(rep)
    finally:
        page.unlink(missing_ok=True)
        fig.unlink(missing_ok=True)
    assert rep["mathjax"] == "ok" and rep["n_display"] == 7, rep
    by_section = {}
    for f in rep["fit"]:
        by_section.setdefault(f["where"].rsplit("#", 1)[-1], []).append(f["what"])
    assert set(by_section) == {"clipped-left", "clipped-right", "spills"}, rep["fit"]
    assert "left of the left edge" in by_section["clipped-left"][0], by_section
    assert "cut off" in by_section["clipped-right"][0] and "right" in by_section["clipped-right"][0]
    assert "nothing on the way scrolls" in by_section["spills"][0], by_section
    math = "\n".join(problems["math"])
    assert "raw TeX in the text: 'The formula \\\\frac{a}{b}" in math, math
    assert "not typeset: '\\\\(\\\\alpha + 1\\\\)'" in math, math
    assert "MathJax error: 'Double exponent" in math, math
    assert "MathJax error: 'undefined macro \\\\undefinedmacro'" in math, math
    assert problems["reprs"] == ["prints <matplotlib.legend.Legend object at 0x7f3a2c1d5e10>"]
    figures = "\n".join(problems["figures"])
    assert len(problems["figures"]) == 2, figures
    assert "axes panel 2 of 2" in figures and "is empty" in figures, figures
    assert "does-not-exist.png did not load" in figures, figures
