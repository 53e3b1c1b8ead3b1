"""Neural-network building blocks: Module, layers, losses, ``init`` and ``functional``."""

from . import functional, init, utils
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
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .containers import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d, Conv3d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import Dropout
from .flatten import Flatten, Unflatten
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
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .parameter import Parameter
from .parameter_containers import ParameterDict, ParameterList
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .sparse import Embedding

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
__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

__all__ += [
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss",
    "MarginRankingLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss",
]  # fmt: skip
