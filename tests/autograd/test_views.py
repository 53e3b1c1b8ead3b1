"""Views and in-place ops: memory layout, view regeneration, retain_grad, .data and the
in-place writes PyTorch refuses.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

from ._helpers import assert_values

# ----- memory layout: contiguous() and view() -----


def test_contiguous_of_a_transposed_tensor_is_a_copy(torch):
    source = torch.arange(6.0).reshape(2, 3)
    assert source.contiguous() is source
    c = source.t().contiguous()
    c[0, 0] = 100.0
    assert c.is_contiguous() and not source.t().is_contiguous()
    assert_values(source, [[0, 1, 2], [3, 4, 5]])
    assert_values(c, [[100, 3], [1, 4], [2, 5]])
    assert c._base is None


def test_contiguous_copy_records_a_clone_and_gradients_reach_the_source(torch):
    root = torch.arange(6.0).reshape(2, 3).requires_grad_()
    c = root.t().contiguous()
    assert c.grad_fn.name() == "CloneBackward0"
    c[0, 0] = 100.0  # modifies the copy only: the source's gradient is untouched
    (c * torch.arange(6.0).reshape(3, 2)).sum().backward()
    assert_values(root.grad, [[0, 2, 4], [1, 3, 5]])
    assert_values(root, [[0, 1, 2], [3, 4, 5]])


@pytest.mark.parametrize(
    "make, refused, accepted",
    [
        (lambda torch: torch.arange(6.0).reshape(2, 3).t(), (6,), (3, 2, 1)),
        (lambda torch: torch.arange(6.0).reshape(2, 3).t(), (-1,), (1, 3, 2)),
        (lambda torch: torch.arange(24.0).reshape(2, 3, 4).permute(0, 2, 1), (2, 12),
         (2, 2, 2, 3)),
        (lambda torch: torch.arange(24.0).reshape(2, 3, 4)[:, :, :2], (12,), (6, 2)),
        (lambda torch: torch.arange(24.0).reshape(2, 3, 4)[:, :, :2], (2, 6), (2, 3, 1, 2)),
        (lambda torch: torch.ones(3).expand(2, 3), (6,), (2, 3, 1)),
    ],
    ids=["transposed", "transposed-infer", "permuted", "sliced-flat", "sliced-merge",
         "expanded"],
)  # fmt: skip
def test_view_follows_the_strides_and_refuses_what_they_cannot_express(
    torch, make, refused, accepted
):
    x = make(torch)
    with pytest.raises(RuntimeError, match="reshape"):
        x.view(*refused)
    assert x.reshape(*refused)._base is None  # reshape copies instead
    v = x.view(*accepted)
    assert tuple(v.shape) == tuple(x.reshape(*accepted).shape) and v._base is not None


# ----- .data: the same memory, hidden from the version counter -----


def test_changing_a_saved_result_through_data_does_not_stop_backward(torch):
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y.data.mul_(2)  # the saved result now holds 2e
    y.sum().backward()
    assert y._version == 0
    assert_values(x.grad, [2 * 2.718281828459045] * 3)


def test_changing_a_saved_input_through_data_does_not_stop_backward(torch):
    x = torch.ones(3, requires_grad=True)
    h = x * 2
    y = torch.sin(h)
    h.data.add_(1)  # the saved input now holds 3
    y.sum().backward()
    assert_values(x.grad, [2 * -0.9899924966004454] * 3)


def test_data_has_a_version_counter_of_its_own(torch):
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        x.add_(1)
    d = x.data
    assert (x._version, d._version) == (1, 0)
    d.add_(1)
    assert (x._version, d._version) == (1, 1)
    assert_values(x, [3, 3, 3])
    assert x[0:2].data._base is None
