"""Property-based tests (hypothesis): random FENs and PGN text never crash ``validate`` or the import
path; generated legal positions always validate; FEN and PGN round trips hold.

``CHESSKB_FUZZ_EXAMPLES`` sets the number of examples per property (100 by default, so the suite
stays quick); a long fuzzing run is ``CHESSKB_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import chess
import chess.pgn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chesskb.kb.checks.fen import board_from_fen, validate_fen
from chesskb.kb.checks.pgn_lint import lint_text
from chesskb.kb.findings import fen_kind
from chesskb.kb.pipeline import PipelineSettings, process_unit
from chesskb.kb.reading.units import work_units
from tests.conftest import run_cli

EXAMPLES = int(os.environ.get("CHESSKB_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- generators ---------------------------------------------------------------------------------------

FEN_ALPHABET = "KQRBNPkqrbnp12345678/ wb-KQkqa-h0123456789\t"
PGN_PIECES = [
    "1.",
    "2.",
    "3...",
    "e4",
    "e5",
    "Nf3",
    "Cf3",
    "Nc6",
    "O-O",
    "0-0",
    "Qxf7#",
    "e8=Q",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    '"',
    "\\",
    ";",
    "%",
    "$1",
    "!?",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "\n",
    "\r\n",
    " ",
    "\x00",
    "é",
    '[Event "x"]\n',
    '[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n',
    '[SetUp "1"]\n',
    "<script>",
    "--",
    "Z0",
    "Kxe1",
    "\t",
]


@st.composite
def random_fens(draw) -> str:
    """FEN-shaped text: usually six fields of plausible characters, sometimes anything."""
    if draw(st.booleans()):
        return draw(st.text(max_size=90))
    fields = [draw(st.text(alphabet=FEN_ALPHABET, min_size=0, max_size=40)) for _ in range(6)]
    return " ".join(fields)


@st.composite
def legal_boards(draw) -> chess.Board:
    """A position reached by up to 80 random legal moves from the start."""
    board = chess.Board()
    for _ in range(draw(st.integers(0, 80))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


pgn_texts = st.lists(st.one_of(st.sampled_from(PGN_PIECES), st.text(max_size=6)), max_size=60).map("".join)


# -- properties -------------------------------------------------------------------------------------


@FUZZ
@given(random_fens())
def test_random_fens_never_crash_the_validator(fen: str) -> None:
    errors = validate_fen(fen)
    assert all(fen_kind(error) in ("syntax", "semantic") and error.message for error in errors)
    if not errors:  # whatever we accept must set up as a board
        assert board_from_fen(fen) is not None


@FUZZ
@given(legal_boards())
def test_generated_legal_positions_always_validate_and_round_trip(board: chess.Board) -> None:
    fen = board.fen(en_passant="fen")  # the standard's convention: the square after every double step
    assert validate_fen(fen) == [], fen
    assert validate_fen(board.fen()) == []
    assert chess.Board(fen).fen(en_passant="fen") == fen


@FUZZ
@given(legal_boards())
def test_game_to_pgn_to_game_round_trips(board: chess.Board) -> None:
    game = chess.pgn.Game.from_board(board)
    text = str(game)
    again = chess.pgn.read_game(io.StringIO(text))
    assert again is not None and not again.errors
    assert list(again.mainline_moves()) == list(board.move_stack)
    assert [f for f in lint_text(text) if f.level == "error"] == []


@FUZZ
@given(pgn_texts)
def test_random_pgn_text_never_crashes_the_validator(text: str) -> None:
    findings = lint_text(text, "fuzz.pgn")
    assert all(finding.file == "fuzz.pgn" and finding.message for finding in findings)


@FUZZ
@given(pgn_texts)
def test_random_pgn_text_never_crashes_the_import_path(text: str) -> None:
    """Reading, analysis and mapping of every unit (what an import's workers do), without a store."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.pgn"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        pipeline = PipelineSettings("https://w3id.org/chesskb/id/", (), None, False)
        for unit in work_units(path, "fuzz", "fuzz.pgn", None):
            result = process_unit(unit, pipeline)
            assert all(finding.message for finding in result.findings)


@settings(
    max_examples=max(5, EXAMPLES // 10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(pgn_texts)
def test_random_pgn_text_never_crashes_chesskb_import(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.pgn"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    result = run_cli("import", str(path), store=tmp_path / "store")
    assert result.exit_code in (0, 1), (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    validated = run_cli("validate", str(path), "--format", "json")
    assert validated.exit_code in (0, 1), validated.output
