"""``torch.cuda`` as a CPU-only build of PyTorch has it: no device; queries answer, seeds are
accepted, and anything that needs a GPU fails as PyTorch's CPU build fails."""

from __future__ import annotations

from ._legacy import CUDA_TYPES

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


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def device_count() -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def seed() -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def seed_all() -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def empty_cache() -> None:
    """Nothing to free: no CUDA memory is ever allocated."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


synchronize = _not_compiled
current_device = _not_compiled
get_device_name = _not_compiled
get_device_properties = _not_compiled
get_device_capability = _not_compiled
get_rng_state = _not_compiled
set_rng_state = _not_compiled


def get_rng_state_all() -> list:
    return []  # one state per device, and there are none


def set_rng_state_all(new_states) -> None:
    """Accepted: one state per device, and there are none."""


init = _not_compiled


def set_device(device) -> None:
    # PyTorch's CPU build lacks the binding, so its call fails with AttributeError.
    raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")


def reset_peak_memory_stats(device=None) -> None:
    raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")
