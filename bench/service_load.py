"""Service throughput: requests/s and latency with 8 concurrent clients on loopback.

Starts ``chesskb --store STORE serve`` (waitress) in its own process, then drives three URLs with
Debian's ``wrk`` (8 connections, 2 threads; a Lua ``done`` hook prints p50/p95/p99), one after
the other: a canned query page, a position page and a ``/sparql`` SELECT.

    python bench/service_load.py --store /tmp/kb-100k/store --seconds 15

Without ``wrk`` on the PATH a bounded Python load generator (8 threads, keep-alive
``http.client``) stands in; it shares the two cores with the server, so its figures are lower.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WRK_REPORT = """
done = function(summary, latency, requests)
  io.write(string.format('{"requests": %d, "errors": %d, "seconds": %.3f, "p50_ms": %.2f, "p95_ms": %.2f, '
    .. '"p99_ms": %.2f, "non2xx": %d}\\n', summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, summary.errors.status))
end
"""

SELECT = "SELECT ?position ?fen WHERE { ?position a cp:Position ; cp:fen ?fen } LIMIT 20"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"server at {url} did not come up")


def first_position(base: str) -> str:
    query = urllib.parse.urlencode({"query": "SELECT ?p WHERE { ?p a cp:Position } LIMIT 1"})
    request = urllib.request.Request(f"{base}/sparql?{query}", headers={"Accept": "application/sparql-results+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        rows = json.load(response)["results"]["bindings"]
    return rows[0]["p"]["value"]


def run_wrk(url: str, seconds: int, connections: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_REPORT)
    out = subprocess.run(
        ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "-s", script.name, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    Path(script.name).unlink()
    report = json.loads(out.strip().splitlines()[-1])
    report["requests_per_s"] = round(report["requests"] / report["seconds"], 1)
    return report


def run_python_load(url: str, seconds: int, connections: int) -> dict:
    """Keep-alive clients in threads; latency per request, status other than 200 counted."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        mine: list[float] = []
        while time.monotonic() < stop:
            start = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            mine.append((time.perf_counter() - start) * 1000)
            if response.status != 200:
                with lock:
                    errors[0] += 1
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(connections)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    latencies.sort()

    def pick(fraction: float) -> float:
        return latencies[min(len(latencies) - 1, int(fraction * len(latencies)))]

    return {
        "requests": len(latencies),
        "errors": 0,
        "non2xx": errors[0],
        "seconds": round(elapsed, 3),
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(pick(0.95), 2),
        "p99_ms": round(pick(0.99), 2),
        "requests_per_s": round(len(latencies) / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, help="store to serve (built with chesskb import)")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--canned", default="mate-in-one", help="canned query whose page is loaded")
    args = parser.parse_args(argv)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "chesskb", "--store", args.store, "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_up(f"{base}/queries.json")
        position = first_position(base)
        urls = {
            "canned query page": f"{base}/queries/{args.canned}",
            "position page": f"{base}/page?{urllib.parse.urlencode({'iri': position})}",
            "/sparql SELECT": f"{base}/sparql?{urllib.parse.urlencode({'query': SELECT})}",
        }
        load = run_wrk if shutil.which("wrk") else run_python_load
        print(
            f"# load generator: {'wrk' if load is run_wrk else 'python threads'}, "
            f"{args.connections} connections, {args.seconds} s per URL",
            file=sys.stderr,
        )
        print(f"{'target':<18} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'non-2xx':>8} {'errors':>7}")
        for name, url in urls.items():
            try:
                with urllib.request.urlopen(url, timeout=60) as response:  # warm up
                    response.read()
            except urllib.error.HTTPError as exc:  # e.g. no page blueprint in this build
                print(f"{name:<18} not served: HTTP {exc.code}", flush=True)
                continue
            r = load(url, args.seconds, args.connections)
            print(
                f"{name:<18} {r['requests_per_s']:>8} {r['p50_ms']:>8} {r['p95_ms']:>8} {r['p99_ms']:>8} "
                f"{r['non2xx']:>8} {r['errors']:>7}",
                flush=True,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
