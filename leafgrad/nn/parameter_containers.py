"""ParameterList and ParameterDict: parameters held in a list or a dict, registered.

As PyTorch's, each entry is the module's attribute under its index or key: a Tensor becomes
a Parameter (registered), anything else a plain attribute (listed, not registered).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping

from .. import Tensor
from .module import Module
from .parameter import Parameter


def _entry(value):
    """What an entry holds: a Tensor as a Parameter (kept if it is one), anything else as is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(key, value, dtype_name) -> str:
    """One line of the containers' repr (PyTorch's wording)."""
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(str(s) for s in value.shape)
        return f"  ({key}): {kind} containing: [{dtype_name(value)} of size {size}]"
    return f"  ({key}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters (or other objects), held under "0", "1", ..."""

    def __init__(self, values: Iterable | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _attr(self, idx) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._attr(idx))

    def __setitem__(self, idx, value) -> None:
        setattr(self, self._attr(idx), _entry(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable) -> ParameterList:
        return self.extend(values)

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_describe(i, p, lambda t: t.dtype) for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters (or other objects), held under their string keys.

    As PyTorch's, a plain dict given to the constructor or ``update`` is taken in sorted key
    order (an OrderedDict, a ParameterDict or a sequence of pairs in its own order).
    """

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str):
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        setattr(self, self._attr(key), _entry(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def setdefault(self, key: str, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple:
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys: Iterable, default=None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = []
            for j, pair in enumerate(parameters):
                if not isinstance(pair, Iterable):
                    raise TypeError(
                        f"ParameterDict update sequence element #{j} should be Iterable; is"
                        + type(pair).__name__
                    )
                if len(pair) != 2:
                    raise ValueError(
                        f"ParameterDict update sequence element #{j} has length {len(pair)}; "
                        "2 is required"
                    )
                pairs.append(pair)
        for key, value in pairs:
            self[key] = value

    def __or__(self, other) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_describe(k, p, lambda t: t.type()) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
