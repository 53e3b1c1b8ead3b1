"""stft in its real form (return_complex=False) against torch: values for each padding,
window and side option, gradients to second order, and what raises (complex results, istft)."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


SIGNAL = np.random.default_rng(0).standard_normal((2, 40))
HANN = np.hanning(12)[1:-1]


@pytest.mark.parametrize(
    "kw",
    [
        {"n_fft": 8}, {"n_fft": 16, "hop_length": 3, "win_length": 10, "window": HANN},
        {"n_fft": 8, "center": False}, {"n_fft": 8, "onesided": False, "normalized": True},
        {"n_fft": 8, "pad_mode": "constant"}, {"n_fft": 8, "pad_mode": "replicate"},
        {"n_fft": 8, "pad_mode": "circular", "hop_length": 5}, {"n_fft": 40, "center": False},
    ],
)  # fmt: skip
@pytest.mark.parametrize("batched", [True, False])
def test_real_stft_matches_pytorch(torch, kw, batched):
    signal = SIGNAL if batched else SIGNAL[0]
    results = []
    for m in (lg, torch):
        args = dict(kw)
        if "window" in args:
            args["window"] = m.tensor(args["window"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(m.stft(m.tensor(signal), return_complex=False, **args))
    ours, theirs = results
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    assert_close(ours, theirs.numpy())


def test_stft_is_differentiable_to_second_order(torch):
    def fn(m, x, w):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = x.stft(8, hop_length=3, window=w, return_complex=False)
        return out * out

    compare(fn, [SIGNAL[:, :20], np.hanning(8)], torch=torch)


def test_what_raises_matches_pytorch(torch):
    for m in (lg, torch):
        x = m.tensor(SIGNAL[0])
        with pytest.raises(RuntimeError, match="requires the return_complex parameter"):
            m.stft(x, 8)
        with pytest.raises(RuntimeError, match="complex-valued input"):
            m.istft(m.ones(5, 3), 8)
        with pytest.raises(RuntimeError):
            m.stft(x, 8, window=m.ones(5), return_complex=False)
        with pytest.raises(RuntimeError):
            m.stft(x[:3], 8, return_complex=False)  # reflect padding longer than the signal


def test_complex_results_are_refused_saying_why():
    with pytest.raises(RuntimeError, match="no complex dtype"):
        lg.stft(lg.ones(16), 8, return_complex=True)


def test_stft_warns_about_the_missing_window_and_the_real_form():
    with pytest.warns(UserWarning) as record:
        lg.stft(lg.ones(16), 8, return_complex=False)
    text = " ".join(str(w.message) for w in record)
    assert "A window was not provided" in text and "return_complex=False is deprecated" in text
