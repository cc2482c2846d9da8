"""``chesskb import --mine``: exercises found in real games by a real engine (Debian's stockfish)."""

from __future__ import annotations

import csv
from pathlib import Path

import chess
import pytest

from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.mining import MIN_GAIN, engine_path, material, mine_game
from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord

from .conftest import DATA, run_cli

needs_engine = pytest.mark.skipif(engine_path() is None, reason="no stockfish (scripts/setup.sh installs it)")


def _games(path: Path) -> list[GameRecord]:
    return [r for r in read_records(path) if isinstance(r, GameRecord)]


def _rows(store: Path, sparql: str) -> list[list[str]]:
    result = run_cli("query", sparql, "--format", "tsv", store=store)
    assert result.exit_code == 0, result.output
    return [line.split("\t") for line in result.output.splitlines()[1:]]


@needs_engine
def test_fools_mate_is_mined_as_mate_in_one_of_its_game(tmp_path: Path) -> None:
    store = tmp_path / "store"
    result = run_cli("import", "--mine", str(DATA / "pgn-extract" / "test-checkmate.pgn"), store=store)
    assert result.exit_code == 0, result.output
    rows = _rows(
        store,
        """
        SELECT ?ply ?goal ?san ?fen ?start WHERE {
          ?p cp:goal ?goal ; cp:plyInGame ?ply ; cp:solutionSan ?san ; cp:fen ?fen ; cp:hasMatch ?m ;
             a cp:MateInOne .
          ?start cp:hasMatch ?m ; cp:plyInGame 0 .
        }""",
    )
    assert len(rows) == 1
    ply, goal, san, fen, start = rows[0]
    assert (ply, goal, san) == ("3", '"mate"', '"Qh4#"')
    board = chess.Board(fen.strip('"'))
    assert board.fullmove_number == 2 and board.turn == chess.BLACK  # after 1. f3 e5 2. g4
    assert start != rows[0][0]  # the game's own start position stays a Position of the same Match


def _odds_game(opponent: str, date: str) -> GameRecord:
    (game,) = [
        g
        for g in _games(DATA / "pgn-extract" / "odds.pgn")
        if opponent in g.headers.get("Black", "") + g.headers.get("White", "")
        and g.headers.get("Date", "").startswith(date)
    ]
    return game


@needs_engine
def test_mates_and_decisive_gains_the_game_shows_are_found_in_real_games() -> None:
    opened = Engine(engine_path())
    engine = opened.uci()
    try:
        # Philidor–Cotter, London 1789: 21. Qc7+ Ke8 22. Qe7# is a forced mate the game played
        cotter = _odds_game("Cotter", "1789")
        mates = [e for e in mine_game(engine, cotter.start_board(), cotter.solution) if e.goal == "mate"]
        board = chess.Board(mates[-1].fen)
        assert board.variation_san(list(mates[-1].solution)) == "21. Qc7+ Ke8 22. Qe7#"
        # lichess puzzles are cut from real games: Moves[0] is the blunder, Moves[1] its punishment
        # (02a9L drops a rook to a back-rank pin, 06NeY hangs a rook; both swing the game by 7+ pawns)
        for puzzle_id, punishment in (("02a9L", "e5e1"), ("06NeY", "a3f3")):
            (row,) = [
                r
                for r in csv.DictReader((DATA / "lichess" / "puzzles.csv").open(encoding="utf-8"))
                if r["PuzzleId"] == puzzle_id
            ]
            start = chess.Board(row["FEN"])
            moves = [chess.Move.from_uci(uci) for uci in row["Moves"].split()]
            (exercise,) = mine_game(engine, start, moves)
            assert (exercise.ply, exercise.goal, exercise.solution[0].uci()) == (1, "win", punishment)
            board = chess.Board(exercise.fen)
            solver = board.turn
            before = material(board, solver) - material(board, not solver)
            assert list(exercise.solution) == moves[1 : 1 + len(exercise.solution)]
            for move in exercise.solution:
                board.push(move)
            assert material(board, solver) - material(board, not solver) - before >= MIN_GAIN
    finally:
        opened.close()


def test_mine_without_an_engine_says_so_and_leaves_the_store(tmp_path: Path, monkeypatch) -> None:
    store = tmp_path / "store"
    game = str(DATA / "games" / "kasparov-deep-blue-1997.pgn")
    assert run_cli("import", game, store=store).exit_code == 0
    before = _rows(store, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    monkeypatch.setenv("CHESSKB_ENGINE", str(tmp_path / "no-such-engine"))
    result = run_cli("import", "--mine", "--source", "other", game, store=store)
    assert result.exit_code == 2
    assert "--mine needs a UCI engine" in result.output
    assert _rows(store, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }") == before


@needs_engine
def test_mining_in_process_exits_cleanly(tmp_path: Path) -> None:
    """With one job the engine runs in the importer's process; the process must still end."""
    import subprocess
    import sys

    from .conftest import ROOT

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "chesskb",
            "--store",
            str(tmp_path / "store"),
            "import",
            "--mine",
            "--jobs",
            "1",
            str(DATA / "pgn-extract" / "test-checkmate.pgn"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "imported 2 games" in result.stdout
