"""leafgrad's build: the modules every recorded op runs through, compiled by Cython where it can.

The modules stay plain Python (``leafgrad/_compiled.py`` lists them and says why); a build
without Cython or a C compiler, or with ``LEAFGRAD_PURE_PYTHON=1`` set, installs them as they
are, and leafgrad behaves the same, only slower per op. Each compiled module gets a
``.source-sha256`` file beside it so that leafgrad imports the ``.py`` instead of a compiled
copy that no longer matches its source (an edit after ``pip install -e .``).

With GCC 10 or later the build is profile-guided where it can be: the modules are compiled
to count their branches, ``tools/pgo_training.py`` runs the benchmark workloads on them for
a few seconds, and they are compiled again laid out for the paths it took (hot code together,
cold code apart). Measured by ``benchmarks/ab.py`` against the plain ``-O3`` build (4
processes each, ratio to PyTorch): a nested Burgers step N = 1e3 float32 0.951 -> 0.880, the
collapsed one float64 0.609 -> 0.513 and float32 0.749 -> 0.639, the 13-op small chain 0.925
-> 0.851 (README, "Session 45"). The training needs leafgrad's dependencies importable,
which pip's isolated build of ``pip install -e .`` does not have yet: there the build is the
plain one, and ``python setup.py build_ext --inplace`` afterwards builds the guided one (the
README's main-job command and CI do). ``LEAFGRAD_PGO=0`` turns it off; any failure falls
back to the plain build.
"""

import os
import runpy
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
_COMPILED = runpy.run_path(str(HERE / "leafgrad" / "_compiled.py"))
COMPILED = _COMPILED["MODULES"]
PGO_TRAINING = HERE / "tools" / "pgo_training.py"
# Functions the training never ran are compiled as without a profile (not for size), so a
# path it missed is no slower than in the plain build.
PGO_USE_FLAGS = ("-fprofile-partial-training", "-fprofile-correction", "-Wno-missing-profile")
PGO_TRAINING_TIMEOUT_S = 900
# The generated C's debug info serves no one and takes a fifth of the compile time.
NO_DEBUG_INFO = ("-g0",)


# Written in C: kernels with no Python source (``_thin_gemm.c`` says why). Optional as the
# compiled modules are: where it does not build, NumPy's products are used.
C_EXTENSIONS = {"leafgrad.ops._thin_gemm": "leafgrad/ops/_thin_gemm.c"}


def _extensions():
    if os.environ.get("LEAFGRAD_PURE_PYTHON"):
        return []
    written_in_c = [Extension(name, [source]) for name, source in C_EXTENSIONS.items()]
    return written_in_c + _cython_extensions()


def _cython_extensions():
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
            if not (self.extensions and _gcc_with_pgo() and self._profile_guided()):
                self._build_with([], force=self.force)
        except Exception as error:  # no compiler is a normal machine
            print(
                f"leafgrad: compiled modules skipped ({error}); pure Python is used",
                file=sys.stderr,
            )

    def _profile_guided(self) -> bool:
        """The guided build (see the module's docstring): True once the modules are built,
        guided or, where the training failed, plain; False where it could not start."""
        missing = _training_cannot_import()
        if missing:
            print(
                f"leafgrad: profile-guided build skipped ({missing}); `python setup.py "
                "build_ext --inplace` once leafgrad's dependencies are installed builds it",
                file=sys.stderr,
            )
            return False
        with tempfile.TemporaryDirectory(prefix="leafgrad-pgo-") as profile:
            self._build_with([f"-fprofile-generate={profile}", "-fprofile-update=single"])
            if not self.compiled_names:
                return False  # nothing compiled (no compiler): run() reports it
            problem = self._train()
            if problem is None and not any(Path(profile).rglob("*.gcda")):
                problem = "no profile was written"
            if problem is None:
                self._build_with([f"-fprofile-use={profile}", *PGO_USE_FLAGS])
                print(
                    f"leafgrad: {len(self.compiled_names)} modules compiled, profile-guided",
                    file=sys.stderr,
                )
            else:
                print(
                    f"leafgrad: profile-guided build skipped ({problem}); the plain build is "
                    "used (`python setup.py build_ext --inplace` once leafgrad's dependencies "
                    "are installed builds the guided one)",
                    file=sys.stderr,
                )
                self._build_with([])
        return True

    def _build_with(self, flags: list, force: bool = True) -> None:
        """Every module compiled (again, with ``force``) with ``flags`` added."""
        for ext in self.extensions:
            ext.extra_compile_args = [*(NO_DEBUG_INFO if os.name == "posix" else ()), *flags]
            ext.extra_link_args = [f for f in flags if f.startswith("-fprofile-generate")]
        self.compiled_names = set()
        self.force = force
        if not hasattr(self, "_compiler_asked"):
            self._compiler_asked = self.compiler  # run() replaces it with the compiler made
        self.compiler = self._compiler_asked
        super().run()

    def _train(self) -> str | None:
        """Run the training workload on the modules just built; None, or why it could not."""
        if not PGO_TRAINING.exists():
            return "no training workload in this source"
        where = str(HERE if self.inplace else Path(self.build_lib).resolve())
        env = {k: v for k, v in os.environ.items() if k != "LEAFGRAD_PURE_PYTHON"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [where, env.get("PYTHONPATH")]))
        try:
            done = subprocess.run(
                [sys.executable, str(PGO_TRAINING), "--expect", where],
                env=env,
                capture_output=True,
                text=True,
                timeout=PGO_TRAINING_TIMEOUT_S,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"the training did not finish: {error}"
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            return f"the training failed: {lines[-1] if lines else done.returncode}"
        return None

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:
            instead = "NumPy's products are used" if ext.name in C_EXTENSIONS else "its .py is used"
            print(f"leafgrad: {ext.name} not compiled ({error}); {instead}", file=sys.stderr)
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


def _training_cannot_import() -> str | None:
    """Why the training workload could not run here (pip's isolated build has none of
    leafgrad's dependencies), or None."""
    needed = "numpy, scipy, threadpoolctl, tqdm"
    try:
        done = subprocess.run(
            [sys.executable, "-c", f"import {needed}"], capture_output=True, timeout=120
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"no interpreter for the training: {error}"
    return None if done.returncode == 0 else f"the training needs {needed}"


def _gcc_with_pgo() -> bool:
    """Whether the C compiler is GCC 10 or later (``-fprofile-partial-training``), and the
    guided build is not turned off."""
    if os.environ.get("LEAFGRAD_PGO") == "0":
        return False
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    try:
        said = [
            subprocess.run([*compiler, flag], capture_output=True, text=True, timeout=30).stdout
            for flag in ("--version", "-dumpversion")
        ]
    except (OSError, subprocess.SubprocessError):
        return False
    if "Free Software Foundation" not in said[0]:
        return False  # clang (on macOS named gcc too) takes other flags: the plain build
    major = said[1].strip().split(".")[0]
    return major.isdigit() and int(major) >= 10


def _record_source(name, directory):
    """Write the hash of the source ``name`` was compiled from, beside its compiled copy (a
    C extension has no ``.py`` for leafgrad to fall back to: no hash)."""
    if name in C_EXTENSIONS:
        return
    source = HERE / (name.replace(".", "/") + ".py")
    digest = _COMPILED["source_digest"](str(source))  # of the .py and its .pxd, if any
    (directory / (name.rsplit(".", 1)[1] + ".source-sha256")).write_text(digest + "\n")


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
