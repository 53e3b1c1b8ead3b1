"""leafgrad.jit: scripts that script, trace or decorate their code run eagerly with the same
results; TorchScript archives are refused with what to do instead."""

import pytest

import leafgrad as lg


def test_script_trace_and_decorators_hand_back_what_they_get():
    def double(x):
        return x * 2

    module = lg.nn.Linear(2, 1)
    assert lg.jit.script(double) is double
    assert lg.jit.trace(module, lg.ones(1, 2)) is module
    assert lg.jit.trace_module(module, {"forward": lg.ones(1, 2)}) is module
    assert lg.jit.ignore(double) is double and lg.jit.ignore(drop=True)(double) is double
    assert lg.jit.unused(double) is double and lg.jit.export(double) is double
    assert lg.jit.annotate(list, [1]) == [1]
    assert not lg.jit.is_scripting() and not lg.jit.is_tracing()
    assert lg.jit.wait(lg.jit.fork(double, lg.ones(2))).tolist() == [2.0, 2.0]
    with lg.jit.optimized_execution(True):
        assert double(lg.ones(1)).item() == 2.0


def test_a_scripted_module_trains_as_the_module():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (lg, torch):
        lib.manual_seed(0)
        model = lib.jit.script(lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Tanh()))
        out = model(lib.ones(4, 2, dtype=model[0].weight.dtype))
        out.sum().backward()
        results.append(model[0].weight.grad.shape)
    assert tuple(results[0]) == tuple(results[1])


def test_freeze_wants_eval_mode_and_archives_are_refused(tmp_path):
    model = lg.nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match="eval mode"):
        lg.jit.freeze(model)
    assert lg.jit.freeze(model.eval()) is model
    with pytest.raises(RuntimeError, match="state_dict"):
        lg.jit.save(model, tmp_path / "m.pt")
    with pytest.raises(RuntimeError, match="load_state_dict"):
        lg.jit.load(tmp_path / "m.pt")
