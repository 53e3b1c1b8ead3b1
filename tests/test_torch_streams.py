"""PyTorch's random streams: the same seed gives PyTorch's values (``_torch_stream``)."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._torch_stream import TorchStream, fma64

torch = pytest.importorskip("torch")

# Integer draws and uniforms are exact on any CPU. Normals go through log/cos/sin, whose
# last bit PyTorch's kernels may round otherwise on other CPUs (another vector path): those
# are compared within a few float32 units in the last place.
NORMAL = {"rtol": 3e-6, "atol": 3e-7}


def _both(draw):
    values = []
    for m in (torch, lg):
        m.manual_seed(1234)
        values.append(np.asarray(draw(m).numpy()))
    return values


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3,), (5, 7), (1000,), (3, 1366)], ids=str)
def test_rand_and_uniform_are_pytorchs_values(dtype, shape):
    for draw in (
        lambda m: m.rand(shape, dtype=getattr(m, dtype)),
        lambda m: m.empty(shape, dtype=getattr(m, dtype)).uniform_(-0.57735, 0.57735),
        lambda m: m.rand_like(m.ones(shape, dtype=getattr(m, dtype))),
    ):
        theirs, ours = _both(draw)
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 15, 16, 17, 40, 1001, 4099])
def test_randn_and_normal_are_pytorchs_values(dtype, n):
    """Below 16 values one at a time (its cached second value carries to the next call),
    from 16 on in blocks of 16, the last 16 drawn again."""
    for draw in (
        lambda m: m.cat([m.randn(n, dtype=getattr(m, dtype)), m.randn(3, dtype=getattr(m, dtype))]),
        lambda m: m.empty(n, dtype=getattr(m, dtype)).normal_(0.5, 0.02),
        lambda m: m.normal(2.0, 3.0, (n,), dtype=getattr(m, dtype)),
        lambda m: m.normal(m.ones(n, dtype=getattr(m, dtype)), 2.0),
    ):
        theirs, ours = _both(draw)
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, **NORMAL)


def test_integers_and_permutations_are_pytorchs():
    for draw in (
        lambda m: m.randint(-3, 17, (50,)),
        lambda m: m.randint(0, 2**40, (20,)),
        lambda m: m.randint(5, (4, 4), dtype=m.int32),
        lambda m: m.randperm(1),
        lambda m: m.randperm(257),
    ):
        theirs, ours = _both(draw)
        np.testing.assert_array_equal(ours, theirs)


def test_layers_initialise_as_under_pytorch():
    """A seeded model starts from PyTorch's weights (kaiming/xavier init draw uniform_ and
    normal_)."""

    def model(m):
        net = m.nn.Sequential(m.nn.Linear(2, 20), m.nn.Tanh(), m.nn.Linear(20, 1))
        m.nn.init.xavier_normal_(net[2].weight)
        return m.nn.utils.parameters_to_vector(net.parameters()).detach()

    theirs, ours = _both(model)
    np.testing.assert_allclose(ours, theirs, **NORMAL)
    np.testing.assert_array_equal(ours[:60], theirs[:60])  # the first layer: uniform_ only


def test_generators_seeds_and_states_follow_pytorch():
    for m in (torch, lg):
        m.manual_seed(5)
    for seed in (3, 2**40 + 7):
        g, h = torch.Generator().manual_seed(seed), lg.Generator().manual_seed(seed)
        assert torch.rand(4, generator=g).tolist() == lg.rand(4, generator=h).tolist()
    lg.manual_seed(9)
    lg.randn(3)  # leaves a cached normal in the generator: the state keeps it
    state = lg.get_rng_state()
    first = lg.randn(5).tolist()
    lg.set_rng_state(state)
    assert lg.randn(5).tolist() == first
    with pytest.raises(RuntimeError, match="state"):
        lg.set_rng_state(lg.zeros(16, dtype=lg.uint8))


def test_numpy_generator_methods_stay_usable_on_the_stream():
    rng = TorchStream(0)
    torch.manual_seed(0)
    assert rng.random() == torch.rand((), dtype=torch.float64).item()
    assert rng.gamma(2.0, size=5).shape == (5,)
    assert sorted(rng.permutation(np.arange(6)).tolist()) == list(range(6))
    assert rng.choice(4, 3, replace=False).size == 3


def test_fused_multiply_add_rounds_once():
    # 1 + 2^-52 squared is 1 + 2^-51 + 2^-104: one rounding keeps the 2^-104
    a = 1.0 + 2.0**-52
    assert fma64(a, a, -(1.0 + 2.0**-51)) == 2.0**-104
    assert a * a - (1.0 + 2.0**-51) == 0.0


def test_normals_drawn_one_at_a_time_are_scaled_by_a_fused_multiply_add():
    """``normal_(mean, std)`` of under 16 values: ``fma(z, std, mean)`` of the standard
    normal, in double (PyTorch: 1 of 3 values of ``normal_(-3, 7.5)`` below differs else)."""
    draws = []
    for mean, std in ((0.0, 1.0), (-3.0, 7.5)):
        lg.manual_seed(1)
        draws.append([lg.empty(n, dtype=lg.float64).normal_(mean, std).numpy() for n in (5, 3)])
    for z, scaled in zip(*draws):
        np.testing.assert_array_equal(scaled, fma64(z, 7.5, -3.0))
    torch.manual_seed(1)
    theirs = torch.empty(5, dtype=torch.float64).normal_(-3.0, 7.5).numpy()
    np.testing.assert_allclose(draws[1][0], theirs, **NORMAL)


def test_data_loader_shuffles_and_splits_as_pytorch():
    """RandomSampler seeds a generator of its own from the global one, and each epoch's
    iterator draws a base seed first: the orders, and what a script draws after, match."""

    def run(m):
        m.manual_seed(0)
        data = m.utils.data.TensorDataset(m.arange(10.0))
        out = []
        for _ in range(2):
            out += [
                b.tolist() for (b,) in m.utils.data.DataLoader(data, batch_size=4, shuffle=True)
            ]
        for _ in m.utils.data.DataLoader(data, batch_size=5):
            pass
        out.append(m.rand(2).tolist())
        out.append(list(m.utils.data.random_split(data, [7, 3])[0].indices))
        g = m.Generator().manual_seed(3)
        loader = m.utils.data.DataLoader(data, batch_size=3, shuffle=True, generator=g)
        out += [b.tolist() for (b,) in loader]
        return out + [m.rand(1).tolist()]

    assert run(lg) == run(torch)


def test_random_sampler_draws_as_pytorch():
    """With replacement (blocks of 32), a num_samples beyond the length (whole permutations,
    the last cut) and a given generator over several passes: PyTorch's indices."""

    def run(m):
        m.manual_seed(0)
        data = m.utils.data
        out = [list(data.RandomSampler(range(5), replacement=True, num_samples=n)) for n in (33, 7)]
        g = m.Generator().manual_seed(5)
        sampler = data.RandomSampler(range(6), num_samples=14, generator=g)
        out += [list(sampler), list(sampler), len(sampler)]
        subset = data.Subset(list(range(10)), [1, 5, 7])
        out.append(subset.__getitems__([0, 2]))
        for bad in ({"num_samples": 0}, {"replacement": 1}):
            with pytest.raises((ValueError, TypeError)) as err:
                data.RandomSampler(range(6), **bad)
            out.append((type(err.value).__name__, str(err.value)))
        return out + [m.rand(1).tolist()]

    assert run(lg) == run(torch)


def test_bernoulli_dropout_and_distributions_draw_as_pytorch():
    for draw in (
        lambda m: m.empty(50).bernoulli_(0.4),
        lambda m: m.bernoulli(m.full((100,), 0.7)),
        lambda m: m.bernoulli(m.full((100,), 0.7, dtype=m.float64)),
        lambda m: m.empty(50).bernoulli_(m.full((50,), 0.3)),
        lambda m: m.nn.functional.dropout(m.ones(200), 0.3),
        lambda m: m.nn.Dropout(0.2)(m.ones(10, 10)),
        lambda m: m.distributions.Uniform(m.zeros(20), m.ones(20) * 3).sample(),
        lambda m: m.distributions.Bernoulli(probs=m.full((20,), 0.3)).sample(),
    ):
        theirs, ours = _both(draw)
        np.testing.assert_array_equal(ours, theirs)
    for draw in (
        lambda m: m.distributions.Normal(m.zeros(20), m.ones(20) * 2).rsample(),
        lambda m: m.distributions.MultivariateNormal(m.zeros(3), m.eye(3)).sample((20,)),
    ):
        theirs, ours = _both(draw)
        np.testing.assert_allclose(ours, theirs, **NORMAL)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "bounds",
    [{"std": 0.02}, {}, {"std": 0.02, "a": -0.03, "b": 0.04}, {"mean": 0.0, "a": 2.5, "b": 4.0}],
    ids=["wide-std", "default", "narrow-redraws", "tail-accepts"],
)
def test_trunc_normal_is_pytorchs_rejection_sampler(dtype, bounds):
    theirs, ours = _both(
        lambda m: m.nn.init.trunc_normal_(m.empty(50, 40, dtype=getattr(m, dtype)), **bounds)
    )
    np.testing.assert_allclose(ours, theirs, **NORMAL)
    assert ours.min() >= bounds.get("a", -2.0) and ours.max() <= bounds.get("b", 2.0)


def test_exponential_cauchy_geometric_log_normal_draw_as_pytorch():
    """One float64 uniform per value through the C library's functions (log_normal_ shares
    the one-at-a-time normals' cache with normal_)."""
    for draw in (
        lambda m: m.empty(300, dtype=m.float64).exponential_(2.5),
        lambda m: m.empty(300).exponential_(0.7),
        lambda m: m.empty(300).cauchy_(1.0, 2.0),
        lambda m: m.empty(300).geometric_(0.3),
        lambda m: m.cat([m.randn(3), m.empty(3).log_normal_(), m.randn(3)]),
        lambda m: m.distributions.Exponential(m.ones(20) * 3).sample(),
    ):
        theirs, ours = _both(draw)
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
