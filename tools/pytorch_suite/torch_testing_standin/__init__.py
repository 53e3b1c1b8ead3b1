"""Our stand-ins for ``torch.testing._internal`` so PyTorch's test files run on leafgrad."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

# torch.testing._internal.X -> torch_testing_standin.X; torch.testing -> our small namespace
_PREFIXES = {
    "torch.testing": "torch_testing_standin.testing",
    "torch.testing._internal": "torch_testing_standin.internal",
    # out-of-scope modules the older test file imports at the top: stand-ins that skip on use
    "torch._six": "torch_testing_standin.six",
    "torch.autograd.profiler": "torch_testing_standin.out_of_scope",
    "torch.utils.checkpoint": "torch_testing_standin.out_of_scope",
}
_MODULES = (
    "common_utils",
    "common_device_type",
    "logging_tensor",
    "common_cuda",
    "common_methods_invocations",
    "autograd_function_db",
    "two_tensor",
    "custom_op_db",
    "common_dtype",
)


_LEAFGRAD = [True]  # which library ``torch`` is bound to


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves our stand-in modules under PyTorch's ``torch.testing`` names."""

    def _target(self, fullname):
        if fullname in sys.modules:
            return None
        if fullname == "torch.testing" and not _LEAFGRAD[0]:
            return None  # PyTorch's own torch.testing stays
        if fullname in _PREFIXES:
            return _PREFIXES[fullname]
        head = "torch.testing._internal."
        if fullname.startswith(head):
            rest = fullname[len(head) :]
            return "torch_testing_standin." + rest if rest in _MODULES else "missing"
        return None

    def find_spec(self, fullname, path=None, target=None):
        if self._target(fullname) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        target = self._target(spec.name)
        if target == "missing":
            raise ModuleNotFoundError(f"stand-in has no {spec.name}", name=spec.name)
        return importlib.import_module(target)

    def exec_module(self, module) -> None:
        """Already complete."""


def install(backend: str = "leafgrad") -> None:
    """Bind ``torch`` to leafgrad (or keep PyTorch, for the baseline) and put our
    ``torch.testing._internal`` in front of it."""
    if backend == "leafgrad":
        import leafgrad

        leafgrad.install_as_torch()
        sys.meta_path.insert(0, _Finder())
        torch = importlib.import_module("torch")
        torch.__dict__["testing"] = importlib.import_module("torch.testing")
        _profiler_names(torch)  # leafgrad has its own profiler now, as PyTorch does
        return
    _LEAFGRAD[0] = False
    for name in ("torch.autograd.profiler", "torch.utils.checkpoint"):
        del _PREFIXES[name]  # PyTorch has its own
    torch = importlib.import_module("torch")
    sys.meta_path.insert(0, _Finder())
    # names the older file takes from torch.testing that PyTorch 2.x no longer has
    torch.testing.randn_like = torch.randn_like
    from .legacy import get_all_dtypes

    torch.testing.get_all_dtypes = get_all_dtypes
    _profiler_names(torch)


def _profiler_names(torch) -> None:
    """Give a real ``torch.autograd.profiler`` the names the older file imports and it lacks."""
    from . import out_of_scope

    for name in ("format_time", "EventList", "FunctionEvent", "FunctionEventAvg", "emit_nvtx"):
        if not hasattr(torch.autograd.profiler, name):
            setattr(torch.autograd.profiler, name, out_of_scope._Skip)
