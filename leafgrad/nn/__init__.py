"""Neural-network building blocks: Module, layers, losses, ``init`` and ``functional``."""

from . import (
    attention,
    common_types,
    functional,
    grad,
    init,
    intrinsic,
    modules,
    qat,
    quantizable,
    quantized,
    utils,
)
from ._factory import factory_kwargs
from ._linear_cross_entropy import LinearCrossEntropyOptions
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    Sigmoid,
    SiLU,
    Sin,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softsign,
    Tanh,
    Tanhshrink,
)
from .activation_piecewise import (
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Softshrink,
    Threshold,
)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .containers import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .deprecated import Container, NLLLoss2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from .flatten import Flatten, Unflatten
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
)
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .loss_extra import (
    CTCLoss,
    LinearCrossEntropyLoss,
    MultiLabelMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .loss_more import (
    CosineEmbeddingLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    KLDivLoss,
    MarginRankingLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    PoissonNLLLoss,
    SoftMarginLoss,
    TripletMarginLoss,
)
from .misc_layers import ChannelShuffle, CrossMapLRN2d, Fold, LocalResponseNorm, Unfold
from .module import Module
from .multihead import MultiheadAttention
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .parallel import DataParallel, SyncBatchNorm
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .parameter_containers import ParameterDict, ParameterList
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import (
    PixelShuffle,
    PixelUnshuffle,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "BCELoss", "BCEWithLogitsLoss", "Bilinear",
    "CELU", "Conv1d", "Conv2d", "Conv3d", "CosineSimilarity", "CrossEntropyLoss", "Dropout",
    "ELU", "Embedding", "Flatten", "functional", "GELU", "GLU", "GroupNorm", "Hardshrink",
    "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "init", "L1Loss",
    "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "Mish", "Module",
    "ModuleDict", "ModuleList", "MSELoss", "NLLLoss", "PairwiseDistance", "Parameter",
    "ParameterDict", "ParameterList", "PReLU", "ReLU", "ReLU6", "RMSNorm", "RReLU", "SELU",
    "Sequential", "Sigmoid", "SiLU", "Sin", "SmoothL1Loss", "Softmax", "Softmax2d", "Softmin",
    "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "Unflatten",
    "utils",
]  # fmt: skip
__all__ += [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "AlphaDropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "PixelShuffle",
    "PixelUnshuffle",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
]
__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

__all__ += [
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss",
    "MarginRankingLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss",
]  # fmt: skip
__all__ += [
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerEncoderLayer",
]  # fmt: skip
__all__ += [
    "ChannelShuffle", "CrossMapLRN2d", "Fold", "LocalResponseNorm", "MultiLabelMarginLoss",
    "TripletMarginWithDistanceLoss", "Unfold",
]  # fmt: skip
__all__ += ["EmbeddingBag", "FractionalMaxPool2d", "FractionalMaxPool3d"]
__all__ += [
    "Buffer", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d",
    "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "LazyLinear", "UninitializedBuffer", "UninitializedParameter",
]  # fmt: skip
__all__ += ["Container", "NLLLoss2d"]
__all__ += ["CTCLoss"]
__all__ += ["AdaptiveLogSoftmaxWithLoss"]
__all__ += ["DataParallel", "SyncBatchNorm", "factory_kwargs", "grad"]
__all__ += ["attention"]
__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
__all__ += ["common_types", "intrinsic", "modules", "qat", "quantizable", "quantized"]
