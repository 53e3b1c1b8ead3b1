"""Figures of a solved problem (matplotlib, an optional extra: ``pip install leafgrad[plot]``)."""

from __future__ import annotations

import os

import numpy as np


def available() -> bool:
    try:
        import matplotlib  # noqa: F401 - why: an optional extra, imported only to draw
    except ImportError:
        return False
    return True


def _pyplot():
    import matplotlib  # why: an optional extra (pip install leafgrad[plot]), imported to draw

    matplotlib.use("Agg")  # files only; no screen needed
    import matplotlib.pyplot as plt  # why: after choosing the backend, as matplotlib asks

    return plt


def _save(fig, path: str) -> None:
    tmp = f"{path}.{os.getpid()}.tmp.png"
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    os.replace(tmp, path)


def fields(path: str, axes: dict, u: np.ndarray, u_ref: np.ndarray | None, title: str) -> None:
    """Prediction, reference and absolute error over the 2-D domain, side by side."""
    plt = _pyplot()
    (name_a, a), (name_b, b) = list(axes.items())  # u[b index, a index]
    panels = [("prediction", u)]
    if u_ref is not None:
        panels += [("reference", u_ref), ("|error|", np.abs(u - u_ref))]
    fig, axs = plt.subplots(
        1, len(panels), figsize=(4.8 * len(panels), 3.6), squeeze=False, layout="constrained"
    )
    extent = (a.min(), a.max(), b.min(), b.max())
    for ax, (label, values) in zip(axs[0], panels):
        image = ax.imshow(values, origin="lower", extent=extent, aspect="auto", cmap="RdBu_r"
                          if label != "|error|" else "viridis")  # fmt: skip
        ax.set(title=f"{title}: {label}", xlabel=name_a, ylabel=name_b)
        fig.colorbar(image, ax=ax)
    _save(fig, path)
    plt.close(fig)


def slices(path: str, axes: dict, u: np.ndarray, u_ref: np.ndarray | None, title: str) -> None:
    """u against the first axis at four values of the second, with the reference dashed."""
    plt = _pyplot()
    (name_a, a), (name_b, b) = list(axes.items())
    picks = np.unique(np.linspace(0, len(b) - 1, 4).round().astype(int))
    fig, axs = plt.subplots(1, len(picks), figsize=(3.6 * len(picks), 3.2), squeeze=False)
    for ax, i in zip(axs[0], picks):
        ax.plot(a, u[i], label="PINN")
        if u_ref is not None:
            ax.plot(a, u_ref[i], "k--", label="reference")
        ax.set(title=f"{name_b} = {b[i]:.2f}", xlabel=name_a)
    axs[0][0].set_ylabel(title)
    axs[0][0].legend()
    _save(fig, path)
    plt.close(fig)


def losses(path: str, history) -> None:
    """Every loss term against the step, on a log scale, with the Adam/L-BFGS switch marked."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for name, values in history.terms.items():
        ax.semilogy(history.steps, np.abs(values), label=name, lw=1.2 if name == "total" else 0.8)
    if "lbfgs" in history.phases:
        ax.axvline(history.steps[history.phases.index("lbfgs")], color="gray", ls=":", lw=1)
    ax.set(xlabel="step", ylabel="loss", title="loss terms (dotted: Adam -> L-BFGS)")
    ax.legend()
    _save(fig, path)
    plt.close(fig)
