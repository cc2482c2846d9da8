"""Position analysis: what the board and the solution say about an exercise.

``analyse`` is the one entry point the importer calls. It returns facts keyed by the ontology's
data-property names (``sideToMove``, ``mateIn`` …) and the theme classes the detectors assign, so
the mapping layer turns them into triples without knowing how each was computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from .board_facts import board_facts
from .solution import solution_facts

FactValue = bool | int | str


@dataclass
class PositionAnalysis:
    """Facts (data-property name -> value) and detected theme classes for one position."""

    facts: dict[str, FactValue] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)


def analyse(board: chess.Board, solution: list[chess.Move]) -> PositionAnalysis:
    """Board facts of ``board`` plus what replaying ``solution`` from it shows."""
    facts: dict[str, FactValue] = dict(board_facts(board))
    solution_result = solution_facts(board, solution)
    facts.update(solution_result.facts)
    return PositionAnalysis(facts=facts, classes=list(solution_result.classes))
