"""Everyday tensor code inside vmap (indexing, views, joins, factories, einsum, norms ...),
each against PyTorch's vmap on the same inputs."""

import pytest

from ._same import rand, same

CASES = {
    "getitem-int": lambda m, a, b: a[0] * a[-1],
    "getitem-slices": lambda m, a, b: a[1:3, ::2] + a[..., :2].sum(),
    "getitem-none-ellipsis": lambda m, a, b: a[None, ..., 1],
    "getitem-index-tensor": lambda m, a, b: a[m.tensor([2, 0, 2])],
    "getitem-mask-unbatched": lambda m, a, b: a[m.tensor([True, False, True, True])],
    "getitem-separated-advanced": lambda m, a, b: a[m.tensor([0, 1]), :, m.tensor([1, 0])],
    "views": lambda m, a, b: (a.view(-1), a.reshape(2, -1), a.flatten(), a.T, a.mT),
    "permute-transpose": lambda m, a, b: (a.permute(2, 0, 1), a.transpose(0, 2), a.movedim(0, -1)),
    "squeeze-unsqueeze": lambda m, a, b: a.unsqueeze(1).unsqueeze(-1).squeeze(1).squeeze(),
    "expand-repeat": lambda m, a, b: (b.expand(2, 3), b.repeat(2, 2), b.unsqueeze(0).expand(4, -1)),
    "cat-stack-mixed": lambda m, a, b: (
        m.cat([b, b.sin()]),
        m.stack([b, m.ones(3, dtype=b.dtype)], 1),
    ),
    "split-unbind-chunk": lambda m, a, b: (*a.split(1, 0), *a.unbind(1), *a.chunk(2, 2)),
    "reductions": lambda m, a, b: (
        a.sum(),
        a.mean(0),
        a.amax((0, 2)),
        a.std(1),
        a.var(),
        a.prod(2),
    ),
    "max-min-arg": lambda m, a, b: (*a.max(1), *a.min(-1), a.argmax(), a.argmin(0)),
    "softmax-logsumexp": lambda m, a, b: (a.softmax(-1), a.log_softmax(0), a.logsumexp(1)),
    "cumsum-flip-roll": lambda m, a, b: (a.cumsum(1), a.flip(0), a.roll(1, 2), a.roll(2)),
    "norms": lambda m, a, b: (a.norm(), m.linalg.norm(b), m.linalg.vector_norm(a, 1, dim=-1)),
    "einsum": lambda m, a, b: (m.einsum("ijk,k->ij", a, b), m.einsum("ijk->k", a)),
    "matmul-shapes": lambda m, a, b: (a @ b, b @ a.transpose(1, 2), a @ a.transpose(1, 2), b @ b),
    "where-clamp": lambda m, a, b: (m.where(a > 0, a, 0.5 * a), a.clamp(-0.5, 0.5), m.relu(a)),
    "factories": lambda m, a, b: (
        m.zeros_like(a) + a,
        m.ones_like(b) * b,
        b.new_zeros(2),
        m.full_like(b, 2.0),
    ),
    "casts": lambda m, a, b: (a.float(), a.to(m.float32).double(), (a > 0).int()),
    "comparison": lambda m, a, b: ((a > b).all(), (a == a).any(1), m.isclose(a, a + 1e-12)),
    "gather-index-select": lambda m, a, b: (
        a.gather(2, m.tensor([[[0, 2], [1, 1], [2, 0]]] * 4)),
        a.index_select(1, m.tensor([2, 0])),
    ),
    "linalg": lambda m, a, b: (
        m.linalg.det(a[:3] + 3 * m.eye(3, dtype=a.dtype)),
        m.linalg.inv(a[0] + 3 * m.eye(3, dtype=a.dtype)),
        m.linalg.solve(a[1] + 3 * m.eye(3, dtype=a.dtype), b),
    ),
    "detach-contiguous-iter": lambda m, a, b: (a.detach() * 2, a.contiguous(), m.stack(list(a))),
    "lu-family": lambda m, a, b: (
        *m.linalg.lu(a[0]),
        *m.linalg.lu_factor(a[1] + 3 * m.eye(3, dtype=a.dtype)),
        m.linalg.lu_solve(*m.linalg.lu_factor(a[1] + 3 * m.eye(3, dtype=a.dtype)), a[2]),
    ),
    "nn-functional": lambda m, a, b: (
        m.nn.functional.gelu(a),
        m.nn.functional.softplus(b),
        m.nn.functional.mse_loss(a, a.flip(0)),
        m.nn.functional.linear(b, a[0], b),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_code_inside_vmap_matches_pytorch(pytorch, name):
    fn = CASES[name]

    def run(m, a, b):
        return m.vmap(lambda x, y: fn(m, x, y))(a, b)

    same(pytorch, run, [rand(5, 4, 3, 3), rand(5, 3, seed=1)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_code_inside_vmap_with_an_unbatched_second_input(pytorch, name):
    fn = CASES[name]

    def run(m, a, b):
        return m.vmap(lambda x, y: fn(m, x, y), in_dims=(0, None))(a, b)

    same(pytorch, run, [rand(5, 4, 3, 3), rand(3, seed=1)])
