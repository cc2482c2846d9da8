"""``chesskb convert`` on a Dask ``LocalCluster`` of N single-threaded workers against ``--jobs N`` (issue 36, item 4).

Every run converts the same file in a fresh ``chesskb`` process: ``--jobs N`` into one file (``local``),
``--cluster`` into one file (``cluster``: every statement travels back to the driver, which writes it),
and ``--cluster --parts`` into a folder (``cluster-parts``: each worker writes its units' parts, the
driver only its own part and the manifest). The table gives wall seconds, the driver's CPU seconds
(the ``chesskb`` process), the workers' CPU seconds, and whether every output holds the same sorted
statements as ``local`` (the conversion time aside). The cluster is started before the runs and is
not timed (a real cluster outlives a run); its workers' CPU is read from their process trees. Runs
alternate (local, cluster, cluster-parts, local, …) so a load change on a shared machine hits all.

    CHESSKB_ENGINE=none python bench/cluster_convert.py /tmp/chesskb-bench/csv-10000.csv --workers 2 --rounds 3
    python bench/cluster_convert.py --make-csv 10000 --shared /work/shared/data --work /tmp/cb   # builds it first
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_cluster import statements  # noqa: E402  (the test's comparison: the same rule)

#: Where each kind of run writes (``cluster-parts`` a folder of parts, the others one file).
OUTPUTS = {"local": "local.nq.gz", "cluster": "cluster.nq.gz", "cluster-parts": "cluster-parts"}


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
    if output.is_dir():
        shutil.rmtree(output)  # every run writes its parts anew, as a first conversion does
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
    parser.add_argument("--variants", nargs="+", choices=list(OUTPUTS), default=list(OUTPUTS))
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    file = make_csv(args.make_csv, args.shared, args.work / f"csv-{args.make_csv}.csv") if args.make_csv else args.file
    if file is None:
        parser.error("give a file or --make-csv N")
    from distributed import LocalCluster

    outputs = {name: args.work / output for name, output in OUTPUTS.items()}
    loads = []
    with LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        options = {
            "local": ("--jobs", str(args.workers)),
            "cluster": ("--cluster", cluster.scheduler_address),
            "cluster-parts": ("--cluster", cluster.scheduler_address, "--parts"),
        }
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in args.variants}
        for _ in range(args.rounds):
            for name in args.variants:
                before = workers_cpu(cluster)
                wall, cpu = convert(file, outputs[name], *options[name])
                runs[name].append((wall, cpu, workers_cpu(cluster) - before))
                loads.append(os.getloadavg()[0])
    expected = statements(outputs[args.variants[0]])
    same = {name: statements(outputs[name]) == expected for name in args.variants[1:]}
    print(
        f"{file.name}, {args.workers} workers, {args.rounds} rounds, load average {min(loads):.1f}–{max(loads):.1f}, "
        f"same sorted statements as {args.variants[0]}: {same}"
    )
    print("| run | wall s, median (runs) | driver CPU s | workers CPU s |")
    print("|---|---|---|---|")
    for name, values in runs.items():
        walls, cpus, workers = zip(*values, strict=True)
        print(
            f"| {name} | {statistics.median(walls):.1f} ({', '.join(f'{w:.1f}' for w in walls)}) | "
            f"{statistics.median(cpus):.1f} | {statistics.median(workers):.1f} |"
        )
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
