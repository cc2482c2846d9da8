"""Disk bytes per position of three ways to lay the same statements out in Oxigraph (issue 23, item 4).

Input: a ``chesskb convert`` file (N-Quads: each statement in its named graph and again in the
default graph). Each layout is bulk-loaded into a new on-disk store, flushed and compacted
(``optimize``), and measured:

* ``today``: every statement in its named graph and its triple in the default graph (the merge);
* ``named only``: the named graphs alone (queries would read the union of the named graphs);
* ``default only``: the merge alone (provenance kept elsewhere, at record level).

    python bench/store_layouts.py /tmp/chesskb-bench/csv-10000.nq.gz 10000
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
import tempfile
from pathlib import Path

from pyoxigraph import DefaultGraph, Quad, RdfFormat, Store, parse


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def layout_bytes(quads: list[Quad], work: Path, name: str) -> tuple[int, int]:
    target = work / name
    store = Store(str(target))
    store.bulk_extend(quads)
    store.flush()
    store.optimize()
    count = len(store)
    del store
    size = directory_bytes(target)
    shutil.rmtree(target)
    return count, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nquads", type=Path)
    parser.add_argument("positions", type=int)
    args = parser.parse_args(argv)
    opener = gzip.open if args.nquads.name.endswith(".gz") else open
    with opener(args.nquads, "rb") as handle:
        quads = list(parse(handle.read(), format=RdfFormat.N_QUADS))
    named = [q for q in quads if not isinstance(q.graph_name, DefaultGraph)]
    default = [q for q in quads if isinstance(q.graph_name, DefaultGraph)]
    with tempfile.TemporaryDirectory() as work:
        print(f"{'layout':<14} {'quads':>10} {'bytes':>13} {'bytes/position':>15}")
        for name, chosen in (("today", quads), ("named only", named), ("default only", default)):
            count, size = layout_bytes(chosen, Path(work), name.replace(" ", "-"))
            print(f"{name:<14} {count:>10} {size:>13,} {size / args.positions:>15,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
