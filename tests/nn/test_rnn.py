"""RNN, LSTM, GRU and their cells against PyTorch: names, shapes, values, gradients, errors."""

import warnings

import numpy as np
import pytest

from ._compare import assert_close, pair, to_numpy

CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2, "bias": False}),
    ("RNN", {"bidirectional": True, "batch_first": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {"batch_first": True, "bias": False}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2}),
    ("LSTM", {"proj_size": 3, "bidirectional": True, "bias": False}),
]


def _pair_modules(mode, kwargs, cls_args=(3, 4)):
    torch = pytest.importorskip("torch")
    import leafgrad

    ours = getattr(leafgrad.nn, mode)(*cls_args, **kwargs).double()
    theirs = getattr(torch.nn, mode)(*cls_args, **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (k, v), (k2, v2) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert k == k2 and tuple(v.shape) == tuple(v2.shape)
    theirs.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in ours.state_dict().items()})
    assert repr(ours) == repr(theirs)
    return leafgrad, torch, ours, theirs


def _flat(out):
    if isinstance(out, tuple):
        return [t for o in out for t in _flat(o)]
    return [out]


@pytest.mark.parametrize("mode, kwargs", CONFIGS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layer_matches_pytorch_to_second_order(mode, kwargs, batched, with_hx):
    leafgrad, torch, ours, theirs = _pair_modules(mode, kwargs)
    rng = np.random.default_rng(0)
    shape = (2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3)
    if not batched:
        shape = (4, 3)
    x_ours, x_theirs = pair(rng.standard_normal(shape), requires_grad=True)
    hx_ours = hx_theirs = None
    if with_hx:
        layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
        h_size = kwargs.get("proj_size") or 4
        batch = (2,) if batched else ()
        h_ours, h_theirs = pair(rng.standard_normal((layers, *batch, h_size)), True)
        hx_ours, hx_theirs = h_ours, h_theirs
        if mode == "LSTM":
            c_ours, c_theirs = pair(rng.standard_normal((layers, *batch, 4)), True)
            hx_ours, hx_theirs = (h_ours, c_ours), (h_theirs, c_theirs)
    results = []
    for lib, m, x, hx in ((leafgrad, ours, x_ours, hx_ours), (torch, theirs, x_theirs, hx_theirs)):
        outs = _flat(m(x, hx))
        seeds = [lib.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape))) for o in outs]
        loss = sum((o * s).sum() for o, s in zip(outs, seeds))
        params = list(m.parameters())
        grads = lib.autograd.grad(loss, [x, *params], create_graph=True)
        second = lib.autograd.grad(sum(g.pow(2).sum() for g in grads), [x, *params])
        results.append([*outs, *grads, *second])
    for a, b in zip(*results):
        assert_close(a, b)


@pytest.mark.parametrize("mode", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_pytorch_to_second_order(mode, bias, batched):
    leafgrad, torch, ours, theirs = _pair_modules(mode, {"bias": bias})
    rng = np.random.default_rng(1)
    batch = (5,) if batched else ()
    x_ours, x_theirs = pair(rng.standard_normal((*batch, 3)), requires_grad=True)
    h_ours, h_theirs = pair(rng.standard_normal((*batch, 4)), requires_grad=True)
    c_ours, c_theirs = pair(rng.standard_normal((*batch, 4)), requires_grad=True)
    results = []
    for lib, m, x, h, c in ((leafgrad, ours, x_ours, h_ours, c_ours),
                            (torch, theirs, x_theirs, h_theirs, c_theirs)):  # fmt: skip
        for hx in (None, (h, c) if mode == "LSTMCell" else h):
            outs = _flat(m(x, hx))
            loss = sum((o.sin() * (i + 1)).sum() for i, o in enumerate(outs))
            grads = lib.autograd.grad(loss, [x, *m.parameters()], create_graph=True)
            second = lib.autograd.grad(sum(g.pow(2).sum() for g in grads), [x, *m.parameters()])
            results.append([*outs, *grads, *second])
    for a, b in zip(results[0] + results[1], results[2] + results[3]):
        assert_close(a, b)


def test_parameter_names_and_default_init(torch):
    torch.manual_seed(0)
    m = torch.nn.LSTM(3, 8, num_layers=2, bidirectional=True, proj_size=2)
    names = [n for n, _ in m.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert names[5] == "weight_ih_l0_reverse" and names[-1] == "weight_hr_l1_reverse"
    assert tuple(m.weight_ih_l1.shape) == (32, 4) and tuple(m.weight_hh_l0.shape) == (32, 2)
    assert len(m.all_weights) == 4 and len(m.all_weights[0]) == 5
    for p in m.parameters():
        assert np.abs(to_numpy(p)).max() <= 1 / np.sqrt(8)
    cell = torch.nn.GRUCell(3, 5, bias=False)
    assert [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh"]
    assert cell.bias_ih is None and tuple(cell.weight_ih.shape) == (15, 3)


def test_output_shapes(torch):
    m = torch.nn.LSTM(3, 6, num_layers=3, batch_first=True, bidirectional=True, proj_size=4)
    out, (h, c) = m(torch.zeros(2, 7, 3))
    assert tuple(out.shape) == (2, 7, 8)
    assert tuple(h.shape) == (6, 2, 4) and tuple(c.shape) == (6, 2, 6)
    out, h = torch.nn.GRU(3, 5)(torch.zeros(7, 3))
    assert tuple(out.shape) == (7, 5) and tuple(h.shape) == (1, 5)


def test_dropout_between_layers_only_in_training(torch):
    torch.manual_seed(0)
    m = torch.nn.GRU(3, 4, num_layers=2, dropout=0.5).double()
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert np.array_equal(to_numpy(a), to_numpy(b))
    m.train()
    assert not np.allclose(to_numpy(m(x)[0]), to_numpy(a))


def test_constructor_errors_and_warnings(torch):
    with pytest.raises(ValueError, match="dropout"):
        torch.nn.RNN(3, 4, dropout=1.5)
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        torch.nn.LSTM(3, 4, dropout=0.2)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        torch.nn.GRU(3, 0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        torch.nn.GRU(3, 2, num_layers=0)
    with pytest.raises(TypeError, match="hidden_size"):
        torch.nn.GRU(3, 2.5)
    with pytest.raises(ValueError, match="proj_size has to be smaller"):
        torch.nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        torch.nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        torch.nn.RNN(3, 4, nonlinearity="gelu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.nn.RNN(3, 4, 2, "relu", dropout=0.1)


def test_forward_errors(torch):
    m = torch.nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="2D or 3D"):
        m(torch.zeros(1, 2, 3, 4))
    with pytest.raises(RuntimeError, match="input_size"):
        m(torch.zeros(5, 2, 2))
    with pytest.raises(RuntimeError):
        m(torch.zeros(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4)))
    with pytest.raises(RuntimeError):
        m(torch.zeros(5, 3), (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4)))
    with pytest.raises(ValueError, match="1D or 2D"):
        torch.nn.GRUCell(3, 4)(torch.zeros(1, 2, 3))
    with pytest.raises(RuntimeError):
        torch.nn.GRUCell(3, 4)(torch.zeros(2, 5))
    with pytest.raises(RuntimeError):
        torch.nn.RNNCell(3, 4, nonlinearity="gelu")(torch.zeros(2, 3))


def test_cell_repr(torch):
    assert repr(torch.nn.RNNCell(3, 4, bias=False, nonlinearity="relu")) == (
        "RNNCell(3, 4, bias=False, nonlinearity=relu)"
    )
    assert repr(torch.nn.LSTMCell(3, 4)) == "LSTMCell(3, 4)"
    assert repr(torch.nn.GRU(3, 4, 2, batch_first=True, dropout=0.1)) == (
        "GRU(3, 4, num_layers=2, batch_first=True, dropout=0.1)"
    )


def _node_names(output):
    node = output.grad_fn
    return node.name(), [n.name() if n is not None else None for n, _ in node.next_functions]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True}],
    ids=["one-layer", "two-bidirectional", "batch-first"],
)
def test_float32_lstm_layers_are_one_node_each_as_pytorch_to_second_order(kwargs):
    """float32 LSTM layers run as one op each, PyTorch's MkldnnRnnLayerBackward0; values,
    gradients and second derivatives as PyTorch's."""
    torch = pytest.importorskip("torch")
    import leafgrad

    ours, theirs = leafgrad.nn.LSTM(3, 4, **kwargs), torch.nn.LSTM(3, 4, **kwargs)
    theirs.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in ours.state_dict().items()})
    rng = np.random.default_rng(5)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    arrays = [
        rng.standard_normal((2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3)),
        rng.standard_normal((layers, 2, 4)),
        rng.standard_normal((layers, 2, 4)),
    ]
    results = []
    for lib, m in ((leafgrad, ours), (torch, theirs)):
        x, h0, c0 = (lib.tensor(a.astype(np.float32), requires_grad=True) for a in arrays)
        y, (h, c) = m(x, (h0, c0))
        results.append([_node_names(y), _node_names(h), _node_counts(y)])
        loss = (y * y.detach().cos()).sum() + (h * c).sum() + c.sum()
        grads = lib.autograd.grad(loss, [x, h0, c0, *m.parameters()], create_graph=True)
        second = lib.autograd.grad(sum(g.pow(2).sum() for g in grads[:3]), [x, h0, c0])
        results[-1] += [y, h, c, *grads, *second]
    assert results[0][:3] == results[1][:3]  # (a batch-first sequence: its CloneBackward0)
    assert "MkldnnRnnLayerBackward0" in str(results[0][:2])
    # float32 sums over steps and gates in other orders than MKLDNN's: a few ulp of the
    # largest terms, on entries that cancel.
    for a, b in zip(results[0][3:], results[1][3:]):
        assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch, hidden", [(2, 4), (16, 64)], ids=["small", "formula-sigmoid"])
def test_float32_lstm_layer_plain_backward_matches_pytorch(batch, hidden):
    """The layer's forward and its backward on arrays (no create_graph), both directions,
    gradients from the output, h_n and c_n: PyTorch's values. (16, 64) gates take one
    sigmoid over all four, (2, 4) two as before."""
    torch = pytest.importorskip("torch")
    import leafgrad

    kwargs = {"num_layers": 2, "bidirectional": True}
    ours, theirs = leafgrad.nn.LSTM(5, hidden, **kwargs), torch.nn.LSTM(5, hidden, **kwargs)
    theirs.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in ours.state_dict().items()})
    rng = np.random.default_rng(7)
    shapes = ((6, batch, 5), (4, batch, hidden), (4, batch, hidden))
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib, m in ((leafgrad, ours), (torch, theirs)):
        x, h0, c0 = (lib.tensor(a.astype(np.float32), requires_grad=True) for a in arrays)
        y, (h, c) = m(x, (h0, c0))
        (y * y.detach().cos()).sum().add((h * c).sum()).add(c.sum()).backward()
        results.append([y, h, c, x.grad, h0.grad, c0.grad, *(p.grad for p in m.parameters())])
    assert "MkldnnRnnLayerBackward0" in str(_node_names(ours(leafgrad.zeros(1, 1, 5))[0]))
    for a, b in zip(*results):
        assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_lstm_layer_node_saves_what_pytorch_names():
    import leafgrad

    m = leafgrad.nn.LSTM(3, 4)
    x = leafgrad.randn(5, 2, 3)
    y, (h, _) = m(x)
    node = y.grad_fn
    assert node.name() == "MkldnnRnnLayerBackward0"
    assert node._saved_input is x and node._saved_weight1 is m.weight_hh_l0
    assert node._saved_reverse is False
    assert tuple(node._saved_result3.shape) == (5, 2, 20)  # the gates and cell per step
    np.testing.assert_array_equal(node._saved_result1.detach().numpy(), h[0].detach().numpy())
    # float64, projections and packed batches run step by step (PyTorch's float64 does too)
    assert m.double()(x.double())[0].grad_fn.name() == "StackBackward0"


def _node_counts(output) -> dict:
    seen, counts, stack = set(), {}, [output.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        counts[node.name()] = counts.get(node.name(), 0) + 1
        stack += [n for n, _ in node.next_functions]
    return counts


@pytest.mark.parametrize(
    "mode, kwargs",
    [("RNN", {}), ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
     ("LSTM", {}), ("LSTM", {"proj_size": 2}), ("RNN", {"batch_first": True}),
     ("GRU", {"batch_first": True}), ("LSTM", {"batch_first": True, "proj_size": 2})],
)  # fmt: skip
def test_step_by_step_layers_record_pytorchs_graph_node_for_node(mode, kwargs):
    """The input's products made for every step at once (one addmm between two views), the
    gates split with unsafe_chunk, GRU's ``(h - n) z + n``: PyTorch's cells' graphs."""
    _, _, ours, theirs = _pair_modules(mode, kwargs)
    x = np.random.default_rng(2).standard_normal((5, 2, 3))
    x_ours, x_theirs = pair(x, requires_grad=True)
    y_ours, y_theirs = ours(x_ours)[0], theirs(x_theirs)[0]
    assert _node_counts(y_ours) == _node_counts(y_theirs)  # (batch first: RNN and GRU
    assert y_ours.stride() == y_theirs.stride()  # transpose the output in place)


def test_linear_of_a_contiguous_3d_input_is_one_addmm_between_views_as_pytorch(torch):
    import leafgrad

    x = leafgrad.randn(4, 2, 3, requires_grad=True)
    y = leafgrad.nn.functional.linear(x, leafgrad.randn(5, 3), leafgrad.randn(5))
    assert y.grad_fn.name() == "ViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "AddmmBackward0"
    assert tuple(y.shape) == (4, 2, 5)


def test_float32_lstm_with_projections_warns_once_as_pytorch(monkeypatch):
    """PyTorch's CPU LSTM would take its oneDNN layer (float32, not packed) but for the
    projections, and says so once per process; float64 and plain layers say nothing."""
    import warnings

    import leafgrad
    from leafgrad import _warn

    monkeypatch.setattr(_warn, "_warned_once", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.nn.LSTM(3, 4)(leafgrad.randn(5, 2, 3))
        leafgrad.nn.LSTM(3, 4, proj_size=2).double()(leafgrad.randn(5, 2, 3).double())
        assert not caught
        m = leafgrad.nn.LSTM(3, 4, proj_size=2)
        m(leafgrad.randn(5, 2, 3))
        m(leafgrad.randn(5, 2, 3))
    assert [str(w.message) for w in caught] == [
        "LSTM with projections is not supported with oneDNN. Using default implementation."
    ]
    assert caught[0].category is UserWarning and caught[0].filename == __file__
