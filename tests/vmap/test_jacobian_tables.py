"""The Jacobian transforms over every op sample. jacfwd equals the Jacobian from reverse
mode: its vmap over the basis batches the tangents only (the primal is computed once), so
each op's forward rule meets a batched tangent of a plain primal. vmap(jacrev) equals the
stacked per-example Jacobians: there the identity's rows are a level the outputs are not
batched at, so each op's backward rule meets a gradient batched beyond its saved values."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close
from tests.ops.test_jvp_table import REFUSES_FORWARD_AD
from tests.ops.test_op_table import IDS, SAMPLES

from .test_vmap_rules import NOT_BATCHED

B = 2


def _floating_outputs(out):
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return tuple(o for o in outs if isinstance(o, lg.Tensor) and o.dtype.is_floating_point)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_jacfwd_equals_the_reverse_mode_jacobian(sample):
    if sample.test_id in REFUSES_FORWARD_AD:
        pytest.skip(REFUSES_FORWARD_AD[sample.test_id])
    xs = [t.detach() for t in sample.inputs(0)]
    wrt = tuple(i for i, x in enumerate(xs) if x.dtype.is_floating_point)
    if not wrt:
        pytest.skip("no floating input to differentiate")

    def f(*ys):
        return _floating_outputs(sample.fn(*ys))

    def of_floats(*fs):
        return f(*[fs[wrt.index(i)] if i in wrt else x for i, x in enumerate(xs)])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not f(*xs):
            pytest.skip("no floating output")
        expected = lg.autograd.functional.jacobian(of_floats, tuple(xs[i] for i in wrt))
        got = lg.func.jacfwd(f, argnums=wrt)(*xs)
    for o, row in enumerate(expected):
        for k, block in enumerate(row):
            assert_close(got[o][k], block.numpy(), "direct", dtype=sample.round_off)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_vmap_of_jacrev_equals_the_stacked_jacobians(sample):
    if sample.test_id in NOT_BATCHED:
        pytest.skip(NOT_BATCHED[sample.test_id])
    examples = [[t.detach() for t in sample.inputs(seed)] for seed in range(B)]
    wrt = tuple(i for i, x in enumerate(examples[0]) if x.dtype.is_floating_point)
    if not wrt:
        pytest.skip("no floating input to differentiate")

    def f(*ys):
        return _floating_outputs(sample.fn(*ys))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not f(*examples[0]):
            pytest.skip("no floating output")
        per_example = [lg.func.jacrev(f, argnums=wrt)(*ex) for ex in examples]
        stacked = [lg.stack(list(column)) for column in zip(*examples)]
        got = lg.vmap(lg.func.jacrev(f, argnums=wrt))(*stacked)
    for o, row in enumerate(got):
        for k, block in enumerate(row):
            stacked = np.stack([p[o][k].numpy() for p in per_example])
            assert_close(block, stacked, "direct", dtype=sample.round_off)


def test_the_primal_is_computed_once_not_per_basis_vector():
    """Inside f, the argument's value holds the points only: the columns of jacfwd's basis
    live in the tangent (else every op would run once per column)."""
    seen = []

    def f(x):
        seen.append(tuple(lg._batched.physical(x).shape))
        return lg.tanh(x * x.flip(0)).sum()

    x = lg.randn(7, 2, dtype=lg.float64)
    hessians = lg.vmap(lg.func.hessian(f))(x)
    assert seen == [(7, 2)]
    seen.clear()
    jac = lg.func.jacfwd(lambda v: lg.tanh(v * v.flip(0)))(x[0])
    f(x[0])
    assert seen == [(2,)]
    reverse = lg.stack([lg.func.hessian(f)(p) for p in x])
    assert_close(hessians, reverse.numpy(), "direct")
    assert tuple(jac.shape) == (2, 2)


def test_random_draws_per_column_batch_the_primal_too():
    """With randomness='different' each column draws its own values, so there the primal is
    batched along the columns (and the Jacobian is still right)."""
    seen = []

    def f(x):
        seen.append(tuple(lg._batched.physical(x).shape))
        return x * lg.rand(())

    j = lg.func.jacfwd(f, randomness="different")(lg.ones(4))
    assert seen == [(4, 4)]
    diagonal = np.diag(j.numpy())
    assert np.array_equal(j.numpy(), np.diag(diagonal)) and len(set(diagonal.tolist())) == 4
