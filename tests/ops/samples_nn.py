"""Op-table samples for the primitives declared in leafgrad/nn (activations, layer norm)."""

import numpy as np

import leafgrad as lg
import leafgrad.nn.functional as F
from leafgrad.nn._activation_ops import hardswish_backward, hardtanh_backward
from leafgrad.nn._batch_norm_op import native_batch_norm
from leafgrad.nn._convolution_op import col2im, im2col
from leafgrad.nn._embedding_op import embedding_dense_backward
from leafgrad.nn._group_norm_op import native_group_norm
from leafgrad.nn._layer_norm_op import native_layer_norm
from leafgrad.nn._lstm_layer_op import lstm_layer
from leafgrad.nn._padding_ops import _PADS
from leafgrad.nn._pooling_ops import _ADAPTIVE_AVG, _ADAPTIVE_MAX, _AVG, _MAX
from leafgrad.nn._upsample_ops import _OPS as _UPSAMPLES
from leafgrad.nn._upsample_ops import _SCALE_NAMES

from .optable import OpSample, away_from

S = OpSample
_WINDOW = {"kernel": (2, 2), "stride": (2, 1), "dilation": (1, 2), "padding": (1, 0)}
_INDICES = lg.tensor([[0, 2, 2, 5], [5, 2, 1, 3]])
_RUNNING = (lg.tensor([0.5, -1.0], dtype=lg.float64), lg.tensor([2.0, 0.25], dtype=lg.float64))

SAMPLES = [
    S(
        "hardtanh",
        lambda x: F.hardtanh(x, -0.5, 1.0),
        ((2, 3),),
        make_inputs=away_from([-0.5, 1.0])([(2, 3)]),
    ),
    S(
        "hardtanh_backward",
        lambda g, x: hardtanh_backward(g * x, x, min_val=-1.0, max_val=1.0),
        ((2, 3), (2, 3)),
        make_inputs=away_from([-1.0, 1.0])([(2, 3), (2, 3)]),
    ),
    S(
        "hardswish",
        lambda x: F.hardswish(x),
        ((8,),),
        make_inputs=away_from([-3.0, 3.0], lo=-4.0, hi=4.0)([(8,)]),
    ),
    S(
        "hardswish_backward",
        lambda g, x: hardswish_backward(g, x),
        ((8,), (8,)),
        make_inputs=away_from([-3.0, 3.0], lo=-4.0, hi=4.0)([(8,), (8,)]),
    ),
    S(
        "hardsigmoid",
        lambda x: F.hardsigmoid(x),
        ((8,),),
        make_inputs=away_from([-3.0, 3.0], lo=-4.0, hi=4.0)([(8,)]),
        gradgrad=False,
        reason="PyTorch defines no derivative of hardsigmoid_backward (it raises)",
    ),
    S("celu", lambda x: F.celu(x, 0.7), ((5,),), make_inputs=away_from([0.0])([(5,)])),
    # All three outputs, so the statistics' gradients are checked too.
    S("native_layer_norm", lambda x: native_layer_norm(x, (3,), None, None, 1e-5), ((2, 3),)),
    S(
        "native_layer_norm.weight",
        lambda x, w: native_layer_norm(x, (2, 3), w, None, 1e-5),
        ((2, 2, 3), (2, 3)),
    ),
    S(
        "native_layer_norm.bias",
        lambda x, b: native_layer_norm(x, (3,), None, b, 1e-5),
        ((2, 3), (3,)),
    ),
    S(
        "native_layer_norm.weight_bias",
        lambda x, w, b: native_layer_norm(x, (4,), w, b, 1e-5),
        ((3, 4), (4,), (4,)),
    ),
    S(
        "native_layer_norm.weight_bias",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        ((2, 4), (4,), (4,)),
        id="layer_norm-functional",
    ),
    # The output (the statistics are not differentiated: PyTorch's are not public either).
    S(
        "native_batch_norm",
        lambda x: native_batch_norm(x, None, None, None, None, True, 1e-5)[0],
        ((4, 2, 3),),
    ),
    S(
        "native_batch_norm.weight_bias",
        lambda x, w, b: native_batch_norm(x, w, b, None, None, True, 1e-5)[0],
        ((3, 2), (2,), (2,)),
    ),
    S(
        "native_batch_norm.bias",
        lambda x, b: native_batch_norm(x, None, b, None, None, True, 1e-5)[0],
        ((3, 2, 2), (2,)),
    ),
    S(
        "native_batch_norm.weight",
        lambda x, w: native_batch_norm(x, w, None, _RUNNING[0], _RUNNING[1], False, 1e-5)[0],
        ((3, 2, 2), (2,)),
        id="batch_norm-eval",
    ),
    # One LSTM layer as one op (float32 modules use it; the table runs float64): every
    # output but the workspace, forward and reversed.
    S(
        "mkldnn_rnn_layer",
        lambda x, wi, wh, bi, bh, h, c: lstm_layer(x, wi, wh, bi, bh, h, c, reverse=False)[:3],
        ((3, 2, 2), (8, 2), (8, 2), (8,), (8,), (2, 2), (2, 2)),
    ),
    S(
        "mkldnn_rnn_layer",
        lambda x, wi, wh, bi, bh, h, c: lstm_layer(x, wi, wh, bi, bh, h, c, reverse=True)[0],
        ((2, 1, 3), (4, 3), (4, 1), (4,), (4,), (1, 1), (1, 1)),
        id="lstm-layer-reverse",
    ),
    S(
        "native_group_norm",
        lambda x: native_group_norm(x, None, None, 2, 1e-5)[0],
        ((2, 4, 3),),
    ),
    S(
        "native_group_norm.weight",
        lambda x, w: native_group_norm(x, w, None, 2, 1e-5)[0],
        ((2, 4), (4,)),
    ),
    S(
        "native_group_norm.bias",
        lambda x, b: native_group_norm(x, None, b, 1, 1e-5)[0],
        ((3, 2, 2), (2,)),
    ),
    S(
        "native_group_norm.weight_bias",
        lambda x, w, b: native_group_norm(x, w, b, 3, 1e-5)[0],
        ((2, 6, 2, 1), (6,), (6,)),
    ),
    S("embedding", lambda w: F.embedding(_INDICES, w), ((6, 3),)),
    # Without scale_grad_by_freq: PyTorch differentiates that backward as if unscaled, so its
    # VJP is not the adjoint of its forward then (tests/nn/test_layer_functions.py checks it).
    S(
        "embedding_dense_backward",
        lambda g: embedding_dense_backward(
            g, _INDICES, num_weights=6, padding_idx=2, scale_grad_by_freq=False
        ),
        ((2, 4, 3),),
    ),
    S("convolution", lambda x, w: F.conv1d(x, w, stride=2, padding=1), ((2, 2, 7), (3, 2, 3))),
    S(
        "convolution.bias",
        lambda x, w, b: F.conv2d(x, w, b, padding=(1, 0), dilation=(1, 2), groups=2),
        ((1, 4, 4, 5), (2, 2, 2, 2), (2,)),
    ),
    S(
        "convolution.transposed",
        lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1),
        ((2, 2, 4), (2, 3, 3)),
    ),
    S(
        "convolution.transposed_bias",
        lambda x, w, b: F.conv_transpose2d(x, w, b, padding=(1, 0), dilation=(1, 2), groups=2),
        ((1, 4, 3, 3), (4, 2, 2, 2), (4,)),
    ),
    S("affine_grid_generator", lambda t: F.affine_grid(t, [2, 1, 3, 4], False), ((2, 2, 3),)),
    S(
        "affine_grid_generator",
        lambda t: F.affine_grid(t, [2, 1, 2, 3, 2], True),
        ((2, 3, 4),),
        id="affine_grid_generator-3d",
    ),
    S("im2col.nd", lambda x: im2col(x, **_WINDOW), ((2, 2, 5, 4),)),
    S("col2im.nd", lambda c: col2im(c, shape=(2, 2, 5, 4), **_WINDOW), ((2, 2, 2, 2, 3, 2),)),
    S("im2col", lambda x: F.unfold(x, 2, (1, 2), (1, 0), (2, 1)), ((2, 2, 5, 4),)),
    S("im2col", lambda x: F.unfold(x, (1, 2), stride=2), ((2, 3, 4),), id="im2col-unbatched"),
    S("col2im", lambda c: F.fold(c, (5, 4), 2, (1, 2), (1, 0), (2, 1)), ((2, 8, 6),)),
    S("col2im", lambda c: F.fold(c, (3, 3), 2), ((4, 4),), id="col2im-unbatched-overlapping"),
    S(
        "max_pool2d_with_indices",
        lambda x: F.max_pool2d(x, 2, 1, 1, ceil_mode=True),
        ((1, 2, 4, 3),),
    ),
    S(
        "max_pool3d_with_indices",
        lambda x: F.max_pool3d(x, (2, 1, 2), dilation=(1, 1, 2)),
        ((2, 3, 2, 5),),
    ),
    S(
        "avg_pool2d",
        lambda x: F.avg_pool2d(x, (2, 3), 2, (1, 1), count_include_pad=False),
        ((1, 2, 5, 4),),
    ),
    S(
        "avg_pool3d",
        lambda x: F.avg_pool3d(x, 2, ceil_mode=True, divisor_override=3),
        ((2, 3, 3, 5),),
    ),
    S("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), ((1, 2, 5, 4),)),
    S("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, (2, 2, 3)), ((2, 3, 3, 5),)),
    S("constant_pad_nd", lambda x: F.pad(x, (1, 2, -1, 1)), ((2, 3, 4),)),
    S("constant_pad_nd.value", lambda x: F.pad(x, (2, -1), value=1.5), ((2, 3),)),
]


def _gather_pad_samples(mode, dims):
    """The pad, and its backward on its own (the input gives only its shape)."""
    shape = (2, 4, 3, 4)[4 - dims - 1 :]
    pad = (2, 1, 0, 2, 1, -1)[: 2 * dims]
    gather, scatter = _PADS[mode, dims]
    key = gather.primitive.key
    padded = tuple(gather(lg.zeros(shape), padding=pad).shape)
    return [
        S(key, lambda x: F.pad(x, pad, mode=mode), (shape,)),
        S(f"{key}_backward", lambda g, x: scatter(g, x, padding=pad), (padded, shape)),
    ]


def _pool_backward_samples(nd):
    """The pools' backwards on their own (the input gives only its shape)."""
    shape, window = (
        (2, 3, 5, 4)[: nd + 1],
        {"kernel_size": (2,) * nd, "stride": (), "padding": (1,) * nd},
    )
    max_pool, max_backward, take = _MAX[nd]
    avg_pool, avg_backward = _AVG[nd]
    maxed = {**window, "dilation": (1,) * nd, "ceil_mode": False}
    values, indices = max_pool(lg.tensor(np.random.default_rng(nd).standard_normal(shape)), **maxed)
    averaged = {**window, "ceil_mode": True, "count_include_pad": True, "divisor_override": None}
    out = tuple(avg_pool(lg.zeros(shape), **averaged).shape)
    return [
        S(
            f"max_pool{nd}d_with_indices_backward",
            lambda g, x: max_backward(g, x, indices, **maxed),
            (tuple(values.shape), shape),
        ),
        S(f"max_pool{nd}d_double_backward", lambda g: take(g, indices, **maxed), (shape,)),
        S(f"avg_pool{nd}d_backward", lambda g, x: avg_backward(g, x, **averaged), (out, shape)),
    ]


SAMPLES += [s for nd in (2, 3) for s in _pool_backward_samples(nd)]


def _adaptive_max_samples(nd):
    """The adaptive max pool's backward and double backward on their own."""
    shape = (2, 3, 5, 4)[: nd + 1]
    fn = F.adaptive_max_pool2d if nd == 2 else F.adaptive_max_pool3d
    values, indices = fn(lg.tensor(np.random.default_rng(nd).standard_normal(shape)), 2, True)
    _, backward, take = _ADAPTIVE_MAX[nd]
    return [
        S(
            f"adaptive_max_pool{nd}d_backward",
            lambda g, x: backward(g, x, indices),
            (tuple(values.shape), shape),
        ),
        S(f"adaptive_max_pool{nd}d_double_backward", lambda g: take(g, indices), (shape,)),
    ]


SAMPLES += [s for nd in (2, 3) for s in _adaptive_max_samples(nd)]


def _adaptive_avg_samples(nd):
    """The adaptive average pool (uneven windows, unbatched in 3-D) and its backward on its
    own (the input gives only its shape)."""
    shape, sizes = ((2, 3, 5, 7), (3, 4)) if nd == 2 else ((2, 5, 4, 3), (2, 3, 2))
    fn = F.adaptive_avg_pool2d if nd == 2 else F.adaptive_avg_pool3d
    _, backward = _ADAPTIVE_AVG[nd]
    names = [f"grad_output_sym_argsize_minus_{k}" for k in range(nd, 0, -1)]
    out = shape[: len(shape) - nd] + sizes
    return [
        S(f"_adaptive_avg_pool{nd}d", lambda x: fn(x, sizes), (shape,)),
        S(
            f"_adaptive_avg_pool{nd}d_backward",
            lambda g, x: backward(g, x, **dict(zip(names, sizes))),
            (out, shape),
        ),
    ]


SAMPLES += [s for nd in (2, 3) for s in _adaptive_avg_samples(nd)]


def _unpool_indices(shape, kernel, nd):
    """A max pool's indices over an input of ``shape`` (and the pooled shape)."""
    pool = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[nd - 1]
    x = lg.tensor(np.random.default_rng(nd).standard_normal(shape))
    _, indices = pool(x, kernel, return_indices=True)
    return indices, tuple(indices.shape)


_UNPOOL_2D, _UNPOOLED_2D = _unpool_indices((2, 3, 5, 4), 2, 2)
_UNPOOL_1D, _UNPOOLED_1D = _unpool_indices((3, 7), 3, 1)
_UNPOOL_3D, _UNPOOLED_3D = _unpool_indices((2, 4, 3, 4), (2, 1, 2), 3)
SAMPLES += [
    S(
        "max_unpool2d",
        lambda x: F.max_unpool2d(x, _UNPOOL_2D, 2, output_size=(5, 5)),
        (_UNPOOLED_2D,),
    ),
    S(
        "max_unpool2d",
        lambda x: F.max_unpool1d(x, _UNPOOL_1D, 3),
        (_UNPOOLED_1D,),
        id="max_unpool1d-unbatched",
    ),
    S("max_unpool3d", lambda x: F.max_unpool3d(x, _UNPOOL_3D, (2, 1, 2)), (_UNPOOLED_3D,)),
]


def _upsample_samples(mode, nd):
    """The resampling (sizes up one dim, down another) and its adjoint on its own."""
    shape = (1, 2, 3, 4, 3)[: nd + 2]
    sizes = (5, 3, 4)[:nd]
    align = None if mode.startswith("nearest") else True
    op, adjoint = _UPSAMPLES[mode, nd]
    params = dict(zip(_SCALE_NAMES[nd], (None,) * nd), output_size=sizes, self_sym_sizes=shape)
    if align is not None:
        params["align_corners"] = align
    out = tuple(op(lg.zeros(shape), **params).shape)
    return [
        S(
            op.primitive.key,
            lambda x: F.interpolate(x, size=sizes, mode=mode, align_corners=align),
            (shape,),
        ),
        S(adjoint.primitive.key, lambda g: adjoint(g, shape=shape, **params), (out,)),
    ]


SAMPLES += [s for mode, nd in _UPSAMPLES for s in _upsample_samples(mode, nd)]
SAMPLES += [s for mode in ("reflect", "replicate") for dims in (1, 2, 3)
            for s in _gather_pad_samples(mode, dims)]  # fmt: skip

# PyTorch's CPU flash attention (4-D, no dropout): its backward has no derivative and it has
# no forward-mode rule (NotImplementedError), as PyTorch's; both tables skip it by its id.
SAMPLES += [
    S(
        "_scaled_dot_product_flash_attention_for_cpu",
        lambda q, k, v, causal=causal: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
        ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)),
        gradgrad=False,
        reason="PyTorch defines no derivative of _scaled_dot_product_flash_attention_for_cpu_"
        "backward (its node is NotImplemented), nor does leafgrad",
        id=f"sdpa-flash-causal{causal}",
    )
    for causal in (False, True)
]
