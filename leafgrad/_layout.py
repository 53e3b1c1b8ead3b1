"""Tensor layouts (``torch.strided``, ``torch.sparse_coo`` ...): every leafgrad tensor is
strided (dense); the others exist so code naming them runs, as in PyTorch."""

from __future__ import annotations

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr"]
__all__ += ["sparse_bsc", "jagged"]


class layout:
    """A memory layout kind; the instances below are the only ones (as in PyTorch)."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.layout' instances")

    @classmethod
    def _make(cls, name: str) -> layout:
        kind = object.__new__(cls)
        kind._name = name
        return kind

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # unpickles as this module's instance of that name


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")
_mkldnn = layout._make("_mkldnn")
