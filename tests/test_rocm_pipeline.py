"""The ROCm backend through the real pipeline: `USE_CUDA=0 USE_ROCM=1 doit` on a private
copy of the repository translates csrc's GPU sources (doit hipify, one sub-task per
file), compiles every translation with hipcc through CMake and Ninja (cmake/rocm.cmake)
into libtcore and tcore._C, and imports. Then the incremental promise of doit hipify:
editing one .cu re-translates that file alone and recompiles its HIP object alone, and
editing a header recompiles exactly the HIP objects that include its translation.

No AMD GPU is needed: hipcc compiles for gfx90a on any machine, and the library loads
(libamdhip64 finds no device and tcore.cuda says so)."""
from __future__ import annotations

import contextlib
import glob
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from workspace import NinjaLog, copy_repository, doit, env_for, executed_tasks, ninja_deps, run_python, snapshot

pytestmark = pytest.mark.pipeline

if shutil.which("cmake") is None or shutil.which("ninja") is None:
    pytest.skip("cmake and ninja are needed (pip install -r requirements.txt)", allow_module_level=True)
AMDHIP64 = glob.glob("/usr/lib/*/libamdhip64.so*") + glob.glob("/opt/rocm*/lib/libamdhip64.so*")
if shutil.which("hipcc") is None or not AMDHIP64:
    pytest.skip("hipcc and libamdhip64 are needed (apt-get install hipcc libamdhip64-dev)", allow_module_level=True)

ROCM = {"USE_CUDA": "0", "USE_ROCM": "1"}


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> tuple[Path, str]:
    workspace = copy_repository(tmp_path_factory.mktemp("tcore-rocm"))
    r = doit(workspace, env=env_for(workspace, **ROCM))
    return workspace, r.stdout


def rocm_doit(workspace: Path):
    return doit(workspace, env=env_for(workspace, **ROCM))


def objects(build: Path, outputs) -> set[str]:
    """The .o files among ninja outputs, relative to the build folder (a custom command
    names its output twice, relative and absolute)."""
    return {os.path.relpath(o, build) if os.path.isabs(o) else o for o in outputs if o.endswith(".o")}


def test_every_translation_is_compiled_and_tcore_imports(ws):
    workspace, out = ws
    assert "tcore: backends built: CPU, ROCm (hipcc" in out, out
    hip = workspace / "generated" / "hip"
    compiled = {p.relative_to(hip).as_posix() for p in hip.rglob("*") if p.suffix in (".hip", ".cpp")}
    assert "native/hip/Blas.hip" in compiled and "hip/HIPContext.cpp" in compiled
    rocm = workspace / "build" / "rocm"
    assert {p.relative_to(rocm).as_posix() for p in rocm.rglob("*.o")} == {f"{c}.o" for c in compiled}
    # no nvcc object: one GPU backend per build
    assert not list((workspace / "build").rglob("*.cu.o"))
    lines = run_python(workspace, "\n".join([
        "import tcore",
        "print(tcore.cuda.is_built()); print(tcore.cuda.runtime()); print(tcore.cuda.is_available())",
        "print(tcore.cuda.unavailable_reason() or '-')",
        "print((tcore.arange(4.0) * 2).sum().item())",
        "try:",
        "    tcore.ones(2, device='cuda')",
        "except RuntimeError as e:",
        "    print('error:', e)",
        "else:",
        "    print('error: none')",
    ])).splitlines()
    assert lines[0] == "True" and lines[1].startswith("HIP ") and lines[4] == "12.0", lines
    if lines[2] == "False":  # no AMD GPU here: the reason comes from the HIP runtime, and a device tensor says so
        assert lines[3] != "-" and lines[5].startswith("error:") and lines[5] != "error: none", lines


@dataclass(frozen=True)
class EditResult:
    hipify_tasks: list[str]  # the doit hipify sub-tasks that ran
    other_tasks: list[str]
    rewritten: set[str]  # files under generated/hip whose bytes changed
    recompiled: set[str]  # objects ninja rebuilt, relative to build/


@contextlib.contextmanager
def edited(workspace: Path, rel: str, change: Callable[[str], str]) -> Iterator[EditResult]:
    """Edits a source of the workspace, runs the ROCm doit, yields what it did, and restores
    the source (and the build) afterwards even when an assertion failed."""
    path, hip, build = workspace / rel, workspace / "generated" / "hip", workspace / "build"
    original = path.read_text()
    before, log = snapshot(hip), NinjaLog(build)
    mark = log.mark()
    path.write_text(change(original))
    try:
        ran = executed_tasks(rocm_doit(workspace).stdout)
        after = snapshot(hip)
        yield EditResult([t for t in ran if t.startswith("hipify")], [t for t in ran if not t.startswith("hipify")],
                         {f for f in after if after[f] != before.get(f)}, objects(build, log.outputs_since(mark)))
    finally:
        path.write_text(original)
        rocm_doit(workspace)


def test_cu_edit_retranslates_one_file_and_recompiles_one_hip_object(ws):
    workspace, _ = ws
    with edited(workspace, "csrc/native/cuda/Blas.cu",
                lambda text: text.replace("constexpr int kTile = 16;", "constexpr int kTile = 32;")) as r:
        assert r.hipify_tasks == ["hipify:native/cuda/Blas.cu"]
        assert not [t for t in r.other_tasks if t.startswith("codegen")]
        assert r.rewritten == {"native/hip/Blas.hip"}
        assert "constexpr int kTile = 32;" in (workspace / "generated/hip/native/hip/Blas.hip").read_text()
        assert r.recompiled == {"rocm/native/hip/Blas.hip.o"}


def test_header_edit_recompiles_the_hip_objects_that_include_it(ws):
    workspace, _ = ws
    build = workspace / "build"
    with edited(workspace, "csrc/native/cuda/Loops.cuh", lambda text: text + "\n// an edit\n") as r:
        assert r.hipify_tasks == ["hipify:native/cuda/Loops.cuh"]
        assert r.rewritten == {"native/hip/Loops.cuh"}
        translated = str((workspace / "generated/hip/native/hip/Loops.cuh").resolve())
        expected = objects(build, [o for o, deps in ninja_deps(build).items() if translated in deps])
        assert r.recompiled == expected
        # the kernels include it, the runtime (HIPContext.cpp) and the CPU objects do not
        assert "rocm/native/hip/Blas.hip.o" in expected and "rocm/hip/HIPContext.cpp.o" not in expected
        assert all(o.startswith("rocm/") for o in expected), expected
