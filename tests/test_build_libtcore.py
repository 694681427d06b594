"""scripts/build_libtcore.py: each option and environment variable (--cmake-only where
a build is not needed), bad input, and a full build + install used by a downstream
find_package(tcore) program (tests/cpp_consumer)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "build_libtcore.py"

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is needed")


def run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("CMAKE_BUILD_TYPE", "DEBUG", "REL_WITH_DEB_INFO", "CMAKE_GENERATOR", "MAX_JOBS")}
    # the script's options are what these tests check: a CPU build keeps each configure
    # short (no CUDA compiler identification) and the full build served by the cache
    full_env["USE_CUDA"] = full_env["USE_ROCM"] = "0"
    full_env["TCORE_CPU_CAPABILITIES"] = "default"  # the kernels once (tests/test_cpu_capability.py checks all)
    full_env.update(env)
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, env=full_env, capture_output=True, text=True)


def cache(cwd: Path) -> str:
    return (cwd / "build" / "CMakeCache.txt").read_text()


@pytest.mark.parametrize("env,expected", [
    ({}, "Release"),
    ({"DEBUG": "1"}, "Debug"),
    ({"REL_WITH_DEB_INFO": "1"}, "RelWithDebInfo"),
    ({"CMAKE_BUILD_TYPE": "MinSizeRel", "DEBUG": "1"}, "MinSizeRel"),
])
def test_build_type(tmp_path, env, expected):
    r = run(tmp_path, "--cmake-only", **env)
    assert r.returncode == 0, r.stderr
    assert f"CMAKE_BUILD_TYPE:STRING={expected}" in cache(tmp_path)
    assert "BUILD_PYTHON:BOOL=OFF" in cache(tmp_path)
    assert not (tmp_path / "build" / "libtcore.so").exists()  # --cmake-only builds nothing


def test_generator_and_rerun(tmp_path):
    r = run(tmp_path, "--cmake-only", CMAKE_GENERATOR="Unix Makefiles")
    assert r.returncode == 0, r.stderr
    assert "CMAKE_GENERATOR:INTERNAL=Unix Makefiles" in cache(tmp_path)
    r = run(tmp_path, "--cmake-only", "--rerun-cmake")  # drops the cache: Ninja (the default) again
    assert r.returncode == 0, r.stderr
    assert "CMAKE_GENERATOR:INTERNAL=Ninja" in cache(tmp_path)


def test_max_jobs_reported(tmp_path):
    r = run(tmp_path, "--cmake-only", MAX_JOBS="3")
    assert r.returncode == 0 and "3 jobs" in r.stdout


@pytest.mark.parametrize("env,message", [
    ({"MAX_JOBS": "abc"}, "MAX_JOBS='abc' is not a positive whole number"),
    ({"CMAKE_GENERATOR": "No Such Generator"}, "is not a generator this cmake knows"),
    ({"PATH": "/nonexistent"}, "cmake was not found"),
])
def test_bad_input(tmp_path, env, message):
    r = run(tmp_path, "--cmake-only", **env)
    assert r.returncode == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "build" / "CMakeCache.txt").exists()


def test_unwritable_build_folder(tmp_path):
    (tmp_path / "build").write_text("a file where the build folder should be")
    r = run(tmp_path, "--cmake-only")
    assert r.returncode == 1 and "cannot write to the build folder" in r.stderr
    assert (tmp_path / "build").read_text().startswith("a file")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """One full build + install of the C++ library, shared by the downstream tests."""
    cwd = tmp_path_factory.mktemp("libtcore")
    r = run(cwd)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return cwd / "tcore"


@pytest.mark.pipeline
def test_install_and_downstream_find_package(installed, tmp_path):
    prefix = installed
    assert (prefix / "lib" / "libtcore.so").exists()
    assert (prefix / "include" / "tcore" / "ops" / "add.h").exists()
    assert (prefix / "include" / "tcore" / "core" / "Tensor.h").exists()
    assert (prefix / "share" / "cmake" / "tcore" / "tcoreConfig.cmake").exists()
    consumer = tmp_path / "consumer-build"
    subprocess.run(["cmake", "-S", str(ROOT / "tests" / "cpp_consumer"), "-B", str(consumer),
                    f"-DCMAKE_PREFIX_PATH={prefix}"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(consumer)], check=True, capture_output=True)
    out = subprocess.run([str(consumer / "consumer")], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines[1] == "mm 36 [2, 2]"
    assert lines[2] == "grad 4 4 4"
    assert lines[3] == "operators 2.8333 0.6667 0 1"
    assert lines[4].startswith("error mat1 and mat2 shapes cannot be multiplied")


@pytest.mark.pipeline
def test_mnist_example_trains_through_ctest(installed, tmp_path):
    """examples/mnist against the installed tree: its CTest test generates a small
    learnable IDX dataset and asserts the loss falls and accuracy reaches 90%."""
    build = tmp_path / "mnist-build"
    subprocess.run(["cmake", "-S", str(ROOT / "examples" / "mnist"), "-B", str(build),
                    f"-DCMAKE_PREFIX_PATH={installed}"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    r = subprocess.run(["ctest", "--test-dir", str(build), "--output-on-failure"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:]
    assert "100% tests passed" in r.stdout
    out = subprocess.run([str(build / "train_mnist"), str(build / "mnist-small"), "--epochs", "2", "--hidden", "32",
                          "--lr", "0.05", "--batch", "32"], capture_output=True, text=True, check=True).stdout
    losses = [float(line.split("loss ")[1].split(",")[0]) for line in out.splitlines() if line.startswith("epoch")]
    assert len(losses) == 2 and losses[1] < losses[0]
