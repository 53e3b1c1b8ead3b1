"""``torch.cuda.sparse`` tensor types, as a CPU-only build of PyTorch has them: the names
exist, constructing one fails (no CUDA, and leafgrad has no sparse tensors)."""

from __future__ import annotations


def _sparse_type(name: str) -> type:
    def __new__(cls, *args, **kwargs):
        raise TypeError(
            f"type torch.cuda.sparse.{name} not available. Torch not compiled with CUDA enabled."
        )

    doc = f"``torch.cuda.sparse.{name}``: refused, as in a CPU-only build of PyTorch."
    return type(name, (), {"__new__": __new__, "__doc__": doc, "__module__": "torch.cuda.sparse"})


FloatTensor = _sparse_type("FloatTensor")
DoubleTensor = _sparse_type("DoubleTensor")
HalfTensor = _sparse_type("HalfTensor")
BFloat16Tensor = _sparse_type("BFloat16Tensor")
LongTensor = _sparse_type("LongTensor")
IntTensor = _sparse_type("IntTensor")
ShortTensor = _sparse_type("ShortTensor")
CharTensor = _sparse_type("CharTensor")
ByteTensor = _sparse_type("ByteTensor")
