"""Which modules the build compiles with Cython, and importing their source when a copy is stale.

Every recorded op and every backward node runs through these modules; compiled, their Python
costs about a fifth less per op (README, "Session 33"). They are plain Python and stay the
only source: ``setup.py`` compiles them where Cython and a C compiler are present. A few have
a ``.pxd`` beside them declaring their classes' fields as C fields (the graph's nodes and
saves), which Cython alone reads; the ``.py`` behaves the same without it. A compiled
module shadows its ``.py``, so an edit after the build would silently not run; the finder
below imports the ``.py`` instead whenever the source no longer has the hash the build
recorded beside the compiled copy, or when ``LEAFGRAD_PURE_PYTHON`` is set (to profile by
line, measure coverage, or test the pure path). This file imports only the standard library:
``setup.py`` reads ``MODULES`` from it before NumPy is installed.
"""

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import sys

MODULES = (
    "leafgrad._engine.engine",
    "leafgrad._engine.graph",
    "leafgrad._engine.saved",
    "leafgrad._engine.plan",
    "leafgrad.ops._primitive",
    "leafgrad.ops._plain",
    "leafgrad.ops._operands",
    "leafgrad._tensor",
    "leafgrad.ops._gemm",
    "leafgrad.ops._reduce",
    "leafgrad.ops._select",
    "leafgrad.ops._sums",
    "leafgrad.ops._vml",
    "leafgrad.ops._fused",
    "leafgrad.ops.activations",
    "leafgrad.ops.arithmetic",
    "leafgrad.ops.broadcast",
    "leafgrad.ops.elementwise",
    "leafgrad.ops.indexing",
    "leafgrad.ops.linalg",
    "leafgrad.ops.matmul",
    "leafgrad.ops.power",
    "leafgrad.ops.reduction",
    "leafgrad.ops.shape",
    "leafgrad.ops.view_history",
    "leafgrad._engine.entry",
    "leafgrad.autograd.taylor",
    "leafgrad.ops._jets",
    "leafgrad.ops.fused_jets",
    "leafgrad.ops._fused_jets",
    "leafgrad.ops.jet_kernels",
    "leafgrad.ops.jet_values",
    "leafgrad.ops.jet_blocks",
    "leafgrad.ops.jet_activations",
    "leafgrad.ops.jet_dense",
    "leafgrad.ops.slicing",
    "leafgrad.ops.reorder",
    "leafgrad.optim._arrays",
    "leafgrad.optim._flat_adam",
    "leafgrad.nn.module",
    "leafgrad.nn.linear",
    "leafgrad.nn.functional",
    "leafgrad.ops.losses",
    "leafgrad.ops.softmax",
)

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _paths(name):
    """The module's ``.py``, its compiled copy (or None) and the hash file the build wrote."""
    stem = os.path.join(_PACKAGE_ROOT, *name.split("."))
    compiled = next(
        (
            stem + suffix
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if os.path.exists(stem + suffix)
        ),
        None,
    )
    return stem + ".py", compiled, stem + ".source-sha256"


def compiled_is_current(name, _seen=()):
    """Whether ``name`` has a compiled copy built from its present source, and so has every
    listed module whose C types its ``.pxd`` cimports: compiled code that reads their fields
    cannot run beside their ``.py`` (importing it would fail)."""
    source, compiled, recorded = _paths(name)
    if compiled is None or not os.path.exists(recorded):
        return False
    with open(recorded) as digest:
        if source_digest(source) != digest.read().strip():
            return False
    return all(
        compiled_is_current(other, (*_seen, name))
        for other in _cimported(name)
        if other not in _seen
    )


def _cimported(name):
    """The listed modules that ``name``'s ``.pxd`` cimports from (``from .saved cimport ...``)."""
    declarations = _declarations(_paths(name)[0])
    if not os.path.exists(declarations):
        return ()
    found = []
    with open(declarations) as text:
        for line in text:
            match = re.match(r"\s*from\s+(\.*)([\w.]*)\s+cimport\b", line)
            if match is None:
                continue
            dots, rest = match.groups()
            parts = name.split(".")[: -len(dots)] if dots else []
            other = ".".join(parts + [rest] if rest else parts)
            if other in MODULES:
                found.append(other)
    return tuple(found)


def _declarations(source):
    """The ``.pxd`` beside the module whose ``.py`` is ``source`` (it may not exist)."""
    return source[: -len(".py")] + ".pxd"


def source_digest(source):
    """The hash a build records for the module whose ``.py`` is ``source``: of the ``.py`` and
    of the ``.pxd`` beside it where there is one (Cython's declarations of its C fields), so
    an edit of either makes the compiled copy stale. ``setup.py`` writes it."""
    digest = hashlib.sha256()
    with open(source, "rb") as text:
        digest.update(text.read())
    declarations = _declarations(source)
    if os.path.exists(declarations):
        with open(declarations, "rb") as text:
            digest.update(b"\0pxd\0" + text.read())
    return digest.hexdigest()


def running_compiled(name):
    """Whether the imported module ``name`` is its compiled copy."""
    return not sys.modules[name].__file__.endswith(".py")


# The compiled modules whose top level is running now, innermost last. A compiled module's
# code runs in no Python frame, so what reads its caller's frame at import
# (``_exposure.public``: the declaring module) reads this instead.
EXECUTING: list = []


class _RecordingExtensionLoader(importlib.machinery.ExtensionFileLoader):
    """Loads a compiled copy, keeping its name on ``EXECUTING`` while its top level runs."""

    def exec_module(self, module):
        EXECUTING.append(module.__name__)
        try:
            super().exec_module(module)
        finally:
            EXECUTING.pop()


class _SourceWhenStale:
    """Finds a listed module: its ``.py`` where the compiled copy is stale or unwanted."""

    def find_spec(self, name, path=None, target=None):
        if name not in MODULES:
            return None
        source, compiled, _ = _paths(name)
        if compiled is None:
            return None  # nothing shadows the source; the normal finders find it
        if os.environ.get("LEAFGRAD_PURE_PYTHON") or not compiled_is_current(name):
            return importlib.util.spec_from_file_location(name, source)
        return importlib.util.spec_from_file_location(
            name, compiled, loader=_RecordingExtensionLoader(name, compiled)
        )

    def invalidate_caches(self):
        pass


# Ahead of the path finders, before any listed module is imported (leafgrad imports this first).
if not any(isinstance(finder, _SourceWhenStale) for finder in sys.meta_path):
    sys.meta_path.insert(0, _SourceWhenStale())
