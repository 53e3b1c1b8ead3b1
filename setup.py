"""leafgrad's build: the modules every recorded op runs through, compiled by Cython where it can.

The modules stay plain Python (``leafgrad/_compiled.py`` lists them and says why); a build
without Cython or a C compiler, or with ``LEAFGRAD_PURE_PYTHON=1`` set, installs them as they
are, and leafgrad behaves the same, only slower per op. Each compiled module gets a
``.source-sha256`` file beside it so that leafgrad imports the ``.py`` instead of a compiled
copy that no longer matches its source (an edit after ``pip install -e .``).
"""

import os
import runpy
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
_COMPILED = runpy.run_path(str(HERE / "leafgrad" / "_compiled.py"))
COMPILED = _COMPILED["MODULES"]


def _extensions():
    if os.environ.get("LEAFGRAD_PURE_PYTHON"):
        return []
    try:
        from Cython.Build import cythonize  # why: the build requirement is optional in effect
    except ImportError:
        print(
            "leafgrad: Cython is not installed; the pure-Python modules are used", file=sys.stderr
        )
        return []
    sources = [name.replace(".", "/") + ".py" for name in COMPILED]
    options = dict(
        language_level=3,
        quiet=True,
        build_dir="build/cython",  # the generated C stays out of the source tree
        # Annotations in the sources document; they must not become Cython's type checks.
        compiler_directives={"annotation_typing": False, "binding": True},
    )
    try:
        return cythonize(sources, nthreads=os.cpu_count() or 1, **options)
    except Exception:  # one module Cython cannot translate: the others, one by one
        extensions = []
        for source in sources:
            try:
                extensions += cythonize([source], **options)
            except Exception as error:
                print(f"leafgrad: {source} stays pure Python ({error})", file=sys.stderr)
        return extensions


class OptionalBuildExt(build_ext):
    """Builds each compiled module if it can; a failure leaves that module pure Python."""

    def initialize_options(self):
        super().initialize_options()
        self.compiled_names = set()  # what this build compiled (a failure leaves it out)

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1  # each module is one C file: build them at once

    def run(self):
        try:
            super().run()
        except Exception as error:  # no compiler is a normal machine
            print(
                f"leafgrad: compiled modules skipped ({error}); pure Python is used",
                file=sys.stderr,
            )

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:
            print(f"leafgrad: {ext.name} not compiled ({error}); its .py is used", file=sys.stderr)
            return
        _record_source(ext.name, Path(self.get_ext_fullpath(ext.name)).parent)
        self.compiled_names.add(ext.name)

    def copy_extensions_to_source(self):
        """In place (``pip install -e .``), the hash goes beside the copy in the source tree,
        only for what this build compiled: an older copy of a module that failed now keeps
        its old hash, which no longer matches, so the ``.py`` runs."""
        built = [e for e in self.extensions if e.name in self.compiled_names]
        self.extensions = built
        super().copy_extensions_to_source()
        for ext in built:
            _record_source(ext.name, (HERE / ext.name.replace(".", "/")).parent)


def _record_source(name, directory):
    """Write the hash of the source ``name`` was compiled from, beside its compiled copy."""
    source = HERE / (name.replace(".", "/") + ".py")
    digest = _COMPILED["source_digest"](str(source))  # of the .py and its .pxd, if any
    (directory / (name.rsplit(".", 1)[1] + ".source-sha256")).write_text(digest + "\n")


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
