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
import time
from pathlib import Path

from doit.tools import config_changed

from . import progress
from .codegen import generated_files
from .hipify import translated_files
from .config import LIVE_OUTPUT, Paths, cpu_capabilities, max_jobs, tristate

SOURCE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".hip")


def hand_written_sources(p: Paths) -> list[str]:
    out = []
    for dirpath, _, files in os.walk(p.root / "csrc"):
        out.extend(os.path.join(dirpath, f) for f in files if f.endswith(SOURCE_SUFFIXES))
    return sorted(out)


def edited_since(paths: list[str], since: float) -> list[str]:
    """The paths modified at or after `since` (a time.time()); a vanished one counts as edited."""
    out = []
    for path in paths:
        try:
            if os.stat(path).st_mtime >= since:
                out.append(path)
        except FileNotFoundError:
            out.append(path)
    return out


def cmake_args(p: Paths) -> list[str]:
    args = [
        f"-DPython_EXECUTABLE={sys.executable}",
        f"-DTCORE_GEN_DIR={p.gen_dir}",
        f"-DTCORE_PYTHON_PACKAGE_DIR={p.package_dir}",
        f"-DCMAKE_BUILD_TYPE={os.environ.get('CMAKE_BUILD_TYPE', 'Release')}",
        # compilers always colour; ninja strips the colours unless the build runs on a terminal
        "-DCMAKE_COLOR_DIAGNOSTICS=ON",
    ]
    args.append(f"-DTCORE_AUTOGRAD={'OFF' if p.disable_autograd else 'ON'}")
    args.append(f"-DTCORE_SELECTIVE={'ON' if p.selected_ops else 'OFF'}")
    if os.environ.get("TCORE_DISTCC_HOSTS", "").strip():
        args.append("-DTCORE_DISTCC=ON")
    # the CPU capabilities the kernels are compiled for (cmake/cpu_capabilities.txt; empty: all)
    args.append(f"-DTCORE_CPU_CAPABILITIES={cpu_capabilities()}")
    # -march=native only when asked for (a build tree configured before it was opt-in forgets it)
    args.append(f"-DTCORE_NATIVE_ARCH={'ON' if tristate('TCORE_NATIVE_ARCH') else 'OFF'}")
    for name in ("USE_CUDA", "USE_ROCM"):  # unset: CMake's default (when the compiler is found)
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
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    for line in proc.stdout:
        # under a live display, CMake's progress chatter ("-- Detecting CXX compiler ABI info") is a label;
        # tcore's own lines, warnings and errors are printed
        if progress.active() and line.startswith("-- ") and not line.startswith("-- tcore:"):
            progress.note(line.strip())
        else:
            sys.stdout.write(line)
    return proc.wait() == 0


def cmake_cache_value(build_dir: Path, name: str) -> str | None:
    try:
        text = (build_dir / "CMakeCache.txt").read_text()
    except OSError:
        return None
    m = re.search(rf"^{name}:[A-Z]+=(.*)$", text, re.M)
    return m.group(1) if m else None


def remote_environment(root: Path, build_dir: Path, jobs: int | None):
    """The shared cache / distcc environment of this build (tasks/remote.py), or None after
    printing the error of a malformed setting."""
    from codegen.errors import SourceError

    from . import remote

    try:
        settings = remote.settings_from_env()
    except SourceError as e:
        print(f"tcore: {e}", file=sys.stderr)
        return None
    return remote.build_environment(settings, str(root), cmake_cache_value(build_dir, "TCORE_LAUNCHER") or None,
                                    os.cpu_count(), jobs)


NINJA_STATUS = "[tcore-ninja %f/%t] "  # a status line the live display turns into a progress row
_NINJA_STEP = re.compile(r"\[tcore-ninja (\d+)/(\d+)\] (.*)")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _step_label(description: str) -> str:
    """'Building CXX object CMakeFiles/tcore.dir/csrc/native/cpu/UnaryOps.cpp.o' -> 'UnaryOps.cpp',
    'Linking CXX shared library /x/tcore/lib/libtcore.so' -> 'libtcore.so'"""
    name = os.path.basename(description.rsplit(" ", 1)[-1])
    return name[:-2] if name.endswith(".o") else name


def run_build(root: Path, build_dir: Path, jobs: int | None, extra: list[str] = ()) -> tuple[bool, list[str]]:
    """cmake --build with the remote settings; streams the output; reports cache use and distcc
    fallbacks. Returns (success, output lines)."""
    from . import remote

    renv = remote_environment(root, build_dir, jobs)
    if renv is None:
        return False, []
    for note in renv.notes:
        print(note, file=sys.stderr if "warning" in note else sys.stdout)
    env = {**os.environ, **renv.env}
    if progress.active():
        env["NINJA_STATUS"] = NINJA_STATUS
    if progress.terminal():
        env["CLICOLOR_FORCE"] = "1"  # ninja keeps the compilers' colours
    cmd = ["cmake", "--build", str(build_dir)]
    if renv.jobs:
        cmd += ["-j", str(renv.jobs)]
    cmd += list(extra)
    before = remote.ccache_counters(env)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                            env=env)
    lines = []
    for line in proc.stdout:
        step = _NINJA_STEP.match(line)
        if step:
            progress.steps("compile", int(step.group(1)), int(step.group(2)), _step_label(step.group(3)))
        else:
            sys.stdout.write(line)
            lines.append(ANSI_ESCAPE.sub("", line))
    ok = proc.wait() == 0
    after = remote.ccache_counters(env) if before is not None else None
    if after is not None:
        use = remote.cache_use(before, after)
        if use.hits + use.misses:
            print(use)
    fallbacks = remote.distcc_fallbacks(lines)
    if fallbacks:
        print(f"tcore: warning: {fallbacks} compile job(s) could not be distributed and ran locally",
              file=sys.stderr)
    return ok, lines


def build(p: Paths) -> bool:
    problem = _require_tools()
    if problem:
        print(problem, file=sys.stderr)
        return False
    explain = ["--", "-d", "explain"] if os.environ.get("TCORE_EXPLAIN", "0") not in ("", "0") else []
    for _ in range(3):
        started = time.time()
        ok, lines = run_build(p.root, p.build_dir, max_jobs(), explain)  # explain: ninja says which input was stale
        # doit records the sources' checksums after this action: one edited while ninja ran would count
        # as built (and stay stale until edited again), so ninja runs again over it
        edited = edited_since(hand_written_sources(p), started) if ok else []
        if not edited:
            break
        print(f"tcore: {os.path.relpath(edited[0], p.root)}"
              f"{f' and {len(edited) - 1} more' if len(edited) > 1 else ''} changed during the build: building again",
              file=sys.stderr)
    if ok:
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
        source = Path(m.group(1))
        if not source.is_absolute():  # ccache's base_dir makes the compiler name it from the build folder
            source = p.build_dir / source
        try:
            generated_line = source.read_text().splitlines()[int(m.group(2)) - 1]
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


def cmake_modules(p: Paths) -> list[str]:
    return sorted(str(f) for f in (p.root / "cmake").glob("*.cmake"))


def task_configure(p: Paths):
    """CMake configure in build/ with the Ninja generator."""
    sources_cmake = p.gen_dir / "cmake" / "sources.cmake"
    return {
        "actions": [(configure, [p])],
        "file_dep": [str(p.root / "CMakeLists.txt"), *cmake_modules(p), str(sources_cmake)],
        "targets": [str(p.build_dir / "build.ninja"), str(p.build_dir / "CMakeCache.txt")],
        "uptodate": [config_changed(" ".join(cmake_args(p)))],
        "task_dep": ["codegen", "hipify"],  # a ROCm build compiles the translations
        **LIVE_OUTPUT,
        "clean": [(shutil.rmtree, [str(p.build_dir / "CMakeFiles"), True])],
    }


def task_build(p: Paths):
    """Compile and link the core and the Python extension (import tcore works after it)."""
    deps = hand_written_sources(p) + generated_files(p) + translated_files(p) + [str(p.gen_dir / "tcore" / "version.h")]
    deps += [str(p.root / "CMakeLists.txt"), *cmake_modules(p), str(p.build_dir / "build.ninja")]
    return {
        "actions": [(build, [p])],
        "file_dep": deps,
        "targets": [str(p.extension), str(p.library)],
        "task_dep": ["codegen", "hipify", "version", "configure"],
        # a new cache or host list reruns the action (it checks and reports them; ninja rebuilds nothing)
        "uptodate": [config_changed(" ".join(os.environ.get(v, "") for v in ("TCORE_REMOTE_CACHE",
                                                                               "TCORE_DISTCC_HOSTS")))],
        **LIVE_OUTPUT,
        "clean": True,
    }


def task_test(p: Paths):
    """Run the test suites (pytest) against the fresh build."""
    return {
        "actions": [[sys.executable, "-m", "pytest", "-q", "-ra", "--durations=25", str(p.root / "tests")]],
        "task_dep": ["build"],
        "uptodate": [False],
        **LIVE_OUTPUT,
    }
