"""``torch.nn.modules.pixelshuffle``: its classes, from where leafgrad defines them."""

from ..upsampling import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
