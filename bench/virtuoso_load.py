"""Virtuoso against the embedded store on one ``convert`` file (issue 36, item 5).

Converts FILE once (``chesskb convert``), bulk loads it into a fresh Debian Virtuoso with
``kb/store/virtuoso.py`` (ld_dir + one ``rdf_loader_run`` per core) and imports the same file into a
fresh embedded store; then runs every canned query Virtuoso answers (``VIRTUOSO_CANNOT`` in
tests/test_virtuoso_store.py lists those it does not) through both, and prints load time, quads per
second, disk and the slowest queries.

    CHESSKB_ENGINE=none python bench/virtuoso_load.py /tmp/chesskb-bench/csv-10000.csv --work /tmp/vb
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chesskb.kb.store import open_store  # noqa: E402
from chesskb.kb.store.virtuoso import VirtuosoSql, bulk_load  # noqa: E402
from chesskb.queries import list_queries  # noqa: E402
from chesskb.queries.executor import prepare  # noqa: E402
from tests.live_server import virtuoso_server  # noqa: E402
from tests.test_virtuoso_store import VIRTUOSO_CANNOT  # noqa: E402


def folder_bytes(path: Path, pattern: str = "*") -> int:
    return sum(p.stat().st_size for p in path.rglob(pattern) if p.is_file())


def timed_queries(store, repeat: int) -> dict[str, float]:
    """Median milliseconds of each canned query Virtuoso answers (defaults bound, as the CLI runs them)."""
    times: dict[str, float] = {}
    for query in list_queries():
        if query.name in VIRTUOSO_CANNOT:
            continue
        text = prepare(query.name, {}, public=True)
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            list(store.query(text))
            runs.append((time.perf_counter() - started) * 1000)
        times[query.name] = statistics.median(runs)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="a folder for the stores (emptied first)")
    parser.add_argument("--loaders", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    chesskb = [sys.executable, "-m", "chesskb"]
    embedded = args.work / "embedded"
    started = time.perf_counter()
    subprocess.run(
        [*chesskb, "--store", str(embedded), "import", "--jobs", "2", str(args.file)],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    import_seconds = time.perf_counter() - started
    with virtuoso_server(args.work / "virtuoso") as server:
        parts = server.folder / "parts"
        parts.mkdir()
        started = time.perf_counter()
        subprocess.run(
            [*chesskb, "convert", "--jobs", "2", str(args.file), "-o", str(parts / "part-0.nq.gz")],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
        convert_seconds = time.perf_counter() - started
        with gzip.open(parts / "part-0.nq.gz") as handle:
            quads = sum(1 for _ in handle)
        started = time.perf_counter()
        bulk_load(VirtuosoSql(server.sql_port), parts, loaders=args.loaders)
        load_seconds = time.perf_counter() - started
        virtuoso_bytes = folder_bytes(server.folder, "virtuoso*.db")
        remote = timed_queries(open_store(server.sparql), args.repeat)
    local = timed_queries(open_store(str(embedded)), args.repeat)
    print(
        f"{args.file.name}: {quads:,} quads; embedded import {import_seconds:.1f} s, "
        f"{folder_bytes(embedded):,} bytes; convert {convert_seconds:.1f} s + Virtuoso load {load_seconds:.1f} s "
        f"({quads / load_seconds:,.0f} quads/s, {args.loaders} loaders), {virtuoso_bytes:,} bytes"
    )
    slowest = sorted(remote, key=remote.get, reverse=True)[:5]
    print(
        f"queries ({len(remote)}), median ms: Virtuoso max {max(remote.values()):.0f}, "
        f"embedded max {max(local.values()):.0f}; slowest on Virtuoso: "
        + ", ".join(f"{name} {remote[name]:.0f} (embedded {local[name]:.0f})" for name in slowest)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
