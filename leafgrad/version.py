"""``torch.version``: the PyTorch API version leafgrad follows, as libraries check it."""

from __future__ import annotations

__version__ = "2.13.0+leafgrad.0.1.0"  # PyTorch's version, a local suffix naming leafgrad
cuda = None
hip = None
debug = False
git_version = "leafgrad"
