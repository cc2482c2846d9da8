"""Mate claims decided by proof (kb.analysis.proof), checked against python-chess by the test itself.

Every proven tree is replayed here move by move with every defence enumerated again by python-chess,
and every exact length is confirmed by a plain brute-force search written here (no memo, no move
ordering, no budget): the expected answers never come from the code under test.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess
import pytest

from chesskb.kb.analysis import analyse
from chesskb.kb.analysis.engine import engine_path
from chesskb.kb.analysis.exercises import assess_themes
from chesskb.kb.analysis.proof import PROVEN, REFUTED, UNDECIDED, MateSearch, _check_candidates, prove_mate
from chesskb.kb.analysis.themes import MATE_IN_CLASSES
from chesskb.kb.analysis.verify import MateVerifier
from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord

from .conftest import DATA
from .test_exercises import _after as _loses  # push a defence, then the brute force
from .test_exercises import mates_within

needs_engine = pytest.mark.skipif(engine_path() is None, reason="no stockfish (scripts/setup.sh installs it)")


def brute_mates(board: chess.Board, moves: int) -> bool:
    """The side to move mates within ``moves`` against every defence: every legal move tried, nothing
    pruned (``tests.test_exercises.mates_within``, no memo, no move ordering, no budget)."""
    return mates_within(board, moves)


def replay(board: chess.Board, tree: dict, moves: int) -> int:
    """Walk a solution tree against python-chess: one legal attacking move per node, then every legal
    defence (compared with the tree's), mate within ``moves``. Returns the longest branch's length."""
    assert len(tree) == 1 and moves >= 1
    ((uci, replies),) = tree.items()
    move = chess.Move.from_uci(uci)
    assert board.is_legal(move), (board.fen(), uci)
    board.push(move)
    try:
        if board.is_checkmate():
            assert replies == {}
            return 1
        legal = sorted(m.uci() for m in board.legal_moves)
        assert legal, "stalemate is no mate"
        assert sorted(replies) == legal, board.fen()  # every defence answered, no invented one
        longest = 0
        for defence in legal:
            board.push(chess.Move.from_uci(defence))
            try:
                longest = max(longest, replay(board, replies[defence], moves - 1))
            finally:
                board.pop()
        return 1 + longest
    finally:
        board.pop()


def mate_claims() -> list[tuple[str, chess.Board, int, list[chess.Move]]]:
    """Every shipped mate claim: pychess's mates in two and three (their Termination), lichess mateInN puzzles."""
    claims = []
    for name in ("mate_in_2", "mate_in_3"):
        for record in read_records(DATA / "pychess" / f"{name}.pgn"):
            if isinstance(record, GameRecord):
                moves = int(record.headers["Termination"].split()[-1])
                claims.append(
                    (f"{name} game {record.location.game_number}", record.start_board(), moves, record.solution)
                )
    for record in read_records(DATA / "lichess" / "puzzles.csv"):
        if isinstance(record, GameRecord) and record.puzzle is not None:
            lengths = [int(theme[len("mateIn") :]) for theme in record.puzzle.themes if theme.startswith("mateIn")]
            if lengths:
                claims.append((f"lichess {record.puzzle.puzzle_id}", record.start_board(), lengths[0], record.solution))
    return claims


def test_every_shipped_mate_claim_is_proven_by_a_tree_python_chess_replays():
    claims = mate_claims()
    assert len(claims) == 96 + 40 + 160
    for name, board, moves, solution in claims:
        proof = prove_mate(board, moves, solution[0] if solution else None)
        assert proof.verdict == PROVEN, name
        assert proof.tree is not None and proof.minimal, name
        assert replay(board.copy(), proof.tree, proof.shortest) == proof.shortest, name  # the tree is exact
        shortest = proof.shortest
        assert shortest <= moves
        if shortest > 1:  # exact: no mate one move sooner, by the brute force
            assert not brute_mates(board.copy(), shortest - 1), name
        if proof.first_moves:  # every listed first move mates within the claim, and no other does
            for move in board.legal_moves:
                after = board.copy()
                after.push(move)
                mates = after.is_checkmate() or (
                    moves > 1
                    and any(after.legal_moves)
                    and all(_loses(after, defence, moves - 1) for defence in list(after.legal_moves))
                )
                assert (move.uci() in proof.first_moves) == mates, (name, move.uci())


def test_a_budget_of_one_node_leaves_every_claim_undecided_never_false():
    for name, board, moves, solution in mate_claims()[::5]:
        proof = prove_mate(board, moves, solution[0] if solution else None, budget=1)
        if moves == 1 and proof.verdict == PROVEN:  # the first move tried mates: one node is a whole proof
            assert proof.tree is not None and replay(board.copy(), proof.tree, 1) == 1
            continue
        assert proof.verdict == UNDECIDED, name
        assert proof.tree is None and proof.shortest is None
    name, board, moves, solution = mate_claims()[100]
    analysis = analyse(board, solution, verifier=MateVerifier(budget=1))
    assert analysis.facts["mateVerification"] == UNDECIDED
    assert "mateIn" not in analysis.facts and "mateWithin" not in analysis.facts
    assert not set(MATE_IN_CLASSES.values()) & set(analysis.classes)


def test_a_refutation_is_a_proof_the_brute_force_confirms():
    """Fool's mate after 1. f3: the line 1...e5 2. g4 Qh4# mates only because White helped."""
    game = next(r for r in read_records(DATA / "pgn-extract" / "test-checkmate.pgn") if isinstance(r, GameRecord))
    board = game.start_board()
    board.push(game.solution[0])
    assert prove_mate(board, 2).verdict == REFUTED
    assert not brute_mates(board.copy(stack=False), 2)
    assert prove_mate(board, 2, budget=10).verdict == UNDECIDED  # too little to refute: not "false"


def _record(tmp_path: Path, fen: str, termination: str, movetext: str) -> GameRecord:
    path = tmp_path / "claim.pgn"
    path.write_text(
        f'[Event "?"]\n[FEN "{fen}"]\n[SetUp "1"]\n[Termination "{termination}"]\n\n{movetext} *\n', encoding="utf-8"
    )
    (record,) = [r for r in read_records(path) if isinstance(r, GameRecord)]
    return record


def test_a_mate_in_two_that_mates_in_one_is_a_mate_in_one(tmp_path: Path):
    """The class names the exact length; the source's claim stays beside it, marked with the proof's finding."""
    fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
    board = chess.Board(fen)
    assert brute_mates(board.copy(), 1)
    record = _record(tmp_path, fen, "mate in 2", "1. Ra8#")
    analysis = analyse(record.start_board(), record.solution)
    themes = assess_themes(record, analysis)
    assert "MateInOne" in themes.classes and "MateInTwo" not in themes.classes
    assert [claim.describe() for claim in themes.claims] == ["MateInTwo in 2 proven, shortest 1"]
    assert analysis.facts["mateIn"] == analysis.facts["mateWithin"] == 1
    assert analysis.facts["mateFirstMoves"] == "a1a8"


def test_a_refuted_line_asserts_no_mate_and_keeps_its_claim(tmp_path: Path):
    """After 1. f3 the line 1...e5 2. g4 Qh4# is no forced mate: no class, no mateIn, the claim kept as refuted."""
    board = chess.Board()
    board.push_san("f3")
    record = _record(tmp_path, board.fen(), "mate in 2", "1... e5 2. g4 Qh4#")
    analysis = analyse(record.start_board(), record.solution)
    themes = assess_themes(record, analysis, exercise=True)  # (move 1 with every man home reads as a game)
    assert analysis.facts["mateVerification"] == REFUTED and "mateIn" not in analysis.facts
    assert not any(name.startswith("MateIn") for name in themes.classes)
    assert sorted(claim.describe() for claim in themes.claims) == ["MateInTwo in 2 refuted"]


def test_the_stored_tree_is_the_proof(tmp_path: Path):
    """The JSON tree the trainer reads replays as a proof of the exact length."""
    _name, board, _moves, solution = next(claim for claim in mate_claims() if claim[0] == "mate_in_3 game 22")
    facts = analyse(board, solution).facts
    tree = json.loads(str(facts["solutionTree"]))
    assert replay(board.copy(), tree, 3) == facts["mateIn"] == 3


@needs_engine
def test_the_engine_changes_no_verdict(engine):
    """Re-deciding with the engine's proposals gives the same verdicts and lengths (it only orders moves)."""
    for name, board, moves, solution in [claim for claim in mate_claims() if claim[2] >= 3]:
        plain = MateVerifier().decide(board, moves, solution[0])
        helped = MateVerifier(engine=engine).decide(board, moves, solution[0])
        assert (plain.verdict, plain.shortest, plain.minimal) == (helped.verdict, helped.shortest, helped.minimal), name


def test_a_mate_whose_exact_length_does_not_fit_the_budget_asserts_no_class(tmp_path: Path):
    """Proven within three, "no mate in two" not refuted in time: the bound is kept, no class claimed."""
    (record,) = [
        r
        for r in read_records(DATA / "pychess" / "mate_in_3.pgn")
        if isinstance(r, GameRecord) and r.location.game_number == 1
    ]
    budget = next(
        b
        for b in range(100, 2000, 50)
        if prove_mate(record.start_board(), 3, record.solution[0], budget=b).verdict == PROVEN
    )
    proof = prove_mate(record.start_board(), 3, record.solution[0], budget=budget)
    assert proof.verdict == PROVEN and not proof.minimal and proof.exact is None  # the budget's doing
    assert brute_mates(record.start_board(), 3) and not brute_mates(record.start_board(), 2)  # the truth: 3
    analysis = analyse(record.start_board(), record.solution, verifier=MateVerifier(budget=budget))
    themes = assess_themes(record, analysis, verifier=MateVerifier(budget=budget))
    assert analysis.facts["mateVerification"] == PROVEN and analysis.facts["mateWithin"] == 3
    assert "mateIn" not in analysis.facts and not set(MATE_IN_CLASSES.values()) & set(themes.classes)
    assert "MateInThree in 3 proven, exact length undecided" in [claim.describe() for claim in themes.claims]


def test_a_search_asks_the_proposer_a_bounded_number_of_times():
    """PROPOSALS_MAX: a claim that ends undecided does not ask the engine at every node (a round trip each)."""
    from chesskb.kb.analysis.proof import PROPOSALS_MAX

    board = chess.Board("8/8/8/8/8/2k5/8/R3K3 w - - 0 1")  # king and rook against king: no mate in three
    asked: list[int] = []

    def proposer(position: chess.Board, k: int) -> list[chess.Move]:
        asked.append(k)
        return []

    proof = prove_mate(board, 6, budget=20_000, proposer=proposer)
    assert proof.verdict in (REFUTED, UNDECIDED)  # the budget decides how long, never "false" without a proof
    assert 0 < len(asked) <= PROPOSALS_MAX


def test_the_proposer_is_asked_only_when_the_line_does_not_decide():
    """A mate in three whose line's first move mates needs no proposal where the engine would make one
    (three moves or more left: ``verify.EngineProposer``; a round trip each): the proposer is asked only
    once the moves before it failed, and the answer is the same."""
    _name, board, moves, solution = next(claim for claim in mate_claims() if claim[0] == "mate_in_3 game 22")
    asked: list[int] = []

    def proposer(position: chess.Board, k: int) -> list[chess.Move]:
        asked.append(k)
        return []

    with_line = prove_mate(board, moves, solution[0], proposer=proposer)
    assert [k for k in asked if k >= 3] == [] and with_line.verdict == PROVEN
    without_line = prove_mate(board, moves, proposer=proposer)
    assert 3 in asked
    assert (without_line.verdict, without_line.shortest, without_line.minimal) == (PROVEN, 3, True)


#: Checks a coarse filter misses easily, each with the move that gives it: castling (the rook checks),
#: en passant (two pawns leave the rank), promotions whose pawn stood between its landing and the king.
SPECIAL_CHECKS = {
    "4rkr1/4p1p1/8/8/8/8/8/4K2R w K - 0 1": "e1g1",
    "8/8/8/R1pP3k/8/8/8/4K3 w - c6 0 1": "d5c6",
    "8/5P2/5k2/8/8/8/8/4K3 w - - 0 1": "f7f8r",
    "8/6P1/7k/8/8/8/8/4K3 w - - 0 1": "g7g8n",
}


def test_the_moves_tried_for_a_mate_in_one_include_every_check():
    """With one move left only a check can mate, so the search tries only the moves that may give check
    (``_check_candidates``): every move python-chess says gives check must be among them, in python-chess's
    order. Positions: the special checks above, every shipped claim's start and seeded random play from them."""
    starts = [board for _, board, _, _ in mate_claims()]
    positions = [chess.Board(fen) for fen in SPECIAL_CHECKS]
    rng = random.Random(36)
    for start in starts:
        for _ in range(6):
            board = start.copy(stack=False)
            for _ in range(rng.randrange(12)):
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
            positions.append(board)
    tried = checks = 0
    for board in positions:
        candidates = _check_candidates(board, board.king(not board.turn))
        legal = [move for move in board.generate_pseudo_legal_moves() if board.is_legal(move)]
        giving = [move for move in legal if board.gives_check(move)]
        assert set(giving) <= set(candidates), (board.fen(), set(giving) - set(candidates))
        assert candidates == [move for move in legal if move in candidates], board.fen()  # legal, in order
        tried, checks = tried + len(candidates), checks + len(giving)
    for fen, uci in SPECIAL_CHECKS.items():
        assert chess.Move.from_uci(uci) in _check_candidates(chess.Board(fen), chess.Board(fen).king(chess.BLACK))
    assert checks > 1000 and tried < 1.5 * checks  # many checks seen; few other moves tried


@pytest.mark.parametrize("fen", ["k7/8/2K5/8/8/8/8/7R w - - 0 1", "7k/8/5K2/8/8/8/8/R7 w - - 0 1"])
def test_a_memo_answers_at_one_fifty_move_clock_only_where_the_clock_cannot_matter(fen: str):
    """A quiet mate in two at clock 0 is no mate at clock 99 (the attacker's first move brings the clock to
    100 and the defender claims the draw); a search asked at clock 0 first must still say so at 99."""
    calm = chess.Board(fen)
    late = chess.Board(fen)
    late.halfmove_clock = 99
    assert brute_mates(calm.copy(), 2) and not brute_mates(calm.copy(), 1)
    # no first move resets the clock: the rook and king have no capture and there is no pawn
    assert not any(calm.is_capture(m) or calm.piece_type_at(m.from_square) == chess.PAWN for m in calm.legal_moves)
    search = MateSearch()
    assert search.mates_within(calm.copy(), 2) is True
    assert search.mates_within(late.copy(), 2) is False
    assert MateSearch().mates_within(late.copy(), 2) is False
