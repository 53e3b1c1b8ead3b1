"""Random fillers and samplers: PyTorch's distributions (checked by their moments), shapes,
dtypes, generator= and which calls raise (compared with torch); NumPy's streams, so the
values themselves differ from PyTorch's."""

import warnings

import numpy as np
import pytest

import leafgrad as lg

N = 40_000


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
            return "ok"
        except Exception as exc:  # the type is what is compared
            return type(exc).__name__


def _gen(seed=0):
    return lg.Generator().manual_seed(seed)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.zeros(5).bernoulli_(1.5), lambda m: m.zeros(5).bernoulli_(float("nan")),
        lambda m: m.zeros(5).bernoulli_(-0.1), lambda m: m.zeros(3).bernoulli_(m.full((3,), 1.5)),
        lambda m: m.zeros(3, 2).bernoulli_(m.full((4,), 0.5)),
        lambda m: m.zeros(3).bernoulli_(m.ones(3, dtype=m.int64)),
        lambda m: m.zeros(3, dtype=m.int64).bernoulli_(0.5),
        lambda m: m.zeros(3, dtype=m.bool).bernoulli_(m.full((3,), 0.5)),
        lambda m: m.zeros(3, requires_grad=True).bernoulli_(0.5),
        lambda m: m.bernoulli(m.full((3,), 1.5)), lambda m: m.bernoulli(m.ones(3, dtype=m.int64)),
        lambda m: m.bernoulli(m.tensor([True])), lambda m: m.bernoulli(m.full((3,), 0.5), 1.5),
        lambda m: m.bernoulli(m.ones(3, dtype=m.int64), 0.5),
        lambda m: m.bernoulli(m.full((3,), 0.5), out=m.empty(3, dtype=m.int64)),
        lambda m: m.bernoulli(m.full((3,), 0.5, requires_grad=True), out=m.empty(3)),
        lambda m: m.zeros(5).random_(), lambda m: m.zeros(5).random_(10),
        lambda m: m.zeros(5).random_(3, 10), lambda m: m.zeros(5).random_(10, 3),
        lambda m: m.zeros(5).random_(3, 3), lambda m: m.zeros(5).random_(-3),
        lambda m: m.zeros(5).random_(0), lambda m: m.zeros(5, dtype=m.int8).random_(0, 1000),
        lambda m: m.zeros(5, dtype=m.uint8).random_(-5, 2),
        lambda m: m.zeros(5, dtype=m.bool).random_(0, 3),
        lambda m: m.zeros(5, dtype=m.float16).random_(0, 2**30),
        lambda m: m.zeros(5).random_(0, 2**30), lambda m: m.zeros(5).random_(**{"from": 2}),
        lambda m: m.zeros(5).random_(to=4), lambda m: m.zeros(5, dtype=m.int16).random_(3, None),
        lambda m: m.zeros(5).random_(None), lambda m: m.zeros(5, requires_grad=True).random_(),
        lambda m: m.zeros(5).cauchy_(1.0, -2.0), lambda m: m.zeros(5).cauchy_(1.0, 0.0),
        lambda m: m.zeros(5, dtype=m.int64).cauchy_(), lambda m: m.zeros(5).exponential_(-3.0),
        lambda m: m.zeros(5).exponential_(0.0), lambda m: m.zeros(5, dtype=m.int64).exponential_(),
        lambda m: m.zeros(5).geometric_(1.3), lambda m: m.zeros(5).geometric_(0.0),
        lambda m: m.zeros(5).geometric_(1.0), lambda m: m.zeros(5, dtype=m.bool).geometric_(0.3),
        lambda m: m.zeros(5, dtype=m.int64).geometric_(0.3),
        lambda m: m.zeros(5).log_normal_(1, -0.5), lambda m: m.zeros(5).log_normal_(1, 0.0),
        lambda m: m.zeros(5, dtype=m.int64).log_normal_(),
        lambda m: m.multinomial(m.ones(2, 2, 2), 1), lambda m: m.multinomial(m.tensor(1.0), 1),
        lambda m: m.multinomial(m.tensor([-1.0, 2.0]), 1),
        lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
        lambda m: m.multinomial(m.tensor([float("inf"), 0.0]), 1),
        lambda m: m.multinomial(m.tensor([float("nan"), 1.0]), 1),
        lambda m: m.multinomial(m.tensor([1, 2]), 1), lambda m: m.multinomial(m.ones(4), 0),
        lambda m: m.multinomial(m.ones(4), 5), lambda m: m.multinomial(m.ones(4), 5, True),
        lambda m: m.multinomial(m.ones(0), 1),
        lambda m: m.multinomial(m.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
        lambda m: m.multinomial(m.ones(3), 1, out=m.empty(1, dtype=m.int32)),
        lambda m: m.ones(3).multinomial(2),
        lambda m: m.binomial(m.full((4,), 10), m.full((4,), 0.5)),
        lambda m: m.binomial(m.full((4,), 10.0), m.full((4,), 0.5, dtype=m.float64)),
        lambda m: m.binomial(m.full((4,), 10.0).half(), m.full((4,), 0.5).half()),
        lambda m: m.poisson(m.full((4,), -3.0)), lambda m: m.poisson(m.full((4,), float("nan"))),
        lambda m: m.poisson(m.full((4,), 3)),
    ],
)  # fmt: skip
def test_which_calls_raise_matches_pytorch(torch, call):
    assert _outcome(lambda: call(lg)) == _outcome(lambda: call(torch))


def test_error_messages_carry_pytorchs_key_phrases():
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\]"):
        lg.zeros(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        lg.zeros(3).random_(5, 2)
    with pytest.raises(RuntimeError, match=r"cauchy_ expects sigma > 0\.0"):
        lg.zeros(3).cauchy_(0, -1)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\)"):
        lg.zeros(3).geometric_(2)
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0 samples"):
        lg.multinomial(lg.ones(3), 0)
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        lg.poisson(lg.tensor([-1.0]))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint8", "int64"])
def test_random_fills_the_dtypes_default_range(torch, dtype):
    ours = getattr(lg, dtype)
    x = lg.zeros(N, dtype=ours).random_(generator=_gen())
    assert x.dtype == ours
    values = x.numpy().astype(np.float64)
    top = {"float16": 2**11, "float32": 2**24, "float64": 2**53}.get(dtype)
    top = np.iinfo(dtype).max if top is None else top
    assert values.min() >= 0 and values.max() <= top
    assert values.max() > 0.9 * top  # the whole range is reached
    assert abs(values.mean() / top - 0.5) < 0.02


def test_random_with_bounds_is_uniform_on_from_to():
    x = lg.zeros(N, dtype=lg.int64).random_(-3, 4, generator=_gen())
    counts = np.bincount(x.numpy() + 3, minlength=7)
    assert counts.size == 7 and np.all(np.abs(counts / N - 1 / 7) < 0.01)
    assert set(lg.zeros(N, dtype=lg.bool).random_().tolist()) == {False, True}
    y = lg.zeros(100).random_(5)
    assert y.min().item() >= 0 and y.max().item() <= 4


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_continuous_fillers_have_their_distributions_moments(dtype):
    dt = getattr(lg, dtype)
    e = lg.zeros(N, dtype=dt).exponential_(4.0, generator=_gen(1)).numpy()
    assert e.dtype == np.dtype(dtype) and e.min() >= 0 and abs(e.mean() - 0.25) < 0.01
    ln = np.log(lg.zeros(N, dtype=dt).log_normal_(1.0, 0.5, generator=_gen(2)).numpy())
    assert abs(ln.mean() - 1.0) < 0.02 and abs(ln.std() - 0.5) < 0.02
    c = lg.zeros(N, dtype=dt).cauchy_(2.0, 3.0, generator=_gen(3)).numpy()
    quartiles = np.percentile(c, [25, 50, 75])
    np.testing.assert_allclose(quartiles, [-1.0, 2.0, 5.0], atol=0.2)


def test_geometric_counts_trials_to_the_first_success():
    g = lg.zeros(N, dtype=lg.int64).geometric_(0.25, generator=_gen()).numpy()
    assert g.min() >= 1 and abs(g.mean() - 4.0) < 0.1


def test_bernoulli_draws_ones_with_the_given_probabilities():
    p = lg.tensor(np.linspace(0, 1, 5))
    x = lg.bernoulli(p.expand(N, 5).contiguous(), generator=_gen())
    assert x.dtype == lg.float64 and x.shape == (N, 5)
    np.testing.assert_allclose(x.numpy().mean(0), np.linspace(0, 1, 5), atol=0.01)
    y = lg.zeros(N, 2, dtype=lg.int64).bernoulli_(lg.tensor([0.2, 0.9]), generator=_gen())
    assert y.dtype == lg.int64
    np.testing.assert_allclose(y.numpy().mean(0), [0.2, 0.9], atol=0.01)
    z = lg.ones(N, dtype=lg.int32).bernoulli(0.3)
    assert z.dtype == lg.int32 and abs(z.numpy().mean() - 0.3) < 0.01
    out = lg.empty(3, dtype=lg.int64)
    assert lg.bernoulli(lg.full((4,), 0.5), out=out) is out and out.shape == (4,)


def test_a_sample_gives_a_zero_gradient_to_what_it_replaced(torch):
    for m in (lg, torch):
        leaf = m.ones(3, requires_grad=True)
        y = leaf * 2
        for fill in ("exponential_", "random_", "bernoulli_", "log_normal_"):
            getattr(y, fill)()
        assert y.requires_grad
        (g,) = m.autograd.grad(y.sum(), leaf)
        assert g.tolist() == [0.0, 0.0, 0.0]
        p = m.full((3,), 0.5, requires_grad=True)
        for sample in (m.bernoulli(p), m.poisson(p)):
            assert sample.requires_grad
            assert m.autograd.grad(sample.sum(), p)[0].tolist() == [0.0, 0.0, 0.0]


def test_fills_bump_the_version_and_keep_the_tensor():
    x = lg.zeros(4)
    assert x.exponential_() is x and x._version == 1
    view = x[1:3]
    view.random_(1, 2)
    assert x.tolist()[1:3] == [1.0, 1.0] and x._version == 2


def test_multinomial_without_replacement_draws_each_category_once():
    w = lg.tensor([[0.1, 0.0, 0.6, 0.3]] * 2000)
    picks = lg.multinomial(w, 4, generator=_gen()).numpy()
    assert picks.dtype == np.int64 and picks.shape == (2000, 4)
    assert all(sorted(row) == [0, 1, 2, 3] for row in picks)
    assert np.all(picks[:, 3] == 1)  # the zero-weight category only when nothing else is left
    first = np.bincount(picks[:, 0], minlength=4) / 2000
    np.testing.assert_allclose(first, [0.1, 0.0, 0.6, 0.3], atol=0.03)


def test_multinomial_with_replacement_follows_the_weights():
    picks = lg.tensor([1.0, 0.0, 3.0]).multinomial(N, replacement=True, generator=_gen())
    assert picks.shape == (N,) and picks.dtype == lg.int64
    np.testing.assert_allclose(np.bincount(picks.numpy(), minlength=3) / N, [0.25, 0, 0.75],
                               atol=0.01)  # fmt: skip


def test_binomial_and_poisson_have_their_means(torch):
    count = lg.full((N,), 10.0, dtype=lg.float64)
    b = lg.binomial(count, lg.tensor(0.3, dtype=lg.float64), generator=_gen())
    assert b.dtype == lg.float64 and b.shape == (N,)
    assert b.numpy().min() >= 0 and b.numpy().max() <= 10 and abs(b.numpy().mean() - 3) < 0.05
    assert lg.binomial(lg.tensor([-4.0, 5.0]), lg.tensor([0.5, 1.0])).tolist() == [0.0, 5.0]
    p = lg.poisson(lg.full((N,), 3.0), generator=_gen())
    assert p.dtype == lg.float32 and abs(p.numpy().mean() - 3) < 0.05
    assert lg.poisson(lg.zeros(3)).tolist() == torch.poisson(torch.zeros(3)).tolist()


def test_a_generator_seed_repeats_the_draw():
    draws = [
        lambda g: lg.zeros(6).exponential_(generator=g),
        lambda g: lg.zeros(6).random_(generator=g),
        lambda g: lg.bernoulli(lg.full((6,), 0.5), generator=g),
        lambda g: lg.multinomial(lg.ones(6), 3, generator=g),
        lambda g: lg.poisson(lg.full((6,), 2.0), generator=g),
    ]
    for draw in draws:
        assert draw(_gen(7)).tolist() == draw(_gen(7)).tolist()
    lg.manual_seed(3)
    a = lg.zeros(8).cauchy_()
    lg.manual_seed(3)
    assert lg.zeros(8).cauchy_().tolist() == a.tolist()


@pytest.mark.parametrize("fill", ["uniform_", "normal_"])
def test_uniform_and_normal_are_writes_as_pytorch_s(torch, fill):
    for m in (lg, torch):
        leaf = m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError):
            getattr(leaf, fill)()  # a leaf that requires grad refuses in-place writes
        b = leaf * 2
        getattr(b, fill)()
        assert b.requires_grad and b.grad_fn is not None
        b.sum().backward()
        assert leaf.grad.tolist() == [0.0, 0.0, 0.0]  # the replaced values get no gradient
