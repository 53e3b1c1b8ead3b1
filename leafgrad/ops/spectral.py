"""The short-time Fourier transform, ``stft``, in PyTorch's real form (``return_complex=False``:
real and imaginary parts in a last dim of 2), composed of differentiable ops: padding by
indexing, frames by ``unfold``, the DFT as a product with cosine and sine matrices.

leafgrad has no complex dtypes, so ``return_complex=True`` and ``istft`` (which takes a
complex spectrum) raise, saying so.
"""

from __future__ import annotations

import math

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from .._warn import warn_at_user
from .joining import cat, stack


def _padded(x: Tensor, pad: int, mode: str) -> Tensor:
    """``x`` padded by ``pad`` on both ends of its last dim, as ``F.pad`` pads 1-D signals."""
    length = x._data.shape[-1]
    if mode == "constant":
        zeros = _wrap(np.zeros(x._data.shape[:-1] + (pad,), dtype=x._data.dtype))
        return cat([zeros, x, zeros], -1)
    positions = np.arange(-pad, length + pad)
    if mode == "reflect":
        if pad >= length:
            raise RuntimeError(
                f"stft: Padding size should be less than the corresponding input dimension, "
                f"but got: padding ({pad}, {pad}) at dimension -1 of input of length {length}; "
                "use a shorter n_fft or pad_mode='constant'"
            )
        positions = np.abs(positions)
        positions = np.where(positions >= length, 2 * (length - 1) - positions, positions)
    elif mode == "replicate":
        positions = np.clip(positions, 0, length - 1)
    elif mode == "circular":
        positions = positions % length
    else:
        raise NotImplementedError(
            f"stft: pad_mode {mode!r} is not one of 'constant', 'reflect', 'replicate', 'circular'"
        )
    return x.index_select(-1, _wrap(positions.astype(np.int64)))


def _full_window(window, win_length: int, n_fft: int, dtype) -> Tensor | None:
    """The window zero-padded to ``n_fft``, centred (None: rectangular, nothing to apply)."""
    if window is None:
        if win_length == n_fft:
            return None
        window = _wrap(np.ones(win_length, dtype=dtype))
    elif window._data.ndim != 1 or window._data.shape[0] != win_length:
        raise RuntimeError(
            f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but "
            f"got window with size {list(window._data.shape)}"
        )
    left = (n_fft - win_length) // 2
    if left == 0 and win_length == n_fft:
        return window
    zeros = np.zeros(n_fft - win_length - left, dtype=window._data.dtype)
    return cat([_wrap(np.zeros(left, window._data.dtype)), window, _wrap(zeros)], 0)


def _dft_matrices(n_fft: int, count: int, dtype) -> tuple[Tensor, Tensor]:
    """``cos`` and ``-sin`` of ``2 pi k n / n_fft`` (``(n_fft, count)``), exact where they are
    0 or +-1 so that, e.g., the Nyquist bin's imaginary part is exactly zero."""
    phase = np.outer(np.arange(n_fft), np.arange(count)) % n_fft  # whole turns dropped
    angles = 2 * math.pi * phase / n_fft
    cos, sin = np.cos(angles), -np.sin(angles)
    sin[(2 * phase) % n_fft == 0] = 0.0
    cos[(4 * phase) % (2 * n_fft) == n_fft] = 0.0
    return _wrap(cos.astype(dtype)), _wrap(sin.astype(dtype))


@public()
def stft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None,
         center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided=None, return_complex=None, align_to_window=None) -> Tensor:  # fmt: skip
    """Spectra of windowed frames of a 1-D signal (or a batch ``(B, L)``): ``(freqs,
    frames, 2)`` (or ``(B, freqs, frames, 2)``), real and imaginary parts last. Only
    ``return_complex=False`` is possible (leafgrad has no complex dtype)."""
    if return_complex is None:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs; leafgrad "
            "has no complex dtypes, so pass return_complex=False (real and imaginary parts in "
            "a last dim of 2)"
        )
    if return_complex:
        raise RuntimeError(
            "stft(return_complex=True) needs a complex result, and leafgrad has no complex "
            "dtype; pass return_complex=False for the real and imaginary parts in a last dim of 2"
        )
    if align_to_window:
        raise NotImplementedError("stft: align_to_window=True is not supported by leafgrad")
    if input._data.ndim not in (1, 2):
        raise RuntimeError(
            f"stft: expected a 1D or 2D tensor, but got a {input._data.ndim}D tensor"
        )
    if not input.is_floating_point():
        raise RuntimeError(
            f"stft: expected a tensor of floating point dtype, got {input.dtype}; convert it "
            "first (e.g. .double())"
        )
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if window is None:
        warn_at_user(
            "A window was not provided. A rectangular window will be applied, which leaks "
            "spectrum between frequencies; pass window=torch.hann_window(n_fft) (or "
            "window=torch.ones(n_fft) to keep the rectangle without this warning)"
        )
    warn_at_user(
        "stft with return_complex=False is deprecated in PyTorch (it will return complex "
        "tensors only); leafgrad has no complex dtypes, so this real form is the one it has"
    )
    x = input if input._data.ndim == 2 else input.unsqueeze(0)
    if center:
        x = _padded(x, n_fft // 2, pad_mode)
    length = x._data.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    frames = x.unfold(-1, n_fft, hop)  # (B, frames, n_fft)
    full = _full_window(window, win, n_fft, x._data.dtype)
    if full is not None:
        frames = frames * full
    count = n_fft // 2 + 1 if onesided is None or onesided else n_fft
    cos, sin = _dft_matrices(n_fft, count, x._data.dtype)
    spectrum = stack([frames.matmul(cos), frames.matmul(sin)], -1)  # (B, frames, freqs, 2)
    if normalized:
        spectrum = spectrum * (1 / math.sqrt(n_fft))
    spectrum = spectrum.transpose(1, 2)
    return spectrum if input._data.ndim == 2 else spectrum.squeeze(0)


@public()
def istft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None,
          center: bool = True, normalized: bool = False, onesided=None, length=None,
          return_complex: bool = False) -> Tensor:  # fmt: skip
    """RuntimeError: the inverse takes a complex spectrum, and leafgrad has no complex dtype
    (PyTorch raises the same for a real input)."""
    raise RuntimeError(
        "istft requires a complex-valued input tensor matching the output from stft with "
        "return_complex=True; leafgrad has no complex dtypes, so it cannot invert a spectrum"
    )


__all__ = exports(globals())
