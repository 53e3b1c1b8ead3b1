"""What every view op marks on its result, as PyTorch does: the base (the root of views of
views), the version counter shared with every alias, requires_grad and grad_fn, in-place
writes through a view (or its base) regenerating the other views' histories, and the views
PyTorch refuses to let change in place (made in no_grad / inference mode, outputs of ops
returning several views). Also the basic-slice indexing and expand forms PINN code uses.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import numpy as np
import pytest

from ._helpers import assert_values

# Each view op of one tensor, as code calls it; each makes a view of a (3, 4) tensor.
VIEWS = {
    "slice": lambda x: x[:, 0:1],
    "slice-dim0": lambda x: x[1:3],
    "select": lambda x: x[:, 1],
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "expand": lambda x: x[0:1].expand(5, 4),
    "unsqueeze": lambda x: x[None],
    "alias": lambda x: x[...],
    "narrow": lambda x: x.narrow(1, 1, 2),
    "view": lambda x: x.view(4, 3),
    "diagonal": lambda x: x.diagonal(),
}
NAMES = list(VIEWS)


def _source(torch):
    return torch.arange(12.0).reshape(3, 4).clone()  # (a reshape is itself a view)


@pytest.mark.parametrize("name", NAMES)
def test_a_view_and_a_view_of_it_share_the_base_and_its_version_counter(torch, name):
    base = _source(torch)
    v = VIEWS[name](base)
    vv = v[0:1] if v.dim() else v[...]
    assert v._base is base and vv._base is base
    assert v._version == vv._version == base._version == 0
    base.add_(1.0)
    assert v._version == vv._version == base._version == 1
    if name != "expand":  # (an expanded view is written through only by its base)
        vv.mul_(2.0)
        assert v._version == vv._version == base._version == 2


@pytest.mark.parametrize("name", NAMES)
def test_a_view_of_a_leaf_that_requires_grad_records_and_reaches_the_leaf(torch, name):
    leaf = _source(torch).requires_grad_()
    v = VIEWS[name](leaf)
    assert v.requires_grad and not v.is_leaf and v._base is leaf
    (v * v).sum().backward()
    twice = (VIEWS[name](2 * leaf.detach()) * 1.0).sum()  # the gradient, via the same view
    assert leaf.grad is not None and float(leaf.grad.sum()) == pytest.approx(float(twice))


@pytest.mark.parametrize("name", NAMES)
def test_an_inplace_write_to_the_base_regenerates_the_history_of_a_view_of_a_view(torch, name):
    leaf = _source(torch).requires_grad_()
    base = leaf * 1.0
    v = VIEWS[name](base)
    vv = v[...]
    base.mul_(3.0)
    assert vv.grad_fn.name() == "AsStridedBackward0"
    vv.sum().backward()
    expected = VIEWS[name](torch.ones(3, 4)) * 0 + 1  # ones in the view's shape
    reference = torch.zeros(3, 4, requires_grad=True)
    VIEWS[name](reference * 1.0).backward(expected)
    assert_values(leaf.grad, 3 * reference.grad.detach().numpy())


@pytest.mark.parametrize("name", [n for n in NAMES if n != "expand"])
def test_an_inplace_write_through_a_view_of_a_view_rebases_the_base(torch, name):
    leaf = _source(torch).requires_grad_()
    base = leaf * 1.0
    v = VIEWS[name](base)
    vv = v[...]
    vv.mul_(5.0)
    assert "CopySlices" in base.grad_fn.name()
    base.sum().backward()
    probe = torch.zeros(3, 4)
    VIEWS[name](probe).add_(1.0)  # marks the viewed elements
    assert_values(leaf.grad, np.where(probe.numpy() > 0, 5.0, 1.0))


@pytest.mark.parametrize("name", [n for n in NAMES if n != "expand"])
def test_a_view_made_in_no_grad_mode_refuses_an_inplace_write_with_grad_enabled(torch, name):
    leaf = _source(torch).requires_grad_()
    base = leaf * 1.0
    with torch.no_grad():
        v = VIEWS[name](base)
    assert v.requires_grad and v.grad_fn is None and v._base is base
    with pytest.raises(RuntimeError, match="no_grad mode"):
        v.mul_(2.0)


def test_a_view_of_a_leaf_made_in_no_grad_mode_requires_grad_without_a_history(torch):
    leaf = _source(torch).requires_grad_()
    with torch.no_grad():
        v = leaf.t()
        s = leaf[:, 0:1]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None and v._base is leaf
    assert s.requires_grad and s.is_leaf and s._base is leaf


def test_a_view_made_in_inference_mode_of_a_tensor_that_requires_grad_refuses_a_write(torch):
    with torch.inference_mode():
        v = _source(torch)[:, 0:1].t()
    assert v.is_inference()
    base = _source(torch).requires_grad_() * 1.0
    with torch.inference_mode():
        w = base[1:]
    assert not w.is_inference() and w._base is base and w.requires_grad and w.grad_fn is None
    with pytest.raises(RuntimeError, match="inference mode"):
        w.add_(1.0)


def test_outputs_of_unbind_and_split_refuse_an_inplace_write(torch):
    base = _source(torch).requires_grad_() * 1.0
    for pieces in (base.unbind(0), base.split(2, 1)):
        assert all(p._base is base for p in pieces)
        assert pieces[0]._version == base._version
        with pytest.raises(RuntimeError, match="multiple views"):
            pieces[0].mul_(2.0)


def test_the_transpose_of_a_vector_is_a_view_that_follows_its_base(torch):
    leaf = torch.arange(3.0, requires_grad=True)
    base = leaf * 1.0
    v = base.t()
    assert v._base is base and v.grad_fn.name() == "TBackward0"
    base.mul_(2.0)
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    assert_values(leaf.grad, [2.0, 2.0, 2.0])


# ----- basic slicing: the view each key makes -----

KEYS = {
    "col": (slice(None), slice(0, 1)),
    "col-int": (slice(None), 1),
    "rows": (slice(1, 3),),
    "full-in-tuple": (slice(None), slice(None)),
    "from-zero-in-tuple": (slice(0, None), slice(0, 4)),
    "past-the-end": (slice(1, 100),),
    "negative": (slice(-2, None), slice(None, -1)),
    "negative-start-whole": (slice(-3, None), slice(None)),
    "step": (slice(None, None, 2), slice(1, None, 2)),
    "step-one": (slice(None), slice(None, None, 1)),
    "empty": (slice(2, 1),),
    "numpy-ints": (slice(np.int64(1), np.int64(3)), np.int64(0)),
    "none-and-ellipsis": (None, Ellipsis, slice(0, 2)),
    "int-then-slice": (0, slice(1, 3)),
    "last": (slice(None), -1),
}


@pytest.mark.parametrize("name", list(KEYS))
def test_basic_slicing_makes_pytorchs_view(torch, pytorch, name):
    key = KEYS[name]
    leaf = _source(torch).requires_grad_()
    base = leaf * 1.0
    out = base[key]
    reference = _source(pytorch).requires_grad_()
    expected = (reference * 1.0)[key]
    assert tuple(out.shape) == tuple(expected.shape)
    assert out.grad_fn.name() == expected.grad_fn.name()
    assert out._base is base or out.numel() == 0  # (leafgrad: an empty result is no view)
    assert out.tolist() == expected.tolist()  # a view: the same values exactly
    (out * out).sum().backward()
    (expected * expected).sum().backward()
    assert_values(leaf.grad, reference.grad.numpy())


def test_a_key_that_keeps_the_whole_tensor_is_an_alias(torch):
    x = _source(torch).requires_grad_() * 1.0
    assert x[:, :].grad_fn.name() == "AliasBackward0"
    assert x[0:].grad_fn.name() == "SliceBackward0"  # outside a tuple it is not skipped
    assert x[-3:, :].grad_fn.name() == "SliceBackward0"


@pytest.mark.parametrize("key", [slice(None, None, 0), slice(None, None, -1)], ids=["0", "-1"])
def test_a_slice_step_that_is_not_positive_is_a_value_error(torch, key):
    x = _source(torch)
    with pytest.raises(ValueError):
        x[key]
    with pytest.raises(ValueError):
        x[:, key]


def test_slicing_a_0_dim_tensor_is_an_index_error(torch):
    with pytest.raises(IndexError):
        torch.tensor(1.0)[0:1]


# ----- expand -----


@pytest.mark.parametrize(
    "sizes, shape",
    [((5, 4), (5, 4)), ((-1, 4), (1, 4)), ((2, -1, -1), (2, 1, 4)), ((3, 5, 4), (3, 5, 4)),
     ([5, 4], (5, 4)), (((5, -1),), (5, 4))],
    ids=["grow", "keep", "lead", "lead-grow", "list", "tuple"],
)  # fmt: skip
def test_expand_takes_pytorchs_size_forms(torch, sizes, shape):
    x = torch.arange(4.0).reshape(1, 4).clone()
    out = x.expand(*sizes) if isinstance(sizes, tuple) else x.expand(sizes)
    assert tuple(out.shape) == shape and out._base is x
    assert tuple(x.expand(size=shape).shape) == shape


@pytest.mark.parametrize(
    "sizes", [(4,), (-1, 5, 4), (2, 3), (5, 5)], ids=["too-few", "lead-minus-one", "bad", "bad2"]
)
def test_expand_refuses_sizes_it_cannot_broadcast_to(torch, sizes):
    with pytest.raises(RuntimeError):
        torch.arange(4.0).reshape(1, 4).clone().expand(*sizes)


def test_an_expanded_view_refuses_an_inplace_write(torch):
    x = torch.arange(4.0).reshape(1, 4).clone()
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.expand(3, 4).add_(1.0)
