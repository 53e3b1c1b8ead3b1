"""Run PyTorch code on leafgrad: ``import torch`` and every ``torch.*`` import resolve here.

``install_as_torch()`` (the convention of PyMySQL's ``install_as_MySQLdb()``) puts a finder in
front of the import system; ``leafgrad run script.py`` calls it and runs the script as
``python script.py`` would. Installed as ``torch``, leafgrad reports the PyTorch API version
it follows (``leafgrad.version.__version__``) so libraries' version checks pass;
``leafgrad.__version__`` stays leafgrad's own.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys
import types

from . import version
from .torch_version import TorchVersion

_NAME = "torch"


class _TorchModule(types.ModuleType):
    """``torch``: leafgrad under PyTorch's name, with PyTorch's version string."""

    def __init__(self, leafgrad) -> None:
        super().__init__(_NAME, leafgrad.__doc__)
        self.__dict__["_leafgrad"] = leafgrad
        self.__version__ = TorchVersion(version.__version__)  # compares as a version
        self.__path__ = []  # a package, so that ``import torch.nn`` reaches the finder

    def __getattr__(self, name: str):
        try:
            return getattr(self._leafgrad, name)
        except AttributeError:
            raise AttributeError(f"module 'torch' (leafgrad) has no attribute {name!r}") from None

    def __dir__(self):
        return sorted(set(dir(self._leafgrad)) | set(self.__dict__))


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Maps ``torch`` to the alias module and ``torch.x.y`` to ``leafgrad.x.y``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == _NAME or fullname.startswith(_NAME + "."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        if spec.name == _NAME:
            return _TorchModule(importlib.import_module("leafgrad"))
        target = "leafgrad" + spec.name[len(_NAME) :]
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name != target:
                raise
            raise ModuleNotFoundError(
                f"No module named {spec.name!r}: leafgrad has no {target} (see "
                "python -m leafgrad.coverage for what it provides)",
                name=spec.name,
            ) from None
        _alias_loaded_submodules()
        return module

    def exec_module(self, module) -> None:
        """The module was made whole by ``create_module``."""


def _alias_loaded_submodules() -> None:
    """Register every loaded ``leafgrad.x.y`` as ``torch.x.y`` too.

    Importing a submodule not yet in ``sys.modules`` makes Python set it as an attribute of
    its parent: ``import torch.autograd.gradcheck`` would replace the function
    ``leafgrad.autograd.gradcheck`` with the module of that name. PyTorch's own packages
    import such submodules up front, so there the function stays; listing the loaded ones
    here keeps it so under the alias as well."""
    for name, module in list(sys.modules.items()):
        if name.startswith("leafgrad.") and module is not None:
            sys.modules.setdefault(_NAME + name[len("leafgrad") :], module)


def install_as_torch() -> None:
    """Make ``import torch`` give leafgrad from now on (before PyTorch itself is imported)."""
    loaded = sys.modules.get(_NAME)
    if isinstance(loaded, _TorchModule):
        return
    if loaded is not None:
        raise RuntimeError(
            "install_as_torch(): PyTorch itself is already imported; call it before "
            "anything imports torch"
        )
    sys.meta_path.insert(0, _Finder())


def run(target: str, args: list[str], module: bool = False) -> None:
    """Run a script (or, with ``module=True``, a module) as ``python`` would, on leafgrad."""
    install_as_torch()
    if module:
        sys.argv = [target, *args]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        return
    if not os.path.exists(target):
        raise FileNotFoundError(f"leafgrad run: no such script: {target!r}")
    sys.argv = [target, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(target))
    runpy.run_path(target, run_name="__main__")
