"""The server's memory over a long scripted session (issue 35, item 5): RSS of ``chesskb serve`` (the
request process; its query workers keep nothing between queries) sampled while one client walks the
site and asks many distinct queries, each answer a different cache entry.

    .venv/bin/python bench/service_memory.py [--store DIR] [--requests 600] [--cache-bytes N ...]

The session mixes what visitors ask: pages (home, classes, canned questions with varying parameters,
positions) and ``/sparql`` SELECTs of about 0.7 MB each (distinct texts, so none is answered from the
cache). It runs once per ``--cache-bytes`` value (``RESULT_CACHE_BYTES``); the default compares the
service's bound (64 MiB) with 1 GiB, where only the cache's 512 entries bound it (as before the setting).
Without ``--store`` it imports the shipped collections (``data/``) into a temporary directory.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import DATA, run_cli
from tests.live_server import http, start_server

MiB = 1 << 20


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def session_urls(count: int) -> list[str]:
    """``count`` requests: one in three a large distinct /sparql SELECT, the rest pages."""
    pages = ["/", "/classes", "/courses", "/queries/mate-in-one", "/queries/sources.json"]
    urls = []
    for n in range(count):
        if n % 3 == 0:
            query = f"SELECT ?s ?p ?o WHERE {{ ?s ?p ?o }} LIMIT 4000 # {n}"
            urls.append("/sparql?query=" + quote(query))
        elif n % 3 == 1:
            urls.append(f"/queries/mate-in-one.json?limit=20&offset={n % 200}")
        else:
            urls.append(pages[n % len(pages)])
    return urls


def run_session(store: Path, cache_bytes: int, requests: int) -> dict[str, float]:
    process, base = start_server(store, env={"CHESSKB_RESULT_CACHE_BYTES": str(cache_bytes)})
    try:
        samples = [rss(process.pid)]
        latencies = []
        failures = 0
        for number, url in enumerate(session_urls(requests), start=1):
            started = time.monotonic()
            status, _, _ = http("GET", base + url, headers={"Accept": "application/sparql-results+json"})
            latencies.append(time.monotonic() - started)
            failures += status >= 400
            if number % 50 == 0:
                samples.append(rss(process.pid))
        time.sleep(1)
        samples.append(rss(process.pid))
        return {
            "start": samples[0] / MiB,
            "peak": max(samples) / MiB,
            "end": samples[-1] / MiB,
            "median_ms": statistics.median(latencies) * 1000,
            "failures": failures,
            "samples": " ".join(f"{sample / MiB:.0f}" for sample in samples),
        }
    finally:
        process.terminate()
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--cache-bytes", type=int, nargs="+", default=[64 * MiB, 1024 * MiB])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chesskb-memory-") as work:
        store = args.store
        if store is None:
            store = Path(work) / "store"
            files = sorted(str(p) for p in DATA.rglob("*") if p.suffix in (".pgn", ".csv") and "tools" not in p.parts)
            assert run_cli("import", "--jobs", "1", *files, store=store).exit_code == 0
        print(f"{args.requests} requests per session; server RSS in MiB (sampled every 50 requests)")
        print(f"{'RESULT_CACHE_BYTES':>20} {'start':>7} {'peak':>7} {'end':>7} {'median ms':>10} {'errors':>7}")
        for cache_bytes in args.cache_bytes:
            figures = run_session(store, cache_bytes, args.requests)
            print(
                f"{cache_bytes // MiB:>16} MiB {figures['start']:>7.0f} {figures['peak']:>7.0f} "
                f"{figures['end']:>7.0f} {figures['median_ms']:>10.1f} {figures['failures']:>7.0f}"
            )
            print(f"{'':>20} every 50 requests: {figures['samples']}")


if __name__ == "__main__":
    main()
