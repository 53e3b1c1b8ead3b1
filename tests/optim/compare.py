"""Comparing leafgrad's optimiser results with PyTorch's."""

from __future__ import annotations

from .._tolerance import assert_close


def assert_params_close(ours, theirs):
    """Parameters after many steps: rounding differences compound (see tests/_tolerance.py)."""
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        assert_close(a, b, "iterative")


def state_as_python(state_dict):
    """A state dict with tensors replaced by (dtype name, shape, values) for comparison."""

    def convert(value):
        if hasattr(value, "detach"):  # a leafgrad or torch tensor
            return (
                "tensor",
                str(value.dtype).split(".")[-1],
                tuple(value.shape),
                value.detach().numpy().copy(),
            )
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v) for v in value)
        return value

    return convert(state_dict)
