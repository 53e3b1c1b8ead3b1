"""``python -m leafgrad``: the ``leafgrad`` command."""

from .cli import main

raise SystemExit(main())
