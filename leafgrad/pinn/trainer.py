"""Training a PINN: Adam, then L-BFGS, with logging, checkpoints and exact resumption."""

from __future__ import annotations

import dataclasses
import math
import os
import time

import numpy as np
from tqdm.auto import tqdm

from .. import exp, load, manual_seed, no_grad, optim, save, tensor
from . import problems
from .config import DTYPES, TrainConfig
from .history import History
from .network import MLP
from .operators import Evaluation


class TrainingDiverged(RuntimeError):
    """The loss became NaN or infinite; the last good checkpoint is kept."""


class Trainer:
    """Trains a network on a :class:`Problem`; ``run()`` does Adam then L-BFGS.

    ``callbacks``: functions ``callback(trainer, record)`` called after every step with the
    step's loss terms; one returning True stops training. ``checkpoint``: a path written
    every ``config.checkpoint_every`` steps and at the end (atomically, with
    ``leafgrad.save``); ``resume=True`` continues from it on the same trajectory.
    """

    def __init__(
        self,
        problem,
        config: TrainConfig | None = None,
        *,
        checkpoint: str | None = None,
        callbacks=(),
        progress: bool = True,
    ) -> None:
        self.problem = problem
        self.config = config or TrainConfig.for_problem(problem)
        self.config.validate()
        self.checkpoint = checkpoint
        self.callbacks = list(callbacks)
        self.progress = progress
        self.dtype = DTYPES[self.config.dtype]
        manual_seed(self.config.seed)
        self.rng = np.random.default_rng(self.config.seed)
        self._diagonal = None  # the u_ii the residual asks for (Taylor mode), probed once
        bounds = problem.geometry.bbox
        hard = self.config.hard_constraints
        self.model = MLP(
            problem.dim,
            len(problem.outputs),
            self.config.width,
            self.config.depth,
            self.config.activation,
            bounds,
            problem.hard_constraint if hard else None,
            problem.periodic if hard else None,
        ).to(self.dtype)
        if self.config.causal and "t" not in problem.columns:
            raise ValueError(
                f"{problem.name}: causal weighting needs an input column named 't'; the "
                f"columns are {list(problem.columns)}"
            )
        self.coefficients = {
            name: p.detach().to(self.dtype).requires_grad_()
            for name, p in problem.parameters.items()
        }
        # The residual reads its coefficients from problem.parameters: point it at ours.
        problem.parameters.update(self.coefficients)
        self.conditions = [
            c
            for c in problem.conditions
            if not (self.config.hard_constraints and c.name in problem.hard_constrained)
        ]
        self.step = 0
        self.phase = "adam"
        self.history = History()
        self.optimizer = self._adam()
        self._sample_all()
        self.stop_reason = ""

    # ------------------------------------------------------------------ setup
    def _parameters(self) -> list:
        return list(self.model.parameters()) + list(self.coefficients.values())

    def _adam(self):
        return optim.Adam(self._parameters(), lr=self.config.lr)

    def _lbfgs(self):
        # One iteration per step, so every step is logged and checkpointable; L-BFGS keeps
        # its memory between calls. max_eval must not default to max_iter * 5 // 4 = 1: that
        # cuts every line search short and the optimizer stalls (PyTorch's LBFGS too).
        return optim.LBFGS(
            self._parameters(),
            lr=1.0,
            max_iter=1,
            max_eval=25,
            history_size=self.config.lbfgs_history,
            tolerance_grad=1e-12,
            tolerance_change=0.0,
            line_search_fn="strong_wolfe",
        )

    def _sample_all(self) -> None:
        self._sample_collocation()
        for condition in self.conditions:
            if condition.n is None:
                condition.n = self.config.boundary
            condition.sample(self.config.sampler, self.rng)
            condition.setup(self.dtype)

    def _sample_collocation(self, adaptive: bool = False) -> None:
        n = self.config.collocation
        if adaptive:
            candidates = self.problem.geometry.interior_points(
                8 * n, method=self.config.sampler, seed=self.rng
            )
            r = self._residual_size(candidates)
            p = r / r.mean() + 1
            points = candidates[self.rng.choice(len(candidates), n, replace=False, p=p / p.sum())]
        else:
            points = self.problem.geometry.interior_points(
                n, method=self.config.sampler, seed=self.rng
            )
        self._use_collocation(points)

    def _use_collocation(self, points: np.ndarray) -> None:
        self.collocation = points
        self._x = tensor(points, dtype=self.dtype)
        if self.config.causal:
            # Row k averages the points of time slice k: the slice losses are one matmul.
            column = self.problem.columns.index("t")
            t = points[:, column]
            lo, hi = (float(edge[column]) for edge in self.problem.geometry.bbox)
            bins = self.config.causal_bins
            slice_of = np.minimum(((t - lo) / (hi - lo) * bins).astype(int), bins - 1)
            members = np.arange(bins)[:, None] == slice_of[None, :]
            counts = np.maximum(members.sum(axis=1, keepdims=True), 1)
            self._slice_means = tensor(members / counts, dtype=self.dtype)

    def _residual_size(self, points: np.ndarray, chunk: int = 4096) -> np.ndarray:
        """|residual| at ``points`` (the norm over a system's equations), in chunks."""
        sizes = []
        for start in range(0, len(points), chunk):
            x = tensor(points[start : start + chunk], dtype=self.dtype)
            with Evaluation(self.model, x, self.config.method) as ev:
                residuals = self.problem.residual(ev.inputs, ev.output)
            residuals = residuals if isinstance(residuals, (list, tuple)) else [residuals]
            squares = sum(
                (r.detach().numpy().reshape(len(x), -1) ** 2).sum(axis=1) for r in residuals
            )
            sizes.append(np.sqrt(squares))
        return np.concatenate(sizes).astype(np.float64)

    # ------------------------------------------------------------------ the loss
    def _asked_diagonal(self) -> tuple:
        """The u_ii the residual asks for, from a probe on a few points: every Taylor-mode
        evaluation then computes just those up front (the same ones after a resume)."""
        with Evaluation(self.model, self._x[:4], "taylor") as probe:
            self.problem.residual(probe.inputs, probe.output)
        return tuple(sorted(probe.requested))

    def loss_terms(self) -> dict:
        """Each weighted loss term (a 0-d tensor), the PDE residual's first."""
        method = self.config.method
        terms = {}
        if method == "taylor" and self._diagonal is None:
            self._diagonal = self._asked_diagonal()
        with Evaluation(self.model, self._x, method, diagonal=self._diagonal) as ev:
            residuals = self.problem.residual(ev.inputs, ev.output)
            residuals = residuals if isinstance(residuals, (list, tuple)) else [residuals]
            for k, r in enumerate(residuals):
                if r.dim() == 1:
                    r = r.reshape(-1, 1)
                if r.dim() != 2 or r.shape[0] != self._x.shape[0]:
                    raise ValueError(
                        f"{self.problem.name}: the residual must have one row per collocation "
                        f"point ({self._x.shape[0]}), got shape {list(r.shape)}"
                    )
                name = "pde" if len(residuals) == 1 else f"pde{k}"
                terms[name] = self._pde_loss(r) * self.config.pde_weight
        for condition in self.conditions:
            terms[condition.name] = condition.loss(self.model, method) * condition.weight
        return terms

    def _pde_loss(self, r):
        """Mean squared residual, causally weighted over time slices when configured."""
        if not self.config.causal:
            return (r * r).mean()
        slice_losses = self._slice_means @ (r * r).mean(dim=1)
        with no_grad():
            earlier = slice_losses.cumsum(0) - slice_losses
            weights = exp(-self.config.causal * earlier)
        return (weights * slice_losses).mean()

    def _closure(self, record: dict):
        def closure():
            if self.phase == "lbfgs" and self._unchanged_since_last_evaluation():
                # L-BFGS starts every step by evaluating where its last line search ended;
                # the gradients from then are still in .grad, so reuse instead of recompute.
                total, terms = self._last_evaluation[1:]
            else:
                self.optimizer.zero_grad()
                terms = self.loss_terms()
                total = sum(terms.values())
                total.backward()
                terms = {k: float(v.item()) for k, v in terms.items()}
                self._last_evaluation = (self._flat_parameters(), total, terms)
            if "total" not in record:
                record.update(terms)
                record["total"] = float(total.item())
            return total

        return closure

    def _flat_parameters(self) -> np.ndarray:
        return np.concatenate([p.detach().numpy().reshape(-1) for p in self._parameters()])

    def _unchanged_since_last_evaluation(self) -> bool:
        last = getattr(self, "_last_evaluation", None)
        return last is not None and np.array_equal(last[0], self._flat_parameters())

    # ------------------------------------------------------------------ the loop
    @property
    def total_steps(self) -> int:
        return self.config.adam_steps + self.config.lbfgs_steps

    def run(self, resume: bool = False) -> History:
        """Train to the end (or a stop); returns the history of every step."""
        if resume:
            self.load_checkpoint()
        bar = self._progress_bar()
        started = time.perf_counter() - (self.history.seconds[-1] if self.history.seconds else 0)
        try:
            while self.step < self.total_steps:
                record = self._one_step()
                elapsed = time.perf_counter() - started
                self.history.append(self.step, self.phase, elapsed, record)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(loss=f"{record['total']:.3e}", phase=self.phase, refresh=False)
                if self._should_stop(record, elapsed):
                    break
                if (
                    self.checkpoint
                    and self.config.checkpoint_every
                    and (self.step % self.config.checkpoint_every == 0)
                ):
                    self.save_checkpoint()
        finally:
            if bar is not None:
                bar.close()
        if self.checkpoint:
            self.save_checkpoint()
        return self.history

    def _one_step(self) -> dict:
        adaptive = self.config.resample == "rad"
        if self.step == self.config.adam_steps and self.phase == "adam":
            self.phase = "lbfgs"
            self.optimizer = self._lbfgs()
        elif self.phase == "lbfgs":
            every, done = self.config.lbfgs_resample_every, self.step - self.config.adam_steps
            if every and done and done % every == 0:
                self._sample_collocation(adaptive)
                self.optimizer = self._lbfgs()
        if self.phase == "adam":
            every = self.config.resample_every
            if every and self.step and self.step % every == 0:
                self._sample_collocation(adaptive)
            if self.config.lr_decay != 1.0 and self.step and self.step % 1000 == 0:
                for group in self.optimizer.param_groups:
                    group["lr"] *= self.config.lr_decay
        record: dict = {}
        self.optimizer.step(self._closure(record))
        self.step += 1
        bad = [k for k, v in record.items() if not math.isfinite(v)]
        if bad:
            raise TrainingDiverged(
                f"{self.problem.name}: the loss became {record[bad[0]]} at step {self.step} in "
                f"the term {bad[0]!r}; the last good checkpoint is kept"
                + (f" ({self.checkpoint})" if self.checkpoint else "")
                + ". Try a smaller learning rate (--lr) or float64."
            )
        return record

    def _should_stop(self, record: dict, elapsed: float) -> bool:
        if self.config.tol and record["total"] < self.config.tol:
            self.stop_reason = f"loss {record['total']:.3e} below tol {self.config.tol:g}"
            return True
        if self.config.time_limit and elapsed > self.config.time_limit:
            self.stop_reason = f"time limit {self.config.time_limit:g} s reached"
            return True
        for callback in self.callbacks:
            if callback(self, record):
                self.stop_reason = f"stopped by {getattr(callback, '__name__', 'a callback')}"
                return True
        return False

    def _progress_bar(self):
        if not self.progress:
            return None
        return tqdm(
            total=self.total_steps,
            initial=self.step,
            desc=self.problem.name,
            unit="step",
            dynamic_ncols=True,
        )

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict:
        return {
            "step": self.step,
            "phase": self.phase,
            "model": self.model.state_dict(),
            "coefficients": dict(self.coefficients),
            "optimizer": self.optimizer.state_dict(),
            "rng": self.rng.bit_generator.state,
            "collocation": self.collocation,
            "condition_points": [c.points for c in self.conditions],
            "history": self.history.to_state(),
            "config": dataclasses.asdict(self.config),
        }

    def save_checkpoint(self) -> None:
        save(self.state(), self.checkpoint)

    def load_checkpoint(self) -> None:
        """Continue from ``self.checkpoint``: weights, optimizer, points, RNG and history."""
        if not self.checkpoint or not os.path.exists(self.checkpoint):
            raise FileNotFoundError(f"resume: no checkpoint at {self.checkpoint!r}")
        state = load(self.checkpoint)
        saved = {
            k: v
            for k, v in state["config"].items()
            if k not in ("adam_steps", "lbfgs_steps", "tol", "checkpoint_every", "time_limit")
        }
        mine = dataclasses.asdict(self.config)
        changed = sorted(k for k, v in saved.items() if mine.get(k) != v)
        if changed:
            raise ValueError(
                f"resume: the checkpoint {self.checkpoint!r} was made with other settings "
                f"({', '.join(f'{k}={saved[k]!r}' for k in changed)}); run with those settings"
            )
        self.model.load_state_dict(state["model"])
        with no_grad():
            for name, p in self.coefficients.items():
                p.copy_(state["coefficients"][name])
        self.step, self.phase = state["step"], state["phase"]
        self.optimizer = self._adam() if self.phase == "adam" else self._lbfgs()
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]
        self._use_collocation(state["collocation"])
        for condition, points in zip(self.conditions, state["condition_points"]):
            condition.points = points
            condition.setup(self.dtype)
        self.history = History.from_state(state["history"])

    # ------------------------------------------------------------------ results
    def predict(self, points: np.ndarray) -> np.ndarray:
        """The network's (M, m) prediction at NumPy points, in float64."""
        with no_grad():
            return self.model(tensor(points, dtype=self.dtype)).numpy().astype(np.float64)

    def relative_l2(self) -> float | None:
        """``||u - u_ref|| / ||u_ref||`` on the problem's evaluation grid (None: no reference)."""
        if self.problem.exact is None:
            return None
        _, points, _ = self.problem.grid_points()
        u, ref = (
            self.predict(points),
            np.asarray(self.problem.exact(points)).reshape(len(points), -1),
        )
        return float(np.linalg.norm(u - ref) / np.linalg.norm(ref))

    def learned_coefficients(self) -> dict:
        """The trained PDE coefficients, as the problem reports them (e.g. nu, not log nu)."""
        values = {name: float(p.item()) for name, p in self.coefficients.items()}
        return self.problem.report(values) if self.problem.report else values


def solve(problem, *, preset: str | None = None, checkpoint: str | None = None,
          resume: bool = False, progress: bool = True, callbacks=(),
          **settings) -> Trainer:  # fmt: skip
    """Train a network on ``problem`` (a :class:`Problem` or a benchmark's name).

    Returns the trainer: its ``model``, ``history``, ``relative_l2()`` and ``predict()``.

    ``settings`` are :class:`TrainConfig` fields (``adam_steps=500``, ``dtype="float32"``...).
    """
    if isinstance(problem, str):
        problem = problems.get(problem)
    config = TrainConfig.for_problem(problem, preset, **settings)
    trainer = Trainer(problem, config, checkpoint=checkpoint, callbacks=callbacks,
                      progress=progress)  # fmt: skip
    trainer.run(resume=resume)
    return trainer
