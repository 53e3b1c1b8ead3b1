"""leafgrad.utils.tune_malloc: an explicit opt-in; importing leafgrad leaves malloc alone."""

import json
import os
import platform
import subprocess
import sys

import pytest

import leafgrad

# Each round allocates and frees 64 MiB arrays: above glibc's largest dynamic mmap threshold
# (32 MiB), so untuned every one is mmapped afresh and page-faults; tuned, the heap keeps the
# block and later rounds reuse it. A round's count is taken after a warm-up round.
_SCRIPT = """
import json, resource
import numpy as np
import leafgrad

def faults_per_round():
    for _ in range(2):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(4):
            a = np.ones(8 * 2**20)
            del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

untuned = faults_per_round()
applied = leafgrad.utils.tune_malloc()
print(json.dumps([untuned, applied, faults_per_round()]))
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_malloc_is_tuned_only_when_asked():
    root = os.path.dirname(os.path.dirname(leafgrad.__file__))  # the leafgrad under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True, env=env
    )
    untuned, applied, tuned = json.loads(out.stdout)
    assert applied is True
    assert untuned >= 4, "importing leafgrad already kept freed blocks: malloc was tuned"
    assert tuned < untuned / 4
