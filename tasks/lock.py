"""One doit run at a time per state folder: a second run waits for the first.

The lock is an flock on STATE/doit.lock held for the life of the process, so a
run killed with -9 releases it at once and never leaves a stale lock behind."""
from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

_held: list = []  # keeps the file object (and so the lock) alive

_READ_ONLY_COMMANDS = {"list", "info", "help", "dumpdb", "tabcompletion", "strace", "auto"}


def runs_tasks(argv: list[str]) -> bool:
    command = next((a for a in argv[1:] if not a.startswith("-")), None)
    return command not in _READ_ONLY_COMMANDS


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
