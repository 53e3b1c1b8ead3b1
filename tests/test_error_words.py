"""The errors users and tests match by their words: leafgrad raises PyTorch's exception type
and its message contains PyTorch's, word for word (ours adds the op and what to do after
it). Each case runs on both libraries."""

import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def _backward_twice(m):
    x = m.rand(3, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    y.backward()


def _modified_in_place(m):
    x = m.rand(3, requires_grad=True)
    y = x.exp()
    z = y.sum()
    y.add_(1)
    z.backward()


CASES = {
    # autograd
    "backward twice": _backward_twice,
    "modified in place": _modified_in_place,
    "implicit grad of a vector": lambda m: (m.rand(3, requires_grad=True) * 2).backward(),
    "no grad_fn": lambda m: m.rand(3).sum().backward(),
    "no grad_fn, second output": lambda m: m.autograd.backward(
        [m.rand(2, requires_grad=True).sum(), m.rand(2).sum()]
    ),
    "grad of an input not requiring grad": lambda m: m.autograd.grad(
        m.rand(2, requires_grad=True).sum(), m.tensor([1.0])
    ),
    "grad with no inputs": lambda m: m.autograd.grad(m.rand(2, requires_grad=True).sum(), []),
    "leaf in place": lambda m: m.rand(2, requires_grad=True).mul_(2),
    "view of a leaf in place": lambda m: m.rand(2, requires_grad=True)[0].mul_(2),
    "requires_grad of a non-leaf": lambda m: setattr(
        m.rand(2, requires_grad=True) * 2, "requires_grad", False
    ),
    "integer tensor requiring grad": lambda m: m.tensor([1, 2], requires_grad=True),
    "integer requires_grad_": lambda m: m.tensor([1, 2]).requires_grad_(),
    "integer requires_grad =": lambda m: setattr(m.tensor([1, 2]), "requires_grad", True),
    "integer Parameter": lambda m: m.nn.Parameter(m.tensor([1, 2])),
    "grad of another shape": lambda m: setattr(m.rand(3, requires_grad=True), "grad", m.rand(2)),
    "grad of another dtype": lambda m: setattr(
        m.rand(3, requires_grad=True), "grad", m.rand(3).double()
    ),
    "retain_grad without grad": lambda m: m.rand(3).retain_grad(),
    "hook without grad": lambda m: m.rand(3).register_hook(lambda g: g),
    # conversions
    "item of two": lambda m: m.rand(2).item(),
    "float of two": lambda m: float(m.rand(2)),
    "bool of two": lambda m: bool(m.rand(2)),
    "bool of none": lambda m: bool(m.rand(0)),
    # shapes, dims, indices
    "broadcast": lambda m: m.rand(3) + m.rand(4),
    "broadcast, second dim": lambda m: m.rand(3) + m.rand(2, 4),
    "broadcast in where": lambda m: m.where(m.rand(3) > 0.5, m.rand(4), m.rand(3)),
    "in place cannot grow": lambda m: m.rand(3).add_(m.rand(2, 3)),
    "view across strides": lambda m: m.rand(2, 3).t().view(6),
    "view to a wrong size": lambda m: m.rand(2, 3).view(4),
    "reshape to a wrong size": lambda m: m.rand(2, 3).reshape(-1, 4),
    "two inferred sizes": lambda m: m.rand(2, 3).view(-1, -1),
    "dim out of range": lambda m: m.rand(3).sum(1),
    "negative dim out of range": lambda m: m.rand(3, 2).transpose(0, -3),
    "index out of bounds": lambda m: m.rand(3)[5],
    "index out of bounds, second dim": lambda m: m.rand(3, 2)[:, 5],
    "tensor index out of bounds": lambda m: m.rand(3)[m.tensor([5])],
    "float index": lambda m: m.rand(3)[m.tensor([0.0])],
    "index_select out of range": lambda m: m.rand(3).index_select(0, m.tensor([5])),
    "cat sizes": lambda m: m.cat([m.rand(2, 2), m.rand(3, 3)], dim=1),
    "cat dims": lambda m: m.cat([m.rand(2, 2), m.rand(3)]),
    "cat of 0-d": lambda m: m.cat([m.tensor(1.0), m.tensor(2.0)]),
    "stack sizes": lambda m: m.stack([m.rand(2), m.rand(3)]),
    "expand": lambda m: m.rand(2, 3).expand(2, 4),
    "expand to fewer dims": lambda m: m.rand(3, 1).double().expand(2),
    "permute of too few dims": lambda m: m.rand(3, 2).permute(0),
    "repeat of too few dims": lambda m: m.rand(3, 2).repeat(2),
    "gather dims": lambda m: m.rand(3, 2).gather(1, m.tensor([0, 1])),
    "scatter dims": lambda m: m.rand(3, 2).scatter(1, m.tensor([0]), 1.0),
    "split of 0": lambda m: m.rand(4).split(0),
    "chunk of 0": lambda m: m.rand(4).chunk(0),
    "narrow too far": lambda m: m.rand(4).narrow(0, 3, 3),
    "flip a dim twice": lambda m: m.rand(4, 2).flip(0, 0),
    "unbind a 0-d tensor": lambda m: m.tensor(1.0).unbind(),
    "topk too many": lambda m: m.rand(4).topk(5),
    "max of nothing": lambda m: m.rand(0).max(),
    "negative size": lambda m: m.randn(2, -1),
    "float size": lambda m: m.zeros(2.5),
    "float size, second": lambda m: m.zeros(2, 2.5),
    # products
    "mm shapes": lambda m: m.rand(2, 3) @ m.rand(4, 5),
    "Linear shapes": lambda m: m.nn.Linear(2, 5)(m.rand(4, 6, 3)),
    "Linear of a 0-d input": lambda m: m.nn.Linear(2, 2)(m.tensor(1.0)),
    "mv shapes": lambda m: m.mv(m.rand(2, 3), m.rand(4)),
    "dot shapes": lambda m: m.dot(m.rand(3), m.rand(4)),
    "bmm shapes": lambda m: m.bmm(m.rand(2, 2, 3), m.rand(2, 4, 5)),
    "Linear dtypes": lambda m: m.nn.Linear(2, 2)(m.rand(3, 2).double()),
    "mm dtypes": lambda m: m.rand(2, 2) @ m.rand(2, 2).double(),
    # the rest
    "where condition": lambda m: m.where(m.rand(3), m.rand(3), m.rand(3)),
    "masked_fill mask": lambda m: m.rand(3).masked_fill(m.tensor([1, 0, 1]), 0.0),
    "clamp of nothing": lambda m: m.rand(3).clamp(),
    "pow of ints": lambda m: m.tensor([2]) ** -1,
    "div rounding": lambda m: m.tensor([3]).div(2, rounding_mode="bad"),
    "randint range": lambda m: m.randint(5, 3, (2,)),
    "normal std": lambda m: m.normal(0.0, -1.0, (2,)),
    "normal_ std": lambda m: m.zeros(2).normal_(0, -1),
    "eye of -1": lambda m: m.eye(-1),
    "tensor of None": lambda m: m.tensor(None),
    "det of a non-square": lambda m: m.linalg.det(m.rand(2, 3)),
    "matrix_norm of a vector": lambda m: m.linalg.matrix_norm(m.rand(3)),
    "cross_entropy target dtype": lambda m: m.nn.functional.cross_entropy(
        m.rand(3, 4), m.tensor([0.5, 1.0, 2.0])
    ),
    "cross_entropy batch": lambda m: m.nn.functional.cross_entropy(m.rand(3, 4), m.tensor([0, 1])),
    "mse_loss shapes": lambda m: m.nn.functional.mse_loss(m.rand(3), m.rand(4)),
    "binary_cross_entropy shapes": lambda m: m.nn.functional.binary_cross_entropy(
        m.rand(3), m.rand(4)
    ),
    "binary_cross_entropy_with_logits shapes": lambda m: (
        m.nn.functional.binary_cross_entropy_with_logits(m.rand(3), m.rand(4))
    ),
    "layer_norm shape": lambda m: m.nn.LayerNorm(3)(m.rand(4, 5)),
    "embedding of float indices": lambda m: m.nn.Embedding(3, 2)(m.tensor([1.0])),
    "a plain tensor as a parameter": lambda m: m.nn.Module().register_parameter(
        "a", m.rand(2).double()
    ),
    "a plain tensor over a parameter": lambda m: setattr(m.nn.Linear(2, 2), "weight", m.rand(2, 2)),
}


def _words(message: str) -> str:
    """PyTorch's message without the C++ source line it appends."""
    return message.split(" (Triggered internally at")[0]


@pytest.mark.parametrize("case", CASES)
def test_message_contains_pytorchs_words(case):
    make = CASES[case]
    with pytest.raises(Exception) as theirs:
        make(torch)
    with pytest.raises(theirs.type) as ours:
        make(lg)
    assert _words(str(theirs.value)) in str(ours.value)


def test_the_dimension_torch_names_is_the_broadcast_results():
    # (3,) against (2, 4): PyTorch reports dim 1 of the (2, 4)-shaped result, not dim 0.
    with pytest.raises(RuntimeError, match="at non-singleton dimension 1"):
        lg.rand(3) + lg.rand(2, 4)
