"""save/load: tensors and nested containers in a NumPy ``.npz`` archive, never a pickle.

A checkpoint is a zip archive written by ``numpy.savez``: one ``.npy`` member per distinct
array, plus ``__leafgrad__.npy``, a uint8 array holding a UTF-8 JSON manifest that describes
the object's structure. Loading reads arrays with ``allow_pickle=False`` and rebuilds only the
types the manifest format knows (None, bool, int, float, str, bytes, list, tuple, dict,
OrderedDict, Counter, Size, dtype, tensors, NumPy arrays and scalars), so a load can never
execute code. Floats are stored as ``float.hex`` strings and arrays as raw ``.npy`` bytes, so
every value, NaN payloads and signed zeros included, comes back bit for bit.

Saving to a path is atomic: the archive is written to a temporary file in the same
directory, flushed and fsync'ed, then moved over the target with ``os.replace``; an error
midway leaves the old file whole and removes the temporary one. The file keeps its owner's
rules: a re-save keeps the old file's permission bits, a new file gets what ``open()`` gives
under the umask, and a symbolic link keeps pointing at the file it names, which is the one
written. A save killed outright (SIGKILL, power loss) leaves its temporary file behind;
the next save to that path removes those whose process is gone, never one a live process
holds (each writer keeps an ``flock`` on its temporary file).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import math
import os
import re
import secrets
import stat
import zipfile
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

from . import _dtype, _torch_checkpoint
from ._tensor import Size, Tensor, _wrap

__all__ = ["load", "save"]

FORMAT = "leafgrad.save"
VERSION = 1
MANIFEST_KEY = "__leafgrad__"
_ALLOWED_DTYPES = frozenset(
    np.dtype(t) for t in ("bool", "u1", "i1", "i2", "i4", "i8", "f2", "f4", "f8", "u2", "u4", "u8")
)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_NPY_MAGIC = b"\x93NUMPY"


# ============================================================================= encoding
class _Encoder:
    """Turns an object into a JSON-able manifest node plus the arrays it refers to."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self._tensor_keys: dict[int, str] = {}
        self._keep_alive: list[Any] = []  # ids are only unique while the objects live
        self._active: set[int] = set()

    def _add_array(self, array: np.ndarray, where: str) -> str:
        if array.dtype not in _ALLOWED_DTYPES:
            raise TypeError(
                f"save: cannot store an array of dtype {array.dtype} at {where}; supported "
                "dtypes are bool, uint8/16/32/64, int8, int16, int32, int64, float16, float32, "
                "float64"
            )
        key = f"a{len(self.arrays)}"
        self.arrays[key] = array
        return key

    def encode(self, obj: Any, where: str) -> dict:
        if obj is None:
            return {"kind": "none"}
        if isinstance(obj, bool):
            return {"kind": "bool", "value": obj}
        if isinstance(obj, Tensor):
            return self._encode_tensor(obj, where)
        if isinstance(obj, _dtype.dtype):
            return {"kind": "dtype", "name": obj.name}
        if isinstance(obj, np.ndarray):
            return {"kind": "ndarray", "array": self._add_array(obj, where)}
        if isinstance(obj, np.generic):
            return {"kind": "numpy_scalar", "array": self._add_array(np.asarray(obj), where)}
        if isinstance(obj, int):
            return {"kind": "int", "value": int(obj)}
        if isinstance(obj, float):
            return {"kind": "float", "value": float.hex(float(obj))}
        if isinstance(obj, str):
            return {"kind": "str", "value": str(obj)}
        if isinstance(obj, bytes):
            return {"kind": "bytes", "value": obj.hex()}
        if isinstance(obj, (list, tuple, dict)):
            if id(obj) in self._active:
                raise ValueError(f"save: the object contains itself (a cycle) at {where}")
            self._active.add(id(obj))
            try:
                return self._encode_container(obj, where)
            finally:
                self._active.discard(id(obj))
        raise TypeError(
            f"save: cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__} "
            f"at {where}; leafgrad.save stores tensors, NumPy arrays, numbers, strings, bytes, "
            "None, bools and lists/tuples/dicts of them (convert it to one of these, e.g. via "
            "its state_dict())"
        )

    def _encode_tensor(self, t: Tensor, where: str) -> dict:
        key = self._tensor_keys.get(id(t))
        if key is None:
            # The array itself, not a copy: np.save writes it straight out.
            key = self._add_array(np.asarray(t.detach().numpy()), where)
            self._tensor_keys[id(t)] = key
            self._keep_alive.append(t)
        node = {"kind": "tensor", "array": key, "requires_grad": bool(t.requires_grad)}
        if type(t).__name__ == "Parameter":
            node["parameter"] = True
        return node

    def _encode_container(self, obj, where: str) -> dict:
        if isinstance(obj, Size):
            return {"kind": "size", "items": [int(s) for s in obj]}
        if isinstance(obj, list):
            return {
                "kind": "list",
                "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)],
            }
        if isinstance(obj, tuple):
            return {
                "kind": "tuple",
                "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)],
            }
        kind = (
            "counter"
            if isinstance(obj, Counter)
            else "ordereddict"
            if isinstance(obj, OrderedDict)
            else "dict"
        )
        items = []
        for k, v in obj.items():
            items.append([self.encode(k, f"{where} key {k!r}"), self.encode(v, f"{where}[{k!r}]")])
        return {"kind": kind, "items": items}


# ============================================================================= writing
def _write_archive(fileobj, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` (the manifest among them) to ``fileobj`` as an uncompressed .npz."""
    np.savez(fileobj, allow_pickle=False, **arrays)


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable; not every platform can open a directory.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_PATH_ERRORS: dict[type, type] = {}


def _path_error(exc: OSError, path: str) -> OSError:
    """``exc`` retold about the path the user gave (not a temporary file).

    The error is also a RuntimeError, the type ``torch.save`` raises for a path it cannot
    write, so code written for either library catches it.
    """
    kind = type(exc)
    cls = _PATH_ERRORS.get(kind)
    if cls is None:
        cls = _PATH_ERRORS[kind] = type(kind.__name__, (kind, RuntimeError), {})
    if exc.errno is None:
        return cls(f"save: cannot write {path!r}: {exc}")
    reason = exc.strerror
    if isinstance(exc, FileNotFoundError):
        reason += f" (does the directory {os.path.dirname(os.path.abspath(path))!r} exist?)"
    return cls(exc.errno, f"save: cannot write the checkpoint: {reason}", path)


def _temporary_pattern(name: str) -> re.Pattern:
    # ``.<name>.<pid>.<random>.tmp``: the pid tells whether the writer may still be alive.
    return re.compile(rf"\.{re.escape(name)}\.(\d+)\.[0-9a-f]{{12}}\.tmp")


def _create_temporary(directory: str, name: str) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(directory, f".{name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
        try:
            # 0o666 under the umask: a new file gets the permissions a plain open() gives.
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        if fcntl is not None:
            # Held until the file is closed (or the process dies): marks a live writer.
            fcntl.flock(fd, fcntl.LOCK_EX)
        return fd, tmp


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists but belongs to someone else
        return True
    return True


def _remove_abandoned_temporaries(directory: str, name: str) -> None:
    """Delete temporary files of earlier saves to ``name`` whose process is gone.

    A temporary is abandoned when its writer's pid is dead *and* nobody holds its lock (the
    lock covers pid reuse across PID namespaces). On platforms without ``flock`` nothing is
    removed: signalling a pid there is not a safe liveness test.
    """
    if fcntl is None:
        return
    pattern = _temporary_pattern(name)
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    for entry in entries:
        match = pattern.fullmatch(entry)
        if match is None or _process_alive(int(match.group(1))):
            continue
        candidate = os.path.join(directory, entry)
        try:
            fd = os.open(candidate, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(candidate)
        except OSError:
            pass  # locked by a live writer, or already gone
        finally:
            os.close(fd)


def _atomic_write(path: str, write) -> None:
    """Write through ``write(fileobj)`` to a temporary file, then move it over ``path``."""
    # Through a symbolic link, write the file it points to and keep the link (as open() does).
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    try:
        if os.path.isdir(target):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
        try:
            old = os.stat(target)
        except FileNotFoundError:
            old = None
        _remove_abandoned_temporaries(directory, name)
        fd, tmp = _create_temporary(directory, name)
    except OSError as exc:
        raise _path_error(exc, path) from None
    try:
        if old is not None:
            # A re-save keeps the file's permission bits (and owner, where allowed).
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
            with contextlib.suppress(OSError):
                os.fchown(fd, old.st_uid, old.st_gid)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _path_error(exc, path) from None
        raise
    _fsync_directory(directory)


def save(obj: Any, f, pickle_module=None, pickle_protocol=None, *, format: str = "leafgrad",
         **kwargs) -> None:  # fmt: skip
    """Save ``obj`` (tensors, state dicts, nested containers) to the path or binary file ``f``.

    Dtype, shape, values (bit for bit) and ``requires_grad`` of tensors are kept; a tensor
    that appears twice is stored once and loads as one tensor. ``pickle_module`` and
    ``pickle_protocol`` are accepted for PyTorch compatibility and ignored: nothing is
    pickled. Raises TypeError for an object of a type the format cannot store.
    ``format="torch"`` writes PyTorch's zip checkpoint instead, which
    ``torch.load(f, weights_only=True)`` reads (tensors, parameters, numbers, strings and
    containers of them).
    """
    if format == "torch":
        write = _torch_writer(obj)
    elif format == "leafgrad":
        arrays = _encode(obj)

        def write(fileobj):
            _write_archive(fileobj, arrays)
    else:
        raise ValueError(f"save: format must be 'leafgrad' or 'torch', got {format!r}")
    if isinstance(f, (str, os.PathLike)):
        _atomic_write(os.fspath(f), write)
    elif hasattr(f, "write"):
        write(f)
    else:
        raise TypeError(f"save: f must be a path or a binary file object, got {type(f).__name__}")


def _encode(obj: Any) -> dict[str, np.ndarray]:
    """The arrays of the leafgrad format: the manifest's, then the object's."""
    encoder = _Encoder()
    root = encoder.encode(obj, "the saved object")
    manifest = {"format": FORMAT, "version": VERSION, "root": root}
    text = json.dumps(manifest, allow_nan=False, separators=(",", ":"))
    arrays = {MANIFEST_KEY: np.frombuffer(text.encode("utf-8"), dtype=np.uint8)}
    arrays.update(encoder.arrays)
    return arrays


def _torch_writer(obj: Any):
    """A writer of ``obj`` in PyTorch's format; encoding errors surface before any file."""
    buffer = io.BytesIO()
    _torch_checkpoint.save(obj, buffer)
    data = buffer.getvalue()
    return lambda fileobj: fileobj.write(data)


# ============================================================================= reading
class _Decoder:
    """Rebuilds an object from a manifest node, checking every node it reads."""

    def __init__(self, archive, name: str) -> None:
        self.archive = archive
        self.name = name
        self._tensors: dict[str, Tensor] = {}
        fp = archive.zip.fp
        here = fp.tell()
        self._archive_bytes = fp.seek(0, io.SEEK_END)
        fp.seek(here)

    def _check_size(self, key: str) -> None:
        """Refuse a member whose header claims more data than it holds, before allocating.

        NumPy allocates the array its header describes before reading it, so a forged header
        (say 1e12 elements) would raise MemoryError or exhaust memory instead of an error.
        """
        try:
            info = self.archive.zip.getinfo(f"{key}.npy")
            if info.compress_type != zipfile.ZIP_STORED or info.file_size > self._archive_bytes:
                raise ValueError("it is compressed or larger than the file")
            with self.archive.zip.open(info) as member:
                version = np.lib.format.read_magic(member)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(member)
                elif version in ((2, 0), (3, 0)):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(member)
                else:
                    raise ValueError(f"unknown .npy format version {version}")
                stored = info.file_size - member.tell()
        except (ValueError, zipfile.BadZipFile, EOFError, OSError, KeyError) as exc:
            raise self.fail(f"array {key!r} is damaged ({exc})") from None
        if dtype.newbyteorder("=") not in _ALLOWED_DTYPES:
            raise self.fail(f"array {key!r} has unsupported dtype {dtype}")
        claimed = math.prod(shape) * dtype.itemsize
        if claimed != stored:
            raise self.fail(
                f"array {key!r} claims shape {tuple(shape)} of {dtype} ({claimed} bytes) but "
                f"holds {stored} bytes"
            )

    def fail(self, what: str) -> ValueError:
        return ValueError(f"load: {self.name} is not a valid leafgrad checkpoint: {what}")

    def array(self, key) -> np.ndarray:
        if not isinstance(key, str) or key == MANIFEST_KEY or key not in self.archive.files:
            raise self.fail(f"the manifest refers to a missing array {key!r}")
        return self.read(key)

    def read(self, key: str) -> np.ndarray:
        """Member ``key`` as a native-order array, checked before and after reading."""
        self._check_size(key)
        try:
            array = self.archive[key]
        except ValueError as exc:  # object arrays need pickle, which is refused
            raise self.fail(f"array {key!r} cannot be read safely ({exc})") from None
        except (zipfile.BadZipFile, EOFError, OSError, KeyError) as exc:
            raise self.fail(f"array {key!r} is damaged ({exc})") from None
        if array.dtype.newbyteorder("=") not in _ALLOWED_DTYPES:
            raise self.fail(f"array {key!r} has unsupported dtype {array.dtype}")
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))
        return array

    def decode(self, node) -> Any:
        if not isinstance(node, dict) or not isinstance(node.get("kind"), str):
            raise self.fail(f"malformed manifest node {str(node)[:80]!r}")
        kind = node["kind"]
        method = getattr(self, f"_decode_{kind}", None)
        if method is None:
            raise self.fail(f"unknown manifest node kind {kind!r}")
        try:
            return method(node)
        except (KeyError, TypeError, AttributeError) as exc:
            raise self.fail(f"malformed {kind!r} node ({exc!r})") from None

    def _value(self, node, types):
        value = node["value"]
        if not isinstance(value, types) or isinstance(value, bool) != (types is bool):
            raise self.fail(f"a {node['kind']!r} node holds {type(value).__name__}")
        return value

    def _decode_none(self, node):
        return None

    def _decode_bool(self, node):
        return self._value(node, bool)

    def _decode_int(self, node):
        return self._value(node, int)

    def _decode_float(self, node):
        try:
            return float.fromhex(self._value(node, str))
        except ValueError:
            raise self.fail(f"bad float {node['value']!r}") from None

    def _decode_str(self, node):
        return self._value(node, str)

    def _decode_bytes(self, node):
        try:
            return bytes.fromhex(self._value(node, str))
        except ValueError:
            raise self.fail("bad bytes value") from None

    def _decode_dtype(self, node):
        dtype = getattr(_dtype, str(node["name"]), None)
        if not isinstance(dtype, _dtype.dtype):
            raise self.fail(f"unknown dtype {node['name']!r}")
        return dtype

    def _items(self, node) -> list:
        items = node["items"]
        if not isinstance(items, list):
            raise self.fail(f"a {node['kind']!r} node's items are not a list")
        return items

    def _decode_list(self, node):
        return [self.decode(v) for v in self._items(node)]

    def _decode_tuple(self, node):
        return tuple(self.decode(v) for v in self._items(node))

    def _decode_size(self, node):
        items = self._items(node)
        if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in items):
            raise self.fail("a size holds something other than non-negative ints")
        return Size(items)

    def _pairs(self, node):
        for pair in self._items(node):
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.fail("a dict item is not a [key, value] pair")
            key = self.decode(pair[0])
            try:
                hash(key)
            except TypeError:
                raise self.fail(f"a dict key of type {type(key).__name__} is unhashable") from None
            yield key, self.decode(pair[1])

    def _decode_dict(self, node):
        return dict(self._pairs(node))

    def _decode_ordereddict(self, node):
        return OrderedDict(self._pairs(node))

    def _decode_counter(self, node):
        return Counter(dict(self._pairs(node)))

    def _decode_ndarray(self, node):
        return self.array(node["array"])

    def _decode_numpy_scalar(self, node):
        array = self.array(node["array"])
        if array.ndim != 0:
            raise self.fail("a NumPy scalar's array is not 0-d")
        return array[()]

    def _decode_tensor(self, node):
        key = node["array"]
        tensor = self._tensors.get(key)
        if tensor is not None:
            return tensor
        array = self.array(key)
        requires_grad = node.get("requires_grad", False)
        if not isinstance(requires_grad, bool):
            raise self.fail("a tensor's requires_grad is not a bool")
        if requires_grad and array.dtype.kind != "f":
            raise self.fail(f"a tensor of dtype {array.dtype} is marked requires_grad")
        if node.get("parameter"):
            tensor = _parameter(array, requires_grad)
        else:
            tensor = _wrap(np.require(array, requirements=["W"]), requires_grad)
        self._tensors[key] = tensor
        return tensor


def _parameter(array: np.ndarray, requires_grad: bool) -> Tensor:
    """A ``leafgrad.nn.Parameter`` when nn provides one, else a plain leaf tensor."""
    try:
        # why: nn sits above this module (it is built on the package that imports this one).
        from .nn import Parameter
    except ImportError:
        return _wrap(array, requires_grad)
    return Parameter(_wrap(array), requires_grad=requires_grad)


def _describe_foreign(head: bytes) -> str:
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}"):
        return (
            "it looks like a bare Python pickle (pickle.dump, or torch.save's legacy pre-1.6 "
            "format); leafgrad reads PyTorch's zip checkpoints through a restricted unpickler "
            "but not bare pickles: re-save it with a recent torch.save"
        )
    if head.startswith(_NPY_MAGIC):
        return "it is a bare .npy array; read it with numpy.load"
    if not head:
        return "the file is empty"
    return "it is not a zip/.npz archive (wrong magic bytes: the file is foreign or damaged)"


def _open_archive(source, name: str):
    head = source.read(8) if hasattr(source, "read") else None
    if head is None:
        with open(source, "rb") as fh:
            head = fh.read(8)
    else:
        source.seek(-len(head), io.SEEK_CUR)
    if not head.startswith(_ZIP_MAGIC):
        raise ValueError(f"load: {name} is not a leafgrad checkpoint: {_describe_foreign(head)}")
    try:
        archive = np.load(source, allow_pickle=False)
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
        raise ValueError(
            f"load: {name} is not a valid leafgrad checkpoint: the archive is truncated or "
            f"damaged ({exc})"
        ) from None
    return archive


def _read_manifest(decoder: _Decoder) -> dict:
    archive, name = decoder.archive, decoder.name
    if MANIFEST_KEY not in archive.files:
        hint = ""
        if any(f.endswith(".pkl") for f in archive.zip.namelist()):
            hint = (
                " (it holds a pickle, e.g. a torch.save file; leafgrad never unpickles, "
                "because unpickling can run arbitrary code)"
            )
        raise ValueError(f"load: {name} is not a leafgrad checkpoint: no manifest{hint}")
    raw = decoder.read(MANIFEST_KEY)
    try:
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError("the manifest is not a byte string")
        manifest = json.loads(raw.tobytes().decode("utf-8"), parse_constant=_reject_constant)
    except (
        ValueError,
        UnicodeDecodeError,
        RecursionError,
        zipfile.BadZipFile,
        EOFError,
        OSError,
    ) as exc:
        raise ValueError(
            f"load: {name} is not a valid leafgrad checkpoint: unreadable manifest ({exc})"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"load: {name} is not a leafgrad checkpoint: unknown manifest format")
    version = manifest.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise ValueError(
            f"load: {name} was written by a newer leafgrad (format version {version!r}; this "
            f"one reads up to {VERSION}); upgrade leafgrad to read it"
        )
    return manifest


def _reject_constant(name: str):
    raise ValueError(f"non-standard JSON constant {name}")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load an object written by ``save`` from the path or binary file ``f``.

    Nothing is unpickled or executed. Raises ValueError naming the file and the problem for
    a foreign, truncated or damaged file (a pickle or ``torch.save`` file included), and
    FileNotFoundError for a missing path. ``map_location``, ``pickle_module``,
    ``weights_only`` and ``mmap`` are accepted for PyTorch compatibility; leafgrad has only
    the CPU and never pickles, so they change nothing.
    """
    if isinstance(f, (str, os.PathLike)):
        name = repr(os.fspath(f))
        source = os.fspath(f)
    elif hasattr(f, "read") and hasattr(f, "seek"):
        name = repr(getattr(f, "name", f"<{type(f).__name__}>"))
        source = f
    else:
        raise TypeError(f"load: f must be a path or a seekable binary file, got {type(f).__name__}")
    archive = _open_archive(source, name)
    try:
        if MANIFEST_KEY not in archive.files and _torch_checkpoint.is_torch_archive(archive.zip):
            return _torch_checkpoint.load(archive.zip, name)
        decoder = _Decoder(archive, name)
        manifest = _read_manifest(decoder)
        try:
            return decoder.decode(manifest.get("root"))
        except RecursionError:
            raise ValueError(
                f"load: {name} is not a valid leafgrad checkpoint: the structure is nested too "
                "deeply"
            ) from None
    finally:
        archive.close()
