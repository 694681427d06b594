"""doit's output for tcore.

* Up-to-date tasks print nothing; the run ends with one summary line that counts the tasks
  the command selected (with their dependencies): a no-op `doit` prints only
  "tcore: up to date, 0 of 190 tasks ran, 0.4 s".
* On a terminal (not CI, not TERM=dumb) a live display (rich) shows the tasks done of those
  selected and the steps inside long tasks (files rewritten, ninja's compile steps, through
  tasks/progress.py); a group of sub-tasks (codegen, hipify) ends in one line. It steps
  aside while a task writes to the terminal itself (pytest).
* Elsewhere (a pipe, a log, CI) every task that runs prints ".  name  [done/total]" and
  its own output as plain lines, so logs stay greppable.

initialize() also takes the build lock (tasks/lock.py), once doit has accepted the command."""
from __future__ import annotations

import os
import sys
import time
from collections import Counter

from doit.action import CmdAction
from doit.reporter import ConsoleReporter

from . import lock, progress


def process_elapsed() -> float | None:
    """Seconds since this process started (Linux), so the summary counts doit's start-up too."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def seconds(t: float) -> str:
    return f"{t:.1f} s" if t < 60 else f"{int(t // 60)} min {int(t % 60)} s"


def tasks_ran(ran: int, total: int) -> str:
    return f"{ran} of {total} task{'' if total == 1 else 's'} ran"


def counted(task) -> bool:
    return bool(task.actions) and not task.name.startswith("_")


def selected_closure(tasks: dict, selected: list[str]) -> set[str]:
    """The tasks the command selected and every task they depend on (task_dep, setup,
    calc_dep, and the implicit dependencies doit added from file_dep/targets)."""
    seen: set[str] = set()
    todo = list(selected)
    while todo:
        name = todo.pop()
        if name in seen or name not in tasks:
            continue
        seen.add(name)
        t = tasks[name]
        todo.extend(t.task_dep)
        todo.extend(t.setup_tasks)
        todo.extend(t.calc_dep)
    return {n for n in seen if counted(tasks[n])}


def process_parallel(argv: list[str]) -> bool:
    """`doit -n N` with the process runner (the default -P): task output comes from child
    processes straight to the terminal, which a live display would garble."""
    n, par = 0, "process"
    for i, a in enumerate(argv):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if a in ("-n", "--process"):
            n = int(value) if value.isdigit() else n
        elif a.startswith("--process="):
            n = int(a.split("=", 1)[1]) if a.split("=", 1)[1].isdigit() else n
        elif a.startswith("-n") and a[2:].isdigit():
            n = int(a[2:])
        elif a in ("-P", "--parallel-type"):
            par = value
        elif a.startswith("--parallel-type="):
            par = a.split("=", 1)[1]
    return n > 0 and par != "thread"


def live_wanted(outstream) -> bool:
    mode = os.environ.get("TCORE_PROGRESS", "auto")
    if mode in ("plain", "live"):
        return mode == "live"
    return progress.terminal(outstream) and not process_parallel(sys.argv)


class PlainView:
    def __init__(self, write):
        self.write = write

    def start(self, total: int) -> None:
        pass

    def started(self, task, done: int, total: int, raw: bool) -> None:
        self.write(f".  {task.title()}  [{done}/{total}]\n")

    def finished(self, task, ok: bool, elapsed: float) -> None:
        pass

    def group_done(self, group: str, ran: int, total: int, elapsed: float) -> None:
        pass

    def line(self, text: str) -> None:
        self.write(text + "\n")

    def stop(self) -> None:
        pass


class ProgressReporter(ConsoleReporter):
    desc = "tcore: one summary line; a live progress display on a terminal, plain lines elsewhere"

    def __init__(self, outstream, options):
        super().__init__(outstream, options)
        self.selected: set[str] = set()
        self.groups: Counter = Counter()
        self.group_seen: Counter = Counter()
        self.group_ran: Counter = Counter()
        self.group_start: dict[str, float] = {}
        self.started_at: dict[str, float] = {}
        self.done = 0
        self.ran = 0
        self.clock = time.monotonic()
        self.view = PlainView(self.write)

    def initialize(self, tasks, selected_tasks):
        from .config import paths

        lock.acquire(paths().state_dir)
        self.clock = time.monotonic()
        self.selected = selected_closure(tasks, selected_tasks)
        self.groups = Counter(n.split(":", 1)[0] for n in self.selected if ":" in n)
        if live_wanted(self.outstream):
            from .live import LiveView  # rich costs 40 ms to import: only for a terminal

            self.view = LiveView(self.outstream)
            progress.attach(self.view)
        self.view.start(len(self.selected))

    @property
    def total(self) -> int:
        return len(self.selected)

    def _seen(self, task, ran: bool) -> None:
        if ":" not in task.name or task.name not in self.selected:
            return
        group = task.name.split(":", 1)[0]
        self.group_start.setdefault(group, time.monotonic())
        self.group_seen[group] += 1
        self.group_ran[group] += ran
        if self.group_seen[group] == self.groups[group] and self.group_ran[group]:
            self.view.group_done(group, self.group_ran[group], self.groups[group],
                                 time.monotonic() - self.group_start[group])

    def execute_task(self, task):
        if not counted(task):
            return
        self.done += 1
        self.ran += 1
        self.started_at[task.name] = time.monotonic()
        raw = any(isinstance(a, CmdAction) for a in task.actions)  # writes to the terminal itself
        self.view.started(task, self.done, self.total, raw)

    def _finished(self, task, ok: bool) -> None:
        if task.name in self.started_at:
            self.view.finished(task, ok, time.monotonic() - self.started_at.pop(task.name))
            self._seen(task, True)

    def add_success(self, task):
        self._finished(task, True)

    def add_failure(self, task, fail):
        self._finished(task, False)
        self.view.stop()
        progress.attach(None)
        super().add_failure(task, fail)

    def skip_uptodate(self, task):
        if counted(task):
            self.done += 1
            self._seen(task, False)

    def skip_ignore(self, task):
        self.done += 1
        self.view.line(f"!! {task.title()}")
        self._seen(task, False)

    def runtime_error(self, msg):
        self.view.stop()
        progress.attach(None)
        super().runtime_error(msg)

    def complete_run(self):
        self.view.stop()
        progress.attach(None)
        super().complete_run()
        elapsed = process_elapsed()
        took = seconds(elapsed if elapsed is not None else time.monotonic() - self.clock)
        if self.failures or self.runtime_errors:
            failed = ", ".join(r["task"].name for r in self.failures) or "doit"
            self.write(f"tcore: failed: {failed} ({tasks_ran(self.ran, self.total)}, {took})\n")
        elif self.ran == 0:
            self.write(f"tcore: up to date, {tasks_ran(0, self.total)}, {took}\n")
        else:
            self.write(f"tcore: {tasks_ran(self.ran, self.total)}, {took}\n")
