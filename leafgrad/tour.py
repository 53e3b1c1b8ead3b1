"""A guided tour of leafgrad's autograd: leaves, .grad, retain_graph, create_graph.

    python -m leafgrad.tour

Each step runs real leafgrad code and prints what it shows. The same walk-through with
explanations and pictures of the graph is docs/guides/leaves-and-grads.md.
"""

from __future__ import annotations

import warnings

import leafgrad as torch
from leafgrad.autograd import grad


def _step(title: str) -> None:
    print(f"\n== {title} ==")


def _facts(name: str, t) -> None:
    print(
        f"{name} = {t!r}\n    requires_grad={t.requires_grad} is_leaf={t.is_leaf} "
        f"grad_fn={None if t.grad_fn is None else t.grad_fn.name()}"
    )


def leaves() -> None:
    _step("1. Leaf tensors")
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    c = torch.tensor([5.0])
    d = c * c
    for name, t in zip("abcd", (a, b, c, d)):
        _facts(name, t)
    print("d is a leaf although computed: nothing that requires grad went into it.")


def inheritance() -> None:
    _step("2. requires_grad is inherited")
    a = torch.tensor([5.0], requires_grad=True)
    b = torch.tensor([5.0], requires_grad=True)
    c = torch.tensor([5.0], requires_grad=False)
    d = torch.sin(a * b * c)
    print(f"d = sin(a*b*c) requires grad: {d.requires_grad} (any input does)")
    with torch.no_grad():
        e = a * 2
    print(f"computed under no_grad: requires_grad={e.requires_grad}, is_leaf={e.is_leaf}")


def retention() -> None:
    _step("3. Only leaves keep .grad, unless retain_grad()")
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b_grad = b.grad
    print(f"a.grad = {a.grad}; b.grad = {b_grad} (with a {caught[0].category.__name__})")
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    b.backward()
    print(f"after b.retain_grad(): b.grad = {b.grad}, b.retains_grad = {b.retains_grad}")
    print(
        f"a.grad itself: requires_grad={a.grad.requires_grad}, is_leaf={a.grad.is_leaf} "
        "(a plain tensor outside the graph)"
    )


def retain_graph() -> None:
    _step("4. Backward twice needs retain_graph=True; grads accumulate")
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    for retain in (True, True, False):
        b.backward(retain_graph=retain)
        print(f"b.backward(retain_graph={retain}) -> a.grad = {a.grad}")
    try:
        b.backward()
    except RuntimeError as err:
        print(f"a fourth backward raises RuntimeError: {str(err)[:78]}...")


def create_graph() -> None:
    _step("5. create_graph=True makes the gradient differentiable")
    a = torch.tensor([5.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference-cycle warning; see step 6
        b.backward(create_graph=True)
    _facts("a.grad", a.grad)
    _facts("b.grad", b.grad)


def higher_order() -> None:
    _step("6. autograd.grad: derivatives of derivatives, as PINNs need")
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a * a
    db_da = grad(b, a, create_graph=True)[0]
    d2b_da2 = grad(db_da, a, create_graph=True)[0]
    d3b_da3 = grad(d2b_da2, a)[0]
    print(
        f"b = a^3 at a=3: db/da = {db_da.item()}, d2b/da2 = {d2b_da2.item()}, "
        f"d3b/da3 = {d3b_da3.item()}"
    )
    x = torch.linspace(0, 1, 5, requires_grad=True)
    u = torch.sin(3 * x)
    (u_x,) = grad(u, x, torch.ones_like(u), create_graph=True)
    (u_xx,) = grad(u_x, x, torch.ones_like(u_x))
    residual = u_xx + 9 * u
    print(f"u = sin(3x): residual of u_xx + 9u = 0 at 5 points: {residual.detach()}")


def main() -> None:
    print("leafgrad tour: PyTorch's leaf/grad semantics, on NumPy")
    for step in (leaves, inheritance, retention, retain_graph, create_graph, higher_order):
        step()
    print("\nDone. docs/guides/leaves-and-grads.md explains each step, with pictures.")


if __name__ == "__main__":
    main()
