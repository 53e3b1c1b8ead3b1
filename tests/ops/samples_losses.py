"""Op-table samples for ops/losses.py: each loss with every reduction, derivatives in both
operands (the kinks of Huber and smooth L1 kept away from the samples)."""

from leafgrad.ops import losses

from .optable import OpSample, away_from


def _kinks_apart(rng):
    """Input and target whose differences stay away from +-0.5 (the kinks at delta/beta)."""
    x = rng.uniform(-1.0, 1.0, (3, 4))
    (d,) = away_from([-0.5, 0.5], margin=0.05, lo=-1.5, hi=1.5)([(3, 4)])(rng)
    return [x + d, x]


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
            "huber_loss",
            lambda x, y, r=r: losses.huber_loss(x, y, reduction=r, delta=0.5),
            ((3, 4), (3, 4)),
            make_inputs=_kinks_apart,
            id=f"huber_loss-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
    *(
        OpSample(
            "smooth_l1_loss",
            lambda x, y, r=r: losses.smooth_l1_loss(x, y, reduction=r, beta=0.5),
            ((3, 4), (3, 4)),
            make_inputs=_kinks_apart,
            id=f"smooth_l1_loss-{name}",
        )
        for name, r in losses.REDUCTIONS.items()
    ),
]
