"""Do two versions of the mate proof search give the same answers, and what does each cost in CPU?

Every mate claim of the shared collections (pychess's mates in two and three, the lichess sample's
``mateInN`` puzzles: the position after the opponent's move, the line's first move tried first) is asked
three ways: as claimed, one move longer (true with a shorter exact length: ``_shortest`` decides it) and
one move shorter (refuted, or proven when the source overstated the length). Each claim goes to
``prove_mate`` with the default budget and again with a tight one (``--tight``), engine off; ``--engine``
instead asks the claims of three moves or more once, with the engine's proposals (trees may then differ:
each must pass ``check_tree``). Per claim the script writes the verdict, shortest, ``minimal``, first
moves, the solution tree and whether ``check_tree`` accepts it at ``shortest`` with that depth.

    python bench/proof_equality.py --write /tmp/before.json          # with the old code on PYTHONPATH
    python bench/proof_equality.py --compare /tmp/before.json        # the new code against it

``--compare`` counts the claims whose answers are identical, the ones a budget left undecided before and
the new code decides (a gain), and every other difference (a failure: the exit status is 1). Trees may
differ only when both pass ``check_tree`` at the same depth. CPU seconds (``time.process_time``) of all
``prove_mate`` calls are printed per budget. ``--profile N`` instead profiles the first N mates in three
as claimed with cProfile and prints the functions with the most cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import json
import pstats
import sys
import time
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus

from chesskb.kb.analysis.engine import open_engine
from chesskb.kb.analysis.proof import NODE_BUDGET, Proposer, check_tree, prove_mate, tree_depth
from chesskb.kb.analysis.verify import engine_proposer

#: The tight budget's nodes: small enough that many claims stay undecided, so that a change in what a
#: node costs shows as claims lost or gained.
TIGHT_BUDGET = 2_000
#: The shortest claim the engine proposes moves for (``kb.analysis.verify.engine_proposer``).
ENGINE_MIN_LENGTH = 3
#: What a proof answers besides its tree.
ANSWER_KEYS = ("verdict", "shortest", "minimal", "first")
#: Longest claim asked one move longer (a mate in five claimed as six spends the whole budget refuting).
LONGER_MAX = 3


def _pgn_claims(path: Path) -> list[tuple[str, chess.Board, int, chess.Move | None]]:
    """(name, board, claimed, the line's first move) for each game whose Termination says "mate in N"."""
    claims = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            words = game.headers.get("Termination", "").split()
            if words[:2] != ["mate", "in"] or not words[-1].isdigit():
                continue
            moves = list(game.mainline_moves())
            name = f"{path.name}#{len(claims)}"
            claims.append((name, game.board(), int(words[-1]), moves[0] if moves else None))
    return claims


def _csv_claims(path: Path) -> list[tuple[str, chess.Board, int, chess.Move | None]]:
    """The same for each lichess puzzle with a ``mateInN`` theme (the position after the opponent's move)."""
    claims = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            lengths = [int(t[len("mateIn") :]) for t in row["Themes"].split() if t.startswith("mateIn")]
            if not lengths:
                continue
            moves = [chess.Move.from_uci(uci) for uci in row["Moves"].split()]
            board = chess.Board(row["FEN"])
            board.push(moves[0])
            claims.append((row["PuzzleId"], board, lengths[0], moves[1] if len(moves) > 1 else None))
    return claims


def claims() -> list[tuple[str, chess.Board, int, chess.Move | None]]:
    """(name, board, claimed, first move) for each question: as claimed, one longer, one shorter."""
    shared = corpus.SHARED
    sources = _pgn_claims(shared / "pychess-puzzles" / "mate_in_2.pgn")
    sources += _pgn_claims(shared / "pychess-puzzles" / "mate_in_3.pgn")
    sources += _csv_claims(shared / "lichess-puzzles" / "lichess_db_puzzle_dev.csv")
    out = []
    for name, board, n, first in sources:
        out.append((f"{name}@{n}", board, n, first))
        if n <= LONGER_MAX:
            out.append((f"{name}@{n + 1}", board, n + 1, first))
        if n > 1:
            out.append((f"{name}@{n - 1}", board, n - 1, first))
    return out


def answers(budget: int, proposer: Proposer | None = None) -> tuple[dict[str, dict], float]:
    """Each claim's answer with ``budget`` nodes, and the CPU seconds of all ``prove_mate`` calls (with a
    ``proposer``: only the claims it is asked about, three moves or more; its engine's CPU not counted)."""
    out, cpu = {}, 0.0
    for name, board, n, first in claims():
        if proposer is not None and n < ENGINE_MIN_LENGTH:
            continue
        start = time.process_time()
        proof = prove_mate(board, n, first, budget=budget, proposer=proposer)
        cpu += time.process_time() - start
        tree_ok = None
        if proof.tree is not None:
            # depth: the exact length when it is proven, else at most the bound
            depth = tree_depth(proof.tree)
            tree_ok = check_tree(board, proof.tree, proof.shortest) and (
                depth == proof.shortest if proof.minimal else depth <= proof.shortest
            )
        out[name] = {
            "verdict": proof.verdict,
            "shortest": proof.shortest,
            "minimal": proof.minimal,
            "first": list(proof.first_moves),
            "tree": proof.tree,
            "tree_ok": tree_ok,
            "nodes": proof.nodes,
        }
    return out, cpu


def _gains(old: dict, new: dict) -> bool:
    """Whether ``new`` says all ``old`` says and decides more: a verdict, an exact length, a first-move list
    or a stored tree that the budget left out before (the same verdict, never another)."""
    if old["verdict"] == "undecided":
        return True
    if old["verdict"] != new["verdict"]:
        return False
    exact_gained = not old["minimal"] and new["minimal"] and new["shortest"] <= old["shortest"]
    exact_same = (old["shortest"], old["minimal"]) == (new["shortest"], new["minimal"])
    first_ok = old["first"] == new["first"] or (not old["first"] and new["first"])
    tree_ok = old["tree"] == new["tree"] or (new["tree"] is not None and new["tree_ok"])
    return (exact_gained or exact_same) and first_ok and tree_ok


def compare(before: dict[str, dict], after: dict[str, dict]) -> tuple[int, int, int, list[str]]:
    """(identical, gained, trees that differ but pass, failures) of ``after`` against ``before``."""
    same = gained = other_tree = 0
    failures = []
    keys = ANSWER_KEYS
    for name, old in before.items():
        new = after[name]
        if new["tree"] is not None and not new["tree_ok"]:
            failures.append(f"{name}: new tree fails check_tree")
        elif all(old[key] == new[key] for key in (*keys, "tree")):
            same += 1
        elif all(old[key] == new[key] for key in keys) and old["tree"] is not None and new["tree"] is not None:
            other_tree += 1
        elif _gains(old, new):
            gained += 1
        else:
            failures.append(f"{name}: {[old[k] for k in keys]} -> {[new[k] for k in keys]}")
    return same, gained, other_tree, failures


def profile(count: int) -> None:
    """cProfile of the first ``count`` mates in three of pychess's collection, as claimed (default budget)."""
    asked = _pgn_claims(corpus.SHARED / "pychess-puzzles" / "mate_in_3.pgn")[:count]
    profiler = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared
    profiler.enable()
    for _, board, n, first in asked:
        prove_mate(board, n, first)
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(30)
    stats.sort_stats("tottime").print_stats(15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", type=Path, help="write this code's answers to a JSON file")
    parser.add_argument("--compare", type=Path, help="compare this code's answers with a file --write made")
    parser.add_argument("--tight", type=int, default=TIGHT_BUDGET, help="the tight budget's nodes")
    parser.add_argument("--engine", action="store_true", help="with the engine's proposals (claims of 3+ moves)")
    parser.add_argument("--profile", type=int, metavar="N", help="profile the first N mates in three instead")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile)
        return 0
    results = {}
    if args.engine:
        with open_engine(required=True) as engine:
            results["engine"], cpu = answers(NODE_BUDGET, engine_proposer(engine))
        print(f"engine: {len(results['engine'])} claims, search CPU {cpu:.2f} s (the engine's own not counted)")
    for label, budget in () if args.engine else (("default", NODE_BUDGET), ("tight", args.tight)):
        results[label], cpu = answers(budget)
        decided = sum(answer["verdict"] != "undecided" for answer in results[label].values())
        print(f"budget {label} ({budget} nodes): {len(results[label])} claims, {decided} decided, CPU {cpu:.2f} s")
    if args.write:
        args.write.write_text(json.dumps(results))
    status = 0
    if args.compare:
        before = json.loads(args.compare.read_text())
        for label in results:
            same, gained, other_tree, failures = compare(before[label], results[label])
            print(
                f"{label}: identical {same}, gained {gained}, other valid trees {other_tree}, failures {len(failures)}"
            )
            nodes_before = sum(answer["nodes"] for answer in before[label].values())
            nodes_after = sum(answer["nodes"] for answer in results[label].values())
            more = sum(
                results[label][name]["nodes"] > answer["nodes"]
                for name, answer in before[label].items()
                if all(answer[key] == results[label][name][key] for key in (*ANSWER_KEYS, "tree"))
            )
            print(f"  nodes: {nodes_before} before, {nodes_after} after; identical answers that spent more: {more}")
            for line in failures[:20]:
                print("  " + line)
            status |= bool(failures)
    return status


if __name__ == "__main__":
    sys.exit(main())
