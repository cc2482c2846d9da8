"""Import speed: the embedded store against an Oxigraph SPARQL server on the same machine (issue 7).

    python bench/import_remote.py [FILE ...] [--jobs N]

Imports the files (default: every collection in data/) once into a fresh embedded store and once
into a fresh ``oxigraph serve`` started here, through the same ``chesskb import``, and prints
positions per second for each. One run each, as the issue asks; the machine is shared, so read the
figures as a ratio more than as absolutes.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chesskb.kb.importer import import_files  # noqa: E402
from chesskb.kb.store import open_store  # noqa: E402


def _positions(store) -> int:
    row = next(iter(store.query("SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p cp:fen ?f }")))
    return int(row["n"].value)


def _start_server(directory: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    binary = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    process = subprocess.Popen(
        [binary, "serve", "--location", str(directory), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/query?query=ASK%7B%7D", timeout=1).read()
            return process, base
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("oxigraph serve did not start")


def run(files: list[Path], jobs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="chesskb-remote-bench-") as tmp:
        results = []
        embedded = open_store(str(Path(tmp) / "embedded"))
        started = time.perf_counter()
        import_files(embedded, files, jobs=jobs)
        seconds = time.perf_counter() - started
        results.append(("embedded Oxigraph", _positions(embedded), seconds))
        process, base = _start_server(Path(tmp) / "server")
        try:
            remote = open_store(base + "/query", update_endpoint=base + "/update")
            started = time.perf_counter()
            import_files(remote, files, jobs=jobs)
            seconds = time.perf_counter() - started
            results.append(("oxigraph serve (SPARQL Update + Graph Store Protocol)", _positions(remote), seconds))
        finally:
            process.terminate()
            process.wait()
    print(f"{'store':<55} {'positions':>9} {'seconds':>8} {'positions/s':>11}")
    for name, positions, seconds in results:
        print(f"{name:<55} {positions:>9} {seconds:>8.1f} {positions / seconds:>11.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    files = args.files or sorted(p for p in (ROOT / "data").rglob("*") if p.suffix in (".pgn", ".csv"))
    run(files, args.jobs)


if __name__ == "__main__":
    main()
