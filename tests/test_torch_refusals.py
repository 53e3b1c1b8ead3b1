"""The features leafgrad refuses on purpose (sparse, quantized, vendor kernels, TorchScript,
export, symbolic shapes, dispatch keys): every PyTorch name exists, and using it raises the
declared error naming the feature; the absent dtypes compare as PyTorch's; leafgrad.coverage
counts them as refused and leaves out what PyTorch's source merely imported."""

import pytest

import leafgrad as lg
from leafgrad import _torch_refused, coverage


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _entries():
    for feature, exc, functions, classes, modules in _torch_refused.TABLE:
        for name in functions + classes + modules:
            yield name, exc, feature[0]


@pytest.mark.parametrize("name, exc, what", list(_entries()))
def test_each_refusal_names_what_leafgrad_lacks(torch, name, exc, what):
    assert hasattr(torch, name), f"torch.{name} does not exist: drop it from the table"
    obj = getattr(lg, name)
    assert obj is getattr(_torch_refused, name)
    assert coverage._is_refusal(obj)
    with pytest.raises(exc, match=f"torch.{name}: leafgrad has no"):
        obj(lg.ones(2)) if callable(obj) else obj.anything
    try:
        obj(lg.ones(2))
    except exc as error:
        assert what.split(" (")[0] in str(error)


def test_a_refused_module_refuses_attributes_but_not_introspection():
    with pytest.raises(RuntimeError, match=r"torch\.export"):
        lg.export.export(lg.nn.Linear(1, 1), (lg.ones(1),))
    with pytest.raises(AttributeError):
        lg.export.__wrapped__  # noqa: B018  (what inspect and copy probe)
    assert "refused" in repr(lg.cpp)


def test_kernels_pytorchs_cpu_build_lacks_raise_the_same_type(torch):
    x = torch.randn(2, 3, 4)
    calls = [
        ("batch_norm_stats", lambda m, t: m.batch_norm_stats(t, 1e-5)),
        ("native_norm", lambda m, t: m.native_norm(t)),
        ("mkldnn_max_pool2d", lambda m, t: m.mkldnn_max_pool2d(t[None], 2)),
    ]
    for name, call in calls:
        with pytest.raises(NotImplementedError):
            call(torch, x)
        with pytest.raises(NotImplementedError, match=name):
            call(lg, lg.tensor(x.numpy()))


def test_view_as_complex_copies_refuse_as_a_real_tensor_does(torch):
    for m in (lg, torch):
        with pytest.raises(RuntimeError):
            m.view_as_real_copy(m.ones(2))


NAMES = [f"int{b}" for b in range(1, 8)] + [f"uint{b}" for b in range(1, 8)]
NAMES += ["bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "qint8", "quint8", "qint32",
          "quint4x2", "quint2x4", "bit"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_absent_dtypes_compare_as_pytorchs(torch, name):
    ours, theirs = getattr(lg, name), getattr(torch, name)
    assert str(ours) == str(theirs)
    assert ours.itemsize == theirs.itemsize
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_complex == theirs.is_complex
    if not name.startswith(("q", "bits")):  # PyTorch will not say for quantized ones
        assert ours.is_signed == theirs.is_signed
    with pytest.raises(TypeError, match=f"no torch.{str(theirs).split('.')[1]} tensors"):
        lg.zeros(2, dtype=ours)
    assert lg.bit is lg.uint1


def test_sym_classes_and_jit_classes_refuse_construction():
    for cls in (lg.SymInt, lg.ScriptModule, lg.Graph, lg.FileCheck, lg.ThroughputBenchmark):
        with pytest.raises((TypeError, RuntimeError), match="leafgrad has no"):
            cls()
        assert cls.__doc__.startswith("Refused on purpose")


def test_coverage_leaves_out_imported_modules_and_typing_helpers(torch):
    names = coverage._public_names(torch.nn.functional)
    for borrowed in ("math", "np", "warnings", "importlib", "dataclasses", "torch", "Callable",
                     "Optional", "TYPE_CHECKING"):  # fmt: skip
        assert borrowed not in names
    assert {"conv2d", "relu", "grid_sample"} <= set(names)
    assert "export" in coverage._public_names(torch)  # torch's own submodules stay counted
    assert "modules" in coverage._public_names(torch.nn)
    counted = coverage.count("torch", "leafgrad")
    assert "sparse_coo_tensor" in counted["refused"] and "compile" in counted["present"]
