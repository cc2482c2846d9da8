"""Titles of positions, games, boards and source records, composed in the page's language from data.

The store's ``rdfs:label`` of a position is English prose the importer writes for other readers
("Mate in one — Anderssen vs Kieseritzky, London 1851, move 20"); a page never shows it or parses it
back. Every page that names such a resource (its own page, listings, search, find, player, event and
source pages, canned query cells, the linked-data table) asks ``titles_of`` for the titles of the IRIs it
shows: two queries (``queries/internal/title-facts.rq``, ``game-title-facts.rq``) give each one's classes,
``cp:puzzleId``, ply, FEN, its game's players, event, round and lichess URL, a record's file, game and
line, a source's name, and the functions below compose the title from them, one function per kind. The
words are the catalogue's (``service.i18n``), the class names the ontology's labels in that language.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import chess
from flask import current_app

from chesskb.kb.mapping.game import label_class
from chesskb.kb.mapping.iris import IriMinter, lichess_game_id
from chesskb.kb.vocab import CP

from .i18n import strings
from .links import THEME_CLASS_NAMES, prop_label
from .rows import named

#: Values PGN tags leave unknown (seed-000 §8.3): never part of a title.
UNKNOWN = ("", "?", "??", "????.??.??", "*")


#: How a game's title begins when its tags name neither player.
NOBODY = "? – ?"


def known(value: str | None) -> bool:
    """A value the tags really give: not "?", not an unknown date, not the unknown result."""
    return value is not None and value.strip() not in UNKNOWN


def theme_class_title(types: Iterable[str], lang: str) -> str:
    """The class a position's title names (a mate first, else a theme, else its phase: the importer's
    rule, ``kb.mapping.game.label_class``), by its ontology label in ``lang``; ``types`` are class IRIs."""
    names = [name for name in (CP.name_of(t) for t in types) if name in THEME_CLASS_NAMES and name != "Position"]
    return prop_label(CP.term(label_class(names)).value, lang)


def game_title(
    lang: str,
    *,
    white: str | None,
    black: str | None,
    event: str | None = None,
    round_: str | None = None,
    url: str | None = None,
) -> str:
    """A game by its players, event and round (``Anderssen – Kieseritzky, London, ronda 3``): no words
    of any language but "round". A lichess puzzle's game, which names no players, by the id in its URL."""
    if url and not (known(white) or known(black)):
        return strings(lang)["lichess_game"].format(id=lichess_game_id(url))
    if not (known(white) or known(black)):
        title = NOBODY
    else:
        title = f"{white if known(white) else '?'} – {black if known(black) else '?'}"
    if known(event):
        title += f", {event}"
    if known(round_):
        title += ", " + strings(lang)["round_n"].format(n=round_)
    return title


def origin_title(
    lang: str, *, puzzle_id: str | None, game: str | None, ply: str | None, fen: str | None, fallback: str
) -> str:
    """Where a position comes from, without its theme: ``problema de lichess 00UwP``, its game, or its
    game and move number (python-chess's, from the FEN) when it is taken from inside a game."""
    s = strings(lang)
    if puzzle_id:
        return s["lichess_puzzle"].format(id=puzzle_id)
    if game is None:
        return fallback
    if ply is None or ply == "0":
        return game
    return s["game_move"].format(game=game, n=chess.Board(fen or chess.STARTING_FEN).fullmove_number)


def source_record_title(lang: str, *, file: str, game: str, line: str) -> str:
    """A game's place in its source file: ``a.pgn, partida 3, línea 41``."""
    return strings(lang)["game_line"].format(file=file, game=game, line=line)


@dataclass(frozen=True)
class TitleFacts:
    """One row of ``title-facts.rq``: what a resource's title is composed of."""

    iri: str
    types: frozenset[str]  # class IRIs
    fen: str | None = None
    puzzle: str | None = None
    ply: str | None = None
    game: str | None = None  # the title of its game (or, for a game or board, its own game)
    file: str | None = None
    game_number: str | None = None
    line: str | None = None
    source_name: str | None = None
    placeholder: bool = False  # the stand-in for a player or event the tags do not name
    labels: frozenset[str] = frozenset()  # the stored rdfs:labels, which a page never shows as titles

    def has(self, name: str) -> bool:
        return CP.term(name).value in self.types


def position_title(facts: TitleFacts, lang: str, *, themed: bool = True) -> str:
    """A position's title. An exercise's names no theme (the theme is the answer; the trainer shows it
    once solved, issue 34 item 3), nor does one listed on its class's page (``themed=False``); a game's
    first position is ``Posición inicial — <game>``, any other ``<class> — <origin>``."""
    origin = origin_title(
        lang, puzzle_id=facts.puzzle, game=facts.game, ply=facts.ply, fen=facts.fen, fallback=strings(lang)["position"]
    )
    if not themed or facts.has("Exercise"):
        return origin
    if facts.game is not None and facts.ply in (None, "0") and not facts.puzzle:
        return f"{strings(lang)['start_position']} — {origin}"
    return f"{theme_class_title(facts.types, lang)} — {origin}"


def title_from_facts(facts: TitleFacts, lang: str, *, themed: bool = True) -> str | None:
    """The title of a position, game, board, source or source record, ``?`` for the stand-in of a player or
    event the tags do not name; None for anything else (a player's or an event's label is its name, which
    is data in every language)."""
    if facts.has("Position"):
        return position_title(facts, lang, themed=themed)
    if facts.has("Match") and facts.game is not None:
        return facts.game
    if facts.has("Board") and facts.game is not None:
        return strings(lang)["board_of"].format(game=facts.game)
    if facts.has("SourceRecord") and facts.file and facts.game_number and facts.line:
        return source_record_title(lang, file=facts.file, game=facts.game_number, line=facts.line)
    if facts.has("Source") and facts.source_name:
        return strings(lang)["source_named"].format(name=facts.source_name)
    if facts.placeholder:
        return "?"
    return None


def game_of_row(row: dict[str, str | None], lang: str, minter: IriMinter) -> str:
    """The title of the game of one ``game-title-facts.rq`` row; stand-ins for a player or event the tags do
    not name (``IriMinter.is_placeholder``) name nobody."""

    def named_by(iri_column: str, name_column: str) -> str | None:
        iri = row.get(iri_column)
        return row.get(name_column) if iri and not minter.is_placeholder(iri) else None

    round_ = row.get("round") if known(row.get("round")) else row.get("roundNumber")
    return game_title(
        lang,
        white=named_by("white", "whiteName"),
        black=named_by("black", "blackName"),
        event=named_by("event", "eventName"),
        round_=round_,
        url=row.get("gameUrl"),
    )


def facts_of_row(row: dict[str, str | None], game: str | None, minter: IriMinter) -> TitleFacts:
    """``TitleFacts`` of one ``title-facts.rq`` row, with the title of its game (``game_of_row``)."""
    return TitleFacts(
        iri=row["s"] or "",
        types=frozenset((row.get("types") or "").split()),
        fen=row.get("fen"),
        puzzle=row.get("puzzle"),
        ply=row.get("ply"),
        game=game,
        file=row.get("sourceFile"),
        game_number=row.get("gameNumber"),
        line=row.get("lineNumber"),
        source_name=row.get("sourceName"),
        placeholder=minter.is_placeholder(row["s"] or ""),
        labels=frozenset((row.get("labels") or "").split("\n")) - {""},
    )


def _game_of(row: dict[str, str | None]) -> str | None:
    """The game a ``title-facts.rq`` row's resource belongs to: a position's, a board's, or a game itself."""
    if CP.Match.value in (row.get("types") or "").split():
        return row["s"]
    return row.get("m") or row.get("boardOf")


def facts_of(iris: Iterable[str | None], lang: str) -> dict[str, TitleFacts]:
    """IRI -> what its title is composed of, for those of ``iris`` the store knows: one query for the
    resources, one for their games (``queries/internal/title-facts.rq``, ``game-title-facts.rq``)."""
    wanted = list(dict.fromkeys(iri for iri in iris if iri))
    if not wanted:
        return {}
    minter = IriMinter(current_app.config["BASE_IRI"])
    rows = named("title-facts", s=wanted)
    game_iris = list(dict.fromkeys(game for row in rows if (game := _game_of(row))))
    games = (
        {row["m"]: game_of_row(row, lang, minter) for row in named("game-title-facts", m=game_iris)}
        if game_iris
        else {}
    )
    return {row["s"]: facts_of_row(row, games.get(_game_of(row) or ""), minter) for row in rows}


def titles_of(iris: Iterable[str | None], lang: str, *, themed: bool = True) -> dict[str, str]:
    """IRI -> its title in ``lang``, for the positions, games, boards and source records among ``iris``;
    other IRIs are left out, for the caller to name by their label (a player's, an event's name)."""
    found: dict[str, str] = {}
    for iri, facts in facts_of(iris, lang).items():
        title = title_from_facts(facts, lang, themed=themed)
        if title is not None:
            found[iri] = title
    return found
