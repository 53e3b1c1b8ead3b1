"""Our ``common_utils``: TestCase, parametrization, skips, and gradcheck bound to leafgrad."""

from __future__ import annotations

import contextlib
import enum
import functools
import importlib
import itertools
import os
import sys
import unittest
import warnings

from .compare import compare

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform == "darwin"
IS_LINUX = sys.platform.startswith("linux")
TEST_MKL = False
TEST_WITH_ROCM = False
TEST_CUDA = False
TEST_WITH_TORCHDYNAMO = False
TEST_WITH_CROSSREF = False
TEST_WITH_ASAN = False
IS_FBCODE = False
IS_SANDCASTLE = False
TEST_NUMPY = True
TEST_SCIPY = True
TEST_WITH_SLOW = False


class OutOfScope(unittest.SkipTest):
    """A feature the measurement leaves out (CUDA, vmap, LoggingTensor, ...)."""


class HardwareClassification(enum.Enum):
    GENERIC = "generic"
    ACCELERATOR = "accelerator"


def gradcheck(fn, inputs, **kwargs):
    """leafgrad's gradcheck; batched (vmap) checking is out of scope, so not on by default."""
    if kwargs.get("check_batched_grad") or kwargs.get("check_batched_forward_grad"):
        raise OutOfScope("batched gradcheck (vmap)")
    return importlib.import_module("torch").autograd.gradcheck(fn, inputs, **kwargs)


def gradgradcheck(fn, inputs, grad_outputs=None, **kwargs):
    """leafgrad's gradgradcheck, without batched checking."""
    if kwargs.get("check_batched_grad"):
        raise OutOfScope("batched gradgradcheck (vmap)")
    torch = importlib.import_module("torch")
    return torch.autograd.gradgradcheck(fn, inputs, grad_outputs, **kwargs)


SEED = 1234  # PyTorch's default --seed


def set_rng_seed(seed):
    """Seed the bound ``torch``, Python's ``random`` and NumPy, as PyTorch's helper does."""
    import random

    import numpy as np

    importlib.import_module("torch").manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


class TestCase(unittest.TestCase):
    """unittest.TestCase with a tensor-aware assertEqual."""

    exact_dtype = True
    precision = 1e-5

    def setUp(self):
        # Like PyTorch's TestCase: every test starts from the same seeds, so a run is
        # reproducible and a random draw cannot make a test pass once and fail the next time.
        set_rng_seed(SEED)

    def assertEqual(
        self,
        x,
        y,
        msg=None,
        *,
        atol=None,
        rtol=None,
        equal_nan=True,
        exact_dtype=True,
        exact_device=False,
        **_,
    ):
        if isinstance(msg, (int, float)) and atol is None:  # old positional precision
            atol, rtol, msg = msg, 0.0, None
        if atol is not None and rtol is None:
            rtol = 0.0
        if rtol is not None and atol is None:
            atol = 0.0
        err = compare(x, y, rtol, atol, equal_nan, exact_dtype)
        if err:
            raise self.failureException(f"{msg}\n{err}" if msg else err)

    def assertRaisesRegex(self, expected_exception, expected_regex, *args, **kwargs):
        # LG_SUITE_MESSAGES=type: check the exception type only (our messages are our words)
        if os.environ.get("LG_SUITE_MESSAGES") == "type":
            return self.assertRaises(expected_exception, *args, **kwargs)
        return super().assertRaisesRegex(expected_exception, expected_regex, *args, **kwargs)

    def assertWarnsRegex(self, expected_warning, expected_regex, *args, **kwargs):
        if os.environ.get("LG_SUITE_MESSAGES") == "type":
            return self.assertWarns(expected_warning, *args, **kwargs)
        return super().assertWarnsRegex(expected_warning, expected_regex, *args, **kwargs)

    def assertNotEqual(self, x, y, msg=None, *, atol=None, rtol=None, **kwargs):
        try:
            self.assertEqual(x, y, atol=atol, rtol=rtol, **kwargs)
        except AssertionError:
            return
        raise self.failureException(msg or f"{x!r} == {y!r}")

    def assertEqualIgnoreType(self, *args, **kwargs):
        return self.assertEqual(*args, exact_dtype=False, **kwargs)

    def assertExpectedInline(self, actual, expect, skip=0):
        raise OutOfScope("assertExpectedInline compares PyTorch's printed internals")

    def assertExpected(self, *args, **kwargs):
        raise OutOfScope("assertExpected reads PyTorch's expect files")

    def assertExpectedRaisesInline(self, *args, **kwargs):
        raise OutOfScope("assertExpectedRaisesInline compares PyTorch's printed internals")

    def assertNotWarn(self, callable, msg=""):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            callable()
        self.assertTrue(len(ws) == 0, msg)

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category, regex=""):
        with self.assertWarnsRegex(category, regex):
            yield

    def assertLeaksNoCudaTensors(self, name=None):
        return contextlib.nullcontext()

    def assertEqualTypeString(self, x, y):
        self.assertEqual(x.device, y.device)
        self.assertEqual(x.dtype, y.dtype)

    def assertFail(self):
        self.fail()

    def runWithPytorchAPIUsageStderr(self, code):
        raise OutOfScope("subprocess with PyTorch internals")


def run_tests(argv=None):
    unittest.main(argv=argv)


def load_tests(loader, tests, pattern):
    return tests


# ---- parametrization (our own: a product of parameter lists, named as PyTorch names them)


class subtest:
    """One parameter value with its own name and decorators."""

    def __init__(self, arg_values, name=None, decorators=None):
        self.arg_values = arg_values
        self.name = name
        self.decorators = decorators or []


def _value_name(value):
    if isinstance(value, enum.Enum):
        return str(value.name)
    if type(value).__name__ == "dtype":
        return str(value).split(".")[-1]
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return str(value)


class parametrize:
    """``@parametrize("a,b", [(1, 2), subtest(...)])``."""

    def __init__(self, arg_str, arg_values, name_fn=None):
        self.arg_names = [s.strip() for s in arg_str.split(",") if s.strip()]
        self.arg_values = list(arg_values)
        self.name_fn = name_fn

    def cases(self):
        for value in self.arg_values:
            decorators = []
            name = None
            if isinstance(value, subtest):
                decorators, name, value = value.decorators, value.name, value.arg_values
            values = tuple(value) if len(self.arg_names) > 1 else (value,)
            kwargs = dict(zip(self.arg_names, values))
            if name is None:
                if self.name_fn is not None:
                    name = self.name_fn(*values)
                else:
                    name = "_".join(f"{k}_{_value_name(v)}" for k, v in kwargs.items()).replace(
                        ".", "_"
                    )
            yield name, kwargs, decorators

    def __call__(self, fn):
        fn.__dict__.setdefault("_lg_params", []).insert(0, self)
        return fn


def _expand(fn):
    """(suffix, kwargs, decorators) for every combination of fn's parametrizations."""
    params = getattr(fn, "_lg_params", [])
    for combo in itertools.product(*(list(p.cases()) for p in params)):
        names = [c[0] for c in combo if c[0]]
        kwargs = {}
        decorators = []
        for _, kw, dec in combo:
            kwargs.update(kw)
            decorators.extend(dec)
        yield "_".join(names), kwargs, decorators


def _make(fn, kwargs, decorators):
    @functools.wraps(fn)
    def test(self, *args, **kw):
        return fn(self, *args, **kwargs, **kw)

    test.__dict__.pop("_lg_params", None)
    test.__dict__.pop("__wrapped__", None)
    for dec in decorators:
        test = dec(test)
    return test


def instantiate_parametrized_tests(cls):
    for name, fn in list(vars(cls).items()):
        if not name.startswith("test") or not getattr(fn, "_lg_params", None):
            continue
        delattr(cls, name)
        for suffix, kwargs, decorators in _expand(fn):
            new = f"{name}_{suffix}" if suffix else name
            setattr(cls, new, _make(fn, kwargs, decorators))
    return cls


# ---- skips: what needs hardware or PyTorch internals we do not have is skipped


def _skip_decorator(reason, condition=True):
    def deco(fn):
        if not condition:
            return fn
        if isinstance(fn, type):
            return unittest.skip(reason)(fn)

        @functools.wraps(fn)
        def skipped(*args, **kwargs):
            raise OutOfScope(reason)

        return skipped

    return deco


def _noop_or_factory(fn=None, *args, **kwargs):
    """Works as ``@deco`` and ``@deco(...)``."""
    if callable(fn) and not args and not kwargs:
        return fn
    return lambda f: f


skipIfTorchDynamo = _noop_or_factory
skipIfCrossRef = _noop_or_factory
xfailIfTorchDynamo = _noop_or_factory
skipIfNoLapack = _noop_or_factory
skipIfRocm = _noop_or_factory
skipIfMps = _noop_or_factory
skipIfXpu = _noop_or_factory
skipIfWindows = _noop_or_factory
skipIfHpu = _noop_or_factory
skipIfNoSciPy = _noop_or_factory
suppress_warnings = _noop_or_factory
slowTest = _noop_or_factory
set_warn_always_context = contextlib.nullcontext
skipCUDANonDefaultStreamIf = _noop_or_factory


def skipIfMPS(fn):
    return fn


def skipIfNoCuda(fn):
    return _skip_decorator("CUDA")(fn)


def random_symmetric_matrix(n, *batches, **kwargs):
    torch = importlib.import_module("torch")
    A = torch.randn(*(batches + (n, n)), dtype=kwargs.get("dtype", torch.double))
    return (A + A.transpose(-2, -1)).div_(2)


def random_symmetric_pd_matrix(matrix_size, *batch_dims, **kwargs):
    torch = importlib.import_module("torch")
    dtype = kwargs.get("dtype", torch.double)
    A = torch.randn(*(batch_dims + (matrix_size, matrix_size)), dtype=dtype)
    return A @ A.transpose(-2, -1) + torch.eye(matrix_size, dtype=dtype) * 1e-5


class CudaMemoryLeakCheck:
    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def freeze_rng_state(*args, **kwargs):
    return contextlib.nullcontext()


def disable_gc():
    return contextlib.nullcontext()
