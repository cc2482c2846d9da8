"""Position analysis: what the board and the solution say about an exercise.

``analyse`` is the one entry point the importer calls. It returns facts keyed by the ontology's
data-property names (``sideToMove``, ``mateIn`` …) and the theme classes the detectors assign, so
the mapping layer turns them into triples without knowing how each was computed. It never starts
an engine: a caller who wants long mate claims decided opens one (``kb.analysis.engine.open_engine``)
and passes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from chesskb.kb.analysis.board_facts import board_facts
from chesskb.kb.analysis.detectors import detect
from chesskb.kb.analysis.line import Line
from chesskb.kb.analysis.phase import PHASE_CLASS
from chesskb.kb.analysis.solution import solution_facts
from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.verify import MateVerifier

FactValue = bool | int | str


@dataclass
class PositionAnalysis:
    """Facts (data-property name -> value) and detected theme classes for one position."""

    facts: dict[str, FactValue] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)


#: Facts that describe a solution to find; a whole game's moves are not one (``kb.analysis.exercises``).
EXERCISE_ONLY_FACTS = ("solverMoves", "mateIn", "mateVerification")


def analyse(board: chess.Board, solution: list[chess.Move], *, engine: Engine | None = None,
            exercise: bool = True, verifier: MateVerifier | None = None) -> PositionAnalysis:
    """Board facts of ``board``, what replaying ``solution`` shows, and the detected theme classes.

    A mate claim is checked (``kb.analysis.verify``): by search up to mate in two, by ``engine``
    beyond (opened by the caller, ``kb.analysis.engine.open_engine``; without one a longer claim
    stays ``unverified``); the status is stored, never guessed. ``verifier`` (the importer's, with
    its cache, counts and engine) decides the claims instead when given. With ``exercise`` false (an
    ordinary game from its start, ``kb.analysis.exercises``) the moves are replayed for their facts
    (SAN, how the game ended) but nothing is detected or claimed: the game is not the solution of
    its start position. An exercise's last class is always its one phase class (``kb.analysis.phase``).

    >>> import chess
    >>> board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    >>> result = analyse(board, [chess.Move.from_uci("a1a8")])
    >>> result.facts["mateIn"], result.facts["mateVerification"], result.facts["sideToMove"]
    (1, 'verified-search', 'white')
    >>> "MateInOne" in result.classes and "BackRankMate" in result.classes
    True
    """
    facts: dict[str, FactValue] = dict(board_facts(board))
    solution_result = solution_facts(board, solution)
    facts.update(solution_result.facts)
    if not exercise:
        for name in EXERCISE_ONLY_FACTS:
            facts.pop(name, None)
        return PositionAnalysis(facts=facts, classes=[])
    classes = list(solution_result.classes)
    if solution and facts.get("solutionLegal"):
        mate_in = facts.get("mateIn")
        if isinstance(mate_in, int):
            checker = verifier if verifier is not None else MateVerifier(engine=engine)
            facts["mateVerification"] = checker.verify(board, mate_in, solution[0])
        classes += [name for name in detect(Line(board, solution)) if name not in classes]
    classes.append(PHASE_CLASS[str(facts["gamePhase"])])  # exactly one phase class per position
    return PositionAnalysis(facts=facts, classes=classes)
