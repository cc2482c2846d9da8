"""A game for the viewer on its Match page: the moves with comments, NAGs and variations, and the
exercises taken from it, marked where they arise.

The game's moves are kept with its start position (``cp:move`` on the position at ply 0, or on the
Match itself); python-chess replays them here (``boards.game_tree``), so the page carries every
FEN and the script only draws them: the viewer works in the static site from ``file://`` too.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from typing import Any

import chess
from pyoxigraph import NamedNode

from chesskb.kb.analysis.board_facts import position_key
from chesskb.kb.store.base import Queryable
from chesskb.queries.executor import select

from . import boards
from .titles import titles_of


def _rows(store: Queryable, match_iri: str) -> list[dict[str, Any]]:
    """The game's text: on the Match, or on its start position (ply 0); exercises are its other
    positions (``queries/internal/game-text.rq``). ``store`` is what the page reads through."""
    result = select(store, "game-text", {"m": NamedNode(match_iri)})
    names = [v.value for v in result.variables]
    return [{n: (None if s[n] is None else s[n].value) for n in names} for s in result]


def _start(rows: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(start FEN, movetext) of the game: the Match's own text, else its ply-0 position's (its moves
    as SAN from the stored UCI line when it has no text)."""
    for row in rows:
        if row["pos"] == row["m"] and row["move"]:
            return row["fen"] or chess.STARTING_FEN, row["move"]
    for row in rows:
        if row["ply"] in ("0", None) and row["pos"] != row["m"] and (row["move"] or row["uci"]):
            if row["move"]:
                return row["fen"], row["move"]
            board = chess.Board(row["fen"])
            try:
                return row["fen"], board.variation_san([chess.Move.from_uci(u) for u in row["uci"].split()])
            except ValueError:
                return None
    return None


def game_view(store: Queryable, match_iri: str, lang: str, link: Callable[[str], str | None]) -> dict[str, Any] | None:
    """The viewer's data for one Match, or None when the store has no moves for it.

    ``link(iri)`` gives the page of an exercise. Exercises are marked at the node whose position
    is theirs (board, side, castling, en passant), on the main line first."""
    rows = _rows(store, match_iri)
    start = _start(rows)
    if start is None:
        return None
    try:
        tree = boards.game_tree(start[0], start[1], lang)
    except ValueError:
        return None
    if tree is None or len(tree["nodes"]) < 2:
        return None
    by_key: dict[str, int] = {}
    for node in sorted(tree["nodes"], key=lambda n: (not n["main"], n["id"])):
        by_key.setdefault(_key(node["fen"]), node["id"])
    exercises = []
    titles = titles_of((row["pos"] for row in rows), lang)
    for row in rows:
        if row["pos"] == row["m"] or row["ply"] in ("0", None) or not row["fen"]:
            continue
        node = by_key.get(_key(row["fen"]))
        if node is not None:
            exercises.append(
                {"node": node, "iri": row["pos"], "url": link(row["pos"]), "label": titles.get(row["pos"], row["pos"])}
            )
    exercises.sort(key=lambda e: e["node"])
    return {**tree, "exercises": exercises}


def for_page(view: dict[str, Any]) -> dict[str, Any]:
    """What the HTML page adds to the data: the move list's tokens and the board both ways round."""
    board = chess.Board(view["fen"])
    return {
        "tokens": move_tokens(view, {e["node"] for e in view["exercises"]}),
        "svg": boards.board_svg(board, flipped=False),
        "svg_flipped": boards.board_svg(board, flipped=True),
    }


def _key(fen: str) -> str:
    """The analysis's own position key, so an exercise stored with another en-passant field or move
    counters is still found at its node."""
    return position_key(chess.Board(fen))


def move_tokens(tree: dict[str, Any], marked: Set[int] = frozenset()) -> list[dict[str, Any]]:
    """The move list as PGN prints it, as tokens for the template: ``move`` (with its number where
    PGN writes one), ``comment``, ``open``/``close`` around a variation, ``exercise`` after the node
    where an exercise starts."""
    nodes = tree["nodes"]
    out: list[dict[str, Any]] = []
    if nodes[0]["comment"]:
        out.append({"kind": "comment", "text": nodes[0]["comment"], "node": 0})
    if 0 in marked:
        out.append({"kind": "exercise", "node": 0})

    def line(node_id: int, depth: int) -> None:
        need_number = True
        while True:
            node = nodes[node_id]
            if node["before"]:
                out.append({"kind": "comment", "text": node["before"], "node": node_id})
                need_number = True
            white = not node["number"].endswith("...")
            out.append(
                {
                    "kind": "move",
                    "node": node_id,
                    "san": node["san"],
                    "nags": node["nags"],
                    "number": node["number"] if white or need_number else "",
                    "main": node["main"],
                    "depth": depth,
                }
            )
            need_number = False
            if node["comment"]:
                out.append({"kind": "comment", "text": node["comment"], "node": node_id})
                need_number = True
            if node_id in marked:
                out.append({"kind": "exercise", "node": node_id})
            parent = nodes[node["parent"]]
            if parent["children"] and parent["children"][0] == node_id:
                for alternative in parent["children"][1:]:
                    out.append({"kind": "open", "depth": depth + 1})
                    line(alternative, depth + 1)
                    out.append({"kind": "close", "depth": depth + 1})
                    need_number = True
            if not node["children"]:
                return
            node_id = node["children"][0]

    if nodes[0]["children"]:
        line(nodes[0]["children"][0], 0)
    return out


def move_into(store: Queryable, match_iri: str | None, fen: str) -> tuple[str, str] | None:
    """The game's move that led to ``fen`` (an exercise taken from a game) and the FEN before it, or None."""
    if not match_iri:
        return None
    start = _start(_rows(store, match_iri))
    if start is None:
        return None
    try:
        return boards.move_into(boards.game_tree(start[0], start[1]), fen)
    except ValueError:
        return None
