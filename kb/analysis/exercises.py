"""Exercise or game? And which theme classes a record's position is asserted in, and by whom.

One rule, used by the importer, the tests and the documentation (README "Exercises and games"):

A record is an **exercise** when

* it comes from a puzzle source (a lichess puzzle CSV row), or
* the user names its theme on import (``--theme``), or
* its source names its themes (a ``Themes`` tag, as the authoring page and the PGN export write), or
* it sets up a position (``FEN``/``SetUp``) that is not the start of a whole game.

A position is the start of a whole game when it is move 1 or 2, it has at least
``GAME_START_MIN_MEN`` men and at most ``GAME_START_MAX_MOVED`` of them stand off their home squares
in the standard start: the standard start itself, or an odds game — Philidor's "pawn and move" games
in ``data/pgn-extract/odds.pgn`` remove a pawn and give White's first move in the FEN (a study with
two kings on e1/e8 and a rook on a1 is not one: too few men) — or it is a Chess960 start position. Every
position ``--mine`` cuts out of a game is an exercise too (``kb.analysis.mining``).

Anything else is an ordinary **game**: a Match with its moves and result whose start position is a
plain ``cp:Position`` — no theme classes, no mate claim, no goal or difficulty — so it never appears
among exercises, on class pages or in courses. Tactic detectors looking at a whole game from move 1
would call it "Quiet move, Clearance, Mate in four" as if the game were the solution, which is not
true of the position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import chess

from chesskb.kb.analysis import PositionAnalysis
from chesskb.kb.analysis.claims import MATE_CLAIM_CLASSES, MATE_CLASS_MOVES, ClaimCheck, check_mate_claim
from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.themes import LICHESS_THEME_CLASSES, THEME_CLASSES, mate_in_class
from chesskb.kb.analysis.verify import PROVEN, VERDICTS, MateVerifier
from chesskb.kb.reading.records import GameRecord, board_at
from chesskb.kb.vocab import PHASE_CLASSES

_MATE_IN_TERMINATION = re.compile(r"mate\s+in\s+(\d+)", re.IGNORECASE)
_HOME = chess.Board()
_HOMES = tuple(
    (piece_type, colour, _HOME.pieces_mask(piece_type, colour))
    for colour in chess.COLORS
    for piece_type in chess.PIECE_TYPES
)
#: Men an odds game keeps at least (32 less the odds given: queen and rook odds leave 30).
GAME_START_MIN_MEN = 24
#: Men an odds game's FEN may show already moved ("the move" given as odds: one or two moves).
GAME_START_MAX_MOVED = 2


def is_game_start(board: chess.Board) -> bool:
    """Move 1 or 2, (nearly) every man on its standard home square (odds games too), or a Chess960 start."""
    if board.fullmove_number > 2 or board.move_stack:
        return False
    # counted on the bitboards (a man has moved unless the same man stands on his square in the start)
    men = chess.popcount(board.occupied)
    moved = sum(chess.popcount(board.pieces_mask(piece_type, colour) & ~home) for piece_type, colour, home in _HOMES)
    if men >= GAME_START_MIN_MEN and moved <= GAME_START_MAX_MOVED:
        return True
    # the castling rights are not asked: a standard board reading a Chess960 FEN ("KQkq" with the rooks
    # elsewhere) drops them, and the arrangement of the men alone says "a Chess960 start"
    return board.turn == chess.WHITE and board.copy(stack=False).chess960_pos(ignore_castling=True) is not None


def is_exercise(record: GameRecord, user_themes: tuple[str, ...] = ()) -> bool:
    """The rule above: puzzle, ``--theme``, a ``Themes`` tag, or a set-up position that is no game start."""
    if record.puzzle is not None or user_themes or record.headers.get("Themes", "").strip():
        return True
    return not is_game_start(board_at(record.start_fen))


@dataclass
class ThemeAssessment:
    """What the importer asserts about a record's start position.

    ``classes``: theme class -> who asserted it (``detected``, ``source``, ``user``), a mate claim only
    as its proven exact length; ``claims``: every mate claim decided, refuted and undecided ones included.
    """

    exercise: bool
    classes: dict[str, set[str]] = field(default_factory=dict)
    claims: list[ClaimCheck] = field(default_factory=list)

    @property
    def refuted(self) -> list[ClaimCheck]:
        return [claim for claim in self.claims if claim.refuted]

    @property
    def undecided(self) -> list[ClaimCheck]:
        return [claim for claim in self.claims if claim.undecided]


def claimed_themes(record: GameRecord, user_themes: tuple[str, ...]) -> dict[str, tuple[set[str], int | None]]:
    """Classes others claim for the position: class -> (who, promised mate length or None)."""
    out: dict[str, tuple[set[str], int | None]] = {}

    def add(name: str, who: str, moves: int | None = None) -> None:
        if name in PHASE_CLASSES:
            return  # the phase is decided by one rule (kb.analysis.phase), never by a label: one per position
        whom, known = out.setdefault(name, (set(), None))
        whom.add(who)
        if moves is None:
            moves = known if known is not None else MATE_CLASS_MOVES.get(name)
        out[name] = (whom, moves)

    for name in user_themes:
        add(name, "user")
    if record.puzzle is not None:
        for theme in record.puzzle.themes:
            if theme in LICHESS_THEME_CLASSES:
                add(LICHESS_THEME_CLASSES[theme], "source")
    # A PGN exercise may name its themes (``[Themes "DoubleAttack fork"]``: ontology class names or
    # lichess theme names), as the authoring page and ``export --format pgn`` write them.
    for theme in record.headers.get("Themes", "").replace(",", " ").split():
        if theme in THEME_CLASSES:
            add(theme, "source")
        elif theme in LICHESS_THEME_CLASSES:
            add(LICHESS_THEME_CLASSES[theme], "source")
    match = _MATE_IN_TERMINATION.search(record.headers.get("Termination", ""))
    if match:
        moves = int(match.group(1))
        add(mate_in_class(moves), "source", moves)
    return out


def assess_themes(
    record: GameRecord,
    analysis: PositionAnalysis,
    user_themes: tuple[str, ...] = (),
    *,
    engine: Engine | None = None,
    verifier: MateVerifier | None = None,
    exercise: bool | None = None,
) -> ThemeAssessment:
    """The classes to assert on the record's start position, every mate claim checked first.
    ``exercise``: ``is_exercise``'s verdict when the caller has it already."""
    if not (is_exercise(record, user_themes) if exercise is None else exercise):
        return ThemeAssessment(exercise=False)
    assessment = ThemeAssessment(exercise=True)
    board = record.start_board()
    for name, (who, moves) in claimed_themes(record, user_themes).items():
        if name in MATE_CLAIM_CLASSES:
            claim = check_mate_claim(
                board, record.solution, name, moves, analysis.facts, engine=engine, verifier=verifier
            )
            assessment.claims.append(claim)
            proven = claim.asserted_class
            if proven is not None:
                # the exact length's class: the source's own when it named it, else the proof's finding
                assessment.classes.setdefault(proven, set()).update(who if proven == name else {"detected"})
            continue
        assessment.classes.setdefault(name, set()).update(who)
    line_claim = _line_claim(analysis)
    if line_claim is not None and line_claim not in assessment.claims:  # the source's claim may be the line's
        assessment.claims.append(line_claim)
    for name in analysis.classes:  # the analysis asserts a mate class only when proven (kb.analysis.claims)
        assessment.classes.setdefault(name, set()).add("detected")
    return assessment


def _line_claim(analysis: PositionAnalysis) -> ClaimCheck | None:
    """The solution line's own claim (it ends in the solver's mate after ``solverMoves`` moves), kept as a
    claim when the proof does not simply confirm it: refuted, undecided, or a shorter mate exists."""
    facts = analysis.facts
    status, moves = facts.get("mateVerification"), facts.get("solverMoves")
    if not isinstance(moves, int) or facts.get("solutionEnd") != "checkmate" or status not in VERDICTS:
        return None
    exact = facts.get("mateIn")
    exact = exact if isinstance(exact, int) else None
    if status == PROVEN and exact == moves:
        return None
    return ClaimCheck(mate_in_class(moves), moves, status, exact)
