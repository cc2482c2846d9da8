"""A second client's latency while one party attacks (issue 35): idle first, then during each attack,
as median and max of the visitor's requests, and the ratio of the medians to the idle one.

    .venv/bin/python bench/fair_lanes.py [--store DIR] [--seconds 20] [--attacks partial] [--rounds 3]
        [--code DIR] [--serve-option=--worker-nice=0 …]

The visitor (127.0.1.2) asks the home page, the theme tree, a canned question page and a new,
never-cached ``ASK`` at ``/sparql`` in turn. The attacks come from 127.0.0.x (another /24):

* runaways: 4 threads from 2 addresses fire the four-pattern cross product at ``/sparql`` again
  and again (each runs to QUERY_TIMEOUT); ``runaways-8`` (not run by default): 8 threads from 4
  addresses, as ``bench/service_attacks.py``;
* crash storm: 2 threads post ``{`` x 5000, which crashes the store's parser (and its worker): the
  server runs with ``--query-max-nesting 0`` so that it does (by default it is refused with 400);
* every row: 2 threads ask canned questions with ``limit=0`` and a new offset each time (never
  cached);
* idle partial requests: one address keeps 1,100 connections with half a request open, reopening
  each one the server cuts.
* the same from ten addresses (``partial-10``, not run by default): 110 each from 127.0.3.30 to
  127.0.12.30.

Without ``--store`` it builds the test suite's small competency store in a temporary directory.
``--code`` serves from another checkout (``git archive REV | tar -x -C DIR``) to compare, and
``--serve-option`` adds options to its ``chesskb serve``.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.service_attacks import VISITOR_PATHS, visitor_url
from tests.live_server import http, live_server
from tests.test_endpoint_security import RUNAWAY
from tests.test_fair_service import attack_threads, hold_partial_requests

VISITOR = "127.0.1.2"
CANNED = ("winning-for-white", "mate-in-one", "players-rated-above", "opening-traps")


def visit(base: str, seconds: float) -> tuple[list[float], dict[str, int]]:
    latencies: list[float] = []
    failures: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for path in VISITOR_PATHS:
            started = time.monotonic()
            try:
                status = http(
                    "GET",
                    visitor_url(base, path),
                    headers={"Accept": "text/html,*/*;q=0.8"},
                    source=VISITOR,
                    timeout=60,
                )[0]
            except OSError:
                status = 0
            latencies.append(time.monotonic() - started)
            if status != 200:
                key = f"{path[:8]} {status}"
                failures[key] = failures.get(key, 0) + 1
    return latencies, failures


def runaways(base: str, stop: threading.Event, threads: int = 4, addresses: int = 2) -> list[threading.Thread]:
    return attack_threads(
        stop,
        threads,
        lambda n: http(
            "GET", base + "/sparql?query=" + quote(RUNAWAY), timeout=60, source=f"127.0.0.{10 + n % addresses}"
        ),
    )


def runaways_eight(base: str, stop: threading.Event) -> list[threading.Thread]:
    """``bench/service_attacks.py``'s runaways: 8 at once from 4 addresses."""
    return runaways(base, stop, 8, 4)


def crash_storm(base: str, stop: threading.Event) -> list[threading.Thread]:
    body = b"SELECT * WHERE " + b"{" * 5000
    return attack_threads(
        stop,
        2,
        lambda _: http(
            "POST",
            base + "/sparql",
            body=body,
            source="127.0.0.20",
            timeout=60,
            headers={"Content-Type": "application/sparql-query"},
        ),
    )


def every_row(base: str, stop: threading.Event) -> list[threading.Thread]:
    offsets = itertools.count(1)
    return attack_threads(
        stop,
        2,
        lambda n: http(
            "GET",
            f"{base}/queries/{CANNED[n % len(CANNED)]}.json?limit=0&offset={next(offsets)}",
            source="127.0.0.21",
            timeout=60,
        ),
    )


def partial_requests(base: str, stop: threading.Event, count: int = 1100) -> list[threading.Thread]:
    thread = threading.Thread(target=hold_partial_requests, args=(base, stop, count, "127.0.0.30"), daemon=True)
    thread.start()
    return [thread]


def partial_requests_from_ten(base: str, stop: threading.Event) -> list[threading.Thread]:
    """The same 1,100 partial requests from ten addresses of ten networks, 110 each: each address is
    over its share, so the server refuses and cuts for ten at once."""
    threads = [
        threading.Thread(target=hold_partial_requests, args=(base, stop, 110, f"127.0.{3 + n}.30"), daemon=True)
        for n in range(10)
    ]
    for thread in threads:
        thread.start()
    return threads


def line(name: str, latencies: list[float], failures: dict[str, int], idle_median: float) -> str:
    median = statistics.median(latencies)
    return (
        f"{name:<24} {len(latencies):>4} requests, not 200: {failures or 0}, median {median * 1000:.0f} ms "
        f"({median / idle_median:.1f}x idle), max {max(latencies) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument(
        "--attacks", default="runaways,crash,every-row,partial", help="which attacks, comma-separated (default: all)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="idle and attack periods taken in turn per attack, each --seconds long: on a shared "
        "machine the load moves the idle figure, so each attack is compared with idle "
        "periods around it (default 1)",
    )
    parser.add_argument("--code", type=Path, help="serve from this checkout instead of this one")
    parser.add_argument("--serve-option", action="append", default=[], help="an option for chesskb serve")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        store = args.store
        if store is None:
            from tests.competency import build_store

            store = build_store(Path(work) / "store")
        options = ("--query-timeout", "6", "--channel-timeout", "5", "--query-max-nesting", "0", *args.serve_option)
        code = args.code.resolve() if args.code else Path(__file__).resolve().parent.parent
        with live_server(store, *options, code=code) as base:
            visit(base, 3)  # warm: workers started, templates compiled
            latencies, failures = visit(base, args.seconds)
            idle_median = statistics.median(latencies)
            print(line("idle", latencies, failures, idle_median), flush=True)
            chosen = args.attacks.split(",")
            for key, name, attack in (
                ("runaways", "runaways, 2 addresses", runaways),
                ("runaways-8", "8 runaways, 4 addresses", runaways_eight),
                ("crash", "crash storm", crash_storm),
                ("every-row", "limit=0, new offsets", every_row),
                ("partial", "1,100 partial requests", partial_requests),
                ("partial-10", "the same from 10 addresses", partial_requests_from_ten),
            ):
                if key not in chosen:
                    continue
                idle: list[float] = []
                attacked: list[float] = []
                failed: dict[str, int] = {}
                for _ in range(args.rounds):
                    if args.rounds > 1:
                        idle += visit(base, args.seconds)[0]
                    latencies, failures = _during(attack, base, args.seconds)
                    attacked += latencies
                    for where, count in failures.items():
                        failed[where] = failed.get(where, 0) + count
                if args.rounds > 1:
                    idle_median = statistics.median(idle)
                    print(line(f"  idle around {key}", idle, {}, idle_median), flush=True)
                print(line(name, attacked, failed, idle_median), flush=True)


def _during(
    attack: Callable[[str, threading.Event], list[threading.Thread]], base: str, seconds: float
) -> tuple[list[float], dict[str, int]]:
    """The visitor's latencies while ``attack`` runs, the attacker in its own process: its threads
    must not slow the visitor's through the GIL."""
    stop = multiprocessing.get_context("fork").Event()
    attacker = multiprocessing.get_context("fork").Process(target=_attack, args=(attack, base, stop))
    attacker.start()
    time.sleep(1)
    try:
        return visit(base, seconds)
    finally:
        stop.set()
        attacker.join(70)
        time.sleep(2)


def _attack(attack: Callable[[str, threading.Event], list[threading.Thread]], base: str, stop: object) -> None:
    own = threading.Event()
    threads = attack(base, own)
    stop.wait()  # type: ignore[attr-defined]
    own.set()
    for thread in threads:
        thread.join(70)


if __name__ == "__main__":
    main()
