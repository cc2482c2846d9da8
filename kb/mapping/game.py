"""Quads for one game or puzzle: Match, Event, Board, two Players, Position, provenance."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import chess
from pyoxigraph import Literal, NamedNode, Quad

from chesskb.kb.analysis import FactValue, PositionAnalysis
from chesskb.kb.analysis.difficulty import estimate_difficulty
from chesskb.kb.analysis.exercises import ThemeAssessment
from chesskb.kb.analysis.mining import MinedExercise
from chesskb.kb.analysis.themes import ancestors, type_position_for
from chesskb.kb.mapping.identity import game_identity
from chesskb.kb.mapping.iris import IriMinter, lichess_game_id
from chesskb.kb.reading.countries import country_code
from chesskb.kb.reading.names import display_name, is_person, name_key
from chesskb.kb.reading.pgn_tokens import escape_tag_value
from chesskb.kb.reading.records import GameRecord, board_at
from chesskb.kb.reading.tags import TAG_TABLE, Colour, MappedTags, is_unknown, map_tags, round_and_board
from chesskb.kb.vocab import (
    CP,
    DCTERMS,
    INVERSE_PROPERTIES,
    OWL,
    PHASE_CLASSES,
    PLAYER_IDENTITY_PROPERTIES,
    RDF,
    RDFS,
    SKOS,
    XSD,
    per_game_property,
)


@dataclass
class MappingContext:
    """What every record of one import shares: IRIs, the source and its graphs, user themes."""

    minter: IriMinter
    source: str
    user_themes: tuple[str, ...] = ()
    graph: NamedNode = field(init=False)
    inferred: NamedNode = field(init=False)

    def __post_init__(self) -> None:
        self.graph = self.minter.source_graph(self.source)
        self.inferred = self.minter.inferred_graph(self.source)


def literal(value: bool | int | str | dt.date | dt.datetime | dt.time) -> Literal:
    """A Python value as a typed literal (bool before int: ``True`` is an ``int`` too)."""
    if type(value) is str:  # most values: no conversion, no datatype (the tests below are the slow path)
        return Literal(value)
    kind = type(value)
    if kind is int or kind is bool:
        known = _SMALL_LITERALS.get((kind, value))
        if known is not None:
            return known
    if isinstance(value, bool):
        return Literal("true" if value else "false", datatype=XSD.boolean)
    if isinstance(value, int):
        return Literal(str(value), datatype=XSD.integer)
    if isinstance(value, dt.datetime):
        return Literal(value.isoformat().replace("+00:00", "Z"), datatype=XSD.dateTime)
    if isinstance(value, dt.date):
        return Literal(value.isoformat(), datatype=XSD.date)
    if isinstance(value, dt.time):
        return Literal(value.isoformat(), datatype=XSD.time)
    return Literal(str(value))


#: The literals of ``False``, ``True`` and the integers a position's facts take most (counts, material,
#: move numbers, ratings), made once per process instead of once per statement.
_SMALL_LITERALS: dict[tuple[type, object], Literal] = {}  # looked up by any value
_SMALL_LITERALS.update(
    {(bool, flag): Literal("true" if flag else "false", datatype=XSD.boolean) for flag in (False, True)}
)
_SMALL_LITERALS.update({(int, number): Literal(str(number), datatype=XSD.integer) for number in range(-64, 4096)})


def class_label(name: str) -> str:
    """``MateInTwo`` -> ``Mate in two`` (labels of individuals; the ontology has the real ones)."""
    words = re.findall(r"[A-Z][a-z]*|[0-9]+|[a-z]+", name)
    return " ".join([words[0]] + [w.lower() for w in words[1:]]) if words else name


class _Quads:
    """A small accumulator so the mapping code reads as a list of statements.

    It runs some 100 times per record, so it keeps its graphs and ``append`` at hand and finds
    terms in per-process tables (``_types_of``, ``CP``'s own) instead of rebuilding them per statement."""

    def __init__(self, ctx: MappingContext) -> None:
        self.ctx = ctx
        self.items: list[Quad] = []
        self._graph = ctx.graph
        self._inferred = ctx.inferred
        self._append = self.items.append

    def add(self, subject: NamedNode, predicate: NamedNode, obj: NamedNode | Literal) -> None:
        self._append(Quad(subject, predicate, obj, self._graph))

    def value(self, subject: NamedNode, prop: str, value: bool | int | str | dt.date | dt.datetime | dt.time) -> None:
        self._append(Quad(subject, _cp(prop), literal(value), self._graph))

    def link(self, subject: NamedNode, prop: str, obj: NamedNode) -> None:
        self._append(Quad(subject, _cp(prop), obj, self._graph))
        inverse = INVERSE_PROPERTIES.get(prop)  # a link's inverse is stated in the inferred graph
        if inverse is not None:
            self._append(Quad(obj, _cp(inverse), subject, self._inferred))

    def types(self, subject: NamedNode, classes: Iterable[str]) -> None:
        asserted, implied = _types_of(tuple(classes))
        graph, inferred, append, rdf_type = self._graph, self._inferred, self._append, _RDF_TYPE
        for node in asserted:
            append(Quad(subject, rdf_type, node, graph))
        for node in implied:
            append(Quad(subject, rdf_type, node, inferred))


_RDF_TYPE = RDF.type
_cp = CP.term


@lru_cache(maxsize=4096)
def _types_of(classes: tuple[str, ...]) -> tuple[tuple[NamedNode, ...], tuple[NamedNode, ...]]:
    """Classes as asked (``_Quads.types``) -> the class terms asserted and those implied (their
    superclasses not asserted too); a few hundred combinations occur, each worked out once.

    The implied ones are stored (in the source's inferred graph and the merge), not left to
    ``rdf:type/rdfs:subClassOf*`` at query time: measured (``bench/superclass_types.py``, bench/README.md
    "Stored superclass types"), they are about 6 % of a puzzle's stored quads and 8 % of its bytes, while the
    path makes the class questions, the class pages' order and every write's class count slower or different."""
    asserted = list(dict.fromkeys(classes))
    implied = dict.fromkeys(a for name in asserted for a in ancestors(name) if a not in asserted)
    return tuple(CP.term(name) for name in asserted), tuple(CP.term(name) for name in implied)


def source_quads(ctx: MappingContext) -> list[Quad]:
    """The ``cp:Source`` individual itself (its counts and checksum live in the meta graph)."""
    source = ctx.minter.source(ctx.source)
    return [
        Quad(source, RDF.type, CP.Source, ctx.graph),
        Quad(source, CP.sourceName, Literal(ctx.source), ctx.graph),
        Quad(source, RDFS.label, Literal(f"Source {ctx.source}"), ctx.graph),
    ]


#: An exercise mined from a game (``kb.analysis.mining``) with the analysis of its position and solution.
MinedPosition = tuple[MinedExercise, PositionAnalysis]


def record_quads(
    record: GameRecord,
    analysis: PositionAnalysis,
    ctx: MappingContext,
    mined: Sequence[MinedPosition],
    themes: ThemeAssessment,
) -> list[Quad]:
    """All quads for one record (asserted in the source graph, implied in the inferred graph);
    ``mined`` adds a Position of the game for each exercise the engine found in it; ``themes`` is
    ``kb.analysis.exercises.assess_themes``'s verdict, worked out by the caller (it may ask the engine, and
    mapping does no I/O)."""
    out = _Quads(ctx)
    if record.puzzle is not None:
        _map_puzzle(record, analysis, ctx, out, themes)
    else:
        _map_game(record, analysis, ctx, out, themes, mined)
    return out.items


# --- PGN games ------------------------------------------------------------------------------

_STANDARD_EPD = chess.Board().epd()
_STANDARD_BOARD = chess.BaseBoard()


def _standard_start(fen: str) -> bool:
    """Does the game start from the standard position (as its EPD says: pieces, side, castling, en passant)?
    Pieces are compared first, as bitboards: most setups differ there, and writing their EPD costs more."""
    board = board_at(fen)
    return chess.BaseBoard.__eq__(board, _STANDARD_BOARD) and board.epd() == _STANDARD_EPD


def _map_game(
    record: GameRecord,
    analysis: PositionAnalysis,
    ctx: MappingContext,
    out: _Quads,
    themes: ThemeAssessment,
    mined: Sequence[MinedPosition] = (),
) -> None:
    tags = map_tags(record.headers)
    minter = ctx.minter
    standard = _standard_start(record.start_fen)
    identity = game_identity(
        str(analysis.facts.get("positionKey", record.start_fen)),
        standard,
        [move.uci() for move in record.solution],
        record.headers,
    )
    key = identity.key
    match, position, board = minter.match(key), minter.position(key, 0), minter.board(key)
    event = _map_event(tags, key, ctx, out)
    white = _map_player(tags, "white", key, ctx, out)
    black = _map_player(tags, "black", key, ctx, out)

    white_name = _name_or(tags, "white", "?")
    black_name = _name_or(tags, "black", "?")
    # Named by its event, never its Site: ChessBase puts the game number there ("01"), others a town.
    place = tags.get("event", "eventName")
    year = tags.get("match", "year")
    match_label = (
        f"{display_name(white_name)} vs {display_name(black_name)}"
        + (f", {place}" if place else "")
        + (f" {year}" if year else "")
    )

    out.types(match, ["Match"])
    out.add(match, RDFS.label, Literal(match_label))
    for value in tags.for_entity("match"):
        out.value(match, value.prop, value.value)
    for colour in ("white", "black"):  # ratings, titles … as the tags give them for this game
        for value in tags.for_entity(colour):
            if value.prop != "name":
                out.value(match, per_game_property(colour, value.prop), value.value)
    round_from_site = _round_from_site(tags)
    if round_from_site is not None:
        out.value(match, "roundNumber", round_from_site)
    out.value(match, "gameKey", key)
    out.value(match, "movesKey", identity.moves_key)
    annotator = record.headers.get("Annotator", "").strip()
    if annotator and annotator != "?" and name_key(annotator):
        out.value(match, "annotatorKey", name_key(annotator))
    out.value(match, "fullMoveCount", _full_moves(record))
    for tag, raw in tags.extra:
        out.value(match, "pgnTag", f'[{tag} "{escape_tag_value(raw)}"]')
    for tag, raw in record.headers.items():  # the event's tags as this record wrote them (for the export)
        spec = TAG_TABLE.get(tag)
        if spec is not None and spec.entity == "event" and not is_unknown(raw):
            out.add(match, CP.eventTagAsWritten, Literal(f'[{tag} "{escape_tag_value(raw)}"]'))
    fen_tag = record.headers.get("FEN")
    if fen_tag is not None and fen_tag.strip() != record.start_fen:
        out.value(match, "pgnTag", f'[FEN "{escape_tag_value(fen_tag)}"]')
    for prop, obj in (("hasEvent", event), ("hasBoard", board), ("hasPlayerWhite", white), ("hasPlayerBlack", black)):
        out.link(match, prop, obj)
    _map_provenance(record, match, ctx, out)

    out.types(board, ["Board"])
    out.add(board, RDFS.label, Literal(f"Board of {match_label}"))
    for value in tags.for_entity("board"):
        out.value(board, value.prop, value.value)
    board_number = _board_from_round(record.headers, tags)
    if board_number is not None:
        out.value(board, "boardNum", board_number)

    label = (
        f"{class_label(_label_class(themes.classes))} — {match_label}"
        if themes.exercise
        else f"Start position — {match_label}"
    )
    _map_position(position, record, analysis, themes, out, label=label)
    out.value(position, "plyInGame", 0)
    links = (
        ("hasMatch", match),
        ("hasEvent", event),
        ("hasBoard", board),
        ("hasPlayerWhite", white),
        ("hasPlayerBlack", black),
    )
    for prop, obj in links:
        out.link(position, prop, obj)
    for exercise, exercise_analysis in mined:
        _map_mined(record, exercise, exercise_analysis, minter.position(key, exercise.ply), links, match_label, out)


def _map_mined(
    record: GameRecord,
    exercise: MinedExercise,
    analysis: PositionAnalysis,
    position: NamedNode,
    links: Iterable[tuple[str, NamedNode]],
    match_label: str,
    out: _Quads,
) -> None:
    """A Position the engine found in the game: its board before ``ply``, the game's line as solution."""
    board = chess.Board(exercise.fen)
    sans = board.variation_san(list(exercise.solution))
    mined_record = replace(record, start_fen=exercise.fen, solution=list(exercise.solution), movetext=sans, comments={})
    themes = ThemeAssessment(exercise=True, classes={name: {"detected"} for name in analysis.classes})
    # "move 30", not "30...": a learner reads the label, and the page says whose move it is
    _map_position(
        position,
        mined_record,
        analysis,
        themes,
        out,
        label=f"{class_label(_label_class(themes.classes))} — {match_label}, move {board.fullmove_number}",
        goal=exercise.goal,
    )
    out.value(position, "plyInGame", exercise.ply)
    for prop, obj in links:
        out.link(position, prop, obj)


def _name_or(tags: MappedTags, colour: Colour, default: str) -> str:
    value = tags.get(colour, "name")
    return str(value) if value else default


def _full_moves(record: GameRecord) -> int:
    plies = len(record.solution)
    black_starts = " b " in record.start_fen
    return (plies + 1) // 2 if not black_starts else plies // 2 + (1 if plies else 0)


_SITE_GAME_NUMBER = re.compile(r"(?:^|\s)(\d{1,2})\s*$")


def _round_from_site(tags: MappedTags) -> int | None:
    """A match written with its game number at the end of the Site ("New York USA 01", or just
    "01") and no Round: that number is the game's round (``cp:roundNumber``; ``cp:round`` stays
    the verbatim Round tag, so the export writes the tags the game had)."""
    site = tags.get("event", "site")
    if tags.get("match", "round") is not None or site is None:
        return None
    match = _SITE_GAME_NUMBER.search(str(site))
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


def _board_from_round(headers: dict[str, str], tags: MappedTags) -> int | None:
    """The board of a ``Round "r.b"`` tag, when no Board tag gives one (the board number of the ontology)."""
    if tags.get("board", "boardNum") is not None:
        return None
    return round_and_board(headers.get("Round", ""))[1]


def _map_event(tags: MappedTags, key: str, ctx: MappingContext, out: _Quads) -> NamedNode:
    name = tags.get("event", "eventName")
    site = tags.get("event", "site")
    year = tags.get("event", "eventYear") or tags.get("match", "year")  # the event's own date first
    year_number = year if isinstance(year, int) and year else None  # a PGN date's year is read as a number
    event = ctx.minter.event(str(name), year_number) if name else ctx.minter.unknown_event(key)
    out.types(event, ["Event"])
    out.add(event, RDFS.label, Literal(str(name) if name else "Unknown event"))
    for value in tags.for_entity("event"):
        out.value(event, value.prop, value.value)
    code = country_code(_str(tags.get("event", "eventCountry")), _str(site), _str(name))
    if code:
        out.value(event, "countryCode", code)
    return event


def _str(value: object) -> str | None:
    return str(value) if value is not None else None


def _map_player(tags: MappedTags, colour: Colour, key: str, ctx: MappingContext, out: _Quads) -> NamedNode:
    name = tags.get(colour, "name")
    if not name or not name_key(str(name)) or not is_person(str(name)):  # "?", "NN": no person
        # a stand-in the game links to, not typed cp:Player: it is no person, so no count of players
        # (``chesskb stats``, the class tree) includes it. Typed owl:Thing, true of every individual:
        # every source types every subject it speaks of (``kb.store.layout``), so the store can tell
        # which sources assert it and the load keeps its fast path
        player = ctx.minter.unknown_player(key, colour)
        out.add(player, RDF.type, OWL.Thing)
        out.add(player, RDFS.label, Literal(f"Unknown player ({colour})"))
        return player
    fide = tags.get(colour, "fideId")
    fide_id = str(fide).strip() if fide is not None and str(fide).strip().isdigit() and int(str(fide)) else None
    player = ctx.minter.player(str(name), fide_id)
    out.types(player, ["Player"])
    out.add(player, RDFS.label, Literal(display_name(str(name))))
    out.add(player, SKOS.altLabel, Literal(str(name)))
    out.value(player, "nameKey", name_key(str(name)))
    for value in tags.for_entity(colour):
        if value.prop in PLAYER_IDENTITY_PROPERTIES:
            out.value(player, value.prop, value.value)  # ratings and titles go on the game
    return player


def _map_provenance(record: GameRecord, match: NamedNode, ctx: MappingContext, out: _Quads) -> None:
    where = ctx.minter.source_record(ctx.source, record.location.record_number)
    out.add(match, DCTERMS.source, where)
    out.types(where, ["SourceRecord"])
    out.add(
        where,
        RDFS.label,
        Literal(f"{record.location.file}, game {record.location.game_number}, line {record.location.line}"),
    )
    out.value(where, "sourceFile", record.location.file)
    out.value(where, "gameNumber", record.location.game_number)
    out.value(where, "lineNumber", record.location.line)
    out.link(where, "inSource", ctx.minter.source(ctx.source))


# --- lichess puzzles ------------------------------------------------------------------------


def _map_puzzle(
    record: GameRecord, analysis: PositionAnalysis, ctx: MappingContext, out: _Quads, themes: ThemeAssessment
) -> None:
    puzzle = record.puzzle
    assert puzzle is not None
    position = ctx.minter.lichess_position(puzzle.puzzle_id)
    _map_position(
        position,
        record,
        analysis,
        themes,
        out,
        label=f"{class_label(_label_class(themes.classes))} — lichess puzzle {puzzle.puzzle_id}",
    )
    out.value(position, "puzzleId", puzzle.puzzle_id)
    for prop, value in (
        ("puzzleRating", puzzle.rating),
        ("puzzleRatingDeviation", puzzle.rating_deviation),
        ("popularity", puzzle.popularity),
        ("nbPlays", puzzle.nb_plays),
    ):
        if value is not None:
            out.value(position, prop, value)
    for tag in puzzle.opening_tags:
        out.value(position, "openingTag", tag)
    for theme in puzzle.themes:
        out.value(position, "sourceThemeLabel", theme)
    if puzzle.fen_before_setup:  # the opponent's move the learner sees played before solving
        out.value(position, "precedingMove", puzzle.setup_move_uci)
        out.value(position, "precedingFen", puzzle.fen_before_setup)
    if puzzle.game_url:
        match = ctx.minter.lichess_match(puzzle.game_url)
        game_url = puzzle.game_url.split("#")[0]
        out.types(match, ["Match"])
        out.add(match, RDFS.label, Literal(f"lichess game {lichess_game_id(puzzle.game_url)}"))
        out.add(match, CP.gameUrl, Literal(game_url, datatype=XSD.anyURI))
        out.link(position, "hasMatch", match)
        fragment = puzzle.game_url.split("#")[1] if "#" in puzzle.game_url else ""
        if fragment.isdigit():
            out.value(position, "plyInGame", int(fragment))  # the URL names the setup move's ply
        _map_provenance(record, match, ctx, out)


# --- the position ---------------------------------------------------------------------------


def _label_class(classes: dict[str, set[str]]) -> str:
    """The class named in a position's label (``label_class``)."""
    return label_class(list(classes))


def label_class(names: list[str]) -> str:
    """The class a position's title names, of the classes it has: a mate class first, else a theme,
    else a phase (the service titles pages by this rule too, in the page's language)."""
    mates = [name for name in names if name.startswith("MateIn") or name == "OtherMate"]
    themes = [name for name in names if name not in PHASE_CLASSES]  # "Double attack" before "Position begin"
    return (mates or themes or names or ["Position"])[0]


_ORIGIN_PROPERTY = {"detected": "themeDetected", "source": "themeFromSource", "user": "themeFromUser"}


_MATE_CLASSES = frozenset({"MateInOne", "MateInTwo", "MateInThree", "MateInFour", "MateInFive", "OtherMate"})
_GOAL_OF_THEME = {"mate": "mate", "crushing": "win", "advantage": "win", "equality": "draw"}


def exercise_goal(
    classes: Iterable[str], facts: Mapping[str, FactValue], themes: Iterable[str] = (), given: str | None = None
) -> str | None:
    """What the side to move must achieve: ``mate``, ``win`` or ``draw`` (None when nothing says).

    Kept on every position as ``cp:goal`` so that "white to move and mate" is one indexed lookup
    instead of five EXISTS tests per position (15 s → milliseconds at 100k positions). A mate found
    by the analysis or named by a class or the source wins over a weaker stated goal; a mate the proof
    refuted or left undecided gives no goal mate.
    """
    if "mateWithin" in facts or _MATE_CLASSES & set(classes):
        return "mate"  # a proven mate (kb.analysis.claims)
    if "mate" in themes and facts.get("mateVerification") not in ("refuted", "undecided"):
        return "mate"  # the source's goal, unless its mate was refuted or could not be proven
    if given:
        return given
    goals = {_GOAL_OF_THEME[theme] for theme in themes if theme in _GOAL_OF_THEME}
    return "win" if "win" in goals else ("draw" if "draw" in goals else None)


def _map_position(
    position: NamedNode,
    record: GameRecord,
    analysis: PositionAnalysis,
    themes: ThemeAssessment,
    out: _Quads,
    *,
    label: str,
    goal: str | None = None,
) -> None:
    """The position's statements. A game's start position (``themes.exercise`` false) is a plain
    ``cp:Position``: board facts, moves, no classes, goal, difficulty or claims."""
    classes = themes.classes
    if themes.exercise:
        labels = record.puzzle.themes if record.puzzle is not None else ()
        goal = exercise_goal(classes, analysis.facts, labels, goal)
        if goal is not None:
            out.value(position, "goal", goal)
        rating = record.puzzle.rating if record.puzzle is not None else None
        if record.solution:  # something to find
            out.value(position, "difficulty", estimate_difficulty(analysis.facts, classes, rating))
        for claim in themes.claims:
            out.value(position, "claimStatus", claim.describe())
    out.types(position, (list(classes) or ["Position"]) + (["Exercise"] if themes.exercise else []))
    out.add(position, RDFS.label, Literal(label))
    out.value(position, "fen", record.start_fen)
    if record.movetext:
        out.value(position, "move", record.movetext)
    out.value(position, "typePosition", type_position_for(set(classes)))
    start = board_at(record.start_fen)
    for name, who in classes.items():
        for origin in sorted(who):
            out.add(position, CP.term(_ORIGIN_PROPERTY[origin]), CP.term(name))
    for prop, value in analysis.facts.items():
        out.value(position, prop, value)
    if "sideToMove" not in analysis.facts:  # analysis is always run; keep the FEN fact anyway
        out.value(position, "sideToMove", "white" if start.turn == chess.WHITE else "black")
