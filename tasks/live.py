"""The live progress display of a doit run on a terminal (rich): one row for the tasks done
of those selected, one row per kind of step inside a task (ninja's compile steps), each
with the latest thing done as its label. What tasks print goes above it; it disappears at
the end, leaving one line per task or group of sub-tasks that ran."""
from __future__ import annotations

import threading

from doit.action import CmdAction
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


def _short(label: str, width: int) -> str:
    width = max(width, 12)
    return label if len(label) <= width else "..." + label[-(width - 3):]


class LiveView:
    def __init__(self, outstream):
        self.console = Console(file=outstream, highlight=False)
        self.progress = Progress(SpinnerColumn(), TextColumn("[bold]{task.description:<8}"), BarColumn(bar_width=30),
                                 MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("[dim]{task.fields[label]}"),
                                 console=self.console, transient=True)
        self.rows: dict[str, int] = {}
        self.running = False
        self.raw_tasks = 0  # tasks writing to the terminal themselves: the display steps aside
        self.guard = threading.Lock()
        self.label_width = self.console.width - 62  # what the spinner, name, bar, counts and clock leave

    # --- the reporter's side
    def start(self, total: int) -> None:
        self.rows["tasks"] = self.progress.add_task("tasks", total=total, label="")
        self._resume()

    def _resume(self) -> None:
        if not self.running:
            self.progress.start()
            self.running = True

    def _pause(self) -> None:
        if self.running:
            self.progress.stop()
            self.running = False

    def started(self, task, done: int, total: int, raw: bool) -> None:
        with self.guard:
            self.progress.update(self.rows["tasks"], completed=done - 1, label=escape(task.name))
            if raw:
                self.raw_tasks += 1
                self._pause()
                self.console.print(f"[bold]•[/bold] {escape(task.name)}")

    def finished(self, task, ok: bool, elapsed: float) -> None:
        with self.guard:
            self.progress.advance(self.rows["tasks"])
            for kind in [k for k in self.rows if k != "tasks"]:  # a task's steps end with it
                self.progress.remove_task(self.rows.pop(kind))
            if ":" not in task.name:
                mark = "[green]✓[/green]" if ok else "[red]✗[/red]"
                self.progress.console.print(f"{mark} {escape(task.name)}  [dim]{elapsed:.1f} s[/dim]")
            if any(isinstance(a, CmdAction) for a in task.actions):
                self.raw_tasks -= 1
                if self.raw_tasks == 0:
                    self._resume()

    def group_done(self, group: str, ran: int, total: int, elapsed: float) -> None:
        with self.guard:
            self.progress.console.print(f"[green]✓[/green] {escape(group)}  {ran} of {total} sub-tasks ran  "
                                        f"[dim]{elapsed:.1f} s[/dim]")

    def line(self, text: str) -> None:
        self.progress.console.print(escape(text))

    def stop(self) -> None:
        with self.guard:
            self._pause()

    # --- the tasks' side (tasks/progress.py)
    def note(self, text: str) -> None:
        self.progress.update(self.rows["tasks"], label=escape(_short(text.strip(), self.label_width)))

    def steps(self, kind: str, done: int, total: int, label: str) -> None:
        with self.guard:
            if kind not in self.rows:
                self.rows[kind] = self.progress.add_task(kind, total=total, label="")
            label = escape(_short(label, self.label_width))
            self.progress.update(self.rows[kind], completed=done, total=total, label=label)
