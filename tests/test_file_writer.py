"""The one file writer: atomic, only when the content changes, ordinary file modes,
no paths outside its root, no second write of the same path."""
from __future__ import annotations

import os

import pytest

from codegen.file_writer import FileWriter, atomic_write


def test_writes_only_changed_content(tmp_path):
    w = FileWriter(tmp_path)
    w.write("a/x.h", "int x;\n")
    assert w.written == ["a/x.h"]
    stamp = (tmp_path / "a/x.h").stat().st_mtime_ns
    again = FileWriter(tmp_path)
    again.write("a/x.h", "int x;\n")
    assert again.written == [] and again.unchanged == ["a/x.h"]
    assert (tmp_path / "a/x.h").stat().st_mtime_ns == stamp
    assert (tmp_path / "a/x.h").read_text().endswith("int x;\n")


def test_files_get_the_mode_open_would_give(tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    atomic_write(tmp_path / "f.h", b"x")
    assert (tmp_path / "f.h").stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600
    assert [p.name for p in tmp_path.iterdir()] == ["f.h"]  # no temp file left


def test_refuses_paths_outside_the_root_and_second_writes(tmp_path):
    w = FileWriter(tmp_path)
    with pytest.raises(ValueError, match="relative"):
        w.write("../escape.h", "")
    with pytest.raises(ValueError, match="relative"):
        w.write(str(tmp_path / "abs.h"), "")
    w.write("once.h", "")
    with pytest.raises(ValueError):
        w.write("once.h", "")
