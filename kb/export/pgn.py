"""``chesskb export --format pgn``: a source (or the whole KB) back as PGN, so exercises travel to other
chess software.

Each exercise position becomes one game: the tags rebuilt from its Match, Event and players as the
source stated them (what the source's own named graph says, in either store layout, so another
source's spelling or date never leaks in), ``SetUp``/``FEN`` when it does not start from the initial
position, and its movetext (solution and teacher comments) as imported. Tags the ontology has no property for were kept
verbatim on import (``cp:pgnTag``) and are written back as they were.

Ratings, titles, FIDE IDs … of the players are the game's own (``cp:whiteElo`` … on the Match),
so each game gets exactly the player tags it had. What does not come back: a lichess puzzle is
written as a PGN exercise (its start position and solution, with ``PuzzleId``/``Rating``/``Themes``
tags), so re-importing it as PGN gives a game-identified position, not the lichess-identified one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import TextIO

import chess
from pyoxigraph import NamedNode

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.reading.pgn_tokens import escape_tag_value, unescape_tag_value
from chesskb.kb.reading.tags import TAG_TABLE
from chesskb.kb.store import Store, StoreError
from chesskb.kb.vocab import PER_GAME_PLAYER_TAGS, per_game_property
from chesskb.queries.executor import select
from chesskb.queries.source_statements import graphs_of

_TAG_PAIR = re.compile(r'^\[(\w+) "(.*)"\]$', re.DOTALL)
SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
# Tags rebuilt from the tag table, by the entity that holds them.
_TAGS_BY_ENTITY: dict[str, list[tuple[str, str]]] = defaultdict(list)
for _tag, _spec in TAG_TABLE.items():
    if _tag not in ("FEN", "SetUp"):
        _TAGS_BY_ENTITY[_spec.entity].append((_tag, _spec.prop))


def _values(store: Store, graph: NamedNode, subject: str) -> dict[str, list[str]]:
    """Every literal the source of ``graph`` states about a subject, by property local name."""
    inferred = graphs_of(graph)[1]
    rows = select(store, "literal-values", {"graph": graph, "inferred": inferred, "subject": NamedNode(subject)})
    out: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        out[re.split(r"[#/]", row["p"].value)[-1]].append(row["o"].value)
    return out


def _pgn_date(value: str) -> str:
    """A cleaned date (``1988``, ``1988.11``) back in PGN form (``1988.??.??``, ``1988.11.??``)."""
    parts = value.split(".")
    if not all(part.isdigit() for part in parts) or len(parts) > 3:
        return value
    return ".".join(parts + ["??"] * (3 - len(parts)))


def exercises(store: Store, graph: NamedNode) -> Iterator[dict[str, str | None]]:
    rows = select(store, "source-exercises", {"graph": graph, "inferred": graphs_of(graph)[1]})
    for row in rows:
        yield {
            name: (row[name].value if row[name] is not None else None)
            for name in ("position", "fen", "moves", "match", "event", "white", "black", "board", "ply")
        }


def game_text(store: Store, graph: NamedNode, exercise: dict[str, str | None]) -> str:
    tags: dict[str, str] = {}
    extra: list[str] = []
    entities = {
        "match": exercise["match"],
        "event": exercise["event"],
        "white": exercise["white"],
        "black": exercise["black"],
        "board": exercise["board"],
        "position": exercise["position"],
    }
    as_written = _values(store, graph, exercise["match"]).get("eventTagAsWritten", []) if exercise["match"] else []
    for entity, subject in entities.items():
        if subject is None or (entity == "event" and as_written):
            continue  # the game's own event tags (one Event gathers games with other sites) come below
        values = _values(store, graph, subject)
        game_values = _values(store, graph, exercise["match"]) if exercise["match"] else {}
        for tag, prop in _TAGS_BY_ENTITY.get(entity, ()):
            if entity in ("white", "black") and prop in PER_GAME_PLAYER_TAGS:
                # a rating, title … as this game's tags gave it (stated on the Match, issue 17)
                per_game = sorted(game_values.get(per_game_property(entity, prop), []))
                if per_game:
                    tags[tag] = per_game[0]
                continue
            found = sorted(values.get(prop, []))
            # A game-level value is the game's; a player's name has several spellings only when the
            # source wrote it several ways (any is right); a rating or title is written only when the
            # source gave one value (another game's rating would be wrong).
            if len(found) == 1 or (found and (entity in ("match", "event", "board") or prop == "name")):
                tags[tag] = found[0]
        if entity in ("white", "black") and "name" not in values:
            written = [v for k, vs in values.items() if k == "altLabel" for v in vs]
            if len(written) == 1:
                tags["White" if entity == "white" else "Black"] = written[0]
        if entity == "match":
            extra = sorted(values.get("pgnTag", []))
        if entity == "position":
            puzzle = {key: values.get(key, []) for key in ("puzzleId", "puzzleRating", "sourceThemeLabel")}
            if puzzle["puzzleId"]:
                tags["PuzzleId"] = puzzle["puzzleId"][0]
                if puzzle["puzzleRating"]:
                    tags["Rating"] = puzzle["puzzleRating"][0]
                tags["Themes"] = " ".join(sorted(puzzle["sourceThemeLabel"]))
    for tag_line in as_written:
        match = _TAG_PAIR.match(tag_line)
        if match:
            tags[match.group(1)] = unescape_tag_value(match.group(2))  # as written: escaped once, below
    if "Date" in tags:
        tags["Date"] = _pgn_date(tags["Date"])
    fen = exercise["fen"] or chess.STARTING_FEN
    header = [f'[{tag} "{escape_tag_value(tags.get(tag, "?"))}"]' for tag in SEVEN_TAG_ROSTER]
    header += [
        f'[{tag} "{escape_tag_value(value)}"]' for tag, value in sorted(tags.items()) if tag not in SEVEN_TAG_ROSTER
    ]
    verbatim_fen = next((t for t in extra if t.startswith("[FEN ")), None)
    extra = [t for t in extra if not t.startswith("[FEN ")]
    header += extra
    if verbatim_fen is not None or fen != chess.STARTING_FEN:
        header += ['[SetUp "1"]', verbatim_fen or f'[FEN "{fen}"]']
    result = tags.get("Result", "*")
    moves = (exercise["moves"] or "").strip()
    return "\n".join(header) + "\n\n" + (f"{moves} {result}" if moves else result) + "\n"


def write_pgn(store: Store, output: TextIO, *, source: str | None = None, base_iri: str | None = None) -> int:
    """Write the exercises of ``source`` (or of every source) as PGN; returns the number of games."""
    minter = IriMinter(base_iri)
    if source is not None:
        graph = minter.source_graph(source)
        if graph not in store.named_graphs():
            raise StoreError(f"no source named {source!r} in {store.location}")
        graphs = [graph]
    else:
        graphs = [g for g in store.named_graphs() if minter.is_source_graph(g)]
    count = 0
    for graph in graphs:
        for exercise in exercises(store, graph):
            output.write(game_text(store, graph, exercise))
            output.write("\n")
            count += 1
    return count
