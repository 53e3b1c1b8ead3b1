"""Devices and CUDA as a CPU-only build of PyTorch has them, checked against PyTorch."""

import pytest

import leafgrad


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")


def _outcome(fn):
    try:
        return ("value", repr(fn()))
    except Exception as exc:  # the exception type is what must match
        return ("raises", type(exc).__name__)


DEVICES = {
    "cpu": lambda m: m.device("cpu"),
    "cuda": lambda m: m.device("cuda"),
    "cuda_index": lambda m: m.device("cuda:1"),
    "cpu_index_arg": lambda m: m.device("cpu", 0),
    "cpu_index_str": lambda m: m.device("cpu:0"),
    "mps": lambda m: m.device("mps"),
    "copy": lambda m: m.device(m.device("cuda", 2)),
    "bad_type": lambda m: m.device("gpu"),
    "int_index": lambda m: m.device(0),
    "str": lambda m: str(m.device("cuda:1")),
    "type": lambda m: m.device("cuda:1").type,
    "index": lambda m: m.device("cuda:1").index,
    "no_index": lambda m: m.device("cpu").index,
    "eq_str": lambda m: m.device("cpu") == "cpu",
    "eq_indexed": lambda m: m.device("cpu") == m.device("cpu:0"),
    "eq_same": lambda m: m.device("cuda:1") == m.device("cuda", 1),
    "hash": lambda m: hash(m.device("cpu:0")) == hash(m.device("cpu", 0)),
    "tensor_device": lambda m: m.ones(2).device,
    "tensor_on_indexed_cpu": lambda m: m.ones(2, device="cpu:1").device,
    "is_cuda": lambda m: m.ones(2).is_cuda,
}
PLACEMENT = {
    "cuda_method": lambda m: m.ones(2).cuda(),
    "cuda_method_index": lambda m: m.ones(2).cuda(0),
    "to_cuda": lambda m: m.ones(2).to("cuda"),
    "to_cuda_device": lambda m: m.ones(2).to(m.device("cuda")),
    "to_cpu": lambda m: m.ones(2).to("cpu"),
    "to_cpu_device_dtype": lambda m: m.ones(2).to(m.device("cpu"), m.float64).dtype,
    "create_on_cuda": lambda m: m.ones(2, device="cuda"),
    "zeros_on_cuda": lambda m: m.zeros(2, device=m.device("cuda", 0)),
    "tensor_on_cuda": lambda m: m.tensor([1.0], device="cuda"),
    "to_mps": lambda m: m.ones(2).to("mps"),
    "module_cuda": lambda m: m.nn.Linear(2, 2).cuda(),
    "module_to_cuda": lambda m: m.nn.Linear(2, 2).to("cuda"),
}
CUDA = {
    "is_available": lambda m: m.cuda.is_available(),
    "device_count": lambda m: m.cuda.device_count(),
    "is_initialized": lambda m: m.cuda.is_initialized(),
    "manual_seed": lambda m: m.cuda.manual_seed(0),
    "manual_seed_all": lambda m: m.cuda.manual_seed_all(0),
    "empty_cache": lambda m: m.cuda.empty_cache(),
    "memory_allocated": lambda m: m.cuda.memory_allocated(),
    "max_memory_allocated": lambda m: m.cuda.max_memory_allocated(),
    "is_bf16_supported": lambda m: m.cuda.is_bf16_supported(),
    "synchronize": lambda m: m.cuda.synchronize(),
    "current_device": lambda m: m.cuda.current_device(),
    "get_device_name": lambda m: m.cuda.get_device_name(),
    "get_rng_state": lambda m: m.cuda.get_rng_state(),
    "get_rng_state_all": lambda m: m.cuda.get_rng_state_all(),
    "set_device": lambda m: m.cuda.set_device(0),
    "cudnn_enabled": lambda m: m.backends.cudnn.enabled,
    "cudnn_benchmark": lambda m: m.backends.cudnn.benchmark,
    "cudnn_deterministic": lambda m: m.backends.cudnn.deterministic,
    "cudnn_is_available": lambda m: m.backends.cudnn.is_available(),
    "cudnn_version": lambda m: m.backends.cudnn.version(),
    "mps_is_available": lambda m: m.backends.mps.is_available(),
    "mps_is_built": lambda m: m.backends.mps.is_built(),
    "cuda_is_built": lambda m: m.backends.cuda.is_built(),
    "tf32": lambda m: m.backends.cuda.matmul.allow_tf32,
    "version_cuda": lambda m: m.version.cuda,
}


def _check(table, name):
    torch = pytest.importorskip("torch")
    assert _outcome(lambda: table[name](leafgrad)) == _outcome(lambda: table[name](torch))


@pytest.mark.parametrize("name", list(DEVICES))
def test_devices_are_named_compared_and_printed_as_pytorch(name):
    _check(DEVICES, name)


@pytest.mark.parametrize("name", list(PLACEMENT))
def test_placing_tensors_and_modules_fails_or_works_as_a_cpu_build(name):
    _check(PLACEMENT, name)


@pytest.mark.parametrize("name", list(CUDA))
def test_torch_cuda_and_backends_answer_as_a_cpu_build(name):
    _check(CUDA, name)


def test_the_usual_device_idiom_runs(torch):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.ones(3, device=device).to(device)
    assert str(x.device) == "cpu"
    assert device.type == "cpu"


def test_backend_flags_can_be_set():
    leafgrad.backends.cudnn.benchmark = True
    try:
        assert leafgrad.backends.cudnn.benchmark is True
    finally:
        leafgrad.backends.cudnn.benchmark = False


def test_blas_threads_are_set_and_read():
    before = leafgrad.get_num_threads()
    try:
        leafgrad.set_num_threads(1)
        assert leafgrad.get_num_threads() == 1
    finally:
        leafgrad.set_num_threads(before)
    assert leafgrad.get_num_threads() == before
    with pytest.raises(RuntimeError):
        leafgrad.set_num_threads(0)
