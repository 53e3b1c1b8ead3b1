"""``torch.nn.modules.upsampling``: its classes, from where leafgrad defines them."""

from ..upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
