"""PyTorch's checkpoint format (``torch.save``'s zip archive), read and written safely.

A PyTorch checkpoint is a zip archive ``<name>/data.pkl`` (a pickle) plus one raw member per
storage (``<name>/data/<key>``). Reading unpickles ``data.pkl`` with ``find_class`` limited
to the globals PyTorch's own ``weights_only=True`` loader admits, mapped onto leafgrad
(tensors, parameters, ``Size``, dtypes, ``OrderedDict``...); any other global is refused
with a ValueError naming it, before anything is called, so nothing in the file executes.
Writing emits the same layout, with those globals named in the pickle, so that
``torch.load(f, weights_only=True)`` reads it.
"""

from __future__ import annotations

import codecs
import collections
import io
import pickle
import zipfile

import numpy as np

from . import _dtype
from ._tensor import Size, Tensor, _wrap
from ._tensor import device as _device

# PyTorch's storage classes and the NumPy dtype of their elements. bfloat16 has no NumPy
# dtype: its 16 bits are the high half of a float32, which is how it is loaded.
_STORAGES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "BFloat16Storage": "bfloat16", "LongStorage": np.int64, "IntStorage": np.int32,
    "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}  # fmt: skip
_STORAGE_OF = {np.dtype(v): k for k, v in _STORAGES.items() if v != "bfloat16"}
_DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")


class _Storage:
    """A storage read from the archive: a flat NumPy array."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _rebuild_tensor(storage: _Storage, offset: int, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None) -> Tensor:  # fmt: skip
    base = storage.array
    itemsize = base.dtype.itemsize
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if offset < 0 or needed > base.size or any(s < 0 for s in stride):
        raise ValueError("a tensor's size and stride reach outside its storage")
    view = np.lib.stride_tricks.as_strided(
        base[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride)
    )
    return _wrap(np.array(view), bool(requires_grad) and base.dtype.kind == "f")


def _rebuild_tensor_v1(storage, offset, size, stride):
    return _rebuild_tensor(storage, offset, size, stride)


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks, state=None):
    # why: nn sits above this module; only a checkpoint with parameters needs it
    from .nn import Parameter

    return Parameter(data.detach(), requires_grad=bool(requires_grad))


def _rebuild_from_type_v2(func, new_type, args, state):
    return func(*args)


def _encode(text: str, encoding: str = "latin1") -> bytes:
    return text.encode(encoding)


def _not_supported(what: str):
    def refuse(*args, **kwargs):
        raise ValueError(f"the checkpoint holds {what}, which leafgrad cannot represent")

    return refuse


def _dtype_global(name: str):
    if name in _DTYPES:
        return getattr(_dtype, name)
    if name == "bfloat16":
        return _dtype.float32  # bfloat16 storages load as float32 (exactly)
    return _not_supported(f"a tensor of dtype torch.{name}")


def _allowed(module: str, name: str):
    """What ``module.name`` means in leafgrad, for PyTorch's weights_only globals."""
    key = f"{module}.{name}"
    plain = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.bytearray": bytearray,
        "builtins.complex": complex,
        "_codecs.encode": _encode,
        "torch.Size": Size,
        "torch.device": _device,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor,
        "torch._utils._rebuild_tensor": _rebuild_tensor_v1,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.nn.parameter.Parameter": lambda *a: _rebuild_parameter(*a[:2], None),
    }
    if key in plain:
        return plain[key]
    if module == "torch" and name in _STORAGES:
        return name  # a storage class: only used inside persistent ids
    if (module == "torch" and hasattr(_dtype, name)) or (module == "torch" and name in (
        "bfloat16", "complex64", "complex128", "complex32", "uint16", "uint32", "uint64",
    )):  # fmt: skip
        return _dtype_global(name)
    unsupported = {
        "torch._utils._rebuild_sparse_tensor": "a sparse tensor",
        "torch._utils._rebuild_qtensor": "a quantized tensor",
        "torch._utils._rebuild_nested_tensor": "a nested tensor",
        "torch._utils._rebuild_meta_tensor_no_storage": "a meta tensor",
        "torch._utils._rebuild_tensor_v3": "a tensor of an unusual dtype",
        "torch._utils._rebuild_wrapper_subclass": "a tensor subclass",
        "torch._utils._rebuild_device_tensor_from_numpy": "a tensor of another device",
        "torch._utils._rebuild_device_tensor_from_cpu_tensor": "a tensor of another device",
    }
    if key in unsupported:
        return _not_supported(unsupported[key])
    return None


class _RestrictedUnpickler(pickle.Unpickler):
    """Unpickles ``data.pkl`` admitting only PyTorch's weights_only globals."""

    def __init__(self, file, read_storage) -> None:
        super().__init__(file)
        self._read_storage = read_storage

    def find_class(self, module: str, name: str):
        target = _allowed(module, name)
        if target is None:
            raise ValueError(
                f"the checkpoint's pickle asks for the global {module}.{name}, which PyTorch's "
                "weights_only loader does not admit either; refused (loading it could run code)"
            )
        return target

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise ValueError(f"unexpected persistent id {str(pid)[:80]!r} in the checkpoint")
        _, kind, key, _location, numel = pid
        if kind not in _STORAGES:
            raise ValueError(f"unknown storage type {kind!r} in the checkpoint")
        return self._read_storage(str(key), _STORAGES[kind], int(numel))


def is_torch_archive(archive: zipfile.ZipFile) -> bool:
    return _prefix(archive) is not None


def _prefix(archive: zipfile.ZipFile) -> str | None:
    for name in archive.namelist():
        if name.endswith("/data.pkl") and name.count("/") == 1:
            return name[: -len("data.pkl")]
    return None


def load(archive: zipfile.ZipFile, name: str):
    """The object in PyTorch checkpoint ``archive``; ValueError naming ``name`` if refused."""
    prefix = _prefix(archive)
    members = set(archive.namelist())
    byteorder = "little"
    if prefix + "byteorder" in members:
        byteorder = archive.read(prefix + "byteorder").decode().strip()
    storages: dict = {}

    def read_storage(key: str, dtype, numel: int) -> _Storage:
        if key in storages:
            return storages[key]
        member = f"{prefix}data/{key}"
        if member not in members:
            raise ValueError(f"storage {key!r} is missing from the archive")
        bits = np.uint16 if dtype == "bfloat16" else np.dtype(dtype)
        info = archive.getinfo(member)
        if info.file_size != numel * np.dtype(bits).itemsize:
            raise ValueError(f"storage {key!r} holds {info.file_size} bytes, not {numel} items")
        array = np.frombuffer(archive.read(member), dtype=np.dtype(bits).newbyteorder(
            "<" if byteorder == "little" else ">")).astype(bits)  # fmt: skip
        if dtype == "bfloat16":
            array = (array.astype(np.uint32) << 16).view(np.float32)
        storages[key] = _Storage(array)
        return storages[key]

    try:
        with archive.open(prefix + "data.pkl") as fh:
            return _RestrictedUnpickler(fh, read_storage).load()
    except ValueError as exc:
        raise ValueError(f"load: {name}: {exc}") from None
    except (pickle.UnpicklingError, EOFError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"load: {name} is a damaged PyTorch checkpoint ({exc})") from None


# ============================================================================= writing
class _Global:
    """Pickles as a reference to ``module.name`` (a PyTorch global) without importing it."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires reduce functions to be callable
        raise TypeError(f"{self.module}.{self.name} is a stand-in for pickling only")


_PLAIN = (
    type(None), bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set,
    frozenset,
)  # fmt: skip
# Globals the pickles of those plain objects refer to (all admitted by weights_only).
_PLAIN_GLOBALS = (collections.OrderedDict, collections.Counter, codecs.encode, set, frozenset,
                  bytearray, complex)  # fmt: skip
_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = collections.OrderedDict


class _TorchPickler(pickle._Pickler):
    """Pickles leafgrad objects as ``torch.save`` pickles PyTorch's."""

    def __init__(self, file, storages: list) -> None:
        super().__init__(file, protocol=2)
        self._storages = storages

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _dtype.dtype):
            obj = _Global("torch", obj.name)  # dtypes are plain globals: torch.float32
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _Global("torch", obj.kind), obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            array = np.ascontiguousarray(obj.detach()._data)
            kind = _STORAGE_OF.get(array.dtype)
            if kind is None:
                raise TypeError(f"save(format='torch'): cannot store dtype {array.dtype}")
            ref = _StorageRef(kind, str(len(self._storages)), array.size)
            self._storages.append(array)
            strides = tuple(s // array.itemsize for s in array.strides) if array.size else (
                tuple(int(np.prod(array.shape[i + 1 :])) for i in range(array.ndim)))  # fmt: skip
            rebuilt = (ref, 0, tuple(array.shape), strides, False, _ORDERED_DICT())
            if type(obj).__name__ == "Parameter":
                inner = (_REBUILD_TENSOR, rebuilt)
                return (_REBUILD_PARAMETER, (_Rebuilt(*inner), obj.requires_grad, _ORDERED_DICT()))
            rebuilt = rebuilt[:4] + (obj.requires_grad,) + rebuilt[5:]
            return (_REBUILD_TENSOR, rebuilt)
        if isinstance(obj, _Rebuilt):
            return (obj.func, obj.args)
        if isinstance(obj, Size):
            return (_Global("torch", "Size"), (tuple(obj),))
        if isinstance(obj, _device):
            return (_Global("torch", "device"), (str(obj),))
        if isinstance(obj, _PLAIN) or any(obj is g for g in _PLAIN_GLOBALS):
            return NotImplemented  # pickled as usual
        raise TypeError(
            f"save(format='torch'): cannot store an object of type {type(obj).__qualname__}; "
            "PyTorch's weights_only loader reads tensors, numbers, strings, bytes and "
            "lists/tuples/dicts/sets of them"
        )


class _StorageRef:
    def __init__(self, kind: str, key: str, numel: int) -> None:
        self.kind, self.key, self.numel = kind, key, numel


class _Rebuilt:
    """A nested ``func(*args)`` in the pickle (the tensor inside a parameter)."""

    def __init__(self, func, args) -> None:
        self.func, self.args = func, args


def save(obj, fileobj) -> None:
    """Write ``obj`` to the binary file ``fileobj`` in PyTorch's zip checkpoint format."""
    storages: list = []
    buffer = io.BytesIO()
    _TorchPickler(buffer, storages).dump(obj)
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", buffer.getvalue())
        archive.writestr("archive/byteorder", "little")
        for key, array in enumerate(storages):
            archive.writestr(f"archive/data/{key}", array.astype(array.dtype.newbyteorder("<"))
                             .tobytes())  # fmt: skip
        archive.writestr("archive/version", "3\n")
