"""randomness='different' and 'same' for every random function PyTorch's vmap allows them
for (randint, randint_like, randperm, normal, uniform_, normal_), and the errors where
PyTorch refuses; asserted for leafgrad and PyTorch alike."""

import pytest

N = 32  # draws per example: equal rows by chance are out of the question

CASES = {
    "randint": lambda t, a: a * 0 + t.randint(0, 10, (N,)).to(a.dtype),
    "randint-high-only": lambda t, a: a * 0 + t.randint(10, (N,)).to(a.dtype),
    "randint_like": lambda t, a: t.randint_like(a, 3, 10),
    "randperm": lambda t, a: a * 0 + t.randperm(N).to(a.dtype),
    "normal-floats": lambda t, a: a * 0 + t.normal(2.0, 0.5, (N,)),
    "normal-batched-tensors": lambda t, a: t.normal(a, a),
    "normal-batched-mean": lambda t, a: t.normal(a, 0.5),
    "normal-batched-std": lambda t, a: t.normal(1.0, a),
    "normal-unbatched-tensor": lambda t, a: a * 0 + t.normal(t.zeros(N), 1.0),
    "uniform_": lambda t, a: a.clone().uniform_(-1.0, 1.0),
    "normal_": lambda t, a: a.clone().normal_(3.0, 2.0),
}
_BATCHED_INPUT = {"normal-batched-tensors", "normal-batched-mean", "normal-batched-std"}


def _in_range(name, out):
    if name.startswith("randint"):
        low = 3 if name == "randint_like" else 0
        assert ((out >= low) & (out < 10)).all() and (out == out.round()).all()
    elif name == "randperm":
        for row in out:
            assert sorted(row.tolist()) == list(range(N))
    elif name == "uniform_":
        assert ((out >= -1) & (out < 1)).all()


@pytest.mark.parametrize("name", sorted(CASES))
def test_different_draws_each_example_separately(torch, name):
    torch.manual_seed(0)
    out = torch.vmap(lambda a: CASES[name](torch, a), randomness="different")(torch.ones(3, N))
    assert tuple(out.shape) == (3, N)
    assert not torch.equal(out[0], out[1]) and not torch.equal(out[1], out[2])
    _in_range(name, out)


@pytest.mark.parametrize("name", sorted(set(CASES) - _BATCHED_INPUT))
def test_same_draws_once_for_every_example(torch, name):
    torch.manual_seed(0)
    out = torch.vmap(lambda a: CASES[name](torch, a), randomness="same")(torch.ones(3, N))
    assert tuple(out.shape) == (3, N)
    assert torch.equal(out[0], out[1]) and torch.equal(out[1], out[2])
    assert not torch.equal(out[0], out[0].flip(0))  # the draw itself is random
    _in_range(name, out)


@pytest.mark.parametrize("name", sorted(_BATCHED_INPUT))
def test_same_with_a_batched_mean_or_std_raises(torch, name):
    with pytest.raises(RuntimeError):
        torch.vmap(lambda a: CASES[name](torch, a), randomness="same")(torch.ones(3, N))


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_mode_raises_for_every_random_function(torch, name):
    with pytest.raises(RuntimeError, match="randomness"):
        torch.vmap(lambda a: CASES[name](torch, a))(torch.ones(3, N))


def test_different_in_place_draw_into_an_unbatched_tensor_raises(torch):
    with pytest.raises(RuntimeError, match="vmap"):
        torch.vmap(lambda a: a + torch.zeros(N).uniform_(), randomness="different")(
            torch.ones(3, N)
        )


def test_nested_different_levels_draw_per_example_of_each(torch):
    torch.manual_seed(0)
    inner = torch.vmap(lambda a: a * 0 + torch.randint(0, 1000, (N,)), randomness="different")
    out = torch.vmap(inner, randomness="different")(torch.ones(2, 3, N, dtype=torch.long))
    assert tuple(out.shape) == (2, 3, N)
    rows = [tuple(r.tolist()) for r in out.reshape(6, N)]
    assert len(set(rows)) == 6
