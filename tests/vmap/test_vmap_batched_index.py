"""gather and take_along_dim under vmap with a per-example index (class targets in
cross_entropy, per-example picks), against PyTorch, with per-example gradients."""

import numpy as np
import pytest

from ._same import rand, same

TARGETS = np.array([[0, 1, 2], [1, 1, 1], [4, 0, 2], [3, 3, 0]])


def test_cross_entropy_with_per_example_class_targets(pytorch):
    def fn(m, x, t):
        x = x.requires_grad_()
        losses = m.vmap(lambda a, b: m.nn.functional.cross_entropy(a, b))(x, t.long())
        (grad,) = m.autograd.grad(losses.sum(), x)
        per_example = m.vmap(m.func.grad(m.nn.functional.cross_entropy))(x.detach(), t.long())
        return losses, grad, per_example

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_gather_with_a_batched_index_in_every_placement(pytorch):
    def fn(m, x, t):
        t = t.long()
        both = m.vmap(lambda a, b: a.gather(1, b))(x, t[:, :, None])
        index_only = m.vmap(lambda b: x[0].gather(0, b))(t[:, None, :2] % 3)
        nested = m.vmap(m.vmap(lambda a, b: a.gather(0, b)))(x, (t[:, :, None] % 5).expand(4, 3, 2))
        inner_input = m.vmap(
            m.vmap(lambda a, b: a.gather(0, b), in_dims=(0, None)), in_dims=(None, 0)
        )
        zero_d = m.vmap(lambda a, b: a.gather(0, b))(x[:, 0, 0], t[:, 0] % 1)
        return both, index_only, nested, inner_input(x[0], t[:, :2] % 5), zero_d

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_take_along_dim_with_a_batched_index(pytorch):
    def fn(m, x, t):
        t = t.long()
        along = m.vmap(lambda a, b: m.take_along_dim(a, b, 1))(x, t[:, :, None])
        flat = m.vmap(lambda a, b: m.take_along_dim(a, b))(x, t)
        return along, flat

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_indexing_and_writing_with_per_example_keys(pytorch):
    """``x[idx]`` and ``x[idx] = v`` with a batched key: each example's own positions (the
    write used to read the key's stand-in values and wrote at position 0 in every example)."""

    def fn(m, x, t):
        t = t.long() % 3
        x = x.requires_grad_()

        def write(a, b):
            c = a * 1
            c[b] = -1.0
            c[b[:1], 1:] = c[b[:1], 1:] * 3
            return c * a

        written = m.vmap(write)(x, t)
        (grad,) = m.autograd.grad(written.sum(), x)
        picked = m.vmap(lambda a, b: a[b, 1:] * 2)(x, t)
        nested = m.vmap(m.vmap(lambda a, b: a[b]))(x, t[:, :, None].expand(4, 3, 2))
        return written, grad, picked, nested

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_bincount_of_per_example_values(pytorch):
    def fn(m, x, t):
        return m.vmap(lambda b, w: m.bincount(b, w, minlength=6))(t.long(), x[:, 0, :3])

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_batched_masks_and_unbatched_targets_are_refused_as_in_pytorch(pytorch):
    import leafgrad

    for m in (leafgrad, pytorch):
        x = m.arange(12.0).reshape(4, 3)

        def write(a, b):
            c = a.clone()
            c[b] = 0.0
            return c

        for fn in (lambda a, b: a[b], write):
            with pytest.raises(RuntimeError, match="boolean mask"):
                m.vmap(fn)(x, x > 4)
        with pytest.raises(RuntimeError, match="not possible"):
            m.vmap(lambda b, y=x: y.clone().__setitem__(b, 1.0))(m.tensor([[0], [1], [2], [1]]))


def test_scatter_family_with_a_batched_index(pytorch):
    def fn(m, x, t):
        x = x.requires_grad_()
        idx = t.long()[:, :, None]  # (4, 3, 1): per example (3, 1), values < 5
        outs = (
            m.vmap(lambda a, b: a.scatter(1, b, 1.0))(x, idx),
            m.vmap(lambda a, b: a.scatter(1, b, a[:, 1:2] * 2))(x, idx),
            m.vmap(lambda a, b: a.scatter_add(1, b, a[:, :1] * 3))(x, idx),
            m.vmap(lambda a, b: a.scatter_reduce(1, b, a[:, :1] * 1, "amax"))(x, idx),
            m.vmap(lambda b: x[0].scatter_add(1, b, x[0, :, :1]))(idx),
        )
        (grad,) = m.autograd.grad(sum(o.sum() for o in outs), x)
        return (*outs, grad)

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_index_reads_and_writes_with_a_batched_index(pytorch):
    def fn(m, x, t):
        x = x.requires_grad_()
        idx = t.long() % 3  # per example (3,), values < 3
        outs = (
            m.vmap(lambda a, b: a.index_select(0, b))(x, idx),
            m.vmap(lambda a, b: a.index_add(0, b, a * 2, alpha=3))(x, idx),
            m.vmap(lambda a, b: a.index_copy(0, b[:1], a[:1] * 5))(x, idx),
            m.vmap(lambda a, b: a.index_fill(1, b, -1.0))(x, idx),
            m.vmap(lambda a, b: a.take(b))(x, idx),
            m.vmap(lambda a, b: a.put(b, a[0, :3] * 2, accumulate=True))(x, idx),
            m.vmap(lambda a, b: a.index_put((b,), a * 2, accumulate=True))(x[:, :, 0], idx),
        )
        (grad,) = m.autograd.grad(sum(o.sum() for o in outs), x)
        return (*outs, grad)

    same(pytorch, fn, [rand(4, 3, 5), TARGETS])


def test_embedding_and_one_hot_of_per_example_indices(pytorch):
    def fn(m, w, t):
        w = w.requires_grad_()
        idx = t.long()[:, :2]  # per example (2,), values < 5
        looked_up = m.vmap(lambda i: m.nn.functional.embedding(i, w))(idx)
        (grad,) = m.autograd.grad(looked_up.sum(), w)
        return looked_up, grad, m.vmap(lambda i: m.nn.functional.one_hot(i, 6))(idx)

    same(pytorch, fn, [rand(5, 3), TARGETS])
