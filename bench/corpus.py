"""Build benchmark collections of any size from the real collections in ``../shared/data``.

Three kinds, each a real collection replicated until it holds N records:

``csv``        the lichess puzzle rows (``lichess-puzzles/lichess_db_puzzle_dev.csv``, 769 CC0 rows, and
               the project's ``data/lichess/puzzles.csv``), replica k renaming ``PuzzleId`` to ``ID~k`` and
               the game in ``GameUrl`` to ``GAMEk`` — every row is a new Position and a new Match, the board
               and solution are the real ones.
``puzzle-pgn`` the pychess mate-in-2/3 collections (541 games with FEN), replica k suffixing ``Event``
               with `` #k`` and setting ``Round`` to k.
``mate-copies`` the pychess mate-in-3 collection (375 problems) copied whole, copy k > 0 with ``Site``
               suffixed `` copy k``: the same positions and solutions again and again, as when one
               collection is imported under several names (N is rounded to whole copies).
``game-pgn``   full games (Kasparov–Deep Blue 1997, pgn-extract's odds games, the standard-chess games of
               python-chess's test data), replicated the same way.

PGN replicas keep their moves, so by the knowledge base's identity rule (same moves from the same start
is the same game, as pgn-extract decides) they merge into the original Match: the PGN corpora measure
reading/analysis/mapping throughput, the CSV corpus builds knowledge bases of N distinct positions.

    python bench/corpus.py csv 100000 /tmp/bench/puzzles-100k.csv
    CHESSKB_SHARED_DATA=/work/shared/data python bench/corpus.py mate-copies 3750 /tmp/bench/mates.pgn
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import sys
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
#: The shared collections: beside the checkout (``../shared/data``), or where ``CHESSKB_SHARED_DATA`` says
#: (a worktree elsewhere).
SHARED = Path(os.environ.get("CHESSKB_SHARED_DATA") or ROOT.parent / "shared" / "data")

CSV_SOURCES = (SHARED / "lichess-puzzles" / "lichess_db_puzzle_dev.csv", ROOT / "data" / "lichess" / "puzzles.csv")
PUZZLE_PGN_SOURCES = (SHARED / "pychess-puzzles" / "mate_in_2.pgn", SHARED / "pychess-puzzles" / "mate_in_3.pgn")
GAME_PGN_SOURCES = (
    SHARED / "python-chess-pgn" / "kasparov-deep-blue-1997.pgn",
    SHARED / "python-chess-pgn" / "molinari-bordais-1979.pgn",
    SHARED / "python-chess-pgn" / "nepomniachtchi-liren-game1.pgn",
    SHARED / "python-chess-pgn" / "anastasian-lewis.pgn",
    SHARED / "pgn-extract-tests" / "odds.pgn",
    SHARED / "pgn-extract-tests" / "test-repetition.pgn",
    SHARED / "pgn-extract-tests" / "test-long-line.pgn",
)

KINDS = ("csv", "puzzle-pgn", "game-pgn", "mate-copies")
MATE_COPIES_SOURCE = SHARED / "pychess-puzzles" / "mate_in_3.pgn"


def csv_rows() -> tuple[list[str], list[dict[str, str]]]:
    """The distinct puzzle rows of the CSV sources (by PuzzleId), in file order."""
    seen: set[str] = set()
    rows: list[dict[str, str]] = []
    header: list[str] = []
    for path in CSV_SOURCES:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            header = header or list(reader.fieldnames or [])
            for row in reader:
                if row["PuzzleId"] not in seen:
                    seen.add(row["PuzzleId"])
                    rows.append(row)
    return header, rows


def replicate_csv(n: int, out: Path) -> None:
    header, rows = csv_rows()
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        for i in range(n):
            replica, index = divmod(i, len(rows))
            row = dict(rows[index])
            if replica:
                row["PuzzleId"] = f"{row['PuzzleId']}~{replica}"
                row["GameUrl"] = re.sub(r"(lichess\.org/)([A-Za-z0-9]+)", rf"\g<1>\g<2>{replica}", row["GameUrl"])
            writer.writerow(row)


def pgn_games(paths: tuple[Path, ...]) -> list[str]:
    """Each standard-chess game of the files as PGN text (python-chess's exporter, one encoding: UTF-8)."""
    games = []
    for path in paths:
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        handle = io.StringIO(text)
        while (game := chess.pgn.read_game(handle)) is not None:
            if game.headers.get("Variant", "Standard").lower() in ("standard", "from position") and not game.errors:
                games.append(str(game))
    return games


def replicate_pgn(paths: tuple[Path, ...], n: int, out: Path) -> None:
    games = pgn_games(paths)
    with out.open("w", encoding="utf-8") as handle:
        for i in range(n):
            replica, index = divmod(i, len(games))
            text = games[index]
            if replica:
                text = re.sub(r'^\[Event "(.*)"\]$', rf'[Event "\g<1> #{replica}"]', text, count=1, flags=re.MULTILINE)
                text = re.sub(r'^\[Round "(.*)"\]$', f'[Round "{replica}"]', text, count=1, flags=re.MULTILINE)
            handle.write(text)
            handle.write("\n\n")


def copy_collection(path: Path, n: int, out: Path) -> None:
    """``path`` written whole ``ceil(n / games)`` times, copy k > 0 with `` copy k`` added to each ``Site``."""
    text = path.read_bytes().decode("latin-1")
    games = len(re.findall(r"^\[Event ", text, flags=re.MULTILINE))
    with out.open("w", encoding="utf-8") as handle:
        for copy in range(-(-n // games)):
            handle.write(
                text
                if not copy
                else re.sub(r'^\[Site "(.*)"\]', rf'[Site "\g<1> copy {copy}"]', text, flags=re.MULTILINE)
            )
            handle.write("\n\n")


def build(kind: str, n: int, out: Path) -> Path:
    """Write a corpus of ``kind`` with ``n`` records to ``out`` (reused when it already exists)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists() and out.stat().st_size:
        return out
    partial = out.with_name(out.name + ".partial")
    if kind == "csv":
        replicate_csv(n, partial)
    elif kind == "puzzle-pgn":
        replicate_pgn(PUZZLE_PGN_SOURCES, n, partial)
    elif kind == "game-pgn":
        replicate_pgn(GAME_PGN_SOURCES, n, partial)
    elif kind == "mate-copies":
        copy_collection(MATE_COPIES_SOURCE, n, partial)
    else:
        raise ValueError(f"unknown corpus kind {kind!r}")
    partial.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if not SHARED.is_dir():
        print(f"needs the shared collections at {SHARED}", file=sys.stderr)
        return 2
    print(build(args.kind, args.n, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
