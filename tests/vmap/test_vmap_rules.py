"""The batching rules, over every op sample of the op table: vmap of the op equals the
stacked per-example results (all inputs batched, or only the first), and so do per-example
gradients through it; a guard fails when a registered primitive has no rule and no reason."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops._batching_table import NO_RULE, rules
from leafgrad.ops._optable import REGISTRY
from tests._tolerance import assert_close
from tests.ops.test_op_table import IDS, SAMPLES

B = 3
# Samples whose function cannot run under vmap, each with why.
_RULELESS = "its primitive has no batching rule (ops/_batching_table.py NO_RULE says why)"
NOT_BATCHED: dict = {
    "index-data-dependent-mask": "a mask's number of True values decides the shape, which "
    "differs per example (PyTorch's vmap refuses it too)",
}
# The fused Taylor path's kernels have no rule (NO_RULE says why).
NOT_BATCHED.update(
    {s.test_id: _RULELESS for s in SAMPLES if s.name in NO_RULE and s.name.startswith("jet_")}
)


def _examples(sample):
    return [[t.detach() for t in sample.inputs(seed)] for seed in range(B)]


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _check(sample, batched_args):
    if sample.test_id in NOT_BATCHED:
        pytest.skip(NOT_BATCHED[sample.test_id])
    examples = _examples(sample)
    n = len(examples[0])
    in_dims = tuple(0 if i in batched_args else None for i in range(n))
    stacked = [
        lg.stack([ex[i] for ex in examples]) if i in batched_args else examples[0][i]
        for i in range(n)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_example = [
            _outputs(sample.fn(*[ex[i] if i in batched_args else examples[0][i] for i in range(n)]))
            for ex in examples
        ]
        batched = _outputs(lg.vmap(sample.fn, in_dims=in_dims)(*stacked))
    assert len(batched) == len(per_example[0])
    for k, out in enumerate(batched):
        expected = np.stack([p[k].detach().numpy() for p in per_example])
        assert_close(out.detach(), expected, "direct", dtype=sample.round_off)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_vmap_of_the_op_equals_stacked_examples(sample):
    _check(sample, batched_args=set(range(len(sample.shapes) or 8)))


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_vmap_with_only_the_first_input_batched(sample):
    _check(sample, batched_args={0})


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_per_example_gradients_through_the_op(sample):
    """vmap(grad(sum(fn * w))) equals each example's gradient: the rules' backward batches."""
    if sample.test_id in NOT_BATCHED:
        pytest.skip(NOT_BATCHED[sample.test_id])
    examples = _examples(sample)
    n = len(examples[0])

    def loss(*xs):
        outs = [o for o in _outputs(sample.fn(*xs)) if o.dtype.is_floating_point]
        return sum((o * lg.cos(o.detach() + 1.0)).sum() for o in outs)

    argnums = tuple(range(n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_example = [lg.func.grad(loss, argnums=argnums)(*ex) for ex in examples]
        stacked = [lg.stack([ex[i] for ex in examples]) for i in range(n)]
        batched = lg.vmap(lg.func.grad(loss, argnums=argnums))(*stacked)
    for k in range(n):
        expected = np.stack([p[k].numpy() for p in per_example])
        assert_close(batched[k], expected, "direct", dtype=sample.round_off)


def test_every_primitive_has_a_batching_rule_or_a_reason():
    table = rules()
    missing = sorted(key for key in REGISTRY if key not in table and key not in NO_RULE)
    assert missing == [], f"primitives without a batching rule or a reason: {missing}"
    assert all(NO_RULE.values()), "every opt-out needs a reason"
    assert not set(table) & set(NO_RULE), "a primitive with a rule is also listed as without"
    assert set(NO_RULE) <= set(REGISTRY), "NO_RULE names keys that are not registered"


def test_not_batched_samples_really_fail_under_vmap():
    """Each opt-out is still needed: the sample raises under vmap (else remove it)."""
    by_id = {s.test_id: s for s in SAMPLES}
    for test_id in NOT_BATCHED:
        sample = by_id[test_id]
        stacked = [lg.stack(list(column)) for column in zip(*_examples(sample))]
        with pytest.raises(RuntimeError, match="vmap"):
            lg.vmap(sample.fn)(*stacked)


def test_an_op_without_a_rule_names_itself(monkeypatch):
    monkeypatch.delitem(rules(), "cumsum")
    x = lg.zeros(3, 4)
    with pytest.raises(RuntimeError, match="no batching rule for the operation 'cumsum'"):
        lg.vmap(lambda a: a.cumsum(0))(x)
