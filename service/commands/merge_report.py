"""``chesskb merge-report``: what the knowledge base merged across sources, and why.

Merging is silent by design (one IRI per game, per FIDE ID or name key, per event), so a teacher
needs one place to see it: games found in several sources or twice in one (same moves from the same
start, pgn-extract's rule) with the tag values the sources disagree on, players met under several
written names, events shared by sources, and the sameAs/candidate links of ``kb.linking`` with
their reasons.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import click
from pyoxigraph import NamedNode

from kb.linking import compute_event_links, compute_links, events_in, players_in
from kb.store.base import Store
from kb.terminal import printable

# Statements about a game that differ between sources for bookkeeping reasons, not disagreement.
_NOT_CONFLICTS = {"http://purl.org/dc/terms/source", "http://www.w3.org/2000/01/rdf-schema#label",
                  "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}


def _graph_source(graph: str) -> str:
    return graph.rstrip("/").rsplit("/graph/", 1)[-1]


def merged_games(store: Store) -> list[dict[str, Any]]:
    rows = store.query("""
        SELECT ?m ?label ?g ?where WHERE {
          { SELECT ?m WHERE { GRAPH ?g0 { ?m dcterms:source ?r0 } } GROUP BY ?m HAVING (COUNT(DISTINCT ?r0) > 1) }
          GRAPH ?g { ?m dcterms:source ?r . ?r rdfs:label ?where }
          OPTIONAL { ?m rdfs:label ?label }
        } ORDER BY ?m ?where""")
    games: dict[str, dict[str, Any]] = {}
    for row in rows:
        game = games.setdefault(row["m"].value, {"iri": row["m"].value, "label": row["label"].value if row["label"]
                                                 else None, "found_in": [], "conflicts": {},
                                                 "reason": "same moves from the same start position"})
        entry = {"source": _graph_source(row["g"].value), "record": row["where"].value}
        if entry not in game["found_in"]:
            game["found_in"].append(entry)
    for iri, game in games.items():
        values: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        statements = f"SELECT ?p ?o ?g WHERE {{ GRAPH ?g {{ {NamedNode(iri)} ?p ?o }} FILTER(isLiteral(?o)) }}"
        for row in store.query(statements):
            if row["p"].value not in _NOT_CONFLICTS and not row["g"].value.endswith("/inferred"):
                values[row["p"].value][row["o"].value].add(_graph_source(row["g"].value))
        game["conflicts"] = {_short(prop): {value: sorted(sources) for value, sources in by_value.items()}
                             for prop, by_value in values.items() if len(by_value) > 1}
    return list(games.values())


def merged_players(store: Store) -> list[dict[str, Any]]:
    rows = store.query("""
        SELECT ?p ?written ?g ?fide WHERE {
          { SELECT ?p WHERE { ?p a cp:Player ; skos:altLabel ?n } GROUP BY ?p HAVING (COUNT(DISTINCT ?n) > 1) }
          GRAPH ?g { ?p skos:altLabel ?written }
          OPTIONAL { ?p cp:fideId ?fide }
        } ORDER BY ?p ?written""")
    players: dict[str, dict[str, Any]] = {}
    for row in rows:
        fide = row["fide"].value if row["fide"] else None
        player = players.setdefault(row["p"].value, {
            "iri": row["p"].value, "names": {},
            "reason": f"same FIDE ID ({fide})" if fide else "same name once case, accents, punctuation and "
                                                             "word order are ignored"})
        player["names"].setdefault(row["written"].value, set()).add(_graph_source(row["g"].value))
    for player in players.values():
        player["names"] = {name: sorted(sources) for name, sources in player["names"].items()}
    return list(players.values())


def shared_events(store: Store) -> list[dict[str, Any]]:
    rows = store.query("""
        SELECT ?e ?label (GROUP_CONCAT(DISTINCT STR(?g); separator=" ") AS ?graphs) WHERE {
          GRAPH ?g { ?e a cp:Event } FILTER(!STRENDS(STR(?g), "/inferred") && !CONTAINS(STR(?e), "/event/unknown-"))
          OPTIONAL { ?e rdfs:label ?label }
        } GROUP BY ?e ?label HAVING (COUNT(DISTINCT ?g) > 1) ORDER BY ?e""")
    return [{"iri": row["e"].value, "label": row["label"].value if row["label"] else None,
             "sources": sorted(_graph_source(g) for g in row["graphs"].value.split()),
             "reason": "same event name, site and year"} for row in rows]


def _short(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def merge_report(store: Store) -> dict[str, Any]:
    links = compute_links(players_in(store)) + compute_event_links(events_in(store))
    return {
        "games": merged_games(store),
        "players": merged_players(store),
        "events": shared_events(store),
        "links": [{"a": link.a, "b": link.b, "kind": link.kind, "reason": link.reason} for link in links],
    }


@click.command("merge-report")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def command(obj, fmt: str) -> None:
    """List the games, players and events merged across sources, and the sameAs/candidate links, with reasons."""
    report = merge_report(obj.open_store())
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
