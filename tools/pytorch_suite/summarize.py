"""Classify a run's CSV rows: out of scope by rule, else pass / fail by cause; print counts.

Usage: ``summarize.py RUN.csv[,RUN2.csv] [PYTORCH.csv[,PYTORCH2.csv]]``.
"""

from __future__ import annotations

import csv
import re
import sys
from collections import Counter

# Name rules: features the measurement leaves out (see README.md here).
OUT_OF_SCOPE_NAMES = [
    (r"logging_tensor", "LoggingTensor (__torch_dispatch__)"),
    (
        r"vectorize_True|vectorized_|vectorize_correctness|vectorize_raises|strict_vectorize",
        "vmap / vectorize=True",
    ),
    (r"is_grads_batched|batched|vmap|functorch", "vmap / vectorize=True"),
    (r"cuda|_gpu|device_type|different_devices|multi_device|stream", "CUDA / devices"),
    (r"complex", "complex"),
    (r"sparse|nested|mkldnn", "sparse / nested / mkldnn"),
    (r"checkpoint", "torch.utils.checkpoint"),
    (r"profiler|record_function|emit_nvtx|nvtx", "profiler"),
    (r"jit|script|trace|compile|dynamo", "compile / jit"),
    (r"multiprocess|fork|thread|reentrant_parent|deadlock", "multiprocessing / threads"),
    (r"dispatch|subclass|python_mode|torch_function", "__torch_dispatch__ / subclasses"),
]
# Class rules: whole test classes about an out-of-scope feature whose test names do not say so.
OUT_OF_SCOPE_CLASSES = [
    (r"Multithread", "multiprocessing / threads"),
    (r"Complex", "complex"),
]
# Message rules for tests whose name does not tell: they hit an out-of-scope feature.
OUT_OF_SCOPE_MESSAGES = [
    (r"Skipped", "skipped by the adapter (out-of-scope feature)"),
    (r"torch\._C|_C\b|has no attribute '_", "torch._C / underscore internals"),
    (r"sparse|cuda|CUDA|complex|vmap|checkpoint|profiler", "out-of-scope feature"),
]


def cause(row) -> str:
    msg = row["message"]
    if "does not match" in msg:
        return "error message wording (right type)"
    if re.search(r"Did not raise|not raised", msg):
        return "missing error"
    if msg.startswith(
        ("AttributeError", "ModuleNotFoundError", "ImportError", "NotImplementedError")
    ):
        return "missing API"
    if msg.startswith("TypeError") and "argument" in msg:
        return "missing API"
    if msg.startswith("AssertionError") and ("values differ" in msg or "GradcheckError" in msg):
        return "wrong value / gradient"
    if "GradcheckError" in msg or "Jacobian mismatch" in msg:
        return "wrong value / gradient"
    return "other: " + msg.split(":", 1)[0]


def scope(row) -> str | None:
    parts = row["test"].split("::")
    name, klass = parts[-1], parts[-2] if len(parts) > 2 else ""
    for pattern, why in OUT_OF_SCOPE_NAMES:
        if re.search(pattern, name, re.IGNORECASE):
            return why
    for pattern, why in OUT_OF_SCOPE_CLASSES:
        if re.search(pattern, klass):
            return why
    if row["outcome"] == "skipped":
        return "skipped: " + row["message"][:60]
    for pattern, why in OUT_OF_SCOPE_MESSAGES[1:]:
        if row["outcome"] == "failed" and re.search(pattern, row["message"]):
            return why
    return None


def main(path: str, baseline: str | None = None) -> None:
    # Comma-separated lists measure several files together (test ids name their file).
    rows = [row for one in path.split(",") for row in csv.DictReader(open(one))]
    # A test PyTorch itself fails under the same adapter tests an API removed since the
    # file's version (or something the adapter lacks): not counted against leafgrad.
    passed_on_pytorch = None
    if baseline:
        passed_on_pytorch = {
            r["test"]
            for one in baseline.split(",")
            for r in csv.DictReader(open(one))
            if r["outcome"] == "passed"
        }
    out = Counter()
    causes = Counter()
    passed = total = 0
    for row in rows:
        why = scope(row)
        if not why and passed_on_pytorch is not None and row["test"] not in passed_on_pytorch:
            why = "fails on PyTorch itself under this adapter"
        if why:
            out[why] += 1
            continue
        total += 1
        if row["outcome"] == "passed":
            passed += 1
        else:
            causes[cause(row)] += 1
            print(f"  {row['test'].split('::')[-1]}: {cause(row)} | {row['message'][:160]}")
    print(f"in scope: {passed}/{total} passed ({100 * passed / max(total, 1):.1f}%)")
    print("failures by cause:", dict(causes))
    print("out of scope:", dict(out), "total", sum(out.values()))


if __name__ == "__main__":
    main(*sys.argv[1:3])
