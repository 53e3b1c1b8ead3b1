"""Containers of modules: Sequential, ModuleList, ModuleDict."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping

from .module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "Sequential"]


def _absolute_index(idx, size: int, kind: str) -> int:
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"{kind}: index {idx} is out of range for {size} module(s)")
    return idx % size if size else idx


def _renumber(container: Module) -> None:
    """Keys 0..n-1 again after a deletion, keeping the order."""
    modules = list(container._modules.values())
    container._modules.clear()
    container._modules.update((str(i), m) for i, m in enumerate(modules))


class Sequential(Module):
    """Modules applied one after another: ``Sequential(a, b)(x) == b(a(x))``.

    Built from modules (named ``"0"``, ``"1"``, ...) or one OrderedDict of named modules.
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_absolute_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_absolute_index(idx, len(self), "Sequential")]
        setattr(self, key, module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        chosen = (
            keys[idx]
            if isinstance(idx, slice)
            else [keys[_absolute_index(idx, len(self), "Sequential")]]
        )
        for key in chosen:
            delattr(self, key)
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise AssertionError(
                f"Sequential.insert: module should be of type Module, got {type(module).__name__}"
            )
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for {n} module(s)")
        index = index + n if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)
        return self

    def pop(self, key):
        """The module(s) at ``key``, removed (the rest renumbered)."""
        module = self[key]
        del self[key]
        return module

    def __add__(self, other) -> Sequential:
        """A new Sequential of this one's modules, then ``other``'s (the same modules)."""
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is "
                "given."
            )
        return Sequential(*self, *other)

    def __iadd__(self, other) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is "
                "given."
            )
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, times) -> Sequential:
        """This Sequential's modules ``times`` over (the same modules, not copies)."""
        _check_factor(self, times)
        return Sequential(*(list(self) * times))

    def __rmul__(self, times) -> Sequential:
        return self.__mul__(times)

    def __imul__(self, times) -> Sequential:
        _check_factor(self, times)
        modules = list(self)
        for _ in range(times - 1):
            self.extend(modules)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


def _check_factor(sequential, times) -> None:
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(sequential)}")


class ModuleList(Module):
    """A list of modules, each registered (named by position) so its parameters are found."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_absolute_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_absolute_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_absolute_index(idx, len(self), "ModuleList")))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]):
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                f"{type(modules).__name__}"
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def pop(self, key: int) -> Module:
        module = self[key]
        del self[key]
        return module

    def __repr__(self) -> str:
        # Runs of identical children print once, as "(0-2): 3 x Linear(...)", like PyTorch.
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for first, last, r in runs:
            line = (
                f"({first}): {r}"
                if first == last
                else f"({first}-{last}): {last - first + 1} x {r}"
            )
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, each registered under its key, keeping insertion order."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        """Add ``modules``: a mapping or an iterable of ``(key, module)`` pairs."""
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                f"but got {type(modules).__name__}"
            )
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(
                    f"ModuleDict update sequence element #{j} should be Iterable; is "
                    f"{type(pair).__name__}"
                )
            pair = list(pair)
            if len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required"
                )
            self[pair[0]] = pair[1]
