"""The Cython-compiled core: used when current, the source when stale or when asked for."""

import ast
import hashlib
import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import _compiled

ROOT = Path(__file__).resolve().parents[1]


def _fake_build(root, name, *, compiled=True, recorded_source=None):
    """A module ``name`` under ``root`` with a stand-in compiled copy and its recorded hash."""
    stem = root.joinpath(*name.split("."))
    stem.parent.mkdir(parents=True, exist_ok=True)
    source = stem.with_suffix(".py")
    source.write_text("VALUE = 1\n")
    if compiled:
        Path(str(stem) + importlib.machinery.EXTENSION_SUFFIXES[0]).write_bytes(b"")
    text = source.read_bytes() if recorded_source is None else recorded_source
    Path(str(stem) + ".source-sha256").write_text(hashlib.sha256(text).hexdigest() + "\n")
    return source


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    monkeypatch.setattr(_compiled, "_PACKAGE_ROOT", str(tmp_path))
    monkeypatch.setattr(_compiled, "MODULES", ("fakepkg.core",))
    monkeypatch.delenv("LEAFGRAD_PURE_PYTHON", raising=False)
    return tmp_path


def test_a_current_compiled_copy_is_loaded_by_the_recording_loader(fake_package):
    source = _fake_build(fake_package, "fakepkg.core")
    assert _compiled.compiled_is_current("fakepkg.core")
    spec = _compiled._SourceWhenStale().find_spec("fakepkg.core")
    assert spec.origin == str(source.with_suffix(importlib.machinery.EXTENSION_SUFFIXES[0]))
    assert isinstance(spec.loader, _compiled._RecordingExtensionLoader)


def test_a_stale_compiled_copy_gives_way_to_the_edited_source(fake_package):
    source = _fake_build(fake_package, "fakepkg.core", recorded_source=b"VALUE = 0\n")
    assert not _compiled.compiled_is_current("fakepkg.core")
    spec = _compiled._SourceWhenStale().find_spec("fakepkg.core")
    assert spec.origin == str(source)


def test_pure_python_is_imported_when_asked_for(fake_package, monkeypatch):
    source = _fake_build(fake_package, "fakepkg.core")
    monkeypatch.setenv("LEAFGRAD_PURE_PYTHON", "1")
    assert _compiled._SourceWhenStale().find_spec("fakepkg.core").origin == str(source)


def test_without_a_compiled_copy_or_outside_the_list_the_finder_stays_out(fake_package):
    _fake_build(fake_package, "fakepkg.core", compiled=False)
    _fake_build(fake_package, "fakepkg.other")
    finder = _compiled._SourceWhenStale()
    assert not _compiled.compiled_is_current("fakepkg.core")
    assert finder.find_spec("fakepkg.core") is None
    assert finder.find_spec("fakepkg.other") is None


def test_an_edit_of_the_declarations_beside_a_module_makes_its_copy_stale(fake_package):
    source = _fake_build(fake_package, "fakepkg.core")
    declarations = source.with_suffix(".pxd")
    declarations.write_text("cdef class Core:\n    cdef public object value\n")
    assert not _compiled.compiled_is_current("fakepkg.core")  # built before the .pxd existed
    digest = _compiled.source_digest(str(source))
    source.with_suffix(".source-sha256").write_text(digest + "\n")
    assert _compiled.compiled_is_current("fakepkg.core")
    declarations.write_text("cdef class Core:\n    cdef public object value, other\n")
    assert not _compiled.compiled_is_current("fakepkg.core")
    assert _compiled.source_digest(str(source)) != digest
    declarations.unlink()  # without one, the digest is the .py's own (older builds stay valid)
    assert _compiled.source_digest(str(source)) == hashlib.sha256(source.read_bytes()).hexdigest()


def test_a_module_that_cimports_runs_compiled_only_beside_the_compiled_module_it_reads(
    fake_package, monkeypatch
):
    monkeypatch.setattr(_compiled, "MODULES", ("fakepkg.core", "fakepkg.fields"))
    core = _fake_build(fake_package, "fakepkg.core")
    fields = _fake_build(fake_package, "fakepkg.fields")
    core.with_suffix(".pxd").write_text("cimport cython\n\nfrom .fields cimport Fields\n")
    fields.with_suffix(".pxd").write_text("cdef class Fields:\n    cdef public object value\n")
    for source in (core, fields):
        digest = _compiled.source_digest(str(source))
        source.with_suffix(".source-sha256").write_text(digest + "\n")
    assert _compiled._cimported("fakepkg.core") == ("fakepkg.fields",)
    assert _compiled.compiled_is_current("fakepkg.core")
    fields.write_text("VALUE = 2\n")  # edited after the build: its .py runs
    assert not _compiled.compiled_is_current("fakepkg.fields")
    assert not _compiled.compiled_is_current("fakepkg.core")  # so core's .py runs too
    assert _compiled._SourceWhenStale().find_spec("fakepkg.core").origin == str(core)


def test_nodes_and_saves_are_c_types_where_compiled_and_their_classes_take_attributes():
    from leafgrad._engine import graph, saved

    compiled = _compiled.running_compiled("leafgrad._engine.graph")
    assert compiled == _compiled.running_compiled("leafgrad._engine.saved")
    for base, shell in ((graph._OpNode, graph.OpNode), (saved._SavedTensors, saved.SavedTensors)):
        # A C type's class refuses new attributes (Python's own never does); the class
        # everything uses (and monkeypatch sets on) is a Python subclass that takes them.
        if compiled:
            with pytest.raises(TypeError, match="immutable type"):
                base.extra_attribute = 1
        shell.extra_attribute = 1
        del shell.extra_attribute
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    node = y.grad_fn
    assert type(node).__name__ == "MulBackward0" and isinstance(node, graph.OpNode)
    assert isinstance(node._saved, saved.SavedTensors)
    with pytest.raises(AttributeError):
        node.not_a_field = 1  # no __dict__, as with the slots the pure source declares
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_each_listed_module_runs_compiled_exactly_when_its_copy_is_current():
    for name in _compiled.MODULES:
        importlib.import_module(name)
        wanted = _compiled.compiled_is_current(name) and not os.environ.get("LEAFGRAD_PURE_PYTHON")
        assert _compiled.running_compiled(name) == wanted, name


def test_leafgrad_pure_python_imports_every_listed_module_from_source():
    code = (
        "import importlib, leafgrad\n"
        "from leafgrad import _compiled\n"
        "for name in _compiled.MODULES:\n"
        "    assert importlib.import_module(name).__file__.endswith('.py'), name\n"
        "x = leafgrad.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * x).sum().backward()\n"
        "print(x.grad.tolist())\n"
    )
    assert _run_pure_source(code) == [2.0, 4.0]


def _run_pure_source(code: str):
    """What ``code`` prints (a Python literal), run in a fresh process on the pure source."""
    env = {**os.environ, "LEAFGRAD_PURE_PYTHON": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout.strip())


def test_the_pure_source_runs_where_cython_is_not_installed():
    # The engine's typed locals (``@cython.locals``) come from leafgrad._cython_pure then.
    code = (
        "import sys\n"
        "class NoCython:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('cython', 'Cython'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, NoCython())\n"
        "import leafgrad\n"
        "from leafgrad._engine import engine\n"
        "assert engine.cython.__name__ == 'leafgrad._cython_pure', engine.cython\n"
        "x = leafgrad.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * x.sin()).sum().backward()\n"
        "print(x.grad.tolist())\n"
    )
    x = np.array([1.0, 2.0])
    grad = _run_pure_source(code)
    np.testing.assert_allclose(grad, np.sin(x) + x * np.cos(x), rtol=1e-6)  # float32


def test_the_finder_is_installed_once_ahead_of_the_path_finders():
    finders = [f for f in sys.meta_path if isinstance(f, _compiled._SourceWhenStale)]
    assert len(finders) == 1
    assert sys.meta_path.index(finders[0]) < sys.meta_path.index(importlib.machinery.PathFinder)


@pytest.mark.parametrize("name", _compiled.MODULES)
def test_listed_modules_avoid_what_cython_compiles_differently(name):
    # Reference counts read inside a compiled function count its borrowed arguments
    # differently (the engine's counts live in _engine/accumulation.py, never compiled);
    # Cython has no ``match``: a module with one would silently stay pure Python.
    source = ROOT.joinpath(*name.split(".")).with_suffix(".py").read_text()
    tree = ast.parse(source)
    assert "getrefcount" not in source
    # No frames either: a fixed stacklevel or a caller's frame would point elsewhere.
    assert "stacklevel" not in source
    assert "_getframe" not in source
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Match)]
    assert "leafgrad._engine.accumulation" not in _compiled.MODULES
