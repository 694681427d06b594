"""doit's output for tcore: the default lines ('.  task' when it runs, '-- task' when
it is up to date) plus a progress counter of the tasks that ran. On a terminal (and
not in CI) the counter and the task name are coloured with rich; elsewhere they are
plain lines, so logs stay greppable."""
from __future__ import annotations

import os
import sys

from doit.reporter import ConsoleReporter


def _fancy(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


class ProgressReporter(ConsoleReporter):
    desc = "tcore: doit's console output with a progress counter"

    def __init__(self, outstream, options):
        super().__init__(outstream, options)
        self.total = 0
        self.done = 0
        self.ran = 0
        self.fancy = _fancy(outstream if outstream is not None else sys.stdout)
        self._console = None

    def initialize(self, tasks, selected_tasks):
        self.total = sum(1 for t in tasks.values() if t.actions and not t.name.startswith("_"))

    def _counter(self) -> str:
        return f"[{self.done}/{self.total}]"

    def skip_uptodate(self, task):
        self.done += 1
        super().skip_uptodate(task)

    def execute_task(self, task):
        if not task.actions or task.name.startswith("_"):
            return
        self.done += 1
        self.ran += 1
        if self.fancy:
            if self._console is None:
                from rich.console import Console

                self._console = Console(file=self.outstream, highlight=False)
            self._console.print(f".  [bold]{task.title()}[/bold]  [dim]{self._counter()}[/dim]")
        else:
            self.write(f".  {task.title()}  {self._counter()}\n")

    def complete_run(self):
        super().complete_run()
        if self.total and not self.failures and not self.runtime_errors:
            self.write(f"tcore: {self.ran} of {self.total} tasks ran, {self.total - self.ran} were up to date\n")
