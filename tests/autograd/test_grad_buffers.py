"""Which memory a leaf's first ``.grad`` uses: a gradient nothing else can reach gives its
memory (no copy, as PyTorch steals such a buffer); one that someone holds, or that is not
plain contiguous memory, is copied, so ``.grad`` never aliases another tensor."""


def _sender(torch, kept):
    class Sender(torch.autograd.Function):
        """Hands its incoming gradient to both inputs; remembers it when asked."""

        ptr = None

        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            Sender.ptr = grad.data_ptr()
            if kept is not None:
                kept.append(grad)
            return grad, grad

    return Sender


def test_one_of_two_leaves_takes_the_gradients_memory(torch):
    a = torch.randn(5, 6, requires_grad=True)
    b = torch.randn(5, 6, requires_grad=True)
    sender = _sender(torch, None)
    sender.apply(a, b)[1][0].backward()  # a fresh gradient, given to both leaves
    pa, pb = a.grad.data_ptr(), b.grad.data_ptr()
    assert pa != pb
    assert sender.ptr in (pa, pb)


def test_a_gradient_someone_holds_is_copied(torch):
    a = torch.randn(5, 6, requires_grad=True)
    b = torch.randn(5, 6, requires_grad=True)
    kept = []
    sender = _sender(torch, kept)
    sender.apply(a, b)[1][0].backward()
    assert sender.ptr not in (a.grad.data_ptr(), b.grad.data_ptr())
    kept[0].add_(100.0)  # the held gradient changes; the leaves' do not
    assert float(a.grad.abs().max()) <= 1.0


def test_a_seed_the_caller_holds_is_copied(torch):
    x = torch.randn(3, requires_grad=True)
    seed = torch.ones(3)
    x.backward(seed)
    assert x.grad.data_ptr() != seed.data_ptr()
    seed.mul_(5.0)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_a_non_contiguous_gradient_is_copied(torch):
    class Spread(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.shape = x.shape
            return torch.tensor([1.0])

        @staticmethod
        def backward(ctx, grad):
            return torch.ones(1).expand(ctx.shape)

    x = torch.randn(5, 6, requires_grad=True)
    Spread.apply(x).backward()
    assert x.grad.is_contiguous()
    x.grad.add_(1.0)  # its own memory: writable, every element separate
    assert x.grad.sum().item() == 60.0


def test_gradients_summed_at_one_output_leave_a_held_one_unchanged(torch):
    # a's gradient arrives by two paths; the one from exp is also kept by a node hook, so
    # the sum must not be written into it (nor into the one from sin)
    x = torch.linspace(-1.0, 1.0, 50, dtype=torch.float64, requires_grad=True)
    a = x * 2
    b, c = a.exp(), a.sin()
    kept = []
    b.grad_fn.register_hook(lambda grad_inputs, grad_outputs: kept.append(grad_inputs[0]))
    (b + c).sum().backward()
    assert torch.allclose(kept[0], a.detach().exp())  # still exp(a) alone
    assert torch.allclose(x.grad, 2 * (a.detach().exp() + a.detach().cos()))


def test_a_custom_functions_gradient_given_twice_is_not_summed_into(torch):
    class Twice(torch.autograd.Function):
        """y = (x, x): the same gradient tensor goes back along both of x's uses."""

        @staticmethod
        def forward(ctx, x):
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2

    x = torch.ones(40, dtype=torch.float64, requires_grad=True)
    h = x * 3
    u, v = Twice.apply(h)
    (u * 2 + v * 5 + h).sum().backward()
    assert x.grad.tolist() == [24.0] * 40


def test_plain_gradients_meeting_at_one_output_are_added_in_place(monkeypatch):
    # leafgrad only: where CPython's counts show the engine holds the only reference, the
    # second gradient is added into the first's array (PyTorch accumulates in place alike)
    import numpy as np  # why: this test alone spies on NumPy's add

    import leafgrad
    from leafgrad._engine import accumulation

    adds = []

    class Spy:
        def __getattr__(self, name):
            return getattr(np, name)

        def add(self, x, y, out=None):
            adds.append(out is not None)
            return np.add(x, y, out=out)

    monkeypatch.setattr(accumulation, "np", Spy())
    x = leafgrad.linspace(-1.0, 1.0, 64, requires_grad=True)
    a = x * 2
    (a.exp() + a.sin() + a * a).sum().backward()
    expected = 2 * (a.detach().exp() + a.detach().cos() + 2 * a.detach())
    assert leafgrad.allclose(x.grad, expected)
    # four gradients reach a (a * a sends two), three sums, each into a fresh rule result
    assert adds == ([True] * 3 if accumulation._COUNTS_ARE_EXACT else [False] * 3)
