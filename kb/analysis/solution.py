"""Replaying the solution: is it legal, how does it end, how many moves does the solver make."""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from chesskb.kb.analysis.themes import mate_in_class


@dataclass
class SolutionResult:
    facts: dict[str, bool | int | str] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)


def final_state(board: chess.Board) -> str:
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material() or board.is_fifty_moves() or board.is_repetition(3):
        return "draw"
    return "none"


def solution_facts(board: chess.Board, solution: list[chess.Move]) -> SolutionResult:
    """Replay ``solution`` on a copy of ``board``; a mate by the solver gives a MateInN class.

    The mate recorded here is only the line's claim (``mateVerification`` "unverified"): ``analyse``
    decides it by proof against every defence and keeps what is proven (``kb.analysis.claims``).
    """
    result = SolutionResult()
    if not solution:
        return result
    replay = board.copy(stack=False)
    sans: list[str] = []
    legal = True
    for move in solution:
        if not replay.is_legal(move):
            legal = False
            break
        sans.append(replay.san_and_push(move))  # one push per ply (``san`` would push, pop, push again)
    result.facts["solutionUci"] = " ".join(m.uci() for m in solution)
    result.facts["solutionLegal"] = legal
    if sans:
        result.facts["solutionSan"] = " ".join(sans)
    if not legal:
        return result
    solver_moves = (len(solution) + 1) // 2
    result.facts["solverMoves"] = solver_moves
    # the SAN of the last move already tells a mate ("#" is python-chess's is_checkmate): no second test
    state = "checkmate" if sans[-1].endswith("#") else final_state(replay)
    result.facts["solutionEnd"] = state
    solver_mated = state == "checkmate" and len(solution) % 2 == 1
    if solver_mated:
        result.facts["mateIn"] = solver_moves
        result.facts["mateVerification"] = "unverified"
        result.classes.append(mate_in_class(solver_moves))
    return result
