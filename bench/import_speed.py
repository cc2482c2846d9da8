"""Import speed, memory and disk: ``chesskb import`` against python-chess's own reading, same run.

For each corpus (``bench/corpus.py`` builds them) and size:

* python-chess alone: ``chess.pgn.read_game`` over the whole PGN file; for the lichess CSV, the
  least python-chess needs to understand a row (``csv`` + ``chess.Board(FEN)`` + pushing the UCI moves).
* ``chesskb import --jobs 1`` and ``--jobs 2`` into a fresh store, each a separate process: wall time,
  the ratio to python-chess, peak RSS of the process tree (``wait4``), disk bytes per position.

    python bench/import_speed.py --kinds csv,puzzle-pgn,game-pgn --sizes 10000
    python bench/import_speed.py --kinds csv --sizes 100000,1000000 --jobs 2   # memory at scale
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class ImportRun:
    kind: str
    records: int
    jobs: int
    seconds: float
    python_chess_seconds: float
    ratio: float
    records_per_second: float
    peak_rss_mib: float
    disk_bytes_per_record: float


def python_chess_seconds(path: Path) -> float:
    """Time python-chess reading every record of ``path`` (the reference users compare us with)."""
    start = time.perf_counter()
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                board = chess.Board(row["FEN"])
                for uci in row["Moves"].split():
                    board.push(chess.Move.from_uci(uci))
    else:
        # errors="replace": a Latin-1 collection (pychess's mate_in_2.pgn) is read, not a crash
        with path.open(encoding="utf-8", errors="replace") as handle:
            while chess.pgn.read_game(handle) is not None:
                pass
    return time.perf_counter() - start


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def run_import(path: Path, jobs: int, workdir: Path, keep: Path | None = None) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB) of the import process tree, and the store's size in bytes.

    ``keep``: move the store there afterwards (``bench/queries_scale.py`` reuses it) instead of deleting it.
    """
    store = workdir / f"store-{jobs}"
    shutil.rmtree(store, ignore_errors=True)
    argv = [sys.executable, "-m", "chesskb", "--store", str(store), "import", "--jobs", str(jobs), str(path)]
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):  # 1 = some records skipped with findings, still imported
        raise RuntimeError(f"import failed ({process.returncode}): {stderr[-2000:]}")
    size = directory_bytes(store)
    if keep is not None and not keep.exists():
        shutil.move(str(store), str(keep))
    shutil.rmtree(store, ignore_errors=True)
    return seconds, usage.ru_maxrss / 1024.0, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default="csv,puzzle-pgn,game-pgn")
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--jobs", default="1,2", help="comma-separated job counts to run")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "chesskb-bench")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--keep", action="store_true", help="keep the csv stores as CORPUS_DIR/store-N for bench/queries_scale.py"
    )
    args = parser.parse_args(argv)

    runs: list[ImportRun] = []
    for kind in args.kinds.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            suffix = "csv" if kind == "csv" else "pgn"
            path = corpus.build(kind, size, args.corpus_dir / f"{kind}-{size}.{suffix}")
            reference = python_chess_seconds(path)
            with tempfile.TemporaryDirectory(dir=args.corpus_dir) as workdir:
                for jobs in (int(j) for j in args.jobs.split(",")):
                    keep = args.corpus_dir / f"store-{size}" if args.keep and kind == "csv" else None
                    seconds, rss, size_bytes = run_import(path, jobs, Path(workdir), keep)
                    runs.append(
                        ImportRun(
                            kind,
                            size,
                            jobs,
                            round(seconds, 2),
                            round(reference, 2),
                            round(seconds / reference, 2),
                            round(size / seconds),
                            round(rss, 1),
                            round(size_bytes / size),
                        )
                    )
                    print(f"# {kind} {size} jobs={jobs}: {seconds:.1f} s", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps([asdict(r) for r in runs], indent=1))
        return 0
    print(
        f"{'corpus':<11} {'records':>8} {'jobs':>4} {'import s':>9} {'p-chess s':>9} {'ratio':>6} "
        f"{'rec/s':>7} {'peak MiB':>9} {'disk B/rec':>10}"
    )
    for r in runs:
        print(
            f"{r.kind:<11} {r.records:>8} {r.jobs:>4} {r.seconds:>9.2f} {r.python_chess_seconds:>9.2f} "
            f"{r.ratio:>6.2f} {r.records_per_second:>7} {r.peak_rss_mib:>9.1f} {r.disk_bytes_per_record:>10}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
