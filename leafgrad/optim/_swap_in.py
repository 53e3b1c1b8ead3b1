"""``swap_in_optimizer_params_and_state``: run an optimizer's API on other parameters and
another state for the length of a ``with`` block, then put the live ones back."""

from __future__ import annotations

import contextlib
from collections import defaultdict

_NAME = "swap_in_optimizer_params_and_state"


def _checked_groups(optimizer, swapin_optim_state) -> tuple[dict, list]:
    """The swap-in ``state`` and ``param_groups``, checked against the live optimizer."""
    if not optimizer.state:
        raise RuntimeError(
            f"{_NAME} requires initialized optimizer state: take one optimizer.step() first"
        )
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(
            f"{_NAME} requires an optimizer.state_dict()-shaped dict, got "
            f"{type(swapin_optim_state).__name__}"
        )
    state, groups = swapin_optim_state.get("state"), swapin_optim_state.get("param_groups")
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME}: swapin_optim_state['state'] must be a dict")
    if not isinstance(groups, list) or len(groups) != len(optimizer.param_groups):
        raise RuntimeError(
            f"{_NAME}: swapin_optim_state['param_groups'] must be a list with one group per "
            f"optimizer param group ({len(optimizer.param_groups)})"
        )
    for i, (live, new) in enumerate(zip(optimizer.param_groups, groups)):
        if not isinstance(new, dict) or len(new.get("params", ())) != len(live["params"]):
            raise RuntimeError(
                f"{_NAME}: param_groups[{i}] must list {len(live['params'])} packed parameter "
                "ids under 'params', as optimizer.state_dict() does"
            )
    ids = {pid for g in groups for pid in g["params"]}
    extra = [k for k in state if k not in ids]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by the packed "
            f"parameter ids of param_groups[*]['params']; got extra keys {extra!r}."
        )
    return state, groups


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters: dict, swapin_optim_state):
    """Inside the block, ``optimizer`` steps ``swapin_parameters`` (name -> tensor, in the
    order of its parameters) with the state and hyperparameters of ``swapin_optim_state``
    (shaped as ``optimizer.state_dict()``); in-place updates of that state's tensors show in
    it, other changes are dropped. The live parameters, groups and state return on exit."""
    state, groups = _checked_groups(optimizer, swapin_optim_state)
    tensors = list(swapin_parameters.values())
    if len(tensors) != sum(len(g["params"]) for g in groups):
        raise RuntimeError(
            f"{_NAME} requires the explicit parameters to match optimizer.param_groups "
            f"ordering: got {len(tensors)} for {sum(len(g['params']) for g in groups)}"
        )
    live_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]  # keeps the params lists' identity
    try:
        swapped = defaultdict(dict)
        offset = 0
        for live, new in zip(optimizer.param_groups, groups):
            params = tensors[offset : offset + len(new["params"])]
            offset += len(params)
            live.update({k: v for k, v in new.items() if k != "params"}, params=params)
            for param, pid in zip(params, new["params"]):
                # a shallow copy: in-place tensor updates reach the caller's dict, new keys don't
                swapped[param] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for live, snapshot in zip(optimizer.param_groups, snapshots):
            live.clear()
            live.update(snapshot)
        optimizer.state = live_state
