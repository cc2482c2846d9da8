"""The same proof search at different stack depths: CPU seconds, user and system.

CPython 3.11 keeps its frames on a data stack made of 16 KiB chunks; a frame pushed across the end of a chunk
maps a new one (``mmap``) and popping back unmaps it (``munmap``). A hot recursion that oscillates across such a
boundary makes two system calls and fresh page faults per call, so the same work costs more CPU when it happens
to start at an unlucky depth. An import worker forked from a pytest process starts at pytest's depth: this is
why a fixture store can cost two or three times what the same import costs from the command line.

    nice -n 19 .venv/bin/python bench/stack_depth.py [--budget 30000] [--step 8] [--deepest 200]

prints, for each extra depth, the CPU of one undecided proof search (Legall's trap, mate claimed in seven:
``tests/fixtures/competency-traps.pgn``), which spends its whole node budget.
"""

from __future__ import annotations

import argparse
import resource
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn

from chesskb.kb.analysis.proof import prove_mate

TRAP = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "competency-traps.pgn"


def at_depth(depth: int, work: Callable[[], str]) -> str:
    """``work()`` called ``depth`` frames below this one."""
    return work() if depth == 0 else at_depth(depth - 1, work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=30_000, help="the proof search's node budget")
    parser.add_argument("--step", type=int, default=8, help="extra frames between two measurements")
    parser.add_argument("--deepest", type=int, default=200, help="the deepest extra depth measured")
    args = parser.parse_args()
    with open(TRAP, encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    board = game.board()
    print("extra_frames  user_s  sys_s  verdict")
    for depth in range(0, args.deepest + 1, args.step):
        before = resource.getrusage(resource.RUSAGE_SELF)
        verdict = at_depth(depth, lambda: prove_mate(board.copy(), 7, None, budget=args.budget).verdict)
        after = resource.getrusage(resource.RUSAGE_SELF)
        print(
            f"{depth:12d}  {after.ru_utime - before.ru_utime:6.2f}  {after.ru_stime - before.ru_stime:5.2f}  {verdict}",
            flush=True,
        )


if __name__ == "__main__":
    main()
