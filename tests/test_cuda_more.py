"""The remaining torch.cuda names (storages, pools, graphs, nvtx, nccl, profiler, jiterator,
sparse, tunable) as PyTorch's CPU-only build has them: same answers, same exception types."""

import warnings

import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


KERNEL = "template <typename T> T f(T x) { return x; }"


CALLS = [
    ("FloatStorage(3)", lambda c: c.FloatStorage(3)),
    ("ComplexDoubleStorage()", lambda c: c.ComplexDoubleStorage()),
    ("CUDAPluggableAllocator", lambda c: c.CUDAPluggableAllocator("/nonexistent.so", "a", "f")),
    ("MemPool", lambda c: c.MemPool()),
    ("use_mem_pool", lambda c: c.use_mem_pool(None).__enter__()),
    ("caching_allocator_enable", lambda c: c.caching_allocator_enable(False)),
    ("change_current_allocator", lambda c: c.change_current_allocator(None)),
    ("check_error", lambda c: c.check_error(0)),
    ("cudaStatus", lambda c: (c.cudaStatus.SUCCESS, c.cudaStatus.ERROR_NOT_READY)),
    ("get_stream_from_external", lambda c: c.get_stream_from_external(0)),
    ("graph_pool_handle", lambda c: c.graph_pool_handle()),
    ("graph", lambda c: c.graph(None)),
    ("make_graphed_callables", lambda c: c.make_graphed_callables(abs, ())),
    ("GreenContext.create", lambda c: c.GreenContext.create(num_sms=1)),
    ("nvtx.range_push", lambda c: c.nvtx.range_push("a")),
    ("nvtx.mark", lambda c: c.nvtx.mark("a")),
    ("nvtx.range", lambda c: c.nvtx.range("a").__enter__()),
    ("nccl.version", lambda c: c.nccl.version()),
    ("nccl.all_reduce", lambda c: c.nccl.all_reduce([])),
    ("profiler.start", lambda c: c.profiler.start()),
    ("profiler.profile", lambda c: c.profiler.profile().__enter__()),
    ("jiterator", lambda c: c.jiterator._create_jit_fn(KERNEL)(None)),
    ("sparse.FloatTensor", lambda c: c.sparse.FloatTensor(2)),
    ("tunable.enable", lambda c: c.tunable.enable(True)),
    ("tunable.get_results", lambda c: c.tunable.get_results()),
    ("tunable.mgpu", lambda c: c.tunable.mgpu_tune_gemm_in_file("x", 2)),
]


def _call(m, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "value", fn(m.cuda)
    except Exception as exc:  # the type is what is compared
        return "raised", type(exc)


@pytest.mark.parametrize("fn", [c[1] for c in CALLS], ids=[c[0] for c in CALLS])
def test_cuda_name_answers_or_fails_as_the_cpu_build(fn):
    ours, theirs = _call(lg, fn), _call(torch, fn)
    assert ours[0] == theirs[0]
    if ours[0] == "raised":
        assert ours[1] is theirs[1]
    else:
        assert ours[1] == theirs[1]


def test_contexts_a_cpu_program_can_enter():
    with lg.cuda.caching_allocator_disabled():
        pass
    assert isinstance(lg.cuda.GreenContext(), lg.cuda.GreenContext)
    assert issubclass(lg.cuda.DeferredCudaCallError, Exception)


def test_nccl_is_never_available_and_warns():
    with pytest.warns(UserWarning, match="not compiled with NCCL"):
        assert lg.cuda.nccl.is_available([lg.ones(1)]) is False
    assert lg.cuda.nccl.SUM == torch.cuda.nccl.SUM


def test_submodule_name_lists_match():
    for name in ("graphs", "nvtx", "nccl", "profiler", "tunable"):
        assert sorted(getattr(lg.cuda, name).__all__) == sorted(getattr(torch.cuda, name).__all__)
