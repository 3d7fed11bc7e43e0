"""Tests for sim.io.files: whole files or none, and no temporaries left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.io.files import (
    TEMP_GLOB,
    atomic_paths,
    atomic_write,
    atomic_write_bytes,
    atomic_write_text,
)


def test_writes_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "a.txt"
    atomic_write_text(target, "one", mkdir=True)
    assert target.read_text() == "one"
    atomic_write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    assert list(target.parent.glob(TEMP_GLOB)) == []


def test_error_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")

    def fail(tmp: Path) -> None:
        tmp.write_text("half")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        atomic_write(target, fail)
    assert target.read_text() == "old"
    assert list(tmp_path.glob(TEMP_GLOB)) == []


def test_group_is_renamed_together_or_not_at_all(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.md"
    with pytest.raises(KeyboardInterrupt), atomic_paths([a, b]) as (ta, tb):
        ta.write_text("a")
        raise KeyboardInterrupt
    assert not a.exists() and not b.exists()
    assert list(tmp_path.glob(TEMP_GLOB)) == []
    with atomic_paths([a, b]) as (ta, tb):
        ta.write_text("a")
        tb.write_text("b")
        assert not a.exists()  # nothing is in place before the block ends
    assert (a.read_text(), b.read_text()) == ("a", "b")
    assert list(tmp_path.glob(TEMP_GLOB)) == []
