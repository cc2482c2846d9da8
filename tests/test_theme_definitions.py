"""Hand-checked positions for the classes lichess has no label for, the mate patterns and motifs.

Each case is a position and its solution with the answer a chess coach gives, checked by hand
against the definition in the ontology (``rdfs:comment``) and in ``kb/analysis/detectors``: where
the class must fire, and where it must not. The positions are small and written out here (the
Opera game is Morphy v Duke of Brunswick & Count Isouard, Paris 1858, replayed from its moves).
"""

from __future__ import annotations

import functools

import chess
import pytest

from chesskb.kb.analysis import analyse

OPERA_BEFORE_13 = "3rkb1r/p2nqppp/5n2/1B2p1B1/4P3/1Q6/PPP2PPP/2KR3R w k - 3 13"
OPERA_LINE = "d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8"  # 13. Rxd7 … 17. Rd8#


@functools.cache  # several cases ask about one line (the Opera game's, five times): its proofs cost seconds
def classes(fen: str, moves: str) -> tuple[str, ...]:
    board = chess.Board(fen)
    return tuple(analyse(board, [chess.Move.from_uci(u) for u in moves.split()]).classes)


CASES = [
    # --- WeakLine: a rook or queen takes the back rank where only the king guards, and it decides
    ("WeakLine", True, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),  # Rd8#, no luft
    ("WeakLine", True, "4r1k1/5pp1/7p/8/8/8/5PPP/4R1K1 w - - 0 1", "e1e8 g8h7"),  # Rxe8+ wins a rook
    ("WeakLine", True, OPERA_BEFORE_13, OPERA_LINE),
    ("WeakLine", False, "r5k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8 a8d8"),  # the rook a8 guards
    ("WeakLine", False, "6k1/5pp1/7p/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8 g8h7"),  # luft: nothing won
    # --- AttackKingCenter: an uncastled king in the centre, checked, before the endgame
    ("AttackKingCenter", True, OPERA_BEFORE_13, OPERA_LINE),
    ("AttackKingCenter", False, "rn3rk1/p3qppp/5n2/1B2p1B1/4P3/1Q6/PPP2PPP/R3K2R w KQ - 0 12", "b3b8 a8b8"),
    ("AttackKingCenter", False, "4k3/8/8/8/8/8/3R4/4K3 w - - 0 1", "d2e2"),  # endgame king
    # --- ContinuousCheck: checks that go round (a drawing resource), never a mating attack
    ("ContinuousCheck", True, "7k/6p1/7p/8/8/8/qq4PP/5QK1 w - - 0 1", "f1f8 h8h7 f8f5 h7h8 f5f8"),
    ("ContinuousCheck", False, OPERA_BEFORE_13, OPERA_LINE),  # checks that mate
    ("ContinuousCheck", False, "7k/6p1/7p/8/8/8/qq4PP/5QK1 w - - 0 1", "f1f8 h8h7"),  # one check only
    ("ContinuousCheck", False, "r5k1/5ppp/8/8/8/8/1Q3PPP/1R4K1 w - - 0 1", "b2b8 a8b8 b1b8"),  # not all checks
    # --- ExposedKing: a king at home without pawn shelter, checked again in the middle of the line
    ("ExposedKing", True, "6k1/8/8/8/8/Q7/8/1R4K1 w - - 0 1", "b1b8 g8g7 a3a1 g7h7 b8b7"),  # Qa1+ on a bare king
    ("ExposedKing", False, "6k1/5p2/8/8/8/Q7/8/1R4K1 w - - 0 1", "b1b8 g8g7 a3a1 g7h7 b8b7"),  # f7 pawn in front
    # lichess 04g2P (exposedKing): Ke8 with no pawn on d7-f7, driven out by rook checks
    ("ExposedKing", True, "4k3/p5R1/4pp1p/3p4/3P3P/1Pq1nP2/K7/6R1 w - - 7 37", "g7g8 e8e7 g1g7 e7d6 g8d8 d6c6 d8c8"),
    # lichess 01tZ5 (no exposedKing): Kh7 stands beside its g7 pawn, tucked in although h6/g6 are empty
    ("ExposedKing", False, "1r4r1/2q2ppk/2pb1n2/1p2pN1p/4P3/4Q1RP/PP3PP1/R5K1 w - - 0 26", "g3g7 g8g7 e3h6 h7g8 h6g7"),
    # lichess 09cL6 (no exposedKing): Ke7 beside its f7 pawn
    (
        "ExposedKing",
        False,
        "8/2r1kpp1/7p/2q5/5Q2/p7/6PP/3R3K w - - 0 30",
        "f4e4 e7f6 d1f1 f6g5 h2h4 g5h5 f1f5 c5f5 e4f5",
    ),
    # --- DiscoveredAttack by unmasking: the piece behind attacks, the piece attacked is won later
    # lichess practice "Discovered Attack #4": Nd5 unmasks Ra4 on Rc4, which flees into the knight
    ("DiscoveredAttack", True, "8/8/4np2/4pk1p/RNr4P/P3KP2/1P6/8 w - - 1 1", "b4d5 c4c7 d5c7"),
    ("DiscoveredAttack", False, "8/8/4np2/4pk1p/RNr4P/P3KP2/1P6/8 w - - 1 1", "b4d5 c4c2 d5f6"),  # it got away
    # lichess 06AH0: Ng2 unmasks Rd3 on the queen g3, taken along the opened rank two moves later
    ("DiscoveredAttack", True, "4r1k1/pp3p1p/3p2p1/8/3n4/P2RN1q1/1P6/1B1Q2K1 w - - 1 34", "e3g2 d4e2 d1e2 e8e2 d3g3"),
    # --- Interception (interference): a piece lands between a defender and what it defends
    # lichess practice "Interference #3": 17. Bb8 cuts the queen d8 from the rook a8 the queen b7 attacks
    ("Interception", True, "r2q2k1/pQ2bppp/4p3/8/3r1B2/6P1/P3PP1P/1R3RK1 w - - 1 17", "f4b8 a8b8 b7b8 d8b8 b1b8 d4d8"),
    # lichess practice "Interference Introduction": 14...Bb5 cuts Be2 from the queen a6 and attacks it
    ("Interception", True, "1r2r1k1/p1pbqppp/Q2b1n2/3p4/P2P4/2P5/1P2BPPP/R1B1KN1R b KQ - 2 14", "d7b5 a6b5 b8b5"),
    # interference with a defence against mate: lichess practice "Interference #2", 20...Rd4 cuts the
    # queen c5 from g1, so ...Qh1+ could no longer be met by Qg1 (mate follows six moves later)
    (
        "Interception",
        True,
        "1k1r3r/1pp2pp1/p1p5/2Q5/7q/2Pp1Pp1/PP1N2P1/R1B1RK2 b - - 3 20",
        "d8d4 e1e8 h8e8 c5d4 h4h1 d4g1 e8e1 f1e1 h1g1 d2f1 g1f2 e1d1 f2e2",
    ),
    # 1. Nd8 stands between the rook a8 and e8: Re8# is threatened, 1...Rxd8 2. Rxd8#
    ("Interception", True, "r6k/6pp/2N5/8/8/8/6PP/3RR1K1 w - - 0 1", "c6d8 a8d8 d1d8"),
    # the rook on b7 never guarded e8: Re8# was there before 1. Nd8, which cuts nothing
    ("Interception", False, "7k/1r4pp/2N5/8/8/8/6PP/3RR1K1 w - - 0 1", "c6d8 b7b2 e1e8"),
    # lichess 02O2z: ...Re1+ Rxe1 Rxe1# stands between the rook c1 and the king: a check, no cut defence
    ("Interception", False, "4r1k1/5ppp/2N5/1p1B2N1/6Pn/P7/2P1rP1P/2R3K1 b - - 2 28", "e2e1 c1e1 e8e1"),
    # --- Zwischenzug in a set-up position (no previous move known): the material shows the exchange
    # lichess practice "Zwischenzug": Black, a piece down, plays 9...Nd5 before taking back on b8
    ("Zwischenzug", True, "rBbqk2r/pp3ppp/5n2/8/1bpP4/8/PP2B1PP/RN1Q1KNR b kq - 0 9", "f6d5 f1f2 a8b8"),
    # lichess practice "Zwischenschach": 16...Rc1+ and ...Rxf1 before ...Qxb4+
    (
        "Zwischenzug",
        True,
        "2r2rk1/pp1b1ppp/1q2p3/3pP3/1B3Pn1/3B1N2/P3Q1PP/RN2KR2 b Q - 0 16",
        "c8c1 e1d2 c1f1 e2f1 b6b4",
    ),
    # lichess practice "Zwischenzug Challenge #3" (Gelfand v Svidler 1996): 23...Be2 hits the rook d1;
    # 24. Bxc8 first, 24...Bxd1 25. Rxd1: a rook for a rook and the bishop
    ("Zwischenzug", True, "2r2r1k/1pN1Qpbp/p4pp1/qb6/8/1B6/PP3PPP/2RR2K1 w - - 10 23", "b3e6 b5e2 e6c8 e2d1 c1d1"),
    # the same threat ignored for a pawn (24. Bxf7): the rook for a bishop and a pawn, nothing gained
    ("Zwischenzug", False, "2r2r1k/1pN1Qpbp/p4pp1/qb6/8/1B6/PP3PPP/2RR2K1 w - - 10 23", "b3e6 b5e2 e6f7 e2d1 c1d1"),
    # the rook simply steps away from the threat: no in-between move
    ("Zwischenzug", False, "2r2r1k/1pN1Qpbp/p4pp1/qb6/8/1B6/PP3PPP/2RR2K1 w - - 10 23", "b3e6 b5e2 d1d2"),
    # pychess mate in 2: 1. Qd5+ Ka6 2. cxb8=N# takes the rook only to mate: no recapture put off
    ("Zwischenzug", False, "1rb4r/pkPp3p/1b1P3n/1Q6/N3Pp2/8/P1P3PP/7K w - - 1 1", "b5d5 b7a6 c7b8n"),
    # --- Overload: one defender, two duties
    # lichess practice "Overloaded #10": the king c7 guards b7 and d7; 29. Rb7+ Kxb7 30. Qd7+
    (
        "Overload",
        True,
        "r7/2k1Pp1p/p1n2p2/P1b1r3/2p5/2P3P1/5P1P/1R1Q2K1 w - - 2 29",
        "b1b7 c7b7 d1d7 b7b8 e7e8q e5e8 d7e8 b8b7",
    ),
    # lichess 04fWN (deflection): the rook b8 guards d8 and the queen b7; 22. Rd8+ Rxd8 23. Qxb7
    ("Overload", True, "1r2kb1r/1q3ppp/1B2pn2/8/8/5Q2/PP3PPP/3R1RK1 w k - 7 22", "d1d8 b8d8 f3b7"),
    ("Zwischenzug", False, "1r2kb1r/1q3ppp/1B2pn2/8/8/5Q2/PP3PPP/3R1RK1 w k - 7 22", "d1d8 b8d8 f3b7"),  # b7 was held
    # lichess 02CA5 (deflection): 7...Qxc3+ 8. Qd2 Qxa1+ — the queen interposes, it guarded nothing twice
    ("Overload", False, "rnb1k2r/pp1p1ppp/2p2B2/q2Pp3/2P5/2P5/P3PPPP/R2QKBNR b KQkq - 0 7", "a5c3 d1d2 c3a1"),
    # --- DoubleAttack: two threats at once, two pieces or a piece and a mate
    # lichess 05jow: 32. Qg3 hits the rook d6 and threatens Qxg7# (the rook c7 behind g7)
    ("DoubleAttack", True, "8/2R3p1/p2rpk1p/p2p1q2/8/P4Q1P/1P4P1/7K w - - 2 32", "f3g3 f5f1 h1h2 g7g5 g3d6 f1f4 d6f4"),
    # without the rook on c7 Qg3 threatens the rook only: no double attack
    ("DoubleAttack", False, "8/6p1/p2rpk1p/p2p1q2/8/P4Q1P/1P4P1/2R4K w - - 2 32", "f3g3 f5f1 c1f1 f6e7 g3d6"),
    # --- Sacrifice: material given, or a piece offered with check and declined
    # lichess practice "Greek Gift Challenge #1": 10. Bxh7+ Kh8 (declined) … 16. Qxg7#
    (
        "Sacrifice",
        True,
        "rnb2rk1/pp1nqppp/4p3/3pP3/3p3P/2NB3N/PPP2PP1/R2QK2R w KQ - 0 10",
        "d3h7 g8h8 d1h5 e7h4 h5h4 d7f6 h7d3 h8g8 e5f6 f8e8 h4h7 g8f8 h7g7",
    ),
    ("Sacrifice", False, "6k1/5pp1/8/8/8/3B4/8/6KR w - - 0 1", "d3h7 g8f8 h7d3"),  # Rh1 guards h7: no offer
    ("Sacrifice", False, "6k1/5pp1/8/8/8/3B4/8/6K1 w - - 0 1", "d3h7 g8f8 h7d3"),  # offered for nothing
    # --- Zugzwang: every move the opponent has loses, while passing would lose nothing
    # lichess 0AC8g (zugzwang): 63...Ka5, and the king b3 must leave the pawn a4 (b4 and a3 are
    # the black pawns'); with White to pass instead, a4 stays held
    ("Zugzwang", True, "8/8/1k6/2p5/PpP5/1K6/8/8 b - - 8 63", "b6a5 b3b2 a5a4"),
    # the king c2 can step to b3 and hold a4: a reply that loses nothing, no zugzwang
    ("Zugzwang", False, "8/8/1k6/2p5/PpP5/8/2K5/8 b - - 8 63", "b6a5 c2b3"),
    # Ka5 attacks a4 that nothing can hold: every move loses it, but so would a pass: a threat
    ("Zugzwang", False, "8/8/1k6/8/P7/8/7P/7K b - - 0 1", "b6a5 h1g2 a5a4"),
    # 1. Qh7+ forces the king: a check is no zugzwang, however few the replies
    ("Zugzwang", False, "6k1/8/6K1/8/8/8/8/7Q w - - 0 1", "h1h7 g8f8 h7f7"),
    # --- mate patterns: one name per mate
    ("OperaMate", True, OPERA_BEFORE_13, OPERA_LINE),  # Rd8#, held by Bg5
    ("BackRankMate", False, OPERA_BEFORE_13, OPERA_LINE),
    ("BackRankMate", True, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),
    ("OperaMate", False, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),  # no bishop
    ("PillsburysMate", True, "6k1/5pp1/8/8/8/8/5PPP/1B1R2K1 w - - 0 1", "d1d8"),  # Rd8#, Bb1 takes h7
    ("BackRankMate", False, "6k1/5pp1/8/8/8/8/5PPP/1B1R2K1 w - - 0 1", "d1d8"),  # h7 is free, not walled
    # lichess practice "Checkmate Patterns III: Opera Mate #1" and "II: Pillsbury's Mate #1" (solved by hand)
    ("OperaMate", True, "4k3/5p2/8/6B1/8/8/8/3R2K1 w - - 0 1", "d1d8"),  # Rd8#, Bg5 holds d8
    ("PillsburysMate", True, "5rk1/5p1p/8/8/8/8/1B6/4K2R w - - 0 1", "h1g1"),  # Rg1#, Bb2 takes h8
    # lichess 047ma (operaMate): ...Rh1#, the rook next to the king on h2 held by Bc6; an Opera mate,
    # so not also Pillsbury's (one name per mate, the more specific picture first)
    ("OperaMate", True, "4k3/4r3/p1bb1Q2/2p5/2P4P/P5P1/1P3P2/6K1 b - - 0 40", "e7e1 g1h2 e1h1"),
    ("PillsburysMate", False, "4k3/4r3/p1bb1Q2/2p5/2P4P/P5P1/1P3P2/6K1 b - - 0 40", "e7e1 g1h2 e1h1"),
    # lichess 01zWA: ...Rxf1#; the bishop b6 sees g1, which the rook already takes: no part in the mate
    ("PillsburysMate", False, "8/2r5/1b5k/1P1Pp1R1/4Q2p/6pP/6P1/2r2B1K b - - 0 41", "c1f1"),
    ("CornerMate", True, "7k/7p/8/6N1/8/8/8/6RK w - - 0 1", "g5f7"),  # Nf7#, g-file held
    ("AnastasiaMate", True, "8/4N1pk/8/8/8/2K5/8/R7 w - - 0 1", "a1h1"),  # Rh1#, g7 pawn, Ne7 on g6 g8
    # lichess 0A3LP (no anastasiaMate): ...Rxh3# against Kh1 in the corner, Nf4 takes g2, the rook g1 walls it
    ("AnastasiaMate", False, "1r4kr/5p2/2p3p1/6p1/3QRn2/1P3P1P/P7/6RK b - - 0 38", "h8h3"),
    # --- lichess-puzzler's own test positions where its rule and ours differed, and the textbook sides with it
    # m3h3k: ...Rxe7, Rxc8+ Bxc8 takes back on c8 along the diagonal b7 opened: a recapture, not a discovery
    ("DiscoveredAttack", False, "2r3k1/1r2Np1p/bq1p2p1/3P4/1p2P3/4bN2/1P4PP/2RQR2K b - - 0 24", "b7e7 c1c8 a6c8"),
    # PsryZ: ...Qxf2+ Qg2 Qxb6 passes back through c5, where the queen itself stood: it uncovers nothing
    ("DiscoveredAttack", False, "4r2k/6pp/1RQ5/1pq5/8/P5PP/1P3P1K/8 b - - 4 41", "c5f2 c6g2 f2b6"),
    # oGLtH: ...Rxa6 draws the rook e6 off the e-file, where it held e1 through the pawn: ...e1=Q
    ("Deflection", True, "8/8/P3R1K1/8/5k1P/r7/4p3/8 b - - 1 52", "a3a6 e6a6 e2e1q"),
    # 069il: ...Qxd2 takes the knight left alone; Bxf6 gxf6 is an exchange after it, the knight stays won
    ("HangingPiece", True, "r2qr1k1/1p3ppp/p1p2nb1/8/2Q1P3/1P5P/PB1N1PP1/R3R1K1 b - - 2 17", "d8d2 b2f6 g7f6"),
    # lichess 00UwP (no hangingPiece): Qxd6 takes the queen, but Rxc1+ Bf1 gives back a rook at once
    ("HangingPiece", False, "5rk1/p4pp1/3qb2p/1B1p4/3P4/Q3PN2/P4PPP/1rR3K1 w - - 6 20", "a3d6 b1c1 b5f1"),
    # --- CollinearMove: a slider stays on the line of an opponent slider it could take (lichess collinearMove)
    ("CollinearMove", True, "3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d3"),  # Rd3, the rooks still face
    ("CollinearMove", True, "3q2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1", "d1d4"),  # Qd4 on the queens' file
    ("CollinearMove", False, "3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1e1"),  # it leaves the file
    ("CollinearMove", False, "5k2/8/5r2/8/8/8/1B6/6K1 w - - 0 1", "b2c3"),  # a rook is off diagonals
    # Re5 blocks the check from e8, so Rxh5 would be illegal
    ("CollinearMove", False, "4r1k1/8/8/R6q/8/8/8/4K3 w - - 0 1", "a5e5"),
    ("ArabianMate", True, "7k/1R6/5N2/8/8/8/8/6K1 w - - 0 1", "b7h7"),  # Rh7#, Nf6 guards h7 and g8
    # lichess 05HG9 (no arabianMate): the queen, not the knight g5, takes g8; the knight only guards the rook
    ("ArabianMate", False, "7k/1R6/8/6N1/2Q5/8/8/6K1 w - - 0 1", "b7h7"),
    ("SmotheredMate", True, "6rk/6pp/8/6N1/8/8/8/7K w - - 0 1", "g5f7"),
    ("CornerMate", False, "6rk/6pp/8/6N1/8/8/8/7K w - - 0 1", "g5f7"),  # smothered, not corner
    ("EpauletteMate", True, "3rkr2/8/8/8/8/8/8/4Q1K1 w - - 0 1", "e1e6"),  # Qe6#, rooks d8 f8
    ("SwallowstailMate", True, "8/3p1p2/4k3/8/8/8/8/Q3RK2 w - - 0 1", "a1e5"),  # Qe5#, pawns d7 f7
    ("EpauletteMate", False, "8/3p1p2/4k3/8/8/8/8/Q3RK2 w - - 0 1", "a1e5"),
    ("DovetailMate", False, "8/3p1p2/4k3/8/8/8/8/Q3RK2 w - - 0 1", "a1e5"),  # queen in front
    # lichess practice chapters (mates in one, solved by hand): the chapter names the pattern
    ("DovetailMate", True, "1r6/pk6/4Q3/3P4/8/8/8/6K1 w - - 0 1", "e6c6"),  # Qc6#: a7, b8 the tail
    ("DovetailMate", True, "r1b1q1r1/ppp3kp/1bnp4/4p1B1/3PP3/2P2Q2/PP3PPP/RN3RK1 w - - 0 1", "f3f6"),  # Qf6#
    ("BalestraMate", True, "5k2/8/6Q1/8/8/6B1/8/6K1 w - - 0 1", "g3d6"),  # Bd6#, Qg6 the rest
    ("DoubleBishopMate", True, "7k/5B1p/8/8/8/8/8/5KB1 w - - 0 1", "g1d4"),  # Bd4#, Bf7 takes g8
    # Bxe5#: the rook e7 also sees g7, but the bishops alone hold every square
    ("DoubleBishopMate", True, "r1bq3k/pp2R2p/3B2p1/2pBbp2/2Pp4/3P4/P1P3PP/6K1 w - - 0 1", "d6e5"),
    ("BodenMate", True, "2kr4/3p4/8/8/5B2/8/8/5BK1 w - - 0 1", "f1a6"),  # Ba6#, criss-cross
    ("MorphysMate", True, "7k/5p1p/8/8/7B/8/8/6RK w - - 0 1", "h4f6"),  # Bf6#, Rg1 holds g-file
    # lichess practice "Blind Swine Mate #1" (solved by hand): the rooks on g7 and h7 against Kg8
    ("BlindSwineMate", True, "5rk1/1R2R1pp/8/8/8/8/8/1K6 w - - 0 1", "e7g7 g8h8 g7h7 h8g8 b7g7"),
    ("BlindSwineMate", False, "6k1/5ppp/8/8/8/8/8/RR4K1 w - - 0 1", "a1a8"),  # doubled, but on the back rank
    # "Blind Swine Mate #3" as stockfish plays it: the rooks box in g8/h8, the knight e6 takes f8
    (
        "BlindSwineMate",
        True,
        "5rk1/1R1R1p1p/4N1p1/p7/5p2/1P4P1/r2nP1KP/8 w - - 0 1",
        "d7f7 f4f3 g2h3 f8a8 f7g7 g8h8 g7h7 h8g8 b7g7",
    ),
    ("BalestraMate", False, "7k/5p1p/8/8/7B/8/8/6RK w - - 0 1", "h4f6"),
    # a line that stops on the opponent's move, one mate in one left to the reader: its picture
    # lichess practice "Double Bishop Mate #3": 1...Qxf3+ 2. Bxf3, and only ...Bxf3# mates
    ("DoubleBishopMate", True, "r3k2r/pbpp1ppp/1p6/2bBPP2/8/1QPp1P1q/PP1P3P/RNBR3K b kq - 0 1", "h3f3 d5f3"),
    ("BackRankMate", True, "6k1/p4ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "h2h3 a7a6"),  # Rd8# left over
    ("BackRankMate", False, "6k1/p4ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "h2h3 a7a6"),  # Rd8# or Re8#: no one picture
    ("BackRankMate", False, "6k1/p4ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "h2h3 h7h6"),  # luft: no mate left
    # a rook, not a queen
    ("DoubleBishopMate", False, "7k/5p1p/8/8/7B/8/8/6RK w - - 0 1", "h4f6"),
]


@pytest.mark.parametrize("name, fires, fen, moves", CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_hand_checked_positions(name, fires, fen, moves):
    got = classes(fen, moves)
    assert (name in got) == fires, got
