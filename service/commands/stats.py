"""``chesskb stats``: counts of what the store holds, and whether mate claims can be proved here (the engine)."""

from __future__ import annotations

import json

import click

from chesskb.kb.reports.stats import kb_stats, list_sources
from chesskb.service.commands.base import CliContext


def _engine_note() -> str:
    try:
        from chesskb.kb.analysis.engine import engine_status
    except ImportError:
        return "no engine support in this build: mate claims are proven by python-chess alone (same verdicts)"
    return engine_status()


@click.command("stats")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def command(obj: CliContext, fmt: str) -> None:
    """Counts of positions, games, players, events and theme classes."""
    store = obj.open_store()
    stats = kb_stats(store)
    stats["sources"] = len(list_sources(store, base_iri=obj.base_iri))
    stats["engine"] = _engine_note()
    if fmt == "json":
        click.echo(json.dumps(stats, indent=2, ensure_ascii=False))
        return
    click.echo(f"store      {stats['store']}")
    for key in ("sources", "positions", "matches", "players", "events"):
        click.echo(f"{key:<10} {stats[key]}")
    click.echo(f"engine     {stats['engine']}")
    if stats["classes"]:
        click.echo("classes (asserted or detected, direct):")
        for name, count in stats["classes"].items():
            click.echo(f"  {name:<22} {count}")
