"""The lichess puzzle CSV (``lichess_db_puzzle.csv``, also ``.csv.zst``).

Columns ``PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,
OpeningTags[,DailyDate]``. The CSV's FEN is the position *before* the opponent's move
``Moves[0]``; the exercise starts after it and its solution is ``Moves[1:]`` (UCI).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator

import chess

from chesskb.kb.findings import Finding
from chesskb.kb.reading.records import GameRecord, LichessPuzzle, SourceLocation
from chesskb.kb.reading.text import TOO_LARGE, OversizedLine

REQUIRED_COLUMNS = ("PuzzleId", "FEN", "Moves")


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def iter_rows(handle: Iterable[str], file_name: str) -> Iterator[tuple[dict[str, str], int] | Finding]:
    """The CSV's rows with the line each starts on; a finding instead when columns are missing."""
    reader = csv.DictReader(handle)
    missing = [column for column in REQUIRED_COLUMNS if column not in (reader.fieldnames or [])]
    if missing:
        yield Finding(
            "error",
            "csv-columns",
            f"not a lichess puzzle CSV: missing column(s) {', '.join(missing)}",
            file=file_name,
            line=1,
        )
        return
    line = reader.line_num
    reported = 0
    skipped: list[OversizedLine] = getattr(handle, "oversized", [])
    for row in reader:
        for marker in skipped[reported:]:  # a row too long to read: reported in its place
            yield Finding("error", TOO_LARGE, f"row dropped: {marker.message()}", file=file_name, line=marker.line)
        reported = len(skipped)
        yield row, line + 1
        line = reader.line_num
    for marker in skipped[reported:]:
        yield Finding("error", TOO_LARGE, f"row dropped: {marker.message()}", file=file_name, line=marker.line)


def row_to_record(row: dict[str, str], file_name: str, number: int, line: int) -> GameRecord | Finding:
    def finding(message: str, rule: str) -> Finding:
        return Finding("error", rule, message, file=file_name, game=number, line=line)

    puzzle_id = (row.get("PuzzleId") or "").strip()
    if not puzzle_id:
        return finding("empty PuzzleId; row skipped", "csv-row")
    try:
        board = chess.Board(row.get("FEN") or "")
    except ValueError as exc:
        return finding(f"puzzle {puzzle_id}: invalid FEN: {exc}", "fen-invalid")
    moves_text = (row.get("Moves") or "").split()
    if len(moves_text) < 2:
        return finding(f"puzzle {puzzle_id}: Moves needs the setup move and a solution", "csv-row")
    try:
        moves = [chess.Move.from_uci(text) for text in moves_text]
    except ValueError as exc:
        return finding(f"puzzle {puzzle_id}: invalid UCI move: {exc}", "invalid-move")
    if not board.is_legal(moves[0]):
        return finding(f"puzzle {puzzle_id}: illegal move {moves[0].uci()} (move 1 of Moves)", "illegal-move")
    fen_before_setup = board.fen()
    board.push(moves[0])
    solution = moves[1:]
    try:
        movetext = board.variation_san(solution)  # also checks every move is legal
    except chess.IllegalMoveError as exc:
        return finding(f"puzzle {puzzle_id}: {exc} (in Moves after the setup move)", "illegal-move")
    puzzle = LichessPuzzle(
        puzzle_id=puzzle_id,
        rating=_int_or_none(row.get("Rating")),
        rating_deviation=_int_or_none(row.get("RatingDeviation")),
        popularity=_int_or_none(row.get("Popularity")),
        nb_plays=_int_or_none(row.get("NbPlays")),
        themes=tuple((row.get("Themes") or "").split()),
        game_url=(row.get("GameUrl") or "").strip() or None,
        opening_tags=tuple((row.get("OpeningTags") or "").split()),
        setup_move_uci=moves[0].uci(),
        fen_before_setup=fen_before_setup,
    )
    return GameRecord(
        location=SourceLocation(file_name, number, line),
        headers={},
        start_fen=board.fen(),
        solution=solution,
        movetext=movetext,
        puzzle=puzzle,
    )
