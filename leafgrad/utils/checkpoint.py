"""``torch.utils.checkpoint``: run part of a model without keeping what its backward needs,
and run that part again when backward needs it (memory for time).

Two ways, as in PyTorch. ``use_reentrant=False`` (PyTorch's recommendation): the forward runs
under saved-tensors hooks that keep only a number per saved tensor; the first time a backward
call unpacks one, the function runs again (grad mode on, the same inputs, the generator's
state as it was) and every tensor it saves is kept for that call; the engine hangs each in
the original graph, so ``grad()``, ``create_graph`` and higher orders work. ``use_reentrant=True``
(PyTorch 2.13's default, with a warning when not chosen): one ``autograd.Function`` whose
backward runs the function again on detached inputs and calls ``backward`` inside; it works
only under a plain ``backward()`` (RuntimeError inside ``grad()`` or ``backward(inputs=)``).
"""

from __future__ import annotations

import contextlib
import warnings

import leafgrad as _lg

from .._engine.engine import current_graph_task_id
from ..autograd import Function, _is_checkpoint_valid
from ..autograd.graph import saved_tensors_hooks

__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
]

_REENTRANT_DEFAULT = True  # PyTorch 2.13's default, warned about when not passed


class CheckpointError(RuntimeError):
    """The recomputation saved other tensors than the original forward did."""


def noop_context_fn() -> tuple:
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad``; others as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            f"Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for x in inputs:
        if not isinstance(x, _lg.Tensor):
            out.append(x)
            continue
        y = x.detach()
        y.requires_grad = x.requires_grad
        out.append(y)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn, as PyTorch does, when no input requires grad (a reentrant checkpoint then
    gives no gradients)."""
    if not any(isinstance(x, _lg.Tensor) and x.requires_grad for x in inputs):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3
        )


def get_device_states(*args) -> tuple:
    """The accelerators' generator states: none here (leafgrad runs on the CPU)."""
    return [], []


def set_device_states(devices, states, *, device_type=None) -> None:
    """Restore accelerators' generator states: there are none (CPU only)."""


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Accepted for PyTorch's API. leafgrad's recomputation always runs the whole function
    (stopping early saves time only, never changes a gradient)."""
    yield


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Accepted for PyTorch's API; the error on a mismatch says which counts differ."""
    yield


# ----- use_reentrant=True -----


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward by running again."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = _lg.get_rng_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, _lg.Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _lg.Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, _lg.Tensor)))
        with _lg.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with _rng_as(ctx.rng_state), _lg.enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, _lg.Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g) for o, g in zip(outputs, grads) if isinstance(o, _lg.Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _lg.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(d.grad if isinstance(d, _lg.Tensor) else None for d in detached)


@contextlib.contextmanager
def _rng_as(state):
    """The default generator at ``state`` inside (as the forward saw it), restored after;
    nothing when ``state`` is None (``preserve_rng_state=False``)."""
    if state is None:
        yield
        return
    now = _lg.get_rng_state()
    _lg.set_rng_state(state)
    try:
        yield
    finally:
        _lg.set_rng_state(now)


# ----- use_reentrant=False -----


class _Frame:
    """One checkpointed call: how to run it again, and per backward call what it saved."""

    def __init__(self, fn, args, kwargs, rng_state, recompute_context) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.rng_state = rng_state
        self.recompute_context = recompute_context
        self.count = 0  # tensors the forward saved
        self.task = None  # the backward call the recomputed tensors are for
        self.recomputed: list = []

    def pack(self, tensor) -> int:
        self.count += 1
        return self.count - 1

    def unpack(self, index: int):
        task = current_graph_task_id()
        if self.task != task or not self.recomputed:
            self._recompute()
            self.task = task
        return self.recomputed[index]

    def _recompute(self) -> None:
        saved: list = []

        def keep(tensor):
            saved.append(tensor.detach())  # the engine hangs it where the original hung
            return None

        with (
            _rng_as(self.rng_state),
            _lg.enable_grad(),
            self.recompute_context,
            saved_tensors_hooks(keep, _never_unpacked),
        ):
            self.fn(*self.args, **self.kwargs)
        if len(saved) != self.count:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation (original: {self.count}, recomputation: "
                f"{len(saved)}); the checkpointed function must do the same work when run "
                "again (no data-dependent branches on random draws or global state)"
            )
        self.recomputed = saved


def _never_unpacked(packed):
    raise CheckpointError(
        "torch.utils.checkpoint: a tensor saved during recomputation was used by a backward "
        "of the recomputed graph itself, which checkpointing never runs"
    )


def _checkpoint_without_reentrant(fn, preserve_rng_state, context_fn, args, kwargs):
    forward_context, recompute_context = context_fn()
    state = _lg.get_rng_state() if preserve_rng_state else None
    frame = _Frame(fn, args, kwargs, state, recompute_context)
    with forward_context, saved_tensors_hooks(frame.pack, frame.unpack):
        return fn(*args, **kwargs)


def checkpoint(
    function,
    *args,
    use_reentrant: bool | None = None,
    context_fn=noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    preserve_rng_state: bool = True,
    **kwargs,
):
    """``function(*args, **kwargs)``, keeping nothing for backward but the inputs: backward
    runs ``function`` again (see the module's text for the two ways)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details "
            "on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = _REENTRANT_DEFAULT
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, args, kwargs)


def checkpoint_sequential(
    functions, segments: int, input, use_reentrant: bool | None = None, **kwargs
):
    """Run ``functions`` (an ``nn.Sequential`` or a list of modules) in ``segments`` pieces,
    each checkpointed but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. use_reentrant=False is recommended.",
            stacklevel=2,
        )
        use_reentrant = _REENTRANT_DEFAULT
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, _lg.nn.Sequential):
        functions = list(functions.children())
    functions = list(functions)

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)
