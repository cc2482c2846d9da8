"""Latency of the pages (issue 5), in-process through Flask's test client: median and p95 in ms.

    .venv/bin/python bench/pages.py --store /tmp/chesskb-bench/store-100000 [--repeat 20]

Positions are sampled from the store (a different one per request, so no cache helps); each URL kind
is timed ``--repeat`` times. The store is opened read-only; nothing is written.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chesskb.kb.store import open_store
from chesskb.service.app import create_app

HTML = {"Accept": "text/html"}


def timed(client, url: str, headers: dict[str, str]) -> float:
    start = time.perf_counter()
    response = client.get(url, headers=headers)
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code}: {response.get_data(as_text=True)[:300]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    store = open_store(args.store)
    app = create_app({"STORE": args.store}, store=store)
    client = app.test_client()
    count = int(next(iter(store.query("SELECT (COUNT(?p) AS ?n) WHERE { ?p a cp:Position }")))["n"].value)
    rows = list(store.query(f"SELECT ?p WHERE {{ ?p a cp:Position }} LIMIT {args.repeat}"))
    positions = [row["p"].value for row in rows]
    players = [row["p"].value for row in store.query(f"SELECT ?p WHERE {{ ?p a cp:Player }} LIMIT {args.repeat}")] or [
        None
    ]
    fen = next(iter(store.query("SELECT ?f WHERE { ?p cp:fen ?f } LIMIT 1")))["f"].value
    last_page = max(1, count // 24 - 1)
    kinds = {
        "position page (HTML)": [(f"/page?iri={p}", HTML) for p in positions],
        "position page (Turtle)": [(f"/page?iri={p}", {"Accept": "text/turtle"}) for p in positions],
        "position page (JSON-LD)": [(f"/page?iri={p}", {"Accept": "application/ld+json"}) for p in positions],
        "position .json twin": [(f"/page.json?iri={p}", {}) for p in positions],
        "player page (HTML)": [(f"/page?iri={p}", HTML) for p in players if p],
        "/classes (tree, counts)": [("/classes", HTML)] * min(args.repeat, 5),
        "/class/Position page 1": [("/class/Position", HTML)] * args.repeat,
        f"/class/Position page {last_page}": [(f"/class/Position?page={last_page}", HTML)] * min(args.repeat, 5),
        "/class/MateInTwo page 1": [("/class/MateInTwo", HTML)] * args.repeat,
        "/search?q=kasparov": [("/search?q=kasparov", HTML)] * min(args.repeat, 5),
        "/search?q=FEN": [(f"/search?q={fen.split()[0]}", HTML)] * min(args.repeat, 5),
        "/board.svg": [(f"/board.svg?fen={fen}&size=160", {})] * args.repeat,
        "/ (home)": [("/", HTML)] * min(args.repeat, 5),
    }
    print(f"store {args.store}: {count} positions")
    print(f"{'page':38} {'n':>3} {'median ms':>10} {'p95 ms':>8}")
    for name, requests in kinds.items():
        if not requests:
            continue
        times = sorted(timed(client, url, headers) for url, headers in requests)
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(f"{name:38} {len(times):>3} {statistics.median(times):>10.1f} {p95:>8.1f}")


if __name__ == "__main__":
    main()
