"""One doit run at a time per state folder: a second run waits for the first.

The lock is an flock on STATE/doit.lock held for the life of the process, so a
run killed with -9 releases it at once and never leaves a stale lock behind.

Only what changes the build takes it, and only once its command line is known to be
valid: `doit list`, `info`, `help`, `dumpdb` never wait; `run` (plain `doit`) takes it
when its tasks are about to start (ProgressReporter.initialize), after doit has checked
the task names, so a mistyped command fails at once; `clean`, `forget`, `ignore` and
`reset-dep` take it while the dodo file loads."""
from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

_held: list = []  # keeps the file object (and so the lock) alive

# doit's sub-commands (doit 0.37); anything else in that place is a task name of `run`
DOIT_COMMANDS = {"run", "list", "info", "help", "dumpdb", "tabcompletion", "clean", "forget", "ignore", "reset-dep",
                 "strace", "auto"}
LOAD_TIME_COMMANDS = {"clean", "forget", "ignore", "reset-dep", "strace"}
# options of doit's dodo loader, which may come before the command (doit -f dodo.py list)
_LOADER_OPTIONS_WITH_VALUE = {"-f", "--file", "-d", "--dir"}
_LOADER_FLAGS = {"-k", "--seek-file"}


def command(argv: list[str]) -> str:
    """The doit command argv runs, by doit's own rule: the first argument after the loader's
    options, when it names a command; otherwise `run` (`doit`, `doit -n 4 build`)."""
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in _LOADER_OPTIONS_WITH_VALUE:
            i += 2
        elif a in _LOADER_FLAGS or any(a.startswith(o + "=") for o in _LOADER_OPTIONS_WITH_VALUE):
            i += 1
        else:
            break
    first = args[i] if i < len(args) else None
    return first if first in DOIT_COMMANDS else "run"


def locks_at_load(argv: list[str]) -> bool:
    return command(argv) in LOAD_TIME_COMMANDS


def acquire(state_dir: Path) -> None:
    if _held:
        return
    state_dir.mkdir(parents=True, exist_ok=True)
    f = open(state_dir / "doit.lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "another process"
        print(f"tcore: another doit run ({holder}) is using {state_dir}; waiting for it to finish...",
              file=sys.stderr, flush=True)
        fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    f.truncate()
    f.write(f"pid {os.getpid()}")
    f.flush()
    _held.append(f)
