"""leafgrad.save keeps the file's rules: permissions, symbolic links, no temporary left over.

And leafgrad.load refuses a forged header before allocating what it claims.
"""

from __future__ import annotations

import fcntl
import io
import os
import signal
import stat
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import leafgrad
from leafgrad import serialization

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions and signals")


def _checkpoint(value: float) -> dict:
    return {"w": leafgrad.full((3,), value, dtype=leafgrad.float64), "epoch": int(value)}


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _temporaries(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith(".tmp"))


@pytest.fixture
def umask():
    def set_umask(mask):
        old.append(os.umask(mask))

    old: list[int] = []
    yield set_umask
    if old:
        os.umask(old[0])


# ----------------------------------------------------------------------------- permissions
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444])
def test_resaving_keeps_the_files_permission_bits(tmp_path, mode):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)
    os.chmod(path, mode)
    leafgrad.save(_checkpoint(2.0), path)
    assert _mode(path) == mode
    assert leafgrad.load(path)["epoch"] == 2


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600), (0o027, 0o640)])
def test_a_new_file_gets_what_open_gives_under_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    leafgrad.save(_checkpoint(1.0), tmp_path / "ck.lg")
    with open(tmp_path / "plain", "wb"):
        pass
    assert _mode(tmp_path / "ck.lg") == expected == _mode(tmp_path / "plain")


# ----------------------------------------------------------------------------- symbolic links
def test_saving_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "ck.lg"
    link = tmp_path / "latest.lg"
    leafgrad.save(_checkpoint(1.0), target)
    os.chmod(target, 0o600)
    link.symlink_to(target)
    leafgrad.save(_checkpoint(2.0), link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert leafgrad.load(target)["epoch"] == 2
    assert _mode(target) == 0o600
    assert sorted(os.listdir(tmp_path / "real")) == ["ck.lg"]
    assert sorted(os.listdir(tmp_path)) == ["latest.lg", "real"]


def test_saving_through_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "latest.lg"
    link.symlink_to(tmp_path / "ck.lg")
    leafgrad.save(_checkpoint(3.0), link)
    assert link.is_symlink()
    assert leafgrad.load(tmp_path / "ck.lg")["epoch"] == 3


# ----------------------------------------------------------------------------- killed saves
_KILLED_SAVE = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    import leafgrad
    from leafgrad import serialization

    real_writer = serialization._write_archive

    class Stalls:
        # Passes writes through to the file, then stalls forever after 16 MB.
        def __init__(self, fh):
            self.fh, self.written = fh, 0
        def write(self, data):
            n = self.fh.write(data)
            self.written += len(memoryview(data).cast("B"))
            if self.written > 16 * 2**20:
                self.fh.flush()
                print("writing", flush=True)
                time.sleep(600)
            return n
        def __getattr__(self, name):
            return getattr(self.fh, name)

    serialization._write_archive = lambda fh, arrays: real_writer(Stalls(fh), arrays)
    big = leafgrad.from_numpy(np.ones(64 * 2**20 // 8))  # a 64 MB tensor
    leafgrad.save({"w": big}, sys.argv[1])
    """
)


def _start_killed_save(path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SAVE, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "writing"
        assert len(_temporaries(os.path.dirname(path))) >= 1  # mid-write, a partial file
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()


def test_the_next_save_removes_temporaries_of_killed_saves(tmp_path):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)
    _start_killed_save(path)
    first = _temporaries(tmp_path)
    assert len(first) == 1 and os.path.getsize(tmp_path / first[0]) > 16 * 2**20
    _start_killed_save(path)  # a save, even one killed later, first clears the leftover
    second = _temporaries(tmp_path)
    assert len(second) == 1 and second != first
    assert leafgrad.load(path)["epoch"] == 1  # the old checkpoint survived the kills
    leafgrad.save(_checkpoint(2.0), path)
    assert os.listdir(tmp_path) == ["ck.lg"]
    assert leafgrad.load(path)["epoch"] == 2


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temporaries_of_live_writers_and_other_files_are_kept(tmp_path):
    path = tmp_path / "ck.lg"
    live = tmp_path / f".ck.lg.{os.getpid()}.0123456789ab.tmp"  # this process: alive
    locked = tmp_path / f".ck.lg.{_dead_pid()}.00000000000a.tmp"  # dead pid, lock still held
    dead = tmp_path / f".ck.lg.{_dead_pid()}.00000000000b.tmp"  # dead pid, unlocked
    other = tmp_path / f".other.lg.{_dead_pid()}.00000000000c.tmp"  # another checkpoint's
    for p in (live, locked, dead, other):
        p.write_bytes(b"partial")
    fd = os.open(locked, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer in another PID namespace holds its lock
    try:
        leafgrad.save(_checkpoint(1.0), path)
    finally:
        os.close(fd)
    assert sorted(os.listdir(tmp_path)) == sorted(["ck.lg", live.name, locked.name, other.name])


# ----------------------------------------------------------------------------- errors
def test_an_unwritable_path_is_named_as_given_not_as_the_temporary(tmp_path):
    missing = tmp_path / "missing" / "ck.lg"
    with pytest.raises(FileNotFoundError) as info:
        leafgrad.save(1, missing)
    assert isinstance(info.value, RuntimeError)  # what torch.save raises, too
    assert info.value.filename == str(missing)
    assert str(missing) in str(info.value) and ".tmp" not in str(info.value)
    with pytest.raises(IsADirectoryError) as info:
        leafgrad.save(1, tmp_path)
    assert str(tmp_path) in str(info.value) and ".tmp" not in str(info.value)
    assert os.listdir(tmp_path) == []


def test_a_failure_while_writing_names_the_path_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "ck.lg"

    def disk_full(fileobj, arrays):
        fileobj.write(b"PK")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(serialization, "_write_archive", disk_full)
    with pytest.raises(OSError, match="No space left") as info:
        leafgrad.save(_checkpoint(1.0), path)
    assert info.value.errno == 28 and info.value.filename == str(path)
    assert os.listdir(tmp_path) == []


# ----------------------------------------------------------------------------- forged headers
def _forge_shape(path, shape) -> None:
    """Rewrite member ``a0`` of a checkpoint so its header claims ``shape`` (data unchanged)."""
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    data = np.full(3, 1.0).tobytes()
    members["a0.npy"] = header.getvalue() + data  # the header writer adds the magic
    with zipfile.ZipFile(path, "w") as archive:
        for name, payload in members.items():
            archive.writestr(name, payload)


@pytest.mark.parametrize("shape", [(10**12,), (10**6, 10**6), (4,), (2,)])
def test_a_header_claiming_another_size_is_refused_before_allocating(tmp_path, shape):
    path = tmp_path / "ck.lg"
    leafgrad.save({"w": leafgrad.ones(3, dtype=leafgrad.float64)}, path)
    _forge_shape(path, shape)
    with pytest.raises(ValueError, match=r"a0.*claims shape") as info:
        leafgrad.load(path)
    assert str(path) in str(info.value)


def test_a_compressed_member_is_refused(tmp_path):
    path = tmp_path / "ck.lg"
    leafgrad.save({"w": leafgrad.ones(3)}, path)
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, payload in members.items():
            archive.writestr(name, payload)
    with pytest.raises(ValueError, match="compressed"):
        leafgrad.load(path)
