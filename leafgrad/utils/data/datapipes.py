"""DataPipes, PyTorch's deprecated composable datasets, in their minimal working form: the
``IterDataPipe`` / ``MapDataPipe`` bases with a registry of functional forms
(``functional_datapipe("twice")`` makes ``pipe.twice()``), one live iterator per
IterDataPipe, ``DataChunk``, and the determinism and validation decorators.

PyTorch's built-in pipes (``batch``, ``map``, ``shuffle``...) are not provided; register
your own. ``runtime_validation`` checks yielded items against the pipe's declared item type
(``IterDataPipe[int]``) where PyTorch 2.13's own check is broken."""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterable

from .dataset import Dataset, IterableDataset

_state = {"determinism": False, "runtime_validation": True}


def _describe(pipe) -> str:
    """``Name(arg=value, ...)`` from the pipe's public attributes, for error messages."""
    args = ", ".join(f"{k}={v!r}" for k, v in vars(pipe).items() if not k.startswith("_"))
    return f"{type(pipe).__name__}({args})"


class _Registry:
    """The functional-form registry and hooks both DataPipe bases share."""

    functions: typing.ClassVar[dict] = {}
    __class_getitem__ = classmethod(types.GenericAlias)  # IterDataPipe[int], as typing allows
    repr_hook = str_hook = getstate_hook = reduce_ex_hook = None

    def __getattr__(self, name: str):
        function = type(self).functions.get(name)
        if function is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return functools.partial(function, self)

    @classmethod
    def register_function(cls, function_name: str, function) -> None:
        """Make ``function(pipe, ...)`` callable as ``pipe.function_name(...)``."""
        cls.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(
        cls, function_name: str, cls_to_register, enable_df_api_tracing: bool = False
    ) -> None:
        """Make ``cls_to_register(pipe, ...)`` callable as ``pipe.function_name(...)``."""
        if function_name in cls.functions:
            raise Exception(
                f"Unable to add DataPipe function name {function_name} as it is already taken"
            )
        cls.functions[function_name] = cls_to_register

    @classmethod
    def set_getstate_hook(cls, hook_fn) -> None:
        cls.getstate_hook = hook_fn

    @classmethod
    def set_reduce_ex_hook(cls, hook_fn) -> None:
        cls.reduce_ex_hook = hook_fn

    def __repr__(self) -> str:
        return self.repr_hook(self) if self.repr_hook is not None else type(self).__qualname__

    def __str__(self) -> str:
        return self.str_hook(self) if self.str_hook is not None else type(self).__qualname__


def _single_iterator(iter_fn):
    """Wrap ``__iter__`` so a new iterator invalidates the pipe's earlier ones."""

    @functools.wraps(iter_fn)
    def __iter__(self):
        self._valid_iterator_id = getattr(self, "_valid_iterator_id", 0) + 1
        my_id = self._valid_iterator_id
        source = iter(iter_fn(self))

        def checked():
            while True:
                if self._valid_iterator_id != my_id:
                    raise RuntimeError(
                        "This iterator has been invalidated because another iterator has been "
                        f"created from the same IterDataPipe: {_describe(self)}\nMake a new "
                        "pipe per consumer (leafgrad has no `.fork()`)."
                    )
                try:
                    item = next(source)
                except StopIteration:
                    return
                yield item

        return checked()

    return __iter__


class IterDataPipe(_Registry, IterableDataset):
    """An iterable-style DataPipe: subclass it with ``__iter__``; chain registered
    functional forms; only the newest iterator of a pipe may be advanced."""

    functions: typing.ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "__iter__" in vars(cls):
            cls.__iter__ = _single_iterator(vars(cls)["__iter__"])

    def reset(self) -> None:
        """Called before each new iteration; nothing to reset by default."""


class DFIterDataPipe(IterDataPipe):
    """An IterDataPipe of DataFrames (a marker class, as in PyTorch)."""

    def _is_dfpipe(self) -> bool:
        return True


class MapDataPipe(_Registry, Dataset):
    """A map-style DataPipe: subclass it with ``__getitem__`` and ``__len__``."""

    functions: typing.ClassVar[dict] = {}


class DataChunk(list):
    """A batch of items kept as one element of a DataPipe's stream (a list)."""

    def __init__(self, items: Iterable) -> None:
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent: str = "") -> str:
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self):
        yield from super().__iter__()

    def raw_iterator(self):
        yield from self.items


class functional_datapipe:
    """Class decorator: ``@functional_datapipe("name")`` registers the DataPipe class so that
    ``source.name(...)`` builds it from ``source``."""

    def __init__(self, name: str, enable_df_api_tracing: bool = False) -> None:
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        if isinstance(cls, type) and issubclass(cls, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif isinstance(cls, type) and issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        # anything else is returned unregistered, as PyTorch does
        return cls


class guaranteed_datapipes_determinism:
    """Inside this context, making a ``@non_deterministic`` DataPipe raises TypeError."""

    def __init__(self) -> None:
        self.prev = _state["determinism"]
        _state["determinism"] = True

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _state["determinism"] = self.prev


class non_deterministic:
    """Mark a DataPipe class non-deterministic (``@non_deterministic``) or, given a function
    of the constructor's arguments, non-deterministic when it returns True."""

    def __init__(self, arg) -> None:
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError(
                    f"Only `IterDataPipe` can be decorated with `non_deterministic`, "
                    f"but {arg.__name__} is found"
                )
            self.cls, self.deterministic_fn = arg, None
        elif callable(arg):
            self.cls, self.deterministic_fn = None, arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args, **kwargs):
        if self.cls is not None:
            if _state["determinism"]:
                raise TypeError(
                    f"{self.cls.__name__} is non-deterministic, but you set "
                    "'guaranteed_datapipes_determinism'. You can turn off determinism for this "
                    "DataPipe if that is acceptable for your application"
                )
            return self.cls(*args, **kwargs)
        cls = args[0]
        if not (isinstance(cls, type) and issubclass(cls, IterDataPipe)):
            raise TypeError(f"Only `IterDataPipe` can be decorated, but {cls!r} is found")
        self.cls = cls
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args, **kwargs):
        if _state["determinism"] and self.deterministic_fn(*args, **kwargs):
            raise TypeError(
                f"{self.cls.__name__} is non-deterministic with the inputs, but you set "
                "'guaranteed_datapipes_determinism'. You can turn off determinism for this "
                "DataPipe if that is acceptable for your application"
            )
        return self.cls(*args, **kwargs)


def argument_validation(f):
    """Pass-through decorator (PyTorch 2.13's no longer checks DataPipe argument types)."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    return wrapper


class runtime_validation_disabled:
    """Inside this context, ``@runtime_validation`` iterators skip their type checks."""

    def __init__(self) -> None:
        self.prev = _state["runtime_validation"]
        _state["runtime_validation"] = False

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _state["runtime_validation"] = self.prev


def _item_type(pipe):
    """The class ``T`` of ``class P(IterDataPipe[T])``, or None when not a plain class."""
    for klass in type(pipe).__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            args = typing.get_args(base)
            if typing.get_origin(base) in (IterDataPipe, MapDataPipe) and args:
                return args[0] if isinstance(args[0], type) else None
    return None


def runtime_validation(f):
    """Decorate a DataPipe's ``__iter__`` to check each yielded item against the pipe's
    declared item type; RuntimeError names the item and the type."""
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self):
        expected = _item_type(self) if _state["runtime_validation"] else None
        for item in f(self):
            if expected is not None and not isinstance(item, expected):
                raise RuntimeError(
                    f"Expected an instance as subtype of {expected.__name__}, but found "
                    f"{item!r}({type(item).__name__})"
                )
            yield item

    return wrapper
