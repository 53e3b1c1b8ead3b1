"""Our ``common_device_type``: CPU variants only, dtype variants, device skips."""

from __future__ import annotations

import functools

from .common_utils import OutOfScope, _expand, _skip_decorator


class dtypes:
    """``@dtypes(a, b)`` makes one test per dtype (suffix ``_float32`` ...)."""

    def __init__(self, *args, device_type="all"):
        self.args = args
        self.device_type = device_type

    def __call__(self, fn):
        if self.device_type in ("all", "cpu"):
            fn._lg_dtypes = list(self.args)
        return fn


class dtypesIfCPU(dtypes):
    def __init__(self, *args):
        super().__init__(*args, device_type="cpu")


class dtypesIfCUDA:
    def __init__(self, *args):
        pass

    def __call__(self, fn):
        return fn


def _noop(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


onlyCPU = _noop
onlyNativeDeviceTypes = _noop
skipMeta = _noop
skipCUDAIfRocm = _noop
skipCUDAIf = _noop
skipCUDAIfCudnnVersionLessThan = _noop
skipXLA = _noop
skipMPS = _noop
precisionOverride = _noop
skipCPUIf = _noop
largeTensorTest = _noop
onlyNativeDeviceTypesAnd = _noop
expectedFailureMeta = _noop
skipCUDAIfNoCudnn = _noop
dtypesIfMPS = dtypesIfCUDA
onlyCUDA = _skip_decorator("CUDA only")
onlyMPS = _skip_decorator("MPS only")
onlyAccelerator = _skip_decorator("accelerator only")


def deviceCountAtLeast(count):
    """The test takes a list of devices: ``["cpu"]`` here; more than one device is out of scope."""

    def deco(fn):
        fn._lg_min_devices = count
        return fn

    return deco


def _device_variant(fn, dtype, kwargs, decorators):
    count = getattr(fn, "_lg_min_devices", None)

    @functools.wraps(fn)
    def test(self):
        if count is not None and count > 1:
            raise OutOfScope(f"needs {count} devices (CUDA / devices)")
        extra = {} if dtype is None else {"dtype": dtype}
        return fn(self, "cpu" if count is None else ["cpu"], **extra, **kwargs)

    test.__dict__.pop("__wrapped__", None)
    for dec in decorators:
        test = dec(test)
    return test


def instantiate_device_type_tests(generic, scope, except_for=None, only_for=None, **_):
    """Make ``<Name>CPU`` from the generic class (unless CPU is excluded) and drop the generic."""
    excluded = [except_for] if isinstance(except_for, str) else list(except_for or [])
    only = [only_for] if isinstance(only_for, str) else list(only_for or [])
    scope.pop(generic.__name__, None)
    if "cpu" in excluded or (only and "cpu" not in only):
        return
    members = {}
    for name, fn in vars(generic).items():
        if not name.startswith("test") or not callable(fn):
            continue
        for suffix, kwargs, decorators in _expand(fn):
            base = f"{name}_{suffix}" if suffix else name
            for dtype in getattr(fn, "_lg_dtypes", [None]):
                dname = "" if dtype is None else "_" + str(dtype).split(".")[-1]
                members[f"{base}_cpu{dname}"] = _device_variant(fn, dtype, kwargs, decorators)
    cls = type(generic.__name__ + "CPU", (generic,), members)
    for name in list(vars(generic)):
        if name.startswith("test") and callable(getattr(generic, name)):
            setattr(cls, name, None)
    cls.device_type = "cpu"
    cls.__module__ = scope.get("__name__", generic.__module__)
    scope[cls.__name__] = cls


def get_all_device_types():
    return ["cpu"]
