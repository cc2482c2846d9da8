"""Time to the first page of ``./scripts/demo.sh`` (issue 34, item 6), on a first and a second start.

    .venv/bin/python bench/first_page.py [--store /tmp/chesskb-first-page/store] [--keep]

Runs the real ``scripts/demo.sh`` twice on one new store (the first start imports ``data/`` and the
courses, the second finds them unchanged), each time until it prints its ``serving`` line, then asks
for the pages a new user opens first, one after the other, and stops it with SIGTERM. Prints, per
start: seconds from launch to ``serving``, then the milliseconds of each page (status 200 required).
Nothing else runs the store meanwhile; the machine may be shared, so read the figures with its load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The pages asked for after "serving", in this order (the first is the one the warm-up answered).
PAGES = ("/", "/classes", "/class/MateInOne", "/train")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(store: Path) -> dict[str, float]:
    """One start of demo.sh: seconds to 'serving' and milliseconds of each page after it."""
    port = free_port()
    env = {**os.environ, "CHESSKB_STORE": str(store), "PORT": str(port), "HOST": "127.0.0.1"}
    began = time.perf_counter()
    process = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    figures: dict[str, float] = {}
    try:
        assert process.stdout is not None
        for line in process.stdout:
            print("   | " + line.rstrip())
            if line.startswith("serving "):
                break
        else:
            raise SystemExit("demo.sh stopped before serving")
        figures["serving_s"] = time.perf_counter() - began
        for path in PAGES:
            asked = time.perf_counter()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as response:
                response.read()
                if response.status != 200:
                    raise SystemExit(f"{path}: HTTP {response.status}")
            figures[path] = (time.perf_counter() - asked) * 1000
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    return figures


def new_store(description: str, prefix: str) -> tuple[Path, Path, bool]:
    """The ``--store``/``--keep`` options of the demo benchmarks (this one, ``demo_imports.py``): the folder
    to remove afterwards (unless kept), a store path that does not exist yet, and whether to keep it."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--store", type=Path, default=None, help="a store path that does not exist yet")
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix=prefix)) if args.store is None else args.store.parent
    store = args.store or work / "store"
    if store.exists():
        raise SystemExit(f"{store} exists: the first start needs a new store")
    return (work if args.store is None else store), store, args.keep


def main() -> None:
    remove, store, keep = new_store(__doc__.splitlines()[0], "chesskb-first-page-")
    try:
        results = {}
        for name in ("first start", "second start"):
            print(f"{name}:")
            results[name] = start(store)
        print()
        print(f"{'start':<14} {'to serving (s)':>14} " + " ".join(f"{p + ' (ms)':>22}" for p in PAGES))
        for name, figures in results.items():
            print(f"{name:<14} {figures['serving_s']:>14.1f} " + " ".join(f"{figures[p]:>22.0f}" for p in PAGES))
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        if not keep:
            shutil.rmtree(remove, ignore_errors=True)
            notes = Path(str(store) + ".import-notes.txt")
            notes.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
