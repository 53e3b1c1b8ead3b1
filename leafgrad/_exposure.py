"""How the package exposes what it defines: declared where each thing is defined, once.

``@public(...)`` (or ``primitive(..., expose=public(...))``) marks a callable as public and
says how: as a function (exported by its module's ``__all__``, hence ``leafgrad.<name>``), as
a Tensor method, with an in-place twin ``<name>_``, under operator names. Its public names
are the names its module binds to it, aliases included (``subtract = sub``): each module
ends with ``__all__ = exports(globals())``, which reads those bindings. ``ops/__init__.py``
then gives Tensor every registered method from one place.

This module imports nothing from the package but `_compiled` and `_warn` (standard library
only), so any module may declare with it.
"""

from __future__ import annotations

import functools
import inspect
import sys
from dataclasses import dataclass

from . import _compiled
from ._warn import is_leafgrad_module

FUNCTIONS: dict = {}  # public name -> the function (what leafgrad.<name> must be)
METHODS: dict = {}  # Tensor method name -> function (bound to Tensor as is)
INPLACE: dict = {}  # in-place method name -> its out-of-place function (ops/inplace wraps it)


@dataclass(frozen=True)
class Public:
    """How one callable is exposed (see ``public``)."""

    module: str
    function: bool = True
    method: bool | tuple = True
    inplace: bool = False
    operators: tuple = ()
    reflected: tuple = ()
    inplace_operators: tuple = ()

    def __call__(self, fn):
        """Declare ``fn`` exposed this way; returns ``fn`` (taking NumPy's keyword names)."""
        fn._public = self
        # Operators never get keywords, so they call ``fn`` past the wrappers that only
        # handle keywords (NumPy's names here, ``out=`` from ``_out.accepts_out``).
        operator = getattr(fn, "_without_out", fn)
        names = self.method if isinstance(self.method, tuple) else (fn.__name__,)
        if PYTHON_IN_TORCH.isdisjoint(names):
            fn = numpy_names(fn)
        if isinstance(self.method, tuple):
            for name in self.method:
                _add(METHODS, name, fn)
        for name in self.operators:
            _add(METHODS, name, operator)
        for name in self.reflected:
            _add(METHODS, name, _reflected(operator, name))
        for name in self.inplace_operators:
            _add(INPLACE, name, operator if name.startswith("__") else fn)
        return fn


# PyTorch's argument parser takes NumPy's spellings for these parameters of its native
# functions and methods (torch.cat(ts, axis=1), x.sum(axis=0, keepdims=True), torch.sum(a=x));
# the few it implements in Python do not (torch.norm, torch.split, Tensor.norm ...).
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
               "x2": "other"}  # fmt: skip
PYTHON_IN_TORCH = frozenset({"norm", "split", "unique", "unique_consecutive"})


def numpy_names(fn):
    """``fn``, also taking NumPy's keyword names (``NUMPY_NAMES``) for the parameters it has."""
    if fn.__name__.startswith("__"):  # operators take no keywords
        return fn
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return fn
    aliases = {alias: name for alias, name in NUMPY_NAMES.items()
               if name in params and alias not in params}  # fmt: skip
    if not aliases:
        return fn

    @functools.wraps(fn)
    def with_numpy_names(*args, **kwargs):
        if kwargs and not aliases.keys().isdisjoint(kwargs):
            kwargs = _renamed(fn.__name__, kwargs, aliases)
        return fn(*args, **kwargs)

    with_numpy_names._numpy_names = aliases
    return with_numpy_names


def _renamed(op: str, kwargs: dict, aliases: dict) -> dict:
    out = {}
    for key, value in kwargs.items():
        name = aliases.get(key, key)
        if name in out:
            raise TypeError(
                f"{op}() got {name!r} twice, once as NumPy's {key!r}; pass only one of them"
            )
        out[name] = value
    return out


def public(
    *,
    function: bool = True,
    method: bool | tuple = True,
    inplace: bool = False,
    operators: tuple = (),
    reflected: tuple = (),
    inplace_operators: tuple = (),
) -> Public:
    """Expose the decorated callable; its public names are those its module binds to it.

    ``function``: in the module's ``__all__`` (so ``leafgrad.<name>``). ``method``: a Tensor
    method under the same names, or a tuple of other method names (``("sum_to_size",)``).
    ``inplace``: an in-place twin ``<name>_`` per public name (``add_``, ``subtract_``).
    ``operators``: Tensor operator methods bound to it as is (``("__add__",)``);
    ``reflected``: operator methods with the operands swapped (``__rpow__``: ``pow(other,
    self)``); ``inplace_operators``: in-place operator methods (``__iadd__``).
    """
    # The declaring module: the caller, or, where a compiled module's top level (which runs in
    # no Python frame) calls, the compiled module being executed.
    module = sys._getframe(1).f_globals["__name__"]
    if not is_leafgrad_module(module) and _compiled.EXECUTING:
        module = _compiled.EXECUTING[-1]
    return Public(module, function, method, inplace, operators, reflected, inplace_operators)


def exports(namespace: dict) -> list:
    """The public names a module binds, registered as its declarations say: its ``__all__``.

    A name is public when it does not start with ``_`` and is bound to a callable declared
    public in this module (so names imported from elsewhere are not exported twice).
    """
    module = namespace["__name__"]
    names = []
    for name, value in namespace.items():
        spec = getattr(value, "_public", None)
        if name.startswith("_") or not isinstance(spec, Public) or spec.module != module:
            continue
        if spec.function:
            _add(FUNCTIONS, name, value)
            names.append(name)
        if spec.method is True:
            _add(METHODS, name, value)
        if spec.inplace:
            _add(INPLACE, f"{name}_", value)
    return names


def _add(table: dict, name: str, fn) -> None:
    if table.get(name, fn) is not fn:
        raise ValueError(f"{name!r} is exposed twice, as {table[name]!r} and as {fn!r}")
    table[name] = fn


def _reflected(fn, name: str):
    def method(self, other):
        return fn(other, self)

    method.__name__ = method.__qualname__ = name
    return method
