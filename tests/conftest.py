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
