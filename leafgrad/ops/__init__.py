"""Every primitive op; importing this package gives Tensor its operators and methods."""

from .._tensor import Tensor
from . import (
    arithmetic,
    comparison,
    composites,
    conversion,
    elementwise,
    indexing,
    inplace,
    linalg,
    reduction,
    shape,
)

# In-place last: its methods wrap the out-of-place ones.
FAMILIES = (
    arithmetic, elementwise, comparison, conversion, reduction, shape, indexing, linalg,
    composites, inplace,
)  # fmt: skip

for _family in FAMILIES:
    for _name, _fn in _family.METHODS.items():
        setattr(Tensor, _name, _fn)

# Python's default __eq__ would make Tensor unhashable once __eq__ is set; keep identity hashing.
Tensor.__hash__ = object.__hash__
