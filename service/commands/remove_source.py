"""``chesskb remove-source NAME``: one source out of the store (``kb.importer.remove_source``)."""

from __future__ import annotations

import click

from chesskb.kb.importer import remove_source
from chesskb.service.commands.base import CliContext, DataProblem


@click.command("remove-source")
@click.argument("name")
@click.pass_obj
def command(obj: CliContext, name: str) -> None:
    """Remove one source; what other sources also contain stays."""
    if not remove_source(obj.open_store(), name, base_iri=obj.base_iri):
        raise DataProblem(f"no source named {name!r} in {obj.store_location}")
    click.echo(f"removed source {name}")
