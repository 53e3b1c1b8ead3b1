"""What a node shows besides its saved tensors (``grad_fn._saved_self_sym_sizes``,
``_saved_dim``, ``_saved_alpha`` ...) and which ``_saved_*`` names ``dir(grad_fn)`` lists:
PyTorch's, each asserted with leafgrad and with PyTorch (the ``torch`` fixture)."""

import numpy as np
import pytest


def _saved_names(node) -> list:
    return sorted(n for n in dir(node) if n.startswith("_saved_"))


def _shown(node) -> dict:
    return {n: getattr(node, n) for n in _saved_names(node)}


def _x(torch):
    return torch.arange(1.0, 17.0).reshape(4, 4).requires_grad_()


def test_reductions_show_the_input_sizes(torch):
    x = _x(torch)
    assert _shown(x.sum().grad_fn) == {"_saved_self_sym_sizes": (4, 4)}
    assert _shown(x.sum(1).grad_fn) == {
        "_saved_dim": (1,),
        "_saved_keepdim": False,
        "_saved_self_sym_sizes": (4, 4),
    }
    assert _shown(x.mean().grad_fn) == {
        "_saved_self_sym_numel": 16,
        "_saved_self_sym_sizes": (4, 4),
    }
    shown = _shown(x.max(1)[0].grad_fn)
    assert shown["_saved_dim"] == 1 and shown["_saved_self_sym_sizes"] == (4, 4)
    assert shown["_saved_indices"].tolist() == [3, 3, 3, 3]
    assert x.prod(1).grad_fn._saved_dim == 1


def test_views_show_their_sizes_and_dims(torch):
    x = _x(torch)
    assert _shown(x.view(16).grad_fn) == {"_saved_self_sym_sizes": (4, 4)}
    assert _shown(x.flatten().grad_fn) == {"_saved_self_sym_sizes": (4, 4)}
    assert _shown(x[:, :1].expand(4, 4).grad_fn) == {"_saved_self_sym_sizes": (4, 1)}
    assert _shown(x.select(1, 2).grad_fn) == {
        "_saved_dim": 1,
        "_saved_index": 2,
        "_saved_self_sym_sizes": (4, 4),
    }
    assert _shown(x[:, 1:3].grad_fn) == {
        "_saved_dim": 1,
        "_saved_end": 3,
        "_saved_self_sym_sizes": (4, 4),
        "_saved_start": 1,
        "_saved_step": 1,
    }
    assert _shown(x.narrow(0, 1, 2).grad_fn)["_saved_end"] == 3
    y = x.reshape(1, 4, 1, 4)
    assert _shown(y.squeeze(0).grad_fn) == {"_saved_dim": 0, "_saved_self_sym_sizes": (1, 4, 1, 4)}
    assert _shown(y.squeeze((0, 2)).grad_fn)["_saved_dim"] == (0, 2)
    assert _shown(y.squeeze().grad_fn) == {"_saved_self_sym_sizes": (1, 4, 1, 4)}
    assert _shown(x.unsqueeze(1).grad_fn) == {"_saved_dim": 1}
    assert _shown(x.transpose(0, 1).grad_fn) == {"_saved_dim0": 0, "_saved_dim1": 1}
    assert _shown(x.permute(1, 0).grad_fn) == {"_saved_dims": (1, 0)}
    assert _shown(x.t().grad_fn) == {}


def test_copies_show_their_parameters(torch):
    x = _x(torch)
    assert _shown(x.flip(0).grad_fn) == {"_saved_dims": (0,)}
    assert _shown(x.roll(1, 0).grad_fn) == {"_saved_dims": (0,), "_saved_shifts": (1,)}
    assert _shown(x.roll(3).grad_fn) == {"_saved_dims": (), "_saved_shifts": (3,)}
    assert _shown(x.repeat(2, 1, 1).grad_fn) == {
        "_saved_repeats": (2, 1, 1),
        "_saved_self_sym_sizes": (4, 4),
    }
    assert _shown(torch.cat([x, x], 1).grad_fn) == {"_saved_dim": 1}
    assert _shown(torch.stack([x, x]).grad_fn) == {"_saved_dim": 0}
    assert _shown(x.unbind(1)[0].grad_fn) == {"_saved_dim": 1}
    split = _shown(x.split(3, 1)[0].grad_fn)
    assert split == {"_saved_dim": 1, "_saved_self_sym_sizes": (4, 4), "_saved_split_size": 3}
    assert _shown(x.chunk(2, 0)[1].grad_fn)["_saved_split_size"] == 2
    assert _shown(x.split([1, 3], 0)[0].grad_fn)["_saved_split_sizes"] == (1, 3)
    index = torch.tensor([1, 3])
    shown = _shown(x.index_select(0, index).grad_fn)
    assert shown["_saved_dim"] == 0 and shown["_saved_self_sym_sizes"] == (4, 4)
    assert shown["_saved_index"].tolist() == [1, 3]
    assert x.gather(1, index[:, None]).grad_fn._saved_sparse_grad is False
    assert x[index].grad_fn._saved_self_sym_sizes == (4, 4)


def test_diagonals_strides_traces_and_index_tensors(torch):
    x = _x(torch)
    assert _shown(x.diagonal(1).grad_fn) == {
        "_saved_dim1": 0,
        "_saved_dim2": 1,
        "_saved_offset": 1,
        "_saved_self_sym_sizes": (4, 4),
    }
    shown = _shown(x.as_strided((2, 2), (1, 2)).grad_fn)
    assert (shown["_saved_size"], shown["_saved_stride"]) == ((2, 2), (1, 2))
    assert _shown(x.trace().grad_fn) == {"_saved_self_sym_sizes": (4, 4)}
    y = x[:, torch.tensor([1, 3])]
    none, index = y.grad_fn._saved_indices
    assert none is None and index.tolist() == [1, 3]
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_indices  # noqa: B018 (freed with the graph)


def test_alpha_and_beta_show_their_defaults(torch):
    x = _x(torch)
    assert _shown((x + x).grad_fn) == {"_saved_alpha": 1}
    assert _shown((x + 1).grad_fn) == {"_saved_alpha": 1}
    assert _shown(torch.sub(x, x, alpha=2.5).grad_fn) == {"_saved_alpha": 2.5}
    assert _shown((1 - x).grad_fn) == {"_saved_alpha": 1}
    node = torch.addmm(x[0], x, x).grad_fn
    assert (node._saved_alpha, node._saved_beta) == (1, 1)
    assert node._saved_mat1_sym_sizes == (4, 4) and node._saved_mat2_sym_sizes == (4, 4)
    assert (x @ x).grad_fn._saved_self_sym_sizes == (4, 4)


def test_a_negative_int_parameter_shows_as_pytorch_binds_int64(torch):
    x = _x(torch)
    assert x.tril(-1).grad_fn._saved_diagonal == 2**64 - 1


def test_indices_dims_and_slice_bounds_show_as_given(torch):
    x = _x(torch)
    minus = 2**64 - 1  # -1 as PyTorch shows an int64
    assert x[-1].grad_fn._saved_index == minus
    assert x.select(1, -2).grad_fn._saved_index == minus - 1
    shown = _shown(x[-3:-1].grad_fn)
    assert (shown["_saved_start"], shown["_saved_end"]) == (minus - 2, minus)
    assert x[1:].grad_fn._saved_end == 2**63 - 1  # an open end: the largest int64
    assert _shown(x[::2].grad_fn)["_saved_start"] == 0
    assert torch.cat([x, x], -1).grad_fn._saved_dim == minus
    assert _shown(x.transpose(0, -1).grad_fn) == {"_saved_dim0": 0, "_saved_dim1": minus}
    assert x.flip(-1).grad_fn._saved_dims == (minus,)
    assert x.softmax(-1).grad_fn._saved_dim == minus
    assert x.log_softmax(-1).grad_fn._saved_dim == minus


def test_negative_dims_compute_as_their_positive_twins(torch):
    x = _x(torch)
    pairs = [
        (x.softmax(-1), x.softmax(1)),
        (x.log_softmax(-1), x.log_softmax(1)),
        (torch.cat([x, 2 * x], -1), torch.cat([x, 2 * x], 1)),
        (x.transpose(0, -1), x.transpose(0, 1)),
        (x.flip(-1), x.flip(1)),
        (x[-1], x[3]),
        (x[-3:-1], x[1:3]),
    ]
    for a, b in pairs:
        assert a.tolist() == b.tolist()
        weights = torch.arange(float(a.numel())).reshape(a.shape)
        (ga,) = torch.autograd.grad((a * weights).sum(), x, create_graph=True)
        (gb,) = torch.autograd.grad((b * weights).sum(), x, create_graph=True)
        assert torch.allclose(ga, gb)
        assert ga.requires_grad == gb.requires_grad
        if ga.requires_grad:  # the softmaxes: their second derivatives too
            (gga,) = torch.autograd.grad((ga * ga).sum(), x)
            (ggb,) = torch.autograd.grad((gb * gb).sum(), x)
            assert torch.allclose(gga, ggb)


def test_sizes_stay_readable_after_backward(torch):
    x = _x(torch)
    y = x.view(16)
    node = y.grad_fn
    y.sum().backward()
    assert node._saved_self_sym_sizes == (4, 4)
    assert (x * x).sum().grad_fn._saved_self_sym_sizes == (4, 4)


def test_dir_lists_only_the_nodes_own_saves_and_each_reads(torch):
    x = _x(torch)
    for out in (x * 2.0, x.tanh(), x.sum(1), x.view(16), x.exp() + x):
        names = _saved_names(out.grad_fn)
        for name in names:
            getattr(out.grad_fn, name)  # no AttributeError for a listed name
    assert _saved_names(x.tanh().grad_fn) == ["_saved_result"]
    assert _saved_names(x.view(16).grad_fn) == ["_saved_self_sym_sizes"]
    raw = sorted(n for n in dir(x.tanh().grad_fn) if n.startswith("_raw_saved_"))
    assert raw == ["_raw_saved_result"]
    assert not [n for n in dir(x.sum(1).grad_fn) if n.startswith("_raw_saved_")]
    with pytest.raises(AttributeError):
        x.tanh().grad_fn._saved_self_sym_sizes  # noqa: B018 (another op's name)


def test_parameters_pytorch_saves_on_logit_and_polygamma(torch):
    """``_saved_eps`` (None where not given) and polygamma's ``_saved_n``."""
    x = torch.full((3,), 0.25, dtype=torch.float64, requires_grad=True)
    assert x.logit().grad_fn._saved_eps is None
    assert x.logit(1e-6).grad_fn._saved_eps == 1e-6
    assert torch.polygamma(2, x).grad_fn._saved_n == 2
    assert sorted(n for n in dir(x.logit().grad_fn) if n.startswith("_saved")) == [
        "_saved_eps",
        "_saved_self",
    ]


def test_a_node_requires_grad(torch):
    x = torch.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    assert node.requires_grad is True
    assert node.next_functions[0][0].requires_grad is True


def test_rounded_division_and_threshold_show_pytorchs_saves(torch):
    """DivBackward2 shows its rounding mode; ThresholdBackward0 saves no ``value`` (its
    backward never reads it)."""
    x = torch.tensor([-1.5, 0.5, 2.5], requires_grad=True)
    node = x.div(2, rounding_mode="floor").grad_fn
    assert node._saved_rounding_mode == "floor"
    assert x.div(x, rounding_mode="trunc").grad_fn._saved_rounding_mode == "trunc"
    node = torch.nn.functional.threshold(x, 0.6, 0.1).grad_fn
    assert _saved_names(node) == ["_saved_self", "_saved_threshold"]
    assert node._saved_threshold == 0.6


def test_log_sigmoid_shows_pytorchs_buffer(torch):
    """PyTorch's CPU forward returns ``exp(-|x|)`` beside the value, saved as ``buffer``."""
    x = torch.tensor([-2.0, 0.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.logsigmoid(x)
    node = y.grad_fn
    assert _saved_names(node) == ["_saved_buffer", "_saved_self"]
    expected = [float(np.exp(-2.0)), 1.0, float(np.exp(-3.0))]
    assert node._saved_buffer.tolist() == pytest.approx(expected, rel=1e-12)
    y.sum().backward()
    with pytest.raises(RuntimeError):
        node._saved_buffer  # noqa: B018 (freed with the graph, as in PyTorch)
