#!/usr/bin/env python3
"""Build the tcore C++ library without Python (like PyTorch's tools/build_libtorch.py).

Configures and builds in ./build under the current directory, then installs headers,
libtcore and a CMake package under ./tcore/{include,lib,share/cmake/tcore}, so that a
downstream project does find_package(tcore) with CMAKE_PREFIX_PATH=$PWD/tcore.

  --rerun-cmake   drop the CMake cache and configure again
  --cmake-only    configure and stop

Environment: CMAKE_BUILD_TYPE, else DEBUG=1 (Debug) / REL_WITH_DEB_INFO=1 (RelWithDebInfo),
else Release; CMAKE_GENERATOR, else Ninja when present; MAX_JOBS (always honoured; by
default the job count is the smaller of the cores and free memory / 1.5 GiB).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GIB = 1 << 30
MEMORY_PER_JOB = 1.5 * GIB


class BuildError(Exception):
    pass


def build_type(env: dict) -> str:
    if env.get("CMAKE_BUILD_TYPE"):
        return env["CMAKE_BUILD_TYPE"]
    if env.get("DEBUG", "0") not in ("", "0"):
        return "Debug"
    if env.get("REL_WITH_DEB_INFO", "0") not in ("", "0"):
        return "RelWithDebInfo"
    return "Release"


def available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def job_count(env: dict) -> int:
    sys.path.insert(0, str(REPO))
    from tasks.config import SettingError, parse_max_jobs  # the one rule for MAX_JOBS

    try:
        explicit = parse_max_jobs(env.get("MAX_JOBS"))
    except SettingError as e:
        raise BuildError(str(e)) from None
    if explicit is not None:
        return explicit
    jobs = os.cpu_count() or 1
    memory = available_memory()
    if memory is not None:
        jobs = min(jobs, max(1, int(memory // MEMORY_PER_JOB)))
    return jobs


def generators(cmake: str) -> set[str]:
    out = subprocess.run([cmake, "-E", "capabilities"], capture_output=True, text=True, check=True).stdout
    return {g["name"] for g in json.loads(out)["generators"]}


def generator(env: dict, cmake: str) -> str | None:
    wanted = env.get("CMAKE_GENERATOR")
    if wanted:
        known = generators(cmake)
        if wanted not in known:
            raise BuildError(f"CMAKE_GENERATOR={wanted!r} is not a generator this cmake knows "
                             f"(one of: {', '.join(sorted(known))})")
        return wanted
    return "Ninja" if shutil.which("ninja") else None


def check_writable(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".tcore-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise BuildError(f"cannot write to the build folder {folder}: {e.strerror or e}") from None


def generate(build_dir: Path) -> Path:
    """The generated sources the C++ library needs (tasks/generate.py: codegen, version header,
    and the HIP translation of the GPU sources that a ROCm build compiles)."""
    sys.path.insert(0, str(REPO))
    from tasks.generate import GenerateError, generate as generate_sources

    gen = build_dir / "generated"
    try:
        generate_sources(gen, subset="libtorch", hip=True, cache_dir=build_dir / "codegen-cache")
    except GenerateError as e:
        raise BuildError(str(e)) from None
    return gen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rerun-cmake", action="store_true", help="drop the CMake cache and configure again")
    parser.add_argument("--cmake-only", action="store_true", help="configure and stop")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    cwd = Path.cwd()
    build_dir, prefix = cwd / "build", cwd / "tcore"
    try:
        cmake = shutil.which("cmake")
        if cmake is None:
            raise BuildError("cmake was not found on PATH (pip install cmake, or your system's package)")
        jobs = job_count(env)
        gen_name = generator(env, cmake)
        kind = build_type(env)
        check_writable(build_dir)
        if args.rerun_cmake:
            (build_dir / "CMakeCache.txt").unlink(missing_ok=True)
            shutil.rmtree(build_dir / "CMakeFiles", ignore_errors=True)
        gen = generate(build_dir)
        configure = [cmake, "-S", str(REPO), "-B", str(build_dir), f"-DCMAKE_BUILD_TYPE={kind}", "-DBUILD_PYTHON=OFF",
                     f"-DTCORE_GEN_DIR={gen}", f"-DCMAKE_INSTALL_PREFIX={prefix}"]
        if gen_name and not (build_dir / "CMakeCache.txt").exists():
            configure += ["-G", gen_name]
        print(f"build_libtcore: {kind} build in {build_dir} ({gen_name or 'default generator'}, {jobs} jobs)")
        if subprocess.run(configure).returncode != 0:
            raise BuildError("CMake configure failed (see above)")
        if args.cmake_only:
            return 0
        sys.path.insert(0, str(REPO))
        from tasks.cmake import run_build  # the shared cache and distcc settings (tasks/remote.py)

        root = Path(os.path.commonpath([REPO, build_dir]))  # ccache's base_dir: sources and generated files
        explicit_jobs = jobs if env.get("MAX_JOBS") or not env.get("TCORE_DISTCC_HOSTS") else None
        if not run_build(root, build_dir, explicit_jobs)[0]:
            raise BuildError("the build failed (see above)")
        if subprocess.run([cmake, "--install", str(build_dir)], capture_output=True).returncode != 0:
            raise BuildError("cmake --install failed")
        print(f"build_libtcore: installed under {prefix} (CMAKE_PREFIX_PATH={prefix})")
        return 0
    except BuildError as e:
        print(f"build_libtcore: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
