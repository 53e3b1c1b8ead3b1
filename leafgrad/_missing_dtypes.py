"""PyTorch dtypes leafgrad does not have (bfloat16 and the complex ones), as named objects
that compare and print like PyTorch's, so code that only names them (``x.dtype ==
torch.bfloat16``, ``dtype in (torch.float16, torch.bfloat16)``) runs; passing one as a
``dtype=`` argument raises a TypeError that names it."""

from __future__ import annotations

__all__ = ["bfloat16", "complex32", "complex64", "complex128", "chalf", "cfloat", "cdouble"]


class unsupported_dtype:
    """Refused on purpose: a PyTorch dtype leafgrad has no arrays for (NumPy has no bfloat16,
    and leafgrad has no complex dtypes); use float16, float32 or float64 instead."""

    __slots__ = ("is_complex", "is_floating_point", "itemsize", "name")

    def __init__(self, name: str, itemsize: int, is_complex: bool) -> None:
        self.name = name
        self.itemsize = itemsize
        self.is_complex = is_complex
        self.is_floating_point = not is_complex

    @property
    def is_signed(self) -> bool:
        """True, as PyTorch's: bfloat16 and the complex dtypes carry a sign."""
        return True

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name  # unpickles as this module's instance of that name


bfloat16 = unsupported_dtype("bfloat16", 2, is_complex=False)
complex32 = chalf = unsupported_dtype("complex32", 4, is_complex=True)
complex64 = cfloat = unsupported_dtype("complex64", 8, is_complex=True)
complex128 = cdouble = unsupported_dtype("complex128", 16, is_complex=True)
