"""Random ops under vmap draw PyTorch's values for a seed: chunked 'same', randperm and
bernoulli per example, against PyTorch itself."""

import numpy as np
import pytest

import leafgrad


def _drawn(m, fn, randomness, chunk_size=None, n=5):
    m.manual_seed(0)
    return m.vmap(fn(m), randomness=randomness, chunk_size=chunk_size)(m.ones(n, 4)).numpy()


@pytest.mark.parametrize("chunk_size", [1, 2, 3])
def test_chunked_same_draws_alike_in_every_chunk_as_pytorch(pytorch, chunk_size):
    def fn(m):
        return lambda a: a + m.randn(4)

    ours = _drawn(leafgrad, fn, "same", chunk_size)
    theirs = _drawn(pytorch, fn, "same", chunk_size)
    np.testing.assert_array_equal(ours, theirs)
    assert (ours == ours[0]).all()  # PyTorch restarts the generator at every chunk


@pytest.mark.parametrize("n", [5, 40])
def test_randperm_different_draws_pytorchs_permutation_per_example(pytorch, n):
    def fn(m):
        return lambda a: m.randperm(n)

    def drawn(m):
        m.manual_seed(0)
        return m.vmap(fn(m), randomness="different")(m.ones(3, 4)).numpy()

    np.testing.assert_array_equal(drawn(leafgrad), drawn(pytorch))


def test_nested_randperm_different_draws_in_pytorchs_order(pytorch):
    def drawn(m):
        m.manual_seed(0)
        inner = m.vmap(lambda a: a * 0 + m.randperm(4), randomness="different")
        return m.vmap(inner, randomness="different")(m.ones(2, 3, 4)).numpy()

    np.testing.assert_array_equal(drawn(leafgrad), drawn(pytorch))


@pytest.mark.parametrize("randomness", ["different", "same"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bernoulli_of_probabilities_under_vmap_draws_pytorchs_values(pytorch, randomness, dtype):
    p = np.random.default_rng(1).uniform(size=(5, 4)).astype(dtype)

    def drawn(m, batched):
        m.manual_seed(0)
        if batched:  # each example its own probabilities
            fn, arg = (lambda a: m.bernoulli(a)), m.tensor(p)
        else:
            q = m.tensor(p[0])
            fn, arg = (lambda a: a * 0 + m.bernoulli(q)), m.ones(5, 4, dtype=q.dtype)
        return m.vmap(fn, randomness=randomness)(arg).numpy()

    np.testing.assert_array_equal(drawn(leafgrad, False), drawn(pytorch, False))
    if randomness == "different":
        np.testing.assert_array_equal(drawn(leafgrad, True), drawn(pytorch, True))
    else:  # PyTorch refuses 'same' with a batched input
        for m in (leafgrad, pytorch):
            with pytest.raises(RuntimeError, match="same randomness with a batched tensor"):
                drawn(m, True)


@pytest.mark.parametrize("randomness", ["different", "same"])
def test_multinomial_under_vmap_draws_valid_indices_per_example(torch, randomness):
    torch.manual_seed(0)
    weights = torch.ones(16)
    out = torch.vmap(lambda a: torch.multinomial(weights, 8), randomness=randomness)(
        torch.ones(4, 2)
    )
    assert tuple(out.shape) == (4, 8) and out.dtype == torch.int64
    rows = [sorted(set(r.tolist())) for r in out]
    assert all(len(r) == 8 and 0 <= r[0] and r[-1] < 16 for r in rows)
    assert (rows[0] == rows[1]) == (randomness == "same")
    batched = torch.vmap(lambda w: torch.multinomial(w, 2), randomness="different")
    assert tuple(batched(torch.rand(4, 3, 5)).shape) == (4, 3, 2)
