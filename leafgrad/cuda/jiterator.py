"""``torch.cuda.jiterator``, as a CPU-only build of PyTorch has it: a kernel can be declared,
calling it fails (it compiles CUDA C++ at run time)."""

from __future__ import annotations


class _JittedFunction:
    def __init__(self, code_string: str, return_by_ref: bool, num_outputs: int, **kwargs):
        self.code_string, self.return_by_ref = code_string, return_by_ref
        self.num_outputs, self.kwargs = num_outputs, kwargs

    def __call__(self, *tensors, **kwargs):
        raise AssertionError(
            "Jiterator is only supported on CUDA and ROCm GPUs, none are available."
        )


def _create_jit_fn(code_string: str, **kwargs) -> _JittedFunction:
    """A CUDA elementwise kernel from C++ source; calling it fails without a GPU."""
    return _JittedFunction(code_string, return_by_ref=False, num_outputs=1, **kwargs)


def _create_multi_output_jit_fn(code_string: str, num_outputs: int, **kwargs):
    """As ``_create_jit_fn``, with several outputs; calling it fails without a GPU."""
    return _JittedFunction(code_string, return_by_ref=True, num_outputs=num_outputs, **kwargs)


__all__: list = []
