"""Titles of positions and the records they come from, composed in the page's language from data.

The store's ``rdfs:label`` of a position is English prose the importer writes for other readers
("Mate in one — Anderssen vs Kieseritzky, London 1851, move 20"); a page never parses it back. It
builds its title here, one function per kind of title, from what the knowledge base holds: the
position's classes, ``cp:puzzleId``, the game it comes from and its ply, the source record's file,
game number and line. The words are the catalogue's (``service.i18n``), the class names the
ontology's labels in that language.
"""

from __future__ import annotations

import chess

from chesskb.kb.mapping.game import label_class
from chesskb.kb.mapping.iris import lichess_game_id
from chesskb.kb.vocab import CP

from .i18n import strings
from .links import THEME_CLASS_NAMES, prop_label
from .resources import Resource


def theme_class_title(resource: Resource, lang: str) -> str:
    """The class a position's title names (a mate first, else a theme, else its phase: the importer's
    rule, ``kb.mapping.game.label_class``), by its ontology label in ``lang``."""
    names = [name for name in (CP.name_of(t) for t in resource.types)
             if name in THEME_CLASS_NAMES and name != "Position"]
    return prop_label(CP.term(label_class(names)).value, lang)


def game_title(lang: str, *, label: str, url: str | None, has_players: bool) -> str:
    """A game by its players, place and year (the importer's match label: names, no prose), or a
    puzzle's lichess game, which has no players, by the id in its URL."""
    if url and not has_players:
        return strings(lang)["lichess_game"].format(id=lichess_game_id(url))
    return label


def match_title(match: Resource, lang: str) -> str:
    """``game_title`` of a game's page data."""
    return game_title(lang, label=match.label, url=match.first("gameUrl"),
                      has_players=bool(match.links("hasPlayerWhite")))


def origin_title(lang: str, *, puzzle_id: str | None, game: str | None, ply: str | None, fen: str | None,
                 fallback: str) -> str:
    """Where a position comes from, without its theme: ``problema de lichess 00UwP``, its game, or its
    game and move number when it is taken from inside a game; ``fallback`` when none is known."""
    s = strings(lang)
    if puzzle_id:
        return s["lichess_puzzle"].format(id=puzzle_id)
    if game is None:
        return fallback
    if ply is None or ply == "0":
        return game
    return s["game_move"].format(game=game, n=chess.Board(fen or chess.STARTING_FEN).fullmove_number)


def row_origin(row: dict[str, str | None], lang: str) -> str:
    """``origin_title`` of a listing's row: the columns ``?puzzle ?ply ?game ?gameUrl ?white ?fen`` that
    ``queries/internal/class-members.rq`` and ``course-page.rq`` select (``?label`` when none is known)."""
    game = row.get("game")
    if game is not None:
        game = game_title(lang, label=game, url=row.get("gameUrl"), has_players=row.get("white") is not None)
    return origin_title(lang, puzzle_id=row.get("puzzle"), game=game, ply=row.get("ply"), fen=row.get("fen"),
                        fallback=row.get("label") or row.get("p") or "")


def position_title(resource: Resource, match: Resource | None, lang: str, *, exercise: bool) -> str:
    """A position page's title. An exercise's names no theme (the theme is the answer; the trainer shows
    it once solved, issue 34 item 3); a game's first position is ``Posición inicial — <game>``, any
    other ``<class> — <origin>``."""
    puzzle_id, ply = resource.first("puzzleId"), resource.first("plyInGame")
    origin = origin_title(lang, puzzle_id=puzzle_id, game=match_title(match, lang) if match is not None else None,
                          ply=ply, fen=resource.first("fen"), fallback=resource.label)
    if exercise:
        return origin
    if match is not None and ply in (None, "0") and not puzzle_id:
        return f"{strings(lang)['start_position']} — {origin}"
    return f"{theme_class_title(resource, lang)} — {origin}"


def source_record_title(record: Resource, lang: str) -> str:
    """A game's place in its source file (``a.pgn, partida 3, línea 41``) from ``cp:sourceFile``,
    ``cp:gameNumber`` and ``cp:lineNumber``; its stored label when one of them is missing."""
    file, game, line = record.first("sourceFile"), record.first("gameNumber"), record.first("lineNumber")
    if file is None or game is None or line is None:
        return record.label
    return strings(lang)["game_line"].format(file=file, game=game, line=line)
