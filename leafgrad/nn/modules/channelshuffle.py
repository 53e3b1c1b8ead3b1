"""``torch.nn.modules.channelshuffle``: its classes, from where leafgrad defines them."""

from ..misc_layers import ChannelShuffle

__all__ = ["ChannelShuffle"]
