"""Tensor storages: the memory a tensor (and every view of it) lives in, as PyTorch's
``untyped_storage()`` (bytes) and the deprecated ``storage()`` (typed elements).

A tensor's storage is the NumPy array that owns its memory; views of one tensor share it,
so ``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`` says whether two
tensors share memory.
"""

from __future__ import annotations

import numpy as np

from ._dtype import as_dtype, from_numpy_dtype, get_default_dtype
from ._warn import warn_once


def storage_array(data: np.ndarray) -> np.ndarray:
    """The array owning ``data``'s memory (``data`` itself when it owns it)."""
    root = data
    while root.base is not None:
        base = root.base
        if not isinstance(base, np.ndarray):  # e.g. the wrapper as_strided views go through
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                break
        root = base
    return root


def storage_offset(data: np.ndarray) -> int:
    """Where ``data`` starts in its storage, in elements."""
    return (_address(data) - _address(storage_array(data))) // data.itemsize


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def same_view(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` see the same memory the same way: start, sizes, strides."""
    return a.shape == b.shape and a.strides == b.strides and _address(a) == _address(b)


class UntypedStorage:
    """A tensor's memory as bytes."""

    def __init__(self, *args, device=None) -> None:
        # An array is the tensor's own memory (untyped_storage()); a size or a sequence of
        # byte values makes fresh memory, as torch.UntypedStorage(n) / ([...]) does.
        self._array = _fresh(args, np.uint8, "UntypedStorage", device)

    def data_ptr(self) -> int:
        return _address(self._array)

    def nbytes(self) -> int:
        return self._array.nbytes

    def size(self) -> int:
        return self._array.nbytes

    __len__ = size

    def element_size(self) -> int:
        return 1

    @property
    def device(self):
        from ._tensor import CPU  # why: _tensor imports this module

        return CPU

    def tolist(self) -> list:
        return self._bytes().tolist()

    def __getitem__(self, i):
        return self._bytes()[i].tolist()

    def _bytes(self) -> np.ndarray:
        return self._array.reshape(-1, order="A").view(np.uint8)

    def __repr__(self) -> str:
        return _listed(self.tolist(), f"UntypedStorage(device={self.device})", self.size())


class TypedStorage:
    """A tensor's memory as elements of its dtype (PyTorch deprecates it, so it warns)."""

    def __init__(self, *args, dtype=None, device=None) -> None:
        if len(args) == 2 and isinstance(args[0], np.ndarray):  # a tensor's memory, typed
            self._array, self._np_dtype = args[0], np.dtype(args[1])
            return
        _deprecated_typed()
        self._np_dtype = np.dtype(as_dtype(dtype if dtype is not None else get_default_dtype()).np)
        self._array = _fresh(args, self._np_dtype, "TypedStorage", device)

    @property
    def dtype(self):
        return from_numpy_dtype(self._np_dtype)

    def data_ptr(self) -> int:
        return _address(self._array)

    def nbytes(self) -> int:
        return self._array.nbytes

    def element_size(self) -> int:
        return self._np_dtype.itemsize

    def size(self) -> int:
        return self._array.nbytes // self._np_dtype.itemsize

    __len__ = size

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._array)

    def _values(self) -> np.ndarray:
        return self._array.reshape(-1, order="A").view(self._np_dtype)

    def tolist(self) -> list:
        return self._values().tolist()

    def __getitem__(self, i):
        return self._values()[i].tolist()

    def __repr__(self) -> str:
        kind = f"TypedStorage(dtype={self.dtype}, device=cpu)"
        return _listed(self.tolist(), kind, self.size())


def _listed(values: list, kind: str, size: int) -> str:
    """PyTorch's storage repr: one element a line, then ``[torch.storage.<kind> of size n]``."""
    # torch.typename names the class by its module, torch.storage, in PyTorch
    return " " + "\n ".join(map(str, values)) + f"\n[torch.storage.{kind} of size {size}]"


def _fresh(args: tuple, np_dtype, name: str, device) -> np.ndarray:
    """The memory a storage constructor was given or asked for."""
    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"{name}: leafgrad runs on the CPU only, got device={device!r}")
    if len(args) == 1 and isinstance(args[0], np.ndarray):
        return args[0]
    if not args:
        return np.zeros(0, np_dtype)
    if len(args) == 1 and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
        return np.zeros(int(args[0]), np_dtype)  # PyTorch leaves it uninitialized
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return np.array(args[0], dtype=np_dtype).reshape(-1)
    raise TypeError(
        f"{name}(): expected a size (int) or a sequence of values, got "
        f"{', '.join(type(a).__name__ for a in args)}"
    )


def _deprecated_typed() -> None:
    """PyTorch's TypedStorage deprecation, once per process (as its own, however reached)."""
    warn_once(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
        "be the only storage class. This should only matter to you if you are using storages "
        "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
        "of tensor.storage()"
    )


def untyped_storage(tensor) -> UntypedStorage:
    return UntypedStorage(storage_array(tensor._data))


def typed_storage(tensor) -> TypedStorage:
    _deprecated_typed()
    return TypedStorage(storage_array(tensor._data), tensor._data.dtype)
