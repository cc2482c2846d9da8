"""Import of a mate-in-N collection copied ten times, with and without the engine, against python-chess.

The corpus is ``bench/corpus.py mate-copies``: pychess's 375 mate-in-3 problems, the file copied
whole ten times with a new ``Site`` in each copy (3,750 games, 375 distinct positions and lines).
Per round, each a separate process into a new store (so a new verification cache):

* python-chess reading the file (``chess.pgn.read_game`` loop);
* ``chesskb import`` with the engine (the default when stockfish is installed);
* ``chesskb import`` with ``CHESSKB_ENGINE=none``;
* the default import again into the store of the first (a re-import: every claim in the cache).

Medians of ``--rounds`` rounds, wall and CPU (user + system of the process tree): the CPU figure
is steadier when other jobs share the machine.

``--proofs`` measures the proofs themselves instead (issue 32): every mate claim of the shipped
collections (``data/pychess/mate_in_2.pgn``, ``mate_in_3.pgn``, the ``mateInN`` puzzles of
``data/lichess/puzzles.csv``, plus any ``--held-out`` PGN whose ``Termination`` says "mate in N"), each
decided by ``kb.analysis.verify.MateVerifier`` without a cache: proven / refuted / undecided, how many
exact lengths differ from the claim, and the CPU cost per claim (median, p95, max) with and without the
engine; then the default ``chesskb import`` of each shipped PGN against python-chess's reading of it.

    python bench/verify_speed.py --rounds 5
    python bench/verify_speed.py --proofs
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
from import_speed import python_chess_seconds

ROOT = Path(__file__).resolve().parent.parent


def timed_import(
    path: Path, store: Path, jobs: int, engine: bool, source: str = "mates", code: Path = ROOT
) -> tuple[float, float]:
    """Wall and CPU seconds of one ``chesskb import`` process (of the project checked out at ``code``)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    env.pop("CHESSKB_VERIFY_CACHE", None)
    if not engine:
        env["CHESSKB_ENGINE"] = "none"
    argv = [
        sys.executable,
        "-m",
        "chesskb",
        "--store",
        str(store),
        "import",
        "--jobs",
        str(jobs),
        "--source",
        source,
        str(path),
    ]
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:  # the corpus has no unreadable game: anything else is a failure
        raise RuntimeError(process.stderr.read().decode()[-2000:] if process.stderr else "import failed")
    return wall, usage.ru_utime + usage.ru_stime


def shipped_claims(path: Path) -> list[tuple[object, int, object]]:
    """(board, claimed length, first move of the line) for every mate claim of ``path``."""
    from chesskb.kb.reading import read_records
    from chesskb.kb.reading.records import GameRecord

    claims = []
    for record in read_records(path):
        if not isinstance(record, GameRecord):
            continue
        if record.puzzle is not None:
            lengths = [int(t[len("mateIn") :]) for t in record.puzzle.themes if t.startswith("mateIn")]
        else:
            words = record.headers.get("Termination", "").split()
            lengths = [int(words[-1])] if words[:2] == ["mate", "in"] and words[-1].isdigit() else []
        if lengths:
            claims.append((record.start_board(), lengths[0], record.solution[0] if record.solution else None))
    return claims


def proofs(paths: list[Path], jobs: int) -> None:
    """Verdicts and proof cost per claim per collection, engine off and on; then import against python-chess."""
    from chesskb.kb.analysis.engine import open_engine
    from chesskb.kb.analysis.verify import MateVerifier

    print(
        f"{'collection':<34} {'engine':<6} {'claims':>6} {'proven':>6} {'refuted':>7} {'undec.':>6} "
        f"{'shorter':>7} {'med ms':>7} {'p95 ms':>7} {'max ms':>7}"
    )
    for path in paths:
        claims = shipped_claims(path)
        for use_engine in (False, True):
            with open_engine() if use_engine else _no_engine() as engine:
                verdicts: dict[str, int] = {"proven": 0, "refuted": 0, "undecided": 0}
                costs, shorter = [], 0
                for board, claimed, first in claims:
                    start = time.process_time()
                    proof = MateVerifier(engine=engine).decide(board, claimed, first)
                    costs.append(1000 * (time.process_time() - start))
                    verdicts[proof.verdict] += 1
                    shorter += proof.exact is not None and proof.exact < claimed
            costs.sort()
            p95 = costs[min(len(costs) - 1, int(0.95 * len(costs)))]
            print(
                f"{path.name:<34} {'on' if use_engine else 'off':<6} {len(claims):>6} {verdicts['proven']:>6} "
                f"{verdicts['refuted']:>7} {verdicts['undecided']:>6} {shorter:>7} "
                f"{statistics.median(costs):>7.1f} {p95:>7.1f} {costs[-1]:>7.1f}",
                flush=True,
            )
    print(f"\n{'default import (engine on)':<34} {'wall s':>7} {'cpu s':>7} {'p-chess s':>9} {'x wall':>7}")
    for path in paths:
        if path.suffix != ".pgn" or not path.is_relative_to(ROOT):
            continue
        with tempfile.TemporaryDirectory() as work:
            reference = python_chess_seconds(path)
            wall, cpu = timed_import(path, Path(work) / "store", jobs, True)
        print(f"{path.name:<34} {wall:>7.2f} {cpu:>7.2f} {reference:>9.3f} {wall / reference:>7.1f}", flush=True)


class _no_engine:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--games", type=int, default=3750)
    parser.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="the project's code to measure (e.g. an older commit unpacked with git archive)",
    )
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "chesskb-bench")
    parser.add_argument("--proofs", action="store_true", help="verdicts and proof cost per shipped collection")
    parser.add_argument(
        "--held-out",
        type=Path,
        action="append",
        default=[],
        help='with --proofs: another mate collection (PGN with Termination "mate in N")',
    )
    args = parser.parse_args(argv)
    if args.proofs:
        sys.path.insert(0, str(ROOT.parent))
        proofs(
            [
                ROOT / "data" / "pychess" / "mate_in_2.pgn",
                ROOT / "data" / "pychess" / "mate_in_3.pgn",
                ROOT / "data" / "lichess" / "puzzles.csv",
                *args.held_out,
            ],
            args.jobs,
        )
        return 0
    path = corpus.build("mate-copies", args.games, args.corpus_dir / f"mate-copies-{args.games}.pgn")
    rows: dict[str, list[tuple[float, float]]] = {
        "python-chess": [],
        "import (engine)": [],
        "import (CHESSKB_ENGINE=none)": [],
        "re-import (engine)": [],
    }
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory(dir=args.corpus_dir) as work:
            cpu = time.process_time()
            wall = python_chess_seconds(path)
            rows["python-chess"].append((wall, time.process_time() - cpu))
            run = Path(work)
            rows["import (engine)"].append(timed_import(path, run / "a", args.jobs, True, code=args.code))
            rows["import (CHESSKB_ENGINE=none)"].append(timed_import(path, run / "b", args.jobs, False, code=args.code))
            rows["re-import (engine)"].append(timed_import(path, run / "a", args.jobs, True, "again", code=args.code))
            shutil.rmtree(work, ignore_errors=True)
        print(
            f"# round {round_ + 1}: " + ", ".join(f"{k} {v[-1][0]:.2f} s" for k, v in rows.items()),
            file=sys.stderr,
            flush=True,
        )
    reference = statistics.median(w for w, _ in rows["python-chess"])
    reference_cpu = statistics.median(c for _, c in rows["python-chess"])
    print(f"{path.name}: {args.games} games, jobs {args.jobs}, medians of {args.rounds} rounds, code {args.code}")
    print(f"{'run':<30} {'wall s':>7} {'x p-chess':>9} {'cpu s':>7} {'x p-chess':>9}")
    for name, values in rows.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"{name:<30} {wall:>7.2f} {wall / reference:>9.2f} {cpu:>7.2f} {cpu / reference_cpu:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
