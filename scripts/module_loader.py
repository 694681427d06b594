"""Import a Python file by its path, without touching sys.path (like PyTorch's
tools/shared/module_loader.py). The scripts use it to reach each other and the
project's packages, so each runs from any working folder without PYTHONPATH."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


class ModuleLoadError(ImportError):
    pass


def import_module(name: str, path: str | Path) -> ModuleType:
    """Loads the file at `path` as module `name` (cached in sys.modules under that name)."""
    path = Path(path)
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    if not path.is_file():
        raise ModuleLoadError(f"cannot load module {name!r}: no such file {path}")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ModuleLoadError(f"cannot load module {name!r} from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        del sys.modules[name]
        raise ModuleLoadError(f"cannot load module {name!r}: {path}:{e.lineno}:{e.offset}: {e.msg}") from None
    except BaseException:
        del sys.modules[name]
        raise
    return module


def import_package(name: str) -> ModuleType:
    """One of the repository's packages (codegen, tasks, tcore) from its folder."""
    return import_module(name, REPO / name / "__init__.py")
