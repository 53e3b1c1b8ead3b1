"""nn.Module's state machinery (``nn/_module_state.py``): the state-dict and load hooks,
``get_extra_state`` / ``set_extra_state``, the ``_metadata`` of versions, and overrides of
``_save_to_state_dict`` / ``_load_from_state_dict`` with PyTorch's signatures.

Each test runs with leafgrad and with PyTorch (see conftest.py)."""

import pytest


def _net(torch):
    return torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))


def test_state_dict_hooks_run_in_order_with_prefixes_and_metadata(torch):
    net, log = _net(torch), []
    net.register_state_dict_pre_hook(lambda m, prefix, keep: log.append(("pre", prefix, keep)))
    net[0].register_state_dict_pre_hook(lambda m, prefix, keep: log.append(("pre", prefix, keep)))
    net.register_state_dict_post_hook(
        lambda m, sd, prefix, meta: log.append(("post", prefix, len(sd), meta))
    )
    sd = net.state_dict(keep_vars=True)
    assert log == [("pre", "", True), ("pre", "0.", True), ("post", "", 4, {"version": 1})]
    assert dict(sd._metadata) == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 1},
                                  "2": {"version": 1}}  # fmt: skip


def test_a_state_dict_post_hook_may_edit_in_place_but_not_return(torch):
    net = _net(torch)
    handle = net.register_state_dict_post_hook(lambda m, sd, p, meta: sd.pop("2.bias"))
    with pytest.raises(RuntimeError, match="must return None"):
        net.state_dict()
    handle.remove()
    net.register_state_dict_post_hook(lambda m, sd, p, meta: sd.pop("2.bias") and None)
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.weight"]


def test_load_hooks_see_the_state_and_may_fix_the_keys(torch):
    net, log = _net(torch), []

    def pre(module, sd, prefix, meta, strict, missing, unexpected, errors):
        log.append(("pre", prefix, strict, sorted(k for k in sd if k.startswith(prefix))))

    def post(module, keys):
        log.append(("post", list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.missing_keys.clear()  # in place: the load then passes though strict

    net[2].register_load_state_dict_pre_hook(pre)
    net.register_load_state_dict_post_hook(post)
    sd = net.state_dict()
    del sd["0.bias"]
    result = net.load_state_dict(sd)
    assert log == [("pre", "2.", True, ["2.bias", "2.weight"]), ("post", ["0.bias"], [])]
    assert list(result.missing_keys) == [] and str(result) == "<All keys matched successfully>"


def test_a_load_post_hook_must_not_return(torch):
    net = _net(torch)
    net.register_load_state_dict_post_hook(lambda m, keys: keys)
    with pytest.raises(AssertionError):
        net.load_state_dict(net.state_dict())


def test_private_state_dict_hooks_that_libraries_use(torch):
    """``_register_state_dict_hook`` (a dict it returns replaces the root's result) and
    ``_register_load_state_dict_pre_hook`` (called without the module unless
    ``with_module``), which libraries still call."""
    net, log = _net(torch), []

    def renamed(module, sd, prefix, meta):
        return {"renamed." + k: v for k, v in sd.items()}

    net[0]._register_state_dict_hook(renamed)  # a child's returned dict is ignored
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    handle = net._register_state_dict_hook(renamed)
    assert next(iter(net.state_dict())) == "renamed.0.weight"
    handle.remove()

    def public(module, sd, prefix, meta):
        pass

    net.register_state_dict_post_hook(public)
    with pytest.raises(RuntimeError, match="previously registered"):
        net._register_state_dict_hook(public)

    net[2]._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: log.append(prefix))
    net[2]._register_load_state_dict_pre_hook(
        lambda m, sd, prefix, *rest: log.append((type(m).__name__, len(rest))), with_module=True
    )
    net.load_state_dict(net.state_dict())
    assert log == ["2.", ("Linear", 5)]


def test_positional_state_dict_arguments_are_deprecated(torch):
    net, destination = _net(torch), {}
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        assert net.state_dict(destination, "m.") is destination
    assert next(iter(destination)) == "m.0.weight"


def test_extra_state_is_saved_loaded_and_required(torch):
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(1, 1)
            self.steps = 0

        def get_extra_state(self):
            return {"steps": self.steps}

        def set_extra_state(self, state):
            self.steps = state["steps"]

    a, b = Counter(), Counter()
    a.steps = 7
    sd = a.state_dict()
    assert list(sd) == ["_extra_state", "lin.weight", "lin.bias"]
    b.load_state_dict(sd)
    assert b.steps == 7
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        b.load_state_dict({"lin.weight": sd["lin.weight"], "lin.bias": sd["lin.bias"]})
    plain = torch.nn.Linear(1, 1)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        plain.load_state_dict({**plain.state_dict(), "_extra_state": 1})
    assert "_extra_state" not in plain.state_dict()


def test_overrides_with_pytorchs_signatures_are_called(torch):
    calls = []

    class Scaled(torch.nn.Linear):
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = torch.ones(1)

        def _load_from_state_dict(
            self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors
        ):
            calls.append((prefix, local_metadata.get("version"), strict))
            state_dict.pop(prefix + "scale", None)
            super()._load_from_state_dict(
                state_dict, prefix, local_metadata, strict, missing, unexpected, errors
            )

    net = torch.nn.Sequential(Scaled(2, 2))
    sd = net.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "0.scale"]
    net.load_state_dict(sd)
    assert calls == [("0.", 1, True)]
