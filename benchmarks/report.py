"""The machine's description and the Markdown / JSON files of a benchmark run."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np

import leafgrad
from leafgrad._cpu import cpuinfo, numpy_blas, numpy_cpu_features
from leafgrad.ops import _fused

from .measure import torch


def machine() -> dict:
    """What the figures were measured on."""
    return {
        "cpu": cpuinfo("model name") or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "leafgrad": leafgrad.__version__,
        "torch": torch.__version__ if torch is not None else None,
        "torch_default_threads": torch.get_num_threads() if torch is not None else None,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "simd": _simd(),
        "blas": _blas(),
        "numba": _numba(),
    }


def _simd() -> str:
    """NumPy's widest x86 SIMD level here (float64 tanh, exp and sin are vectorised only
    from AVX-512 on, so ratios differ between such hosts), or "-" where NumPy does not say."""
    features = numpy_cpu_features()
    for level in ("AVX512_SKX", "AVX2", "SSE42"):
        if features.get(level):
            return level
    return "-"


def _numba() -> str:
    """numba's version where leafgrad's compiled kernels run (``ops/_fused.py``), else
    "off" (not installed, or ``LEAFGRAD_NUMBA=0``)."""
    if not _fused.available():
        return "off"
    return _fused._numba.__version__


def _blas() -> str:
    """NumPy's BLAS, version and kernels (e.g. "openblas 0.3.31 SkylakeX": leafgrad cuts
    products for OpenBLAS's SkylakeX small-matrix kernel, ops/_gemm.py), or "-"."""
    lib = numpy_blas()
    if lib is None:
        return "-"
    parts = (lib.internal_api, lib.version, getattr(lib, "architecture", None))
    return " ".join(str(p) for p in parts if p)


def write(out: Path, info: dict, settings: dict, rows: list) -> tuple[Path, Path]:
    """``results.json`` and ``results.md`` in ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    data = {"machine": info, "settings": settings, "results": rows}
    json_path = out / "results.json"
    json_path.write_text(json.dumps(data, indent=1) + "\n")
    md_path = out / "results.md"
    md_path.write_text(markdown(info, settings, rows))
    return json_path, md_path


def _ms(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"


def _num(value, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def markdown(info: dict, settings: dict, rows: list) -> str:
    """One table for all workloads: time per step, ratio, peak memory and its ratio."""
    lines = [
        "# leafgrad benchmarks",
        "",
        f"Machine: {info['cpu']} ({info.get('simd', '-')}, BLAS {info.get('blas', '-')}), "
        f"{info['cores']} cores, "
        f"{info['platform']}; Python "
        f"{info['python']}, NumPy {info['numpy']}, numba kernels {info.get('numba', '-')}, "
        f"PyTorch {info['torch'] or 'not installed'} "
        f"(default threads {info['torch_default_threads']}); load average at the start "
        f"{_num(info['load_average'] and info['load_average'][0], '.1f')}.",
        "",
        f"Settings: {settings['rounds']} interleaved rounds, medians; threads "
        f"{', '.join(str(t) for t in settings['threads'])}; quick={settings['quick']}; "
        f"tune_malloc={settings['tune_malloc']}. Ratios are against the workload's first "
        "method (PyTorch); memory is the growth of the resident set during one step.",
        "",
        "| workload | threads | method | time / step | ratio | peak MiB | memory ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        time_cell = _ms(r["median_s"])
        if r.get("growth") is not None:
            time_cell += (
                f" (first {_ms(r['first_s'])}, last {_ms(r['last_s'])}, x{r['growth']:.2f})"
            )
        lines.append(
            f"| {r['workload']} | {r['threads']} | {r['method']} | {time_cell} | "
            f"{_num(r['ratio'], '.2f')} | {_num(r['peak_mib'], '.1f')} | "
            f"{_num(r['memory_ratio'], '.2f')} |"
        )
    lines += ["", "Workloads:", ""]
    seen = set()
    for r in rows:
        if r["workload"] not in seen:
            seen.add(r["workload"])
            lines.append(f"- `{r['workload']}`: {r['description']}")
    return "\n".join(lines) + "\n"
