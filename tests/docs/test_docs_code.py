"""Every code block in docs/ runs, page by page, and prints what the page says it prints.

Why our own runner and not pytest-markdown-docs: the guides are walk-throughs whose blocks
build on each other. That plugin runs each block alone unless it carries a ``continuation``
option, and then re-runs every earlier block of the page with it (quadratic time for a page
that trains a network), and it only runs under an extra command-line flag. Here a page's
``python`` blocks share one namespace and run once each, in a fresh working directory.

What each fence language means:

- ``python``: run; a ``text`` block right after it is its output and must match exactly;
- ``bash``: run with bash (``leafgrad`` is this checkout's command), must exit 0; a
  ``text`` block right after it is its standard output;
- ``console``: commands for the reader that need the network, PyTorch or many minutes
  (installs, full-size training, benchmarks); not run, and limited to those by ``READER_ONLY``;
- ``py``: an excerpt of the repository's own code, which must be found there verbatim
  (indentation aside), so that a page describing the code cannot drift from it;
- ``text``, ``dot``, ``yaml``, ``toml``: listings, not code.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from ._markdown import DOCS, FIGURES, REPO, blocks, pages, run_python

RUN = {"python", "bash"}
LISTINGS = {"text", "dot", "yaml", "toml"}
READER_ONLY = re.compile(
    r"^(python3? -m venv |source |\. |python3? -m pip install |pip install |"
    r"leafgrad solve |mkdocs serve|cd |git clone |python benchmarks/|"
    r"DDE_BACKEND=pytorch leafgrad run )"
)


def _ids(paths):
    return [str(p.relative_to(DOCS)) for p in paths]


def _env(tmp_path) -> dict:
    """This checkout first on the path, a ``leafgrad`` command that runs it, no GUI plots."""
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "leafgrad"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m leafgrad "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["MPLBACKEND"] = "Agg"
    return env


def _stripped(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _in_repository(excerpt: str) -> bool:
    """Whether the excerpt's lines appear, in a row, in one of the repository's Python files."""
    wanted = _stripped(excerpt)
    for path in [*REPO.glob("leafgrad/**/*.py"), *REPO.glob("tests/**/*.py"),
                 *REPO.glob("examples/*.py")]:  # fmt: skip
        lines = _stripped(path.read_text(encoding="utf-8"))
        for i, line in enumerate(lines):
            if line == wanted[0] and lines[i : i + len(wanted)] == wanted:
                return True
    return False


def _check_output(block, printed: str, where) -> None:
    if block.output is not None:
        shown = textwrap.dedent(block.output).rstrip()
        got = "\n".join(line.rstrip() for line in printed.rstrip().splitlines())
        assert got == shown, f"{where}:{block.line}: the page shows other output:\n{got}"


@pytest.mark.parametrize("page", pages(), ids=_ids(pages()))
def test_every_code_block_of_the_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": "__main__"}
    env = _env(tmp_path)
    where = page.relative_to(REPO)
    for block in blocks(page):
        if block.lang == "python":
            try:
                printed = run_python(block, namespace, str(where))
            except Exception as exc:
                raise AssertionError(f"{where}:{block.line}: the block raised {exc!r}") from exc
            _check_output(block, printed, where)
        elif block.lang == "bash":
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block.code],
                cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert done.returncode == 0, f"{where}:{block.line}: exit {done.returncode}\n" + (
                done.stdout[-2000:] + done.stderr[-2000:]
            )
            _check_output(block, done.stdout, where)
        elif block.lang == "py":
            assert _in_repository(block.code), (
                f"{where}:{block.line}: this excerpt is not (or no longer) in the repository's code"
            )
        elif block.lang == "console":
            for line in block.code.splitlines():
                command = line.strip()
                if command and not command.startswith("#"):
                    assert READER_ONLY.match(command), (
                        f"{where}:{block.line}: {command!r} is in a console block, which the "
                        "tests do not run; make it a bash block so they do"
                    )
        else:
            assert block.lang in LISTINGS, (
                f"{where}:{block.line}: a ```{block.lang or '(no language)'} block: say "
                "python or bash (run by the tests), console (reader-only commands) or text"
            )
    for drawn in sorted(tmp_path.glob("*.dot")):
        committed = FIGURES / drawn.name
        assert committed.exists() and committed.read_text() == drawn.read_text(), (
            f"{where}: the graph {drawn.name} differs from docs/img/{drawn.name}, which its "
            "picture was drawn from; redraw them with `python -m tests.docs.figures`"
        )


def test_the_runner_finds_blocks_and_outputs(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Intro\n\n```python\nprint(1 + 1)\n```\n\n```text\n2\n```\n\n"
        "```bash\necho hi\n```\n\nProse.\n\n````text\n```\nnested\n```\n````\n"
    )
    found = blocks(page)
    assert [(b.lang, b.line, b.code, b.output) for b in found] == [
        ("python", 3, "print(1 + 1)\n", "2\n"),
        ("bash", 11, "echo hi\n", None),
        ("text", 17, "```\nnested\n```\n", None),
    ]
    indented = tmp_path / "list.md"
    indented.write_text("1. Step\n\n    ```py\n    x = 1\n      y = 2\n    ```\n")
    assert [(b.lang, b.code) for b in blocks(indented)] == [("py", "x = 1\n  y = 2\n")]


def test_an_excerpt_must_be_in_the_repository():
    assert _in_repository('S("sinh", lambda x: x.sinh(), ((4,),)),')
    assert not _in_repository('S("sinh", lambda x: x.sinh(), ((5,),)),')


def test_every_guide_has_code_that_runs():
    for page in (DOCS / "guides").glob("*.md"):
        assert any(b.lang in RUN for b in blocks(page)), f"{page.name} runs no code"
