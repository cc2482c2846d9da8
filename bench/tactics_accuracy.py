"""Per-theme precision, recall and F1 of ``chesskb classify`` against lichess's themes of the same puzzles.

    python bench/tactics_accuracy.py ../shared/data/lichess-puzzles/lichess_db_puzzle_dev.csv

Only classes with a lichess counterpart are scored (``kb.themes.LICHESS_THEME_CLASSES``); the
original classes lichess has no label for (WeakLine, AttackKingCenter, ContinuousCheck …) are listed
with their counts only. The time per position is the whole analysis (facts, solution, detectors),
with mate verification by search only (``--engine`` adds stockfish for mates of three or more).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kb.analysis import analyse  # noqa: E402
from kb.analysis.engine import close_shared_engine  # noqa: E402
from kb.reading import read_records  # noqa: E402
from kb.records import GameRecord  # noqa: E402
from kb.themes import LICHESS_THEME_CLASSES  # noqa: E402

TARGET_EXACT = ("MateInOne", "MateInTwo", "MateInThree", "MateInFour", "MateInFive", "PawnEndgame", "RookEndgame",
                "QueenEndgame", "MinorPieceEndgame", "OtherEndgame", "Promotion")
TARGET_MOTIFS = ("DoubleAttack", "Pinning", "Skewer", "DiscoveredAttack", "BackRankMate", "SmotheredMate",
                 "HangingPiece", "Sacrifice", "Deflection", "Attraction", "AttackCastledKing")


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", type=Path)
    parser.add_argument("--engine", action="store_true", help="verify long mates with stockfish (slower)")
    args = parser.parse_args(argv)
    records = [r for r in read_records(args.csv) if isinstance(r, GameRecord) and r.puzzle is not None]
    scored = set(LICHESS_THEME_CLASSES.values())
    tp, fp, fn, unscored = Counter(), Counter(), Counter(), Counter()
    start = time.perf_counter()
    for record in records:
        got = set(analyse(record.start_board(), record.solution, use_engine=args.engine).classes)
        truth = {LICHESS_THEME_CLASSES[t] for t in record.puzzle.themes if t in LICHESS_THEME_CLASSES}
        for name in got - scored:
            unscored[name] += 1
        for name in (got | truth) & scored:
            if name in got and name in truth:
                tp[name] += 1
            elif name in got:
                fp[name] += 1
            else:
                fn[name] += 1
    elapsed = time.perf_counter() - start
    close_shared_engine()
    print(f"{len(records)} puzzles from {args.csv.name}; {1000 * elapsed / len(records):.2f} ms per position")
    print(f"{'class':<20} {'labelled':>8} {'tp':>5} {'fp':>5} {'fn':>5} {'precision':>9} {'recall':>7} {'F1':>6}")
    results = {}
    for name in sorted(set(tp) | set(fp) | set(fn), key=lambda n: -(tp[n] + fn[n])):
        p = tp[name] / (tp[name] + fp[name]) if tp[name] + fp[name] else 0.0
        r = tp[name] / (tp[name] + fn[name]) if tp[name] + fn[name] else 0.0
        results[name] = f1(p, r)
        print(f"{name:<20} {tp[name] + fn[name]:>8} {tp[name]:>5} {fp[name]:>5} {fn[name]:>5} {p:>9.2f} {r:>7.2f} "
              f"{results[name]:>6.2f}")
    exact = [n for n in TARGET_EXACT if tp[n] + fn[n]]
    motifs = [n for n in TARGET_MOTIFS if tp[n] + fn[n]]
    print("\ntarget 1 (>= 0.95 each): mate-in-N, endgames, promotion: "
          + ", ".join(f"{n} {results[n]:.2f}" for n in exact))
    macro = sum(results[n] for n in motifs) / len(motifs)
    print(f"target 2 (macro >= 0.80, none < 0.60): macro-F1 {macro:.2f}, lowest "
          f"{min(motifs, key=results.get)} {min(results[n] for n in motifs):.2f}")
    print("classes without a lichess label (count only): "
          + ", ".join(f"{n} {c}" for n, c in unscored.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
