"""``exercises-by-difficulty`` per theme class on a store: wall and CPU milliseconds, and what the rows are.

    python bench/difficulty_order.py STORE [--classes Position DoubleAttack ...] [--query FILE.rq] [--repeat 5]

The canned query's cost depends on the class (issue 36: a class of a million members sorts a million
difficulties, a class of two still scans them), so one default-parameter figure (``chesskb bench-queries``)
hides the slow cases. For each class: its member count (the counts every write keeps), the median wall
and CPU time of the query as the app asks it (page of 100, bound and paged as ``chesskb query`` does),
after one warm-up. The query runs in one thread, so CPU time is its cost on a shared machine, where
the wall time also measures the other processes. ``--query`` times a rewrite with the same header
instead (to try a shape before changing the canned file); the digest of the rows tells whether two
runs gave the same page, row by row and in order.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chesskb.kb.store import open_store  # noqa: E402
from chesskb.kb.store.bindings import with_values  # noqa: E402
from chesskb.queries import load_query, parse_canned_query  # noqa: E402
from chesskb.queries.class_counts import member_counts  # noqa: E402

DEFAULT_CLASSES = ("Position", "MiddlegameTheme", "MateInOne", "MateInTwo", "DoubleAttack", "AnastasiaMate")


def timed_rows(store, text: str, repeat: int) -> tuple[list[tuple[str, ...]], list[float], list[float]]:
    """The rows of the last run and the wall and CPU milliseconds of each run after a warm-up."""
    walls, cpus, rows = [], [], []
    for run in range(repeat + 1):
        cpu, wall = time.process_time(), time.perf_counter()
        result = store.query(text)
        names = [variable.value for variable in result.variables]
        rows = [tuple("" if row[name] is None else str(row[name]) for name in names) for row in result]
        if run:  # the first run warms the caches
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
    return rows, walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--classes", nargs="+", default=list(DEFAULT_CLASSES))
    parser.add_argument("--query", type=Path, help="a rewrite of the canned query to time instead")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    query = parse_canned_query(args.query.stem, args.query.read_text()) if args.query else None
    query = query or load_query("exercises-by-difficulty")
    store = open_store(args.store)
    counts = member_counts(store)
    print("| class | members | rows | wall ms, median | CPU ms, median | rows' digest |")
    print("|---|---:|---:|---:|---:|---|")
    for name in args.classes:
        given = {"tactic": name}
        text = with_values(query.paged_text(given), query.bind(given))
        rows, walls, cpus = timed_rows(store, text, args.repeat)
        digest = hashlib.sha1(repr(rows).encode()).hexdigest()[:12]
        print(
            f"| {name} | {counts.get(name, 0):,} | {len(rows)} | {statistics.median(walls):,.0f} "
            f"| {statistics.median(cpus):,.0f} | {digest} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
