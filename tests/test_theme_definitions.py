"""Hand-checked positions for the classes lichess has no label for, and for the mate patterns.

Each case is a position and its solution with the answer a chess coach gives, checked by hand
against the definition in the ontology (``rdfs:comment``) and in ``kb/analysis/detectors``: where
the class must fire, and where it must not. The positions are small and written out here (the
Opera game is Morphy v Duke of Brunswick & Count Isouard, Paris 1858, replayed from its moves).
"""

from __future__ import annotations

import chess
import pytest

from chesskb.kb.analysis import analyse

OPERA_BEFORE_13 = "3rkb1r/p2nqppp/5n2/1B2p1B1/4P3/1Q6/PPP2PPP/2KR3R w k - 3 13"
OPERA_LINE = "d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8"  # 13. Rxd7 … 17. Rd8#


def classes(fen: str, moves: str) -> list[str]:
    board = chess.Board(fen)
    return analyse(board, [chess.Move.from_uci(u) for u in moves.split()]).classes


CASES = [
    # --- WeakLine: a rook or queen takes the back rank where only the king guards, and it decides
    ("WeakLine", True, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),               # Rd8#, no luft
    ("WeakLine", True, "4r1k1/5pp1/7p/8/8/8/5PPP/4R1K1 w - - 0 1", "e1e8 g8h7"),        # Rxe8+ wins a rook
    ("WeakLine", True, OPERA_BEFORE_13, OPERA_LINE),
    ("WeakLine", False, "r5k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8 a8d8"),         # the rook a8 guards
    ("WeakLine", False, "6k1/5pp1/7p/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8 g8h7"),         # luft: nothing won
    # --- AttackKingCenter: an uncastled king in the centre, checked, before the endgame
    ("AttackKingCenter", True, OPERA_BEFORE_13, OPERA_LINE),
    ("AttackKingCenter", False, "rn3rk1/p3qppp/5n2/1B2p1B1/4P3/1Q6/PPP2PPP/R3K2R w KQ - 0 12", "b3b8 a8b8"),
    ("AttackKingCenter", False, "4k3/8/8/8/8/8/3R4/4K3 w - - 0 1", "d2e2"),              # endgame king
    # --- ContinuousCheck: checks that go round (a drawing resource), never a mating attack
    ("ContinuousCheck", True, "7k/6p1/7p/8/8/8/qq4PP/5QK1 w - - 0 1", "f1f8 h8h7 f8f5 h7h8 f5f8"),
    ("ContinuousCheck", False, OPERA_BEFORE_13, OPERA_LINE),                             # checks that mate
    ("ContinuousCheck", False, "7k/6p1/7p/8/8/8/qq4PP/5QK1 w - - 0 1", "f1f8 h8h7"),   # one check only
    ("ContinuousCheck", False, "r5k1/5ppp/8/8/8/8/1Q3PPP/1R4K1 w - - 0 1", "b2b8 a8b8 b1b8"),  # not all checks
    # --- mate patterns: one name per mate
    ("OperaMate", True, OPERA_BEFORE_13, OPERA_LINE),                                    # Rd8#, held by Bg5
    ("BackRankMate", False, OPERA_BEFORE_13, OPERA_LINE),
    ("BackRankMate", True, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),
    ("OperaMate", False, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),              # no bishop
    ("PillsburysMate", True, "6k1/5pp1/8/8/8/8/5PPP/1B1R2K1 w - - 0 1", "d1d8"),        # Rd8#, Bb1 takes h7
    ("BackRankMate", False, "6k1/5pp1/8/8/8/8/5PPP/1B1R2K1 w - - 0 1", "d1d8"),         # h7 is free, not walled
    ("CornerMate", True, "7k/7p/8/6N1/8/8/8/6RK w - - 0 1", "g5f7"),                    # Nf7#, g-file held
    ("SmotheredMate", True, "6rk/6pp/8/6N1/8/8/8/7K w - - 0 1", "g5f7"),
    ("CornerMate", False, "6rk/6pp/8/6N1/8/8/8/7K w - - 0 1", "g5f7"),                 # smothered, not corner
    ("EpauletteMate", True, "3rkr2/8/8/8/8/8/8/4Q1K1 w - - 0 1", "e1e6"),               # Qe6#, rooks d8 f8
    ("SwallowstailMate", True, "8/3p1p2/4k3/8/8/8/8/Q3RK2 w - - 0 1", "a1e5"),           # Qe5#, pawns d7 f7
    ("EpauletteMate", False, "8/3p1p2/4k3/8/8/8/8/Q3RK2 w - - 0 1", "a1e5"),
]


@pytest.mark.parametrize("name, fires, fen, moves", CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_hand_checked_positions(name, fires, fen, moves):
    got = classes(fen, moves)
    assert (name in got) == fires, got
