"""leafgrad.random (torch.random): the default generator's functions and fork_rng."""

import pytest

import leafgrad as lg


def test_the_module_names_the_default_generator_and_its_functions():
    assert lg.random.default_generator is lg.default_generator
    assert lg.random.manual_seed(5) is lg.default_generator
    assert lg.random.initial_seed() == 5
    state = lg.random.get_rng_state()
    first = lg.rand(3)
    lg.random.set_rng_state(state)
    assert lg.equal(lg.rand(3), first)


def test_fork_rng_restores_the_state_on_leaving_also_after_an_error():
    lg.manual_seed(0)
    with lg.random.fork_rng():
        inside = lg.rand(4)
    assert lg.equal(lg.rand(4), inside)  # the block's draws did not advance the generator
    lg.manual_seed(0)
    with pytest.raises(ZeroDivisionError), lg.random.fork_rng():
        lg.rand(4)
        raise ZeroDivisionError
    assert lg.equal(lg.rand(4), inside)
    lg.manual_seed(0)
    with lg.random.fork_rng(enabled=False):
        lg.rand(4)
    assert not lg.equal(lg.rand(4), inside)


def test_fork_rng_draws_as_torch_does():
    torch = pytest.importorskip("torch")
    for lib in (lg, torch):
        lib.manual_seed(1)
        with lib.random.fork_rng(devices=[]):
            lib.rand(2)
        assert lib.random.initial_seed() == 1


def test_generators_print_as_torch_s_c_class():
    torch = pytest.importorskip("torch")
    for ours, theirs in [
        (lg.Generator(), torch.Generator()),
        (lg.manual_seed(0), torch.manual_seed(0)),  # what a notebook echoes after seeding
        (lg.default_generator, torch.default_generator),
    ]:
        assert repr(ours) == f"<torch._C.Generator object at {id(ours):#x}>"
        assert repr(theirs) == f"<torch._C.Generator object at {id(theirs):#x}>"
        assert str(ours) == repr(ours)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.normal(m.tensor([0, 1]), m.tensor([1, 1])),
        lambda m: m.normal(m.tensor([0, 1]), 1.0),
        lambda m: m.normal(0, m.tensor([1, 2])),
        lambda m: m.normal(0.0, 1.0, size=(2,), dtype=m.int64),
    ],
)
def test_normal_of_integers_is_refused_as_in_pytorch(call):
    """PyTorch has no integer normal kernel (NotImplementedError); leafgrad returned ints."""
    for m in (lg, pytest.importorskip("torch")):
        with pytest.raises(NotImplementedError, match='normal_kernel_cpu" not implemented'):
            call(m)
