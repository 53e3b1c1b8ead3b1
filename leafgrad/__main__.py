"""``python -m leafgrad``: the ``leafgrad`` command."""

from .cli import program

raise SystemExit(program())
