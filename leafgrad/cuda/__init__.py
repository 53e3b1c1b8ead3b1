"""``torch.cuda`` as a CPU-only build of PyTorch has it: no device; queries answer, seeds are
accepted, and anything that needs a GPU fails as PyTorch's CPU build fails."""

from __future__ import annotations

from .._legacy import CUDA_TYPES
from . import amp, graphs, jiterator, memory, nccl, nvtx, profiler, random, sparse, streams, tunable  # noqa: F401
from ._more import *  # noqa: F403
from ._refusals import _not_compiled, needs_nvml
from .graphs import graph, graph_pool_handle, make_graphed_callables  # noqa: F401
from .memory import *  # noqa: F403
from .random import *  # noqa: F403
from .streams import *  # noqa: F403

# The typed constructors exist, never match a tensor, and refuse to construct.
FloatTensor = CUDA_TYPES["FloatTensor"]
DoubleTensor = CUDA_TYPES["DoubleTensor"]
HalfTensor = CUDA_TYPES["HalfTensor"]
LongTensor = CUDA_TYPES["LongTensor"]
IntTensor = CUDA_TYPES["IntTensor"]
ShortTensor = CUDA_TYPES["ShortTensor"]
CharTensor = CUDA_TYPES["CharTensor"]
ByteTensor = CUDA_TYPES["ByteTensor"]
BoolTensor = CUDA_TYPES["BoolTensor"]
BFloat16Tensor = CUDA_TYPES["BFloat16Tensor"]


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def device_count() -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


synchronize = _not_compiled
current_device = _not_compiled
get_device_name = _not_compiled
get_device_properties = _not_compiled
get_device_capability = _not_compiled
init = _not_compiled


def set_device(device) -> None:
    # PyTorch's CPU build lacks the binding, so its call fails with AttributeError.
    raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")


ipc_collect = _not_compiled
can_device_access_peer = _not_compiled
current_blas_handle = _not_compiled
current_solver_handle = _not_compiled
cudart = _not_compiled
clock_rate = needs_nvml("clock_rate")
utilization = needs_nvml("utilization")
temperature = needs_nvml("temperature")
power_draw = needs_nvml("power_draw")
memory_usage = needs_nvml("memory_usage")
device_memory_used = needs_nvml("device_memory_used")

default_generators: tuple = ()  # one per device, and there are none
has_half = True
has_magma = False


def get_arch_list() -> list:
    return []  # no CUDA architectures compiled in


def get_gencode_flags() -> str:
    return ""


def is_tf32_supported() -> bool:
    return False


class CudaError(RuntimeError):
    """A CUDA runtime error (never raised here: there is no CUDA runtime)."""


class OutOfMemoryError(RuntimeError):
    """Out of device memory (``torch.OutOfMemoryError``; never raised here)."""
