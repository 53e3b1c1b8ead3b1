"""The fenced code blocks of a Markdown page, for the tests that run the docs."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
FIGURES = DOCS / "img"

# A fence opens a line (indented inside a list item, maybe) with three or more backticks and a
# language word; it closes with the same indent and backticks.
_FENCE = re.compile(r"^([ \t]*)(`{3,})([\w-]*)[^\n]*\n(.*?)^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass
class Block:
    """One fenced block: its language, its code, the line it starts on, the output shown."""

    lang: str
    code: str
    line: int
    output: str | None = None  # the ``text`` block right after it, when there is one


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path`` in order; a ``text`` block that directly follows a
    ``python`` or ``bash`` block (only blank lines between) becomes its expected output."""
    source = path.read_text(encoding="utf-8")
    found: list[Block] = []
    previous_end = None
    for match in _FENCE.finditer(source):
        indent, lang = match.group(1), match.group(3).lower()
        code = "".join(
            line[len(indent) :] if line.startswith(indent) else line
            for line in match.group(4).splitlines(keepends=True)
        )
        line = source.count("\n", 0, match.start()) + 1
        gap = source[previous_end : match.start()] if previous_end is not None else "x"
        if lang == "text" and found and found[-1].lang in ("python", "bash") and not gap.strip():
            found[-1].output = code
        else:
            found.append(Block(lang, code, line))
        previous_end = match.end()
    return found


def pages() -> list[Path]:
    """Every Markdown page of the docs, sorted."""
    return sorted(DOCS.rglob("*.md"))


def run_python(block: Block, namespace: dict, where: str) -> str:
    """Run a python block in ``namespace``; returns what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pages show warnings in prose, not as noise
        exec(compile(block.code, f"{where}:{block.line}", "exec"), namespace)
    return out.getvalue()
