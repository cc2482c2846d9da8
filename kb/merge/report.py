"""What the knowledge base merged across sources, and why: the analysis behind ``chesskb merge-report``.

Merging is silent by design (one IRI per game, per FIDE ID or name key, per event), so a teacher
needs one place to see it: games found in several sources or twice in one (``kb.mapping.identity``: same
moves from the same start and the same players, year and round) with why they were merged and the
tag values the sources state differently (compatible refinements apart from true conflicts), the
near-misses (same moves, kept apart, and why), players met under several written names, events
shared by sources, the sameAs/candidate links of ``kb.merge.linking`` with their reasons, and the mate
claims no proof made true (refuted, or undecided within the budget: kept only as the source's claim).

Every question is a named query (``queries/internal/``); the facts of all the games are read in one
query, not one per game, so the report costs a constant number of queries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import chess
from pyoxigraph import NamedNode

from chesskb.kb.analysis.claims import read_claim_status
from chesskb.kb.mapping.identity import MIN_DISTINCT_PLIES, distinctive
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.merge.conflicts import disagreements
from chesskb.kb.merge.linking import compute_event_links, compute_links, events_in, players_in
from chesskb.kb.reading.names import surname, surname_key
from chesskb.kb.store.base import Store
from chesskb.queries.executor import select


def game_facts(store: Store, iris: Iterable[str]) -> dict[str, dict[str, Any]]:
    """What the identity rule compared for each Match: surnames, year, round, plies, start (one
    query for all the games, however many)."""
    wanted = list(dict.fromkeys(iris))
    facts: dict[str, dict[str, Any]] = {
        iri: {
            "white": set(),
            "black": set(),
            "year": set(),
            "round": set(),
            "plies": 0,
            "standard": True,
            "white_shown": set(),
            "black_shown": set(),
            "start": False,
        }
        for iri in wanted
    }
    if not wanted:
        return facts
    for row in select(store, "game-identity-facts", {"match": [NamedNode(iri) for iri in wanted]}):
        game = facts[row["match"].value]
        if row["colour"] is not None:
            game[row["colour"].value].add(surname_key(row["name"].value))  # compared
            game[row["colour"].value + "_shown"].add(surname(row["name"].value))  # shown
        elif row["year"] is not None:
            game["year"].add(row["year"].value)
        elif row["round"] is not None:
            game["round"].add(row["round"].value)
        elif row["fen"] is not None and not game["start"]:  # the game's first position, as LIMIT 1 took it
            game["start"] = True
            game["plies"] = len(row["uci"].value.split()) if row["uci"] is not None else 0
            game["standard"] = chess.Board(row["fen"].value).epd() == chess.Board().epd()
    for game in facts.values():
        del game["start"]
    return facts


def _merge_reason(facts: dict[str, Any]) -> str:
    players = f"{'/'.join(sorted(facts['white_shown'])) or '?'} vs {'/'.join(sorted(facts['black_shown'])) or '?'}"
    if not distinctive(facts["standard"], facts["plies"]):
        return (
            f"only {facts['plies']} plies from the start (fewer than {MIN_DISTINCT_PLIES}): the whole roster "
            f"agrees (event, date, round, players {players})"
        )
    extra = "".join(f", same {what} {'/'.join(sorted(facts[what]))}" for what in ("year", "round") if facts[what])
    return f"same {facts['plies']} plies from the same start, same players ({players}){extra}"


def _graph_source(graph: str, minter: IriMinter) -> str:
    """The source a graph holds (the graph's IRI itself if it is no source's: never silently dropped)."""
    return minter.source_of(graph) or graph


def merged_games(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
    """Games stated by several records, where, why they are one game, and the values the records
    state differently (compatible refinements apart from true conflicts)."""
    rows = select(store, "merged-games")
    games: dict[str, dict[str, Any]] = {}
    for row in rows:
        game = games.setdefault(
            row["m"].value,
            {
                "iri": row["m"].value,
                "label": row["label"].value if row["label"] else None,
                "found_in": [],
                "conflicts": {},
                "compatible": {},
            },
        )
        entry = {"source": _graph_source(row["g"].value, minter), "record": row["where"].value}
        if entry not in game["found_in"]:
            game["found_in"].append(entry)
    facts = game_facts(store, games)
    for iri, game in games.items():
        game["reason"] = _merge_reason(facts[iri])
    for found in disagreements(store, games, minter):
        kind = "conflicts" if found.is_conflict else "compatible"
        games[found.subject][kind][found.short] = {value: sorted(sources) for value, sources in found.values.items()}
    return list(games.values())


def near_misses(store: Store) -> list[dict[str, Any]]:
    """Games kept apart although their moves are the same: who differs, or what one record lacks."""
    rows = select(store, "same-moves-games")
    groups: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows:
        groups[row["key"].value].setdefault(row["m"].value, row["label"].value if row["label"] else row["m"].value)
    facts = game_facts(store, (iri for members in groups.values() for iri in members))
    found = []
    for members in groups.values():
        if not any(facts[iri]["plies"] for iri in members):
            continue  # games without moves share nothing but their (empty) moves
        iris = sorted(members)
        for index, one in enumerate(iris):
            for other in iris[index + 1 :]:
                found.append(
                    {
                        "a": one,
                        "a_label": members[one],
                        "b": other,
                        "b_label": members[other],
                        "reason": _apart_reason(facts[one], facts[other]),
                    }
                )
    return found


def _apart_reason(one: dict[str, Any], other: dict[str, Any]) -> str:
    if not distinctive(one["standard"], one["plies"]):
        return (
            f"same {one['plies']} plies, kept apart: fewer than {MIN_DISTINCT_PLIES}, the moves prove "
            "nothing and the rosters differ"
        )
    reasons = [
        f"different {colour} player ({'/'.join(sorted(one[colour + '_shown'])) or '?'} / "
        f"{'/'.join(sorted(other[colour + '_shown'])) or '?'})"
        for colour in ("white", "black")
        if one[colour] != other[colour]
    ]
    for what in ("year", "round"):
        if one[what] and other[what] and one[what] != other[what]:
            reasons.append(f"different {what} ({'/'.join(sorted(one[what]))} / {'/'.join(sorted(other[what]))})")
        elif bool(one[what]) != bool(other[what]):
            reasons.append(f"the {what} is given by one record only")
    return "same moves, kept apart: " + ("; ".join(reasons) or "different identity")


def merged_players(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
    """Players met under several written names, with the sources of each name and why they are one."""
    rows = select(store, "merged-players")
    players: dict[str, dict[str, Any]] = {}
    for row in rows:
        fide = row["fide"].value if row["fide"] else None
        player = players.setdefault(
            row["p"].value,
            {
                "iri": row["p"].value,
                "names": {},
                "reason": f"same FIDE ID ({fide})"
                if fide
                else "same name once case, accents, punctuation and word order are ignored",
            },
        )
        player["names"].setdefault(row["written"].value, set()).add(_graph_source(row["g"].value, minter))
    for player in players.values():
        player["names"] = {name: sorted(sources) for name, sources in player["names"].items()}
    return list(players.values())


def shared_events(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
    """Events more than one source states (the stand-ins for a missing event name are no event)."""
    rows = select(store, "shared-events")
    return [
        {
            "iri": row["e"].value,
            "label": row["label"].value if row["label"] else None,
            "sources": sorted(_graph_source(g, minter) for g in row["graphs"].value.split()),
            "reason": "same event name and year",
        }
        for row in rows
        if not minter.is_placeholder(row["e"])
    ]


def open_claims(store: Store, minter: IriMinter) -> list[dict[str, Any]]:
    """The mate claims the proofs left refuted or undecided: per source and position, the claim as the
    source made it (class, promised moves) and its status. Undecided ones are the work left to a larger
    budget; neither kind is ever asserted as a mate class."""
    found = []
    for row in select(store, "open-mate-claims"):
        claim = read_claim_status(row["status"].value)
        found.append(
            {
                "source": _graph_source(row["g"].value, minter),
                "position": row["p"].value,
                "label": row["label"].value if row["label"] is not None else None,
                "claim": claim.theme if claim else row["status"].value,
                "moves": claim.moves if claim else None,
                "status": claim.status if claim else None,
            }
        )
    return found


def merge_report(store: Store, base_iri: str | None = None) -> dict[str, Any]:
    """The whole report as ``chesskb merge-report --format json`` prints it: a constant number of
    queries whatever the number of games. ``base_iri``: the store's (default: the configured one)."""
    minter = IriMinter(base_iri)
    links = compute_links(players_in(store)) + compute_event_links(events_in(store))
    return {
        "games": merged_games(store, minter),
        "near_misses": near_misses(store),
        "players": merged_players(store, minter),
        "events": shared_events(store, minter),
        "links": [{"a": link.a, "b": link.b, "kind": link.kind, "reason": link.reason} for link in links],
        "claims": open_claims(store, minter),
    }
