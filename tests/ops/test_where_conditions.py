"""where's condition: bool, or uint8 as PyTorch still accepts it (nonzero is true, with a
deprecation warned once); other dtypes are a RuntimeError."""

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
