#!/usr/bin/env python3
"""Print how many games python-chess's read_game loop returns for every PGN under data/.

Maintainer tool. Files that are not valid UTF-8 are read as ISO-8859-1 (latin-1).
Usage, from the repository root:  python data/tools/count_games.py
"""

import glob
import io
import logging
import os
from pathlib import Path

import chess.pgn

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
DATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

for path in sorted(glob.glob(os.path.join(DATA, "**", "*.pgn"), recursive=True)):
    raw = Path(path).read_bytes()
    try:
        text, encoding = raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        text, encoding = raw.decode("latin-1"), "latin-1"
    stream, games, with_errors = io.StringIO(text), 0, 0
    while (game := chess.pgn.read_game(stream)) is not None:
        games += 1
        with_errors += bool(game.errors)
    print(f"{os.path.relpath(path, DATA)}\t{encoding}\t{games} games\t{with_errors} with errors\t{len(raw)} bytes")
