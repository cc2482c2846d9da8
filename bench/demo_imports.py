"""Where the first start of ``./scripts/demo.sh`` spends its import time (issue 34, item 6).

    .venv/bin/python bench/demo_imports.py [--store /tmp/chesskb-demo-imports/store] [--keep]

Runs demo.sh's import commands (read from demo.sh itself, ``tests/demo_kb.py``) one after the other on a
new store, as ``chesskb`` subprocesses, and prints for each: wall seconds, CPU seconds (the command and the
worker processes it waited for: ``RUSAGE_CHILDREN``), and what the refresh every import ends with costs on
the store it leaves: the links between players and events (``kb.merge.linking.derive_links``) and the class
counts (``queries.class_counts.derive_class_counts``), each run here on that store, timed alone. The
difference between wall and CPU is the machine's other load (or waiting for the disk).
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from first_page import new_store  # noqa: E402  (the same --store/--keep options)

from tests.demo_kb import demo_imports  # noqa: E402  (demo.sh's own import lines)

CHESSKB = ROOT / ".venv" / "bin" / "chesskb"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def refresh_seconds(store: Path) -> tuple[float, float]:
    """Seconds of the links step and of the counts step on ``store`` as it is now (median of three)."""
    from chesskb.kb.merge.linking import derive_links
    from chesskb.kb.store import open_store
    from chesskb.queries.class_counts import derive_class_counts

    view = open_store(str(store))
    figures = []
    for step in (derive_links(None), derive_class_counts(None)):
        runs = []
        for _ in range(3):
            began = time.perf_counter()
            step(view)
            runs.append(time.perf_counter() - began)
        figures.append(sorted(runs)[1])
    return figures[0], figures[1]


def main() -> None:
    remove, store, keep = new_store(__doc__.splitlines()[0], "chesskb-demo-imports-")
    print(f"{'import':<40} {'wall s':>7} {'CPU s':>7} {'links s':>8} {'counts s':>9}")
    try:
        for command in demo_imports():
            files = [Path(a).name for a in command if "/" in a]  # demo_imports gives files as paths
            options = [a for a in command if "/" not in a]
            name = " ".join(options + (files if len(files) == 1 else [f"{len(files)} files"]))
            cpu = children_cpu()
            began = time.perf_counter()
            subprocess.run(
                [str(CHESSKB), "--store", str(store), "import", *command],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wall, used = time.perf_counter() - began, children_cpu() - cpu
            links, counts = refresh_seconds(store)
            print(f"{name:<40} {wall:7.1f} {used:7.1f} {links:8.3f} {counts:9.3f}", flush=True)
    finally:
        if not keep:
            shutil.rmtree(remove, ignore_errors=True)


if __name__ == "__main__":
    main()
