"""Writes ../tags/pgn-tag-sample.pgn: real lichess puzzle positions under PGN tags no public collection carries.

Some PGN tags the competency questions ask about (WhiteNA e-mail addresses, Mode, EventSponsor, Section,
Stage, NIC, local Time, UTCDate/UTCTime) appear in no public game collection we may ship: public
collections drop e-mail addresses, and the rest are rarely filled in. So that the demo can answer those
questions, this file puts *invented* tag values (players "Example, …", the event "ChessPosition KB tag
sample", example.org addresses) on *real* positions: each game is a row of ``../lichess/puzzles.csv``
(CC0) after the opponent's setup move, and its movetext is the puzzle's solution. The README of data/
says so; nothing here claims a real person or event. python-chess checks every move as it is written.
Run it from the repository root to regenerate the file.
"""

from __future__ import annotations

import csv
from pathlib import Path

import chess
import chess.pgn

DATA = Path(__file__).resolve().parent.parent
PUZZLES = DATA / "lichess" / "puzzles.csv"
OUT = DATA / "tags" / "pgn-tag-sample.pgn"

EVENT = {
    "Event": "ChessPosition KB tag sample",
    "Site": "Example City ESP",
    "EventDate": "2011.04.01",
    "EventType": "swiss",
    "EventCountry": "ESP",
    "EventRounds": "5",
    "EventSponsor": "Example Chess Foundation",
    "Section": "Open",
    "Stage": "Final",
    "Mode": "OTB",
}

#: (puzzle id, the game's own tags). ``Result`` is the solver's win unless given (two games are drawn
#: or lost on purpose, so that "drawn rook endgames" and "won positions then lost" have an answer).
GAMES: list[tuple[str, dict[str, str]]] = [
    (
        "000rZ",
        {
            "Round": "1",
            "Date": "2011.04.01",
            "White": "Example, Alba",
            "Black": "Example, Bruno",
            "WhiteTitle": "FM",
            "BlackTitle": "IM",
            "WhiteElo": "2310",
            "BlackElo": "2405",
            "WhiteNA": "alba@example.org",
            "BlackNA": "bruno@example.org",
            "WhiteType": "human",
            "BlackType": "human",
            "Board": "1",
            "Opening": "Scandinavian Defense",
            "Variation": "Modern Variation",
            "SubVariation": "Main line",
            "ECO": "B01",
            "NIC": "SD 2.1",
            "Time": "19:30:00",
            "UTCDate": "2011.04.01",
            "UTCTime": "17:30:00",
            "TimeControl": "300+2",
            "Annotator": "Example, Carla",
        },
    ),
    (
        "02ry1",
        {
            "Round": "2",
            "Date": "2011.04.02",
            "White": "Example, Carla",
            "Black": "Example, Alba",
            "WhiteTitle": "WGM",
            "BlackTitle": "FM",
            "WhiteNA": "carla@example.org",
            "BlackNA": "alba@example.org",
            "Board": "2",
            "Time": "16:00:00",
            "UTCDate": "2011.04.02",
            "UTCTime": "14:00:00",
            "TimeControl": "600+5",
        },
    ),
    (
        "02Lqe",
        {
            "Round": "3",
            "Date": "2011.04.03",
            "White": "Example, Bruno",
            "Black": "Example, Carla",
            "Board": "1",
            "Time": "10:00:00",
            "UTCDate": "2011.04.03",
            "UTCTime": "08:00:00",
            "TimeControl": "5400+30",
            "Result": "1/2-1/2",
        },
    ),
    (
        "002Q2",
        {
            "Round": "4",
            "Date": "2011.04.04",
            "White": "Example, Alba",
            "Black": "Example, Carla",
            "Board": "3",
            "UTCDate": "2011.04.04",
            "UTCTime": "13:15:00",
            "Result": "1-0",
        },
    ),
]


def game_for(row: dict[str, str], tags: dict[str, str]) -> chess.pgn.Game:
    """The puzzle's position after the setup move, its solution as movetext, and the tags."""
    board = chess.Board(row["FEN"])
    moves = row["Moves"].split()
    board.push_uci(moves[0])
    game = chess.pgn.Game()
    solver_wins = "1-0" if board.turn == chess.WHITE else "0-1"
    game.headers.update({**EVENT, **{k: v for k, v in tags.items() if k != "Result"}})
    game.headers["Result"] = tags.get("Result", solver_wins)
    game.setup(board)
    node = game
    for uci in moves[1:]:
        node = node.add_variation(chess.Move.from_uci(uci))
    game.comment = f"Position of lichess puzzle {row['PuzzleId']} (CC0); every tag value is invented."
    return game


def main() -> None:
    with open(PUZZLES, newline="", encoding="utf-8") as handle:
        rows = {row["PuzzleId"]: row for row in csv.DictReader(handle)}
    text = "\n\n".join(str(game_for(rows[pid], tags)) for pid, tags in GAMES) + "\n"
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(GAMES)} games)")


if __name__ == "__main__":
    main()
