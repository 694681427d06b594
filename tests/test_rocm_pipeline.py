"""The ROCm backend through the real pipeline: `USE_CUDA=0 USE_ROCM=1 doit` on a private
copy of the repository translates csrc's GPU sources (doit hipify, one sub-task per
file), compiles every translation with hipcc through CMake and Ninja (cmake/rocm.cmake)
into libtcore and tcore._C, and imports. Then the incremental promise of doit hipify:
editing one .cu re-translates that file alone and recompiles its HIP object alone, and
editing a header recompiles exactly the HIP objects that include its translation.

No AMD GPU is needed: hipcc compiles for gfx90a on any machine, and the library loads
(libamdhip64 finds no device and tcore.cuda says so)."""
from __future__ import annotations

import glob
import os
import shutil
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


def test_cu_edit_retranslates_one_file_and_recompiles_one_hip_object(ws):
    workspace, _ = ws
    blas = workspace / "csrc/native/cuda/Blas.cu"
    original = blas.read_text()
    hip, build = workspace / "generated" / "hip", workspace / "build"
    before = snapshot(hip)
    log = NinjaLog(build)
    mark = log.mark()
    blas.write_text(original.replace("constexpr int kTile = 16;", "constexpr int kTile = 32;"))
    try:
        r = rocm_doit(workspace)
        assert [t for t in executed_tasks(r.stdout) if t.startswith("hipify")] == ["hipify:native/cuda/Blas.cu"]
        assert not [t for t in executed_tasks(r.stdout) if t.startswith("codegen")]
        after = snapshot(hip)
        assert {f for f in after if after[f] != before.get(f)} == {"native/hip/Blas.hip"}
        assert "constexpr int kTile = 32;" in (hip / "native/hip/Blas.hip").read_text()
        rebuilt = log.outputs_since(mark)
        assert objects(build, rebuilt) == {"rocm/native/hip/Blas.hip.o"}, rebuilt
    finally:
        blas.write_text(original)
        rocm_doit(workspace)


def test_header_edit_recompiles_the_hip_objects_that_include_it(ws):
    workspace, _ = ws
    loops = workspace / "csrc/native/cuda/Loops.cuh"
    original = loops.read_text()
    hip, build = workspace / "generated" / "hip", workspace / "build"
    before = snapshot(hip)
    log = NinjaLog(build)
    mark = log.mark()
    loops.write_text(original + "\n// an edit\n")
    try:
        r = rocm_doit(workspace)
        assert [t for t in executed_tasks(r.stdout) if t.startswith("hipify")] == ["hipify:native/cuda/Loops.cuh"]
        after = snapshot(hip)
        assert {f for f in after if after[f] != before.get(f)} == {"native/hip/Loops.cuh"}
        rebuilt = objects(build, log.outputs_since(mark))
        translated = str((hip / "native/hip/Loops.cuh").resolve())
        expected = objects(build, [o for o, deps in ninja_deps(build).items() if translated in deps])
        assert rebuilt == expected, (rebuilt, expected)
        # the kernels include it, the runtime (HIPContext.cpp) and the CPU objects do not
        assert "rocm/native/hip/Blas.hip.o" in rebuilt and "rocm/hip/HIPContext.cpp.o" not in rebuilt
        assert all(o.startswith("rocm/") for o in rebuilt), rebuilt
    finally:
        loops.write_text(original)
        rocm_doit(workspace)
