"""torch.cuda's allocator, stream, event and device names as PyTorch's CPU-only build has them:
the same answers where it answers, the same exception types where it fails."""

import warnings

import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

CALLS = [
    ("memory_stats", ()),
    ("memory_stats_as_nested_dict", ()),
    ("host_memory_stats", ()),
    ("host_memory_stats_as_nested_dict", ()),
    ("memory_allocated", ()),
    ("max_memory_reserved", ()),
    ("reset_peak_memory_stats", ()),
    ("reset_max_memory_allocated", ()),
    ("reset_accumulated_memory_stats", ()),
    ("reset_peak_host_memory_stats", ()),
    ("memory_snapshot", ()),
    ("get_allocator_backend", ()),
    ("mem_get_info", ()),
    ("caching_allocator_alloc", (10,)),
    ("get_per_process_memory_fraction", ()),
    ("current_stream", ()),
    ("default_stream", ()),
    ("set_stream", (None,)),
    ("get_sync_debug_mode", ()),
    ("initial_seed", ()),
    ("get_arch_list", ()),
    ("get_gencode_flags", ()),
    ("is_tf32_supported", ()),
    ("ipc_collect", ()),
    ("can_device_access_peer", (0, 1)),
    ("current_blas_handle", ()),
    ("cudart", ()),
    ("clock_rate", ()),
    ("utilization", ()),
    ("list_gpu_processes", ()),
    ("Stream", ()),
    ("Event", ()),
    ("CUDAGraph", ()),
    ("is_current_stream_capturing", ()),
]


def _call(m, name, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # reset_max_*: tested below
            return "value", getattr(m.cuda, name)(*args)
    except Exception as exc:  # the type is what is compared
        return "raised", type(exc)


@pytest.mark.parametrize(("name", "args"), CALLS, ids=[c[0] for c in CALLS])
def test_cuda_call_answers_or_fails_as_the_cpu_build(name, args):
    ours, theirs = _call(lg, name, args), _call(torch, name, args)
    assert ours[0] == theirs[0]
    if ours[0] == "raised":
        assert ours[1] is theirs[1]
    else:
        assert ours[1] == theirs[1]


def test_renamed_memory_queries_warn_as_pytorch():
    for name in ("memory_cached", "max_memory_cached"):
        with pytest.warns(FutureWarning, match="has been renamed"):
            assert getattr(lg.cuda, name)() == 0
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):
        with pytest.raises(AttributeError):
            lg.cuda.reset_max_memory_cached()


def test_contexts_a_cpu_program_can_enter_do_nothing():
    with lg.cuda.stream(None), lg.cuda.device(-1), lg.cuda.device_of(lg.ones(1)):
        pass
    with pytest.raises(RuntimeError, match="compiled without CUDA"):
        with lg.cuda.device(0):
            pass
    with pytest.raises(RuntimeError, match="compiled without CUDA"):
        torch.cuda.device(0).__enter__()


def test_module_level_facts():
    assert lg.cuda.default_generators == torch.cuda.default_generators == ()
    assert lg.cuda.has_half is torch.cuda.has_half
    assert lg.cuda.has_magma is torch.cuda.has_magma
    assert issubclass(lg.cuda.OutOfMemoryError, RuntimeError)
    assert lg.OutOfMemoryError is lg.cuda.OutOfMemoryError
    assert lg.backends.cudnn.m is lg.backends.cudnn
    assert lg.cuda.random.get_rng_state_all() == []
