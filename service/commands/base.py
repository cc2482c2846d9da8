"""What every ``chesskb`` command shares: the global options' context, the two problem types (exit 1
for the data, exit 2 for the usage) and the files-and-reading options of ``import`` and ``convert``.

It sits below ``service/cli.py`` and every ``service/commands/*`` module, so a command imports it
without importing the CLI that imports the command.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from chesskb.kb.store import Store, open_store


@dataclass
class CliContext:
    """Global options every command shares."""

    store_location: str
    update_endpoint: str | None
    base_iri: str
    graph_store: str | None = None

    def open_store(self) -> Store:
        return open_store(self.store_location, update_endpoint=self.update_endpoint, graph_store=self.graph_store)


class UsageProblem(click.UsageError):
    """Exit 2 with a one-line message."""


class DataProblem(click.ClickException):
    """Exit 1 with a one-line message."""

    exit_code = 1



def reading_options(command: Callable[..., None]) -> Callable[..., None]:
    """The files and reading options ``import`` and ``convert`` share (one definition, one help text)."""
    for option in reversed((
        click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path)),
        click.option("--source", default=None, help="Source name (named graph); default: each file's stem."),
        click.option("--theme", "themes", multiple=True, metavar="CLASS",
                     help="Assert this theme class for every position of the files (repeatable)."),
        click.option("--lang", default=None, metavar="CODE",
                     help="Language of the piece letters in the movetext (es, it, de, fr, …); default English."),
        click.option("--jobs", type=click.IntRange(min=1), default=None,
                     help="Worker processes for reading and analysis (default: the machine's cores)."),
    )):
        command = option(command)
    return command


