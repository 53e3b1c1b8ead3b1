"""``torch.torch_version``: the version string that compares as a version (PEP 440).

PyTorch's ``TorchVersion`` compares with ``packaging``; leafgrad depends on NumPy and SciPy
only, so the ordering is written here: release numbers, then pre-, post- and dev-releases,
then the local label (``2.13.0+cpu`` > ``2.13.0``), as ``packaging.version.Version`` orders
them. A tuple compares as its dotted string (``v >= (2, 1)``).
"""

from __future__ import annotations

import math
import re

from .version import __version__ as _followed

__all__ = ["TorchVersion"]

_VERSION = re.compile(
    r"v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|b|rc|c|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?",
    re.IGNORECASE,
)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


class InvalidVersion(ValueError):
    """Not a PEP 440 version string."""


def _key(text: str) -> tuple:
    """What PEP 440 orders a version by (``packaging``'s key, written out)."""
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    release = [int(p) for p in match["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 2.0 == 2
        release.pop()
    pre = (_PRE[match["pre"].lower()], int(match["pre_n"] or 0)) if match["pre"] else None
    post = None if match["post"] is None else int(match["post"] or 0)
    dev = None if match["dev"] is None else int(match["dev"] or 0)
    if pre is None:  # a dev release alone comes before the pre-releases; a final one after
        pre = (-math.inf, 0) if dev is not None and post is None else (math.inf, 0)
    local = ()
    if match["local"]:  # numeric parts above alphanumeric ones
        local = tuple(
            (1, int(p), "") if p.isdigit() else (0, 0, p.lower())
            for p in re.split(r"[-_.]", match["local"])
        )
    return (
        tuple(release),
        pre,
        -math.inf if post is None else post,
        math.inf if dev is None else dev,
        local,
    )


class TorchVersion(str):
    """A version string (``torch.__version__``) whose comparisons are a version's."""

    def _other_key(self, other) -> tuple:
        if isinstance(other, tuple):
            other = ".".join(str(part) for part in other)
        if not isinstance(other, str):
            raise InvalidVersion(f"{other!r} is not a version (a string or a tuple of numbers)")
        return _key(other)

    def __lt__(self, other) -> bool:
        return _key(self) < self._other_key(other)

    def __le__(self, other) -> bool:
        return _key(self) <= self._other_key(other)

    def __gt__(self, other) -> bool:
        return _key(self) > self._other_key(other)

    def __ge__(self, other) -> bool:
        return _key(self) >= self._other_key(other)

    def __eq__(self, other) -> bool:
        try:
            return _key(self) == self._other_key(other)
        except InvalidVersion:
            return str.__eq__(self, other) if isinstance(other, str) else False

    # ``!=`` stays str's, as in PyTorch's class (which defines no __ne__): "2.13.0" != "2.13".
    __hash__ = str.__hash__


__version__ = TorchVersion(_followed)  # the PyTorch API version leafgrad follows
