"""The parts of the real-code benchmark's scripts that decide what is fetched and what is counted
(scripts/fetch_hipify_corpus.py, scripts/bench_hipify.py), on small inputs made here: no network,
no compiler."""
from __future__ import annotations

import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_hipify as bench  # noqa: E402
import fetch_hipify_corpus as fetch  # noqa: E402


def _tar(path: Path, members: list[tuple[str, bytes | None, str]]) -> None:
    """members: (name, data, kind) with kind 'file', 'symlink' or 'fifo'."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                info.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.FIFOTYPE
                info.linkname = "/etc/passwd" if kind == "symlink" else ""
                tar.addfile(info)


def test_unpack_keeps_sources_and_never_leaves_the_destination(tmp_path):
    archive = tmp_path / "p-1.0.tar.gz"
    _tar(archive, [("p-1.0/src/k.cu", b"__global__ void k() {}", "file"),
                   ("p-1.0/src/k.cuh", b"#pragma once", "file"),
                   ("p-1.0/README.md", b"docs", "file"),  # not a source
                   ("p-1.0/../../escape.cu", b"x", "file"),
                   ("/abs/evil.cu", b"x", "file"),
                   ("p-1.0/link.cu", None, "symlink"),
                   ("p-1.0/pipe.cu", None, "fifo"),
                   ("p-1.0/third_party/cub/cub/util.cuh", b"x", "file")])  # NVIDIA's own CUB: left out
    dest = tmp_path / "out" / "p"
    assert fetch.unpack(archive, dest) == 2
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == ["src/k.cu", "src/k.cuh"]
    assert not (tmp_path / "escape.cu").exists() and not (tmp_path / "out" / "escape.cu").exists()


def test_safe_name_drops_the_top_folder_and_refuses_escapes():
    assert fetch.safe_name("p-1.0/a/b.cu") == "a/b.cu"
    for bad in ("/etc/x.cu", "p/../x.cu", "p//x.cu", "x.cu", "p/a/../../x.cu"):
        assert fetch.safe_name(bad) is None, bad


def test_the_closure_follows_project_includes_and_finds_what_a_file_needs(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "inc" / "common.cuh").write_text('#include "util.h"\n#include <cuda_runtime.h>\n')
    (tmp_path / "inc" / "util.h").write_text("#pragma once\n")
    (tmp_path / "inc" / "ext.h").write_text("#include <torch/extension.h>\n")
    (tmp_path / "src" / "a.cu").write_text('#include "common.cuh"\n#include "a.cuh"\n')
    (tmp_path / "src" / "a.cuh").write_text('#include "a.cu"\n')  # a cycle ends
    (tmp_path / "src" / "b.cu").write_text('#include "ext.h"\n')
    c = bench.Closure(tmp_path, ["inc"])
    assert sorted(c.walk("src/a.cu")[0]) == ["inc/common.cuh", "inc/util.h", "src/a.cu", "src/a.cuh"]
    assert c.need("src/a.cu") is None
    assert c.need("src/b.cu").startswith("PyTorch headers")
    before = c.digest("src/a.cu")
    (tmp_path / "inc" / "util.h").write_text("#pragma once // changed\n")
    assert bench.Closure(tmp_path, ["inc"]).digest("src/a.cu") != before  # a header's change is a new key
    assert bench.Closure(tmp_path, ["inc"]).digest("src/b.cu") == c.digest("src/b.cu")


def test_first_errors_group_by_message():
    hip = ("In file included from x.hip:1:\n/t/common.cuh:130:5: error: use of undeclared identifier '__syncwarp'\n"
           "/t/common.cuh:131:5: error: other\n2 errors generated.")
    assert bench.first_error(hip) == "use of undeclared identifier '__syncwarp'"
    assert bench.first_error("x.hip:1:10: fatal error: 'cub/cub.cuh' file not found") == "'cub/cub.cuh' file not found"
    assert bench.first_error('a.cu(3): error: identifier "foo" is undefined') == 'identifier "foo" is undefined'
    assert bench.first_error("k.hip:3:1: error: unknown type name 'nv_bfloat16'; did you mean 'hip_bfloat16'?") == \
        "unknown type name 'nv_bfloat16'"
    assert bench.first_error("") == "(no message)"
