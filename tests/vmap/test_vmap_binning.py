"""histc and histogram under vmap, against PyTorch: every example's histogram at once, with
its own edges when they come from its own range; batched weights and edges; errors."""

import numpy as np
import pytest

import leafgrad as lg

from ._same import same

# PyTorch itself loops over the examples for histogram (its fallback) and says so.
pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop")


def _points(dtype=np.float32):
    x = np.random.default_rng(0).standard_normal((4, 2, 6)).astype(dtype)
    x[1] = 0.5  # one value: the range is widened
    x[2, 0, :3] = [-1.0, 0.0, 1.0]  # values on the edges of the given range
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_forms_under_vmap(pytorch, dtype):
    def fn(m, x, w, edges):
        return (
            m.vmap(lambda v: m.histogram(v, 5))(x),
            m.vmap(lambda v: m.histogram(v, 3, range=(-1.0, 1.0)))(x),
            m.vmap(lambda v, w: m.histogram(v, 4, weight=w, density=True))(x, w),
            m.vmap(lambda v: m.histogram(v, edges))(x),
            m.vmap(lambda e: m.histogram(x[0], e))(m.stack([edges, edges * 2])),
            m.vmap(m.vmap(lambda v: m.histogram(v, 2)), in_dims=2)(x),
        )

    weights = np.random.default_rng(1).random((4, 2, 6)).astype(dtype)
    edges = np.array([-2.0, -0.5, 0.0, 0.25, 3.0], dtype=dtype)
    same(pytorch, fn, [_points(dtype), weights, edges])


def test_histc_forms_under_vmap(pytorch):
    def fn(m, x):
        return (
            m.vmap(lambda v: m.histc(v, 4))(x),
            m.vmap(lambda v: m.histc(v, 3, min=-1, max=1))(x),
            m.vmap(m.vmap(lambda v: m.histc(v, 5)))(x),
        )

    same(pytorch, fn, [_points()])


def test_batched_histograms_equal_the_stacked_ones_exactly():
    x = lg.tensor(_points(np.float64) * 7.3)
    hist, edges = lg.vmap(lambda v: lg.histogram(v, 7))(x)
    for k in range(x.shape[0]):
        h, e = lg.histogram(x[k], 7)
        assert np.array_equal(hist[k].numpy(), h.numpy())
        assert np.array_equal(edges[k].numpy(), e.numpy())
    counts = lg.vmap(lambda v: lg.histc(v, 6))(x)
    assert np.array_equal(counts.numpy(), np.stack([lg.histc(v, 6).numpy() for v in x]))


@pytest.mark.parametrize("op", ["histc", "histogram"])
def test_a_non_finite_example_range_raises_under_vmap(torch, op):
    x = torch.tensor([[1.0, 2.0], [float("inf"), 0.0]])
    with pytest.raises(RuntimeError, match="not finite"):
        torch.vmap(lambda v: getattr(torch, op)(v, 3))(x)
