"""The ``chesskb`` command: the interface users and other tools script against.

Command names, options and output shapes here are public; keep them. Errors are one line on
stderr and an exit code, never a traceback. Every command ends in one of these codes, decided here
(``EXIT_*`` and the two exception types of ``service/commands/base.py``, mapped by ``main``), and
listed in ``chesskb --help`` and the README:

* 0 — done; for ``validate`` and ``check`` also: valid, consistent.
* 1 — ``DataProblem``: the command ran and the data said no — invalid or inconsistent data, no
  readable game, no such source or course, a store that cannot be read or written, a failed step.
* 2 — ``UsageProblem``: the command could not do what was asked, so nothing was decided — a wrong
  option, argument, name, file or query, or something it needs is missing or failed (Java, the
  reasoner, stockfish).
* 130 — interrupted (Ctrl-C).
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from chesskb import __version__
from chesskb.kb.defaults import BASE_IRI_ENV, STORE_ENV, default_base_iri, default_store_location
from chesskb.service.commands import COMMANDS
from chesskb.service.commands.base import EXIT_CODES_HELP, EXIT_DATA, EXIT_INTERRUPTED, EXIT_OK, CliContext


class CommandsOnDemand(click.Group):
    """A group whose commands are imported when one runs, from the table in ``service/commands/__init__``.

    ``chesskb --help`` lists them from the table's summaries; a command's module is imported only to run
    it or show its own help, so a broken module fails that command loudly (``ModuleNotFoundError`` named,
    exit 1) instead of dropping it from the list."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module = importlib.import_module(f"chesskb.service.commands.{COMMANDS[cmd_name].module}")
            self.add_command(module.command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, shortened by click's own rule, without importing a command."""
        listed = {name: click.Command(name, help=entry.summary) for name, entry in COMMANDS.items()}
        listed.update(self.commands)
        names = sorted(listed)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, listed[name].get_short_help_str(limit)) for name in names if not listed[name].hidden]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=CommandsOnDemand, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.option(
    "--store",
    "store_location",
    envvar=STORE_ENV,
    default=None,
    metavar="PATH|URL",
    help=f"Store directory, or a SPARQL 1.1 endpoint URL (default ${STORE_ENV} or ./chesskb-store).",
)
@click.option(
    "--update-endpoint",
    default=None,
    metavar="URL",
    help="SPARQL Update URL of a remote store, when it differs from the query URL.",
)
@click.option(
    "--graph-store",
    default=None,
    metavar="URL",
    help="Graph Store Protocol URL of a remote store, for loading imports (derived for an Oxigraph "
    "server; without one, or with '', imports are sent as SPARQL INSERT DATA requests).",
)
@click.option(
    "--base-iri",
    envvar=BASE_IRI_ENV,
    default=None,
    metavar="IRI",
    help=f"Base IRI of individuals (default ${BASE_IRI_ENV} or {default_base_iri()}).",
)
@click.version_option(version=__version__, prog_name="chesskb")
@click.pass_context
def cli(
    ctx: click.Context,
    store_location: str | None,
    update_endpoint: str | None,
    graph_store: str | None,
    base_iri: str | None,
) -> None:
    """ChessPosition KB: didactic chess positions as a linked knowledge base."""
    ctx.obj = CliContext(
        store_location or default_store_location(), update_endpoint, base_iri or default_base_iri(), graph_store
    )


def main() -> None:
    """Entry point: errors become one line on stderr and an exit code, never a traceback.

    Commands that use the engine open and stop it themselves (``kb.analysis.engine.open_engine``)."""
    _run()


def _is_store_error(exc: Exception) -> bool:
    """``exc`` is the store's own error; the store is not imported to ask (no store loaded, no store error)."""
    store = sys.modules.get("chesskb.kb.store.base")
    return store is not None and isinstance(exc, store.StoreError)


def _run() -> None:
    """Every way a command ends, as an exit code (the table in the module docstring)."""
    try:
        code = cli.main(standalone_mode=False)  # click returns an Exit's code instead of raising it
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(EXIT_DATA)
    except click.ClickException as exc:  # UsageProblem, DataProblem and click's own usage errors
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:
        if isinstance(exc, OSError) or _is_store_error(exc):
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_DATA)
        if os.environ.get("CHESSKB_DEBUG"):  # a bug: still one line, the traceback only on request
            raise
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set CHESSKB_DEBUG=1 for the traceback)", err=True)
        sys.exit(EXIT_DATA)
    sys.exit(code if isinstance(code, int) else EXIT_OK)


if __name__ == "__main__":
    main()
