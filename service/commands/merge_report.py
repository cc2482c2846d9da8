"""``chesskb merge-report``: what the knowledge base merged across sources, and why.

Merging is silent by design (one IRI per game, per FIDE ID or name key, per event), so a teacher
needs one place to see it: games found in several sources or twice in one (``kb.merge.identity``: same
moves from the same start and the same players, year and round) with why they were merged and the
tag values the sources state differently (compatible refinements apart from true conflicts), the
near-misses (same moves, kept apart, and why), players met under several
written names, events shared by sources, and the sameAs/candidate links of ``kb.merge.linking`` with
their reasons.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import click
from pyoxigraph import NamedNode

import chess

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.merge.conflicts import disagreements
from chesskb.kb.merge.identity import MIN_DISTINCT_PLIES, distinctive
from chesskb.kb.merge.linking import compute_event_links, compute_links, events_in, players_in
from chesskb.kb.reading.names import surname, surname_key
from chesskb.kb.store.base import Store
from chesskb.kb.export.terminal import printable

def _graph_source(graph: str, minter: IriMinter) -> str:
    """The source a graph holds (the graph's IRI itself if it is no source's: never silently dropped)."""
    return minter.source_of(graph) or graph


def _game_facts(store: Store, iri: str) -> dict[str, Any]:
    """What the identity rule compared for one Match: surnames, year, round, plies, start."""
    node = NamedNode(iri)
    facts: dict[str, Any] = {"white": set(), "black": set(), "year": set(), "round": set(), "plies": 0,
                             "standard": True, "white_shown": set(), "black_shown": set()}
    for row in store.query(f"""SELECT ?colour ?name WHERE {{
            {{ {node} cp:hasPlayerWhite ?p BIND("white" AS ?colour) }}
            UNION {{ {node} cp:hasPlayerBlack ?p BIND("black" AS ?colour) }} ?p skos:altLabel ?name }}"""):
        facts[row["colour"].value].add(surname_key(row["name"].value))  # compared
        facts[row["colour"].value + "_shown"].add(surname(row["name"].value))  # shown
    for row in store.query(f"SELECT ?y WHERE {{ {node} cp:year ?y }}"):
        facts["year"].add(row["y"].value)
    for row in store.query(f"SELECT ?r WHERE {{ {node} cp:roundNumber ?r }}"):
        facts["round"].add(row["r"].value)
    for row in store.query(f"""SELECT ?uci ?fen WHERE {{ ?pos cp:hasMatch {node} ; cp:plyInGame 0 ; cp:fen ?fen
            OPTIONAL {{ ?pos cp:solutionUci ?uci }} }} LIMIT 1"""):
        facts["plies"] = len(row["uci"].value.split()) if row["uci"] is not None else 0
        facts["standard"] = chess.Board(row["fen"].value).epd() == chess.Board().epd()
    return facts


def _merge_reason(facts: dict[str, Any]) -> str:
    players = f"{'/'.join(sorted(facts['white_shown'])) or '?'} vs {'/'.join(sorted(facts['black_shown'])) or '?'}"
    if not distinctive(facts["standard"], facts["plies"]):
        return (f"only {facts['plies']} plies from the start (fewer than {MIN_DISTINCT_PLIES}): the whole roster "
                f"agrees (event, date, round, players {players})")
    extra = "".join(f", same {what} {'/'.join(sorted(facts[what]))}" for what in ("year", "round") if facts[what])
    return f"same {facts['plies']} plies from the same start, same players ({players}){extra}"


def merged_games(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
    rows = store.query("""
        SELECT ?m ?label ?g ?where WHERE {
          { SELECT ?m WHERE { GRAPH ?g0 { ?m dcterms:source ?r0 } } GROUP BY ?m HAVING (COUNT(DISTINCT ?r0) > 1) }
          GRAPH ?g { ?m dcterms:source ?r . ?r rdfs:label ?where }
          OPTIONAL { ?m rdfs:label ?label }
        } ORDER BY ?m ?where""")
    games: dict[str, dict[str, Any]] = {}
    for row in rows:
        game = games.setdefault(row["m"].value, {"iri": row["m"].value, "label": row["label"].value if row["label"]
                                                 else None, "found_in": [], "conflicts": {}, "compatible": {}})
        entry = {"source": _graph_source(row["g"].value, minter), "record": row["where"].value}
        if entry not in game["found_in"]:
            game["found_in"].append(entry)
    for iri, game in games.items():
        game["reason"] = _merge_reason(_game_facts(store, iri))
        for found in disagreements(store, [iri], minter):
            kind = "conflicts" if found.is_conflict else "compatible"
            game[kind][found.short] = {value: sorted(sources) for value, sources in found.values.items()}
    return list(games.values())


def near_misses(store: Store) -> list[dict[str, Any]]:
    """Games kept apart although their moves are the same: who differs, or what one record lacks."""
    rows = store.query("""
        SELECT ?key ?m ?label WHERE {
          { SELECT ?key WHERE { ?m0 a cp:Match ; cp:movesKey ?key } GROUP BY ?key HAVING (COUNT(DISTINCT ?m0) > 1) }
          ?m cp:movesKey ?key . OPTIONAL { ?m rdfs:label ?label }
        } ORDER BY ?key ?m""")
    groups: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows:
        groups[row["key"].value].setdefault(row["m"].value, row["label"].value if row["label"] else row["m"].value)
    found = []
    for members in groups.values():
        facts = {iri: _game_facts(store, iri) for iri in members}
        if not any(f["plies"] for f in facts.values()):
            continue  # games without moves share nothing but their (empty) moves
        iris = sorted(members)
        for index, one in enumerate(iris):
            for other in iris[index + 1:]:
                found.append({"a": one, "a_label": members[one], "b": other, "b_label": members[other],
                              "reason": _apart_reason(facts[one], facts[other])})
    return found


def _apart_reason(one: dict[str, Any], other: dict[str, Any]) -> str:
    if not distinctive(one["standard"], one["plies"]):
        return (f"same {one['plies']} plies, kept apart: fewer than {MIN_DISTINCT_PLIES}, the moves prove "
                "nothing and the rosters differ")
    reasons = [f"different {colour} player ({'/'.join(sorted(one[colour + '_shown'])) or '?'} / "
               f"{'/'.join(sorted(other[colour + '_shown'])) or '?'})" for colour in ("white", "black")
               if one[colour] != other[colour]]
    for what in ("year", "round"):
        if one[what] and other[what] and one[what] != other[what]:
            reasons.append(f"different {what} ({'/'.join(sorted(one[what]))} / {'/'.join(sorted(other[what]))})")
        elif bool(one[what]) != bool(other[what]):
            reasons.append(f"the {what} is given by one record only")
    return "same moves, kept apart: " + ("; ".join(reasons) or "different identity")


def merged_players(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
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
        player["names"].setdefault(row["written"].value, set()).add(_graph_source(row["g"].value, minter))
    for player in players.values():
        player["names"] = {name: sorted(sources) for name, sources in player["names"].items()}
    return list(players.values())


def shared_events(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
    rows = store.query("""
        SELECT ?e ?label (GROUP_CONCAT(DISTINCT STR(?g); separator=" ") AS ?graphs) WHERE {
          GRAPH ?g { ?e a cp:Event } FILTER(!STRENDS(STR(?g), "/inferred"))
          OPTIONAL { ?e rdfs:label ?label }
        } GROUP BY ?e ?label HAVING (COUNT(DISTINCT ?g) > 1) ORDER BY ?e""")
    return [{"iri": row["e"].value, "label": row["label"].value if row["label"] else None,
             "sources": sorted(_graph_source(g, minter) for g in row["graphs"].value.split()),
             "reason": "same event name and year"} for row in rows if not minter.is_placeholder(row["e"])]


def _short(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def merge_report(store: Store, base_iri: str | None = None) -> dict[str, Any]:
    minter = IriMinter(base_iri)
    links = compute_links(players_in(store)) + compute_event_links(events_in(store))
    return {
        "games": merged_games(store, minter),
        "near_misses": near_misses(store),
        "players": merged_players(store, minter),
        "events": shared_events(store, minter),
        "links": [{"a": link.a, "b": link.b, "kind": link.kind, "reason": link.reason} for link in links],
    }


@click.command("merge-report")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def command(obj, fmt: str) -> None:
    """List the games, players and events merged across sources, and the sameAs/candidate links, with reasons."""
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
