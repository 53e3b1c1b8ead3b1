"""Random scripts of views and in-place changes, run by leafgrad and by PyTorch, compared.

Each script makes a clone ``x`` of a leaf, then draws views (of ``x`` or of earlier views)
and in-place changes (of ``x`` or of a view; by numbers or by a second leaf ``w``; some in
no-grad mode). Both libraries must agree on every value, on which calls raise (and the
exception type), on each tensor's ``requires_grad`` / ``is_leaf`` / ``grad_fn`` name, and on
the gradients of a weighted sum of every tensor made, for both leaves.
"""

import numpy as np
import pytest

import leafgrad
from tests._tolerance import assert_close

N_SCRIPTS = 120
STEPS = 7

# (name, applies to a shape, the view)
VIEWS = [
    ("row", lambda s: len(s) >= 1 and s[0] >= 2, lambda v: v[1]),
    ("tail", lambda s: len(s) >= 1 and s[0] >= 2, lambda v: v[1:]),
    ("every-other", lambda s: len(s) >= 1 and s[0] >= 2, lambda v: v[::2]),
    ("column", lambda s: len(s) == 2, lambda v: v[:, 0]),
    ("t", lambda s: len(s) == 2, lambda v: v.t()),
    ("diagonal", lambda s: len(s) == 2, lambda v: v.diagonal()),
    ("narrow", lambda s: len(s) >= 1 and s[-1] >= 2, lambda v: v.narrow(-1, 1, 1)),
    ("unsqueeze", lambda s: len(s) <= 2, lambda v: v.unsqueeze(0)),
    ("squeeze", lambda s: 1 in s, lambda v: v.squeeze()),
    ("view-flat", lambda s: True, lambda v: v.view(-1) if v.is_contiguous() else v.reshape(-1)),
]

# (name, the change: f(target, w))
CHANGES = [
    ("mul-number", lambda v, w: v.mul_(1.5)),
    ("add-w", lambda v, w: v.add_(w)),
    ("mul-w", lambda v, w: v.mul_(w)),
    ("copy-w", lambda v, w: v.copy_(w * 2)),
    ("zero", lambda v, w: v.zero_()),
    ("sin", lambda v, w: v.sin_()),
    ("setitem", lambda v, w: v.__setitem__(..., w + 1)),
    ("fill-part", lambda v, w: v.view(-1)[:1].fill_(0.5) if v.is_contiguous() else v.neg_()),
]


def _draw(rng):
    """A script: steps ``("view", source, k)`` or ``("change", target, k, no_grad)``."""
    shapes = [(3, 4)]
    steps = []
    for _ in range(STEPS):
        if rng.uniform() < 0.5:
            source = int(rng.integers(len(shapes)))
            fits = [k for k, (_, ok, _) in enumerate(VIEWS) if ok(shapes[source])]
            if not fits:
                continue
            k = int(rng.choice(fits))
            shape = tuple(VIEWS[k][2](leafgrad.zeros(shapes[source])).shape)
            shapes.append(shape)
            steps.append(("view", source, k, bool(rng.uniform() < 0.2)))
        else:
            target = int(rng.integers(len(shapes)))
            k = int(rng.integers(len(CHANGES)))
            steps.append(("change", target, k, bool(rng.uniform() < 0.25)))
    return steps


def _run(T, steps, seed):
    """Every observation the script makes, in order, as plain Python data."""
    rng = np.random.default_rng(seed)
    root = T.tensor(rng.uniform(0.2, 0.8, (3, 4)), requires_grad=True)
    w = T.tensor(0.7, dtype=T.float64, requires_grad=True)
    tensors = [root * 1]
    seen = []
    for kind, index, k, no_grad in steps:
        try:
            with T.no_grad() if no_grad else T.enable_grad():
                if kind == "view":
                    tensors.append(VIEWS[k][2](tensors[index]))
                else:
                    CHANGES[k][1](tensors[index], w)
            seen.append((kind, "ok"))
        except Exception as exc:  # the exception type is what is compared
            seen.append((kind, type(exc).__name__))
            if kind == "view":
                tensors.append(tensors[index].detach().clone())  # keep the numbering
        # PyTorch regenerates a view's history when its grad_fn is next read; until then an
        # in-place change of the view may call it a leaf (leafgrad regenerates at the write).
        # Reading every grad_fn after each step compares the regenerated histories.
        for t in tensors:
            try:
                _ = t.grad_fn
            except RuntimeError:
                pass
    for t in tensors:
        try:
            name = None if t.grad_fn is None else t.grad_fn.name().rsplit("::", 1)[-1]
        except RuntimeError:
            name = "RuntimeError"
        seen.append((t.requires_grad, t.is_leaf if name != "RuntimeError" else None, name))
        seen.append(("values", t.detach().numpy().copy()))
    try:
        total = sum((t * (i + 1)).sum() for i, t in enumerate(tensors) if t.requires_grad)
        grads = T.autograd.grad(total, [root, w], allow_unused=True)
        seen.append(("grads", [None if g is None else g.numpy().copy() for g in grads]))
    except RuntimeError:
        seen.append(("grads", "RuntimeError"))
    return seen


def _describe(steps) -> str:
    out = []
    for kind, index, k, no_grad in steps:
        name = (VIEWS if kind == "view" else CHANGES)[k][0]
        out.append(f"{kind} {name} of t{index}" + (" (no_grad)" if no_grad else ""))
    return "; ".join(out)


@pytest.mark.parametrize("n", range(N_SCRIPTS))
def test_views_and_in_place_changes_match_pytorch(n, pytorch):
    steps = _draw(np.random.default_rng(1000 + n))
    ours, theirs = _run(leafgrad, steps, n), _run(pytorch, steps, n)
    where = _describe(steps)
    assert len(ours) == len(theirs), where
    for a, b in zip(ours, theirs):
        if a[0] == "values":
            assert_close(a[1], b[1], "direct")
        elif a[0] == "grads" and b[1] != "RuntimeError" and a[1] != "RuntimeError":
            for g, h in zip(a[1], b[1]):
                assert (g is None) == (h is None) or not np.any(h if g is None else g), where
                if g is not None and h is not None:
                    assert_close(g, h, "direct")
        else:
            assert a == b, where
