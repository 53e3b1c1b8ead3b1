"""The torch namespace's numeric utilities and predicates against PyTorch: gradient, vander,
result_type, can_cast, scalar_tensor, the deprecated range, unravel_index, and the real-only
complex family (conj, real, imag, isreal ...)."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _both(torch, fn):
    """``fn(m)`` for leafgrad and torch: both results, or both exception types."""
    out = []
    for m in (lg, torch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                out.append(fn(m))
        except Exception as exc:  # the type is what is compared
            out.append(type(exc))
    return out


def _same_tensors(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same_tensors(a, b)
        return
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if ours.dtype.is_floating_point:
        assert_close(ours, theirs.detach().numpy())
    else:
        assert ours.tolist() == theirs.tolist()


# ----------------------------------------------------------------------------- gradient
rng = np.random.default_rng(7)
F1 = rng.standard_normal(7)
F2 = rng.standard_normal((4, 5))
COORDS = np.array([0.0, 0.5, 1.5, 1.75, 3.0, 4.5, 5.0])


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_values_and_derivatives_uniform(torch, edge_order):
    compare(lambda m, f: m.gradient(f, edge_order=edge_order), [F1], torch=torch)
    compare(lambda m, f: m.gradient(f, spacing=0.3, edge_order=edge_order), [F2], torch=torch)
    compare(
        lambda m, f: m.gradient(f, spacing=[2.0, 0.5], edge_order=edge_order), [F2], torch=torch
    )
    compare(lambda m, f: m.gradient(f, dim=1, edge_order=edge_order), [F2], torch=torch)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_on_coordinates_differentiates_in_values_and_coordinates(torch, edge_order):
    compare(
        lambda m, f, x: m.gradient(f, spacing=(x,), edge_order=edge_order),
        [F1, COORDS],
        torch=torch,
    )
    compare(
        lambda m, f, x: m.gradient(f, spacing=[x[:4]], dim=0, edge_order=edge_order),
        [F2, COORDS],
        torch=torch,
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.gradient(m.tensor([1, 2, 4, 8])),
        lambda m: m.gradient(m.tensor([1, 2, 4, 8]), spacing=2),
        lambda m: m.gradient(m.tensor([1, 2, 4, 8]), spacing=(m.tensor([0, 1, 3, 4]),)),
        lambda m: m.gradient(m.tensor(3.0)),
        lambda m: m.gradient(m.ones(3, 4), dim=(0,)),
    ],
)
def test_gradient_dtypes_and_shapes(torch, fn):
    ours, theirs = _both(torch, fn)
    _same_tensors(ours, theirs)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.gradient(m.ones(5), edge_order=3),
        lambda m: m.gradient(m.ones(2), edge_order=2),
        lambda m: m.gradient(m.ones(1)),
        lambda m: m.gradient(m.ones(3, 4), spacing=[1.0, 2.0, 3.0]),
        lambda m: m.gradient(m.ones(5), spacing=m.arange(5.0)),
        lambda m: m.gradient(m.ones(5), dim=1),
        lambda m: m.gradient(m.ones(5), spacing=[m.tensor(2.0)]),
        lambda m: m.gradient(m.ones(3, 4), dim=[0, 0]),
    ],
)
def test_gradient_errors_match_pytorch(torch, fn):
    ours, theirs = _both(torch, fn)
    assert isinstance(theirs, type) and ours is theirs


# ----------------------------------------------------------------------------- vander
@pytest.mark.parametrize("N", [None, 0, 1, 4])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_values_and_derivatives(torch, N, increasing):
    # PyTorch 2.13's backward of vander fails for N >= 2 (its kernel writes in place into a
    # tensor it saved), so values are compared and derivatives checked numerically.
    x = rng.standard_normal(3)
    compare(lambda m, x: m.vander(x, N, increasing), [x], grads=False, torch=torch)
    t = lg.tensor(x, requires_grad=True)
    assert lg.autograd.gradcheck(lambda t: lg.vander(t, N, increasing), (t,))
    assert lg.autograd.gradgradcheck(lambda t: lg.vander(t, N, increasing), (t,))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.vander(m.tensor([1, 2, 3], dtype=m.int8)),
        lambda m: m.vander(m.tensor([True, False])),
        lambda m: m.vander(m.tensor([1.0, 2.0]), N=3, increasing=True),
        lambda m: m.vander(m.ones(2, 1)),
        lambda m: m.vander(m.ones(2), -1),
    ],
)
def test_vander_dtypes_and_errors(torch, fn):
    ours, theirs = _both(torch, fn)
    if isinstance(theirs, type):
        assert ours is theirs
    else:
        _same_tensors(ours, theirs)


# ----------------------------------------------------------------------------- scalars, dtypes
@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.result_type(m.tensor([1.0]), 1),
        lambda m: m.result_type(m.tensor([1]), 1.0),
        lambda m: m.result_type(1, 2.0),
        lambda m: m.result_type(True, 2),
        lambda m: m.result_type(m.tensor([1], dtype=m.int8), 300),
        lambda m: m.result_type(m.tensor(1.0, dtype=m.float64), m.tensor([1], dtype=m.int32)),
        lambda m: m.result_type(tensor=m.tensor([1.0]), other=1),
        lambda m: m.result_type(m.tensor([1.0])),
        lambda m: m.result_type([1], m.tensor([1.0])),
        lambda m: m.can_cast(m.float32, m.int32),
        lambda m: m.can_cast(m.int32, m.float16),
        lambda m: m.can_cast(m.bool, m.uint8),
        lambda m: m.can_cast(m.int8, m.bool),
        lambda m: m.can_cast(m.bool, m.bool),
        lambda m: m.can_cast(from_=m.int8, to=m.uint8),
        lambda m: m.can_cast(1, m.float32),
    ],
)
def test_result_type_and_can_cast_match_pytorch(torch, fn):
    ours, theirs = _both(torch, fn)
    assert str(ours) == str(theirs) if not isinstance(theirs, type) else ours is theirs


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.scalar_tensor(3),
        lambda m: m.scalar_tensor(True),
        lambda m: m.scalar_tensor(3, dtype=m.int64),
        lambda m: m.scalar_tensor(3, dtype=m.bool),
        lambda m: m.scalar_tensor(-1, dtype=m.uint8),
        lambda m: m.scalar_tensor(m.tensor(3)),
        lambda m: m.scalar_tensor(1e300),
        lambda m: m.scalar_tensor(m.ones(2)),
        lambda m: m.scalar_tensor([1]),
    ],
)
def test_scalar_tensor_matches_pytorch(torch, fn):
    ours, theirs = _both(torch, fn)
    if isinstance(theirs, type):
        assert ours is theirs
    else:
        assert ours.dim() == 0
        _same_tensors(ours, theirs)


def test_scalar_tensor_can_require_grad():
    t = lg.scalar_tensor(2.5, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.dtype == lg.float32


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.range(1, 4),
        lambda m: m.range(1, 4, 0.5),
        lambda m: m.range(0, 1, 0.1),
        lambda m: m.range(0, 1, 0.3),
        lambda m: m.range(4, 1, -1),
        lambda m: m.range(1, 1),
        lambda m: m.range(1, 4, dtype=m.int64),
        lambda m: m.range(1.5, 4, dtype=m.int64),
        lambda m: m.range(1, 4, dtype=m.int32),
        lambda m: m.range(0.0, 2.0, 0.25, dtype=m.float64),
        lambda m: m.range(4, 1),
        lambda m: m.range(1, 4, 0),
        lambda m: m.range(0, float("inf")),
        lambda m: m.range(1, 4, dtype=m.bool),
    ],
)
def test_range_is_end_inclusive_as_pytorch(torch, fn):
    ours, theirs = _both(torch, fn)
    if isinstance(theirs, type):
        assert ours is theirs
    else:
        _same_tensors(ours, theirs)


def test_range_warns_that_it_is_deprecated_at_the_callers_line():
    with pytest.warns(UserWarning, match="torch.range is deprecated") as record:
        lg.range(0, 2)
    assert record[0].filename == __file__


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.unravel_index(m.tensor(4), (3, 2)),
        lambda m: m.unravel_index(m.tensor([4, 1]), (3, 2)),
        lambda m: m.unravel_index(m.tensor([[4], [1]]), m.Size([3, 2])),
        lambda m: m.unravel_index(m.tensor([7, -1]), (3, 2)),
        lambda m: m.unravel_index(m.tensor([4], dtype=m.int32), (3, 2)),
        lambda m: m.unravel_index(m.tensor(1), 3),
        lambda m: m.unravel_index(m.tensor(1), ()),
        lambda m: m.unravel_index(m.tensor([5]), (2, 3, 4)),
        lambda m: m.unravel_index(m.tensor(1.0), (3, 2)),
        lambda m: m.unravel_index(m.tensor([True]), (3, 2)),
        lambda m: m.unravel_index(m.tensor(1), (3, -2)),
        lambda m: m.unravel_index(m.tensor(1), [3, 2.0]),
        lambda m: m.unravel_index(m.tensor([0]), (3, 0)),
    ],
)
def test_unravel_index_matches_pytorch(torch, fn):
    ours, theirs = _both(torch, fn)
    if isinstance(theirs, type):
        assert ours is theirs
    else:
        _same_tensors(ours, theirs)


# ----------------------------------------------------------------------------- predicates
@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.is_complex(m.ones(2)),
        lambda m: m.is_signed(m.ones(2, dtype=m.uint8)),
        lambda m: m.is_signed(m.ones(2, dtype=m.int8)),
        lambda m: m.is_same_size(m.ones(2, 3), m.zeros(2, 3, dtype=m.int64)),
        lambda m: m.is_same_size(m.ones(2, 3), m.ones(3, 2)),
        lambda m: m.is_nonzero(m.tensor([0.0])),
        lambda m: m.is_nonzero(m.tensor(3)),
        lambda m: m.is_nonzero(m.tensor([1, 2])),
        lambda m: m.is_nonzero(m.tensor([])),
        lambda m: m.is_conj(m.ones(2)),
        lambda m: m.is_neg(m.ones(2)),
        lambda m: m.get_device(m.ones(2)),
        lambda m: m.get_device(3),
        lambda m: m.is_distributed(m.ones(1)),
        lambda m: m.is_storage(m.ones(1)),
        lambda m: m.is_storage(m.ones(1).untyped_storage()),
        lambda m: m.isreal(m.tensor([1.0, 2.0])).tolist(),
        lambda m: m.positive(m.tensor([True])),
        lambda m: m.adjoint(m.ones(3)),
        lambda m: m.imag(m.ones(3)),
        lambda m: m.view_as_real(m.ones(3)),
    ],
)
def test_predicates_match_pytorch(torch, fn):
    ours, theirs = _both(torch, fn)
    assert ours == theirs


def test_conjugation_family_returns_a_real_input_itself(torch):
    x = lg.ones(2, 3, requires_grad=True)
    for name in ("conj", "resolve_conj", "resolve_neg", "real", "positive"):
        assert getattr(lg, name)(x) is x
        assert getattr(torch, name)(torch.ones(2, 3)) is not None
    a = lg.arange(6.0).reshape(2, 3)
    _same_tensors(lg.adjoint(a), torch.adjoint(torch.arange(6.0).reshape(2, 3)))


@pytest.mark.parametrize("name", ["polar", "complex", "view_as_complex", "view_as_real"])
def test_complex_constructors_refuse_saying_there_is_no_complex_dtype(name):
    with pytest.raises(RuntimeError, match="no complex dtype"):
        getattr(lg, name)(lg.ones(2, 2), lg.ones(2, 2))
