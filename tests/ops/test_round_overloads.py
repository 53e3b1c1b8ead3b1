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
