"""Every primitive op; importing this package gives Tensor its operators and methods."""

from .._tensor import Tensor
from . import arithmetic, comparison, conversion, elementwise, indexing, linalg, reduction, shape

FAMILIES = (arithmetic, elementwise, comparison, conversion, reduction, shape, indexing, linalg)

for _family in FAMILIES:
    for _name, _fn in _family.METHODS.items():
        setattr(Tensor, _name, _fn)

# Python's default __eq__ would make Tensor unhashable once __eq__ is set; keep identity hashing.
Tensor.__hash__ = object.__hash__
