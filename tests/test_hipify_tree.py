"""hipify's tree mode on hostile input (issue 20): two sources for one output, a damaged or
lying manifest, FIFOs, output folders that overlap the project, folder/file conflicts, a full
disk; and hypothesis properties: a second run changes nothing, and nothing outside the output
folder is ever touched."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hipify import tree
from hipify.tree import MANIFEST, HipifyError, Options, hipify_tree

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hipify", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
            for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_two_sources_for_one_output_are_refused_naming_both(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"a_cuda.cu": "cudaFree(0);", "a_hip.hip": "hipFree(0);"})
    with pytest.raises(HipifyError, match="a_cuda.cu and a_hip.hip would both be written to a_hip.hip"):
        hipify_tree(src, out)
    assert not out.exists() or not any(out.iterdir()), "nothing written"
    write(src, {"cuda/x.h": "", "hip/x.h": ""})
    (src / "a_hip.hip").unlink()
    r = cli("--project-directory", str(src), "--output-directory", str(out))
    assert r.returncode == 1 and "cuda/x.h and hip/x.h would both be written to hip/x.h" in r.stderr
    s = hipify_tree(src, out, options=Options(keep_names=True))  # the way out the message names
    assert sorted(s.translated + s.copied) == ["a_cuda.cu", "cuda/x.h", "hip/x.h"]


def test_an_output_file_where_another_needs_a_folder_is_refused(tmp_path):
    src = tmp_path / "src"
    write(src, {"hip": "x", "cuda/k.cu": ""})
    with pytest.raises(HipifyError, match="hip would be written to hip, which cuda/k.cu needs as a folder"):
        hipify_tree(src, tmp_path / "out", options=Options(includes=("*",)))


def test_folder_in_the_way_of_an_output_is_a_clear_error_and_no_temporary_file(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"k.cu": "cudaFree(0);", "ok.cu": "cudaFree(0);", "sub/x.cuh": ""})
    (out / "k.hip").mkdir(parents=True)
    (out / "sub").write_text("a file where a folder goes")
    r = cli("--project-directory", str(src), "--output-directory", str(out))
    assert r.returncode == 1, r.stdout
    assert f"cannot write {out}/k.hip: a folder is in the way" in r.stderr
    assert f"cannot write {out}/sub/x.cuh: a file is in the way of a folder" in r.stderr
    assert "Traceback" not in r.stderr
    assert (out / "ok.hip").read_text().endswith("hipFree(0);")
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]


def test_full_disk_leaves_no_temporary_file(tmp_path, monkeypatch):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {f"k{i}.cu": "cudaFree(0);\n" * 100 for i in range(3)})
    real_write = os.write

    def full(fd, data):
        if len(data) > 100:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(tree.os, "write", full)
    s = hipify_tree(src, out, jobs=1)
    assert len(s.errors) == 4 and all("No space left on device" in e for e in s.errors)  # 3 files, the manifest
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]
    monkeypatch.setattr(tree.os, "write", real_write)
    s = hipify_tree(src, out, jobs=1)  # disk freed: the rerun does the work
    assert len(s.translated) == 3 and not s.errors


def test_full_tmpfs(tmp_path):
    """A real full disk: a 64 KiB tmpfs (needs the right to mount; else the ENOSPC test above stands)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        src = tmp_path / "src"
        write(src, {f"k{i}.cu": "cudaMalloc(&p, n);\n" * 2000 for i in range(4)})  # ~40 KiB each
        r = cli("--project-directory", str(src), "--output-directory", str(mnt / "out"))
        assert r.returncode == 1 and "No space left on device" in r.stderr and "Traceback" not in r.stderr
        assert not [p for p in (mnt / "out").rglob("*") if ".tmp" in p.name]
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_fifo_and_other_non_regular_files_are_skipped_not_waited_on(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"k.cu": "cudaFree(0);"})
    os.mkfifo(src / "pipe.cu")
    os.symlink(src / "missing.cu", src / "dangling.cu")
    r = cli("--project-directory", str(src), "--output-directory", str(out), timeout=30)
    assert r.returncode == 0, r.stderr
    assert "1 translated" in r.stdout and "2 skipped" in r.stdout
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "k.hip"]
    with pytest.raises(OSError, match="not a regular file"):
        tree._read(os.fspath(src / "pipe.cu"))


@pytest.mark.parametrize("damage", [
    b"",  # torn
    b'{"key": 3, "files": {',
    b"[1, 2, 3]",
    b"\xff\xfe garbage",
])
def test_a_damaged_manifest_is_a_cold_start(tmp_path, damage):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"a.cu": "cudaFree(0);", "b.cuh": "int b;"})
    hipify_tree(src, out)
    (out / MANIFEST).write_bytes(damage)
    s = hipify_tree(src, out)
    assert sorted(s.unchanged + s.translated + s.copied) == ["a.cu", "b.cuh"] and not s.removed
    assert json.loads((out / MANIFEST).read_text())["files"].keys() == {"a.cu", "b.cuh"}


@pytest.mark.parametrize("out_path", ["../../victim.txt", "/tmp/../victim.txt", "a/../../victim.txt", ".", "",
                                      MANIFEST])
def test_a_manifest_cannot_make_hipify_delete_outside_its_folder(tmp_path, out_path):
    src, out = tmp_path / "p" / "src", tmp_path / "p" / "out"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    write(src, {"a.cu": "cudaFree(0);"})
    hipify_tree(src, out)
    manifest = json.loads((out / MANIFEST).read_text())
    st = victim.stat()
    manifest["files"]["gone.cu"] = {"src": [1, 2], "out": out_path, "stamp": [st.st_size, st.st_mtime_ns]}
    (out / MANIFEST).write_text(json.dumps(manifest))
    hipify_tree(src, out)
    assert victim.read_text() == "precious"


def test_only_files_hipify_wrote_and_nobody_changed_are_deleted(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"a.cu": "cudaFree(0);", "b.cu": "cudaFree(1);", "c.cu": "x"})
    hipify_tree(src, out)
    (out / "b.hip").write_text("my own edit")
    (src / "a.cu").unlink()
    (src / "b.cu").unlink()
    s = hipify_tree(src, out)
    assert s.removed == ["a.cu"] and s.kept == ["b.hip"]
    assert not (out / "a.hip").exists() and (out / "b.hip").read_text() == "my own edit"


def test_a_renamed_source_does_not_delete_its_own_fresh_output(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"a_cuda.cu": "cudaFree(0);"})
    hipify_tree(src, out)
    (src / "a_cuda.cu").rename(src / "a_hip.hip")
    s = hipify_tree(src, out)
    assert (out / "a_hip.hip").read_text() == "#include \"hip/hip_runtime.h\"\nhipFree(0);"
    assert s.unchanged == ["a_hip.hip"] and not s.removed  # same text: not rewritten, and not deleted
    assert hipify_tree(src, out).unchanged == ["a_hip.hip"] and (out / "a_hip.hip").exists()


def test_changed_options_remove_the_outputs_they_no_longer_write(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"cuda/k.cu": "cudaFree(0);"})
    hipify_tree(src, out)
    assert (out / "hip" / "k.hip").exists()
    s = hipify_tree(src, out, options=Options(keep_names=True))
    assert (out / "cuda" / "k.cu").exists() and not (out / "hip" / "k.hip").exists() and s.translated == ["cuda/k.cu"]


def test_output_equal_to_or_holding_the_project_is_refused(tmp_path):
    src = tmp_path / "src"
    write(src, {"k.cu": "cudaFree(0);"})
    before = snapshot(src)
    for out, message in [(src, "is the project directory"), (tmp_path, "holds the project directory")]:
        r = cli("--project-directory", str(src), "--output-directory", str(out))
        assert r.returncode == 1 and message in r.stderr, r.stderr
    assert snapshot(src) == before and not (src / MANIFEST).exists()


def test_output_inside_the_project_only_as_a_separate_subtree(tmp_path):
    src = tmp_path / "src"
    write(src, {"k.cu": "cudaFree(0);", "lib/util.cuh": "int u;"})
    s = hipify_tree(src, src / "build" / "hip")  # a folder of its own: fine, and not translated itself
    assert s.translated == ["k.cu"] and s.copied == ["lib/util.cuh"]
    assert hipify_tree(src, src / "build" / "hip").unchanged == ["k.cu", "lib/util.cuh"]
    with pytest.raises(HipifyError, match=r"inside the project and holds sources that hipify did not write \(util.cuh\)"):
        hipify_tree(src, src / "lib")
    assert (src / "lib" / "util.cuh").read_text() == "int u;" and not (src / "lib" / MANIFEST).exists()


def test_header_include_dir_and_keep_names(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"include/cuda/ops_cuda.h": "cudaError_t op();", "kernels/k_cuda.cu": '#include "cuda/ops_cuda.h"\n',
                "kernels/plain.cu": '#include <cuda/ops_cuda.h>\n#include "missing_cuda.h"\n'})
    hipify_tree(src, out, options=Options(includes=("*.cu",), header_include_dirs=("include",)))
    assert (out / "include/hip/ops_hip.h").read_text() == "hipError_t op();"  # translated though --includes *.cu
    assert (out / "kernels/k_hip.hip").read_text() == '#include "hip/hip_runtime.h"\n#include "hip/ops_hip.h"\n'
    assert (out / "kernels/plain.hip").read_text() == \
        '#include "hip/hip_runtime.h"\n#include <hip/ops_hip.h>\n#include "missing_cuda.h"\n'
    kept = tmp_path / "kept"
    hipify_tree(src, kept, options=Options(keep_names=True, header_include_dirs=("include",)))
    assert (kept / "kernels/k_cuda.cu").read_text() == '#include "hip/hip_runtime.h"\n#include "cuda/ops_cuda.h"\n'
    assert (kept / "include/cuda/ops_cuda.h").read_text() == "hipError_t op();"
    with pytest.raises(HipifyError, match="not a folder of the project"):
        hipify_tree(src, out, options=Options(header_include_dirs=("../elsewhere",)))


def test_cli_options_reach_the_translation(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"k.cu": "#include <cublas_v2.h>\nvoid f() { cudaDeviceSetLimit(l, 0); k<<<1, 2>>>(); }\n"})
    r = cli("--project-directory", str(src), "--output-directory", str(out), "--hip-version", "5.2", "--roc",
            "--hip-launch-kernel-ggl")
    assert r.returncode == 0, r.stderr
    assert f"{src}/k.cu:2:12: warning: cudaDeviceSetLimit has no HIP equivalent (HIP 5.2)" in r.stdout
    assert (out / "k.hip").read_text() == ('#include "hip/hip_runtime.h"\n#include <rocblas/rocblas.h>\n'
                                           "void f() { cudaDeviceSetLimit(l, 0); hipLaunchKernelGGL(k, dim3(1), dim3(2), "
                                           "0, 0); }\n")
    r = cli("--project-directory", str(src), "--output-directory", str(out), "--hip-version", "five")
    assert r.returncode == 2 and "expected MAJOR.MINOR" in r.stderr


# --- properties (hypothesis) -------------------------------------------------------------------

NAMES = st.sampled_from(["k", "a_cuda", "cuda", "CUDAx", "hip", "x_hip", "util", "Ünï"])
EXTS = st.sampled_from([".cu", ".cuh", ".h", ".cpp", ".hip", ".txt"])
TEXTS = st.sampled_from(["", "cudaFree(p);\n", "// cudaMalloc\n", '#include "util.cuh"\n', "k<<<1, 1>>>();\n",
                         "#if 0\ncudaFree(q);\n#endif\n", "__global__ void f() {}\n", "caf\udce9 cudaFree\n"])
TREES = st.dictionaries(st.lists(NAMES, min_size=1, max_size=3).flatmap(
    lambda parts: EXTS.map(lambda ext: "/".join(parts) + ext)), st.lists(TEXTS, max_size=3).map("".join), max_size=8)


def make_tree(root: Path, files: dict[str, str]) -> bool:
    """False when the drawn tree cannot exist (a file and a folder of one name)."""
    for rel, text in files.items():
        path = root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=TREES, keep=st.booleans(), ggl=st.booleans())
def test_property_second_run_changes_nothing_and_nothing_outside_is_touched(tmp_path_factory, files, keep, ggl):
    base = tmp_path_factory.mktemp("prop")
    src, out, beside = base / "src", base / "out", base / "beside"
    src.mkdir()
    write(beside, {"keep.txt": "untouched"})
    if not make_tree(src, files):
        return
    outside = {**{f"src/{k}": v for k, v in snapshot(src).items()}, **{f"beside/{k}": v for k, v in snapshot(beside).items()}}
    options = Options(includes=("*.cu", "*.cuh", "*.h", "*.cpp", "*.hip"), keep_names=keep, launch_ggl=ggl)
    try:
        first = hipify_tree(src, out, options=options, jobs=1)
    except HipifyError as e:  # two sources for one output: refused before anything is written
        assert "would both be written" in str(e) or "needs as a folder" in str(e)
        assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]
        return
    after_first = snapshot(out)
    second = hipify_tree(src, out, options=options, jobs=1)
    assert snapshot(out) == after_first, "a second run rewrites nothing"
    assert not second.translated and not second.copied and not second.removed
    assert sorted(second.unchanged) == sorted(first.translated + first.copied + first.unchanged)
    now = {**{f"src/{k}": v for k, v in snapshot(src).items()}, **{f"beside/{k}": v for k, v in snapshot(beside).items()}}
    assert now == outside, "nothing outside the output folder changes"
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=TREES, entries=st.dictionaries(st.text(min_size=1, max_size=12), st.fixed_dictionaries({
    "src": st.lists(st.integers(-2, 2**63), min_size=2, max_size=2),
    "out": st.sampled_from(["../beside/keep.txt", "../beside", "/etc/passwd", "a/../../beside/keep.txt", "k.hip",
                            "ok.hip", "x\0y", "..", "./k.hip"]),
    "stamp": st.lists(st.integers(0, 2**63), min_size=2, max_size=2)}), max_size=4))
def test_property_a_lying_manifest_never_deletes_outside_the_output(tmp_path_factory, files, entries):
    base = tmp_path_factory.mktemp("lie")
    src, out, beside = base / "src", base / "out", base / "beside"
    src.mkdir()
    write(beside, {"keep.txt": "untouched"})
    if not make_tree(src, files):
        return
    before = snapshot(beside)
    st_ = (beside / "keep.txt").stat()
    for e in entries.values():  # the stamp of the file it aims at, to look like ours
        e["stamp"] = [st_.st_size, st_.st_mtime_ns]
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"key": "3:whatever", "files": entries}))
    try:
        hipify_tree(src, out, options=Options(includes=("*.cu", "*.cuh", "*.h", "*.cpp", "*.hip")), jobs=1)
    except HipifyError:
        pass
    assert snapshot(beside) == before
