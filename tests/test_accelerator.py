"""``torch.accelerator`` as PyTorch's CPU-only build answers it, checked against PyTorch."""

import warnings

import pytest

import leafgrad

CALLS = {
    "is_available": lambda a: a.is_available(),
    "current_accelerator": lambda a: a.current_accelerator(),
    "current_accelerator_checked": lambda a: a.current_accelerator(check_available=True),
    "device_count": lambda a: a.device_count(),
    "current_device_index": lambda a: a.current_device_index(),
    "set_device_index": lambda a: a.set_device_index(0),
    "synchronize": lambda a: a.synchronize(),
    "current_stream": lambda a: a.current_stream(),
    "empty_cache": lambda a: a.empty_cache(),
    "memory_allocated": lambda a: a.memory_allocated(),
    "max_memory_reserved": lambda a: a.max_memory_reserved(),
    "reset_peak_memory_stats": lambda a: a.reset_peak_memory_stats(),
    "get_memory_info": lambda a: a.get_memory_info(),
}


def _outcome(fn):
    try:
        return ("value", repr(fn()))
    except Exception as exc:  # the type and PyTorch's sentence must match
        return ("raises", type(exc).__name__, str(exc))


@pytest.mark.parametrize("name", list(CALLS))
def test_accelerator_answers_as_a_cpu_build(name):
    torch = pytest.importorskip("torch")
    ours = _outcome(lambda: CALLS[name](leafgrad.accelerator))
    assert ours == _outcome(lambda: CALLS[name](torch.accelerator))


def test_the_tutorials_device_idiom_picks_the_cpu():
    acc = leafgrad.accelerator
    device = acc.current_accelerator().type if acc.is_available() else "cpu"
    assert leafgrad.ones(2, device=device).device == leafgrad.device("cpu")


def test_device_index_switches_nothing_for_none_and_raises_for_an_index():
    with leafgrad.accelerator.device_index(None):
        pass
    with pytest.raises(RuntimeError, match="none is available"):
        with leafgrad.accelerator.device_index(0):
            pass


def test_the_deprecated_idx_names_warn_as_pytorch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            leafgrad.accelerator.current_device_idx()
    assert [(w.category, str(w.message)) for w in caught] == [
        (FutureWarning, "Use `current_device_index` instead.")
    ]
    assert caught[0].filename == __file__
