"""``torch.__future__``: the flags that choose how ``Module`` conversions and
``load_state_dict`` change parameters (set ``.data``, assign new ones, or swap them)."""

_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Make ``Module.to()``/``double()``... assign new Parameters instead of setting ``.data``."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    """Whether conversions assign new Parameters (default False)."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Make conversions and ``load_state_dict`` swap each parameter's contents in place
    (``torch.utils.swap_tensors``); takes precedence over the overwrite flag."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    """Whether conversions and ``load_state_dict`` swap parameters (default False)."""
    return _swap_module_params_on_conversion
