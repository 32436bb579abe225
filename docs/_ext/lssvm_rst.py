"""reStructuredText helpers shared by the docs extensions (``lssvm_docs``, ``lssvm_api``,
``lssvm_results``)."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write(path: Path, text: str) -> None:
    """Write only when the text changed (keeps Sphinx's incremental build incremental)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def title(text: str, char: str = "=") -> str:
    """A section title underlined with ``char``."""
    return f"{text}\n{char * max(len(text), 3)}\n"


def indent(text: str, n: int = 3) -> str:
    """``text`` indented by ``n`` spaces, blank lines left empty."""
    return textwrap.indent(text, " " * n, lambda line: True).replace(" " * n + "\n", "\n")
