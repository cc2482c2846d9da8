"""Mate claims made by someone else (``--theme``, a ``Termination "mate in N"`` tag, a source's theme
label) are checked exactly like the mate the analysis detects in the solution line.

A claim is a class and the number of moves it promises (``MateInOne`` -> 1; ``OtherMate`` from a
``Termination "mate in 7"`` -> 7; ``OtherMate`` with no number cannot be checked and stays
``unverified``). Its status is one of ``kb.analysis.verify``'s values. A *refuted* claim is never
asserted as the class: the importer keeps it as ``cp:claimStatus "MateInOne refuted-search"`` and
reports it, so a position imported with ``--theme MateInOne`` that has no mate in one is not a
``MateInOne``.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from chesskb.kb.analysis.themes import MATE_IN_CLASSES
from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.verify import MateVerifier

#: Class -> the number of moves it promises (``OtherMate``: more than five, number unknown).
MATE_CLASS_MOVES: dict[str, int] = {name: moves for moves, name in MATE_IN_CLASSES.items()}
MATE_CLAIM_CLASSES = frozenset(MATE_CLASS_MOVES) | {"OtherMate"}


@dataclass(frozen=True)
class ClaimCheck:
    """One mate claim and what checking it gave."""

    theme: str
    moves: int | None
    status: str  # verified-search | verified-engine | refuted-search | refuted-engine | unverified

    @property
    def refuted(self) -> bool:
        return self.status.startswith("refuted")

    def describe(self) -> str:
        """The ``cp:claimStatus`` value: class, promised length, status."""
        length = f" in {self.moves}" if self.moves is not None else ""
        return f"{self.theme}{length} {self.status}"


def check_mate_claim(board: chess.Board, solution: list[chess.Move], theme: str, moves: int | None,
                     facts: dict, *, engine: Engine | None = None, verifier: MateVerifier | None = None) -> ClaimCheck:
    """Check "the side to move mates in ``moves``" on ``board``.

    When the analysis already verified the same length from the same line, its status is reused
    (one search per claim, not two). ``engine`` and ``verifier``: as for ``kb.analysis.analyse``.
    """
    if moves is None:
        return ClaimCheck(theme, None, "unverified")
    if facts.get("mateIn") == moves and "mateVerification" in facts:
        return ClaimCheck(theme, moves, str(facts["mateVerification"]))
    first = solution[0] if solution else None
    checker = verifier if verifier is not None else MateVerifier(engine=engine)
    return ClaimCheck(theme, moves, checker.verify(board, moves, first))
