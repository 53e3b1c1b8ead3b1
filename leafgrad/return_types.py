"""``torch.return_types``: the named tuples ops return, for ``isinstance`` checks
(``isinstance(x.max(0), torch.return_types.max)``) and annotations."""

from __future__ import annotations

from . import linalg as _linalg  # noqa: F401  (each op module makes its types as it is imported)
from . import ops as _ops  # noqa: F401
from .ops._returned import _KINDS, out_kind

# The ``<name>_out`` twins too, made once here, as PyTorch lists them (histogramdd takes no
# ``out=`` there).
for _kind in list(_KINDS.values()):
    if _kind.__name__ != "histogramdd":
        out_kind(_kind)
globals().update(_KINDS)
__all__ = sorted(_KINDS)
