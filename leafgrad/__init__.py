"""leafgrad: reverse-mode autodiff on NumPy with PyTorch's autograd semantics."""

import math as _math

from . import _compiled  # noqa: F401 -- first: it decides compiled or source for the core

from ._dtype import (  # noqa: F401
    bfloat16,
    bool,
    cdouble,
    cfloat,
    chalf,
    complex32,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    float4_e2m1fn_x2,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._tensor import Size, Tensor, device  # noqa: F401
from ._legacy import *  # noqa: F403
from ._memory_format import *  # noqa: F403
from ._typeinfo import finfo, iinfo  # noqa: F401
from ._default_device import get_default_device, set_default_device  # noqa: F401
from ._torch_predicates import *  # noqa: F403  (before the ops: their declarations win)
from . import ops as _ops  # noqa: F401  (gives Tensor its methods)
from ._creation import *  # noqa: F403
from ._random import *  # noqa: F403
from ._ranges import *  # noqa: F403
from ._windows import *  # noqa: F403
from ._tensor_str import set_printoptions  # noqa: F401

# Each family's __all__ is generated from its declarations (leafgrad/_exposure.py).
from .ops.activations import *  # noqa: F403
from .ops.gelu import *  # noqa: F403
from .ops.arithmetic import *  # noqa: F403
from .ops.binning import *  # noqa: F403
from .ops.block_diag import *  # noqa: F403
from .ops.broadcast import *  # noqa: F403
from .ops.comparison import *  # noqa: F403
from .ops.composites import *  # noqa: F403
from .ops.conversion import *  # noqa: F403
from .ops.division import *  # noqa: F403
from .ops.einsum import *  # noqa: F403
from .ops.elementwise import *  # noqa: F403
from .ops.extrema import *  # noqa: F403
from .ops.indexing import *  # noqa: F403
from .ops.joining import *  # noqa: F403
from .ops.linalg import *  # noqa: F403
from .ops.matmul import *  # noqa: F403
from .ops.piecewise import *  # noqa: F403
from .ops.power import *  # noqa: F403
from .ops.quantiles import *  # noqa: F403
from .ops.reduction import *  # noqa: F403
from .ops.reorder import *  # noqa: F403
from .ops.selection import *  # noqa: F403
from .ops.sets import *  # noqa: F403
from .ops.shape import *  # noqa: F403
from .ops.slicing import *  # noqa: F403
from .ops.softmax import *  # noqa: F403
from .ops.statistics import *  # noqa: F403
from .ops.strided import *  # noqa: F403
from .ops.binary import *  # noqa: F403
from .ops.combinatorics import *  # noqa: F403
from .ops.contraction import *  # noqa: F403
from .ops.cumulative import *  # noqa: F403
from .ops.diagonals import *  # noqa: F403
from .ops.integration import *  # noqa: F403
from .ops.renorm import *  # noqa: F403
from .ops.scatter import *  # noqa: F403
from .ops.scatter_reduce import *  # noqa: F403
from .ops.stacking import *  # noqa: F403
from .ops.shifts import *  # noqa: F403
from .ops.index_writes import *  # noqa: F403
from .ops.inplace_extra import *  # noqa: F403
from .ops.blas_adds import *  # noqa: F403
from .ops.torch_inplace import *  # noqa: F403
from .ops.view_copies import *  # noqa: F403
from .ops.view_scatter import *  # noqa: F403
from .ops.differences import *  # noqa: F403
from .ops.torch_activations import *  # noqa: F403
from ._torch_numerics import *  # noqa: F403
from ._engine.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from ._engine.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from . import autograd  # noqa: F401

__version__ = "0.1.0"


pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_inference(input: Tensor) -> bool:
    return input.is_inference()


def typename(obj) -> str:
    """``"torch.FloatTensor"`` for a tensor, the type's name for anything else."""
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__qualname__ if type(obj).__module__ == "builtins" else (
        f"{type(obj).__module__}.{type(obj).__qualname__}")  # fmt: skip


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: a tensor sharing its data, outside any graph."""
    return input.detach()


from . import viz  # noqa: F401

# nn and optim are built on the names above (``from .. import Tensor``); importing them last
# makes leafgrad.nn and leafgrad.optim attributes, as torch.nn is of torch: the two imports
# that point up (tests/test_imports.py lists them).
from . import optim  # noqa: F401
from .serialization import load, save  # noqa: F401
from . import func  # noqa: F401
from .func import vmap  # noqa: F401
from . import nn  # noqa: F401
from .nn._torch_level import *  # noqa: F403  (torch.conv2d, torch.dropout ...)
from . import __future__  # noqa: F401  (torch.__future__'s conversion flags)
from . import (  # noqa: F401
    accelerator,
    backends,
    cuda,
    distributed,
    quasirandom,
    random,
    return_types,
    testing,
    torch_version,
    version,
)
from ._threads import get_num_threads, set_num_threads  # noqa: F401
from ._global_flags import *  # noqa: F403
from . import amp  # noqa: F401
from .amp import GradScaler, autocast  # noqa: F401
from .amp import (  # noqa: F401
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from .cuda import OutOfMemoryError  # noqa: F401
from ._as_torch import install_as_torch  # noqa: F401
from ._random import Generator  # noqa: F401

# Linear algebra: torch.det, inverse, cholesky_solve ... and the torch.linalg namespace.
from .ops.cholesky import *  # noqa: F403
from .ops.decompositions import *  # noqa: F403
from .ops.determinants import *  # noqa: F403
from .ops.lu import *  # noqa: F403
from .ops.matrix_functions import *  # noqa: F403
from .ops.solvers import *  # noqa: F403
from . import linalg  # noqa: F401

# Special functions: torch.lgamma, digamma, polygamma, i0, logit, xlogy ... and torch.special.
from .ops.gamma import *  # noqa: F403
from .ops.special import *  # noqa: F403
from . import special  # noqa: F401

# What a dense real tensor reports and refuses (conj, H, is_signed, layouts, sparse accessors).
from ._layout import *  # noqa: F403
from .ops.attributes import *  # noqa: F403
from .ops.refusals import *  # noqa: F403
from .ops.random_fill import *  # noqa: F403
from .ops.covariance import *  # noqa: F403
from .ops.memory_views import *  # noqa: F403
from .ops.value_parts import *  # noqa: F403
from .ops.spectral import *  # noqa: F403

# The rest of the torch namespace: eager stand-ins for the compiler and TorchScript helpers,
# and the features leafgrad refuses on purpose (sparse, quantized, vendor kernels, JIT).
from ._torch_eager import *  # noqa: F403
from ._torch_refused import *  # noqa: F403
from . import cpu  # noqa: F401
from ._storage_legacy import *  # noqa: F403
from .ops.torch_rest import *  # noqa: F403
from .nn._torch_aten import *  # noqa: F403
from . import compiler, jit, profiler  # noqa: F401

# torch.distributions: built on the public face (as nn is), so imported once it is complete.
from . import distributions  # noqa: F401
