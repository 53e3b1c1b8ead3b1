"""No link in the README or the docs leads outside the repository, except to public web pages."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from ._markdown import REPO, pages

_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")  # [text](target "title")
_AUTOLINK = re.compile(r"<((?:[a-z]+:)[^>\s]+)>")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)  # [name]: target
_CODE = re.compile(r"^(`{3,}).*?^\1", re.MULTILINE | re.DOTALL)
# A path written in backticks that leaves the checkout: ../shared/..., /work/..., ~/...
_OUTSIDE_PATH = re.compile(r"`(\.\./[^`]*|/work/[^`]*|/home/[^`]*|~/[^`]*)`")


def _documents() -> list[Path]:
    return [REPO / "README.md", *pages()]


def _targets(text: str) -> list[str]:
    prose = _CODE.sub("", text)
    return _LINK.findall(prose) + _AUTOLINK.findall(prose) + _REFERENCE.findall(prose)


def _public_web(url: str) -> bool:
    parts = urlparse(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    host = parts.hostname
    if host == "localhost" or host.endswith((".local", ".internal", ".lan")) or "." not in host:
        return False
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return True  # a domain name


def _problem(document: Path, target: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
        return None if _public_web(target) else "not a public web page"
    path = target.split("#", 1)[0]
    if not path:
        return None  # an anchor in the same page (MkDocs checks anchors with --strict)
    resolved = (document.parent / path).resolve()
    if not resolved.is_relative_to(REPO):
        return "outside the repository"
    if not resolved.exists():
        return "no such file in the repository"
    return None


@pytest.mark.parametrize("document", _documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_links_stay_in_the_repository_or_go_to_public_web_pages(document):
    text = document.read_text(encoding="utf-8")
    problems = [f"{t}: {why}" for t in _targets(text) if (why := _problem(document, t))]
    problems += [f"`{p}`: a path outside the checkout" for p in _OUTSIDE_PATH.findall(text)]
    assert not problems, f"{document.relative_to(REPO)}: " + "; ".join(problems)


@pytest.mark.parametrize(
    ("target", "bad"),
    [
        ("https://pytorch.org/docs/stable/autograd.html", False),
        ("guides/slicing.md#the-failure", False),
        ("../shared/DESIGN.md", True),
        ("file:///etc/passwd", True),
        ("http://localhost:8000/", True),
        ("http://10.0.0.1/x", True),
        ("docs/none-such.md", True),
    ],
)
def test_the_link_check_tells_good_from_bad(target, bad):
    assert (_problem(REPO / "docs" / "index.md", target) is not None) is bad


def test_a_path_outside_the_checkout_in_backticks_is_caught():
    text = "`../shared/DESIGN.md` has the architecture; `/work/main/x.py` too; `docs/design.md`"
    assert _OUTSIDE_PATH.findall(text) == ["../shared/DESIGN.md", "/work/main/x.py"]
