"""torch.func's linearize, functionalize, replace_all_batch_norm_modules_, debug_unwrap and
rearrange against PyTorch's: the same values, tangents, module states and shapes."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg
from leafgrad import func as lf
from tests._tolerance import assert_close

RNG = np.random.default_rng(7)


def _pair(m):
    def f(a, b):
        return m.sin(a) * b, (a * b).sum()

    return f


def test_linearize_value_and_jvp_match_pytorch():
    a, b, ta, tb = (RNG.standard_normal(3) for _ in range(4))
    out, jvp_fn = lf.linearize(_pair(lg), lg.tensor(a), lg.tensor(b))
    t_out, t_jvp_fn = torch.func.linearize(_pair(torch), torch.tensor(a), torch.tensor(b))
    for ours, theirs in zip(out, t_out):
        assert_close(ours.numpy(), theirs.numpy())
    for _ in range(2):  # the linearization is reusable
        ours = jvp_fn(lg.tensor(ta), lg.tensor(tb))
        theirs = t_jvp_fn(torch.tensor(ta), torch.tensor(tb))
        for o, t in zip(ours, theirs):
            assert_close(o.numpy(), t.detach().numpy())
        ta, tb = tb, ta


@pytest.mark.parametrize(
    "tangents",
    [
        lambda m: (m.ones(2, dtype=m.float64),),
        lambda m: (m.ones(3, dtype=m.float32),),
        lambda m: (),
    ],
    ids=["shape", "dtype", "structure"],
)
def test_linearize_jvp_fn_refuses_mismatched_tangents_as_pytorch(tangents):
    for m, f in ((lg, lf), (torch, torch.func)):
        _, jvp_fn = f.linearize(m.sin, m.ones(3, dtype=m.float64))
        with pytest.raises(RuntimeError):
            jvp_fn(*tangents(m))


def test_linearize_output_keeps_the_graph_to_primals():
    x = lg.tensor([0.5, 1.0], dtype=lg.float64, requires_grad=True)
    out, _ = lf.linearize(lg.exp, x)
    out.sum().backward()
    assert_close(x.grad.numpy(), np.exp([0.5, 1.0]))


def _mutating(m):
    def g(x):
        y = x.clone()
        y.add_(1)
        y[0] = 5.0
        x.mul_(2)  # a mutation of the input: PyTorch's functionalize writes it back
        return y * x

    return g


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_gives_pytorchs_results_and_input_mutations(remove):
    data = RNG.standard_normal(4)
    ours_x, theirs_x = lg.tensor(data), torch.tensor(data)
    ours = lf.functionalize(_mutating(lg), remove=remove)(ours_x)
    theirs = torch.func.functionalize(_mutating(torch), remove=remove)(theirs_x)
    assert_close(ours.numpy(), theirs.numpy())
    assert_close(ours_x.numpy(), theirs_x.numpy())


def test_functionalize_rejects_unknown_remove():
    for f in (lf, torch.func):
        with pytest.raises(RuntimeError, match="invalid argument for remove=views"):
            f.functionalize(abs, remove="views")


def _norms(m):
    return m.nn.Sequential(
        m.nn.BatchNorm1d(3, momentum=0.3),
        m.nn.Linear(3, 3),
        m.nn.InstanceNorm1d(3, track_running_stats=True),
        m.nn.Sequential(m.nn.BatchNorm2d(2)),
    )


def test_replace_all_batch_norm_modules_matches_pytorch():
    ours, theirs = _norms(lg), _norms(torch)
    assert lf.replace_all_batch_norm_modules_(ours) is ours
    torch.func.replace_all_batch_norm_modules_(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for i in (0, 2):
        assert ours[i].track_running_stats == theirs[i].track_running_stats
        assert (ours[i].running_mean is None) == (theirs[i].running_mean is None)
    assert ours[3][0].running_var is None and ours[0].num_batches_tracked is None
    ours.eval()
    x = lg.tensor(RNG.standard_normal((5, 3)))
    assert_close(ours[0](x).mean(0).detach().numpy(), np.zeros(3), "iterative")  # batch statistics


def test_debug_unwrap_returns_the_batched_tensor_underneath():
    seen = {}

    def inner(t):
        seen["all"] = tuple(lf.debug_unwrap(t).shape)
        seen["one"] = tuple(lf.debug_unwrap(t, recurse=False).shape)
        return t

    lf.vmap(lf.vmap(inner))(lg.ones(2, 4, 3))
    theirs = {}

    def t_inner(t):
        theirs["all"] = tuple(torch.func.debug_unwrap(t).shape)
        theirs["one"] = tuple(torch.func.debug_unwrap(t, recurse=False).shape)
        return t

    torch.func.vmap(torch.func.vmap(t_inner))(torch.ones(2, 4, 3))
    assert seen == theirs
    x = lg.ones(2)
    assert lf.debug_unwrap(x) is x


PATTERNS = [
    ("a b c -> c a b", {}),
    ("a b c -> (a b) c", {}),
    ("a b (c d) -> a b c d", {"d": 2}),
    ("(a x) b c -> x a b c", {"x": 2}),
    ("a ... -> ... a", {}),
    ("a b ... -> b a ...", {}),
    ("a ... -> (a ...)", {}),
    ("... c -> c (...)", {}),
    ("a b c -> a 1 b c", {}),
    ("a b c -> a b c ()", {}),
    ("a b c -> (c a) b", {}),
]


@pytest.mark.parametrize(("pattern", "lengths"), PATTERNS, ids=[p for p, _ in PATTERNS])
def test_rearrange_matches_pytorch(pattern, lengths):
    data = np.arange(24.0).reshape(2, 3, 4)
    ours = lf.rearrange(lg.tensor(data), pattern, **lengths)
    theirs = torch.func.rearrange(torch.tensor(data), pattern, **lengths)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_rearrange_stacks_a_list_squeezes_units_and_is_differentiable():
    data = RNG.standard_normal((1, 3, 4))
    pieces = [lg.tensor(data), lg.tensor(data + 1)]
    t_pieces = [torch.tensor(data), torch.tensor(data + 1)]
    np.testing.assert_array_equal(
        lf.rearrange(pieces, "n u b c -> (u b) n c").numpy(),
        torch.func.rearrange(t_pieces, "n u b c -> (u b) n c").numpy(),
    )
    np.testing.assert_array_equal(lf.rearrange(pieces[0], "1 b c -> b c").numpy(), data[0])
    x = lg.tensor(data, requires_grad=True)
    (lf.rearrange(x, "u b c -> c (u b)") * lg.arange(3.0, dtype=lg.float64)).sum().backward()
    np.testing.assert_array_equal(
        x.grad.numpy(), np.broadcast_to(np.arange(3.0)[:, None], (1, 3, 4))
    )


@pytest.mark.parametrize(
    ("pattern", "lengths", "error"),
    [
        ("a b -> a b", {}, ValueError),
        ("a b c -> a b", {}, ValueError),
        ("a b c", {}, ValueError),
        ("a b c -> a b c 2", {}, ValueError),
        ("a a c -> a c", {}, ValueError),
        ("a b c -> a (b c", {}, ValueError),
        ("a b c -> a b c", {"d": 2}, ValueError),
        ("(a ...) c -> a c", {}, ValueError),
    ],
)
def test_rearrange_bad_patterns_raise_as_pytorch(pattern, lengths, error):
    with pytest.raises(error):
        torch.func.rearrange(torch.ones(2, 3, 4), pattern, **lengths)
    with pytest.raises(error):
        lf.rearrange(lg.ones(2, 3, 4), pattern, **lengths)


@pytest.mark.parametrize(
    ("pattern", "lengths"), [("a b (c d) -> a b c d", {}), ("a b (c d) -> a b c d", {"d": 3})]
)
def test_rearrange_unbindable_sizes_raise_a_dimension_bind_error(pattern, lengths):
    with pytest.raises(Exception, match="dimension") as theirs:
        torch.func.rearrange(torch.ones(2, 3, 4), pattern, **lengths)
    with pytest.raises(Exception, match="dimension") as ours:
        lf.rearrange(lg.ones(2, 3, 4), pattern, **lengths)
    assert type(ours.value).__name__ == type(theirs.value).__name__ == "DimensionBindError"
