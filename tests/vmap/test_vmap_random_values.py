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
