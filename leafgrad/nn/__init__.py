"""Neural-network building blocks: Module, layers, losses, ``init`` and ``functional``."""

from . import functional, init, utils
from .activation import (
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Sin,
    Softmax,
    Softplus,
    Tanh,
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
    "ELU",
    "GELU",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "ParameterList",
    "ParameterDict",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "Sin",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
    "functional",
    "utils",
    "init",
]  # fmt: skip
