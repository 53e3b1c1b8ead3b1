"""ParameterList and ParameterDict: parameters held in a list or a dict, registered."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from .. import Tensor
from .module import Module
from .parameter import Parameter


def _as_parameter(value) -> Parameter:
    if isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        return Parameter(value)
    raise TypeError(f"a parameter container holds Tensors, got {type(value).__name__}")


class ParameterList(Module):
    """A list of parameters, registered under "0", "1", ... (Tensors become Parameters)."""

    def __init__(self, values: Iterable | None = None) -> None:
        super().__init__()
        for value in values or ():
            self.append(value)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())

    def __getitem__(self, idx: int) -> Parameter:
        values = list(self._parameters.values())
        return values[idx]

    def __setitem__(self, idx: int, value) -> None:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"ParameterList index {idx} is out of range for length {n}")
        self.register_parameter(str(idx % n), _as_parameter(value))

    def append(self, value) -> ParameterList:
        self.register_parameter(str(len(self)), _as_parameter(value))
        return self

    def extend(self, values: Iterable) -> ParameterList:
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"({i}): {_describe(p)}" for i, p in enumerate(self))


class ParameterDict(Module):
    """A dict of parameters, registered under their keys (Tensors become Parameters)."""

    def __init__(self, parameters: Mapping | None = None) -> None:
        super().__init__()
        for key, value in (parameters or {}).items():
            self[key] = value

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, value) -> None:
        self.register_parameter(key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters: Mapping) -> None:
        for key, value in parameters.items():
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"({k}): {_describe(p)}" for k, p in self.items())


def _describe(p: Tensor) -> str:
    size = "x".join(str(s) for s in p.shape)
    return f"Parameter containing: [{p.dtype} of size {size}]"
