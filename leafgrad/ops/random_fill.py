"""Random sampling ops: the in-place fillers (``bernoulli_``, ``random_``, ``cauchy_``,
``exponential_``, ``geometric_``, ``log_normal_``) and ``bernoulli``, ``multinomial``,
``binomial``, ``poisson``.

PyTorch's distributions, argument checks and dtype rules, on PyTorch's engine
(``_torch_stream``): ``bernoulli``/``bernoulli_`` and ``random_`` draw PyTorch's values for
a seed; the others use NumPy's algorithms on it (repeatable, not PyTorch's values). A
sample gets no gradient: a filled tensor that required grad keeps requiring it, with a zero
gradient to what it held before, and ``bernoulli``/``poisson`` of a tensor that requires
grad give it a zero gradient, as in PyTorch.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._batched import STATE as _VMAP
from .._batched import all_values, levels_of, physical, rewrap, with_levels
from .._engine import grad_mode
from .._exposure import exports, public
from .._random import _generator, _per_example, inplace_draw, rand_like
from .._tensor import Tensor, _wrap
from .._torch_stream import TorchStream
from ._inputs import scalar_type
from ._out import check_out, write_out
from .inplace import _check_target, apply_inplace, overwrite

_state = grad_mode._state

# What PyTorch's messages call each dtype (its C++ type names).
_C_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
    "uint8": "unsigned char", "int16": "short", "int32": "int", "int64": "long int",
    "bool": "bool",
}  # fmt: skip
_FLOAT_DIGITS = {"float16": 11, "float32": 24, "float64": 53}


def _fill(self: Tensor, name: str, draw, generator, *args) -> Tensor:
    """Write ``draw(rng, shape, *args)`` into ``self``: a write as ``copy_`` is (a leaf that
    requires grad refuses; the old values get a zero gradient)."""
    _check_target(self, name)
    values = inplace_draw(self, draw, generator, name, *args)
    return apply_inplace(self, overwrite(self, values), name)


def _float_only(self: Tensor, what: str, name: str, kind: str = "runtime") -> None:
    if self._data.dtype.kind == "f":
        return
    if kind == "runtime":
        c_name = _C_NAMES[self._data.dtype.name]
        raise RuntimeError(
            f"{what} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {c_name}; convert it first (e.g. .float()) "
            f"before {name}"
        )
    raise NotImplementedError(
        f"\"{kind}\" not implemented for '{scalar_type(self)}': {name} fills floating-point "
        "tensors only; convert it first (e.g. .float())"
    )


# ----- in-place fillers -----


@public(function=False)
def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 1 where a draw falls below ``p`` (a number, or a float tensor broadcast to
    this one's shape), else 0; any dtype."""
    if isinstance(p, Tensor):
        probs = _probabilities(p, "bernoulli_")
        try:
            probs = np.broadcast_to(probs, self._data.shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor must match the existing size: p of shape "
                f"{list(probs.shape)} does not broadcast to the tensor's shape "
                f"{list(self._data.shape)} in bernoulli_"
            ) from None
    else:
        probs = float(p)
        if not 0 <= probs <= 1:
            raise RuntimeError(
                f"bernoulli_ expects p to be in [0, 1], but got p={_number(p)}; pass a probability"
            )
    return _fill(self, "bernoulli_", lambda rng, shape: _below(rng, shape, probs), generator)


def _below(rng, shape, probs) -> np.ndarray:
    """``u < p`` for uniforms ``u`` drawn as PyTorch's kernels draw them: in float64 for a
    number or a float64 ``p``, else in float32 (24 bits each)."""
    wide = not isinstance(probs, np.ndarray) or probs.dtype == np.float64
    return rng.random(shape, dtype=np.float64 if wide else np.float32) < probs


def _probabilities(p: Tensor, name: str) -> np.ndarray:
    """``p``'s values, checked: floating point, each in [0, 1]."""
    if p._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{scalar_type(p)}': {name} "
            "takes floating-point probabilities; convert them first (e.g. p.float())"
        )
    values = p._data
    if not np.all((values >= 0) & (values <= 1)):
        raise RuntimeError(
            f"Expected p_in >= 0 && p_in <= 1 to be true, but got false: {name} takes "
            "probabilities, each in [0, 1]"
        )
    return values


def _number(x) -> str:
    """A number as PyTorch's messages print it (``-2``, not ``-2.0``)."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


@public(function=False)
def random_(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """``random_()``, ``random_(to)`` or ``random_(from, to)``: integers uniform on
    ``[from, to)``; by default every integer the dtype holds exactly from 0 up (``[0, 2**24]``
    for float32, ``[0, max]`` for integers)."""
    low, high = _random_bounds(self, args, kwargs)
    return _fill(
        self,
        "random_",
        lambda rng, shape: rng.integers(low, high, shape, endpoint=True),
        generator,
    )


def _random_bounds(self: Tensor, args: tuple, kwargs: dict) -> tuple[int, int]:
    """The inclusive range ``random_`` draws from, checked against the dtype as PyTorch."""
    names = ("from", "to")
    given = dict(zip(names, args)) if len(args) != 1 else {"to": args[0]}
    unknown = set(kwargs) - set(names)
    if len(args) > 2 or unknown or set(given) & set(kwargs):
        raise TypeError(
            "random_() takes random_(), random_(to) or random_(from, to), with an optional "
            f"generator=; got {len(args)} positional and {sorted(kwargs)} keyword arguments"
        )
    given.update(kwargs)
    if ("from" in given and "to" not in given) or ("from" not in given and "to" in given
                                                    and given["to"] is None):  # fmt: skip
        raise TypeError(
            "random_() takes random_(), random_(to) or random_(from, to) (to may be None only "
            "with from); got " + ", ".join(f"{k}={v!r}" for k, v in given.items())
        )
    low, high = given.get("from", 0), given.get("to")
    for v in (low, high):
        if v is not None and not isinstance(v, (int, np.integer)):
            raise TypeError(
                f"random_() takes integers for from and to, got {type(v).__name__}; use "
                "uniform_() for real numbers"
            )
    low = int(low)
    dt = self._data.dtype
    c_name = _C_NAMES[dt.name]
    if dt.kind == "f":
        digits = _FLOAT_DIGITS[dt.name]
        lo, hi = -float(np.finfo(dt).max), float(np.finfo(dt).max)
        top = 2**digits
    elif dt.kind == "b":
        lo, hi, top = 0, 1, 1
    else:
        lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
        top = hi
    if high is None:
        if not lo <= low <= hi:
            raise RuntimeError(
                f"from is out of bounds for {c_name}: random_ draws values the tensor's dtype holds"
            )
        return low, top
    high = int(high)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    for value, what in ((low, "from"), (high - 1, "to - 1")):
        if not lo <= value <= hi:
            raise RuntimeError(
                f"{what} is out of bounds for {c_name}: random_ draws values the tensor's "
                "dtype holds; narrow the range or convert the tensor first"
            )
    if dt.kind == "f" and not -top <= high - 1 <= top:
        warnings.warn(
            f"to - 1 is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
            f"limitations {c_name} can support discrete uniform distribution only within "
            "this range",
            UserWarning,
            stacklevel=3,
        )
    return low, high - 1


@public(function=False)
def cauchy_(self: Tensor, median=0, sigma=1, *, generator=None) -> Tensor:
    """Fill with Cauchy samples: ``median + sigma * tan(pi * (u - 1/2))``."""
    _float_only(self, "Cauchy", "cauchy_")
    if not sigma > 0:
        raise RuntimeError(
            f"cauchy_ expects sigma > 0.0, but found sigma={_number(sigma)}; sigma is the scale"
        )
    return _fill(
        self,
        "cauchy_",
        lambda rng, shape: median + sigma * rng.standard_cauchy(shape),
        generator,
    )


@public(function=False)
def exponential_(self: Tensor, lambd=1, *, generator=None) -> Tensor:
    """Fill with exponential samples of rate ``lambd`` (mean ``1 / lambd``)."""
    _float_only(self, "Exponential", "exponential_")
    if not lambd > 0:
        raise RuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_number(lambd)}; lambd is "
            "the rate"
        )
    return _fill(
        self,
        "exponential_",
        lambda rng, shape: (
            rng.exponential_rate(lambd, shape)
            if isinstance(rng, TorchStream)
            else rng.standard_exponential(shape) / lambd
        ),
        generator,
    )


@public(function=False)
def geometric_(self: Tensor, p, *, generator=None) -> Tensor:
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...);
    integer dtypes wrap around as PyTorch's do."""
    if self._data.dtype.kind == "b":
        raise NotImplementedError(
            "\"geometric_cpu\" not implemented for 'Bool': geometric_ counts trials; use an "
            "integer or floating-point tensor"
        )
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_number(p)}")
    return _fill(self, "geometric_", lambda rng, shape: rng.geometric(p, shape), generator)


@public(function=False)
def log_normal_(self: Tensor, mean=1, std=2, *, generator=None) -> Tensor:
    """Fill with ``exp`` of normal samples with ``mean`` and ``std``."""
    _float_only(self, "Log-normal", "log_normal_", kind="log_normal_cpu")
    if not std > 0:
        raise RuntimeError(
            f"log_normal_ expects std > 0.0, but found std={_number(std)}; std is the "
            "standard deviation of the log"
        )
    return _fill(self, "log_normal_", lambda rng, shape: rng.lognormal(mean, std, shape), generator)


# ----- sampling functions -----


def _sampled(input: Tensor, values: np.ndarray) -> Tensor:
    """``values`` as a new tensor; when ``input`` requires grad, in the graph with a zero
    gradient to it (a sample does not move with its parameters)."""
    values = values.astype(input._data.dtype, copy=False)
    if not (_state.enabled and input._requires_grad):
        return _wrap(values)
    return overwrite(input, _wrap(values))


@public()
def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """1 with probability ``input`` (each element in [0, 1]), else 0, in ``input``'s dtype;
    ``bernoulli(input, p)`` draws with the number ``p`` in ``input``'s shape instead."""
    if isinstance(p, Tensor):
        raise TypeError(
            "bernoulli() takes p as a number; for probabilities per element pass them as "
            "input: torch.bernoulli(p_tensor)"
        )
    if p is not None:
        target = _wrap(np.empty_like(input._data))
        return bernoulli_(target, p, generator=generator)
    if _VMAP.active and out is None and generator is None:
        return _bernoulli_under_vmap(input)
    probs = _probabilities(input, "bernoulli")
    if out is not None:
        check_out("bernoulli", (input,), out)
    rng = _generator(generator)
    values = _below(rng, probs.shape, probs)
    if out is not None:
        return write_out("bernoulli", _wrap(values.astype(out._data.dtype)), out)
    return _sampled(input, values)


_SAME_WITH_BATCHED = (
    "Vmap does not currently support same randomness with a batched tensor input. Please "
    "file an issue with functorch"
)


def _vmap_levels(input: Tensor) -> tuple:
    """Under vmap: the levels to draw per example at (randomness='different', innermost
    first); a batched input under 'same' is refused, as PyTorch refuses it."""
    _generator(batched_draw=True)  # randomness='error' raises here
    levels = _per_example(())[1]
    if not set(levels_of(input)) <= set(levels):
        raise RuntimeError(_SAME_WITH_BATCHED)
    return levels


def _bernoulli_under_vmap(input: Tensor) -> Tensor:
    """``bernoulli(input)`` under vmap: ``rand_like(input) < input``, which is PyTorch's
    kernel draw for draw, so each example gets PyTorch's values (per example or once)."""
    _vmap_levels(input)
    _probabilities(_wrap(all_values(input)), "bernoulli")
    return (rand_like(input.detach()) < input.detach()).to(input.dtype)


@public()
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator=None, out=None) -> Tensor:  # fmt: skip
    """Indices of categories drawn with probabilities proportional to the rows of ``input``
    (1-D, or 2-D: one row per draw set); int64, ``(num_samples,)`` or ``(rows, num_samples)``.
    Without ``replacement`` each category is drawn at most once."""
    if _VMAP.active and out is None and generator is None:
        return _multinomial_under_vmap(input, int(num_samples), replacement)
    weights = _check_weights(input, int(num_samples), replacement)
    if out is not None:
        if out._data.dtype != np.int64:
            raise RuntimeError(
                f"multinomial expects Long tensor out, got: {scalar_type(out)}; pass an int64 "
                "tensor"
            )
        check_out("multinomial", (input,), out)
    picks = _draw_categories(_generator(generator), weights, num_samples, replacement)
    if out is not None:
        return write_out("multinomial", _wrap(picks), out)
    return _wrap(picks)


def _multinomial_under_vmap(input: Tensor, num_samples: int, replacement: bool) -> Tensor:
    """``multinomial`` under vmap: the rows of every example drawn at once, from a draw
    per example at the randomness='different' levels (one for all under 'same')."""
    levels = _vmap_levels(input)
    value = physical(with_levels(input.detach(), levels))
    _check_weights(
        _wrap(value._data.reshape((-1,) + tuple(input.shape))[0]), num_samples, replacement
    )
    _check_weights(_wrap(value._data.reshape(-1, value.shape[-1])), num_samples, replacement)
    rng = _generator(batched_draw=True)
    picks = _draw_categories(rng, value._data, num_samples, replacement)
    return rewrap(_wrap(picks), levels)


def _draw_categories(rng, weights: np.ndarray, num_samples: int, replacement: bool):
    """Indices drawn from each row of ``weights`` (int64, rows' shape + ``num_samples``)."""
    rows = weights.reshape(-1, weights.shape[-1]).astype(np.float64)
    if replacement:
        cdf = np.cumsum(rows, axis=1)
        cdf /= cdf[:, -1:]
        u = rng.random((rows.shape[0], num_samples))
        picks = np.stack([np.searchsorted(c, v, side="right") for c, v in zip(cdf, u)])
        picks = np.minimum(picks, rows.shape[1] - 1)
    else:
        # Each category's key is weight / Exp(1); the largest keys are a draw without
        # replacement (zero weights come last, in random order).
        keys = rows / rng.standard_exponential(rows.shape)
        ties = rng.random(rows.shape)
        picks = np.lexsort((ties, -keys), axis=1)[:, :num_samples]
    return picks.reshape(weights.shape[:-1] + (num_samples,)).astype(np.int64)


def _check_weights(input: Tensor, num_samples: int, replacement: bool) -> np.ndarray:
    data = input._data
    if data.ndim not in (1, 2):
        raise RuntimeError(
            f"prob_dist must be 1 or 2 dim: multinomial takes one row of weights or a batch of "
            f"rows, got {data.ndim} dims"
        )
    if data.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{scalar_type(input)}; convert the weights first (e.g. .float())"
        )
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples (num_samples={num_samples})")
    if not replacement and num_samples > data.shape[-1]:
        raise RuntimeError(
            f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {data.shape[-1]}); pass replacement=True"
        )
    if not np.all(np.isfinite(data) & (data >= 0)):
        raise RuntimeError(
            "probability tensor contains either `inf`, `nan` or element < 0; multinomial takes "
            "finite non-negative weights"
        )
    if np.any(data.sum(axis=-1) <= 0):
        raise RuntimeError(
            "invalid multinomial distribution (sum of probabilities <= 0): every row needs a "
            "positive weight"
        )
    return data


@public(method=False)
def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Successes in ``count`` trials of probability ``prob`` (float tensors of one dtype,
    broadcast together)."""
    for t, what in ((count, "count"), (prob, "prob")):
        if t._data.dtype.kind != "f":
            raise ValueError(
                f"binomial only supports floating-point dtypes for {what}, got: "
                f"{scalar_type(t)}; convert it first (e.g. .float())"
            )
    if count._data.dtype != prob._data.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_type(prob)} but expected {scalar_type(count)}: binomial "
            "takes count and prob of one dtype"
        )
    if count._data.dtype == np.float16:
        raise NotImplementedError(
            "\"binomial_cpu\" not implemented for 'Half': use float32 or float64"
        )
    n, p = np.broadcast_arrays(count._data, prob._data)
    trials = np.floor(np.clip(np.nan_to_num(n, nan=0.0), 0, None))
    draws = _generator(generator).binomial(
        trials.astype(np.int64), np.clip(np.nan_to_num(p, nan=0.0), 0, 1)
    )
    values = np.where(np.isnan(p) | np.isnan(n), np.nan, draws).astype(count._data.dtype)
    return _wrap(values)


@public(method=False)
def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson samples with the rates ``input`` (non-negative floats), in its dtype."""
    data = input._data
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"poisson_cpu\" not implemented for '{scalar_type(input)}': poisson takes "
            "floating-point rates; convert them first (e.g. .float())"
        )
    if not np.all(data >= 0):
        raise RuntimeError(
            "invalid Poisson rate, expected rate to be non-negative (and not NaN); check the "
            "rates passed to poisson"
        )
    # NumPy refuses rates near 2**63; PyTorch's draw overflows there to int64's minimum.
    huge = data >= 2.0**62
    draws = _generator(generator).poisson(np.where(huge, 0, data).astype(np.float64))
    values = np.where(huge, float(-(2**63)), draws)
    return _sampled(input, values)


__all__ = exports(globals())
