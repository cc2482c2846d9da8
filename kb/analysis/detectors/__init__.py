"""Theme detectors: which ontology classes a position and its solution show.

Each detector is a small function of the replayed line (``kb.analysis.line.Line``); ``detect``
runs them all and returns the class names. The registry below is the one place that says which
function decides which class, so a class can be traced to its definition in one step.
"""

from __future__ import annotations

from collections.abc import Callable

from chesskb.kb.analysis.detectors import board, tactics, zugzwang
from chesskb.kb.analysis.detectors.mates import mate_patterns
from chesskb.kb.analysis.line import Line

#: class name -> detector over the solution line
DETECTORS: dict[str, Callable[[Line], bool]] = {
    "DoubleAttack": tactics.fork,
    "Pinning": tactics.pin,
    "Skewer": tactics.skewer,
    "DiscoveredAttack": tactics.discovered_attack,
    "DiscoveredCheck": tactics.discovered_check,
    "DoubleCheck": tactics.double_check,
    "HangingPiece": tactics.hanging_piece,
    "Sacrifice": tactics.sacrifice,
    "TrappedPiece": tactics.trapped_piece,
    "Deflection": tactics.deflection,
    "Attraction": tactics.attraction,
    "Overload": tactics.overload,
    "EliminateDefense": tactics.eliminate_defense,
    "Xray": tactics.xray,
    "Zwischenzug": tactics.zwischenzug,
    "Clearance": tactics.clearance,
    "Interception": tactics.interception,
    "QuietMove": tactics.quiet_move,
    "DefensiveMove": tactics.defensive_move,
    "Zugzwang": zugzwang.zugzwang,
    "CollinearMove": tactics.collinear_move,
    "Promotion": board.promotion,
    "Underpromotion": board.underpromotion,
    "EnPassant": board.en_passant,
    "CastlingMove": board.castling,
    "AdvancedPawn": board.advanced_pawn,
    "Drowned": board.stalemate,
    "ContinuousCheck": board.perpetual_check,
    "AttackingF2F7": board.attacking_f2f7,
    "AttackCastledKing": board.kingside_attack,
    "QueensideAttack": board.queenside_attack,
    "AttackKingCenter": board.king_in_centre_attack,
    "ExposedKing": board.exposed_king,
    "WeakLine": board.weak_back_rank,
}

#: ``Freeing`` is the original's name for a clearance (seed-000 §6): both are asserted together.
ALIASES = {"Clearance": ("Freeing",)}


def detect(line: Line) -> list[str]:
    """Every class the line shows, in registry order, mate patterns and endgame type included."""
    found = [name for name, test in DETECTORS.items() if line.plies and test(line)]
    found += [alias for name in list(found) for alias in ALIASES.get(name, ())]
    found += mate_patterns(line)
    if "BackRankMate" in found or "DoubleAttack" in found:  # the attack is told by the sharper theme
        found = [name for name in found if name not in ("AttackCastledKing", "QueensideAttack")]
    boards = [line.start] + [p.after for p in line.plies[:1]]
    endgame = board.endgame_class(*boards)
    if endgame is not None:
        found.append(endgame)
    return found
