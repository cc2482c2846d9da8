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
from chesskb.kb.analysis.claims import MATE_CLAIM_CLASSES, mate_facts, proven_class
from chesskb.kb.analysis.detectors import detect
from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.line import Line
from chesskb.kb.analysis.phase import PHASE_CLASS
from chesskb.kb.analysis.solution import solution_facts
from chesskb.kb.analysis.verify import MateVerifier

FactValue = bool | int | str


@dataclass
class PositionAnalysis:
    """Facts (data-property name -> value) and detected theme classes for one position."""

    facts: dict[str, FactValue] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)


#: Facts that describe a solution to find; a whole game's moves are not one (``kb.analysis.exercises``).
EXERCISE_ONLY_FACTS = ("solverMoves", "mateIn", "mateVerification", "mateWithin", "mateFirstMoves", "solutionTree")


def analyse(
    board: chess.Board,
    solution: list[chess.Move],
    *,
    engine: Engine | None = None,
    exercise: bool = True,
    verifier: MateVerifier | None = None,
) -> PositionAnalysis:
    """Board facts of ``board``, what replaying ``solution`` shows, and the detected theme classes.

    A line that ends in the solver's mate claims a mate in its length; the claim is decided by proof
    (``kb.analysis.verify``: proven, refuted or undecided) and the position gets only what is proven
    (``kb.analysis.claims.mate_facts``): the class and ``mateIn`` of the exact length, nothing when
    refuted or undecided; ``solverMoves`` keeps the line's own length. ``engine`` (opened by the caller,
    ``kb.analysis.engine.open_engine``) only proposes moves to the proof search. ``verifier`` (the
    importer's, with its cache, counts and engine) decides the claims instead when given. With ``exercise`` false (an
    ordinary game from its start, ``kb.analysis.exercises``) the moves are replayed for their facts
    (SAN, how the game ended) but nothing is detected or claimed: the game is not the solution of
    its start position. An exercise's last class is always its one phase class (``kb.analysis.phase``).

    >>> import chess
    >>> board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    >>> result = analyse(board, [chess.Move.from_uci("a1a8")])
    >>> result.facts["mateIn"], result.facts["mateVerification"], result.facts["sideToMove"]
    (1, 'proven', 'white')
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
        mate_in = facts.pop("mateIn", None)
        if isinstance(mate_in, int):
            checker = verifier if verifier is not None else MateVerifier(engine=engine)
            proof = checker.decide(board, mate_in, solution[0])
            facts.update(mate_facts(proof))
            classes = [name for name in classes if name not in MATE_CLAIM_CLASSES]
            if proven_class(proof) is not None:
                classes.insert(0, str(proven_class(proof)))
        classes += [name for name in detect(Line(board, solution)) if name not in classes]
    classes.append(PHASE_CLASS[str(facts["gamePhase"])])  # exactly one phase class per position
    return PositionAnalysis(facts=facts, classes=classes)
