"""A difficulty for every exercise, on the lichess rating scale, so exercises from any source sort
together and course chapters can be ordered by it.

Where the source rates the puzzle (lichess ``Rating``), that rating *is* the difficulty. Elsewhere it
is estimated from what makes a puzzle hard for a learner, in rating points:

* the solution's length: each further move the solver must find adds ``PER_SOLVER_MOVE``;
* the position's crowding: more men on the board means more candidate moves to reject;
* the theme: quiet moves, deflections, attractions, clearances, zwischenzugs, interceptions,
  zugzwang and underpromotions are hard to see, a mate in one or a hanging piece easy.

The weights were chosen by comparing the estimate with the lichess ratings of the 300 CC0 puzzles in
``data/lichess/puzzles.csv`` (Spearman's rank correlation 0.50 there;
``tests/test_difficulty.py`` keeps it above 0.35); they are a teacher's starting point, not a measurement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

BASE = 900
PER_SOLVER_MOVE = 300
PER_MAN_OVER_TEN = 12
MINIMUM, MAXIMUM = 400, 3000

#: Rating points a theme adds (hard to see) or takes away (easy to see).
THEME_WEIGHT: Mapping[str, int] = {
    "QuietMove": 300,
    "Deflection": 200,
    "Attraction": 200,
    "Clearance": 200,
    "Zwischenzug": 250,
    "Interception": 250,
    "Underpromotion": 250,
    "Xray": 150,
    "Sacrifice": 150,
    "DiscoveredCheck": 100,
    "DoubleCheck": 50,
    "TrappedPiece": 100,
    "DefensiveMove": 200,
    "ExposedKing": 50,
    "Zugzwang": 250,
    "MateInOne": -250,
    "HangingPiece": -200,
    "BackRankMate": -50,
    "DoubleAttack": -50,
}


def estimate_difficulty(facts: Mapping[str, object], classes: Iterable[str], rating: int | None = None) -> int:
    """The exercise's difficulty: the source's rating when there is one, else the estimate."""
    if rating is not None:
        return int(rating)
    solver_moves = facts.get("solverMoves")
    moves = solver_moves if isinstance(solver_moves, int) and solver_moves > 0 else 1
    men = facts.get("pieceCount")
    crowding = max(0, int(men) - 10) * PER_MAN_OVER_TEN if isinstance(men, int) else 0
    themes = sum(THEME_WEIGHT.get(name, 0) for name in set(classes))
    return max(MINIMUM, min(MAXIMUM, BASE + (moves - 1) * PER_SOLVER_MOVE + crowding + themes))
