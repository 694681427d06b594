import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "scripts"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def pytest_configure(config):
    config.addinivalue_line("markers", "pipeline: runs the real doit pipeline in a temporary copy (slow)")
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU (skipped without one)")


@pytest.fixture(scope="session")
def tcore():
    try:
        import tcore as module
    except ImportError as e:
        pytest.fail(f"tcore is not built ({e}); run `doit` first (or `doit test`)")
    return module


@pytest.fixture(scope="session")
def pytorch_dir():
    """PyTorch's operator YAML from the torch wheel on local disk (scripts/pytorch_yaml.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pytorch_yaml", ROOT / "scripts/pytorch_yaml.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = mod.pytorch_yaml_dir()
    if d is None:
        pytest.skip("PyTorch's YAML is not available (no torch wheel)")
    return d


@pytest.fixture(scope="session")
def emulated_cpu():
    """run(cpu, code, env=None): `python -c code` on an emulated x86-64 CPU (qemu-user's
    `-cpu` models: Nehalem has no AVX, Haswell has AVX2, neither has AVX-512), so tests can
    check that code compiled for one capability never runs on a CPU without it."""
    import os
    import shutil
    import subprocess

    qemu = shutil.which("qemu-x86_64")
    if qemu is None:
        pytest.skip("qemu-x86_64 is not installed (apt-get install qemu-user)")
    python = os.path.realpath(sys.executable)  # qemu needs the ELF file, not a shim script

    def run(cpu: str, code: str, env: dict | None = None, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "TCORE_CPU_CAPABILITY"))}
        full.update(env or {})  # (OPENBLAS_CORETYPE would make numpy's OpenBLAS use AVX2 kernels)
        return subprocess.run([qemu, "-cpu", cpu, python, "-c", code], capture_output=True, text=True,
                              env=full, cwd=cwd, timeout=timeout)

    return run
