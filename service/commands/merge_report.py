"""``chesskb merge-report``: what the knowledge base merged across sources, and why.

The analysis is ``kb.merge.report``; this command only prints it.

Merging is silent by design (one IRI per game, per FIDE ID or name key, per event), so a teacher
needs one place to see it: games found in several sources or twice in one (``kb.mapping.identity``: same
moves from the same start and the same players, year and round) with why they were merged and the
tag values the sources state differently (compatible refinements apart from true conflicts), the
near-misses (same moves, kept apart, and why), players met under several
written names, events shared by sources, the sameAs/candidate links of ``kb.merge.linking`` with
their reasons, and the mate claims left refuted or undecided by the proofs.
"""

from __future__ import annotations

import json

import click

from chesskb.kb.merge.report import merge_report
from chesskb.kb.terminal import printable
from chesskb.service.commands.base import CliContext


@click.command("merge-report")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def command(obj: CliContext, fmt: str) -> None:
    """List the games, players and events merged across sources, the sameAs/candidate links, with reasons,
    and the mate claims left refuted or undecided."""
    report = merge_report(obj.open_store(), obj.base_iri)
    if fmt == "json":
        click.echo(json.dumps(report, ensure_ascii=False, indent=1))
        return
    click.echo(printable(f"Games found more than once: {len(report['games'])}"))
    for game in report["games"]:
        click.echo(printable(f"  {game['label'] or game['iri']} ({game['reason']})"))
        for entry in game["found_in"]:
            click.echo(printable(f"    in {entry['source']}: {entry['record']}"))
        for prop, values in game["conflicts"].items():
            shown = "; ".join(f"{value!r} ({', '.join(sources)})" for value, sources in values.items())
            click.echo(printable(f"    sources disagree on {prop}: {shown}"))
        for prop, values in game["compatible"].items():
            shown = "; ".join(f"{value!r} ({', '.join(sources)})" for value, sources in values.items())
            click.echo(printable(f"    compatible values of {prop} (merged): {shown}"))
    click.echo(printable(f"Same moves, kept apart as different games: {len(report['near_misses'])}"))
    for miss in report["near_misses"]:
        click.echo(printable(f"  {miss['a_label']} | {miss['b_label']}: {miss['reason']}"))
    click.echo(printable(f"Players met under several names: {len(report['players'])}"))
    for player in report["players"]:
        names = "; ".join(f"{name!r} ({', '.join(sources)})" for name, sources in player["names"].items())
        click.echo(printable(f"  {player['iri']}: {names} — {player['reason']}"))
    click.echo(printable(f"Events shared by sources: {len(report['events'])}"))
    for event in report["events"]:
        click.echo(printable(f"  {event['label'] or event['iri']}: {', '.join(event['sources'])}"))
    click.echo(printable(f"Links between players and between events: {len(report['links'])}"))
    for link in report["links"]:
        click.echo(printable(f"  {link['kind']}: {link['a']} ~ {link['b']} ({link['reason']})"))
    click.echo(printable(f"Mate claims refuted or undecided: {len(report['claims'])}"))
    for claim in report["claims"]:
        promised = f" in {claim['moves']}" if claim["moves"] is not None else ""
        shown = claim["label"] or claim["position"]
        click.echo(
            printable(
                f"  {claim['status'] or '?'}: {claim['claim']}{promised} — {shown} <{claim['position']}>"
                f" ({claim['source']})"
            )
        )
