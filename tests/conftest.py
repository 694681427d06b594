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
