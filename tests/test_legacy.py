"""Legacy constructors against PyTorch: ``torch.FloatTensor(2, 3)``, ``LongTensor([...])``,
``Tensor(...)``, ``t.new(...)``, ``t.type(torch.DoubleTensor)`` and what ``isinstance`` says."""

import warnings

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


TYPES = [
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor",
]  # fmt: skip


def _same_kind(ours, theirs, values=True):
    assert type(ours) is lg.Tensor
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert not ours.requires_grad and ours.is_leaf
    if values:
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("name", TYPES)
def test_each_typed_constructor_makes_a_tensor_of_its_dtype(name, torch):
    ours, theirs = getattr(lg, name), getattr(torch, name)
    assert str(ours.dtype) == str(theirs.dtype) and ours.is_cuda is False
    assert repr(ours) == repr(theirs) == f"<class 'torch.{name}'>"
    _same_kind(ours([1, 0, 2]), theirs([1, 0, 2]))
    _same_kind(ours([[1, 2], [3, 4]]), theirs([[1, 2], [3, 4]]))
    _same_kind(ours(), theirs())
    _same_kind(ours(2, 3), theirs(2, 3), values=False)  # PyTorch leaves the memory as it was
    _same_kind(ours(lg.Size([2, 3])), theirs(torch.Size([2, 3])), values=False)
    _same_kind(ours(size=(2,)), theirs(size=(2,)), values=False)
    _same_kind(ours(np.array([1.0, 2.0])), theirs(np.array([1.0, 2.0])))


def test_sizes_versus_data_as_in_torch(torch):
    _same_kind(lg.FloatTensor((2, 3)), torch.FloatTensor((2, 3)))  # a tuple is data
    _same_kind(lg.LongTensor([1.7, -2.7]), torch.LongTensor([1.7, -2.7]))  # truncated
    assert lg.LongTensor(2, 3).tolist() == [[0, 0, 0], [0, 0, 0]]  # leafgrad zero-fills


def test_isinstance_asks_for_the_dtype_as_in_torch(torch):
    for m in (lg, torch):
        x = m.zeros(2)
        assert isinstance(x, m.FloatTensor) and isinstance(x, m.Tensor)
        assert not isinstance(x, m.DoubleTensor)
        assert isinstance(x.double(), m.DoubleTensor) and isinstance(x.long(), m.LongTensor)
        assert isinstance(m.nn.Parameter(m.zeros(2)), m.FloatTensor)
        assert not isinstance(3.0, m.FloatTensor)
        assert not isinstance(x, m.cuda.FloatTensor)
        assert not issubclass(m.FloatTensor, m.Tensor)
        assert type(m.FloatTensor(2)) is m.Tensor


def test_a_tensor_argument_is_aliased_when_its_dtype_matches(torch):
    for m in (lg, torch):
        source = m.tensor([1.0, 2.0])
        alias = m.FloatTensor(source)
        alias[0] = 5.0
        assert source[0].item() == 5.0
        with pytest.raises(TypeError):
            m.FloatTensor(m.tensor([1.0], dtype=m.float64))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.FloatTensor(3.5), TypeError),
        (lambda m: m.FloatTensor(2, 3, dtype=m.float64), TypeError),
        (lambda m: m.FloatTensor(2, device="cuda"), RuntimeError),
        (lambda m: m.Tensor(2, device="cuda"), RuntimeError),
        (lambda m: m.Tensor([1.0], device="meta"), RuntimeError),
        (lambda m: m.cuda.FloatTensor(2), TypeError),
        (lambda m: m.Tensor(2.5), TypeError),
        (lambda m: m.Tensor("a"), TypeError),
        (lambda m: m.Tensor(-1), RuntimeError),
        (lambda m: m.IntTensor([2**40]), RuntimeError),
        (lambda m: m.FloatTensor([[1], [2, 3]]), ValueError),
        (lambda m: m.FloatTensor(2, size=(3,)), TypeError),
        (lambda m: m.Tensor(2, size=(3,)), TypeError),
    ],
)
def test_legacy_constructor_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


def test_bfloat16_constructor_exists_and_says_leafgrad_lacks_the_dtype():
    with pytest.raises(TypeError, match="bfloat16"):
        lg.BFloat16Tensor([1.0])
    assert not isinstance(lg.zeros(2), lg.BFloat16Tensor)


def test_tensor_constructor_matches_torch(torch):
    for fn in (
        lambda m: m.Tensor(),
        lambda m: m.Tensor(0),
        lambda m: m.Tensor([[1, 2]]),
        lambda m: m.Tensor([True, False]),
        lambda m: m.Tensor(np.array([1, 2])),
        lambda m: m.Tensor(m.tensor([1, 2])),  # aliases, keeping int64
        lambda m: m.Tensor([1, 2], device="cpu"),
    ):
        _same_kind(fn(lg), fn(torch))
    _same_kind(lg.Tensor(2, 3), torch.Tensor(2, 3), values=False)
    _same_kind(lg.Tensor(size=(2, 3)), torch.Tensor(size=(2, 3)), values=False)
    _same_kind(lg.zeros(1).new(size=(2,)), torch.zeros(1).new(size=(2,)), values=False)


def test_new_builds_in_the_tensors_dtype(torch):
    for fn in (
        lambda m: m.zeros(2).new([1, 2]),
        lambda m: m.zeros(2).new(),
        lambda m: m.zeros(2, dtype=m.int64).new([1.5, 2]),
        lambda m: m.zeros(2, dtype=m.float64).new(m.tensor([3.0], dtype=m.float64)),
        lambda m: m.zeros(2, requires_grad=True).new([1.0]),
    ):
        _same_kind(fn(lg), fn(torch))
    for fn in (
        lambda m: m.zeros(2).new(2, 3),
        lambda m: m.zeros(2, dtype=m.int32).new(m.Size([2, 3])),
    ):
        _same_kind(fn(lg), fn(torch), values=False)
    for m in (lg, torch):
        with pytest.raises(TypeError):
            m.zeros(2).new(m.tensor([1, 2]))


def test_type_accepts_typed_constructors_and_their_names(torch):
    for fn in (
        lambda m: m.zeros(2).type(m.DoubleTensor),
        lambda m: m.zeros(2).type("torch.DoubleTensor"),
        lambda m: m.zeros(2).type(m.LongTensor),
        lambda m: m.zeros(2, dtype=m.int64).type("torch.BoolTensor"),
    ):
        _same_kind(fn(lg), fn(torch))
    for m in (lg, torch):
        x = m.zeros(2)
        assert x.type(m.FloatTensor) is x and x.type() == "torch.FloatTensor"
        assert m.FloatTensor([1]).double().type() == "torch.DoubleTensor"
        with pytest.raises(ValueError):
            x.type("torch.Foo")
        with pytest.raises(RuntimeError):
            x.type(m.cuda.FloatTensor)


def test_set_default_tensor_type_sets_the_default_dtype_as_torch(torch, fresh_warnings):
    for m in (lg, torch):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                m.set_default_tensor_type(m.DoubleTensor)
                m.set_default_tensor_type(m.DoubleTensor)
            if m is lg:  # deprecated since PyTorch 2.1: it warns, once per process
                assert len(caught) == 1 and "deprecated" in str(caught[0].message)
            assert m.get_default_dtype() == m.float64 and m.zeros(1).dtype == m.float64
            assert m.Tensor(1).dtype == m.float64
            m.set_default_tensor_type("torch.FloatTensor")
            assert m.get_default_dtype() == m.float32
            for bad in (m.LongTensor, m.cuda.FloatTensor, "torch.cuda.FloatTensor", m.float64):
                with pytest.raises(TypeError):
                    m.set_default_tensor_type(bad)
        finally:
            m.set_default_dtype(m.float32)
