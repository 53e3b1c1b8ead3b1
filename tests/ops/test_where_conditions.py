"""where's condition: bool, or uint8 as PyTorch still accepts it (nonzero is true, with a
deprecation warned once); other dtypes are a RuntimeError. Its number branches convert as
PyTorch's checked Scalars."""

import warnings

import pytest

import leafgrad as lg
from leafgrad import _warn


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_a_uint8_condition_selects_where_nonzero_and_warns_once():
    _warn._warned_once.clear()
    c = lg.tensor([2, 0, 1], dtype=lg.uint8)
    with pytest.warns(UserWarning, match="uint8 condition"):
        assert lg.where(c, 1.0, 2.0).tolist() == [1.0, 2.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = lg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.where(c, 5.0)
    assert y.tolist() == [1.0, 5.0, 3.0] and type(y.grad_fn).__name__ == "WhereBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("dtype", ["int8", "int64", "float32"])
def test_other_non_bool_conditions_raise(dtype):
    with pytest.raises(RuntimeError):
        lg.where(lg.tensor([1, 0], dtype=getattr(lg, dtype)), 1.0, 2.0)


def _as(m, other):
    return m.tensor(other) if isinstance(other, list) else other


def test_uint8_conditions_match_torch(torch):
    data = [[3, 0], [0, 1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for other in (0.5, 7, [1.0, 2.0]):
            ours = lg.where(
                lg.tensor(data, dtype=lg.uint8), lg.tensor([-1.0, -2.0]), _as(lg, other)
            )
            theirs = torch.where(
                torch.tensor(data, dtype=torch.uint8), torch.tensor([-1.0, -2.0]), _as(torch, other)
            )
            assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)


def test_number_branches_convert_as_checked_scalars():
    c = lg.tensor([True, False])
    u8 = lg.tensor([1, 2], dtype=lg.uint8)
    assert lg.where(c, u8, -3).tolist() == [1, 253] and lg.where(c, -3, u8).tolist() == [253, 2]
    assert lg.where(c, u8, -3).dtype == lg.uint8
    with pytest.raises(RuntimeError):
        lg.where(c, lg.tensor([1, 2], dtype=lg.int8), 300)
    with pytest.raises(RuntimeError):
        lg.where(c, 1e39, lg.tensor([1.0, 2.0]))
    assert lg.where(c, lg.tensor([1, 2], dtype=lg.int8), 127.5).tolist() == [1.0, 127.5]


def test_number_branches_match_torch(torch):
    c = [True, False]
    for dtype, number in (("uint8", -3), ("int8", 300), ("float32", 1e39), ("int8", 2.5)):
        results = []
        for m in (lg, torch):
            t = m.tensor([1, 2], dtype=getattr(m, dtype))
            try:
                out = m.where(m.tensor(c), t, number)
                results.append((str(out.dtype), out.tolist()))
            except RuntimeError:
                results.append(RuntimeError)
        assert results[0] == results[1]
