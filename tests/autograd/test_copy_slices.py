"""Writes through views record PyTorch's CopySlices: the in-place op's node folded in (its
edges after the first beside the base's), with PyTorch's gradients to the second order and
the same graph, against PyTorch."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops._copy_slices import CopySlices
from tests._graphs import names_to_leaves

torch = pytest.importorskip("torch")


def _add(m, base, x):
    base[1:3].add_(x * 2)


def _copy(m, base, x):
    base[1:3].copy_(x)


def _setitem(m, base, x):
    base[1:3] = x


def _copy_within(m, base, x):
    base[1:3] = x
    base[0:1].copy_(base[2:3])


def _mul_twice(m, base, x):
    view = base[1:3]
    view.mul_(x)
    view.mul_(x)


def _on_a_graph(m, base, x):
    view = base.view(2, 2)[1]
    view.add_(1.0)
    view.mul_(x)


def _narrowed_add(m, base, x):
    base.narrow(0, 0, 2).addcmul_(x, x, value=0.5)


WRITES = [_add, _copy, _setitem, _copy_within, _mul_twice, _on_a_graph, _narrowed_add]


def _run(m, write, base_requires_grad):
    rng = np.random.default_rng(3)
    x = m.tensor(rng.standard_normal(2) + 2.0, requires_grad=True)
    leaf = m.tensor(rng.standard_normal(4), requires_grad=base_requires_grad)
    base = leaf * 1.0 if base_requires_grad else leaf.clone()
    write(m, base, x)
    inputs = [x] + ([leaf] if base_requires_grad else [])
    weights = m.tensor([1.0, -2.0, 3.0, 0.5])
    loss = (base * base * weights).sum()
    grads = m.autograd.grad(loss, inputs, create_graph=True)
    second = m.autograd.grad(sum(g.sum() for g in grads), inputs)
    return names_to_leaves(base.grad_fn), [g.detach().numpy() for g in grads + second], base


@pytest.mark.parametrize("base_requires_grad", [False, True])
@pytest.mark.parametrize("write", WRITES, ids=[w.__name__[1:] for w in WRITES])
def test_writes_through_views_record_pytorchs_copy_slices(write, base_requires_grad):
    graph, grads, base = _run(lg, write, base_requires_grad)
    want_graph, want_grads, _ = _run(torch, write, base_requires_grad)
    assert graph == want_graph
    assert type(base.grad_fn) is CopySlices
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_copy_slices_releases_the_op_it_holds():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    base = lg.zeros(4)
    base[1:3].mul_(x)
    loss = base.sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
