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

    python bench/verify_speed.py --rounds 5
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
import corpus  # noqa: E402
from import_speed import python_chess_seconds  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def timed_import(path: Path, store: Path, jobs: int, engine: bool, source: str = "mates",
                 code: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds of one ``chesskb import`` process (of the project checked out at ``code``)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    env.pop("CHESSKB_VERIFY_CACHE", None)
    if not engine:
        env["CHESSKB_ENGINE"] = "none"
    argv = [sys.executable, "-m", "chesskb", "--store", str(store), "import", "--jobs", str(jobs),
            "--source", source, str(path)]
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:  # the corpus has no unreadable game: anything else is a failure
        raise RuntimeError(process.stderr.read().decode()[-2000:] if process.stderr else "import failed")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--games", type=int, default=3750)
    parser.add_argument("--code", type=Path, default=ROOT,
                        help="the project's code to measure (e.g. an older commit unpacked with git archive)")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "chesskb-bench")
    args = parser.parse_args(argv)
    path = corpus.build("mate-copies", args.games, args.corpus_dir / f"mate-copies-{args.games}.pgn")
    rows: dict[str, list[tuple[float, float]]] = {"python-chess": [], "import (engine)": [],
                                                  "import (CHESSKB_ENGINE=none)": [], "re-import (engine)": []}
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
        print(f"# round {round_ + 1}: " + ", ".join(f"{k} {v[-1][0]:.2f} s" for k, v in rows.items()),
              file=sys.stderr, flush=True)
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
