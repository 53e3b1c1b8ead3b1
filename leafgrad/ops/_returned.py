"""The named tuples that ops return as ``torch.return_types``, printed as PyTorch prints them."""

from __future__ import annotations

from collections import namedtuple

# name -> class: one class per name, so an op's ``<name>_out`` twin is the one its module made.
_KINDS: dict = {}


def _structseq_repr(self) -> str:
    """``torch.return_types.max(\\nvalues=...,\\nindices=...)``: one field a line."""
    kind = type(self)
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(kind._fields, self))
    return f"{kind.__module__}.{kind.__name__}(\n{fields})"


def returned(name: str, fields: list) -> type:
    """The named tuple class for ``torch.return_types.<name>``."""
    if name in _KINDS:
        return _KINDS[name]
    kind = namedtuple(name, fields)
    # PyTorch's are C structseqs named torch.return_types.<name>; type() and repr show that.
    kind.__module__ = "torch.return_types"
    kind.__repr__ = _structseq_repr
    _KINDS[name] = kind
    return kind


def out_kind(kind: type) -> type:
    """What the op returning ``kind`` returns when given ``out=``: ``torch.return_types.max``
    becomes ``max_out``; any other named tuple stays as it is."""
    if _KINDS.get(kind.__name__) is not kind or kind.__name__.endswith("_out"):
        return kind
    return returned(f"{kind.__name__}_out", kind._fields)
