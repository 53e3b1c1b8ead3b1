"""autograd.explain(t): the spec's tensors explained in plain words.

Each account is checked for what it must say (leaf or not and why, the fate of .grad, the
state of the graph, the grad_fn chain), and its verdicts are checked against the facts the
tensor itself (and PyTorch, for the same code) reports.
"""

import re
import warnings

import pytest

import leafgrad
from leafgrad.autograd import explain

# backward(create_graph=True) warns about a reference cycle; beside the point here.
ignore_create_graph_warning = "ignore:Using backward\\(\\) with create_graph=True:UserWarning"


def lines_of(text: str) -> dict:
    """``{"leaf": "...", ".grad": "...", ...}`` from the ``- key: value`` lines."""
    out = {}
    for line in text.splitlines()[1:]:
        assert line.startswith("- "), line
        key, _, value = line[2:].partition(": ")
        out[key] = value
    return out


def spec_tensors(torch):
    """The first snippet of the spec: a, b, c, d."""
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    c = torch.tensor([5.0])
    d = c * c
    return a, b, c, d


# ----- the first snippet: a, b, c, d -----


def test_explain_leaf_created_by_user_that_requires_grad():
    a, _, _, _ = spec_tensors(leafgrad)
    text = explain(a)
    facts = lines_of(text)
    assert text.splitlines()[0] == "Tensor of shape [1], dtype torch.float32"
    assert list(facts) == ["leaf", "requires_grad", ".grad", "graph", "grad_fn chain"]
    assert facts["leaf"].startswith("yes: it was created by the user")
    assert "requires grad, so gradients stop here" in facts["leaf"]
    assert facts["requires_grad"].startswith("True, set on this leaf")
    assert facts[".grad"] == (
        "filled by backward(): gradients accumulate (add up) into it over calls; currently None."
    )
    assert facts["graph"].startswith(
        "a leaf: any graph computed from it ends at its AccumulateGrad"
    )
    assert facts["grad_fn chain"] == (
        "none; gradients arrive at AccumulateGrad(a leaf of shape [1])"
    )


def test_explain_non_leaf_names_its_op_and_chain():
    _, b, _, _ = spec_tensors(leafgrad)
    facts = lines_of(explain(b))
    assert facts["leaf"].startswith("no: it was computed by the op mul (grad_fn MulBackward0)")
    assert facts["requires_grad"] == "True, inherited from the inputs of the op that computed it."
    assert facts[".grad"].startswith("not filled by backward(): it is not a leaf")
    assert "Call retain_grad() on it before backward()" in facts[".grad"]
    assert facts["graph"].startswith("live: its nodes still hold their saved tensors")
    assert facts["grad_fn chain"] == "MulBackward0 -> AccumulateGrad(a leaf of shape [1])"


def test_explain_user_created_constant():
    _, _, c, _ = spec_tensors(leafgrad)
    facts = lines_of(explain(c))
    assert facts["leaf"] == (
        "yes: it was created by the user (not computed by an op) and does not require grad: "
        "to autograd it is a constant, like input data."
    )
    assert facts["requires_grad"] == "False."
    assert facts[".grad"].startswith("never filled: it does not require grad.")
    assert facts["graph"].startswith("not part of any graph")
    assert "grad_fn chain" not in facts


def test_explain_computed_constant_is_a_leaf_by_convention():
    _, _, _, d = spec_tensors(leafgrad)
    facts = lines_of(explain(d))
    assert facts["leaf"] == (
        "yes, by convention: every tensor with requires_grad=False is a leaf. It was computed "
        "only from tensors that need no grad (or by an op without a gradient, such as a "
        "comparison; gradients made by backward() or grad() without create_graph=True are "
        "such tensors too), so autograd treats it as a constant."
    )
    assert facts[".grad"].startswith("never filled")
    assert "grad_fn chain" not in facts


def test_explain_tensor_computed_under_no_grad_says_so():
    a = leafgrad.tensor([3.0], requires_grad=True)
    with leafgrad.no_grad():
        b = a * a
    assert (
        "computed in no-grad mode (no_grad, inference_mode or set_grad_enabled(False))"
        in lines_of(explain(b))["leaf"]
    )


def test_explain_verdicts_match_pytorch_on_the_spec_tensors():
    pytorch = pytest.importorskip("torch")
    for ours, theirs in zip(spec_tensors(leafgrad), spec_tensors(pytorch)):
        facts = lines_of(explain(ours))
        assert facts["leaf"].startswith("yes") is theirs.is_leaf is ours.is_leaf
        assert facts["requires_grad"].startswith(str(theirs.requires_grad))


# ----- retain_grad, .grad after backward -----


def test_explain_retained_non_leaf_grad_is_filled():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    assert lines_of(explain(b))[".grad"] == (
        "filled by backward() because retain_grad() was called on this non-leaf; currently None."
    )
    b.backward(retain_graph=True)
    assert lines_of(explain(b))[".grad"].endswith("currently a tensor of shape [1].")
    assert lines_of(explain(a))[".grad"].endswith("currently a tensor of shape [1].")


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_explain_grads_after_backward_with_create_graph():
    a = leafgrad.tensor([5.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    b.backward(create_graph=True)

    # a.grad has a graph of its own: a non-leaf that requires grad.
    facts = lines_of(explain(a.grad))
    assert facts["leaf"].startswith("no: it was computed by the op ")
    node = a.grad.grad_fn.name().rsplit("::", 1)[-1]  # explain drops PyTorch's namespace
    assert f"(grad_fn {node})" in facts["leaf"]
    assert facts["requires_grad"].startswith("True")
    assert facts["graph"].startswith("live")
    assert facts["grad_fn chain"].startswith(node + " -> ")
    # Down to the leaf a (how the engine builds a.grad's graph is its own business).
    assert re.search(r"-> AccumulateGrad\(a leaf of shape \[1\]\)\)*$", facts["grad_fn chain"])
    assert lines_of(explain(a))[".grad"].endswith(
        "currently a tensor of shape [1] that has a graph of its own "
        "(backward ran with create_graph=True)."
    )

    # b.grad (the gradient of b with respect to itself, 1) does not require grad.
    facts = lines_of(explain(b.grad))
    assert facts["leaf"].startswith("yes, by convention")
    assert "gradients made by backward() or grad() without create_graph=True" in facts["leaf"]
    assert facts["requires_grad"] == "False."
    assert facts[".grad"].startswith("never filled")


def test_explain_reading_non_leaf_grad_does_not_warn():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explain(b)


# ----- freed graphs -----


def test_explain_graph_freed_by_backward_without_retain_graph():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward()
    facts = lines_of(explain(b))
    assert facts["graph"] == (
        "freed: a backward() or autograd.grad() without retain_graph=True already went through "
        "it and released the saved tensors of MulBackward0. Going through it again raises "
        "RuntimeError; pass retain_graph=True to the earlier call to keep them."
    )
    with pytest.raises(RuntimeError):
        b.backward()


def test_explain_graph_kept_by_retain_graph_is_live():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward(retain_graph=True)
    assert lines_of(explain(b))["graph"].startswith("live")


def test_explain_graph_freed_further_down_is_partly_freed():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward()
    c = b * 2.0
    assert lines_of(explain(c))["graph"].startswith(
        "partly freed: its own node is live, but MulBackward0 further down released"
    )


def test_explain_graph_freed_by_autograd_grad():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a * a
    leafgrad.autograd.grad(b, a)
    assert lines_of(explain(b))["graph"].startswith("freed:")


# ----- other provenances -----


def test_explain_detached_tensor():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    facts = lines_of(explain(b.detach()))
    assert facts["leaf"].startswith("yes: it was produced by detach() (or .data)")
    assert "does not require grad" in facts["leaf"]
    assert lines_of(explain(b.data))["leaf"].startswith("yes: it was produced by detach()")
    facts = lines_of(explain(b.detach().requires_grad_()))
    assert facts["leaf"].startswith("yes: it was produced by detach() (or .data)")
    assert "then set to require grad" in facts["leaf"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: leafgrad.zeros(2, 3),
        lambda: leafgrad.randn(4),
        lambda: leafgrad.ones(2),
        lambda: leafgrad.Tensor([1.0, 2.0]),
    ],
    ids=["zeros", "randn", "ones", "Tensor"],
)
def test_explain_factory_tensors_are_user_created(make):
    assert lines_of(explain(make()))["leaf"].startswith("yes: it was created by the user")


def test_explain_computed_tensor_made_to_require_grad_is_a_leaf_variable():
    c = leafgrad.tensor([5.0])
    d = (c * c).requires_grad_()
    facts = lines_of(explain(d))
    assert facts["leaf"].startswith("yes: it has no grad_fn (no recorded op made it)")
    assert facts[".grad"].startswith("filled by backward()")


def test_explain_names_shapes_and_dtype():
    t = leafgrad.zeros(2, 3, dtype=leafgrad.float64, requires_grad=True)
    assert explain(t).splitlines()[0] == "Tensor of shape [2, 3], dtype torch.float64"
    s = leafgrad.tensor(1.0)
    assert explain(s).splitlines()[0] == "Tensor of shape [], dtype torch.float32"


def test_explain_rejects_non_tensors():
    with pytest.raises(TypeError, match="explain"):
        explain([1.0])


# ----- the grad_fn chain -----


def test_explain_chain_of_a_small_mlp_branches_in_parentheses():
    x = leafgrad.randn(4, 3)
    w = leafgrad.randn(3, 2, requires_grad=True)
    b = leafgrad.zeros(2, requires_grad=True)
    loss = leafgrad.tanh(x @ w + b).sum()
    assert lines_of(explain(loss))["grad_fn chain"] == (
        "SumBackward0 -> TanhBackward0 -> AddBackward0 -> (MmBackward0 -> "
        "AccumulateGrad(a leaf of shape [3, 2]), AccumulateGrad(a leaf of shape [2]))"
    )


def test_explain_chain_names_a_shared_node_once():
    a = leafgrad.tensor([3.0], requires_grad=True)
    h = a * 2.0
    y = h.sin() + h.cos()
    assert lines_of(explain(y))["grad_fn chain"] == (
        "AddBackward0 -> (SinBackward0 -> MulBackward0 -> AccumulateGrad(a leaf of shape [1]), "
        "CosBackward0 -> MulBackward0 (shared, as above))"
    )


def test_explain_long_chain_is_cut_without_recursing():
    x = leafgrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    chain = lines_of(explain(y))["grad_fn chain"]
    assert chain.startswith("MulBackward0 -> " * 16 + "MulBackward0 -> ...")
    assert chain.endswith("(3001 nodes in all; print(leafgrad.viz.tree(t)) shows them)")


def test_explain_is_exported_from_autograd():
    assert leafgrad.autograd.explain is explain
    assert "explain" in leafgrad.autograd.__all__
