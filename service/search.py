"""Search: one box for players, events, openings, ECO codes, theme classes and FENs.

Queries bind the user's text as typed literals (never pasted into SPARQL); a FEN is looked up by the
``positionKey`` values it can have (an index hit, not a prefix scan).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypedDict

import chess
from flask import current_app, url_for
from pyoxigraph import Literal, NamedNode

from chesskb.kb.analysis.board_facts import position_key
from chesskb.kb.vocab import CP, ONTOLOGY_IRI

from .classes import THEME_NAMES
from .i18n import current_lang
from .links import class_label, link_for, opening_title
from .rows import named
from .titles import NOBODY, titles_of

# Query shapes matter at 100k positions (bench/pages.py): Oxigraph joins the result of a UNION with
# the patterns after it by scanning those patterns whole, so every pattern sits inside the branches or
# in OPTIONAL/FILTER EXISTS, and each search starts from the one property it filters on
# (queries/internal/search-*.rq).
SEARCHES: dict[str, str] = {"players": "search-players", "events": "search-events", "openings": "search-openings"}
_ECO = re.compile(r"^[A-Ea-e][0-9]{2}$")
_KEY_TEXT = re.compile(r"^[A-Za-z0-9/ -]+$")


class _HitKeys(TypedDict):
    iri: str
    label: str
    url: str | None


class SearchHit(_HitKeys, total=False):
    """One hit of ``/search`` and ``/search.json``: a position's also has its FEN and board image. ``opening``,
    the opening a game was found by, is folded into its label before the page is built (``_name_in``)."""

    fen: str
    board: str
    opening: str


class SearchResults(TypedDict):
    """``/search.json``: the search text as searched, the hits per group (positions, games, themes, players,
    events, openings: only the groups the text was searched in), and how many hits in all."""

    q: str
    groups: dict[str, list[SearchHit]]
    total: int


def fen_keys(text: str) -> list[str]:
    """The ``positionKey`` values a FEN (or only its piece placement, with or without the side to
    move) can have: exact for a full FEN; for a placement, every side and every castling right the
    placement allows (no en passant). Looking keys up is an index hit; a prefix scan is not."""
    fields = text.split()
    try:
        if len(fields) >= 4:
            return [position_key(chess.Board(" ".join(fields[:4]) + " 0 1"))]
        board = chess.Board(fields[0] + " w - - 0 1")
    except ValueError:
        return []
    sides = [fields[1]] if len(fields) > 1 and fields[1] in ("w", "b") else ["w", "b"]
    keys = []
    for side in sides:
        board.turn = side == "w"
        for mask in range(16):
            rights = "".join(c for i, c in enumerate("KQkq") if mask & (1 << i)) or "-"
            board.set_castling_fen(rights)
            if board.clean_castling_rights() == board.castling_rights:
                keys.append(position_key(board))
    return list(dict.fromkeys(keys))


def search_data(q: str) -> SearchResults:
    q = " ".join(q.split())[:200]
    groups: dict[str, list[SearchHit]] = {}
    if q:
        if "/" in q:
            keys = [k for k in fen_keys(q) if _KEY_TEXT.match(k)]
            if keys:
                groups["positions"] = [
                    {
                        "iri": r["s"],
                        "label": r["s"],
                        "url": link_for(r["s"]),
                        "fen": r["fen"],
                        "board": url_for("pages.board_image", fen=r["fen"], size=120),
                    }
                    for r in named("search-fen", key=keys)
                ]
        elif _ECO.match(q):
            groups["games"] = _unique(_opening_hit(r) for r in named("search-eco", q=Literal(q.upper())))
        if len(q) >= 2 and "/" not in q:
            needle = Literal(q.lower())
            themes = _theme_hits(needle)
            if themes:
                groups["themes"] = themes
            theme_labels = {label.lower() for labels in _theme_labels().values() for label in labels}
            for group, query in SEARCHES.items():
                rows = named(query, q=needle)
                if group == "players":  # "Mate in one" in a White tag is not a player to find
                    rows = [r for r in rows if (r["label"] or "").lower() not in theme_labels]
                hits = _unique((_opening_hit if group == "openings" else _hit)(r) for r in rows)
                if hits:
                    groups[group] = groups.get(group, []) + [h for h in hits if h not in groups.get(group, [])]
    _name_in(groups, current_lang())
    return {"q": q, "groups": groups, "total": sum(len(v) for v in groups.values())}


def _name_in(groups: dict[str, list[SearchHit]], lang: str) -> None:
    """Name the positions and games found by their titles in ``lang`` (``service.titles``), a game found
    by its opening by the opening first; players, events and themes are named by their own labels."""
    hits = [hit for group in ("positions", "games", "openings") for hit in groups.get(group, [])]
    titles = titles_of((hit["iri"] for hit in hits), lang)
    for hit in hits:
        title = titles.get(hit["iri"], hit["label"])
        head = hit.pop("opening", "")
        hit["label"] = (head if title.startswith(NOBODY) else f"{head} — {title}") if head else title


def _hit(row: dict[str, Any]) -> SearchHit:
    return {"iri": row["s"], "label": row["label"] or row["s"], "url": link_for(row["s"])}


def _opening_hit(row: dict[str, Any]) -> SearchHit:
    """A game found by its opening: named by it (and by its players, when they are known: ``_name_in``)."""
    return {
        "iri": row["s"],
        "label": row["s"],
        "url": link_for(row["s"]),
        "opening": opening_title(row.get("eco"), row.get("opening"), row.get("variation")),
    }


def _unique(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """One row per resource (a game with an opening and a variation that both match is one hit)."""
    seen: dict[str, SearchHit] = {}
    for hit in hits:
        seen.setdefault(hit["iri"], hit)
    return list(seen.values())


def _theme_labels() -> dict[str, list[str]]:
    """Every label and synonym of each theme class, both languages (read once per app)."""
    cache = current_app.extensions.get("chesskb.theme_labels")
    if cache is None:
        cache = {}
        rows = named("theme-labels", ontology=NamedNode(ONTOLOGY_IRI))
        for row in rows:
            name = CP.name_of(row["class"]) or ""
            if name in THEME_NAMES:
                cache.setdefault(name, []).append(row["text"])
        current_app.extensions["chesskb.theme_labels"] = cache
    return cache


def _theme_hits(needle: Literal) -> list[SearchHit]:
    names = []
    for row in named("search-themes", q=needle, ontology=NamedNode(ONTOLOGY_IRI)):
        name = CP.name_of(row["class"]) or ""
        if name in THEME_NAMES and name not in names:
            names.append(name)
    return [{"iri": CP.term(n).value, "label": class_label(n), "url": link_for(CP.term(n).value)} for n in names]
