"""gradcheck and gradgradcheck (float64) for every sample of every op family, plus a guard
that no differentiable primitive overload ships without a sample."""

import importlib
import pkgutil
import warnings

import pytest

import leafgrad as lg
from leafgrad.autograd.gradcheck import gradcheck, gradgradcheck
from leafgrad.ops._optable import REGISTRY, Generic, NoDerivative
from leafgrad.ops._primitive import primitive

from . import __path__ as _ops_tests_path
from .optable import exercised

# Differentiable overloads without a sample, each with why (NoDerivative ops need none: their
# backward raises by declaration).
NO_SAMPLE: dict = {
    "special_zeta.other_scalar": "its one tensor is the exponent, which has no derivative "
    "(as in PyTorch)",
    **{
        f"einsum.{o}": "einsum records ATen's composite (permute, bmm, view ...) when an operand "
        "requires grad, so this primitive runs only where nothing records (no grad, forward "
        "mode, Taylor mode); test_jvp_table covers its forward rule"
        for o in ("view", "sum", "permute", "mul")
    },
}


def _all_samples():
    samples = []
    for mod in sorted(m.name for m in pkgutil.iter_modules(_ops_tests_path)):
        if mod.startswith("samples_"):
            samples.extend(importlib.import_module(f"tests.ops.{mod}").SAMPLES)
    return samples


SAMPLES = _all_samples()
IDS = [s.test_id for s in SAMPLES]


def _run(sample, check):
    inputs = sample.inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # e.g. a non-float64 input
        assert check(sample.fn, inputs, eps=sample.eps, atol=sample.atol, rtol=sample.rtol)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_gradcheck(sample):
    _run(sample, gradcheck)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_gradgradcheck(sample):
    if not sample.gradgrad:
        assert sample.reason, f"{sample.test_id} opts out of gradgradcheck without a reason"
        pytest.skip(sample.reason)
    _run(sample, gradgradcheck)


def test_every_differentiable_primitive_has_a_sample():
    covered = {key for s in SAMPLES for key in s.covered}
    missing = sorted(
        key
        for key, prim in REGISTRY.items()
        if prim.differentiable
        and type(prim.kind) is not NoDerivative
        and key not in covered
        and key not in NO_SAMPLE
    )
    assert missing == [], f"primitive overloads without an op-table sample: {missing}"
    assert all(NO_SAMPLE.values()), "every opt-out needs a reason"


def test_samples_name_registered_primitives():
    unknown = sorted({n for s in SAMPLES for n in s.covered} - set(REGISTRY))
    assert unknown == [], f"samples cover keys that are not registered primitives: {unknown}"


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_samples_exercise_the_overloads_they_name(sample):
    missing = sorted(set(sample.covered) - exercised(sample))
    assert missing == [], f"{sample.test_id} names {missing} but never calls them"


def test_gradcheck_detects_a_wrong_rule():
    wrong = primitive(
        "wrong_square_for_test",
        lambda x: x * x,
        (lambda grad, x, result: grad * x,),
        kind=Generic(),
        saves=("self",),
    )
    REGISTRY.pop("wrong_square_for_test")
    x = lg.tensor([0.5, 1.5], dtype=lg.float64, requires_grad=True)
    assert gradcheck(wrong, (x,), raise_exception=False) is False
    with pytest.raises(RuntimeError):
        gradcheck(wrong, (x,))
