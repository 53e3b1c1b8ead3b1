"""The documentation site builds with MkDocs, warnings as errors, and has every page."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ._markdown import DOCS, REPO, pages

pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("material", reason="mkdocs-material is not installed (the docs extra)")
pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings[python] not installed")


def test_site_builds_strict_with_every_page_and_the_api_reference(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for page in pages():
        relative = page.relative_to(DOCS).with_suffix("")
        html = site / ("index.html" if relative.name == "index" else relative / "index.html")
        assert html.exists(), f"{page} was not built"
    reference = (site / "api" / "taylor" / "index.html").read_text(encoding="utf-8")
    assert 'id="leafgrad.autograd.taylor.laplacian"' in reference  # rendered from docstrings
