"""Warnings in PyTorch's words, at the user's line, as often as PyTorch gives them.

Each case runs in both libraries; PyTorch's side runs in a fresh process, since several of
its warnings are given once per process (TORCH_WARN_ONCE) and this one may have spent them.
PyTorch's C++ warnings end with "(Triggered internally at <its source line>)": that suffix
is left out of the comparison.
"""

import json
import re
import subprocess
import sys
import warnings

import pytest

import leafgrad as lg
from leafgrad import _warn

CASES = {
    "T of 3-D": "m.rand(2, 3, 4).T",
    "meshgrid without indexing": "m.meshgrid(m.rand(2), m.rand(3))",
    "chain_matmul": "m.chain_matmul(m.rand(2, 2), m.rand(2, 2))",
    "uint8 index": "m.rand(3)[m.tensor([1, 0, 1], dtype=m.uint8)]",
    "storage()": "m.rand(2).storage()",
    "tensor(tensor)": "m.tensor(m.rand(2))",
    "new_tensor(tensor)": "m.rand(2).new_tensor(m.rand(2))",
    "upsample": "m.nn.functional.upsample(m.rand(1, 1, 3), scale_factor=2)",
    "index_reduce": "m.rand(3, 4).index_reduce_(0, m.tensor([1]), m.ones(1, 4), 'prod')",
    "only_inputs": "m.autograd.grad((x * x).sum(), x, only_inputs=False)",
    "mse_loss sizes": "m.nn.functional.mse_loss(m.rand(3, 1), m.rand(3))",
    "l1_loss sizes": "m.nn.functional.l1_loss(m.rand(3, 1), m.rand(3))",
    "qr": "m.qr(m.rand(3, 3))",
    "cholesky": "m.cholesky(m.eye(3))",
    "triangular_solve": "m.triangular_solve(m.rand(3, 1), m.eye(3))",
    "lu": "m.lu(m.rand(3, 3) + 3 * m.eye(3))",
    "lu_solve": "m.lu_solve(m.rand(3, 1), *m.linalg.lu_factor(m.rand(3, 3) + 3 * m.eye(3)))",
    "from_numpy(read-only)": "m.from_numpy(read_only)",
    "tensor(list of arrays)": "m.tensor([np.zeros(2), np.ones(2)])",
    "cross without dim": "m.cross(m.rand(3, 3), m.rand(3, 3))",
    "std with no degrees of freedom": "m.rand(1).std()",
    "var with correction too large": "m.rand(2, 3).var(dim=1, correction=5)",
    "float of a tensor requiring grad": "float(m.rand(1, requires_grad=True))",
    "grad of a non-leaf": "(x * 2).grad",
    "assert_allclose": "m.testing.assert_allclose(m.zeros(2), m.zeros(2))",
    "scheduler.step(epoch)": "(opt.step(), m.optim.lr_scheduler.StepLR(opt, 2).step(3))",
}

# Runs each case twice; prints {case: [[category, message, at the caller's line], ...]}.
PROGRAM = """
import json, sys, warnings
import numpy as np
m = __import__(sys.argv[1])
read_only = np.arange(3.0)
read_only.flags.writeable = False
cases = json.loads(sys.argv[2])
out = {}
for name, code in cases.items():
    x = m.rand(3, requires_grad=True)
    opt = m.optim.SGD([m.nn.Parameter(m.rand(2))], lr=0.1)
    seen = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval(code)  # the line the warning should point at
        seen += [[w.category.__name__, str(w.message), w.filename == "<string>"] for w in caught]
    out[name] = seen
print(json.dumps(out))
"""


def _run(module: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, module, json.dumps(CASES)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _without_source_line(message: str) -> str:
    return re.sub(r" \(Triggered internally at .*\)$", "", message, flags=re.S)


@pytest.fixture(scope="module")
def theirs():
    pytest.importorskip("torch")
    return _run("torch")


@pytest.fixture(scope="module")
def ours():
    return _run("leafgrad")


@pytest.mark.parametrize("case", CASES)
def test_warning_matches_pytorch(ours, theirs, case):
    ours = ours[case]
    expected = [[c, _without_source_line(m), _] for c, m, _ in theirs[case]]
    # Where PyTorch's warning points is its own file for some (a Python wrapper calls
    # its C++): there any line inside leafgrad or the user's will do.
    assert [[c, m] for c, m, _ in ours] == [[c, m] for c, m, _ in expected]
    for (_, _, at_user), (_, _, theirs_at_user) in zip(ours, expected):
        if theirs_at_user:
            assert at_user, f"{case}: the warning should point at the caller's line"


def test_warn_once_warns_the_first_time_only():
    message = "test_warn_once: a message no other code gives"
    _warn._warned_once.discard(message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warn.warn_once(message)
        _warn.warn_once(message)
    assert [str(w.message) for w in caught] == [message]
    assert caught[0].filename == __file__


def test_meshgrid_with_indexing_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grids = lg.meshgrid(lg.arange(2), lg.arange(3), indexing="xy")
    assert [list(g.shape) for g in grids] == [[3, 2], [3, 2]]
