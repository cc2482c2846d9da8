"""The embedded store's write alone, without the analysis before it (issue 23, item 4).

``chesskb import`` overlaps the store's bulk loads with the workers' analysis, so its wall time says
little about the writer on a busy machine. This script runs the import as usual but collects every
statement the pipeline produces before the write starts, then times ``replace_graphs`` (the loads,
the removal of what is replaced, links and class counts) and a ``remove-source`` of the same source.
Which code is measured follows ``PYTHONPATH`` (e.g. an older commit unpacked with ``git archive``).

    CHESSKB_ENGINE=none python bench/store_write.py /tmp/chesskb-bench/csv-10000.csv --work /tmp/w
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from chesskb.kb.importer import import_files, remove_source
from chesskb.kb.store.embedded import EmbeddedStore


class TimedWrite(EmbeddedStore):
    """An embedded store whose ``replace_graphs`` first gathers all its statements (the workers'
    analysis), then times the write itself."""

    def __init__(self, location) -> None:
        super().__init__(location)
        self.write_seconds: list[float] = []

    def replace_graphs(self, remove, quads, **options):  # type: ignore[override]
        statements = list(quads)
        started = time.perf_counter()
        super().replace_graphs(remove, statements, **options)
        self.write_seconds.append(time.perf_counter() - started)


def live_bytes(store: Path) -> int:
    generation = store / os.readlink(store / "CURRENT")
    return sum(p.stat().st_size for p in generation.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="directory for the store (emptied first)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    shutil.rmtree(args.work, ignore_errors=True)
    store = TimedWrite(args.work / "store")
    report = import_files(store, [args.file], jobs=args.jobs)
    written = live_bytes(store.path)
    remove_source(store, report.sources[0].name)
    import chesskb

    write, removal = store.write_seconds
    print(
        f"{args.file.name}: code {Path(chesskb.__file__).parent.parent}, write {write:.1f} s, "
        f"{written:,} bytes, remove-source {removal:.1f} s, load average {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
