"""Theme classes: which lichess puzzle theme maps to which class, and ``typePosition`` per class.

The same mapping is written into the ontology as ``cp:lichessTheme`` annotations (a test keeps
the two equal); the importer uses this table so it never has to parse the ontology to import.
"""

from __future__ import annotations

from chesskb.kb.vocab import ADDED_THEME_CLASSES, ORIGINAL_CLASSES, PHASE_CLASSES

#: lichess theme key -> ChessPosition class (ontology.md, "Added"). Keys absent here (goals such
#: as ``crushing``, lengths such as ``short``, phases, origins) are kept as source labels only.
LICHESS_THEME_CLASSES: dict[str, str] = {
    "fork": "DoubleAttack",
    "pin": "Pinning",
    "skewer": "Skewer",
    "discoveredAttack": "DiscoveredAttack",
    "discoveredCheck": "DiscoveredCheck",
    "doubleCheck": "DoubleCheck",
    "attraction": "Attraction",
    "deflection": "Deflection",
    "capturingDefender": "EliminateDefense",
    "interference": "Interception",
    "xRayAttack": "Xray",
    "intermezzo": "Zwischenzug",
    "promotion": "Promotion",
    "underPromotion": "Underpromotion",
    "mateIn1": "MateInOne",
    "mateIn2": "MateInTwo",
    "mateIn3": "MateInThree",
    "mateIn4": "MateInFour",
    "mateIn5": "MateInFive",
    "pawnEndgame": "PawnEndgame",
    "rookEndgame": "RookEndgame",
    "queenEndgame": "QueenEndgame",
    "bishopEndgame": "MinorPieceEndgame",
    "knightEndgame": "MinorPieceEndgame",
    "queenRookEndgame": "OtherEndgame",
    "kingsideAttack": "AttackCastledKing",
    "queensideAttack": "QueensideAttack",
    "backRankMate": "BackRankMate",
    "smotheredMate": "SmotheredMate",
    "anastasiaMate": "AnastasiaMate",
    "arabianMate": "ArabianMate",
    "hookMate": "HookMate",
    "bodenMate": "BodenMate",
    "doubleBishopMate": "DoubleBishopMate",
    "dovetailMate": "DovetailMate",
    "swallowstailMate": "SwallowstailMate",
    "epauletteMate": "EpauletteMate",
    "operaMate": "OperaMate",
    "pillsburysMate": "PillsburysMate",
    "morphysMate": "MorphysMate",
    "cornerMate": "CornerMate",
    "killBoxMate": "KillBoxMate",
    "triangleMate": "TriangleMate",
    "vukovicMate": "VukovicMate",
    "balestraMate": "BalestraMate",
    "blindSwineMate": "BlindSwineMate",
    "hangingPiece": "HangingPiece",
    "trappedPiece": "TrappedPiece",
    "sacrifice": "Sacrifice",
    "quietMove": "QuietMove",
    "defensiveMove": "DefensiveMove",
    "enPassant": "EnPassant",
    "castling": "CastlingMove",
    "clearance": "Clearance",
    "zugzwang": "Zugzwang",
    "collinearMove": "CollinearMove",
    "collinear": "CollinearMove",  # the spelling lichess-puzzler's tagger emits
    "advancedPawn": "AdvancedPawn",
    "exposedKing": "ExposedKing",
    "attackingF2F7": "AttackingF2F7",
    "overloading": "Overload",
}

#: Every other lichess theme key (lila's PuzzleTheme list, retired keys included) and where its
#: meaning goes instead of a theme class. With ``LICHESS_THEME_CLASSES`` this covers every key
#: lichess has used (tests/test_phases.py checks both tables against lichess's key list).
LICHESS_KEYS_WITHOUT_CLASS: dict[str, str] = {
    **{
        key: "phase: the phase classes are decided by kb.analysis.phase, the label is kept"
        for key in ("opening", "middlegame", "endgame")
    },
    **{key: "goal (cp:goal): mate, win or draw" for key in ("mate", "crushing", "advantage", "equality")},
    **{key: "length: the solver's move count is cp:solverMoves" for key in ("oneMove", "short", "long", "veryLong")},
    **{key: "origin of the game: kept as the source's label" for key in ("master", "masterVsMaster", "superGM")},
    "mix": "not a theme: lichess's 'healthy mix' of puzzles",
    "any": "not a theme: the old name of 'mix'",
    "healthyMix": "not a theme: the old name of 'mix'",
    "checkFirst": "hidden lichess flag (the first move checks): kept as the source's label",
    **{
        key: "retired lichess key: kept as the source's label"
        for key in ("backRankThreat", "blocking", "coercion", "matingNet", "simplification")
    },
}

#: The class tree, child -> parent: the original's theme tree (seed-000 §5.2) with its three branches
#: now under the theme groups (OpeningTheme, MiddlegameTheme, EndgameTheme), the phase classes
#: beside them (one per position, disjoint, ``kb.analysis.phase``), plus the added classes.
PARENT: dict[str, str] = {
    **{name: "Position" for name in PHASE_CLASSES},
    **{name: "OpeningTheme" for name in ("OpeningError", "Trap")},
    **{
        name: "MiddlegameTheme"
        for name in (
            "AttackCastledKing",
            "AttackKingCenter",
            "Attraction",
            "Combination",
            "ContinuousCheck",
            "Deflection",
            "DiscoveredAttack",
            "DiscoveredCheck",
            "DoubleAttack",
            "DoubleCheck",
            "Drowned",
            "EliminateDefense",
            "Freeing",
            "Interception",
            "Lock",
            "Overload",
            "Pinning",
            "Promotion",
            "Skewer",
            "WeakLine",
            "Xray",
            "Zwischenzug",
        )
    },
    **{
        name: "EndgameTheme"
        for name in (
            "MateInOne",
            "MateInTwo",
            "MateInThree",
            "OtherMate",
            "PawnEndgame",
            "RookEndgame",
            "MinorPieceEndgame",
            "QueenEndgame",
            "OtherEndgame",
        )
    },
    **ADDED_THEME_CLASSES,
}

#: Every class a position can be asserted in (the ``--theme`` choices).
THEME_CLASSES: tuple[str, ...] = (
    "Position",
    *tuple(name for name in ORIGINAL_CLASSES + tuple(ADDED_THEME_CLASSES) if name in PARENT),
)

MATE_IN_CLASSES: dict[int, str] = {
    1: "MateInOne",
    2: "MateInTwo",
    3: "MateInThree",
    4: "MateInFour",
    5: "MateInFive",
}

_STRATEGY = {"OpeningError", "Trap"}
_GROUPS = ("OpeningTheme", "MiddlegameTheme", "EndgameTheme")
_FINAL_ROOTS = {
    "PawnEndgame",
    "RookEndgame",
    "MinorPieceEndgame",
    "QueenEndgame",
    "OtherEndgame",
    "MateInOne",
    "MateInTwo",
    "MateInThree",
    "OtherMate",
}


def ancestors(class_name: str) -> list[str]:
    """The class's superclasses up to ``Position``, nearest first (not including itself)."""
    chain = []
    current = PARENT.get(class_name)
    while current is not None:
        chain.append(current)
        current = PARENT.get(current)
    return chain


def mate_in_class(moves: int) -> str:
    """``MateInOne`` … ``MateInFive`` by the solver's move count; longer mates are ``OtherMate``."""
    return MATE_IN_CLASSES.get(moves, "OtherMate")


def type_position(class_name: str) -> str:
    """The original's ``typePosition`` value for a class (seed-000 §5.5), extended to added classes.

    Phase classes, theme groups and ``Position`` are ``undetermined``; ``OpeningError``/``Trap`` are
    ``strategy``; endgame and mate classes under ``EndgameTheme`` are ``final``; middlegame motifs are
    ``tactic``.
    """
    if class_name in ("Position", *PHASE_CLASSES, *_GROUPS):
        return "undetermined"
    if class_name in _STRATEGY:
        return "strategy"
    if class_name in _FINAL_ROOTS or "EndgameTheme" in ancestors(class_name):
        return "final"
    return "tactic"


#: Precedence when a position carries several classes: the most specific kind wins.
TYPE_POSITION_ORDER = ("final", "tactic", "strategy", "undetermined")


def type_position_for(classes: list[str] | set[str]) -> str:
    """One ``typePosition`` for a position with several classes (the first kind in the order above)."""
    kinds = {type_position(name) for name in classes} or {"undetermined"}
    return next(kind for kind in TYPE_POSITION_ORDER if kind in kinds)
