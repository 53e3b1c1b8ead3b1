"""Helpers the older test files take from ``torch.testing`` that PyTorch 2.x no longer has."""

from __future__ import annotations

import importlib

_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")


def get_all_dtypes(
    include_half=True, include_bfloat16=True, include_bool=True, include_complex=True
):
    """Every dtype of the bound ``torch`` the flags admit, in the older helper's order.

    A dtype the bound library lacks is left out; a test that names it directly still meets
    the gap.
    """
    torch = importlib.import_module("torch")  # why: leafgrad or PyTorch, bound at run time
    names = [*_INTEGRAL, "float32", "float64"]
    names += ["float16"] * include_half + ["bfloat16"] * include_bfloat16
    names += ["bool"] * include_bool + ["complex64", "complex128"] * include_complex
    return [getattr(torch, n) for n in names if hasattr(torch, n)]
