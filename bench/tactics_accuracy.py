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
* **Tagger cases** (``--tagger-cases``): lichess-puzzler's own test positions for each of its
  detectors (should fire / should not), mapped to our classes: how many agree.
* **Practice studies** (``--practice``): each lichess practice study is about one theme (the
  checkmate-pattern studies name it per chapter); the share of its exercises (``is_exercise``: a
  whole game in a study file is none) that give a solution and carry that theme's class. Most
  chapters give no solution, only "mate in N" (find it): the mates in one among them are solved
  here by trying every move, and scored apart ("solved by search"), the pattern carried when a
  mating move shows it; with ``--engine-solve`` the others are solved by stockfish (its principal
  variation cut to the move count the study's Termination gives: an engine's line, not the
  author's, so a third, looser figure). ``--misses`` lists every exercise that does not carry its class.

The time per position is the whole analysis (facts, solution, detectors, phase), with mate
verification by search only (``--engine`` adds stockfish for mates of three or more).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chesskb.kb.analysis import analyse
from chesskb.kb.analysis.engine import Engine, open_engine
from chesskb.kb.analysis.exercises import is_exercise
from chesskb.kb.analysis.phase import PHASE_CLASS
from chesskb.kb.analysis.themes import LICHESS_THEME_CLASSES
from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord

#: Themes decided by the rules of chess or by material alone: F1 >= 0.95 each.
TARGET_EXACT = (
    "MateInOne",
    "MateInTwo",
    "MateInThree",
    "MateInFour",
    "MateInFive",
    "PawnEndgame",
    "RookEndgame",
    "QueenEndgame",
    "MinorPieceEndgame",
    "OtherEndgame",
    "Promotion",
    "Underpromotion",
    "EnPassant",
    "CastlingMove",
)
LENGTH_KEYS = frozenset({"oneMove", "short", "long", "veryLong"})
#: Classes whose lichess key no label carries any more: counted, not scored (lichess retired
#: ``overloading``; its tagger folds overloads into ``deflection``).
NO_REFERENCE = frozenset({"Overload"})
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
#: chapter of the checkmate-pattern studies ("…: Hook Mate #2") -> its class; the chapters of mates
#: lichess has no key for (Damiano's, Lolli's, Anderssen's, Cozio's, pawn mate) are not scored.
CHAPTER_CLASSES = {
    "Back-Rank Mate": "BackRankMate",
    "Hook Mate": "HookMate",
    "Anastasia's Mate": "AnastasiaMate",
    "Blind Swine Mate": "BlindSwineMate",
    "Smothered Mate": "SmotheredMate",
    "Double Bishop Mate": "DoubleBishopMate",
    "Boden's Mate": "BodenMate",
    "Balestra Mate": "BalestraMate",
    "Arabian Mate": "ArabianMate",
    "Corner Mate": "CornerMate",
    "Morphy's Mate": "MorphysMate",
    "Pillsbury's Mate": "PillsburysMate",
    "Opera Mate": "OperaMate",
    "Dovetail Mate": "DovetailMate",
    "Swallow's Tail Mate": "SwallowstailMate",
    "Epaulette Mate": "EpauletteMate",
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
    chapter = record.headers.get("Event", "").split(":")[-1].split("#")[0].strip()
    return CHAPTER_CLASSES.get(chapter)


def _mates_in_one(board: chess.Board) -> list[chess.Move]:
    mates = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            mates.append(move)
        board.pop()
    return mates


#: Nodes stockfish may spend on one practice exercise with ``--engine-solve``.
ENGINE_SOLVE_NODES = 200_000
_MOVES_IN_TERMINATION = re.compile(r"\bin (\d+)\b")


def _engine_line(engine: Engine, record: GameRecord, board: chess.Board) -> list[chess.Move]:
    """Stockfish's principal variation, cut to the solver moves the study's Termination promises
    ("+300cp in 2", "mate in 3"); empty when it promises none."""
    found = _MOVES_IN_TERMINATION.search(record.headers.get("Termination", ""))
    if not found:
        return []
    pv = engine.uci().analyse(board, chess.engine.Limit(nodes=ENGINE_SOLVE_NODES)).get("pv", [])
    return pv[: 2 * int(found.group(1)) - 1]


def practice(directory: Path, engine: Engine | None, misses: bool, solver: Engine | None) -> None:
    """``engine`` verifies long mates (``--engine``); ``solver`` solves the exercises that give no
    solution (``--engine-solve``)."""
    print(
        "\npractice studies: exercises that give a solution / mates in one solved by search"
        + (" / the rest solved by stockfish" if solver else "")
        + ", carrying the class"
    )
    for path in sorted(directory.glob("*.pgn")):
        study = next((c for key, c in PRACTICE_STUDIES.items() if key in path.name), None)
        records = [r for r in read_records(path) if isinstance(r, GameRecord) and is_exercise(r)]
        given, searched, solved, missed = Counter(), Counter(), Counter(), []
        for record in records:
            target = study or _chapter_class(record)
            if target is None:
                continue
            board = record.start_board()
            line = record.solution
            if line:
                carried = target in analyse(board, line, engine=engine).classes
                given[carried] += 1
            elif record.headers.get("Termination", "").strip() == "mate in 1":
                carried = any(
                    target in analyse(board, [move], engine=engine).classes for move in _mates_in_one(board.copy())
                )
                searched[carried] += 1
            elif solver is not None and (line := _engine_line(solver, record, board)):
                carried = target in analyse(board, line, engine=engine).classes
                solved[carried] += 1
            else:
                continue
            if not carried:
                event = record.headers.get("Event", "?").removeprefix("Lichess Practice: ")
                missed.append(f"    {event}: {board.fen()} {board.variation_san(line) if line else '(mate in 1)'}")
        if given or searched or solved:
            label = study or "mate patterns"
            name = path.stem.removeprefix("lichess_study_lichess-practice-").split("_by_")[0]
            share = f"{given[True] / sum(given.values()):>5.0%}" if given else "    -"
            print(
                f"{name:<26} {label:<16} given {given[True]:>2}/{sum(given.values()):<2} {share}   "
                f"solved by search {searched[True]:>2}/{sum(searched.values()):<2}"
                + (f"   by stockfish {solved[True]:>2}/{sum(solved.values()):<2}" if solver else "")
            )
            if misses:
                print("\n".join(missed))


#: lichess-puzzler's tagger test cases (``lichess_puzzler_tagger_cases.csv``): its detector name ->
#: our class; detectors without a counterpart (``collinear``) are left out.
TAGGER_DETECTORS = {
    "fork": "DoubleAttack",
    "pin_prevents_attack": "Pinning",
    "pin_prevents_escape": "Pinning",
    "skewer": "Skewer",
    "trapped_piece": "TrappedPiece",
    "sacrifice": "Sacrifice",
    "deflection": "Deflection",
    "under_promotion": "Underpromotion",
    "kingside_attack": "AttackCastledKing",
    "cook:kingsideAttack": "AttackCastledKing",
    "queenside_attack": "QueensideAttack",
    "hanging_piece": "HangingPiece",
    "discovered_attack": "DiscoveredAttack",
    "advanced_pawn": "AdvancedPawn",
    "piece_endgame:ROOK": "RookEndgame",
    "intermezzo": "Zwischenzug",
    "defensive_move": "DefensiveMove",
    "check_escape": "DefensiveMove",
    "capturing_defender": "EliminateDefense",
    "back_rank_mate": "BackRankMate",
    "attraction": "Attraction",
    "x_ray": "Xray",
    "quiet_move": "QuietMove",
    "interference": "Interception",
    "collinear": "CollinearMove",
}


def tagger_cases(path: Path, misses: bool) -> None:
    """Each case: a position (FEN before the setup move, as in the puzzle CSV), the moves, a detector
    and whether it should fire. The pin sub-detectors' answer is not the pin theme's (a puzzle can
    hold a pin of the other kind), so a disagreement there says less than elsewhere."""
    agree, total, wrong = 0, 0, []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            name = TAGGER_DETECTORS.get(row["Detector"])
            if name is None:
                continue
            board = chess.Board(row["FEN"])
            moves = [chess.Move.from_uci(u) for u in row["Moves"].split()]
            board.push(moves[0])
            fired = name in analyse(board, moves[1:]).classes
            total += 1
            if fired == (row["Expected"] == "True"):
                agree += 1
            else:
                wrong.append(f"    {row['PuzzleId']} {row['Detector']} expected {row['Expected']}")
    print(f"\nlichess-puzzler tagger cases: {agree}/{total} agree")
    if misses:
        print("\n".join(wrong))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", type=Path)
    parser.add_argument("--engine", action="store_true", help="verify long mates with stockfish (slower)")
    parser.add_argument("--practice", type=Path, help="folder of lichess practice studies (PGN)")
    parser.add_argument("--tagger-cases", type=Path, help="lichess-puzzler's tagger test cases (CSV)")
    parser.add_argument(
        "--engine-solve",
        action="store_true",
        help="solve the practice exercises that give no solution with stockfish (slow)",
    )
    parser.add_argument("--misses", action="store_true", help="list the practice exercises missing their class")
    args = parser.parse_args(argv)
    records = [r for r in read_records(args.csv) if isinstance(r, GameRecord) and r.puzzle is not None]
    scored = set(LICHESS_THEME_CLASSES.values()) - NO_REFERENCE
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
    print(
        f"{len(records)} puzzles from {args.csv.name} ({labelled} with tagger labels); "
        f"{1000 * cpu / len(records):.2f} ms CPU per position"
    )
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
    print("classes without a lichess label (count only): " + ", ".join(f"{n} {c}" for n, c in unscored.most_common()))
    if args.practice:
        with (
            open_engine() if args.engine else nullcontext() as engine,
            open_engine(required=True) if args.engine_solve else nullcontext() as solver,
        ):
            practice(args.practice, engine, args.misses, solver)
    if args.tagger_cases:
        tagger_cases(args.tagger_cases, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
