"""round's two overloads as PyTorch picks them: RoundBackward0 without ``decimals``,
RoundBackward1 (``round.decimals``) whenever it is given, 0 included, and always through
``torch.special.round``."""

import pytest

import leafgrad as lg

CALLS = {
    "plain": lambda m, x: m.round(x),
    "method": lambda m, x: x.round(),
    "decimals-0": lambda m, x: m.round(x, decimals=0),
    "method-decimals-0": lambda m, x: x.round(decimals=0),
    "decimals-1": lambda m, x: m.round(x, decimals=1),
    "special": lambda m, x: m.special.round(x),
    "special-decimals": lambda m, x: m.special.round(x, decimals=2),
}


@pytest.mark.parametrize("name", CALLS)
def test_round_records_pytorchs_overload(name):
    torch = pytest.importorskip("torch")
    found = []
    for m in (lg, torch):
        x = m.tensor([0.355, 1.645, -2.5], dtype=m.float64, requires_grad=True)
        y = CALLS[name](m, x)
        found.append((y.grad_fn.name(), y.detach().numpy().tolist()))
    assert found[0] == found[1]


@pytest.mark.parametrize("decimals", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_round_with_decimals_refuses_integer_tensors_as_pytorch(dtype, decimals):
    """PyTorch's round.decimals has no integer kernel (plain round of integers has one)."""
    torch = pytest.importorskip("torch")
    for m in (lg, torch):
        x = m.tensor([1, 2]).to(getattr(m, dtype))
        with pytest.raises(NotImplementedError, match="not implemented for"):
            m.round(x, decimals=decimals)
    assert lg.round(lg.tensor([1, 2])).tolist() == [1, 2]
