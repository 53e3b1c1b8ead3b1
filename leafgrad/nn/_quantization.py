"""Refused quantized layers: leafgrad has no quantized dtypes (qint8, quint8) or observers, so
``torch.nn.quantized``, ``qat``, ``quantizable`` and ``intrinsic`` name their classes and
making one fails, saying so."""

from __future__ import annotations


def refused_layer(package: str, name: str) -> type:
    """A class ``package.name`` whose construction raises NotImplementedError."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{package}.{name}: leafgrad has no quantized tensors (qint8/quint8) nor "
            f"quantization-aware training; use the float layer from torch.nn instead"
        )

    doc = f"Refused on purpose: ``{package}.{name}`` needs quantized tensors, which leafgrad lacks."
    return type(name, (), {"__init__": __init__, "__doc__": doc, "__module__": package})


def refused_namespace(package: str, names: list[str]) -> dict:
    """The classes of a refused quantization package, by name."""
    return {name: refused_layer(package, name) for name in names}
