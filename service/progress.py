"""A status line for long commands (import, site, check, convert).

People at a terminal want to see that a three-minute command is alive; scripts, pipes and CI want
only the result. So the line is drawn on stderr only when stderr is a terminal, rewritten in place at
most four times a second, and erased before the command prints anything else.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    from chesskb.kb.importer import ImportReport


class TerminalProgress:
    """One self-rewriting line on a terminal; silent when ``stream`` is not a TTY."""

    def __init__(self, stream: TextIO | None = None, *, interval: float = 0.25) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.interval = interval
        self.started = time.monotonic()
        self._last = 0.0
        self._width = 0

    @property
    def elapsed(self) -> float:
        """Seconds since the command started."""
        return time.monotonic() - self.started

    def update(self, text: str, *, force: bool = False) -> None:
        """Show ``text`` as the status (throttled unless ``force``)."""
        now = time.monotonic()
        if not self.enabled or (not force and now - self._last < self.interval):
            return
        self._last = now
        line = f"  {text}"
        click.echo("\r" + line.ljust(self._width), file=self.stream, nl=False)
        self._width = len(line)

    def done(self) -> None:
        """Erase the status line, so what comes next starts on a clean line."""
        if self.enabled and self._width:
            click.echo("\r" + " " * self._width + "\r", file=self.stream, nl=False)
            self._width = 0


def import_status(progress: TerminalProgress) -> Callable[[ImportReport], None]:
    """The status line of ``import`` and ``convert``: games so far, their rate and the errors."""

    def show(report: ImportReport) -> None:
        rate = report.games / max(progress.elapsed, 1e-9)
        progress.update(f"{report.games} games  {rate:,.0f} games/s  {report.errors} errors")

    return show
