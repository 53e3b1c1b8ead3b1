"""Redraw the pictures of the docs: ``python -m tests.docs.figures`` (needs leafgrad[viz]).

Runs every page's python blocks in ``docs/img``; each ``NAME.dot`` a page writes (with
``leafgrad.viz.to_dot``) is kept there and drawn to ``NAME.svg`` with Graphviz. The docs
test compares the DOT text a page writes with the committed file, so a picture cannot
drift from the code that draws it.
"""

from __future__ import annotations

import os

import graphviz  # the optional viz extra; this is a maintainer's tool, not a test

from ._markdown import FIGURES, REPO, blocks, pages, run_python


def main() -> None:
    FIGURES.mkdir(exist_ok=True)
    before = os.getcwd()
    os.chdir(FIGURES)
    try:
        for page in pages():
            if "viz.to_dot" not in page.read_text(encoding="utf-8"):
                continue  # draws no picture
            namespace = {"__name__": "__main__"}
            for block in blocks(page):
                if block.lang == "python":
                    run_python(block, namespace, str(page.relative_to(REPO)))
    finally:
        os.chdir(before)
    for dot in sorted(FIGURES.glob("*.dot")):
        svg = dot.with_suffix(".svg")
        svg.write_bytes(graphviz.Source(dot.read_text()).pipe(format="svg"))
        print(f"drew {svg.relative_to(REPO)}")


if __name__ == "__main__":
    main()
