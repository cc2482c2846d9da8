"""What every ``chesskb`` command shares: the global options' context, the two problem types (exit 1
for the data, exit 2 for the usage) and the files-and-reading options of ``import`` and ``convert``.

It sits below ``service/cli.py`` and every ``service/commands/*`` module, so a command imports it
without importing the CLI that imports the command.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from chesskb.kb.store import Store


@dataclass
class CliContext:
    """Global options every command shares."""

    store_location: str
    update_endpoint: str | None
    base_iri: str
    graph_store: str | None = None

    def open_store(self) -> Store:
        from chesskb.kb.store import open_store  # on demand: `chesskb --help` loads no store (bench/cli_startup.py)

        return open_store(self.store_location, update_endpoint=self.update_endpoint, graph_store=self.graph_store)


def counted(number: int, noun: str) -> str:
    """A count with its noun in the right number, for the lines a command prints ("1 chapter", "2 chapters";
    the nouns they count all take an ``s``).

    >>> counted(1, "game"), counted(0, "game"), counted(19, "exercise")
    ('1 game', '0 games', '19 exercises')
    """
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


EXIT_OK = 0
EXIT_DATA = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

EXIT_CODES_HELP = (
    "Exit codes: 0 done (valid, consistent); 1 the data said no (invalid or inconsistent data, "
    "nothing readable, no such source, a store or step that failed); 2 the command could not do "
    "what was asked (a wrong option, name, file or query; Java, the reasoner or stockfish "
    "missing or failed); 130 interrupted."
)


class UsageProblem(click.UsageError):
    """Exit 2 with a one-line message: nothing was decided (the table in ``service/cli.py``).

    ``show_usage=False`` for what no option can fix (Java missing, the reasoner failed): the message
    alone, without the command's usage line."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, show_usage: bool = True) -> None:
        super().__init__(message)
        self.show_usage = show_usage

    def show(self, file: Any = None) -> None:
        if not self.show_usage:
            self.ctx = None  # click prints the usage only for a known context
        super().show(file)


class DataProblem(click.ClickException):
    """Exit 1 with a one-line message: the data said no (the table in ``service/cli.py``)."""

    exit_code = EXIT_DATA


def verdict(ok: bool) -> None:
    """End a command that printed its answer (``validate``, ``check``, ``classify``): 0 when ``ok``, else 1."""
    raise click.exceptions.Exit(EXIT_OK if ok else EXIT_DATA)


def reading_options(command: Callable[..., None]) -> Callable[..., None]:
    """The files and reading options ``import`` and ``convert`` share (one definition, one help text)."""
    for option in reversed(
        (
            click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path)),
            click.option("--source", default=None, help="Source name (named graph); default: each file's stem."),
            click.option(
                "--theme",
                "themes",
                multiple=True,
                metavar="CLASS",
                help="Assert this theme class for every position of the files (repeatable).",
            ),
            click.option(
                "--lang",
                default=None,
                metavar="CODE",
                help="Language of the piece letters in the movetext (es, it, de, fr, …); default English.",
            ),
            click.option(
                "--jobs",
                type=click.IntRange(min=1),
                default=None,
                help="Worker processes for reading and analysis (default: the machine's cores).",
            ),
            click.option(
                "--cluster",
                default=None,
                metavar="tcp://HOST:8786",
                help="Run reading and analysis on this Dask scheduler's workers instead of --jobs "
                "(pip install 'chesskb[cluster]'; docs/cluster.md).",
            ),
        )
    ):
        command = option(command)
    return command
