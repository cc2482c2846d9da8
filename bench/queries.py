"""Latency of every canned query, in-process and over HTTP, and throughput under 8 clients.

    python bench/queries.py [--store PATH | --copies K] [--runs N] [--seconds S]

Without ``--store`` it imports every collection shipped in ``data/`` into a temporary store.
In-process: ``store.query`` with the query's defaults, the result fully serialised to JSON.
HTTP: ``GET /queries/NAME.json`` against ``chesskb serve`` (waitress, query worker processes) on
loopback. Throughput: 8 threads requesting ``/queries/mate-in-one.json`` for ``--seconds``.
Prints median and p95 in milliseconds per query.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pyoxigraph import QueryResultsFormat, QuerySolutions  # noqa: E402

from chesskb.kb.store import open_store  # noqa: E402
from chesskb.queries import list_queries  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def scaled_copies(directory: Path, copies: int) -> list[str]:
    """data/ once plus ``copies - 1`` renamed copies of the lichess sample (distinct puzzle ids and
    game URLs, so every copy mints new individuals). PGN games are not copied: the KB identifies a
    game by its moves, so a copy would be the same game again, held in one more source graph."""
    import csv
    import io

    out = []
    for path in sorted((ROOT / "data").rglob("*")):
        if path.suffix not in (".pgn", ".csv") or "tools" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for k in range(copies if path.suffix == ".csv" else 1):
            target = directory / f"{path.stem}-copy{k}{path.suffix}"
            if path.suffix == ".csv":
                rows = list(csv.DictReader(io.StringIO(text)))
                with open(target, "w", encoding="utf-8", newline="") as handle:
                    writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
                    writer.writeheader()
                    for row in rows:
                        row["PuzzleId"] += f"x{k}"
                        if row.get("GameUrl"):
                            row["GameUrl"] = row["GameUrl"].replace("lichess.org/", f"lichess.org/c{k}")
                        writer.writerow(row)
                out.append(str(target))
            else:
                out.append(str(path))
    return out


def build_data_store(directory: Path, copies: int = 1) -> Path:
    store = directory / "store"
    if copies > 1:
        files = scaled_copies(directory, copies)
    else:
        files = sorted(
            str(p) for p in (ROOT / "data").rglob("*") if p.suffix in (".pgn", ".csv") and "tools" not in p.parts
        )
    subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "import", *files],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return store


def sample_params(store) -> dict[str, dict[str, str]]:
    """Parameters for queries without a default (a position that occurs more than once)."""
    row = next(
        iter(store.query("SELECT ?p WHERE { ?p cp:positionKey ?k . ?o cp:positionKey ?k FILTER(?o != ?p) } LIMIT 1"))
    )
    return {"same-position-elsewhere": {"position": row["p"].value}}


def in_process(store, params: dict, runs: int) -> dict[str, tuple[float, float, int]]:
    out = {}
    for query in list_queries():
        bindings = query.bind(params.get(query.name, {}))
        text = query.paged_text({**params.get(query.name, {}), "limit": "0"})  # every row, patterns inlined
        times, rows = [], 0
        for _ in range(runs):
            started = time.perf_counter()
            result = store.query(text, bindings=bindings)
            if isinstance(result, QuerySolutions):
                body = result.serialize(format=QueryResultsFormat.JSON)
                rows = len(json.loads(body)["results"]["bindings"])
            times.append((time.perf_counter() - started) * 1000)
        out[query.name] = (statistics.median(times), percentile(times, 0.95), rows)
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(store: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "chesskb", "--store", str(store), "serve", "--port", str(port)],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(base + "/queries.json", timeout=2).read()
            return process, base
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


def over_http(base: str, params: dict, runs: int) -> dict[str, tuple[float, float]]:
    out = {}
    for query in list_queries():
        url = f"{base}/queries/{query.name}.json"
        if params.get(query.name):
            url += "?" + urllib.parse.urlencode(params[query.name])
        urllib.request.urlopen(url, timeout=60).read()  # warm the worker
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            urllib.request.urlopen(url, timeout=60).read()
            times.append((time.perf_counter() - started) * 1000)
        out[query.name] = (statistics.median(times), percentile(times, 0.95))
    return out


def throughput(base: str, name: str, clients: int, seconds: float) -> tuple[float, int]:
    url = f"{base}/queries/{name}.json"
    counts = [0] * clients
    errors = [0]
    stop = time.monotonic() + seconds

    def client(index: int) -> None:
        while time.monotonic() < stop:
            try:
                urllib.request.urlopen(url, timeout=60).read()
                counts[index] += 1
            except OSError:
                errors[0] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - started), errors[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="Import this many renamed copies of data/ (a bigger KB of the same shape).",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chesskb-bench-queries-") as tmp:
        store_path = args.store or build_data_store(Path(tmp), args.copies)
        store = open_store(str(store_path))
        params = sample_params(store)
        positions = next(iter(store.query("SELECT (COUNT(*) AS ?n) WHERE { ?p a cp:Position }")))["n"].value
        local = in_process(store, params, args.runs)
        process, base = start_server(store_path)
        try:
            remote = over_http(base, params, args.runs)
            rate, errors = throughput(base, "mate-in-one", 8, args.seconds)
        finally:
            process.terminate()
            process.wait(10)
    what = (
        str(store_path)
        if args.store
        else "data/ (all shipped collections)"
        + (f" + {args.copies - 1} renamed copies of the lichess sample" if args.copies > 1 else "")
    )
    print(f"store: {what}, {positions} positions; {args.runs} runs per query")
    print(f"{'query':32} {'rows':>5} {'in-proc med':>12} {'p95':>8} {'HTTP med':>10} {'p95':>8}  (ms)")
    for name, (median, p95, rows) in local.items():
        http_median, http_p95 = remote[name]
        print(f"{name:32} {rows:>5} {median:>12.2f} {p95:>8.2f} {http_median:>10.2f} {http_p95:>8.2f}")
    print(
        f"throughput: /queries/mate-in-one.json, 8 concurrent clients, {args.seconds:g} s: "
        f"{rate:.1f} req/s ({errors} errors)"
    )


if __name__ == "__main__":
    main()
