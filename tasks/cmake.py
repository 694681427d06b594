"""doit configure and build: CMake (Ninja) in build/, then ninja.

configure reruns when CMakeLists.txt, the generated source list or the options
change; build reruns when any hand-written or generated source changes, and
ninja then recompiles only the objects whose inputs changed."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from doit.tools import config_changed

from .codegen import generated_files
from .config import Paths, max_jobs, tristate

SOURCE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".hip")


def hand_written_sources(p: Paths) -> list[str]:
    out = []
    for dirpath, _, files in os.walk(p.root / "csrc"):
        out.extend(os.path.join(dirpath, f) for f in files if f.endswith(SOURCE_SUFFIXES))
    return sorted(out)


def cmake_args(p: Paths) -> list[str]:
    args = [
        f"-DPython_EXECUTABLE={sys.executable}",
        f"-DTCORE_GEN_DIR={p.gen_dir}",
        f"-DTCORE_PYTHON_PACKAGE_DIR={p.package_dir}",
        f"-DCMAKE_BUILD_TYPE={os.environ.get('CMAKE_BUILD_TYPE', 'Release')}",
    ]
    args.append(f"-DTCORE_AUTOGRAD={'OFF' if p.disable_autograd else 'ON'}")
    args.append(f"-DTCORE_SELECTIVE={'ON' if p.selected_ops else 'OFF'}")
    for name in ("USE_CUDA", "USE_ROCM"):
        value = tristate(name)
        if value is not None:
            args.append(f"-D{name}={'ON' if value else 'OFF'}")
    return args


def _require_tools() -> str | None:
    if shutil.which("cmake") is None:
        return "tcore: cmake was not found on PATH (pip install -r requirements.txt installs it)"
    if shutil.which("ninja") is None:
        return "tcore: ninja was not found on PATH (pip install -r requirements.txt installs it)"
    cxx = os.environ.get("CXX") or next((c for c in ("c++", "g++", "clang++") if shutil.which(c)), None)
    if cxx is None or shutil.which(cxx.split()[0]) is None:
        return "tcore: no C++ compiler found (install g++ or clang++, or set CXX)"
    return None


def configure(p: Paths) -> bool:
    problem = _require_tools()
    if problem:
        print(problem, file=sys.stderr)
        return False
    cmd = ["cmake", "-S", str(p.root), "-B", str(p.build_dir), "-G", "Ninja", *cmake_args(p)]
    result = subprocess.run(cmd)
    return result.returncode == 0


def build(p: Paths) -> bool:
    problem = _require_tools()
    if problem:
        print(problem, file=sys.stderr)
        return False
    cmd = ["cmake", "--build", str(p.build_dir)]
    jobs = max_jobs()
    if jobs:
        cmd += ["-j", str(jobs)]
    if os.environ.get("TCORE_EXPLAIN", "0") not in ("", "0"):
        cmd += ["--", "-d", "explain"]  # ninja says which input made each object stale
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    if proc.wait() == 0:
        merge_compile_commands(p)
        return True
    for message in formula_errors(p, lines):
        print(message, file=sys.stderr)
    return False


def merge_compile_commands(p: Paths) -> None:
    """compile_commands.json of every build tree, merged at the repository root for editors
    (what PyTorch's tools/merge_compile_commands.py does); rewritten only when it changes."""
    import json

    entries = []
    for tree in sorted({p.build_dir} | set(p.root.glob("build*/"))):
        f = tree / "compile_commands.json"
        if f.exists():
            entries.extend(json.loads(f.read_text()))
    if not entries:
        return
    seen, merged = set(), []
    for e in entries:
        if e["file"] not in seen:
            seen.add(e["file"])
            merged.append(e)
    text = json.dumps(merged, indent=1) + "\n"
    target = p.root / "compile_commands.json"
    if not target.exists() or target.read_text() != text:
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(text)
        os.replace(tmp, target)


_GENERATED_ERROR = re.compile(r"(\S*autograd/Functions_\d+\.cpp):(\d+):\d+: error: (.*)")


def formula_errors(p: Paths, compiler_output: list[str]) -> list[str]:
    """A compile error inside a generated formula, told at its place in derivatives.yaml."""
    from codegen.derivatives import load_derivatives
    from codegen.errors import SourceError

    found = []
    for line in compiler_output:
        m = _GENERATED_ERROR.search(line)
        if m is None or p.derivatives is None:
            continue
        try:
            generated_line = Path(m.group(1)).read_text().splitlines()[int(m.group(2)) - 1]
        except (OSError, IndexError):
            continue
        marker = generated_line.rsplit("// formula: ", 1)
        if len(marker) != 2:
            continue
        op, _, input_name = marker[1].strip().partition(" ")
        for d in load_derivatives(str(p.derivatives)):
            if str(d.schema.name) != op:
                continue
            for f in d.backward:
                if f.inputs == (input_name,):
                    text = Path(p.derivatives).read_text().splitlines()[f.line - 1]
                    from codegen.errors import Location

                    loc = Location(str(p.derivatives), f.line, f.col, text)
                    found.append(str(SourceError(f"the formula for '{input_name}' of {op} does not compile: "
                                                 f"{m.group(3)}", loc)))
        if found:
            break
    return found


def task_configure(p: Paths):
    """CMake configure in build/ with the Ninja generator."""
    sources_cmake = p.gen_dir / "cmake" / "sources.cmake"
    return {
        "actions": [(configure, [p])],
        "file_dep": [str(p.root / "CMakeLists.txt"), str(sources_cmake)],
        "targets": [str(p.build_dir / "build.ninja"), str(p.build_dir / "CMakeCache.txt")],
        "uptodate": [config_changed(" ".join(cmake_args(p)))],
        "task_dep": ["codegen"],
        "verbosity": 2,
        "clean": [(shutil.rmtree, [str(p.build_dir / "CMakeFiles"), True])],
    }


def task_build(p: Paths):
    """Compile and link the core and the Python extension (import tcore works after it)."""
    deps = hand_written_sources(p) + generated_files(p) + [str(p.gen_dir / "tcore" / "version.h")]
    deps += [str(p.root / "CMakeLists.txt"), str(p.build_dir / "build.ninja")]
    return {
        "actions": [(build, [p])],
        "file_dep": deps,
        "targets": [str(p.extension), str(p.library)],
        "task_dep": ["codegen", "version", "configure"],
        "verbosity": 2,
        "clean": True,
    }


def task_test(p: Paths):
    """Run the test suites (pytest) against the fresh build."""
    return {
        "actions": [[sys.executable, "-m", "pytest", "-q", "-ra", str(p.root / "tests")]],
        "task_dep": ["build"],
        "uptodate": [False],
        "verbosity": 2,
    }
