"""doit configuration of tcore: `doit` builds everything, `doit list` shows the tasks.

The task functions live in tasks/, one module per pipeline stage."""
import sys

from tasks import cmake, codegen, hipify, lock, version
from tasks.reporter import ProgressReporter
from tasks.config import paths

_PATHS = paths()

DOIT_CONFIG = {
    "default_tasks": ["build"],
    "dep_file": str(_PATHS.state_dir / ".doit.db"),
    "backend": "sqlite3",
    "check_file_uptodate": "timestamp",
    "verbosity": 1,
    "reporter": ProgressReporter,
}

if lock.runs_tasks(sys.argv):
    lock.acquire(_PATHS.state_dir)


def task_codegen():
    yield from codegen.task_codegen(_PATHS)


def task_version():
    return version.task_version(_PATHS)


def task_hipify():
    yield from hipify.task_hipify(_PATHS)


def task_configure():
    return cmake.task_configure(_PATHS)


def task_build():
    return cmake.task_build(_PATHS)


def task_test():
    return cmake.task_test(_PATHS)
