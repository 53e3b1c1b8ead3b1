"""torch.func's checks of outputs and tangents, with PyTorch's error types: vjp and jvp (and
jacrev, jacfwd built like them) need at least one output; vjp and jacrev need floating
outputs; an integer tangent is make_dual's ValueError, not converted."""

import pytest

import leafgrad as lg


def _cases(m):
    x = m.ones(3, dtype=m.float64)
    f = m.func
    return {
        "vjp of no output": (RuntimeError, lambda: f.vjp(lambda x: (), x)),
        "vjp of an empty dict": (RuntimeError, lambda: f.vjp(lambda x: {}, x)),
        "vjp of None": (RuntimeError, lambda: f.vjp(lambda x: None, x)),
        "jvp of no output": (RuntimeError, lambda: f.jvp(lambda x: (), (x,), (x,))),
        "jacrev of no output": (RuntimeError, lambda: f.jacrev(lambda x: ())(x)),
        "jacfwd of no output": (RuntimeError, lambda: f.jacfwd(lambda x: ())(x)),
        "vjp of an integer output": (RuntimeError, lambda: f.vjp(lambda x: x.long(), x)),
        "vjp of a mixed output": (RuntimeError, lambda: f.vjp(lambda x: (x, x.long()), x)),
        "jacrev of an integer output": (RuntimeError, lambda: f.jacrev(lambda x: x.long())(x)),
        "jvp with an integer tangent": (
            ValueError,
            lambda: f.jvp(lambda x: x * 2, (x,), (m.ones(3, dtype=m.long),)),
        ),
    }


@pytest.mark.parametrize("case", sorted(_cases(lg)))
def test_raises_pytorchs_error_type(case):
    error, call = _cases(lg)[case]
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("case", sorted(_cases(lg)))
def test_pytorch_raises_the_same(case):
    torch = pytest.importorskip("torch")
    error, call = _cases(torch)[case]
    with pytest.raises(error):
        call()


def test_what_stays_allowed():
    x = lg.ones(3, dtype=lg.float64)
    # an integer aux, a jvp's or jacfwd's integer output, a float32 tangent: as in PyTorch
    _, _, aux = lg.func.vjp(lambda x: (x.sum(), x.long()), x, has_aux=True)
    assert aux.dtype == lg.int64
    primal, _ = lg.func.jvp(lambda x: x.long(), (x,), (x,))
    assert primal.dtype == lg.int64
    assert lg.func.jacfwd(lambda x: x.long())(x).shape == (3, 3)
    _, t = lg.func.jvp(lambda x: x * 2, (x,), (lg.ones(3),))
    assert t.dtype == lg.float64 and t.tolist() == [2.0, 2.0, 2.0]
