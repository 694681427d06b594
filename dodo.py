"""doit configuration of tcore: `doit` builds everything, `doit list` shows the tasks.

The task functions live in tasks/, one module per pipeline stage. Loading this file
does no build work and takes no lock, so `doit list`, `info` and `help` answer at once,
on a fresh clone too, while a build runs (tasks/lock.py says who waits for whom)."""
import sys

from tasks import cmake, codegen, hipify, lock, version
from tasks.config import SettingError, check_settings, paths
from tasks.reporter import ProgressReporter

try:
    check_settings()  # MAX_JOBS, USE_CUDA, ...: a bad value is one line, before anything runs
except SettingError as e:
    print(f"tcore: error: {e}", file=sys.stderr)
    sys.exit(2)
_PATHS = paths()
_PATHS.state_dir.mkdir(parents=True, exist_ok=True)  # doit opens its database there, even for `doit list`

DOIT_CONFIG = {
    "default_tasks": ["build"],
    "dep_file": str(_PATHS.state_dir / ".doit.db"),
    "backend": "sqlite3",
    "check_file_uptodate": "timestamp",
    "verbosity": 1,
    "reporter": ProgressReporter,
}

if lock.locks_at_load(sys.argv):
    lock.acquire(_PATHS.state_dir)


def task_codegen():
    """Generate C++ headers, dispatcher, autograd and Python bindings from the operator YAML."""
    yield from codegen.task_codegen(_PATHS)


def task_version():
    """Write generated/tcore/version.h from version.txt and the git revision."""
    return version.task_version(_PATHS)


def task_hipify():
    """Translate the CUDA sources of csrc/ to HIP under generated/hip/ (for a ROCm build)."""
    yield from hipify.task_hipify(_PATHS)


def task_configure():
    """Configure the C++ build with CMake and Ninja in build/."""
    return cmake.task_configure(_PATHS)


def task_build():
    """Compile and link libtcore and the Python extension: `import tcore` works after it."""
    return cmake.task_build(_PATHS)


def task_test():
    """Run every test suite with pytest after the build (README: a fast subset with pytest -m)."""
    return cmake.task_test(_PATHS)
