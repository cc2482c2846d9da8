"""The board index (issue 36, item 3): statements and bytes per position, and ``find`` latency, of imported stores.

Give it the store directories of the same collection imported before and after the change (``chesskb import``
of ``bench/corpus.py csv N``); for each it prints the positions, the quads per position, the bytes of the live
generation per position (and of the board index files), then each pattern of ``bench/patterns.py`` timed the
way ``chesskb find`` runs it on that store (a page of 100): through the board index when the generation has
one, else the SPARQL lookups the store's statements allow (``cp:pieceOn``/``cp:pieceIn`` on a store imported
before the change); ``--sparql`` also times the plain SPARQL query on a store with an index (what a remote
server, or ``--show-sparql`` pasted elsewhere, runs).

    python bench/board_index.py /tmp/bench/before-store /tmp/bench/after-store --sparql
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from patterns import PATTERNS

from chesskb.kb.search.board_scan import has_board
from chesskb.kb.search.patterns import parse
from chesskb.kb.store import EmbeddedStore
from chesskb.kb.store.board_file import FILES
from chesskb.queries.find import find_on_index, find_query, has_piece_index


def sizes(store: EmbeddedStore) -> None:
    generation = store.path / os.readlink(store.path / "CURRENT")
    files = [f for f in generation.iterdir() if f.is_file()]
    total = sum(f.stat().st_size for f in files)
    index = sum(f.stat().st_size for f in files if f.name in FILES)
    positions = int(next(iter(store.query("SELECT (COUNT(*) AS ?n) WHERE { ?p cp:boardSquares ?b }")))["n"].value)
    quads = int(next(iter(store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")))["n"].value)
    print(
        f"{store.path}: {positions:,} positions, {quads:,} statements in the merge ({quads / positions:.1f} per "
        f"position), generation {total / 1e6:,.1f} MB ({total / positions:,.0f} bytes per position; board index "
        f"{index / 1e6:,.1f} MB, {index / positions:.0f} bytes per position)"
    )


def timed(run, repeat: int) -> tuple[int, float, float]:
    times, rows = [], 0
    for _ in range(repeat + 1):
        started = time.perf_counter()
        rows = run()
        times.append(time.perf_counter() - started)
    return rows, times[0], statistics.median(times[1:])


def latencies(store: EmbeddedStore, repeat: int, limit: int, sparql_too: bool) -> None:
    index = store.board_index()
    lookups = has_piece_index(store)
    print(
        f"find, page of {limit}, median of {repeat} runs (first kept apart), load average {os.getloadavg()[0]:.1f}; "
        f"board index: {'yes' if index is not None else 'no'}; SPARQL lookups on {', '.join(sorted(lookups))}"
    )
    print("| pattern | rows | as find runs it | first | plain SPARQL |\n|---|---|---|---|---|")
    for label, text, options in PATTERNS:
        pattern = parse(text, **options)

        def plain(pattern=pattern) -> int:
            return len(list(store.query(find_query(pattern, limit=limit, piece_index=lookups))))

        def scanned(pattern=pattern) -> int:
            return len(list(store.query(find_on_index(store, index, pattern, limit=limit))))

        uses_index = index is not None and has_board(pattern)
        rows, first, median = timed(scanned if uses_index else plain, repeat)
        other = ""
        if uses_index and sparql_too:
            other = f"{timed(plain, 1)[2] * 1000:,.0f} ms"
        print(f"| {label} | {rows} | {median * 1000:,.0f} ms | {first * 1000:,.0f} ms | {other} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stores", type=Path, nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--sparql", action="store_true", help="also time the plain SPARQL query (one run)")
    args = parser.parse_args()
    for path in args.stores:
        store = EmbeddedStore(path)
        sizes(store)
        latencies(store, args.repeat, args.limit, args.sparql)


if __name__ == "__main__":
    main()
