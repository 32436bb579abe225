r"""Display math for the generated pages: one display equation broken into the rows of an
``aligned`` block when it is wider than the text column (used by ``lssvm_docs``).

MathJax 3 (the version served, django-static-mathjax 3.2) has no automatic line breaking (that
came with MathJax 4), so a display wider than the text column is broken here, in the TeX.
Widths are estimated from the TeX in ex of the math font (calibrated against MathJax's own widths
of every formulation display: within about 15 %); the CSS (``_static/lssvm.css``) makes whatever
is still too wide scroll from its left edge.  ``tests/test_docs_browser.py`` checks the estimate
on every formulation and, in a browser, that no page needs the scrollbar at 1280 px.
"""

from __future__ import annotations

import re

#: widest display, in ex, that is left on one row: the text column of the pydata theme at a
#: 1280 px window is 624 px, about 69 ex of its math font; the rest is the estimate's margin
DISPLAY_EX = 62.0

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.DOTALL)
_ARROW = {r"\to", r"\rightarrow", r"\Rightarrow", r"\mapsto", r"\iff", r"\implies",
          r"\longrightarrow"}
_REL = {"=", "<", ">", r"\le", r"\ge", r"\leq", r"\geq", r"\ne", r"\neq", r"\in", r"\notin",
        r"\approx", r"\equiv", r"\subset", r"\subseteq", r"\sim", r"\propto"} | _ARROW
_BIN = {"+", "-", r"\pm", r"\mp", r"\cdot", r"\times", r"\circ", r"\otimes", r"\oplus",
        r"\setminus", r"\cup", r"\cap"}
_SPACE = {r"\ ": 0.56, r"\,": 0.38, r"\;": 0.63, r"\:": 0.5, r"\!": -0.38, r"\quad": 2.26,
          r"\qquad": 4.52, "~": 0.56}
_LIMOP = {r"\min": 3.8, r"\max": 4.2, r"\sup": 3.5, r"\inf": 3.0, r"\lim": 3.0, r"\sum": 3.3,
          r"\prod": 3.0, r"\argmin": 7.0, r"\argmax": 7.3}
_SIDEOP = {r"\int": 2.5, r"\oint": 2.5, r"\log": 3.0, r"\exp": 3.0, r"\det": 3.3, r"\ln": 2.2}
_ARG = {r"\hat", r"\bar", r"\tilde", r"\vec", r"\dot", r"\ddot", r"\widehat", r"\widetilde",
        r"\overline", r"\underline", r"\mathbf", r"\boldsymbol", r"\mathcal", r"\mathbb",
        r"\mathit", r"\mathsf", r"\bm", r"\phantom"}
_TEXT = {r"\text", r"\operatorname", r"\mathrm", r"\textrm", r"\mbox", r"\textit", r"\textbf"}
_SIZED = {r"\big": 0.2, r"\bigl": 0.2, r"\bigr": 0.2, r"\Big": 0.5, r"\Bigl": 0.5,
          r"\Bigr": 0.5, r"\bigg": 0.8, r"\Bigg": 1.1}        # extra width of the delimiter
_ZERO = {r"\left", r"\right", r"\nolimits", r"\limits", r"\displaystyle", r"\textstyle", r"\nonumber",
         "&", r"\\", "}"}
_NARROW = {",": 1.0, ";": 1.0, ".": 0.63, "(": 0.88, ")": 0.88, "[": 0.63, "]": 0.63, "|": 0.63,
           r"\|": 1.13, r"\{": 1.13, r"\}": 1.13, "'": 0.6, "/": 1.13, "!": 0.63, ":": 1.3}
#: MathJax's widths are about 1.15 times the sum of the glyph widths above (spacing, italics)
_EX_SCALE = 1.15


def _tokens(tex: str) -> list[str]:
    return [t for t in _TOKEN.findall(tex) if not t.isspace()]


class _Width:
    """Width of a token list in ex (display style), read left to right."""

    def __init__(self, toks: list[str]):
        self.t, self.i = toks, 0

    def arg(self) -> list[str]:
        """The next argument: the tokens of a ``{group}`` or one token."""
        if self.i >= len(self.t):
            return []
        tok = self.t[self.i]
        self.i += 1
        if tok != "{":
            return [tok]
        depth, start = 1, self.i
        while self.i < len(self.t) and depth:
            depth += {"{": 1, "}": -1}.get(self.t[self.i], 0)
            self.i += 1
        return self.t[start:self.i - 1]

    def env(self, name: str) -> float:
        r"""An environment up to its ``\end``: columns of the widest cells, plus delimiters."""
        start, depth = self.i, 1
        while self.i < len(self.t):
            depth += {r"\begin": 1, r"\end": -1}.get(self.t[self.i], 0)
            if depth == 0:
                break
            self.i += 1
        body = self.t[start:self.i]
        self.i += 1
        self.arg()                                      # {name} of \end
        rows, row, cell, d = [], [], [], 0
        for tok in body:
            d += {"{": 1, "}": -1, r"\begin": 1, r"\end": -1}.get(tok, 0)
            if d == 0 and tok == "&":
                row.append(cell)
                cell = []
            elif d == 0 and tok == r"\\":
                row.append(cell)
                rows.append(row)
                row, cell = [], []
            else:
                cell.append(tok)
        rows.append([*row, cell])
        ncol = max(len(r) for r in rows)
        cols = [max(_Width(r[c]).run() if c < len(r) else 0.0 for r in rows) for c in range(ncol)]
        if name.startswith(("aligned", "align", "split", "gathered")):
            return sum(cols)
        w = sum(cols) + 2.26 * (ncol - 1)               # 1em between columns
        return w + (2.0 if "matrix" in name else 2.0 if name == "cases" else 0.0)

    def run(self) -> float:
        w, script, prev = 0.0, 0.0, None
        while self.i < len(self.t):
            tok = self.t[self.i]
            self.i += 1
            if tok in ("^", "_"):
                s = 0.72 * _Width(self.arg()).run()
                if prev in _LIMOP:                      # limits under/over: widen the operator
                    w += max(0.0, s - max(_LIMOP[prev], script))
                    script = max(script, s, _LIMOP[prev])
                    continue
                w += max(0.0, s - script) if prev == "^" else s
                script = max(script, s) if prev == "^" else s
                prev = "^"
                continue
            script = 0.0
            if tok == "{":
                self.i -= 1
                w += _Width(self.arg()).run()
            elif tok == r"\begin":
                w += self.env("".join(self.arg()))
            elif tok in _TEXT:
                txt = "".join(self.arg())
                w += 1.13 * len(txt.replace(" ", "")) + 0.56 * txt.count(" ")
            elif tok in (r"\frac", r"\tfrac", r"\dfrac"):
                num, den = _Width(self.arg()).run(), _Width(self.arg()).run()
                w += (0.72 if tok == r"\tfrac" else 1.0) * max(num, den) + 0.54
            elif tok == r"\sqrt":
                w += _Width(self.arg()).run() + 1.9
            elif tok in _ARG:
                w += _Width(self.arg()).run()
            elif tok in _ZERO:
                pass
            elif tok in _SIZED:
                w += _SIZED[tok]
            elif tok in _SPACE:
                w += _SPACE[tok]
            elif tok in _REL:
                w += 3.0
            elif tok in _BIN:
                w += 2.76
            elif tok in _LIMOP:
                w += _LIMOP[tok] + 0.38
            elif tok in _SIDEOP:
                w += _SIDEOP[tok] + 0.38
            elif tok in _NARROW:
                w += _NARROW[tok]
            else:
                w += 1.3 if tok.startswith("\\") else 1.2   # a Greek letter or symbol; a letter
            prev = tok
        return w


def tex_width(tex: str) -> float:
    r"""Estimated width of a display's TeX in ex of MathJax's font (``\tag`` included)."""
    m = re.search(r"\\tag\{([^}]*)\}\s*$", tex)
    body, tag = (tex[:m.start()], m.group(1)) if m else (tex, None)
    w = _Width(_tokens(body)).run()
    if tag is not None:
        w += 1.13 * len(tag) + 2 * 0.88 + 2.0
    return _EX_SCALE * w


def _top_level(tex: str) -> list[tuple[int, str, bool]]:
    """``(position, token, top)`` of each token; ``top`` when outside every group, environment,
    bracket pair and norm or absolute-value bars (where a row may break)."""
    out: list[tuple[int, str, bool]] = []
    stack: list[str] = []
    opens = {"{": "}", "(": ")", "[": "]", r"\{": r"\}", r"\begin": r"\end"}
    for m in _TOKEN.finditer(tex):
        tok = m.group(0)
        top = not stack
        if tok in (r"\|", "|"):
            if stack and stack[-1] == tok:
                stack.pop()
            else:
                stack.append(tok)
            top = False
        elif tok in opens:
            stack.append(opens[tok])
            top = False
        elif tok in stack:                              # a closing token (or a stray bar)
            while stack and stack.pop() != tok:
                pass
            top = False
        out.append((m.start(), tok, top))
    return out


#: a comma and/or spacing between two parts of a display
_SEP = re.compile(r"(,?)\s*((?:(?:\\q?quad|\\ )\s*)*)")


def _pieces(tex: str, level: str) -> list[tuple[str, str]]:
    r"""Split ``tex`` at its top-level break points of one kind, as ``(piece, separator)``:

    * ``"list"``: item separators, a comma or nothing followed by ``\ \ `` or a ``\quad``
      (``,\ \ ``, ``,\quad``, ``\qquad``): the piece keeps the comma, the spacing is dropped
      where the row breaks;
    * ``"comma"``: any top-level comma;
    * ``"arrow"``, ``"rel"``, ``"bin"``: before each arrow (``\to``, ``\Rightarrow`` ...),
      each other relation (``=``, ``\le`` ...), each binary operator (``+``, ``-`` ...), the
      spacing before it dropped where the row breaks.
    """
    toks = _top_level(tex)
    cuts: list[tuple[int, int]] = []                    # (end of a piece, start of the next)
    if level in ("list", "comma"):
        skip_to = -1
        for pos, tok, top in toks:
            if pos < skip_to or not top or tok not in (",", r"\ ", r"\quad", r"\qquad"):
                continue
            m = _SEP.match(tex, pos)
            space = m.group(2)
            strong = space.count("\\") >= 2 or "quad" in space
            if (level == "list" and strong) or (level == "comma" and m.group(1)):
                cuts.append((pos + len(m.group(1)), m.end()))
                skip_to = m.end()
    else:
        ops = {"arrow": _ARROW, "rel": _REL - _ARROW, "bin": _BIN}[level]
        sig = [t for t in toks if not t[1].isspace() and t[1] not in _SPACE]
        for k, (pos, tok, top) in enumerate(sig):
            if k == 0 or not top or tok not in ops:
                continue
            before = sig[k - 1][1]
            if before in _REL or before in _BIN or before in ("(", "[", ",", "&", "{", "^", "_"):
                continue                                # unary, or a relation's second part
            j = pos
            while (m := re.search(r"(?:\\[,;: ]|\\q?quad|\s)+$", tex[:j])) is not None:
                j = m.start()
            cuts.append((j, pos))
    pieces: list[tuple[str, str]] = []
    start = 0
    for end, nxt in cuts:
        if tex[start:end].strip() and tex[nxt:].strip():
            pieces.append((tex[start:end].strip(), tex[end:nxt]))
            start = nxt
    pieces.append((tex[start:].strip(), ""))
    return pieces


def _rows(tex: str, limit: float,
          levels: tuple[str, ...] = ("list", "comma", "arrow", "rel", "bin")) -> list[str]:
    r"""Rows of ``tex``, each estimated no wider than ``limit`` ex where a break point allows:
    split at the first kind of break point (:func:`_pieces`) that it has, the pieces packed
    greedily into rows, a piece still too wide split at the next kind; rows that start with an
    operator are indented by ``\quad``."""
    if tex_width(tex) <= limit or not levels:
        return [tex]
    pieces = _pieces(tex, levels[0])
    if len(pieces) == 1:
        return _rows(tex, limit, levels[1:])
    indent = r"\quad {}" if levels[0] in ("arrow", "rel", "bin") else ""
    rows: list[str] = []
    cur, cur_sep = "", ""
    for piece, sep in pieces:
        if cur and tex_width(indent + cur + cur_sep + piece) <= limit:
            cur = cur + cur_sep + piece
        else:
            if cur:
                rows.append(cur)
            if tex_width(indent + piece) > limit:
                sub = _rows(piece, limit - (2.6 if indent else 0.0), levels[1:])
                rows += sub[:-1]
                piece = sub[-1]
            cur = piece
        cur_sep = sep
    rows.append(cur)
    return [rows[0]] + [r if r.startswith(indent) else indent + r for r in rows[1:]]


def display_rows(tex: str, width: int = 100,
                  max_ex: float = DISPLAY_EX) -> tuple[list[str], str]:
    r"""The rows of one display equation and its ``\tag{...}`` ("" if none): one row when it is
    no wider than ``max_ex`` (estimated, tag included; see :func:`tex_width`).  A wider
    "objective s.t. constraints" becomes the objective, then one constraint a row, ``s.t.``
    aligned (also when it is over ``width`` characters, as before); any row still too wide, or
    any other wide display, is broken at its top-level item separators (``,\ \ ``, ``\quad``),
    then its commas, then before an arrow (``\to``), then before ``=``, ``\le`` ..., then before
    a binary ``+``/``-`` (:func:`_rows`; rows that start with an operator are indented)."""
    m = re.search(r"\\tag\{[^}]*\}\s*$", tex)
    body, tag = (tex[:m.start()].strip(), m.group(0)) if m else (tex.strip(), "")
    limit = max_ex - (tex_width(tag) if tag else 0.0)
    parts = re.split(r"(?:(?:\\q?quad|\\ )\s*)+(?=\\text\{s\.t\.)", body, maxsplit=1)
    if len(parts) == 2 and (len(body) > width or tex_width(body) > limit):
        objective, constraints = parts[0].strip(), parts[1].strip()
        rows = _rows(objective, limit)
        st = re.match(r"\\text\{s\.t\.\}\s*(?:\\ \s*)*", constraints)
        if st:
            pad = r"\text{s.t.}\ \ "
            cons = [c.strip() for c in re.split(r",\s*\\ \s*\\ \s*|,\s*\\q?quad\s*",
                                                constraints[st.end():]) if c.strip()]
            first = True
            for c in cons:
                for r in _rows(c, limit - tex_width(pad)):
                    rows.append((pad if first else r"\phantom{" + pad + "}") + r)
                    first = False
        else:                                           # \text{s.t. the constraints of (20)}
            rows += _rows(constraints, limit)
        return rows, tag
    return _rows(body, limit), tag


def display(tex: str, width: int = 100, max_ex: float = DISPLAY_EX) -> str:
    r"""One display equation for a ``.. math:: :nowrap:`` block: ``\[ ... \]``, its rows (see
    :func:`display_rows`) in an ``aligned`` block, left-aligned, when there are several."""
    rows, tag = display_rows(tex, width, max_ex)
    body = rows[0] if len(rows) == 1 else (
        "\\begin{aligned} " + " \\\\ ".join(f"& {r}" for r in rows) + " \\end{aligned}")
    return f"\\[ {body} {tag} \\]"
