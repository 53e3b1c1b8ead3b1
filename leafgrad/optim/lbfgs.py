"""L-BFGS with PyTorch's ``step(closure)`` API, stopping rules and strong-Wolfe line search.

Why not SciPy: ``scipy.optimize.minimize(method="L-BFGS-B")`` and
``scipy.optimize.line_search`` (Nocedal & Wright's zoom with MINPACK-style safeguards) are
well tested, but they differ from ``torch.optim.LBFGS`` in every detail that decides a
trajectory: the first step length ``min(1, 1/|g|_1) * lr``, the curvature test
``y.s > 1e-10`` before the memory is updated, the history kept across ``step`` calls, the
function-evaluation budget shared with the line search, the five stopping rules, and the
bracketing/zoom of minFunc's ``lswolfe`` (cubic interpolation with a 10% safeguard from the
bracket ends) that PyTorch ports. Results within 1e-10 of PyTorch need those rules exactly,
so the two-loop recursion and the line search below follow PyTorch's ``lbfgs.py`` line for
line, on NumPy arrays read from the tensors; parameters are updated with ``add_`` and
``copy_``. Scalars stay NumPy scalars of the parameters' dtype, which promote like PyTorch's
0-d tensors (NEP 50), so float32 runs round as PyTorch's do.
"""

from __future__ import annotations

import numpy as np

from .. import Tensor, enable_grad, from_numpy
from ._step import _use_grad_for_differentiable
from ._update import _scalar
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _array(t: Tensor) -> np.ndarray:
    """The NumPy array behind ``t`` (shared, not copied); read it, never write into it."""
    return t.detach().numpy()


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to bounds."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` for a step ``t`` satisfying the strong Wolfe conditions.

    Returns ``(f_new, g_new, t, evaluations)``. ``obj_func(x, t, d)`` gives the loss and flat
    gradient at ``x + t * d``.
    """
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    # Bracket an interval containing a point that satisfies the Wolfe criteria.
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # Extrapolate.
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # Zoom: shrink the bracket until a point satisfies the criteria.
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # A trial point within 10% of the bracket's ends, twice or at an end, is moved to 10%
        # inside the nearer end, to guarantee progress.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # Armijo fails or no lower than the low end: the new point is the new high end.
            bracket[high_pos] = t
            bracket_f[high_pos] = f_new
            bracket_g[high_pos] = g_new.copy()
            bracket_gtd[high_pos] = gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # The old high end becomes the new low end.
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos] = t
            bracket_f[low_pos] = f_new
            bracket_g[low_pos] = g_new.copy()
            bracket_gtd[low_pos] = gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """``torch.optim.LBFGS``: limited-memory BFGS over all parameters as one flat vector.

    ``step(closure)`` runs up to ``max_iter`` iterations (``max_eval`` closure calls), each
    along the two-loop-recursion direction with a fixed step ``lr`` or, with
    ``line_search_fn="strong_wolfe"``, a strong-Wolfe line search. The closure must clear the
    gradients, compute the loss, call ``backward`` and return the loss. The whole state (the
    curvature pairs included) lives in ``state[params[0]]``, as in PyTorch, so state dicts
    carry it.
    """

    def __init__(
        self,
        params,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ----- the parameters as one flat vector -----
    def _gather_flat_grad(self) -> np.ndarray:
        views = []
        for p in self._params:
            if p.grad is None:
                views.append(np.zeros(p.numel(), dtype=_array(p).dtype))
            else:
                views.append(_array(p.grad).reshape(-1))
        return np.concatenate(views)

    def _add_grad(self, step_size, update: np.ndarray) -> None:
        # PyTorch's p.add_(update, alpha=step_size) takes alpha as a Python scalar.
        alpha = float(step_size)
        offset = 0
        for p in self._params:
            numel = p.numel()
            chunk = update[offset : offset + numel].reshape(tuple(p.shape))
            p.add_(from_numpy(chunk), alpha=alpha)
            offset += numel

    def _clone_param(self) -> list[np.ndarray]:
        return [_array(p).copy() for p in self._params]

    def _set_param(self, params_data: list[np.ndarray]) -> None:
        for p, data in zip(self._params, params_data):
            p.copy_(from_numpy(data))

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = _loss_value(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @_use_grad_for_differentiable
    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss at the starting point."""
        if closure is None:
            raise RuntimeError(
                "LBFGS.step() needs a closure that clears the gradients, computes the loss, "
                "calls backward and returns the loss"
            )
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self._step(enable_grad()(closure))

    def _step(self, closure):
        group = self.param_groups[0]
        lr = _scalar(group["lr"])
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]

        # LBFGS's state is global; it is kept under the first parameter, as PyTorch does, so
        # load_state_dict casts it like any parameter's state.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = _loss_value(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        memo: dict[int, Tensor] = {}
        d = _unwrap(state.get("d"), memo)
        t = _unwrap(state.get("t"), memo)
        old_dirs = _unwrap(state.get("old_dirs"), memo)
        old_stps = _unwrap(state.get("old_stps"), memo)
        ro = _unwrap(state.get("ro"), memo)
        H_diag = _unwrap(state.get("H_diag"), memo)
        prev_flat_grad_tensor = state.get("prev_flat_grad")
        prev_flat_grad = None if prev_flat_grad_tensor is None else _array(prev_flat_grad_tensor)
        prev_loss = state.get("prev_loss")
        al = _unwrap(state.get("al"), memo)

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # ----- descent direction -----
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                if al is None:
                    al = [None] * history_size
                # Two-loop recursion: d = -H g with H the L-BFGS inverse-Hessian estimate.
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q + float(-al[i]) * old_dirs[i]
                r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r = r + float(al[i] - be_i) * old_stps[i]
                d = r

            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            # ----- step length -----
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction (any more)
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    # Re-evaluate except after the last iteration: in a stochastic setting
                    # that evaluation would be wasted.
                    loss = _loss_value(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # ----- stopping rules, in PyTorch's order -----
            if n_iter == max_iter:
                break
            if current_evals >= max_eval:
                break
            if opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _rewrap(d, memo)
        state["t"] = _rewrap(t, memo)
        state["old_dirs"] = _rewrap(old_dirs, memo)
        state["old_stps"] = _rewrap(old_stps, memo)
        state["ro"] = _rewrap(ro, memo)
        state["H_diag"] = _rewrap(H_diag, memo)
        if prev_flat_grad_tensor is not None and prev_flat_grad is not None:
            prev_flat_grad_tensor.copy_(from_numpy(prev_flat_grad))  # as PyTorch: in place
            state["prev_flat_grad"] = prev_flat_grad_tensor
        else:
            state["prev_flat_grad"] = _rewrap(prev_flat_grad, memo)
        state["prev_loss"] = prev_loss
        if al is not None:
            state["al"] = _rewrap(al, memo)
        return orig_loss


def _loss_value(loss) -> float:
    """The closure's loss as a Python float (read without the requires-grad warning)."""
    return loss.detach().item() if isinstance(loss, Tensor) else float(loss)


def _unwrap(value, memo: dict[int, Tensor]):
    """State as NumPy: tensors become arrays (0-d ones NumPy scalars), lists stay lists."""
    if isinstance(value, Tensor):
        array = _array(value)
        if array.ndim == 0:
            return array[()]
        memo[id(array)] = value
        return array
    if isinstance(value, list):
        return [_unwrap(v, memo) for v in value]
    return value


def _rewrap(value, memo: dict[int, Tensor]):
    """The inverse of ``_unwrap``: arrays that came from a tensor map back to that tensor."""
    if isinstance(value, np.ndarray):
        tensor = memo.get(id(value))
        return from_numpy(value.copy()) if tensor is None else tensor
    if isinstance(value, np.generic):
        return from_numpy(np.array(value))  # a 0-d array of the scalar's dtype
    if isinstance(value, list):
        return [_rewrap(v, memo) for v in value]
    return value
