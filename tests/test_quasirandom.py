"""leafgrad.quasirandom.SobolEngine: PyTorch's unscrambled points bit for bit, its draw /
draw_base2 / fast_forward / reset bookkeeping, dtypes and errors; scrambled points
reproducible under manual_seed."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dimension", [1, 2, 5, 40])
def test_unscrambled_points_are_pytorchs(dimension):
    ours, theirs = lg.quasirandom.SobolEngine(dimension), torch.quasirandom.SobolEngine(dimension)
    for step in (lambda e: e.draw(7), lambda e: e.fast_forward(9), lambda e: e.draw(64)):
        a, b = step(ours), step(theirs)
        if isinstance(b, torch.Tensor):
            assert str(a.dtype) == str(b.dtype) == "torch.float32"
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert ours.num_generated == theirs.num_generated


def test_draw_base2_keeps_the_balance_and_reset_starts_again():
    for lib in (lg, torch):
        engine = lib.quasirandom.SobolEngine(3)
        assert tuple(engine.draw_base2(2).shape) == (4, 3)
        assert tuple(engine.draw_base2(2).shape) == (4, 3)
        with pytest.raises(ValueError, match="balance properties"):
            engine.draw_base2(1)
        assert engine.reset() is engine and engine.num_generated == 0
        assert engine.draw(1).abs().sum().item() == 0.0  # the first point is the origin


def test_dtypes_out_and_repr_as_pytorchs():
    for lib in (lg, torch):
        engine = lib.quasirandom.SobolEngine(2)
        assert engine.draw(3, dtype=lib.float64).dtype == lib.float64
        out = lib.empty(0)
        assert engine.draw(2, out=out) is out and tuple(out.shape) == (2, 2)
        assert repr(lib.quasirandom.SobolEngine(4, scramble=True, seed=3)) == (
            "SobolEngine(dimension=4, scramble=True, seed=3)"
        )
        assert repr(engine) == "SobolEngine(dimension=2)"
        for bad in (0, 21202):
            with pytest.raises(ValueError, match="dimensionality"):
                lib.quasirandom.SobolEngine(bad)


def test_scrambled_points_are_reproducible_and_in_the_cube():
    lg.manual_seed(0)
    first = lg.quasirandom.SobolEngine(3, scramble=True).draw(16)
    lg.manual_seed(0)
    again = lg.quasirandom.SobolEngine(3, scramble=True).draw(16)
    assert lg.equal(first, again)
    assert lg.equal(
        lg.quasirandom.SobolEngine(3, scramble=True, seed=7).draw(4),
        lg.quasirandom.SobolEngine(3, scramble=True, seed=7).draw(4),
    )
    values = first.numpy()
    assert values.min() >= 0.0 and values.max() < 1.0 and not (values == 0).all(axis=1).any()
