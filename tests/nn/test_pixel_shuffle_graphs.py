"""pixel_shuffle / pixel_unshuffle against PyTorch: recorded as its ops (PixelShuffleBackward0,
PixelUnshuffleBackward0), each the other's gradient, with batch dims of any count."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

CASES = {
    "shuffle": (lambda m, x: m.nn.functional.pixel_shuffle(x, 2), (2, 8, 2, 3)),
    "unshuffle": (lambda m, x: m.nn.functional.pixel_unshuffle(x, 2), (2, 1, 4, 6)),
    "shuffle-3d": (lambda m, x: m.pixel_shuffle(x, 2), (4, 2, 3)),
    "shuffle-5d": (lambda m, x: m.nn.PixelShuffle(3)(x), (2, 1, 9, 1, 2)),
}


@pytest.mark.parametrize("name", CASES)
def test_pixel_shuffles_match_pytorch(name):
    torch = pytest.importorskip("torch")
    fn, shape = CASES[name]
    values = np.arange(float(np.prod(shape))).reshape(shape)
    found = []
    for m in (lg, torch):
        x = m.tensor(values, requires_grad=True)
        y = fn(m, x)
        (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
        found.append((node_names(y.grad_fn, 1), node_names(g.grad_fn, 2), y.detach().numpy(),
                      g.detach().numpy()))  # fmt: skip
    assert found[0][:2] == found[1][:2]
    for a, b in zip(found[0][2:], found[1][2:]):
        np.testing.assert_array_equal(a, b)  # a rearrangement: exact
