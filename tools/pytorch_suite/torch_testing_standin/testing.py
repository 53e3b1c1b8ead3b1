"""``torch.testing``: ``assert_close`` and the ``_internal`` package."""

import leafgrad

from .compare import assert_close  # noqa: F401
from .legacy import get_all_dtypes  # noqa: F401

__path__ = []
randn_like = leafgrad.randn_like  # the older file imports it from here
