"""Bytes an import writes to disk per byte its store keeps (issue 36, item 2).

Runs ``chesskb import`` into an empty store as a child process and reads, around it, this process's
``/proc/self/io`` ``write_bytes`` (a reaped child's writes, its workers' included, are added to its
parent's account by Linux) and ``getrusage(RUSAGE_CHILDREN)`` (CPU seconds of the import and its
workers), then the size of the live generation on disk (``du``: the bytes the store keeps). Their
ratio is how many times RocksDB rewrote each stored byte: flushes, overlapping bulk loads merged by
compactions, the final full compaction. Which code runs follows ``--chesskb`` (another checkout's
``.venv/bin/chesskb`` measures the code before a change).

    CHESSKB_ENGINE=none python bench/write_amplification.py /tmp/chesskb-bench/csv-100000.csv \
        --work /tmp/chesskb-bench/wa --jobs 2
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def written_bytes() -> int:
    """This process's ``write_bytes`` so far, its reaped children's included."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError("/proc/self/io has no write_bytes (a kernel without task I/O accounting)")


def disk_bytes(path: Path) -> int:
    """Bytes allocated on disk under ``path`` (``du``'s figure: what the store costs)."""
    out = subprocess.run(["du", "-s", "-B1", str(path)], check=True, capture_output=True, text=True).stdout
    return int(out.split()[0])


class DiskPeak:
    """Samples ``du`` of the store folder in a thread: the most the import ever held on disk.

    The peak, not the end, is what a user must have free: an import keeps its bulk loads' files and the
    old generation until its closing compaction and switch.
    """

    def __init__(self, path: Path, every: float) -> None:
        self.path, self.every, self.peak = path, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            if self.path.exists():
                try:
                    self.peak = max(self.peak, disk_bytes(self.path))
                except subprocess.CalledProcessError:
                    continue  # a file vanished under du (a compaction): the next sample counts

    def __enter__(self) -> DiskPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def measure(chesskb: str, file: Path, store: Path, jobs: int, sample_every: float) -> dict[str, float]:
    shutil.rmtree(store, ignore_errors=True)
    before_io, before_cpu, started = written_bytes(), resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    with DiskPeak(store, sample_every) as disk:
        subprocess.run(
            [chesskb, "--store", str(store), "import", str(file), "--jobs", str(jobs)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    wall = time.time() - started
    after_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    written = written_bytes() - before_io
    live = store / os.readlink(store / "CURRENT")
    kept = disk_bytes(live)
    cpu = (after_cpu.ru_utime + after_cpu.ru_stime) - (before_cpu.ru_utime + before_cpu.ru_stime)
    return {
        "wall": wall,
        "cpu": cpu,
        "written": written,
        "kept": kept,
        "peak_disk": max(disk.peak, kept),
        "peak_rss_mb": after_cpu.ru_maxrss / 1024,
        "load": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="directory for the store (emptied first)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--chesskb",
        default=str(ROOT / ".venv" / "bin" / "chesskb"),
        help="the chesskb command to measure (default: this checkout's)",
    )
    parser.add_argument("--keep", action="store_true", help="leave the store in --work")
    parser.add_argument(
        "--sample-every", type=float, default=10.0, help="seconds between samples of the store's disk use"
    )
    args = parser.parse_args(argv)
    store = args.work / "store"
    got = measure(args.chesskb, args.file, store, args.jobs, args.sample_every)
    print(
        f"{args.file.name} ({args.chesskb}): wall {got['wall']:.1f} s, CPU {got['cpu']:.1f} s, "
        f"written {got['written'] / 1e6:,.0f} MB, store {got['kept'] / 1e6:,.0f} MB, "
        f"written/stored {got['written'] / got['kept']:.2f}, "
        f"peak disk {got['peak_disk'] / 1e6:,.0f} MB ({got['peak_disk'] / got['kept']:.2f}x the store), "
        f"peak RSS of a child {got['peak_rss_mb']:,.0f} MB, "
        f"load average {got['load']:.1f}"
    )
    if not args.keep:
        shutil.rmtree(store, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
