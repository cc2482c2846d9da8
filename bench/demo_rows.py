"""Rows each canned query answers with its default parameters on the demo KB (issue 34, item 6's figures).

    .venv/bin/python bench/first_page.py --store /tmp/chesskb-demo/store --keep   # demo.sh builds the store
    .venv/bin/python bench/demo_rows.py --store /tmp/chesskb-demo/store

Every canned query runs with its defaults and no page limit (``limit=0``), as ``chesskb query --name NAME
--param limit=0`` does, over the embedded store; prints one line per query (name, rows, milliseconds of one
run) and the number of queries answering no row. The rows do not depend on the machine; the milliseconds do.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from chesskb.kb.store import open_store
from chesskb.queries import list_queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a store scripts/demo.sh built")
    args = parser.parse_args()
    if not args.store.exists():
        raise SystemExit(f"{args.store}: no such store (build it with bench/first_page.py --keep or demo.sh)")
    kb = open_store(str(args.store))
    empty = []
    for query in list_queries():
        began = time.perf_counter()
        rows = sum(1 for _ in kb.query(query.paged_text({"limit": "0"}), bindings=query.bind({})))
        print(f"{query.name:<32} {rows:>6} rows  {(time.perf_counter() - began) * 1000:>8.0f} ms")
        if not rows:
            empty.append(query.name)
    print(f"{len(empty)} of {len(list_queries())} queries answer no row" + (f": {', '.join(empty)}" if empty else ""))


if __name__ == "__main__":
    main()
