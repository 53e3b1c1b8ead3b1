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
