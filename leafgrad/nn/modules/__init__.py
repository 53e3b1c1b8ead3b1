"""``torch.nn.modules``: the layer classes by the submodule PyTorch defines them in, so that
``from torch.nn.modules.loss import _Loss`` and ``from torch.nn.modules import Module`` work."""

# ruff: noqa: F403, F405  (re-exports each submodule's names, as PyTorch's package does)

from . import utils  # noqa: F401
from .activation import *
from .adaptive import *
from .batchnorm import *
from .channelshuffle import *
from .container import *
from .conv import *
from .distance import *
from .dropout import *
from .flatten import *
from .fold import *
from .instancenorm import *
from .lazy import *
from .linear import *
from .linear_cross_entropy_options import *
from .loss import *
from .module import *
from .normalization import *
from .padding import *
from .pixelshuffle import *
from .pooling import *
from .rnn import *
from .sparse import *
from .transformer import *
from .upsampling import *

__all__ = sorted(
    {
        *activation.__all__,
        *adaptive.__all__,
        *batchnorm.__all__,
        *channelshuffle.__all__,
        *container.__all__,
        *conv.__all__,
        *distance.__all__,
        *dropout.__all__,
        *flatten.__all__,
        *fold.__all__,
        *instancenorm.__all__,
        *lazy.__all__,
        *linear.__all__,
        *linear_cross_entropy_options.__all__,
        *loss.__all__,
        *module.__all__,
        *normalization.__all__,
        *padding.__all__,
        *pixelshuffle.__all__,
        *pooling.__all__,
        *rnn.__all__,
        *sparse.__all__,
        *transformer.__all__,
        *upsampling.__all__,
    }
)
