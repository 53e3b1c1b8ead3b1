"""The rest of ``torch.cuda`` as a CPU-only build of PyTorch has it: typed storages that
refuse to be made, memory pools and allocators without a device, and small status helpers."""

from __future__ import annotations

import contextlib

from ._refusals import _not_compiled, missing_binding


class _CudaStorage:
    """A CUDA typed storage; making one fails, as in a CPU-only build of PyTorch."""

    def __new__(cls, *args, **kwargs):
        _not_compiled()


def _storage(name: str) -> type:
    doc = f"``torch.cuda.{name}``: refused, as in a CPU-only build of PyTorch (no CUDA)."
    return type(name, (_CudaStorage,), {"__doc__": doc, "__module__": "torch.cuda"})


BFloat16Storage = _storage("BFloat16Storage")
BoolStorage = _storage("BoolStorage")
ByteStorage = _storage("ByteStorage")
CharStorage = _storage("CharStorage")
ComplexDoubleStorage = _storage("ComplexDoubleStorage")
ComplexFloatStorage = _storage("ComplexFloatStorage")
DoubleStorage = _storage("DoubleStorage")
FloatStorage = _storage("FloatStorage")
HalfStorage = _storage("HalfStorage")
IntStorage = _storage("IntStorage")
LongStorage = _storage("LongStorage")
ShortStorage = _storage("ShortStorage")


class CUDAPluggableAllocator:
    """A CUDA allocator from a shared library: refused, as in a CPU-only build of PyTorch
    (leafgrad loads no native allocator; PyTorch's CPU build fails loading the file)."""

    def __init__(self, path_to_so_file: str, alloc_fn_name: str, free_fn_name: str) -> None:
        raise OSError(f"{path_to_so_file}: leafgrad loads no CUDA allocator (no CUDA here)")


class MemPool:
    """A CUDA memory pool: refused, as in a CPU-only build of PyTorch."""

    def __init__(self, allocator=None, use_on_oom: bool = False, no_split: bool = False):
        raise RuntimeError("Tried to instantiate dummy base class MemPool")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    """Allocations inside go to ``pool``; as in a CPU-only build of PyTorch, entering the
    context (which needs a device) fails."""
    _not_compiled()
    yield


@contextlib.contextmanager
def caching_allocator_disabled():
    """Nothing to disable: no CUDA caching allocator (as in a CPU-only build of PyTorch)."""
    yield


def caching_allocator_enable(value: bool = True) -> None:
    """Accepted and ignored, as in a CPU-only build of PyTorch: no CUDA allocator."""


change_current_allocator = missing_binding(
    "change_current_allocator", "_cuda_changeCurrentAllocator"
)


def check_error(res: int) -> None:
    """Check a CUDA runtime status; a CPU-only build of PyTorch has no runtime to ask."""
    raise AttributeError("'NoneType' object has no attribute 'cudaError'")


class cudaStatus:
    """CUDA runtime status codes, as ``torch.cuda.cudaStatus`` names them."""

    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


def get_stream_from_external(data_ptr: int, device=None):
    """Refused, as in a CPU-only build of PyTorch: there are no CUDA streams."""
    _not_compiled()


class DeferredCudaCallError(Exception):
    """A CUDA call queued before initialisation failed (never raised here: no CUDA)."""


class GreenContext:
    """A CUDA green context; it can be named and made, but ``create`` needs a device
    (as in a CPU-only build of PyTorch)."""

    @staticmethod
    def create(
        *, num_sms=None, workqueue_scope=None, workqueue_concurrency_limit=None, device_id=None
    ):
        raise RuntimeError(
            "PyTorch was not built with Green Context support! (leafgrad is a CPU-only build)"
        )


__all__ = [
    "BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage", "ComplexDoubleStorage",
    "ComplexFloatStorage", "DoubleStorage", "FloatStorage", "HalfStorage", "IntStorage",
    "LongStorage", "ShortStorage", "CUDAPluggableAllocator", "MemPool", "use_mem_pool",
    "caching_allocator_disabled", "caching_allocator_enable", "change_current_allocator",
    "check_error", "cudaStatus", "get_stream_from_external", "DeferredCudaCallError",
    "GreenContext",
]  # fmt: skip
