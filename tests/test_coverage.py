"""python -m leafgrad.coverage: counts PyTorch's public names that leafgrad has."""

import pytest

import leafgrad
from leafgrad import coverage

pytest.importorskip("torch")


def test_names_are_counted_as_present_refused_or_absent():
    c = coverage.count("torch.cuda", "leafgrad.cuda")
    assert "is_available" in c["present"] and "manual_seed" in c["present"]
    assert "synchronize" in c["refused"] and "current_device" in c["refused"]
    assert "nccl" in c["refused"] and "Stream" in c["refused"]
    # torch.linalg's names looked up in leafgrad.special: most are absent there.
    missing = coverage.count("torch.linalg", "leafgrad.special")["absent"]
    assert "inv" in missing and not any(hasattr(leafgrad.special, n) for n in missing)
    assert not set(c["present"]) & set(c["absent"])


def test_the_report_has_a_row_per_namespace_and_lists_what_is_absent(tmp_path):
    text = coverage.report(missing=True)
    for label, _, _ in coverage.NAMESPACES:
        assert f"| `{label}` |" in text
    for label, torch_path, leafgrad_path in coverage.NAMESPACES:
        listed = f"## Absent from `{label}`" in text
        assert listed == bool(coverage.count(torch_path, leafgrad_path)["absent"])
    out = tmp_path / "coverage.md"
    assert coverage.main(["--write", str(out)]) == 0
    assert out.read_text().startswith("# PyTorch API coverage")
