"""The listings on resource pages: a player's games, positions and names; an event's rounds,
standings and crosstable; a source's games page by page; a game's positions.

``service.pages`` adds ``listing_for(kind, …)`` to the page's data, so the HTML page and its JSON
twin show the same lists.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from flask import current_app, request, url_for
from pyoxigraph import NamedNode

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.reports.standings import game_result
from chesskb.kb.reports.standings import standings as event_standings
from chesskb.kb.vocab import DCTERMS_IRI

from . import context
from .errors import ServiceError
from .links import link_for
from .resources import Resource
from .rows import named
from .titles import titles_of

SOURCE_PAGE = 100  # games per source page


def _round_key(value: str | None) -> tuple[int, tuple[int | str, ...]]:
    parts = re.findall(r"\d+", value or "")
    return (0, tuple(int(p) for p in parts)) if parts else (1, (value or "",))


def listing_for(kind: str, resource: Resource, lang: str) -> dict[str, Any]:
    """The extra sections of a player, event, source or game page."""
    iri = NamedNode(resource.iri)
    if kind == "player":
        # the player's owl:sameAs cluster once (kb.merge.linking), whichever member's page is asked
        # for (queries/internal/player-page-*.rq); ratings and titles are the game's (issue 17)
        games: dict[tuple[str, str], dict[str, Any]] = {}
        game_rows = named("player-page-games", p=iri)
        position_rows = {r["pos"]: r for r in named("player-page-positions", p=iri)}
        titles = titles_of([*(row["m"] for row in game_rows), *position_rows], lang)
        for row in game_rows:  # one row per game and colour, whatever the labels
            games.setdefault(
                (row["m"], row["colour"]),
                {
                    "iri": row["m"],
                    "label": titles.get(row["m"], row["m"]),
                    "url": link_for(row["m"]),
                    "colour": row["colour"],
                    "result": row["result"],
                    "date": row["date"],
                    "elo": row["elo"],
                    "title": row["title"],
                    **_opponent(row["opponent"], row["opponentLabel"]),
                },
            )
        return {
            "name_variants": sorted({r["name"] for r in named("player-page-names", p=iri)}),
            "ratings": sorted({g["elo"] for g in games.values() if g["elo"]}, key=lambda x: (len(x), x)),
            "titles": sorted({g["title"] for g in games.values() if g["title"]}),
            "games": sorted(games.values(), key=lambda g: (g["date"] or "", g["label"])),
            "positions": [_position_hit(r, titles) for r in position_rows.values()],
        }
    if kind == "event":
        rows = named("event-page-games", e=iri)
        results: dict[str, set[str]] = defaultdict(set)
        for r in rows:
            results[r["m"]].add(r["result"] or "")
        event_games = list({r["m"]: {**r, "result": game_result(results[r["m"]]) or "*"} for r in rows}.values())
        titles = titles_of((row["m"] for row in rows), lang)
        by_round: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in event_games:
            by_round[r["round"] or "?"].append(
                {
                    "iri": r["m"],
                    "label": titles.get(r["m"], r["m"]),
                    "url": link_for(r["m"]),
                    "result": r["result"],
                    "white": r["whiteLabel"],
                    "white_url": link_for(r["white"]),
                    "black": r["blackLabel"],
                    "black_url": link_for(r["black"]),
                }
            )
        return {
            "rounds": [
                {"round": k, "games": sorted(v, key=lambda g: g["label"])}
                for k, v in sorted(by_round.items(), key=lambda kv: _round_key(kv[0]))
            ],
            **standings(event_games),
        }
    if kind == "source":
        return source_games(resource.iri, lang)
    if kind == "match":
        # an exercise opened from its game goes on to the next game's exercise of the same source
        minter = _minter()
        found = next((n for link in resource.links(DCTERMS_IRI + "source") if (n := minter.record_number(link))), None)
        ctx = (f"source/{minter.source(found[0]).value}", found[1]) if found else (None, 0)
        rows = named("match-positions", m=iri)
        titles = titles_of((r["pos"] for r in rows), lang)
        return {
            "positions": [{**_position_hit(r, titles), "url": context.link(r["pos"], ctx[0], ctx[1])} for r in rows]
        }
    return {}


def _opponent(iri: str | None, label: str | None) -> dict[str, str | None]:
    """The opponent column: nobody for the stand-in of a player the tags do not name (its stored label,
    "Unknown player (black)", is English prose and no name)."""
    if iri is None or _minter().is_placeholder(iri):
        return {"opponent": None, "opponent_url": None}
    return {"opponent": label, "opponent_url": link_for(iri)}


def _minter() -> IriMinter:
    """The served knowledge base's minter: it alone reads what an IRI stands for."""
    return IriMinter(current_app.config["BASE_IRI"])


def source_games(source_iri: str, lang: str) -> dict[str, Any]:
    """One page of a source's games in file order. Record IRIs are numbered (``IriMinter.source_record``), so
    a page is a lookup of 100 known IRIs, not a sort of every record of a 100k-game source."""
    page = max(request.args.get("page", 1, type=int) or 1, 1)
    first = (page - 1) * SOURCE_PAGE + 1
    minter = _minter()
    name = minter.source_of(source_iri)
    if name is None or minter.source(name).value != source_iri:
        raise ServiceError(400, f"not a source IRI: {source_iri!r}")
    records = [minter.source_record(name, n) for n in range(first, first + SOURCE_PAGE)]
    order = {record.value: k for k, record in enumerate(records)}  # the source's order, over all its files
    rows = sorted(named("source-page-games", rec=records), key=lambda r: order[r["rec"]])
    # "Next" only when the next page has a game (it used to lead to an empty page after the last one)
    more = bool(rows) and bool(named("source-page-games", rec=[minter.source_record(name, first + SOURCE_PAGE)]))
    titles = titles_of((r["m"] for r in rows), lang)
    return {
        "games": [
            {"iri": r["m"], "label": titles.get(r["m"], r["m"]), "url": link_for(r["m"]), "number": r["number"]}
            for r in rows
        ],
        "page": page,
        "next": url_for("pages.page", iri=source_iri, page=page + 1) if more else None,
        "previous": url_for("pages.page", iri=source_iri, page=page - 1) if page > 1 else None,
    }


def _position_hit(row: dict[str, Any], titles: dict[str, str]) -> dict[str, Any]:
    """A position card: its title in the page's language (``service.titles``), board and link."""
    iri = row["pos"]
    return {
        "iri": iri,
        "label": titles.get(iri, iri),
        "url": link_for(iri),
        "fen": row["fen"],
        "board": url_for("pages.board_image", fen=row["fen"], size=120),
    }


def standings(games: list[dict[str, Any]]) -> dict[str, Any]:
    """The event page's standings and crosstable, by the one rule of ``kb.reports.standings``."""
    table = event_standings(games)
    names = table["names"]
    return {
        "standings": [
            {
                "iri": p,
                "name": names[p],
                "url": link_for(p),
                "points": table["points"].get(p, 0.0),
                "played": table["played"].get(p, 0),
                "unfinished": table["unfinished"].get(p, 0),
            }
            for p in table["order"]
        ],
        "crosstable": [{"iri": p, "name": names[p], "cells": table["cells"][p]} for p in table["order"]],
    }
