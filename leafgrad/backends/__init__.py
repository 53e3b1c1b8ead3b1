"""``torch.backends`` as a CPU-only build of PyTorch reports it: cuDNN, CUDA and MPS absent,
their flags present so that code setting them runs."""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
