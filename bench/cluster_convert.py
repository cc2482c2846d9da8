"""``chesskb convert`` on a Dask ``LocalCluster`` of N single-threaded workers against ``--jobs N`` (issue 36, item 4).

Both runs convert the same file in a fresh ``chesskb`` process; the table gives wall seconds,
the driver's CPU seconds (the ``chesskb`` process), and that the two outputs hold the same sorted
statements (the conversion time aside). The cluster is started before its run and is not timed
(a real cluster outlives a run); its workers' CPU is read from the scheduler's process tree.
Runs alternate (local, cluster, local, …) so a load change on a shared machine hits both.

    CHESSKB_ENGINE=none python bench/cluster_convert.py /tmp/chesskb-bench/csv-10000.csv --workers 2 --rounds 2
    python bench/cluster_convert.py --make-csv 10000 --shared ../../shared/data --work /tmp/cb   # builds it first
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_cluster import statements  # noqa: E402  (the test's comparison: the same rule)


def make_csv(n: int, shared: Path, out: Path) -> Path:
    """The ``csv`` corpus of ``bench/corpus.py`` with its shared collections found at ``shared``."""
    sys.path.insert(0, str(ROOT / "bench"))
    import corpus

    corpus.CSV_SOURCES = (
        shared / "lichess-puzzles" / "lichess_db_puzzle_dev.csv",
        ROOT / "data" / "lichess" / "puzzles.csv",
    )
    corpus.replicate_csv(n, out)
    return out


def convert(file: Path, output: Path, *options: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``chesskb convert`` process (its children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "chesskb", "convert", *options, str(file), "-o", str(output)],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def workers_cpu(cluster) -> float:
    """CPU seconds the cluster's worker processes have used so far."""
    import psutil

    total = 0.0
    for process in cluster.workers.values():
        times = psutil.Process(process.process.pid).cpu_times()
        total += times.user + times.system
        for child in psutil.Process(process.process.pid).children(recursive=True):
            child_times = child.cpu_times()
            total += child_times.user + child_times.system
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, nargs="?")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/chesskb-bench/cluster"))
    parser.add_argument("--make-csv", type=int, default=None, metavar="N", help="build an N-puzzle csv corpus first")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    file = make_csv(args.make_csv, args.shared, args.work / f"csv-{args.make_csv}.csv") if args.make_csv else args.file
    if file is None:
        parser.error("give a file or --make-csv N")
    from distributed import LocalCluster

    local_out, cluster_out = args.work / "local.nq.gz", args.work / "cluster.nq.gz"
    with LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        runs: dict[str, list[tuple[float, float, float]]] = {"local": [], "cluster": []}
        for _ in range(args.rounds):
            wall, cpu = convert(file, local_out, "--jobs", str(args.workers))
            runs["local"].append((wall, cpu, 0.0))
            before = workers_cpu(cluster)
            wall, cpu = convert(file, cluster_out, "--cluster", cluster.scheduler_address)
            runs["cluster"].append((wall, cpu, workers_cpu(cluster) - before))
    same = statements(local_out) == statements(cluster_out)
    print(
        f"{file.name}, {args.workers} workers, {args.rounds} rounds, load average {os.getloadavg()[0]:.1f}, "
        f"same sorted statements: {same}"
    )
    print("| run | wall s (median) | driver CPU s | workers CPU s |")
    print("|---|---|---|---|")
    for name, values in runs.items():
        walls, cpus, workers = zip(*values, strict=True)
        print(
            f"| {name} | {statistics.median(walls):.1f} ({', '.join(f'{w:.1f}' for w in walls)}) | "
            f"{statistics.median(cpus):.1f} | {statistics.median(workers):.1f} |"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
