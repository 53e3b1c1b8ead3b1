"""Process-wide state of the torch namespace against PyTorch: the global generator
(initial_seed, get/set_rng_state, default_generator), deterministic mode, matmul precision,
warn-always, anomaly mode, threads, build flags, and the dtypes NumPy can or cannot hold."""

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_flags():
    yield
    lg.use_deterministic_algorithms(False)
    lg.set_float32_matmul_precision("highest")
    lg.set_warn_always(False)
    lg.set_anomaly_enabled(False)


# ----------------------------------------------------------------------------- generator
def test_manual_seed_returns_the_default_generator_and_sets_the_initial_seed():
    g = lg.manual_seed(1234)
    assert g is lg.default_generator and lg.initial_seed() == 1234
    assert lg.default_generator.initial_seed() == 1234
    lg.manual_seed(-1)
    assert lg.initial_seed() == 2**64 - 1  # wraps modulo 2**64, as PyTorch


def test_seed_draws_fresh_entropy_and_reports_it():
    first, second = lg.seed(), lg.seed()
    assert first != second and lg.initial_seed() == second


def test_rng_state_round_trips_the_global_stream():
    lg.manual_seed(7)
    state = lg.get_rng_state()
    assert state.dtype == lg.uint8 and state.dim() == 1
    a = lg.rand(5)
    lg.set_rng_state(state)
    assert lg.rand(5).tolist() == a.tolist()


def test_default_generator_and_manual_seed_share_one_stream():
    lg.default_generator.manual_seed(3)
    a = lg.randn(4)
    lg.manual_seed(3)
    assert lg.randn(4).tolist() == a.tolist()
    lg.manual_seed(3)
    assert lg.randn(4, generator=lg.default_generator).tolist() == a.tolist()


def test_set_rng_state_refuses_what_is_not_a_state(torch):
    for m in (torch, lg):
        with pytest.raises(TypeError):
            m.set_rng_state(m.zeros(3))
    with pytest.raises(RuntimeError, match="not a state"):
        lg.set_rng_state(lg.zeros(3, dtype=lg.uint8))


# ----------------------------------------------------------------------------- flags
@pytest.mark.parametrize("mode", ["default", "warn", "error", 0, 1, 2])
def test_deterministic_debug_mode_reads_back_as_pytorch(torch, mode):
    try:
        torch.set_deterministic_debug_mode(mode)
        lg.set_deterministic_debug_mode(mode)
        assert lg.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
        assert (
            lg.are_deterministic_algorithms_enabled()
            == torch.are_deterministic_algorithms_enabled()
        )
        assert (
            lg.is_deterministic_algorithms_warn_only_enabled()
            == torch.is_deterministic_algorithms_warn_only_enabled()
        )
    finally:
        torch.use_deterministic_algorithms(False)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.set_deterministic_debug_mode("bad"),
        lambda m: m.set_deterministic_debug_mode(3),
        lambda m: m.set_deterministic_debug_mode(1.0),
        lambda m: m.use_deterministic_algorithms(1),
        lambda m: m.set_warn_always(1),
        lambda m: m.set_num_interop_threads(0),
    ],
)
def test_bad_flag_values_raise_pytorchs_exception_type(torch, fn):
    types = []
    for m in (torch, lg):
        with pytest.raises(Exception) as info:
            fn(m)
        types.append(info.type)
    assert types[0] is types[1]


def test_matmul_precision_is_remembered_and_a_bad_one_warns():
    lg.set_float32_matmul_precision("high")
    assert lg.get_float32_matmul_precision() == "high"
    assert lg.backends.cuda.matmul.allow_tf32
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        lg.set_float32_matmul_precision("bad")
    assert lg.get_float32_matmul_precision() == "high"


def test_warn_always_and_anomaly_switches_read_back():
    lg.set_warn_always(True)
    assert lg.is_warn_always_enabled()
    lg.set_anomaly_enabled(True, False)
    assert lg.is_anomaly_enabled() and not lg.is_anomaly_check_nan_enabled()
    lg.set_anomaly_enabled(False)
    assert not lg.is_anomaly_enabled() and lg.is_anomaly_check_nan_enabled()


def test_threads_and_build_flags():
    lg.set_num_interop_threads(3)
    assert lg.get_num_interop_threads() == 3
    assert lg.init_num_threads() is None
    assert lg.set_flush_denormal(True) is False  # NumPy cannot flush denormals
    assert lg.has_lapack and not lg.is_vulkan_available()
    assert isinstance(lg.has_mkl, bool) and isinstance(lg.has_openmp, bool)


# ----------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_wide_unsigned_dtypes_store_convert_and_refuse_promotion_as_pytorch(torch, name):
    ours, theirs = getattr(lg, name), getattr(torch, name)
    assert str(ours) == str(theirs) and ours.itemsize == theirs.itemsize
    assert ours.is_signed is theirs.is_signed is False
    t = lg.tensor([1, 70000], dtype=lg.int64).to(ours)
    r = torch.tensor([1, 70000]).to(theirs)
    assert t.tolist() == r.tolist() and t.type() == r.type()
    assert (t * 2).dtype == ours and str(t.sum().dtype) == str(r.sum().dtype)
    assert lg.from_numpy(np.arange(3, dtype=name)).dtype == ours
    for m, a in ((torch, r), (lg, t)):
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
            m.promote_types(getattr(m, name), m.int64)
        with pytest.raises(RuntimeError):
            a + m.tensor([1, 2])
    assert str(lg.promote_types(ours, lg.float16)) == str(
        torch.promote_types(theirs, torch.float16)
    )


ABSENT = [
    "bfloat16", "complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2",
]  # fmt: skip


@pytest.mark.parametrize("name", ABSENT)
def test_dtypes_numpy_cannot_hold_exist_and_refuse_to_make_tensors(torch, name):
    ours, theirs = getattr(lg, name), getattr(torch, name)
    assert str(ours) == str(theirs)
    for attr in ("is_complex", "is_floating_point", "is_signed", "itemsize"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    with pytest.raises(TypeError, match="leafgrad has no"):
        lg.zeros(2, dtype=ours)
    with pytest.raises(TypeError, match="leafgrad has no"):
        lg.ones(2).to(ours)
    with pytest.raises(TypeError):
        lg.set_default_dtype(ours)
    with pytest.raises(TypeError):
        lg.promote_types(ours, lg.float32)


def test_aliases_of_complex_dtypes_are_the_same_objects():
    assert lg.cfloat is lg.complex64 and lg.cdouble is lg.complex128 and lg.chalf is lg.complex32


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_wide_unsigned_tensors_save_and_load(tmp_path, name):
    t = lg.tensor([0, 7, 65535], dtype=getattr(lg, name))
    lg.save({"t": t}, tmp_path / "u.lg")
    back = lg.load(tmp_path / "u.lg")["t"]
    assert back.dtype == t.dtype and back.tolist() == t.tolist()
