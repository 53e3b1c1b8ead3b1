"""MultiheadAttention and the Transformer stack against PyTorch with copied weights."""

import warnings

import numpy as np
import pytest

import leafgrad as lg

from ._compare import assert_close, copy_weights

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(7)


def _pair(array, requires_grad=False):
    return lg.tensor(array, requires_grad=requires_grad), torch.tensor(
        array, requires_grad=requires_grad
    )


def _attention_pair(**kwargs):
    ours = lg.nn.MultiheadAttention(8, 2, **kwargs).double()
    theirs = torch.nn.MultiheadAttention(8, 2, **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_weights(ours, theirs)
    return ours, theirs


PADDING = np.zeros((3, 5), bool)
PADDING[0, 3:] = True
BLOCKED = np.triu(np.ones((4, 5), bool), 2)
MASKS = [{}, {"key_padding_mask": PADDING}, {"attn_mask": BLOCKED},
         {"attn_mask": np.where(BLOCKED, -1.5, 0.0), "key_padding_mask": PADDING}]  # fmt: skip
MODULES = [{}, {"batch_first": True}, {"add_bias_kv": True, "add_zero_attn": True},
           {"kdim": 3, "vdim": 5}, {"bias": False}]  # fmt: skip
CALLS = [{}, {"need_weights": False}, {"average_attn_weights": False}]


@pytest.mark.parametrize("module_kwargs", MODULES)
@pytest.mark.parametrize("call_kwargs", CALLS)
@pytest.mark.parametrize("masks", MASKS)
def test_multihead_attention_matches_pytorch(module_kwargs, call_kwargs, masks):
    ours, theirs = _attention_pair(**module_kwargs)
    q = RNG.standard_normal((4, 3, 8))
    k = RNG.standard_normal((5, 3, module_kwargs.get("kdim", 8)))
    v = RNG.standard_normal((5, 3, module_kwargs.get("vdim", 8)))
    if module_kwargs.get("batch_first"):
        q, k, v = (a.transpose(1, 0, 2).copy() for a in (q, k, v))
    (q_ours, q_theirs), (k_ours, k_theirs), (v_ours, v_theirs) = (
        _pair(q, True), _pair(k), _pair(v))  # fmt: skip
    m_ours = {n: lg.tensor(m) for n, m in masks.items()}
    m_theirs = {n: torch.tensor(m) for n, m in masks.items()}
    out, weights = ours(q_ours, k_ours, v_ours, **m_ours, **call_kwargs)
    ref, ref_weights = theirs(q_theirs, k_theirs, v_theirs, **m_theirs, **call_kwargs)
    assert_close(out, ref)
    assert_close(weights, ref_weights)
    grads = lg.autograd.grad((out**2).sum(), [q_ours, *ours.parameters()])
    ref_grads = torch.autograd.grad((ref**2).sum(), [q_theirs, *theirs.parameters()])
    for g, r in zip(grads, ref_grads):
        assert_close(g, r)


def test_multihead_attention_unbatched_and_causal_hint():
    ours, theirs = _attention_pair()
    q_ours, q_theirs = _pair(RNG.standard_normal((4, 8)))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    out, _ = ours(q_ours, q_ours, q_ours, attn_mask=lg.tensor(mask.numpy()), is_causal=True,
                  need_weights=False)  # fmt: skip
    ref, _ = theirs(q_theirs, q_theirs, q_theirs, attn_mask=mask, is_causal=True,
                    need_weights=False)  # fmt: skip
    assert_close(out, ref)
    out, weights = ours(q_ours, q_ours, q_ours)
    ref, ref_weights = theirs(q_theirs, q_theirs, q_theirs)
    assert_close(out, ref)
    assert_close(weights, ref_weights)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        ours(q_ours, q_ours, q_ours, is_causal=True)


@pytest.mark.parametrize(
    "kwargs", [{}, {"batch_first": True, "norm_first": True, "activation": "gelu"}]
)
def test_transformer_matches_pytorch_with_masks(kwargs):
    sizes = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2,
             "dim_feedforward": 16, "dropout": 0.0}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's nested-tensor advice
        ours = lg.nn.Transformer(**sizes, **kwargs).double()
        theirs = torch.nn.Transformer(**sizes, **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_weights(ours, theirs)
    src, tgt = RNG.standard_normal((5, 2, 8)), RNG.standard_normal((4, 2, 8))
    if kwargs.get("batch_first"):
        src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
    (s_ours, s_theirs), (t_ours, t_theirs) = _pair(src, True), _pair(tgt, True)
    tgt_mask = lg.nn.Transformer.generate_square_subsequent_mask(4, dtype=lg.float64)
    padding = np.zeros((2, 5), bool)
    padding[1, 4] = True
    out = ours(s_ours, t_ours, tgt_mask=tgt_mask, src_key_padding_mask=lg.tensor(padding),
               memory_key_padding_mask=lg.tensor(padding))  # fmt: skip
    ref = theirs(s_theirs, t_theirs, tgt_mask=torch.tensor(tgt_mask.numpy()),
                 src_key_padding_mask=torch.tensor(padding),
                 memory_key_padding_mask=torch.tensor(padding))  # fmt: skip
    assert_close(out, ref)
    grads = lg.autograd.grad((out**2).sum(), [s_ours, t_ours, *ours.parameters()])
    ref_grads = torch.autograd.grad((ref**2).sum(), [s_theirs, t_theirs, *theirs.parameters()])
    for g, r in zip(grads, ref_grads):
        # two stacks of layer norms: gradients that cancel to ~1e-21 differ in the last bits
        assert_close(g, r, "iterative")


def test_square_subsequent_mask_is_zero_below_and_minus_inf_above():
    mask = lg.nn.Transformer.generate_square_subsequent_mask(3)
    expected = torch.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.numpy(), expected.numpy())
    assert mask.dtype == lg.float32


def _graph(root) -> list:
    """Every node under ``root`` once: ``(index, name, indices of its next_functions)``."""
    seen, nodes = {}, []

    def walk(node):
        if node is None:
            return None
        if id(node) not in seen:
            seen[id(node)] = len(seen)
            kids = tuple(walk(child) for child, _ in node.next_functions)
            nodes.append((seen[id(node)], node.name(), kids))
        return seen[id(node)]

    walk(root)
    return sorted(nodes)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("same", ["qkv", "kv"])
def test_multihead_attention_projects_shared_inputs_once_as_pytorch(batch_first, same):
    """Self-attention (``q is k is v``) projects with the whole ``in_proj_weight`` once and
    attention over one memory (``k is v``) projects keys and values together, recording
    PyTorch's unflatten, transpose, copy and selects; values and gradients as PyTorch's."""
    ours, theirs = _attention_pair(batch_first=batch_first)
    shape, memory = ((3, 4, 8), (3, 5, 8)) if batch_first else ((4, 3, 8), (5, 3, 8))
    x_ours, x_theirs = _pair(RNG.standard_normal(shape), True)
    m_ours, m_theirs = _pair(RNG.standard_normal(memory), True)
    if same == "qkv":
        m_ours, m_theirs = x_ours, x_theirs
    for call in ({}, {"need_weights": False}):
        out = ours(x_ours, m_ours, m_ours, **call)[0]
        ref = theirs(x_theirs, m_theirs, m_theirs, **call)[0]
        assert_close(out, ref)
        grads = lg.autograd.grad((out**2).sum(), [x_ours, m_ours, *ours.parameters()])
        ref_grads = torch.autograd.grad((ref**2).sum(), [x_theirs, m_theirs, *theirs.parameters()])
        for g, r in zip(grads, ref_grads):
            assert_close(g, r)
    if not batch_first:  # (a linear of a transposed 3-D input records other nodes)
        out = ours(x_ours, m_ours, m_ours)[0]
        ref = theirs(x_theirs, m_theirs, m_theirs)[0]
        assert _graph(out.grad_fn) == _graph(ref.grad_fn)


@pytest.mark.parametrize(
    "layer_kwargs",
    [{}, {"batch_first": True}, {"batch_first": True, "norm_first": True},
     {"batch_first": True, "nhead": 1}, {"batch_first": True, "bias": False},
     {"batch_first": True, "activation": "gelu"}, {"batch_first": True, "activation": abs}],
)  # fmt: skip
def test_encoder_says_why_pytorch_would_not_take_nested_tensors(layer_kwargs):
    """PyTorch's encoder warns (at the caller) when its layer rules out the nested-tensor fast
    path, and says why; leafgrad, which has no such path, says the same."""
    torch = pytest.importorskip("torch")
    seen = []
    for m in (lg, torch):
        kwargs = dict(layer_kwargs)
        layer = m.nn.TransformerEncoderLayer(8, kwargs.pop("nhead", 2), 16, **kwargs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            encoder = m.nn.TransformerEncoder(layer, 2)
        quiet = m.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).use_nested_tensor
        seen.append(
            (
                [(w.category, str(w.message), w.filename) for w in caught],
                encoder.use_nested_tensor,
                quiet,
                layer.activation_relu_or_gelu,
            )
        )
    assert seen[0] == seen[1]
