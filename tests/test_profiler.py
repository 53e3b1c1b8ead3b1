"""torch.profiler and torch.autograd.profiler: the events of ops, backward nodes and named
ranges, their tables, schedules and traces, as PyTorch's (CPU activity)."""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import leafgrad
from leafgrad._engine.grad_mode import SPECIAL

LIBS = [leafgrad]
if importlib.util.find_spec("torch") is not None:
    import torch

    LIBS.append(torch)

by_lib = pytest.mark.parametrize("m", LIBS, ids=lambda m: m.__name__)


def _step(m):
    x = m.tensor(np.linspace(-1, 1, 30).reshape(10, 3), requires_grad=True)
    w = m.tensor(np.ones((3, 2)) / 3, requires_grad=True)
    with m.profiler.record_function("forward"):
        loss = m.tanh(x.mm(w)).mul(2.0).sum()
    loss.backward()
    return x, w


@by_lib
def test_ops_backward_nodes_and_ranges_are_events(m):
    with m.profiler.profile(activities=[m.profiler.ProfilerActivity.CPU]) as prof:
        x, w = _step(m)
    names = {e.key: e.count for e in prof.key_averages()}
    for name, count in [("forward", 1), ("aten::tanh", 1), ("aten::sum", 1), ("MmBackward0", 1),
                        ("TanhBackward0", 1),
                        ("autograd::engine::evaluate_function: MulBackward0", 1)]:  # fmt: skip
        assert names.get(name) == count, (name, names)
    assert names["aten::mm"] >= 3  # the forward's and the two of its backward
    forward = next(e for e in prof.events() if e.name == "forward")
    inside = next(e for e in prof.events() if e.name == "aten::tanh")
    assert forward.time_range.start <= inside.time_range.start <= inside.time_range.end
    assert inside.time_range.end <= forward.time_range.end
    assert forward.self_cpu_time_total < forward.cpu_time_total  # its ops are its children
    # and the gradients are what they are without a profiler
    expected = 2 * (1 - np.tanh(x.detach().numpy() @ w.detach().numpy()) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected @ w.detach().numpy().T, rtol=1e-12)


@by_lib
def test_table_columns_and_totals(m):
    with m.profiler.profile(record_shapes=True) as prof:
        _step(m)
    averages = prof.key_averages()
    text = averages.table(sort_by="cpu_time_total", row_limit=5)
    lines = text.splitlines()
    assert lines[1].split() == [
        "Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total", "CPU",
        "time", "avg", "#", "of", "Calls",
    ]  # fmt: skip
    assert len([ln for ln in lines if ln.startswith("-")]) == 3
    assert [ln for ln in lines if ln.startswith("Self CPU time total:")]
    assert len(lines) - 4 - (lines[-1] == "") == 5 + 1  # five rows, three rules, the total
    total = sum(e.self_cpu_time_total for e in averages)
    assert averages.self_cpu_time_total == pytest.approx(total)
    shaped = prof.key_averages(group_by_input_shape=True).table(row_limit=3)
    assert "Input Shapes" in shaped.splitlines()[1]
    mm = [e for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::mm"]
    assert [[10, 3], [3, 2]] in [e.input_shapes for e in mm]
    with pytest.raises(AttributeError):
        averages.table(sort_by="no_such_column")


@by_lib
def test_schedule_steps_like_pytorch(m):
    kinds = [
        dict(wait=1, warmup=1, active=2),
        dict(wait=1, warmup=1, active=2, repeat=2),
        dict(wait=0, warmup=1, active=1, skip_first=2),
        dict(wait=2, warmup=1, active=1, repeat=1, skip_first_wait=1),
    ]
    expected = [
        "NONE WARMUP RECORD RECORD_AND_SAVE " * 3,
        "NONE WARMUP RECORD RECORD_AND_SAVE " * 2 + "NONE " * 4,
        "NONE NONE " + "WARMUP RECORD_AND_SAVE " * 5,
        "WARMUP RECORD_AND_SAVE " + "NONE " * 10,
    ]
    for kw, want in zip(kinds, expected):
        at = m.profiler.schedule(**kw)
        assert [at(i).name for i in range(12)] == want.split()


@by_lib
def test_on_trace_ready_runs_at_the_end_of_each_active_span(m, tmp_path):
    seen = []

    def ready(prof):
        seen.append((prof.step_num, sum(e.count for e in prof.key_averages() if e.key == "span")))

    at = m.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    with m.profiler.profile(schedule=at, on_trace_ready=ready) as prof:
        for _ in range(10):
            with m.profiler.record_function("span"):
                m.ones(3).add(1.0)
            prof.step()
    assert seen == [(4, 2), (8, 2)]


@by_lib
def test_chrome_trace_and_tensorboard_handler_write_json(m, tmp_path):
    with m.profiler.profile(on_trace_ready=m.profiler.tensorboard_trace_handler(str(tmp_path))):
        _step(m)
    files = [f for f in os.listdir(tmp_path) if f.endswith(".pt.trace.json")]
    assert len(files) == 1
    with open(tmp_path / files[0]) as fh:
        trace = json.load(fh)
    names = {e.get("name") for e in trace["traceEvents"]}
    assert "forward" in names and "aten::tanh" in names


@by_lib
def test_legacy_autograd_profiler(m):
    with m.autograd.profiler.profile() as prof:
        _step(m)
    assert any(e.key == "aten::tanh" for e in prof.key_averages())
    assert "Self CPU time total" in prof.table()
    with m.autograd.profiler.profile(enabled=False) as off:
        _step(m)
    assert off is None  # as PyTorch binds it
    unfinished = m.autograd.profiler.profile()
    assert list(unfinished.key_averages()) == []


@by_lib
def test_record_function_outside_a_profiler_and_as_decorator(m):
    @m.profiler.record_function("decorated")
    def f(t):
        return t * 2

    with m.profiler.record_function("alone"):
        assert f(m.ones(2)).tolist() == [2.0, 2.0]
    with m.profiler.profile() as prof:
        f(m.ones(2))
    assert [e.key for e in prof.key_averages() if e.key == "decorated"] == ["decorated"]


def test_recording_stops_with_the_block():
    before = SPECIAL[0]
    with leafgrad.profiler.profile():
        assert SPECIAL[0] == before + 1
        with pytest.raises(RuntimeError, match="already enabled"):
            leafgrad.profiler.profile().__enter__()
    assert SPECIAL[0] == before
    assert leafgrad._engine.profiling.STATE.recorder is None
