"""Mate claims, whoever makes them, decided by one rule and stated by what is proven.

A claim is "the side to move mates in N": the solution line that ends in mate, ``--theme``, a
``Termination "mate in N"`` tag, a source's theme label (a ``Themes`` tag, lichess ``mateInN``). Every
one is decided by ``kb.analysis.verify`` (proven, refuted or undecided) and then says only what the
proof says:

* the mate classes (``MateInOne`` … ``MateInFive``, ``OtherMate`` beyond) and ``cp:mateIn`` name the
  *exact* length: the shortest proven mate, when every shorter one is refuted (a "mate in three" that
  mates in two is a ``MateInTwo``); ``cp:mateWithin`` keeps the proven bound when the exact length did
  not fit the budget, and then no class is asserted;
* a refuted or undecided claim asserts nothing (no class, no ``cp:mateIn``, no goal mate); it stays
  as ``cp:claimStatus`` ("MateInThree in 3 refuted"), and the importer reports it.

``OtherMate`` with no number cannot be checked: it stays ``undecided``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.proof import PROVEN, REFUTED, UNDECIDED, VERDICTS, MateProof, Verdict
from chesskb.kb.analysis.themes import MATE_IN_CLASSES, mate_in_class
from chesskb.kb.analysis.verify import MateVerifier

if TYPE_CHECKING:  # the package imports this module
    from chesskb.kb.analysis import FactValue

#: Class -> the number of moves it promises (``OtherMate``: more than five, number unknown).
MATE_CLASS_MOVES: dict[str, int] = {name: moves for moves, name in MATE_IN_CLASSES.items()}
MATE_CLAIM_CLASSES = frozenset(MATE_CLASS_MOVES) | {"OtherMate"}


def proven_class(proof: MateProof) -> str | None:
    """The mate class a proof lets us assert: its exact length's, or none."""
    return mate_in_class(proof.exact) if proof.exact is not None else None


def mate_facts(proof: MateProof) -> dict[str, int | str]:
    """The facts a decided claim gives the position (``kb.analysis.analyse``): the verdict, and for a
    proven one its exact length (``mateIn``) or bound (``mateWithin``), every first move that mates
    (UCI, space-separated, when all were decided) and the solution tree (JSON, ``kb.analysis.proof.Tree``)."""
    facts: dict[str, int | str] = {"mateVerification": proof.verdict}
    if proof.verdict != PROVEN or proof.shortest is None:
        return facts
    facts["mateWithin"] = proof.shortest
    if proof.minimal:
        facts["mateIn"] = proof.shortest
    if proof.first_moves:
        facts["mateFirstMoves"] = " ".join(proof.first_moves)
    if proof.tree is not None:
        facts["solutionTree"] = json.dumps(proof.tree, separators=(",", ":"))
    return facts


@dataclass(frozen=True)
class ClaimCheck:
    """One mate claim and what deciding it gave."""

    theme: str
    moves: int | None
    status: Verdict
    exact: int | None = None  # the proven exact length (may be shorter than ``moves``)

    @property
    def refuted(self) -> bool:
        return self.status == REFUTED

    @property
    def undecided(self) -> bool:
        return self.status == UNDECIDED

    @property
    def asserted_class(self) -> str | None:
        """The class this claim lets the importer assert: the exact length's, when proven."""
        return mate_in_class(self.exact) if self.status == PROVEN and self.exact is not None else None

    def describe(self) -> str:
        """The ``cp:claimStatus`` value: class, promised length, verdict, and what the proof adds."""
        length = f" in {self.moves}" if self.moves is not None else ""
        detail = ""
        if self.status == PROVEN:
            detail = (
                ", exact length undecided"
                if self.exact is None
                else (f", shortest {self.exact}" if self.exact != self.moves else "")
            )
        return f"{self.theme}{length} {self.status}{detail}"


#: ``ClaimCheck.describe``'s form, read back (the one place that knows how a claim status is written).
_STATUS_TEXT = re.compile(
    r"(?P<theme>\w+)(?: in (?P<moves>\d+))? (?P<status>proven|refuted|undecided)"
    r"(?:, (?:shortest (?P<exact>\d+)|exact length undecided))?"
)


def read_claim_status(text: str) -> ClaimCheck | None:
    """The claim a ``cp:claimStatus`` value states (``ClaimCheck.describe`` reversed); None when the text is
    not one (a store written by other hands): shown as it is, never guessed at."""
    found = _STATUS_TEXT.fullmatch(text.strip())
    if found is None:
        return None
    status = found["status"]
    if status not in VERDICTS:  # not reached: the pattern takes the three words only
        return None
    moves = int(found["moves"]) if found["moves"] else None
    exact = (
        int(found["exact"]) if found["exact"] else (moves if status == PROVEN and "exact length" not in text else None)
    )
    return ClaimCheck(found["theme"], moves, status, exact)


def check_mate_claim(
    board: chess.Board,
    solution: list[chess.Move],
    theme: str,
    moves: int | None,
    facts: Mapping[str, FactValue],
    *,
    engine: Engine | None = None,
    verifier: MateVerifier | None = None,
) -> ClaimCheck:
    """Decide "the side to move mates in ``moves``" on ``board`` (the line's first move is tried first).

    When the analysis (``facts``) decided the line's mate of the same length, its verdict is reused (one
    proof per claim, not two). ``engine`` and ``verifier``: as for ``kb.analysis.analyse``."""
    if moves is None:
        return ClaimCheck(theme, None, UNDECIDED)
    verification = facts.get("mateVerification")
    if facts.get("solverMoves") == moves and facts.get("solutionEnd") == "checkmate" and verification in VERDICTS:
        exact = facts.get("mateIn")
        return ClaimCheck(theme, moves, verification, exact if isinstance(exact, int) else None)
    first = solution[0] if solution else None
    checker = verifier if verifier is not None else MateVerifier(engine=engine)
    proof = checker.decide(board, moves, first)
    return ClaimCheck(theme, moves, proof.verdict, proof.exact)
