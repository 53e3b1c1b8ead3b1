"""Op-table samples for ops/losses.py: each loss with every reduction, derivatives in both
operands (the kinks of Huber and smooth L1 kept away from the samples); nll_loss with and
without class weights, an ignored target and spatial dims; BCE of probabilities and of
logits with and without weights; soft and multi margin losses."""

import numpy as np

import leafgrad as lg
from leafgrad.ops import losses, multi_margin, soft_margin

from .optable import OpSample, away_from


def _kinks_apart(rng):
    """Input and target whose differences stay away from +-0.5 (the kinks at delta/beta)."""
    x = rng.uniform(-1.0, 1.0, (3, 4))
    (d,) = away_from([-0.5, 0.5], margin=0.05, lo=-1.5, hi=1.5)([(3, 4)])(rng)
    return [x + d, x]


_SIGNS = lg.tensor(np.array([[1.0, -1.0, 0.5, -2.0]] * 3))  # soft margin's targets
_CLASSES = lg.tensor([2, 0, 3])  # multi margin's targets


def _apart_from_margins(rng):
    """Inputs whose margins ``0.7 - x[i, y_i] + x[i, j]`` stay 0.1 or more away from 0 (the
    kink), some of them positive and some negative."""
    while True:
        x = rng.uniform(-1.0, 1.0, (3, 4))
        z = 0.7 - x[np.arange(3), _CLASSES.numpy()][:, None] + x
        if np.all(np.abs(z) > 0.1) and (z > 0).any() and (z < 0).any():
            return [x]


SAMPLES = [
    *(
        OpSample(
            "mse_loss",
            lambda x, y, r=r: losses.mse_loss(x, y, reduction=r),
            ((3, 4), (3, 4)),
            id=f"mse_loss-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
    OpSample("mse_loss", lambda x, y: losses.mse_loss(x, y, reduction=1), ((), ()), id="mse-0d"),
    *(
        OpSample(
            "mse_loss_backward",
            lambda g, x, y, r=r: losses.mse_loss_backward(
                g if r == 0 else g.sum(), x, y, reduction=r
            ),
            ((3, 4), (3, 4), (3, 4)),
            id=f"mse_loss_backward-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
    *(
        OpSample(
            loss,
            lambda x, y, r=r, loss=loss, shape=shape: getattr(losses, loss)(
                x, y, reduction=r, **{shape: 0.5}
            ),
            ((3, 4), (3, 4)),
            make_inputs=_kinks_apart,
            id=f"{loss}-{name}",
        )
        for loss, shape in (("huber_loss", "delta"), ("smooth_l1_loss", "beta"))
        for name, r in losses.REDUCTIONS.items()
    ),
    *(
        OpSample(
            f"{loss}_backward",
            lambda g, x, y, r=r, loss=loss, shape=shape: getattr(losses, f"{loss}_backward")(
                g if r == 0 else g.sum(), x, y, reduction=r, **{shape: 0.5}
            ),
            ((3, 4), (3, 4), (3, 4)),
            make_inputs=lambda rng: [rng.uniform(-1.0, 1.0, (3, 4)), *_kinks_apart(rng)],
            id=f"{loss}_backward-{name}",
        )
        for loss, shape in (("huber_loss", "delta"), ("smooth_l1_loss", "beta"))
        for name, r in losses.REDUCTIONS.items()
    ),
    *(
        OpSample(
            "nll_loss",
            lambda x, r=r, w=w: losses.nll_loss(
                x,
                target=np.array([0, 2, -100, 1]),
                weight=w,
                ignore_index=-100,
                reduction=r,
                class_dim=1,
            ),
            ((4, 3),),
            id=f"nll_loss-{name}-{'weighted' if w is not None else 'plain'}",
        )
        for name, r in losses.REDUCTIONS.items()
        for w in (None, np.array([0.5, 2.0, 1.5]))
    ),
    OpSample(
        "nll_loss",
        lambda x: losses.nll_loss(
            x,
            target=np.array([[[1, 0], [2, 2]]]),
            weight=None,
            ignore_index=-100,
            reduction=1,
            class_dim=1,
        ),
        ((1, 3, 2, 2),),
        id="nll_loss-spatial",
    ),
    *(
        OpSample(
            "nll_loss2d",
            lambda x, r=r: losses.nll_loss2d(
                x,
                target=np.array([[[1, 0], [2, -100]], [[0, 0], [2, 1]]]),
                weight=np.array([0.5, 2.0, 1.5]),
                ignore_index=-100,
                reduction=r,
                class_dim=1,
            ),
            ((2, 3, 2, 2),),
            id=f"nll_loss2d-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
    OpSample(
        "nll_loss",
        lambda x: losses.nll_loss(
            x, target=np.array(2), weight=None, ignore_index=-100, reduction=1, class_dim=0
        ),
        ((3,),),
        id="nll_loss-unbatched",
    ),
    *(
        OpSample(
            "binary_cross_entropy_with_logits",
            lambda x, y, r=r, w=w, p=p: losses.binary_cross_entropy_with_logits(
                x, y, weight=w, pos_weight=p, reduction=r
            ),
            ((4, 3), (4, 3)),
            id=f"bce_logits-{name}-{w is not None}-{p is not None}",
        )
        for name, r in losses.REDUCTIONS.items()
        for w, p in (
            (None, None),
            (np.linspace(0.5, 2.0, 12).reshape(4, 3), np.array([0.5, 1.5, 3.0])),
        )
    ),
    *(
        OpSample(
            "binary_cross_entropy_backward",
            lambda g, x, y, r=r, w=w: losses.binary_cross_entropy_backward(
                g if r == 0 else g.sum(), x, y, weight=w, reduction=r
            ),
            ((4, 3), (4, 3), (4, 3)),
            make_inputs=lambda rng: [
                rng.uniform(-1.0, 1.0, (4, 3)),
                rng.uniform(0.05, 0.95, (4, 3)),
                rng.uniform(0.0, 1.0, (4, 3)),
            ],
            # PyTorch's double backwards add 1e-12 to their denominators: forward and
            # reverse mode agree to ~1e-11 relative, not to float64's round-off
            round_off="float32",
            id=f"bce_backward-{name}-{w is not None}",
        )
        for name, r in losses.REDUCTIONS.items()
        for w in (None, np.linspace(0.5, 2.0, 12).reshape(4, 3))
    ),
    *(
        OpSample(
            "binary_cross_entropy",
            lambda x, y, r=r, w=w: losses.binary_cross_entropy(x, y, weight=w, reduction=r),
            ((4, 3), (4, 3)),
            domain=(0.05, 0.95),
            round_off="float32",  # (as bce_backward's)
            id=f"bce-{name}-{w is not None}",
        )
        for name, r in losses.REDUCTIONS.items()
        for w in (None, np.linspace(0.5, 2.0, 12).reshape(4, 3))
    ),
    # soft margin: the target a constant (PyTorch differentiates the input only)
    *(
        OpSample(
            "soft_margin_loss",
            lambda x, r=r: soft_margin.soft_margin_loss(x, _SIGNS, reduction=r),
            ((3, 4),),
            id=f"soft_margin-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
    *(
        OpSample(
            "soft_margin_loss_backward",
            lambda g, x, r=r: soft_margin.soft_margin_loss_backward(
                g if r == 0 else g.sum(), x, _SIGNS, reduction=r
            ),
            ((3, 4), (3, 4)),
            id=f"soft_margin_backward-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
    # multi margin: its backward has no derivative (PyTorch's NotImplemented node)
    *(
        OpSample(
            "multi_margin_loss",
            lambda x, p=p, r=r, w=w: multi_margin.multi_margin_loss(
                x, _CLASSES, p=p, margin=0.7, weight=w, reduction=r
            ),
            ((3, 4),),
            make_inputs=_apart_from_margins,
            gradgrad=False,
            reason="PyTorch defines no derivative of multi_margin_loss_backward (its node is "
            "NotImplemented), nor does leafgrad",
            id=f"multi_margin-p{p}-{name}-{w is not None}",
        )
        for name, r in losses.REDUCTIONS.items()
        for p in (1, 2)
        for w in (None, np.array([0.5, 1.0, 1.5, 2.0]))
    ),
]
