"""torch.finfo / iinfo, the memory formats (and the strides they give), set_default_device /
get_default_device and torch.distributed, against PyTorch."""

import os
import pickle
import subprocess
import sys

import pytest

import leafgrad as lg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# ----------------------------------------------------------------------------- finfo, iinfo
FINFO = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(name, torch):
    ours, theirs = lg.finfo(getattr(lg, name)), torch.finfo(getattr(torch, name))
    for attr in FINFO:
        a, b = getattr(ours, attr), getattr(theirs, attr)
        assert a == b and type(a) is type(b), attr
    assert repr(ours) == repr(theirs)
    assert ours == lg.finfo(getattr(lg, name)) and ours != lg.finfo(
        lg.float32 if name != "float32" else lg.float64
    )


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name, torch):
    ours, theirs = lg.iinfo(getattr(lg, name)), torch.iinfo(getattr(torch, name))
    for attr in ["bits", "max", "min", "dtype"]:
        a, b = getattr(ours, attr), getattr(theirs, attr)
        assert a == b and type(a) is type(b), attr
    assert repr(ours) == repr(theirs)


def test_finfo_defaults_to_the_default_dtype_and_python_types_map_as_in_torch(torch):
    for m in (lg, torch):
        previous = m.get_default_dtype()
        try:
            assert m.finfo().dtype == "float32"
            m.set_default_dtype(m.float64)
            assert m.finfo().dtype == "float64"
        finally:
            m.set_default_dtype(previous)
        assert m.finfo(float).dtype == "float64" and m.iinfo(int).dtype == "int64"


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.finfo(m.int32),
        lambda m: m.finfo(m.bool),
        lambda m: m.finfo(int),
        lambda m: m.finfo("float32"),
        lambda m: m.iinfo(m.float32),
        lambda m: m.iinfo(m.bool),
        lambda m: m.iinfo(bool),
        lambda m: m.iinfo(),
        lambda m: hash(m.finfo()),
    ],
)
def test_typeinfo_errors_are_type_errors_as_in_torch(call, torch):
    for m in (lg, torch):
        with pytest.raises(TypeError):
            call(m)


# ----------------------------------------------------------------------------- memory formats
LAYOUTS = {
    "transposed-clone": lambda m: m.zeros(2, 3).t().clone().stride(),
    "transposed-clone-contiguous": lambda m: (
        m.zeros(2, 3).t().clone(memory_format=m.contiguous_format).stride()
    ),
    "sliced-clone": lambda m: m.zeros(4, 6)[:, ::2].clone().stride(),
    "permuted-sliced-clone": lambda m: (
        m.zeros(2, 3, 4, 5).permute(0, 2, 3, 1)[:, :, ::2].clone().stride()
    ),
    "size-one-dims-clone": lambda m: m.zeros(2, 1, 3).transpose(0, 2).clone().stride(),
    "expanded-clone": lambda m: m.zeros(3, 1).expand(3, 4).clone().stride(),
    "channels-last-clone": lambda m: (
        m.zeros(2, 3, 4, 5).clone(memory_format=m.channels_last).stride()
    ),
    "channels-last-contiguous": lambda m: (
        m.zeros(2, 3, 4, 5).contiguous(memory_format=m.channels_last).stride()
    ),
    "channels-last-3d": lambda m: (
        m.zeros(2, 3, 4, 5, 6).contiguous(memory_format=m.channels_last_3d).stride()
    ),
    "to-channels-last": lambda m: m.zeros(2, 3, 4, 5).to(memory_format=m.channels_last).stride(),
    "to-dtype-contiguous": lambda m: (
        m.zeros(2, 3).t().to(m.float64, memory_format=m.contiguous_format).stride()
    ),
    "to-dtype-preserves": lambda m: m.zeros(2, 3).t().double().stride(),
    "contiguous": lambda m: m.zeros(2, 3).t().contiguous().stride(),
    "cpu-ignores-the-format": lambda m: (
        m.zeros(2, 3).t().cpu(memory_format=m.contiguous_format).stride()
    ),
    "zeros-like-preserves": lambda m: m.zeros_like(m.zeros(2, 3).t()).stride(),
    "rand-like-preserves": lambda m: m.rand_like(m.zeros(2, 3).t()).stride(),
    "empty-like-channels-last": lambda m: m.empty_like(
        m.zeros(2, 3, 4, 5), memory_format=m.channels_last
    ).stride(),
    "full-like-contiguous": lambda m: m.full_like(
        m.zeros(2, 3).t(), 2, memory_format=m.contiguous_format
    ).stride(),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_strides_of_new_tensors_match_torch(name, torch):
    assert LAYOUTS[name](lg) == LAYOUTS[name](torch)


def test_is_contiguous_with_a_memory_format_matches_torch(torch):
    for m in (lg, torch):
        cl = m.zeros(2, 3, 4, 5).clone(memory_format=m.channels_last)
        assert cl.is_contiguous(memory_format=m.channels_last) and not cl.is_contiguous()
        assert m.zeros(1, 3, 1, 1).is_contiguous(memory_format=m.channels_last)
        assert not m.zeros(2, 3, 4).is_contiguous(memory_format=m.channels_last)
        assert (
            m.zeros(2, 3, 4, 5, 6)
            .contiguous(memory_format=m.channels_last_3d)
            .is_contiguous(memory_format=m.channels_last_3d)
        )
        x = cl.contiguous(memory_format=m.channels_last)
        assert x is cl and cl.to(memory_format=m.channels_last) is cl
        for method in ("is_contiguous", "contiguous", "clone", "cpu"):
            with pytest.raises(TypeError):  # memory_format is keyword-only, as in PyTorch
                getattr(m.zeros(2), method)(m.contiguous_format)


def test_a_copy_in_another_layout_keeps_values_and_gradients(torch):
    for m in (lg, torch):
        x = m.arange(120.0).reshape(2, 3, 4, 5).requires_grad_()
        y = x.clone(memory_format=m.channels_last)
        assert m.equal(y, x)
        (y * m.arange(120.0).reshape(2, 3, 4, 5)).sum().backward()
        assert m.equal(x.grad, m.arange(120.0).reshape(2, 3, 4, 5))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.zeros(2, 3).contiguous(memory_format=m.channels_last), RuntimeError),
        (lambda m: m.zeros(2, 3).clone(memory_format=m.channels_last), RuntimeError),
        (lambda m: m.zeros(2, 3).to(memory_format=m.channels_last_3d), RuntimeError),
        (lambda m: m.zeros(2, 3).t().contiguous(memory_format=m.preserve_format), RuntimeError),
        (lambda m: m.zeros(2, 3).clone(memory_format=1), TypeError),
        (lambda m: m.memory_format(), TypeError),
    ],
)
def test_memory_format_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


def test_memory_formats_print_and_pickle_as_in_torch(torch):
    for name in ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]:
        ours = getattr(lg, name)
        assert repr(ours) == repr(getattr(torch, name)) == f"torch.{name}"
        assert isinstance(ours, lg.memory_format)
        assert pickle.loads(pickle.dumps(ours)) is ours


# ----------------------------------------------------------------------------- default device
@pytest.fixture
def restore_default_device(torch):
    yield
    lg.set_default_device(None)
    torch.set_default_device(None)


def test_default_device_is_the_cpu_and_cpu_can_be_set(torch, restore_default_device):
    for m in (lg, torch):
        assert m.get_default_device() == m.device("cpu")
        m.set_default_device("cpu")
        assert m.zeros(2).device == m.device("cpu")
        m.set_default_device(m.device("cpu"))
        m.set_default_device(None)
        assert m.get_default_device() == m.device("cpu")


def test_a_cuda_default_device_fails_in_factories_as_on_a_cpu_build(torch, restore_default_device):
    for m in (lg, torch):
        cpu_tensor = m.ones(2)
        m.set_default_device("cuda")  # accepted, as by a CPU-only PyTorch
        for make in (
            lambda m: m.zeros(2),
            lambda m: m.tensor([1.0]),
            lambda m: m.arange(3),
            lambda m: m.rand(2),
            lambda m: m.get_default_device(),
        ):
            with pytest.raises(AssertionError):
                make(m)
        # Factories that follow an input, and legacy constructors, stay on the CPU.
        assert m.zeros_like(cpu_tensor).device == m.device("cpu")
        assert m.Tensor(2).device == m.device("cpu")
        assert (cpu_tensor + 1).device == m.device("cpu")
        m.set_default_device(None)
        assert m.zeros(2).device == m.device("cpu")


@pytest.mark.parametrize("where", [3, "foo"])
def test_set_default_device_refuses_what_torch_refuses(where, torch):
    for m in (lg, torch):
        with pytest.raises(RuntimeError):
            m.set_default_device(where)


def test_a_meta_default_device_is_refused_by_factories(restore_default_device):
    lg.set_default_device("meta")
    assert lg.get_default_device() == lg.device("meta")
    with pytest.raises(RuntimeError, match="CPU only"):
        lg.zeros(2)


# ----------------------------------------------------------------------------- distributed
def test_distributed_is_unavailable_as_in_a_build_without_it(torch):
    assert lg.distributed.is_available() is False
    assert not hasattr(lg.distributed, "init_process_group")  # as without USE_DISTRIBUTED
    assert lg.distributed.RankType is int
    names = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError"]
    names += ["QueueEmptyError"]
    for name in names:  # the error types exist, with PyTorch's hierarchy
        ours, theirs = getattr(lg.distributed, name), getattr(torch.distributed, name)
        assert [c.__name__ for c in ours.__mro__[:-2]] == [c.__name__ for c in theirs.__mro__[:-2]]
    assert isinstance(lg.distributed.ProcessGroup, type)


def test_import_torch_distributed_works_under_install_as_torch():
    code = (
        "import leafgrad; leafgrad.install_as_torch()\n"
        "import torch.distributed as dist\n"
        "import torch\n"
        "assert dist is leafgrad.distributed and torch.distributed is dist\n"
        "print(dist.is_available(), torch.finfo().eps, torch.contiguous_format)\n"
    )
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "1.1920928955078125e-07", "torch.contiguous_format"]


def test_a_device_as_context_manager_sets_the_default_inside_only(torch, restore_default_device):
    for m in (lg, torch):
        with m.device("cpu") as where:
            assert where == m.device("cpu") and m.zeros(1).device == m.device("cpu")
        with m.device("cuda"):
            with pytest.raises(AssertionError):
                m.zeros(1)
            with m.device("cpu"):
                assert m.ones(1).device == m.device("cpu")
            with pytest.raises(AssertionError):
                m.arange(2)
        assert m.zeros(1).device == m.device("cpu")
        assert m.get_default_device() == m.device("cpu")
