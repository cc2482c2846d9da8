#!/usr/bin/env python3
"""Reproduce data/lichess/puzzles.csv from the shared CC0 lichess puzzle sample.

Maintainer tool (not used by the tests). Usage, from the repository root:

    python data/tools/select_lichess.py [SOURCE_CSV] [OUTPUT_CSV]

Defaults: SOURCE_CSV = ../shared/data/lichess-puzzles/lichess_db_puzzle_dev.csv
          OUTPUT_CSV = data/lichess/puzzles.csv

Rows are copied byte for byte (same header, same columns and column order, same
CRLF line endings) and written in their order in the source file. The selection
is deterministic: no randomness, ties broken by PuzzleId.

1. Every target theme gets up to QUOTA positive rows. Themes are handled from the
   rarest to the commonest; for each theme the candidate rows are ranked by how
   many still-under-quota target themes they would also cover (more first), then
   by PuzzleId.
2. The secondary themes (other lichess labels worth a few examples) get up to
   SECONDARY_QUOTA rows in the same way.
3. The sample is filled up to TOTAL rows with every k-th remaining row in
   PuzzleId order (a spread over ratings and phases; gives natural negatives).
"""

import csv
import io
import os
import sys

TARGET_THEMES = [
    "mateIn1",
    "mateIn2",
    "mateIn3",
    "mateIn4",
    "mateIn5",
    "fork",
    "pin",
    "skewer",
    "discoveredAttack",
    "discoveredCheck",
    "doubleCheck",
    "backRankMate",
    "smotheredMate",
    "anastasiaMate",
    "arabianMate",
    "hookMate",
    "bodenMate",
    "doubleBishopMate",
    "dovetailMate",
    "hangingPiece",
    "trappedPiece",
    "sacrifice",
    "deflection",
    "attraction",
    "kingsideAttack",
    "promotion",
    "underPromotion",
    "enPassant",
    "castling",
    "quietMove",
    "defensiveMove",
    "clearance",
    "interference",
    "intermezzo",
    "xRayAttack",
    "capturingDefender",
    "pawnEndgame",
    "rookEndgame",
    "queenEndgame",
    "bishopEndgame",
    "knightEndgame",
    "opening",
    "middlegame",
    "endgame",
]
SECONDARY_THEMES = [
    "cornerMate",
    "epauletteMate",
    "morphysMate",
    "operaMate",
    "pillsburysMate",
    "swallowstailMate",
    "zugzwang",
    "advancedPawn",
    "exposedKing",
    "attackingF2F7",
    "queensideAttack",
    "queenRookEndgame",
    "equality",
]
QUOTA = 8
SECONDARY_QUOTA = 3
TOTAL = 300

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SRC = os.path.join(REPO, "..", "shared", "data", "lichess-puzzles", "lichess_db_puzzle_dev.csv")
DEFAULT_OUT = os.path.join(REPO, "data", "lichess", "puzzles.csv")


def load(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    lines = raw.splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    rows = []
    for index, line in enumerate(body):
        fields = next(csv.reader(io.StringIO(line.decode("utf-8"))))
        rows.append({"index": index, "raw": line, "id": fields[0], "themes": set(fields[7].split())})
    return header, rows


def select(rows):
    chosen = set()

    def covered(theme):
        return sum(1 for r in rows if r["index"] in chosen and theme in r["themes"])

    def fill(themes, quota):
        order = sorted(themes, key=lambda t: (sum(t in r["themes"] for r in rows), t))
        for theme in order:
            while covered(theme) < quota:
                cands = [r for r in rows if theme in r["themes"] and r["index"] not in chosen]
                if not cands:
                    break
                under = {t for t in themes if covered(t) < quota}
                cands.sort(key=lambda r: (-len(r["themes"] & under), r["id"]))
                chosen.add(cands[0]["index"])

    fill(TARGET_THEMES, QUOTA)
    fill(SECONDARY_THEMES, SECONDARY_QUOTA)
    rest = sorted((r for r in rows if r["index"] not in chosen), key=lambda r: r["id"])
    need = TOTAL - len(chosen)
    if need > 0 and rest:
        step = len(rest) / need
        for i in range(need):
            chosen.add(rest[int(i * step)]["index"])
    return [r for r in rows if r["index"] in chosen]


def main(argv):
    src = argv[1] if len(argv) > 1 else DEFAULT_SRC
    out = argv[2] if len(argv) > 2 else DEFAULT_OUT
    header, rows = load(src)
    picked = select(rows)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as fh:
        fh.write(header)
        for r in picked:
            fh.write(r["raw"])
    print(f"{len(picked)} rows -> {out}")
    for theme in TARGET_THEMES + SECONDARY_THEMES:
        n = sum(theme in r["themes"] for r in picked)
        print(f"  {theme}: {n}")


if __name__ == "__main__":
    main(sys.argv)
