"""Function transforms in the style of ``torch.func``: grad, grad_and_value, vjp, jvp, jacrev,
jacfwd, hessian, vmap.

    from leafgrad.func import grad, jacrev, jacfwd, hessian
    d2f = grad(grad(f))(x)                 # second derivative of a scalar function
    H = hessian(f)(x)                      # jacfwd(jacrev(f)): forward over reverse
    J = jacrev(f, argnums=(0, 1))(x, w)    # a tuple: one Jacobian per selected argument

Transforms take and return functions of Tensors; arguments and outputs may be pytrees
(tuples, lists, dicts, namedtuples of Tensors). They are functional: results are detached
from the transform's internal graph, and keep a graph only toward tensors from outside
the transform (arguments that require grad, captured parameters) while grad mode is on,
so they nest freely (``grad(grad(f))``, ``jacfwd(jacrev(f))``, ``jacrev(jacfwd(f))``) and
compose with ``backward``/``autograd.grad`` on the results.

Differences from ``torch.func``:

- ``vmap`` (``_vmap.py``) batches by running the function once on BatchedTensors, as
  PyTorch's does, and composes with the other transforms in both orders. ``jacrev`` and
  ``jacfwd`` vmap over the rows or columns of an identity as PyTorch's do
  (``_jacobians.py``), except that ``jacrev`` under an enclosing vmap goes row by row.
- Forward-mode transforms (``jvp``, ``jacfwd``, ``hessian``, ``linearize``) need a JVP rule
  for every op the function uses; ``linearize``'s ``jvp_fn`` reruns the JVP on each call
  where PyTorch replays a traced graph (same values).
- ``functionalize`` calls the function as it is (``_extras.py``): eagerly, removing
  mutations changes no result, and PyTorch's too writes input mutations back.
- ``rearrange`` parses einops patterns itself (``_rearrange.py``); einops is not needed.
"""

from ._extras import debug_unwrap, functionalize, linearize, replace_all_batch_norm_modules_
from ._functional_call import functional_call, stack_module_state
from ._jacobians import hessian, jacfwd, jacrev
from ._rearrange import rearrange
from ._transforms import grad, grad_and_value, jvp, vjp
from ._vmap import vmap

__all__ = [
    "functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp",
    "vmap", "stack_module_state",
]  # fmt: skip
__all__ += [
    "debug_unwrap", "functionalize", "linearize", "rearrange", "replace_all_batch_norm_modules_",
]  # fmt: skip
