"""The engine's lean paths keep PyTorch's answers: tensor attribute stores that take CPython's
plain slot (no Python ``__delattr__``) while deletions PyTorch refuses still raise; the walk
that finds which nodes lead to an input (oldest first) and the one that only counts edges
for ``backward()``; a plain rule's op given several arrays; a guarded save next to a number
operand; user code in the middle of a run of plain nodes sees neither plain mode nor a quiet
NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from leafgrad._engine import grad_mode
from leafgrad._engine.graph import gradient_edge
from leafgrad._engine.plan import plan_backward
from leafgrad._tensor import Tensor
from leafgrad.ops.linalg import _mm, _t


def test_tensor_defines_no_python_attribute_hooks():
    # A Python __setattr__ or __delattr__ anywhere above Tensor makes every attribute store
    # on every tensor go through CPython's slow generic slot (several per op).
    for cls in Tensor.__mro__[:-1]:
        assert "__delattr__" not in cls.__dict__, cls
        assert "__setattr__" not in cls.__dict__, cls


@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("name", ["data", "requires_grad", "_grad_fn", "_backward_hooks"])
def test_attributes_pytorch_refuses_to_delete_still_refuse(torch, leaf, name):
    x = torch.randn(3, requires_grad=True)
    t = x if leaf else x * 2
    with pytest.raises(RuntimeError):
        delattr(t, name)
    assert t.requires_grad and (t.grad_fn is None) == leaf
    assert t.data.shape == (3,)


def test_a_deleted_grad_is_none_and_hooks_stay_readable(torch):
    x = torch.randn(3, requires_grad=True)
    assert not x._backward_hooks
    handle = x.register_hook(lambda g: g * 2)
    assert len(x._backward_hooks) == 1
    x.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    del x.grad
    assert x.grad is None
    handle.remove()
    assert len(x._backward_hooks) == 0


def _random_graph(rng, lib, n_inputs=4, n_ops=14):
    """Random ops over a pool of tensors: some branches never reach some inputs."""
    inputs = [lib.tensor(rng.uniform(0.5, 1.5, (3,)), requires_grad=True) for _ in range(n_inputs)]
    pool = list(inputs)
    for _ in range(n_ops):
        a, b = (pool[i] for i in rng.integers(0, len(pool), 2))
        kind = rng.integers(0, 4)
        pool.append(
            a * b if kind == 0 else a + b if kind == 1 else lib.tanh(a) if kind == 2 else a.exp()
        )
    out = sum(p.sum() for p in pool[-3:])
    return inputs, out


def _reference_leads(root, targets):
    """The nodes with a path to a target, by plain recursion on a small graph."""
    memo: dict = {}

    def leads(node):
        if node not in memo:
            memo[node] = False
            memo[node] = any(
                n is not None and (n in targets or leads(n)) for n, _ in node.next_functions
            )
        return memo[node]

    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return {n for n in seen if leads(n)}, seen


def _reference_deps(root):
    deps: dict = {}
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for n, _ in node.next_functions:
            if n is not None:
                deps[n] = deps.get(n, 0) + 1
                stack.append(n)
    return deps


@pytest.mark.parametrize("seed", range(12))
def test_the_walk_finds_exactly_the_nodes_that_lead_to_the_inputs(seed):
    rng = np.random.default_rng(seed)
    inputs, out = _random_graph(rng, leafgrad)
    chosen = [inputs[i] for i in sorted(set(rng.integers(0, len(inputs), 2)))]
    edges = [gradient_edge(t) for t in chosen]
    targets = {n for n, _ in edges}
    plan = plan_backward([out.grad_fn], capture=edges)
    leads, _ = _reference_leads(out.grad_fn, targets)
    assert plan.to_run == leads
    assert plan.to_feed == leads | targets
    # backward(): every edge counted, by the walk that only counts.
    assert plan_backward([out.grad_fn]).deps == _reference_deps(out.grad_fn)


@pytest.mark.parametrize("seed", range(6))
def test_grad_of_part_of_the_inputs_matches_pytorch(pytorch, seed):
    results = []
    for lib in (leafgrad, pytorch):
        inputs, out = _random_graph(np.random.default_rng(seed), lib)
        chosen = inputs[1:3]
        grads = lib.autograd.grad(out, chosen, allow_unused=True, materialize_grads=True)
        results.append([g.detach().numpy() for g in grads])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_a_root_also_reached_from_another_root_is_walked_once():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    a = x * 3
    b = a.exp()
    plan = plan_backward([b.grad_fn, a.grad_fn])
    assert plan.deps == {a.grad_fn: 1, gradient_edge(x)[0]: 1}
    leafgrad.autograd.backward([b.sum(), a.sum()])
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3 * x.detach().numpy()) + 3)


def test_a_plain_rules_op_takes_every_array_it_is_given():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    state = grad_mode._state
    state.plain = True
    try:
        product = _mm(a, _t(b))
        mixed = _mm(leafgrad.tensor(a), b.T)
    finally:
        state.plain = False
    assert type(product) is np.ndarray and type(mixed) is np.ndarray
    assert np.array_equal(product, a @ b.T) and np.array_equal(mixed, a @ b.T)
    with pytest.raises(TypeError):
        _mm(a, b.T)  # outside a plain rule an array is refused


def test_a_number_operand_leaves_the_other_unsaved_as_in_pytorch(torch):
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    y = x * 2.0
    z = x * x.detach()
    assert y.grad_fn._saved_self is None
    assert z.grad_fn._saved_self is None  # the other operand needs no gradient
    assert z.grad_fn._saved_other.tolist() == [1.0, -2.0]
    (g,) = torch.autograd.grad((y + z).sum(), x)
    assert g.tolist() == [3.0, 0.0]


# The engine turns NumPy quiet and plain mode on once for a run of plain nodes: user code in
# the middle of such a run (hooks, custom Functions, accumulation hooks, saved tensors hooks)
# must see neither, and both are off again after a backward, also one that raised.
def _mode_now() -> tuple:
    return grad_mode._state.plain, np.geterr()["divide"]


def _mode_before_backward() -> tuple:
    return False, np.geterr()["divide"]


_BACKWARD_SAW: list = []  # the modes _Double.backward ran in


class _Double(leafgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        _BACKWARD_SAW.append(_mode_now())
        return grad * 2


def test_user_code_between_plain_nodes_sees_neither_plain_mode_nor_quiet_numpy():
    expected = _mode_before_backward()
    seen = []
    x = leafgrad.randn(4, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(("leaf", _mode_now())))
    h = x.sin().exp()
    h.register_hook(lambda g: seen.append(("tensor", _mode_now())))
    h.grad_fn.register_prehook(lambda grads: seen.append(("pre", _mode_now())))
    y = _Double.apply(h.cos()).tanh()
    y.grad_fn.register_hook(lambda gi, go: seen.append(("post", _mode_now())))
    _BACKWARD_SAW.clear()
    y.sum().backward()
    assert [kind for kind, _ in seen] == ["post", "tensor", "pre", "leaf"]
    assert all(mode == expected for _, mode in seen)
    assert _BACKWARD_SAW == [expected]
    assert _mode_now() == expected


def test_saved_tensors_hooks_unpack_outside_plain_mode():
    expected = _mode_before_backward()
    seen = []

    def unpack(t):
        seen.append(_mode_now())
        return t

    x = leafgrad.randn(5, requires_grad=True)
    with leafgrad.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = (x * x).sin().sum()
    y.backward()
    assert seen and all(mode == expected for mode in seen)
    assert np.allclose(x.grad._data, np.cos(x._data**2) * 2 * x._data)


def test_a_backward_that_raises_leaves_plain_mode_and_numpy_as_they_were():
    expected = _mode_before_backward()
    x = leafgrad.randn(3, requires_grad=True)
    y = x.exp().sin().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
    assert _mode_now() == expected
