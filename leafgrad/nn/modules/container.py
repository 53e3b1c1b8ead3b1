"""``torch.nn.modules.container``: its classes, from where leafgrad defines them."""

from ..containers import ModuleDict, ModuleList, Sequential
from ..deprecated import Container
from ..parameter_containers import ParameterDict, ParameterList

__all__ = ["Container", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
