"""Warnings point at the user's line, as PyTorch's (raised from C++) do, however deep inside
leafgrad they are raised: the scalar-conversion warning (once per process, as PyTorch) and
the copy-construct warnings of ``tensor(t)`` and ``t.new_tensor(t)``."""

import math
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import leafgrad


@pytest.fixture
def fresh_once_flag(fresh_warnings):
    """The scalar-conversion warning not given yet in this process."""


def _recorded(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, w.filename, str(w.message)) for w in caught]


def _line_of(fn):
    return fn.__code__.co_firstlineno


TRIGGERS = {
    "float": lambda t: float(t),
    "complex": lambda t: complex(t),
    "math.sqrt": lambda t: math.sqrt(t),
    "format %": lambda t: "%f" % t,  # noqa: UP031 - %-formatting calls __float__
    "tensor of a list of tensors": lambda t: leafgrad.tensor([t, t]),
    "nested list": lambda t: leafgrad.tensor([[t], [t]]),
}


@pytest.mark.parametrize("name", TRIGGERS)
def test_the_scalar_conversion_warning_points_at_the_users_line(name, fresh_once_flag):
    t = leafgrad.tensor(1.5, requires_grad=True)
    caught = _recorded(lambda: TRIGGERS[name](t))
    assert len(caught) == 1
    category, filename, message = caught[0]
    assert category is UserWarning and "requires_grad=True to a scalar" in message
    assert filename == __file__


def test_the_scalar_conversion_warning_is_given_once_per_process(fresh_once_flag):
    t = leafgrad.tensor(1.5, requires_grad=True)
    assert len(_recorded(lambda: float(t))) == 1
    assert _recorded(lambda: float(t)) == []
    assert _recorded(lambda: t.item()) == [] and _recorded(lambda: int(t)) == []


@pytest.mark.parametrize("call", ["tensor", "new_tensor"])
def test_copy_construct_warnings_point_at_the_user_and_come_once(call):
    t = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    make = (lambda: leafgrad.tensor(t)) if call == "tensor" else (lambda: t.new_tensor(t))
    caught = _recorded(make)
    assert len(caught) == 1 and caught[0][1] == __file__
    assert "detach().clone()" in caught[0][2]


SCRIPT = """
    import warnings
    import {lib} as torch
    t = torch.tensor(1.5, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        {expr}
    print([(w.filename, w.lineno) for w in caught])
"""


@pytest.mark.parametrize("expr", ["float(t)", "torch.tensor([t, t])", "t.item()"])
def test_where_the_warning_points_matches_pytorch(expr, tmp_path):
    pytest.importorskip("torch")
    # The subprocess imports this leafgrad, not another installed copy.
    root = os.path.dirname(os.path.dirname(os.path.abspath(leafgrad.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = {}
    for lib in ("leafgrad", "torch"):
        script = tmp_path / f"{lib}_script.py"
        script.write_text(textwrap.dedent(SCRIPT.format(lib=lib, expr=expr)))
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr
        out[lib] = run.stdout.replace(str(script), "<script>")
    assert out["leafgrad"] == out["torch"]
