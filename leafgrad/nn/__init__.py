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
from .containers import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
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
from .module import Module
from .parameter import Parameter
from .parameter_containers import ParameterDict, ParameterList

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CELU", "CrossEntropyLoss", "Dropout", "ELU", "Flatten",
    "functional", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "HuberLoss", "Identity", "init", "L1Loss", "LeakyReLU", "Linear", "LogSigmoid",
    "LogSoftmax", "Mish", "Module", "ModuleDict", "ModuleList", "MSELoss", "NLLLoss",
    "Parameter", "ParameterDict", "ParameterList", "PReLU", "ReLU", "ReLU6", "RReLU", "SELU",
    "Sequential", "Sigmoid", "SiLU", "Sin", "SmoothL1Loss", "Softmax", "Softmax2d", "Softmin",
    "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "utils",
]  # fmt: skip
