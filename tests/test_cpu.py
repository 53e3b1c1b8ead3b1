"""_cpu.py: the CPU's vendor and other fields as /proc/cpuinfo names them, or "" where it cannot
be read."""

import builtins
import io

from leafgrad import _cpu


def test_vendor_is_read_from_cpuinfo(monkeypatch):
    text = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel name\t: Xeon\n"
    real_open = builtins.open
    monkeypatch.setattr(
        builtins,
        "open",
        lambda path, *a, **k: (
            io.StringIO(text) if path == "/proc/cpuinfo" else real_open(path, *a, **k)
        ),
    )
    assert _cpu.cpu_vendor() == "GenuineIntel"
    assert _cpu.cpuinfo("model name") == "Xeon"
    assert _cpu.cpuinfo("flags") == ""


def test_no_cpuinfo_gives_an_empty_vendor(monkeypatch):
    def missing(path, *args, **kwargs):
        raise FileNotFoundError(path)

    monkeypatch.setattr(builtins, "open", missing)
    assert _cpu.cpu_vendor() == ""
