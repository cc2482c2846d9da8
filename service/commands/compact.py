"""``chesskb compact``: an embedded store written before the compact layout, rewritten in it."""

from __future__ import annotations

import click

from chesskb.kb.store import EmbeddedStore, StoreError
from chesskb.service.commands.base import CliContext, DataProblem, UsageProblem


@click.command("compact")
@click.pass_obj
def command(obj: CliContext) -> None:
    """Rewrite a store written before the compact layout (each statement also in its source's graph)
    in that layout, its files compacted by RocksDB: same answers, a third of the disk."""
    store = obj.open_store()
    if not isinstance(store, EmbeddedStore):
        raise UsageProblem(
            "compact rewrites an embedded store directory; a SPARQL server keeps the layout "
            "it was loaded in (docs/remote-stores.md)"
        )
    try:
        done = store.compact()
    except StoreError as exc:
        raise DataProblem(str(exc)) from None
    click.echo(f"compacted {obj.store_location}: {done.read:,} quads -> {done.written:,} ({done.subjects:,} subjects)")
