"""The rest of the torch namespace against PyTorch: compile/cond/sym_*, torch.compiler, eager
futures, the IPU/XLA autocast state, storages, QR by Householder reflectors, the deprecated
norms, hash_tensor, slice_inverse, histogramdd and the memory makers."""

import os
import tempfile
import warnings

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import _warn
from tests._against_torch import compare
from tests._tolerance import assert_close


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


rng = np.random.default_rng(11)


# ----------------------------------------------------------------------------- compile, cond
def test_compile_returns_the_model_unchanged_and_takes_pytorchs_keywords():
    model = lg.nn.Linear(2, 3)
    assert lg.compile(model) is model
    assert lg.compile(model, fullgraph=True, dynamic=False, backend="eager") is model

    @lg.compile(mode="max-autotune")
    def f(x):
        return x * 2

    assert f(lg.tensor(3.0)).item() == 6.0
    with pytest.raises(RuntimeError):
        lg.compile(model, mode="default", options={"a": 1})
    assert "no compiler" in lg.compile.__doc__


def test_cond_runs_the_branch_taken_and_differentiates_through_it(torch):
    def fn(m, x):
        return m.cond(x.sum() > 0, lambda a: a.sin() * 2, lambda a: a.cos(), (x,))

    compare(fn, [rng.standard_normal(3) + 2], torch=torch)
    compare(fn, [rng.standard_normal(3) - 2], torch=torch)
    assert lg.cond(False, lambda: 1, lambda: 2) == torch.cond(False, lambda: 1, lambda: 2)
    for m in (lg, torch):
        with pytest.raises(RuntimeError, match="single-element"):
            m.cond(m.tensor([True, False]), lambda x: x, lambda x: x, (m.ones(1),))


def test_sym_functions_on_plain_numbers(torch):
    cases = [
        ("sym_int", (3.7,)), ("sym_int", (-3.7,)), ("sym_float", (3,)), ("sym_max", (2, 5.0)),
        ("sym_max", (2, 5)), ("sym_min", (2, 5.0)), ("sym_min", (7, 5)), ("sym_not", (True,)),
        ("sym_sqrt", (4,)), ("sym_sum", ([1, 2, 3],)), ("sym_ite", (True, 1, 2)),
        ("sym_ite", (False, 1, 2)), ("sym_fresh_size", (3,)),
    ]  # fmt: skip
    for name, args in cases:
        ours, theirs = getattr(lg, name)(*args), getattr(torch, name)(*args)
        assert ours == theirs and type(ours) is type(theirs), name
    x = 3.7
    for name in ("sym_int", "sym_float", "sym_sqrt", "sym_not"):  # 0-d tensors too
        assert getattr(lg, name)(lg.tensor(x)) == getattr(torch, name)(torch.tensor(x)), name
    for m in (lg, torch):
        with pytest.raises(AssertionError):
            m.sym_max(m.tensor(2.0), 3)
    assert lg.sym_constrain_range(3, min=0, max=5) is None
    with pytest.raises(RuntimeError):
        lg.sym_constrain_range(9, min=0, max=5)


def test_fork_runs_now_and_wait_returns_the_value(torch):
    fut = lg.fork(lambda a, b: a + b, 2, b=3)
    assert isinstance(fut, lg.Future) and fut.done() and lg.wait(fut) == 5 == fut.value()
    chained = fut.then(lambda f: f.wait() * 10)
    assert chained.wait() == 50
    theirs = torch.futures.Future()
    ours = lg.Future()
    assert ours.done() is theirs.done() is False
    ours.set_result(1)
    theirs.set_result(1)
    with pytest.raises(RuntimeError):
        ours.set_result(2)
    with pytest.raises(RuntimeError):
        theirs.set_result(2)


def test_exceptions_and_enums_match(torch):
    assert issubclass(lg.AcceleratorError, RuntimeError)
    assert issubclass(lg.FatalError, Exception) and issubclass(lg.JITException, Exception)
    assert (lg.SUM.value, lg.AVG.value) == (torch.SUM.value, torch.AVG.value)


def test_ipu_and_xla_autocast_state_warns_and_matches(torch):
    for name in ("get_autocast_ipu_dtype", "get_autocast_xla_dtype", "is_autocast_ipu_enabled",
                 "is_autocast_xla_enabled"):  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ours = getattr(lg, name)()
            theirs = getattr(torch, name)()
        assert str(ours) == str(theirs), name
        assert any("deprecated" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lg.set_autocast_xla_dtype(lg.float16)
        assert lg.get_autocast_dtype("xla") == lg.float16
        lg.set_autocast_xla_dtype(lg.bfloat16)
        lg.set_autocast_ipu_enabled(False)
        with pytest.raises(NotImplementedError):
            lg.set_autocast_ipu_enabled(True)


def test_cpu_module_streams_and_small_predicates(torch):
    assert lg.get_device_module() is lg.cpu is lg.get_device_module("cpu")
    assert lg.get_device_module("cuda") is lg.cuda
    assert lg.cpu.is_available() and lg.cpu.device_count() == torch.cpu.device_count()
    s, e = lg.Stream(), lg.Event()
    assert (s.device_type, s.device_index, s.stream_id) == ("cpu", -1, 0)
    assert s.query() and e.query() and repr(s) == repr(torch.Stream())
    assert lg.thread_safe_generator() is torch.thread_safe_generator() is None
    x = np.ones((2, 2))
    assert lg.cudnn_is_acceptable(lg.tensor(x)) is torch.cudnn_is_acceptable(torch.tensor(x))
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    for name in ("dsmm", "spmm"):
        compare(lambda m, p, q, n=name: getattr(m, n)(p, q), [a, b], torch=torch, second=False)


# ----------------------------------------------------------------------------- storages
def test_storage_constructors(torch, fresh_warnings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, arg in [("FloatStorage", 3), ("FloatStorage", [1, 2.5]), ("LongStorage", [4]),
                          ("BoolStorage", [True, False]), ("DoubleStorage", 0)]:  # fmt: skip
            ours, theirs = getattr(lg, name)(arg), getattr(torch, name)(arg)
            assert str(ours.dtype) == str(theirs.dtype) and len(ours) == len(theirs)
            if isinstance(arg, list):
                assert ours.tolist() == theirs.tolist()
            assert isinstance(ours, lg.TypedStorage) and isinstance(ours, getattr(lg, name))
        assert not isinstance(lg.FloatStorage(1), lg.LongStorage)
        assert lg.UntypedStorage(4).nbytes() == torch.UntypedStorage(4).nbytes()
        assert lg.UntypedStorage([1, 2, 200]).tolist() == torch.UntypedStorage([1, 2, 200]).tolist()
        assert str(lg.TypedStorage(2, dtype=lg.int64).dtype) == "torch.int64"
        with pytest.raises(TypeError, match="bfloat16"):
            lg.BFloat16Storage(2)
    _warn._warned_once.clear()  # the storages above spent the once-per-process warning
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        lg.FloatStorage(1)


# ----------------------------------------------------------------------------- QR, norms
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_geqrf_orgqr_ormqr(torch, shape):
    A = rng.standard_normal(shape)
    a, tau = lg.geqrf(lg.tensor(A))
    ta, ttau = torch.geqrf(torch.tensor(A))
    assert_close(a, ta.numpy())
    assert_close(tau, ttau.numpy())
    assert_close(lg.tensor(A).geqrf()[1], ttau.numpy())
    m = shape[-2]
    if m >= shape[-1]:
        assert_close(lg.orgqr(a, tau), torch.orgqr(ta, ttau).numpy())
        assert_close(a.orgqr(tau), ta.orgqr(ttau).numpy())
    else:  # a wide Q is not a matrix with orthonormal columns: both refuse
        with pytest.raises(RuntimeError):
            torch.orgqr(ta, ttau)
        with pytest.raises(RuntimeError):
            lg.orgqr(a, tau)
    for left, transpose in [(True, False), (True, True), (False, False), (False, True)]:
        other = rng.standard_normal(shape[:-2] + ((m, 2) if left else (2, m)))
        ours = lg.ormqr(a, tau, lg.tensor(other), left, transpose)
        theirs = torch.ormqr(ta, ttau, torch.tensor(other), left, transpose)
        assert_close(ours, theirs.numpy())
    with pytest.raises(RuntimeError):
        lg.geqrf(lg.ones(3))


def test_householder_products_are_differentiable(torch):
    A = rng.standard_normal((4, 3))
    a, tau = (t.numpy() for t in torch.geqrf(torch.tensor(A)))
    other = rng.standard_normal((4, 2))
    compare(lambda m, x, t, c: m.ormqr(x, t, c), [a, tau, other], torch=torch, second=False)


def test_deprecated_norms(torch):
    A = rng.standard_normal((2, 3, 4))
    compare(lambda m, x: m.nuclear_norm(x, dim=(1, 2)), [A], torch=torch, second=False)
    compare(lambda m, x: m.nuclear_norm(x[0], True), [A], torch=torch, second=False)
    compare(lambda m, x: m.frobenius_norm(x, dim=(0, 2), keepdim=True), [A], torch=torch)
    compare(lambda m, x: m.frobenius_norm(x, 1), [A], torch=torch)
    for dim in (0, 1, 2, -1):
        compare(lambda m, x, d=dim: m.norm_except_dim(x, 2, d), [A], torch=torch)
    compare(lambda m, x: m.norm_except_dim(x, 3, 1), [A], torch=torch)
    with pytest.raises(TypeError):
        lg.frobenius_norm(lg.tensor(A))


# ----------------------------------------------------------------------------- small ops
def test_hash_tensor(torch):
    for values, dtype in [([1, 2, 3], "int64"), ([1.0, 2.0], "float32"), ([0.5, -3.0], "float64"),
                          ([[1, 2], [3, 5]], "int32")]:  # fmt: skip
        ours = lg.hash_tensor(lg.tensor(values, dtype=getattr(lg, dtype)))
        theirs = torch.hash_tensor(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert str(ours.dtype) == str(theirs.dtype) and ours.item() == theirs.item()
    x = [[1, 2], [3, 5]]
    ours = lg.tensor(x).hash_tensor(1, keepdim=True)
    theirs = torch.tensor(x).hash_tensor(1, keepdim=True)
    assert ours.tolist() == theirs.tolist() and ours.shape == theirs.shape


def test_slice_inverse_views_the_base(torch):
    for m in (lg, torch):
        base = m.arange(10.0)
        part = base[2:5]
        full = m.slice_inverse(part, base, 0, 2, 5, 1)
        assert full.tolist() == base.tolist()
        full[0] = 42.0
        assert base[0].item() == 42.0
        assert part.slice_inverse(base, 0, 2, 5).shape == (10,)


def test_tensor_isreal(torch):
    x = np.array([1.0, np.nan])
    assert lg.tensor(x).isreal().tolist() == torch.tensor(x).isreal().tolist()


def test_histogramdd(torch):
    pts = rng.standard_normal((30, 2))
    w = rng.random(30)
    for kwargs in [dict(bins=3), dict(bins=[2, 4], density=True),
                   dict(bins=3, range=[-1.0, 1.0, -2.0, 2.0])]:  # fmt: skip
        ours = lg.histogramdd(lg.tensor(pts), **kwargs)
        theirs = torch.histogramdd(torch.tensor(pts), **kwargs)
        assert_close(ours.hist, theirs.hist.numpy())
        for a, b in zip(ours.bin_edges, theirs.bin_edges):
            assert_close(a, b.numpy())
    ours = lg.histogramdd(lg.tensor(pts), 3, weight=lg.tensor(w))
    theirs = torch.histogramdd(torch.tensor(pts), 3, weight=torch.tensor(w))
    assert_close(ours[0], theirs[0].numpy())


def test_empty_permuted_lays_out_memory_in_the_given_order(torch):
    ours = lg.empty_permuted((2, 3, 4), (2, 0, 1), dtype=lg.float64)
    theirs = torch.empty_permuted((2, 3, 4), (2, 0, 1), dtype=torch.float64)
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert ours.dtype == lg.float64
    with pytest.raises(RuntimeError):
        lg.empty_permuted((2, 3), (0, 0))


def test_frombuffer_shares_the_buffer(torch):
    raw = np.arange(4, dtype=np.float32).tobytes()
    buf = bytearray(raw)
    t = lg.frombuffer(buf, dtype=lg.float32)
    t[0] = 7.0
    assert np.frombuffer(buf, np.float32)[0] == 7.0
    ours = lg.frombuffer(bytearray(raw), dtype=lg.float32, count=2, offset=4)
    theirs = torch.frombuffer(bytearray(raw), dtype=torch.float32, count=2, offset=4)
    assert ours.tolist() == theirs.tolist()
    for m in (lg, torch):
        with pytest.raises(ValueError):
            m.frombuffer(bytearray(), dtype=m.float32)


def test_from_file_maps_a_private_copy(torch):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "values.bin")
        np.arange(6, dtype=np.float32).tofile(path)
        ours = lg.from_file(path, size=6, dtype=lg.float32)
        theirs = torch.from_file(path, size=6, dtype=torch.float32)
        assert ours.tolist() == theirs.tolist()
        ours[0] = 9.0  # shared=False: the file keeps its values
        assert np.fromfile(path, dtype=np.float32)[0] == 0.0
        assert lg.from_file(path).numel() == torch.from_file(path).numel() == 0
        ints = lg.from_file(path, False, 3, dtype=lg.int32).tolist()
        assert ints == torch.from_file(path, False, 3, dtype=torch.int32).tolist()
        shared = lg.from_file(path, True, 6, dtype=lg.float32)
        shared[1] = 5.0
        del shared
        assert np.fromfile(path, dtype=np.float32)[1] == 5.0
        for m in (lg, torch):
            with pytest.raises(RuntimeError, match="smaller than the required mapping size"):
                m.from_file(path, size=100, dtype=m.float32)


def test_compiler_namespace_answers_as_outside_compilation(torch):
    for name in ("is_compiling", "is_dynamo_compiling", "is_exporting"):
        assert getattr(lg.compiler, name)() is getattr(torch.compiler, name)() is False

    def f(x):
        return x + 1

    assert lg.compiler.disable(f) is f and lg.compiler.disable()(f) is f
    assert lg.compiler.allow_in_graph(f) is f and lg.compiler.compile is lg.compile
    with lg.compiler.set_stance("force_eager"):
        assert f(1) == 2
    assert lg.compiler.reset() is None and lg.compiler.list_backends() == []
