"""Per-theme precision, recall and F1 of the analysis against lichess's labels of the same puzzles.

    python bench/tactics_accuracy.py ../shared/data/lichess-puzzles/lichess_db_puzzle_dev.csv \
        [--practice ../shared/data/pychess-puzzles/lichess-practice]

* **Phases**: our one phase class per position (``kb.analysis.phase``) against lichess's
  ``opening``/``middlegame``/``endgame`` label, on every row.
* **Themes**: only classes with a lichess counterpart are scored (``kb.analysis.themes.LICHESS_THEME_CLASSES``),
  on the rows lichess's tagger labelled: a row whose themes hold no length key (``oneMove``,
  ``short``, ``long``, ``veryLong``) carries only its phase (38 of the 769 dev rows), so it says
  nothing about motifs and is left out of the theme scores. The original classes lichess has no
  label for (WeakLine, AttackKingCenter, ContinuousCheck …) are listed with their counts only.
* **Practice studies** (``--practice``): each lichess practice study is about one theme; the share
  of its exercises that give a solution and carry that theme's class.

The time per position is the whole analysis (facts, solution, detectors, phase), with mate
verification by search only (``--engine`` adds stockfish for mates of three or more).
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import nullcontext
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chesskb.kb.analysis import analyse  # noqa: E402
from chesskb.kb.analysis.engine import Engine, open_engine  # noqa: E402
from chesskb.kb.analysis.phase import PHASE_CLASS  # noqa: E402
from chesskb.kb.reading import read_records  # noqa: E402
from chesskb.kb.reading.records import GameRecord  # noqa: E402
from chesskb.kb.analysis.themes import LICHESS_THEME_CLASSES  # noqa: E402

#: Themes decided by the rules of chess or by material alone: F1 >= 0.95 each.
TARGET_EXACT = ("MateInOne", "MateInTwo", "MateInThree", "MateInFour", "MateInFive", "PawnEndgame", "RookEndgame",
                "QueenEndgame", "MinorPieceEndgame", "OtherEndgame", "Promotion", "Underpromotion", "EnPassant",
                "CastlingMove")
LENGTH_KEYS = frozenset({"oneMove", "short", "long", "veryLong"})
LICHESS_PHASES = {"opening": "PositionBegin", "middlegame": "PositionMiddle", "endgame": "PositionEnd"}

#: lichess practice study (file name part) -> the class every exercise of it should carry.
PRACTICE_STUDIES = {
    "the-fork": "DoubleAttack",
    "discovered-attacks": "DiscoveredAttack",
    "interference": "Interception",
    "overloaded-pieces": "Overload",
    "zwischenzug": "Zwischenzug",
    "greek-gift": "Sacrifice",
}


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def score(tp: Counter, fp: Counter, fn: Counter, name: str) -> tuple[int, float, float, float]:
    n = tp[name] + fn[name]
    p = tp[name] / (tp[name] + fp[name]) if tp[name] + fp[name] else 0.0
    r = tp[name] / n if n else 0.0
    return n, p, r, f1(p, r)


def table(title: str, tp: Counter, fp: Counter, fn: Counter) -> dict[str, tuple[int, float, float, float]]:
    print(f"\n{title}")
    print(f"{'class':<20} {'n':>5} {'tp':>5} {'fp':>5} {'fn':>5} {'P':>6} {'R':>6} {'F1':>6}")
    results = {}
    for name in sorted(set(tp) | set(fp) | set(fn), key=lambda c: (-(tp[c] + fn[c]), c)):
        results[name] = score(tp, fp, fn, name)
        n, p, r, f = results[name]
        print(f"{name:<20} {n:>5} {tp[name]:>5} {fp[name]:>5} {fn[name]:>5} {p:>6.2f} {r:>6.2f} {f:>6.2f}")
    return results


def _chapter_class(record: GameRecord) -> str | None:
    """The checkmate-pattern studies name the pattern in each chapter ("…: Double Bishop Mate #3")."""
    chapter = record.headers.get("Event", "").split(":")[-1].split("#")[0]
    name = "".join(word[:1].upper() + word[1:] for word in chapter.replace("'s", "s").split())
    return name if name.endswith("Mate") else None


def practice(directory: Path, engine: Engine | None) -> None:
    print("\npractice studies: exercises that give a solution and carry the study's class")
    for path in sorted(directory.glob("*.pgn")):
        study = next((c for key, c in PRACTICE_STUDIES.items() if key in path.name), None)
        records = [r for r in read_records(path) if isinstance(r, GameRecord) and r.solution]
        targets = [study or _chapter_class(r) for r in records]
        pairs = [(r, t) for r, t in zip(records, targets, strict=True) if t is not None]
        if not pairs:
            continue
        carried = sum(1 for r, t in pairs if t in analyse(r.start_board(), r.solution, engine=engine).classes)
        label = study or ", ".join(sorted({t for _, t in pairs}))
        print(f"{path.name[:60]:<60} {label:<18} {carried:>3}/{len(pairs):<3} {carried / len(pairs):>5.0%}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", type=Path)
    parser.add_argument("--engine", action="store_true", help="verify long mates with stockfish (slower)")
    parser.add_argument("--practice", type=Path, help="folder of lichess practice studies (PGN)")
    args = parser.parse_args(argv)
    records = [r for r in read_records(args.csv) if isinstance(r, GameRecord) and r.puzzle is not None]
    scored = set(LICHESS_THEME_CLASSES.values())
    tp, fp, fn, unscored = Counter(), Counter(), Counter(), Counter()
    ptp, pfp, pfn = Counter(), Counter(), Counter()
    labelled = 0
    cpu = time.process_time()
    with open_engine() if args.engine else nullcontext() as engine:
        analyses = [analyse(r.start_board(), r.solution, engine=engine) for r in records]
    cpu = time.process_time() - cpu
    for record, analysis in zip(records, analyses, strict=True):
        got = set(analysis.classes)
        themes = set(record.puzzle.themes)
        phase = next((LICHESS_PHASES[t] for t in themes if t in LICHESS_PHASES), None)
        ours = next(c for c in got if c in PHASE_CLASS.values())
        if phase is not None:
            (ptp if ours == phase else pfp)[ours] += 1
            if ours != phase:
                pfn[phase] += 1
        if not themes & LENGTH_KEYS:
            continue  # no tagger labels on this row: its phase only
        labelled += 1
        truth = {LICHESS_THEME_CLASSES[t] for t in themes if t in LICHESS_THEME_CLASSES}
        for name in got - scored - set(PHASE_CLASS.values()):
            unscored[name] += 1
        for name in (got | truth) & scored:
            if name in got and name in truth:
                tp[name] += 1
            elif name in got:
                fp[name] += 1
            else:
                fn[name] += 1
    print(f"{len(records)} puzzles from {args.csv.name} ({labelled} with tagger labels); "
          f"{1000 * cpu / len(records):.2f} ms CPU per position")
    phases = table("phases (all rows)", ptp, pfp, pfn)
    results = table(f"themes ({labelled} rows with tagger labels)", tp, fp, fn)
    exact = [n for n in TARGET_EXACT if n in results and results[n][0]]
    frequent = [n for n, v in results.items() if v[0] >= 5]
    macro = sum(results[n][3] for n in frequent) / len(frequent)
    print("\ntarget: phases F1 >= 0.90 each: " + ", ".join(f"{n} {v[3]:.2f}" for n, v in phases.items()))
    print("target: exact themes F1 >= 0.95 each: " + ", ".join(f"{n} {results[n][3]:.2f}" for n in exact))
    below = [f"{n} {results[n][3]:.2f}" for n in frequent if results[n][3] < 0.85]
    print(f"target: themes with n >= 5 ({len(frequent)}) F1 >= 0.85 each: below: {', '.join(below) or 'none'}")
    print(f"target: macro-F1 over themes with n >= 5 >= 0.95: {macro:.3f}")
    print("classes without a lichess label (count only): "
          + ", ".join(f"{n} {c}" for n, c in unscored.most_common()))
    if args.practice:
        with open_engine() if args.engine else nullcontext() as engine:
            practice(args.practice, engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
