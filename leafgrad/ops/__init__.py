"""Every primitive op; importing this package gives Tensor its operators and methods.

Each op family declares its ops (``_optable``) and how they are exposed (``_exposure``:
functions, Tensor methods, in-place twins) where they are defined, as do the factories
(``new_zeros`` ...) and the engine (``backward``, ``register_hook`` ...); this is the one
place that then gives Tensor its methods, from that registry.
"""

from .. import _creation  # noqa: F401 - declares Tensor.new_zeros ... (it imports no op)
from .._engine import entry as _entry  # noqa: F401 - declares Tensor.backward
from .._engine import hooks as _hooks  # noqa: F401 - declares register_hook, retain_grad ...
from .._exposure import INPLACE, METHODS
from .._tensor import Tensor
from . import (  # noqa: F401 - importing a family declares its ops and their exposure
    activations,
    arithmetic,
    attributes,
    binary,
    binning,
    blas_adds,
    block_diag,
    broadcast,
    callbacks,
    cholesky,
    combinatorics,
    comparison,
    composites,
    contraction,
    conversion,
    covariance,
    cumulative,
    decompositions,
    determinants,
    diagonals,
    differences,
    dim_order,
    division,
    einsum,
    elementwise,
    extrema,
    gamma,
    glu,
    im2col,
    index_writes,
    indexing,
    inplace_compare,
    inplace_extra,
    integration,
    jet_activations,
    jet_kernels,
    joining,
    linalg,
    losses,
    lu,
    matmul,
    matrix_functions,
    memory_views,
    multi_margin,
    pdist,
    piecewise,
    pixel_shuffle,
    polynomials,
    power,
    prelu,
    quantiles,
    random_fill,
    reduction,
    refusals,
    renorm,
    reorder,
    rrelu,
    scatter,
    scatter_reduce,
    selection,
    sets,
    shape,
    shifts,
    shrink,
    slicing,
    soft_margin,
    softmax,
    solvers,
    special,
    spectral,
    stacking,
    statistics,
    strided,
    torch_activations,
    torch_inplace,
    torch_rest,
    trilinear,
    unfold,
    value_parts,
    view_copies,
    view_scatter,
)
from ._operands import operator_method
from ._out import without_out
from .inplace import inplace

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, operator_method(_name, without_out(_fn)))
for _name, _fn in INPLACE.items():  # each in-place twin wraps its out-of-place op
    if _name in METHODS:
        raise ValueError(f"Tensor.{_name} is declared both as a method and as an in-place twin")
    setattr(Tensor, _name, operator_method(_name, inplace(_fn, _name)))

# Python's default __eq__ would make Tensor unhashable once __eq__ is set; keep identity hashing.
Tensor.__hash__ = object.__hash__
