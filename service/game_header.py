"""A game page's header: who played (with this game's titles and ratings), where, when, the result.

The title is built from the game's data in the page's language (players, event, round) by the rule
every page names a game by (``service.titles.game_title``), never from its stored English label: that
label names the Site tag when the event has none ("Kasparov, Garry vs Deep Blue (Computer), 01 1997",
where "01" is the game number ChessBase put in Site). Site is shown in the header as what it is. Values
the tags leave unknown ("?", "????.??.??", "*") are not shown.
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.vocab import per_game_property

from .links import link_for
from .resources import Resource
from .titles import game_title, known


def _player(match: Resource, colour: str, minter: IriMinter) -> dict[str, Any] | None:
    links = match.links("hasPlayerWhite" if colour == "white" else "hasPlayerBlack")
    if not links or minter.is_placeholder(links[0]):
        return None
    title = match.first(per_game_property(colour, "title"))
    elo = match.first(per_game_property(colour, "elo"))
    return {
        "name": match.labels.get(links[0], links[0]),
        "url": link_for(links[0]),
        "colour": colour,
        "title": title if known(title) else None,
        "elo": elo if known(elo) else None,
    }


def game_header(match: Resource, lang: str) -> dict[str, Any]:
    """The header's fields and the page title, in ``lang``."""
    minter = IriMinter(current_app.config["BASE_IRI"])
    white, black = _player(match, "white", minter), _player(match, "black", minter)
    event_links = [link for link in match.links("hasEvent") if not minter.is_placeholder(link)]
    event = match.linked(event_links[0], lang) if event_links else None
    event_name = (event.first("eventName") or event.label) if event is not None else None
    # Site is the event's (the ontology's): an event whose games gave several (ChessBase's game numbers
    # "01" … "06") has no one site for this game, so none is shown rather than another game's.
    sites = {v.text for v in event.get("site") if known(v.text)} if event is not None else set()
    # Round as tagged, else the number the importer read from such a Site (cp:roundNumber).
    round_ = match.first("round") if known(match.first("round")) else match.first("roundNumber")
    date, result = match.first("date"), match.first("result")
    return {
        "title": game_title(
            lang,
            white=white["name"] if white else None,
            black=black["name"] if black else None,
            event=event_name,
            round_=round_,
            url=match.first("gameUrl"),
        ),
        "white": white,
        "black": black,
        "event": {"name": event_name, "url": link_for(event.iri)} if event is not None and known(event_name) else None,
        "round": round_ if known(round_) else None,
        "date": date if known(date) else None,
        "site": next(iter(sites)) if len(sites) == 1 else None,
        "result": result if known(result) else None,
    }
