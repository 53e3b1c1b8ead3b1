"""How a CPU-only build of PyTorch answers the CUDA calls it cannot serve (one place, so that
``coverage`` counts each as refused on purpose)."""

from __future__ import annotations


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def missing_binding(name: str, binding: str):
    """A function failing as PyTorch's CPU build does when its C binding is absent."""

    def refuse(*args, **kwargs):
        raise AttributeError(f"module 'torch._C' has no attribute '{binding}'")

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = "AttributeError, as in a CPU-only build of PyTorch: no CUDA binding."
    return refuse


def needs_nvml(name: str):
    """A GPU query that needs NVIDIA's management library, absent as on a CPU-only machine."""

    def refuse(device=None):
        raise ModuleNotFoundError(
            "nvidia-ml-py does not seem to be installed or it can't be imported."
        )

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = "ModuleNotFoundError, as in a CPU-only build of PyTorch: no NVML."
    return refuse
