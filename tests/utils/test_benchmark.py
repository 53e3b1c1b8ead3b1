"""utils.benchmark: Timer's measurements and their printed form, against PyTorch's."""

import re

import pytest

import leafgrad
from leafgrad.utils import benchmark


def _shape_of(text: str) -> str:
    """The printed measurement without what a run varies: the address and the numbers."""
    text = re.sub(r"0x[0-9a-f]+", "ADDR", text)
    text = re.sub(r"^<[\w.]+\.Measurement", "<Measurement", text)
    return re.sub(r"\d+\.\d+ (ns|us|ms|s)\b", "T", text)


def test_timeit_prints_as_pytorchs_measurement():
    torch = pytest.importorskip("torch")
    from torch.utils import benchmark as real  # why: PyTorch's Timer is the oracle

    scope = {"x": None}
    ours = benchmark.Timer(stmt="x", globals=scope).timeit(7)
    theirs = real.Timer(stmt="x", globals=scope).timeit(7)
    assert _shape_of(repr(ours)) == _shape_of(repr(theirs))
    assert ours.number_per_run == theirs.number_per_run == 7
    assert len(ours.times) == len(theirs.times) == 1
    assert isinstance(ours.times[0], float) and ours.times[0] > 0
    assert torch is not None


def test_blocked_autorange_reports_its_blocks_and_labels():
    timer = benchmark.Timer(
        stmt="y = x * 2", setup="x = torch.ones(3)", label="double", sub_label="ones",
        description="three",
    )  # fmt: skip
    m = timer.blocked_autorange(min_run_time=0.01)
    assert m.title == "double: ones" and m.label == "double" and m.num_threads == 1
    assert sum(m.raw_times) >= 0.01 and m.median > 0 and m.mean > 0
    text = repr(m)
    assert "double: ones\nthree\nsetup: x = torch.ones(3)\n" in text
    assert f"{len(m.raw_times)} measurement" in text


def test_the_statement_sees_torch_and_a_copy_of_the_globals():
    scope = {"calls": []}
    benchmark.Timer(stmt="calls.append(torch)", globals=scope).timeit(1)
    assert scope["calls"][0] is leafgrad and "torch" not in scope


def test_a_statement_that_is_not_a_string_is_refused():
    with pytest.raises(ValueError):
        benchmark.Timer(stmt=lambda: None)
