"""``torch.nn.modules.linear_cross_entropy_options``: its class, from leafgrad."""

from .._linear_cross_entropy import LinearCrossEntropyOptions

__all__ = ["LinearCrossEntropyOptions"]
