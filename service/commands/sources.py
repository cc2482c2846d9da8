"""``chesskb sources``: the sources (named graphs) in the store, with what each holds and came from."""

from __future__ import annotations

import json

import click

from chesskb.kb.reports.stats import list_sources
from chesskb.kb.terminal import printable
from chesskb.service.commands.base import CliContext


@click.command("sources")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def command(obj: CliContext, fmt: str) -> None:
    """The sources in the store with counts, import time and file checksum."""
    sources = list_sources(obj.open_store(), base_iri=obj.base_iri)
    if fmt == "json":
        click.echo(json.dumps(sources, indent=2, ensure_ascii=False))
        return
    if not sources:
        click.echo("no sources")
        return
    for source in sources:
        click.echo(
            printable(
                f"{source['name']}  positions={source['positions']} games={source['games']} "
                f"players={source['players']} imported={source['importedAt']} "
                f"files={source['files']} checksum={source['checksum']}"
            )
        )
